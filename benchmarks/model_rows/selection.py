"""Timing rows of model selection and tests beside R's (issue 44, item 9): the models of
tests/stats/mixed/test_selection.py, test_wald_anova.py and test_allfit.py (R:
benchmarks/model_rows/selection.R, the same work with each package's default settings). Each
row fits the model and runs the function once, as R's rows do (lmerTest computes its
Satterthwaite Jacobian when it fits, so a row without the fit would time different work).

``bench_models.py`` times the rows (each the median of REPS timings, each the mean of k runs
lasting ~0.2 s).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from acceptability.stats.mixed import glmer, lmer

LME4 = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "lme4"
HAM3 = ("Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer) + "
        "(1 | Information:Consumer)")
FACTORS = {"sleepstudy": ["Subject"], "ham": ["Consumer", "Product", "Information", "Gender"],
           "cbpp": ["herd", "period"], "grouseticks": ["INDEX", "BROOD", "YEAR", "LOCATION"]}


def _data(name: str) -> pd.DataFrame:
    return pd.read_csv(LME4 / f"{name}.csv.gz", dtype=dict.fromkeys(FACTORS[name], str))


def _row(fit: Callable[[], object], work: Callable[[object], object]) -> Callable[[], object]:
    """Fit, run ``work`` on the fit, return the fit (warnings off: R's suppressMessages)."""
    def run() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = fit()
            work(m)
            return m
    return run


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> (R package timed beside it, a function fitting once, returning the fit)."""
    ham, ss, cbpp, ticks = _data("ham"), _data("sleepstudy"), _data("cbpp"), _data("grouseticks")

    def ham3() -> object:
        return lmer(HAM3, ham)

    def sleep() -> object:
        return lmer("Reaction ~ Days + (Days | Subject)", ss)

    def herd() -> object:
        return glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)

    def tick() -> object:
        return glmer("TICKS ~ YEAR * cHEIGHT + (1 | LOCATION)", ticks, family="poisson")

    return {
        "ranova_ham": ("lmerTest", _row(ham3, lambda m: m.ranova())),
        "drop1_ham_satterthwaite": ("lmerTest", _row(ham3, lambda m: m.drop1())),
        "drop1_ham_kenward_roger": ("lmerTest", _row(ham3, lambda m: m.drop1(ddf="Kenward-Roger"))),
        "step_ham": ("lmerTest", _row(ham3, lambda m: m.step())),
        "anova_ticks_type2": ("car", _row(tick, lambda m: m.Anova(type=2))),
        "anova_ticks_type3": ("car", _row(tick, lambda m: m.Anova(type=3))),
        "allfit_sleepstudy": ("lme4", _row(sleep, lambda m: m.allFit())),
        "allfit_cbpp": ("lme4", _row(herd, lambda m: m.allFit())),
        "issingular_sleepstudy": ("lme4", _row(sleep, lambda m: m.isSingular(tol=1e-4))),
    }

