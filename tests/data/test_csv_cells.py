"""Spreadsheet formula injection (issue 43, item 3): every CSV the package writes
(`data.io.atomic.write_csv`) starts no text cell, header included, with ``= + - @``, tab or
CR (OWASP's rule: a leading ``'``), numbers stay numbers, and the package's readers give
back exactly the text written. The files are read here with Python's csv module, not
pandas."""

from __future__ import annotations

import csv
import gzip
import io
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pandas._libs.parsers import STR_NA_VALUES

from acceptability import data
from acceptability.data.io.atomic import write_csv
from acceptability.data.io.cells import escape_cell, unescape_cell
from acceptability.data.io.files import read_table

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
PAYLOADS = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)",
            "\tx", "\rx", "-inf", "'=quoted already", "''-2+3"]
# text a spreadsheet cell may start with, and every character the rule looks at
CHARS = st.sampled_from(list("=+-@\t\r'\"0123456789.eE ,;|!aé\n"))
TEXT = st.text(CHARS, max_size=12) | st.text(max_size=12)


def csv_rows(path, sep: str = ",") -> list[list[str]]:
    """The file's rows as Python's csv module reads them (gzip by suffix)."""
    raw = Path(path).read_bytes()
    text = (gzip.decompress(raw) if str(path).endswith(".gz") else raw).decode("utf-8")
    return list(csv.reader(io.StringIO(text, newline=""), delimiter=sep))


def formula_cells(rows: list[list[str]]) -> list[str]:
    return [cell for row in rows for cell in row if cell.startswith(TRIGGERS)]


def is_formula(cell: str) -> bool:
    """Starts like a formula and is neither a number of zero or less (``-2``, ``-1e-05``)
    nor a lone ``-``."""
    return cell.startswith(TRIGGERS) and cell != "-" \
        and not pd.to_numeric(cell, errors="coerce") <= 0


def test_formula_text_is_quoted_numbers_are_not(tmp_path):
    frame = pd.DataFrame({"model": PAYLOADS, "score": [-1.5, -2.0, 3.0, -1e-5, 0.5, 1.0, 2.0,
                                                       float("-inf"), 4.0, 5.0],
                          "as_text": ["-0.25", "-3e-05", "-2", "-1.", "-.5", "x", "'-2", "'",
                                      "it's", "-"]})
    frame = frame.rename(columns={"as_text": "=SUM(A1)"})  # a header is a name too
    path = write_csv(frame, tmp_path / "t.csv", index=False)
    rows = csv_rows(path)
    assert rows[0] == ["model", "score", "'=SUM(A1)"]
    assert [r[0] for r in rows[1:]] == ["'" + p for p in PAYLOADS]
    assert [r[1] for r in rows[1:]][:4] == ["-1.5", "-2.0", "3.0", "-1e-05"]  # numbers stay
    # a plain negative number in a text column is a value to a spreadsheet: left as it is
    assert [r[2] for r in rows[1:]] == ["-0.25", "-3e-05", "-2", "-1.", "-.5", "x", "'-2", "'",
                                        "it's", "-"]
    assert sorted(formula_cells(rows)) == sorted(["-1.5", "-2.0", "-1e-05", "-inf", "-0.25",
                                                  "-3e-05", "-2", "-1.", "-.5", "-"])
    back, _ = read_table(path)
    assert back["model"].tolist() == PAYLOADS and back.columns[2] == "=SUM(A1)"
    assert back["=SUM(A1)"].tolist() == frame["=SUM(A1)"].tolist()


def test_an_index_and_categories_are_quoted_too(tmp_path):
    frame = pd.DataFrame({"phenomenon": pd.Categorical(["=1+1", "@x", "=1+1"]), "n": [1, 2, 3]},
                         index=pd.Index(["+a", "b", "-c"], name="@id"))
    rows = csv_rows(write_csv(frame, tmp_path / "t.csv"))
    assert rows == [["'@id", "phenomenon", "n"], ["'+a", "'=1+1", "1"], ["b", "'@x", "2"],
                    ["'-c", "'=1+1", "3"]]
    assert frame.index[0] == "+a"  # the caller's frame is left as it was


def test_scores_round_trip_through_tsv_gz(example, tmp_path):
    ds, sc = example
    names = dict(zip(sc["model"].unique(), PAYLOADS, strict=False))
    sc = sc.assign(model=sc["model"].map(names))
    path = data.write_scores(sc, tmp_path / "scores.tsv.gz")
    rows = csv_rows(path, "\t")
    assert formula_cells(rows) and not [c for r in rows for c in r if is_formula(c)]
    back = data.read_scores(path, ds)
    assert back["model"].tolist() == sc["model"].tolist()


@given(TEXT)
def test_escaping_is_undone_exactly_and_leaves_no_formula(text):
    cell = escape_cell(text)
    assert unescape_cell(cell) == text
    assert not is_formula(cell)
    assert cell == text or cell == "'" + text


@settings(max_examples=60, deadline=None)
@given(st.lists(TEXT.filter(lambda t: "\x00" not in t), min_size=1, max_size=6),
       st.sampled_from([".csv", ".tsv"]))
def test_any_text_comes_back_unchanged(tmp_path_factory, texts, suffix):
    """Read with the csv module (the cell rule undone by hand) and with the package's
    reader; text pandas reads as missing ("", "NA", ...) is item 8's, left out of the latter."""
    path = tmp_path_factory.mktemp("cells") / f"t{suffix}"
    sep = {".csv": ",", ".tsv": "\t"}[suffix]
    frame = pd.DataFrame({"model": texts, "score": range(len(texts))})
    write_csv(frame, path, index=False, sep=sep)
    rows = csv_rows(path, sep)
    assert [unescape_cell(r[0]) for r in rows[1:]] == texts
    assert not [c for r in rows for c in r if is_formula(c)]  # none but negative numbers
    back, _ = read_table(path)
    kept = [t not in STR_NA_VALUES and t != "" for t in texts]
    assert back["model"][kept].tolist() == [t for t, k in zip(texts, kept, strict=True) if k]


@pytest.mark.parametrize("text", ["'=x", "''=x", "'", "'tis", "'-2"])
def test_a_users_leading_quote_survives(tmp_path, text):
    rows = csv_rows(write_csv(pd.DataFrame({"model": [text]}), tmp_path / "t.csv", index=False))
    assert unescape_cell(rows[1][0]) == text
    assert read_table(tmp_path / "t.csv")[0]["model"].tolist() == [text]


def test_csv_module_reads_what_pandas_wrote(tmp_path):
    """The same check with a csv.writer file, as another program would write it: the
    reader takes off only the quote the rule adds."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows([["model"], ["'=1+1"], ["'tis"], ["''@x"]])
    (tmp_path / "t.csv").write_text(buffer.getvalue())
    assert read_table(tmp_path / "t.csv")[0]["model"].tolist() == ["=1+1", "'tis", "'@x"]


def test_training_order_reads_its_saved_predictions_back(example, tmp_path, monkeypatch):
    """The training-order experiment saves each shuffle's predictions as CSV and reads
    them back: sentence ids that look like formulas come back as they were."""
    from acceptability.reports.cli import training_experiments as rt

    ids = ["=1+1", "-a", "@x", "+1"]

    def predictions(folder, datasets, cache=True):
        return pd.DataFrame({"split": "test", "sentence_id": ids, "label": [1.0, 0.0, 1.0, 0.0],
                             "score": [1.0, -1.0, 2.0, -2.0], "prediction": [1, 0, 1, 0]})

    def finetune(model, train, out, **options):
        Path(out).mkdir(parents=True)
        return out

    monkeypatch.setattr(rt, "finetune", finetune)
    monkeypatch.setattr(rt, "classifier_predictions", predictions)
    ds = example[0]
    result = rt.training_order("tiny", ds, ds, tmp_path / "order", shuffles=2)
    assert result.predictions["sentence_id"].tolist() == ids * 2
    for name in ("predictions/shuffle-1.csv", "sentences.csv"):
        rows = csv_rows(tmp_path / "order" / name)
        assert not [c for r in rows for c in r if is_formula(c)]
        assert "'=1+1" in [r[0] for r in rows]


def test_names_given_to_to_csv_are_quoted_too(tmp_path):
    frame = pd.DataFrame({"a": [1]}, index=pd.Index(["x"]))
    path = write_csv(frame, tmp_path / "t.csv", header=["=b"], index_label="@i")
    assert csv_rows(path) == [["'@i", "'=b"], ["x", "1"]]


def test_mixed_columns_quote_only_their_text(tmp_path):
    frame = pd.DataFrame({"m": pd.Series([1, "=2", [3], None, -4.5], dtype=object)})
    rows = csv_rows(write_csv(frame, tmp_path / "t.csv", index=False))
    assert [r[0] for r in rows] == ["m", "1", "'=2", "[3]", "", "-4.5"]
