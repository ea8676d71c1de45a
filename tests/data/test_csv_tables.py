"""No CSV table the package writes starts a cell with a formula (issue 43, item 3): a
tiny random GPT-2 in a folder named ``=cmd|' calc'!A0``, three more models named
``=HYPERLINK(...)``, ``@SUM(A1)`` and ``-2+3``, and phenomena named like the payloads of
the issue (``+1``, a leading tab or CR, ...) go through ``score``, ``run``,
``evaluate``, ``fit`` and ``report``. Every CSV they write, read with Python's csv module
(not pandas), holds the names with a leading ``'`` and no cell beginning with ``= + - @``,
tab or CR but negative numbers; the package's readers give the names back unchanged."""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import need_module
from tests.data.test_csv_cells import csv_rows, is_formula

need_module("torch")
need_module("transformers")
pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

from acceptability import data  # noqa: E402
from acceptability.data.io.files import read_table  # noqa: E402
from acceptability.reports.cli import commands as cli  # noqa: E402
from tests.scoring_fixtures import make_gpt2  # noqa: E402

PHENOMENA = ["=cmd|' /C calc'!A0", '=HYPERLINK("http://x","y")', "+1", "-2+3", "@SUM(A1)",
             "\tx", "\rx"]
FOLDER = "=cmd|' calc'!A0"  # a folder name holds no "/"
MODELS = ['=HYPERLINK("http://x","y")', "@SUM(A1)", "-2+3"]  # the example's three, renamed
GPT2 = f"{FOLDER}_logprob"
# each table the commands write, and the names (models, phenomena) it carries
TABLES = {
    "gpt2_scores.csv": [GPT2],  # score --out
    "evaluate.csv": [GPT2, *MODELS, *PHENOMENA],  # evaluate --by phenomenon --out
    "fit.csv": [GPT2],  # fit --out
    "run/evaluation.csv": [GPT2, *MODELS],
    "run/fits.csv": [GPT2],
    **{f"{out}/tables/{name}.csv": [GPT2, *MODELS]
       for out in ("run", "report")
       for name in ("evaluation", "table_3_1", "correlations", "counts", "mcc", "variability")},
    "run/tables/comparisons.csv": [GPT2, *MODELS],
    "run/tables/evaluation_by_phenomenon.csv": [GPT2, *MODELS, *PHENOMENA],
    "run/tables/fits.csv": [GPT2],
}


def _cli(*args) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main([str(a) for a in args])
    assert code == 0, err.getvalue()[-3000:]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> Path:
    """The example's sentences and pairs with payload phenomena (one per pair, its
    sentences sharing it), scored by the tiny GPT-2, then the four other commands."""
    root = tmp_path_factory.mktemp("formulas")
    ds, published = data.load_example()
    pairs = ds.pairs.assign(phenomenon=[PHENOMENA[i % len(PHENOMENA)]
                                        for i in range(len(ds.pairs))])
    of = {}
    for pair in pairs.itertuples():
        of.setdefault(pair.good_id, pair.phenomenon)
        of.setdefault(pair.bad_id, pair.phenomenon)
    sentences = ds.sentences.assign(phenomenon=ds.sentences["sentence_id"].map(of))
    for name, frame in (("sentences.csv", sentences), ("pairs.csv", pairs)):  # CR quoted
        frame.to_csv(root / name, index=False, quoting=csv.QUOTE_NONNUMERIC)
    inputs = ["--sentences", root / "sentences.csv", "--pairs", root / "pairs.csv"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ACCEPTABILITY_CACHE_DIR", str(root / "cache"))
        _cli("score", *inputs, "--model", make_gpt2(root / FOLDER), "--out",
             root / "gpt2_scores.csv")
        gpt2 = data.read_scores(root / "gpt2_scores.csv")
        renamed = dict(zip(published["model"].unique(), MODELS, strict=True))
        pd.concat([gpt2, published.assign(model=published["model"].map(renamed))]).to_csv(
            root / "scores.csv", index=False)
        inputs += ["--scores", root / "scores.csv"]
        _cli("run", *inputs, "--by", "phenomenon", "--n-boot", "20", "--out", root / "run")
        _cli("evaluate", *inputs, "--by", "phenomenon", "--n-boot", "0", "--out",
             root / "evaluate.csv")
        _cli("fit", *inputs, "--out", root / "fit.csv")
        _cli("report", *inputs, "--n-boot", "0", "--out", root / "report")
    return root


def test_every_csv_written_is_listed(outputs):
    """The tables above are all the CSVs that carry a name; the rest carry none."""
    written = {p.relative_to(outputs).as_posix() for p in outputs.rglob("*.csv")} \
        - {"sentences.csv", "pairs.csv", "scores.csv"}
    others = {"run/tables/data_summary.csv", "run/tables/exclusions.csv",
              "report/tables/data_summary.csv", "report/tables/exclusions.csv"}
    assert written == set(TABLES) | {"report/tables/evaluation_by_phenomenon.csv",
                                     "report/tables/fits.csv"} | others
    for name in others:
        assert not [c for r in csv_rows(outputs / name) for c in r if is_formula(c)]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_no_cell_starts_a_formula(outputs, name):
    rows = csv_rows(outputs / name)
    assert not [c for r in rows for c in r if is_formula(c)]
    cells = {c for r in rows for c in r}
    assert {n for n in TABLES[name] if "'" + n in cells} == set(TABLES[name])


def test_the_package_reads_the_names_back(outputs):
    scores = data.read_scores(outputs / "gpt2_scores.csv")
    assert set(scores["model"]) == {GPT2}
    evaluation, _ = read_table(outputs / "evaluate.csv")
    assert set(evaluation["model"]) == {GPT2, *MODELS}
    assert set(evaluation["phenomenon"]) == set(PHENOMENA)
