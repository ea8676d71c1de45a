"""Bad input: each case raises a DataError naming file/row/column and the fix, or is
excluded and counted."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from acceptability.data import DataError, from_frames

FILES = ["human_ME_results_li-adger_sentences.csv", "li-adger_min_pairs.csv"]


@pytest.fixture
def li_copy(li_adger_dir, tmp_path):
    for f in FILES:
        shutil.copy(li_adger_dir / f, tmp_path / f)
    return tmp_path


def _sentences():
    return pd.DataFrame({"sentence_id": ["a", "b", "c", "d"],
                         "text": ["A cat sat.", "A cat sit.", "Dogs bark.", "Dogs barks."],
                         "human": [1.0, -0.5, 0.8, np.nan], "label": [1, 0, 1, 0]})


def _pairs():
    return pd.DataFrame({"pair_id": ["p1", "p2"], "good_id": ["a", "c"], "bad_id": ["b", "d"]})


def test_missing_file(tmp_path):
    with pytest.raises(DataError, match="missing file 'human_ME_results"):
        data.load_li_adger(tmp_path)


def test_missing_directory(tmp_path):
    with pytest.raises(DataError, match="does not exist"):
        data.load_li_adger(tmp_path / "nope")


def test_misnamed_column(li_copy):
    f = li_copy / FILES[0]
    f.write_text(f.read_text().replace("judgement", "judgment", 1))
    with pytest.raises(DataError, match=r"missing column\(s\) \['judgement'\]") as err:
        data.load_li_adger(li_copy)
    assert FILES[0] in str(err.value) and "Fix:" in str(err.value)


def test_non_numeric_judgment_names_line_and_column(li_copy):
    f = li_copy / FILES[0]
    lines = f.read_text().splitlines()
    lines[10] = lines[10].rsplit(",", 1)[0] + ",abc"
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError, match=r"row 11 \(line\).*column 'human'.*'abc'"):
        data.load_li_adger(li_copy)


def test_pair_naming_unknown_sentence(li_copy):
    f = li_copy / FILES[1]
    f.write_text(f.read_text().replace("32.1.martin.2c.*.01", "32.1.martin.2c.*.99", 1))
    with pytest.raises(DataError, match=r"row 2 \(line\).*bad_id '32.1.martin.2c.\*.99'"):
        data.load_li_adger(li_copy)


def test_duplicate_sentence_ids():
    s = _sentences()
    s.loc[2, "sentence_id"] = "a"
    with pytest.raises(DataError, match="duplicate sentence_id 'a'"):
        from_frames(s, _pairs())


def test_duplicate_pair_ids():
    p = _pairs()
    p.loc[1, "pair_id"] = "p1"
    with pytest.raises(DataError, match="duplicate pair_id 'p1'"):
        from_frames(_sentences(), p)


def test_empty_dataset():
    with pytest.raises(DataError, match="empty"):
        from_frames(_sentences().iloc[:0], _pairs())


def test_empty_text():
    s = _sentences()
    s.loc[1, "text"] = "  "
    with pytest.raises(DataError, match="empty sentence text"):
        from_frames(s, _pairs())


def test_scores_for_unknown_sentences():
    ds = from_frames(_sentences(), _pairs())
    sc = pd.DataFrame({"sentence_id": ["a", "zz"], "model": "m", "score": [1.0, 2.0]})
    with pytest.raises(DataError, match="unknown sentence 'zz'"):
        stats.evaluate(ds, sc)


def test_non_numeric_scores(tmp_path):
    f = tmp_path / "scores.csv"
    f.write_text("sentence_id,model,score\na,m,1.0\nb,m,oops\n")
    with pytest.raises(DataError, match=r"scores.csv, row 3 \(line\), column 'score': non-numeric value 'oops'"):
        data.read_scores(f)


def test_duplicate_scores():
    sc = pd.DataFrame({"sentence_id": ["a", "a"], "model": "m", "score": [1.0, 2.0]})
    with pytest.raises(DataError, match="several scores for sentence 'a'"):
        data.validate_scores(sc)


def test_unreadable_scores_file(tmp_path):
    with pytest.raises(DataError, match="no such scores file"):
        data.read_scores(tmp_path / "none.csv")


def test_nan_judgments_and_scores_are_excluded_and_counted():
    ds = from_frames(_sentences(), _pairs())
    sc = pd.DataFrame({"sentence_id": list("abcd"), "model": "m",
                       "score": [2.0, 1.0, np.nan, 0.5]})
    row = stats.evaluate(ds, sc).iloc[0]
    assert row["n_pairs"] == 1  # p2 has no model delta (c unscored)
    assert row["n_pairs_human"] == 1 and row["n_pairs_excluded"] == 1
    assert row["n_sentences"] == 3
    assert row["blimp"] == 1.0


def test_bad_delta():
    ds = from_frames(_sentences(), _pairs())
    sc = pd.DataFrame({"sentence_id": list("abcd"), "model": "m", "score": [2.0, 1.0, 3, 0.5]})
    with pytest.raises(ValueError, match="must be greater than 0"):
        stats.evaluate(ds, sc, deltas=(0,))
    with pytest.raises(KeyError, match="cannot break down by 'nope'"):
        stats.evaluate(ds, sc, by="nope")


def test_unknown_dataset_registry():
    from acceptability.data.io.sources import registry

    with pytest.raises(DataError, match="unknown dataset 'nope'"):
        registry("nope")
