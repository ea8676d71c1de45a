"""`run` stores its intermediate results as Parquet tables and JSON (reports.cli.store), never
as pickles: no file of a run folder is one, loading runs no code, the store loses nothing
that the report shows, and a resumed run gives the same report."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import data
from acceptability.reports import analyse, build
from acceptability.reports.cli import store
from acceptability.reports.cli.experiment import Experiment
from acceptability.reports.cli.pipeline import run

PICKLE_MAGIC = (b"\x80",)  # protocol 2 and later; protocols 0-1 write ASCII opcodes
REPORT = ("report.html", "report.md", "provenance.json")


def _run(out: Path, force: bool = False, **settings) -> list[str]:
    lines: list[str] = []
    run(Experiment(dataset="example", n_boot=20, out=str(out), **settings), force=force,
        log=lines.append)
    return lines


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """A run folder on the bundled example that an older version left a pickle in, rerun
    with --force (its manifest records no hashes: the pickle is left, never read)."""
    out = tmp_path_factory.mktemp("run")
    (out / "analysis.pkl").write_bytes(b"\x80\x04N.")  # pickle.dumps(None)
    (out / "manifest.json").write_text(json.dumps({"steps": {"evaluate": {
        "fingerprint": "0.1", "outputs": ["analysis.pkl", "evaluation.csv"]}}}))
    _run(out, force=True)
    return out


def test_no_file_of_a_run_folder_is_a_pickle(folder):
    files = [p for p in folder.rglob("*") if p.is_file() and p.name != "analysis.pkl"]
    assert {"analysis.json", "fits.json", "scores.parquet", "report.html"} <= {
        p.name for p in files}
    for path in files:
        assert path.suffix not in (".pkl", ".pickle"), path
        assert not path.read_bytes().startswith(PICKLE_MAGIC), path
    for path in (folder / "analysis").iterdir():
        assert path.suffix == ".parquet" and path.read_bytes()[:4] == b"PAR1", path
    for name in ("analysis.json", "fits.json"):
        document = json.loads((folder / name).read_text())
        assert (document["format"], document["version"]) == (store.FORMAT, store.VERSION)


def test_a_resumed_run_gives_the_same_report(folder, tmp_path):
    """Skipped steps are read back from the store; the report rendered from it again is
    the same to the byte (figures, tables, provenance)."""
    copy = shutil.copytree(folder, tmp_path / "copy")
    lines = _run(copy)
    assert sum("up to date" in line for line in lines) == 4, lines
    for name in REPORT:
        (copy / name).unlink()
    shutil.rmtree(copy / "tables")
    text = "\n".join(_run(copy))
    assert all(f"{step}: up to date" in text for step in ("score", "evaluate", "fit")), text
    assert "report: report into" in text, text
    for name in REPORT:
        assert (copy / name).read_bytes() == (folder / name).read_bytes(), name
    for path in (folder / "tables").iterdir():
        assert (copy / "tables" / path.name).read_bytes() == path.read_bytes(), path.name


def _same(a, b, where: str = "results") -> None:
    """``a`` and ``b`` hold equal values of the same types, tables to the bit with their
    dtypes, index and attrs."""
    assert type(a) is type(b), where
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(b, a, check_exact=True, obj=where)
        for column in [c for c in a.columns if a[c].dtype == object]:
            assert list(map(type, a[column])) == list(map(type, b[column])), (where, column)
        _same(a.attrs, b.attrs, f"{where}.attrs")
    elif dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, dict | list | tuple):
        assert len(a) == len(b), where
        keys = list(a) if isinstance(a, dict) else range(len(a))
        assert keys == (list(b) if isinstance(b, dict) else range(len(b))), where
        for k in keys:
            _same(a[k], b[k], f"{where}[{k!r}]")
    else:
        assert a == b or (a != a and b != b), where  # NaN == NaN here


def test_the_store_keeps_everything_the_report_shows(tmp_path):
    dataset, scores = data.load_example()
    results = analyse(dataset, scores, n_boot=20, sign="thesis")
    files = store.save(results, tmp_path / "analysis.json")
    assert files[-1] == "analysis.json" and all(f.endswith(".parquet") for f in files[:-1])
    again = store.load(tmp_path / "analysis.json", dataset=dataset)
    assert again.dataset is dataset
    _same(dataclasses.replace(results, dataset=None), dataclasses.replace(again, dataset=None))
    build(results, tmp_path / "direct")
    build(again, tmp_path / "stored")
    for name in ("report.html", "report.md"):
        assert (tmp_path / "stored" / name).read_bytes() == (tmp_path / "direct" / name
                                                             ).read_bytes(), name


def test_mixed_object_columns_and_numpy_scalars_round_trip(tmp_path):
    table = pd.DataFrame({"group": ["a", "average", "fraction >= model"],
                          "value": pd.Series([0.5, "", None], dtype=object),
                          "n": [1, 2, 3]}).set_index("group")
    table.attrs = {"n": np.int64(5), "area": {"m": float("nan")}}
    store.save({"table": table, "deltas": (0.5, 1.0)}, tmp_path / "x.json")
    back = store.load(tmp_path / "x.json")
    expected = table.copy()
    expected.attrs = {"n": 5, "area": {"m": float("nan")}}  # a numpy scalar as its number
    _same({"table": expected, "deltas": (0.5, 1.0)}, back)


def test_what_the_store_cannot_hold_is_an_error(tmp_path):
    @dataclasses.dataclass
    class Other:
        x: int = 1

    for value in (object(), Other(), {1: "a"}, {"$type": "table"}):
        with pytest.raises(TypeError):
            store.save({"value": value}, tmp_path / "x.json")


@pytest.mark.parametrize("tamper", ["garbage", "version", "kind", "table missing"])
def test_an_edited_or_foreign_document_is_not_loaded(folder, tmp_path, tamper):
    copy = shutil.copytree(folder, tmp_path / "copy")
    path = copy / "analysis.json"
    document = json.loads(path.read_text())
    if tamper == "garbage":
        path.write_bytes(b"\x80\x04N.")
    elif tamper == "version":
        path.write_text(json.dumps(document | {"version": store.VERSION + 1}))
    elif tamper == "kind":
        path.write_text(json.dumps(document | {"value": {"$type": "os.system"}}))
    else:
        (copy / document["tables"][0]).unlink()
    if tamper != "kind":  # a document that does not check out is recomputed by `run`
        assert store.unreadable(path)
        lines = _run(copy)
        assert any("evaluate: statistics" in line for line in lines), lines
        assert store.unreadable(path) is None
    else:
        with pytest.raises(data.DataError, match="unknown kind"):
            store.load(path)
