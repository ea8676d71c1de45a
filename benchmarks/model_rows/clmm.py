"""Timing rows of clmm beside ordinal's (issue 44, item 8): the clmm fits of
tests/stats/mixed/test_ordinal.py on wine (Laplace, nAGQ = 10 and -10, three intercept
terms) and of tests/stats/mixed/test_clmm_full.py (random slopes on wine and soup, case
weights, symmetric2 thresholds, the profile interval of the judge SD; R:
benchmarks/model_rows/clmm.R, the same models with ordinal's defaults; the profile by
ordinal's profile.clmm2 and its confint). The crossed MegaAcceptability clmm is
bench_models.py's mega_clmm row.

Run alone (from the repository root): ``python -m benchmarks.model_rows.clmm REPS`` prints
model,seconds,logLik as clmm.R does (each seconds the median of REPS timings, each the mean of
k runs lasting ~0.2 s; ``bench_models.median_time``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from acceptability.stats.mixed import clmm
from benchmarks.model_rows import print_rows

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
WF = "rating ~ temp + contact"


def wine() -> pd.DataFrame:
    w = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"judge": str, "bottle": str})
    w["rating"] = pd.Categorical(w["rating"], categories=[1, 2, 3, 4, 5], ordered=True)
    return w


def wine_counts(w: pd.DataFrame) -> pd.DataFrame:
    """wine with its repeated (rating, temp, contact, judge) rows merged: 61 rows, weight ``count``."""
    return w.groupby(["rating", "temp", "contact", "judge"], observed=True).size().rename("count").reset_index()


def soup() -> pd.DataFrame:
    s = pd.read_csv(FIXTURES / "clmm_soup.csv", dtype={"RESP": str})
    s["SURENESS"] = pd.Categorical(s["SURENESS"], categories=range(1, 7), ordered=True)
    return s


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> ("ordinal", a function fitting once and returning the fit)."""
    w, s = wine(), soup()
    counts = wine_counts(w)
    plain = clmm(WF + " + (1 | judge)", w)

    def profile():
        plain.confint(type="profile")
        return plain

    fits: dict[str, Callable[[], object]] = {
        "clmm_wine": lambda: clmm(WF + " + (1 | judge)", w),
        "clmm_wine_agq10": lambda: clmm(WF + " + (1 | judge)", w, nAGQ=10),
        "clmm_wine_ghq10": lambda: clmm(WF + " + (1 | judge)", w, nAGQ=-10),
        "clmm_wine_three": lambda: clmm(WF + " + (1 | judge) + (1 | bottle) + (1 | judge:temp)", w),
        "clmm_wine_slope": lambda: clmm(WF + " + (1 + temp | judge)", w),
        "clmm_soup_slope": lambda: clmm("SURENESS ~ PROD + (1 + PROD | RESP)", s),
        "clmm_wine_weights": lambda: clmm(WF + " + (1 | judge)", counts, weights="count"),
        "clmm_wine_symmetric2": lambda: clmm(WF + " + (1 | judge)", w, threshold="symmetric2"),
        "clmm_wine_profile": profile,
    }
    return {name: ("ordinal", fn) for name, fn in fits.items()}


if __name__ == "__main__":
    print_rows(timed)
