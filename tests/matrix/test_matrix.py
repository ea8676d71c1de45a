"""The study matrix (issue 42, item 12): every data shape through every entry point.

Each cell either produces its outputs, whose numbers equal (1) the same numbers from every
other entry point on the same inputs and (2) the numbers recomputed from the raw files by
``tests/matrix/expected.py``; or it refuses with a message that ``REFUSALS`` holds and
docs/shapes.md lists as a limitation. No cell ends in an internal error. The shapes are
``tests/matrix/shapes.py:SHAPES``, the entry points ``tests/matrix/entries.py:ENTRIES``:
a new shape or entry point is a new row or column there, and a row of ``REFUSALS`` here
where it refuses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REPO, need_data
from tests.matrix import expected
from tests.matrix.entries import ENTRIES, Outcome
from tests.matrix.shapes import SHAPES, Inputs

pytestmark = [pytest.mark.usefixtures("private_cache"), pytest.mark.slow]

NO_RATINGS = "no ratings"
NO_GRADIENT = "no gradient human judgments"
NO_TRIALS = "fits trial-level ratings"
# (shape, entry point) -> what its refusal says; every other cell produces its outputs.
REFUSALS: dict[tuple[str, str], str] = {
    ("pairs_human", "py_rating_model"): NO_RATINGS,
    ("sentences_human", "py_rating_model"): NO_RATINGS,
    ("forced_choice", "py_rating_model"): NO_RATINGS,
    ("syntaxgym", "py_rating_model"): NO_RATINGS,
    ("forced_choice", "py_fit"): NO_GRADIENT,
    ("forced_choice", "cli_fit"): NO_GRADIENT,
    ("syntaxgym", "py_fit"): NO_GRADIENT,
    ("syntaxgym", "cli_fit"): NO_GRADIENT,
    **{(shape, "cli_fit_trial"): NO_TRIALS
       for shape in ("pairs_human", "sentences_human", "forced_choice", "syntaxgym")},
}
COMPARED = {"evaluation": ["model"], "fixef": ["model", "term"],
            "rating_fixef": ["model", "term"], "syntaxgym": None}
RTOL = 1e-9  # CSV round trips keep 17 significant digits

_inputs: dict[str, Inputs] = {}
_outcomes: dict[tuple[str, str], Outcome] = {}


def inputs_of(shape: str, root: Path) -> Inputs:
    if shape not in _inputs:
        _inputs[shape] = SHAPES[shape](root / shape / "inputs")
    return _inputs[shape]


def outcome_of(shape: str, entry: str, root: Path) -> Outcome:
    if (shape, entry) not in _outcomes:
        folder = root / shape / entry
        folder.mkdir(parents=True)
        _outcomes[shape, entry] = ENTRIES[entry](inputs_of(shape, root), folder)
    return _outcomes[shape, entry]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("matrix")


def _numbers(table: pd.DataFrame, key) -> pd.DataFrame:
    """The numeric columns of a table, indexed by its key."""
    if key is None:  # SyntaxGym accuracies: long (evaluate) or a column per model (report)
        key = ["level", "group", "prediction", "model"]
        table = table.assign(prediction=pd.to_numeric(table["prediction"]).astype("Int64"))
    frame = table.set_index(pd.MultiIndex.from_frame(
        table[key].astype(object).where(table[key].notna(), "").astype(str)))
    return frame.select_dtypes("number").astype(float).sort_index()


def assert_same(ours: pd.DataFrame, reference: pd.DataFrame, where: str) -> None:
    common = [c for c in reference.columns if c in ours.columns]
    assert common, f"{where}: no column in common"
    pd.testing.assert_frame_equal(ours[common], reference[common], rtol=RTOL, atol=1e-12,
                                  check_names=False, check_dtype=False, obj=where)


def recomputed(shape: str, inputs: Inputs) -> pd.DataFrame | None:
    if shape == "syntaxgym":  # its accuracies: tests/reports/recompute/test_syntaxgym.py
        return None
    if shape == "forced_choice":
        return expected.blimp_fc(need_data("blimp"))
    return expected.from_files(inputs.scores.parent)


CELLS = [(s, e) for s in SHAPES for e in ENTRIES]


@pytest.mark.parametrize(("shape", "entry"), CELLS, ids=[f"{s}-{e}" for s, e in CELLS])
def test_cell(shape, entry, root):
    outcome = outcome_of(shape, entry, root)
    refusal = REFUSALS.get((shape, entry))
    if refusal is not None:
        assert outcome.refusal is not None, f"{shape} x {entry} should refuse ({refusal})"
        assert refusal in outcome.refusal, outcome.refusal
        return
    assert outcome.refusal is None, f"{shape} x {entry} refused: {outcome.refusal}"
    assert outcome.tables, f"{shape} x {entry} produced no table"
    for kind, table in outcome.tables.items():
        if kind not in COMPARED:
            continue
        ours = _numbers(table, COMPARED[kind])
        want = recomputed(shape, inputs_of(shape, root)) if kind == "evaluation" else None
        if want is not None:
            want.index = want.index.astype(str)
            assert_same(ours.reindex(want.index), want, f"{shape} x {entry}: recomputed")
        reference = next(e for e in ENTRIES if kind in outcome_of(shape, e, root).tables)
        if reference != entry:  # a report shows the prediction level of SyntaxGym's table
            theirs = _numbers(outcome_of(shape, reference, root).tables[kind], COMPARED[kind])
            assert_same(ours, theirs.reindex(ours.index), f"{shape} x {entry} vs {reference}")


def test_every_refusal_is_documented():
    """docs/shapes.md's table says, for every cell, what it gives or why it refuses."""
    page = (REPO / "docs" / "shapes.md").read_text(encoding="utf-8")
    rows = {m.group(1): [c.strip() for c in m.group(2).split("|")]
            for m in re.finditer(r"^\| `(\w+)` \|(.*)\|$", page, flags=re.M)}
    header = next(line for line in page.splitlines() if line.startswith("| data shape"))
    columns = [c.strip().strip("`") for c in header.strip("|").split("|")][1:]
    assert columns == list(ENTRIES)
    assert set(rows) == set(SHAPES)
    for shape, cells in rows.items():
        for entry, cell in zip(columns, cells, strict=True):
            refusal = REFUSALS.get((shape, entry))
            assert (cell == "yes") == (refusal is None), (shape, entry, cell)
            if refusal is not None:
                assert refusal in cell, (shape, entry, cell)


def test_every_refusal_names_a_cell():
    assert {s for s, _ in REFUSALS} <= set(SHAPES) and {e for _, e in REFUSALS} <= set(ENTRIES)
