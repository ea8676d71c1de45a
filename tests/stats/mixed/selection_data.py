"""The R reference of tests/fixtures/selection_reference.csv (benchmarks/selection_reference.R):
lmerTest's ranova/drop1/step, car's Anova, lme4's allFit and isSingular."""

from __future__ import annotations

import warnings
from functools import cache

import pandas as pd

from tests.conftest import REPO

FIXTURE = REPO / "tests" / "fixtures" / "selection_reference.csv"


@cache
def _rows() -> pd.DataFrame:
    return pd.read_csv(FIXTURE, keep_default_na=False, na_values=["NA"])


def reference(model: str, table: str) -> pd.DataFrame:
    """R's table ``table`` of ``model``: rows as R names them, its numeric columns."""
    rows = _rows()
    sel = rows[(rows["model"] == model) & (rows["table"] == table)]
    if sel.empty:
        raise KeyError(f"no rows {model!r} / {table!r} in {FIXTURE.name}")
    order = list(dict.fromkeys(sel["row"]))
    cols = list(dict.fromkeys(sel["column"]))
    return sel.pivot(index="row", columns="column", values="value").loc[order, cols]


def reference_text(model: str, table: str) -> str:
    rows = _rows()
    return str(rows[(rows["model"] == model) & (rows["table"] == table)]["text"].iloc[0])


def quiet(fit, *args, **kwargs):
    """A fit without its warnings (singular fits are part of what the tests check)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit(*args, **kwargs)
