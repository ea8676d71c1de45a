"""The scores file: written and read back by suffix (compressed too), written atomically,
and rows that name no model or sentence are an error, not dropped silently."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from acceptability.data.errors import DataError
from acceptability.data.io.atomic import atomic_path, write_text

MAGIC = {".gz": b"\x1f\x8b", ".bz2": b"BZh", ".xz": b"\xfd7zXZ", ".zip": b"PK"}


@pytest.mark.parametrize("name", ["s.csv", "s.tsv", "s.parquet", "s.tsv.gz",
                                  *[f"s.csv{z}" for z in MAGIC]])
def test_scores_round_trip_by_suffix(example, tmp_path, name):
    ds, sc = example
    path = data.write_scores(sc, tmp_path / "out" / name)
    for suffix, magic in MAGIC.items():
        if name.endswith(suffix):
            assert path.read_bytes().startswith(magic)  # really compressed
    back = data.read_scores(path, ds)
    pd.testing.assert_frame_equal(back[["sentence_id", "model", "score"]].reset_index(drop=True),
                                  sc[["sentence_id", "model", "score"]].reset_index(drop=True),
                                  check_dtype=False)
    assert [p.name for p in path.parent.iterdir()] == [name]  # no temporary file left


def test_gz_scores_are_gzip_csv(example, tmp_path):
    path = data.write_scores(example[1], tmp_path / "s.csv.gz")
    with gzip.open(path, "rt") as f:
        assert f.readline().startswith("sentence_id,model,score")


@pytest.mark.parametrize("column", ["model", "sentence_id"])
@pytest.mark.parametrize("blank", [np.nan, "", "  "])
def test_score_rows_without_model_or_sentence_are_an_error(example, tmp_path, column, blank):
    ds, sc = example
    sc = sc.astype({column: object})
    sc.loc[sc.index[[3, 5]], column] = blank
    where = rf"row {sc.index[3]}, column '{column}': missing {column} \(2 rows\)"
    with pytest.raises(DataError, match=where):
        data.validate_scores(sc)
    with pytest.raises(DataError, match=rf"missing {column}"):
        stats.evaluate(ds, sc)
    path = tmp_path / "s.csv"
    sc.to_csv(path, index=False)
    with pytest.raises(DataError, match=rf"row 5 \(line\), column '{column}': missing"):
        data.read_scores(path, ds)


def test_atomic_write_keeps_the_old_file_on_error(tmp_path):
    target = write_text(tmp_path / "a" / "report.md", "old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("killed")
    assert target.read_text() == "old" and [p.name for p in target.parent.iterdir()] == [
        "report.md"]
    write_text(target, "new")
    assert target.read_text() == "new"
