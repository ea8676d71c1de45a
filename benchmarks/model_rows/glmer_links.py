"""Timing rows of glmer beside lme4's (issue 44, items 2 and 9): the poisson sqrt-link fit of
grouseticks (sHEIGHT = scaled HEIGHT) and glmer(nAGQ = 0) on cbpp and grouseticks, the models
of tests/stats/mixed/test_glmer_links.py (R: benchmarks/model_rows/glmer_links.R, the same
models with lme4's defaults).

benchmarks/bench_models.py times the rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from acceptability.stats.mixed import glmer

LME4 = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "lme4"
CBPP = "cbind(incidence, size - incidence) ~ period + (1 | herd)"
GROUSE = "TICKS ~ YEAR + sHEIGHT + (1 | LOCATION)"


def _read(name: str, factors: list[str]) -> pd.DataFrame:
    return pd.read_csv(LME4 / f"{name}.csv.gz", dtype=dict.fromkeys(factors, str))


def _quiet(fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the sqrt fit's warning is the test's
            return fn()
    return run


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> ("lme4", a function fitting once and returning the fit)."""
    cbpp = _read("cbpp", ["herd", "period"])
    gt = _read("grouseticks", ["INDEX", "BROOD", "YEAR", "LOCATION"])
    gt["sHEIGHT"] = (gt["HEIGHT"] - gt["HEIGHT"].mean()) / gt["HEIGHT"].std()  # R's scale()
    fits = {
        "grouseticks_poisson_sqrt": lambda: glmer(GROUSE, gt, "poisson", link="sqrt"),
        "cbpp_nagq0": lambda: glmer(CBPP, cbpp, nAGQ=0),
        "cbpp_probit_nagq0": lambda: glmer(CBPP, cbpp, link="probit", nAGQ=0),
        "grouseticks_nagq0": lambda: glmer(GROUSE, gt, "poisson", nAGQ=0),
    }
    return {name: ("lme4", _quiet(fn)) for name, fn in fits.items()}
