"""Timing rows of fits with factor codings beside R's (issue 44, items 1, 3 and 6): the
models of tests/stats/mixed/test_contrasts.py (R: benchmarks/model_rows/contrasts.R, the
same models with each package's default settings): MASS's oats with N ordered (contr.poly),
CO2 with its Treatment column, a sum-coded CO2 model with its type III anova (lmerTest), a
Helmert-coded cbpp GLMM, and sum-coded clm and clmm fits of ordinal's wine.

Run alone (from the repository root): ``python -m benchmarks.model_rows.contrasts REPS``
prints model,seconds,logLik as contrasts.R does (each seconds the median of REPS timings,
each the mean of k runs lasting ~0.2 s; ``bench_models.median_time``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from acceptability.stats.mixed import clm, clmm, glmer, lmer
from benchmarks.model_rows import print_rows, quiet
from tests.lme4_data import r_factors

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"

SUMS = {"Type": "sum", "Treatment": "sum"}


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> (R package timed beside it, a function fitting once, returning the fit)."""
    oats = r_factors(pd.read_csv(FIXTURES / "contrasts_oats.csv"), "oats")
    co2 = r_factors(pd.read_csv(FIXTURES / "contrasts_co2.csv"), "co2")
    cbpp = pd.read_csv(FIXTURES / "lme4" / "cbpp.csv.gz", dtype={"herd": str, "period": str})
    wine = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"judge": str, "bottle": str})
    wine["rating"] = pd.Categorical(wine["rating"], categories=[1, 2, 3, 4, 5], ordered=True)

    def co2_anova():
        m = lmer("uptake ~ Type * Treatment + conc + (1 | Plant)", co2, contrasts=SUMS)
        m.anova(type=3)
        return m

    return {  # quiet: CO2's singular fits, as R's suppressWarnings
        "lmer_oats_ordered": ("lme4", lambda: lmer("Y ~ N + V + (1 | B/V)", oats)),
        "lmer_co2_treatment_column": ("lme4", quiet(lambda: lmer("uptake ~ Type + Treatment + (1 | Plant)", co2))),
        "lmer_co2_sum_anova3": ("lmerTest", quiet(co2_anova)),
        "glmer_cbpp_helmert": ("lme4", lambda: glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)",
                                                     cbpp, contrasts={"period": "helmert"})),
        "clm_wine_sum": ("ordinal", lambda: clm("rating ~ temp * contact", wine,
                                                contrasts={"temp": "sum", "contact": "sum"})),
        "clmm_wine_sum": ("ordinal", lambda: clmm("rating ~ temp + contact + (1 | judge)", wine,
                                                  contrasts={"temp": "sum", "contact": "helmert"})),
    }


if __name__ == "__main__":
    print_rows(timed)
