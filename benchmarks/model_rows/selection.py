"""Timing rows of model selection and tests beside R's (issue 44, item 9): the models of
tests/stats/mixed/test_selection.py, test_wald_anova.py and test_allfit.py (R:
benchmarks/model_rows/selection.R, the same work with each package's default settings). Each
row fits the model and runs the function once, as R's rows do (lmerTest computes its
Satterthwaite Jacobian when it fits, so a row without the fit would time different work).

``bench_models.py`` times the rows (each the median of REPS timings, each the mean of k runs
lasting ~0.2 s).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from acceptability.stats.mixed import glmer, lmer
from benchmarks.model_rows import fit_then
from tests.lme4_data import lme4_data

HAM3 = ("Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer) + "
        "(1 | Information:Consumer)")


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> (R package timed beside it, a function fitting once, returning the fit)."""
    ham, ss, cbpp, ticks = map(lme4_data, ["ham", "sleepstudy", "cbpp", "grouseticks"])

    ham3 = partial(lmer, HAM3, ham)
    sleep = partial(lmer, "Reaction ~ Days + (Days | Subject)", ss)
    herd = partial(glmer, "cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)
    tick = partial(glmer, "TICKS ~ YEAR * cHEIGHT + (1 | LOCATION)", ticks, family="poisson")

    return {
        "ranova_ham": ("lmerTest", fit_then(ham3, lambda m: m.ranova())),
        "drop1_ham_satterthwaite": ("lmerTest", fit_then(ham3, lambda m: m.drop1())),
        "drop1_ham_kenward_roger": ("lmerTest", fit_then(ham3, lambda m: m.drop1(ddf="Kenward-Roger"))),
        "step_ham": ("lmerTest", fit_then(ham3, lambda m: m.step())),
        "anova_ticks_type2": ("car", fit_then(tick, lambda m: m.Anova(type=2))),
        "anova_ticks_type3": ("car", fit_then(tick, lambda m: m.Anova(type=3))),
        "allfit_sleepstudy": ("lme4", fit_then(sleep, lambda m: m.allFit())),
        "allfit_cbpp": ("lme4", fit_then(herd, lambda m: m.allFit())),
        "issingular_sleepstudy": ("lme4", fit_then(sleep, lambda m: m.isSingular(tol=1e-4))),
    }

