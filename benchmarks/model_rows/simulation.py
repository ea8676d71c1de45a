"""Timing rows of prediction and simulation beside R's (issue 44, item 10): the models of
tests/stats/mixed/test_predict_re_form.py, test_simulate.py, test_bootmer.py and
test_profile_object.py (R: benchmarks/model_rows/simulation.R, the same work with each
package's default settings). Each row fits the model and runs the function once, as R's
rows do; bootMer runs in one process (R's default ``parallel = "no"``).

Run alone (from the repository root): ``python -m benchmarks.model_rows.simulation REPS``
prints model,seconds,logLik as simulation.R does (each seconds the median of REPS timings,
each the mean of k runs lasting ~0.2 s; ``bench_models.median_time``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from acceptability.stats.mixed import bootMer, glmer, lmer, simulate
from benchmarks.model_rows import fit_then, print_rows
from tests.lme4_data import lme4_data


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> (R package timed beside it, a function fitting once, returning the fit)."""
    pen, ss, cbpp, ticks = map(lme4_data, ["penicillin", "sleepstudy", "cbpp", "grouseticks"])

    penicillin = partial(lmer, "diameter ~ 1 + (1 | plate) + (1 | sample)", pen)
    sleep = partial(lmer, "Reaction ~ Days + (Days | Subject)", ss)
    herd = partial(glmer, "cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)
    tick = partial(glmer, "TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION)", ticks, family="poisson")

    return {
        "predict_re_form_penicillin": ("lme4", fit_then(penicillin, lambda m: m.predict(re_form="~(1 | plate)"))),
        "predict_re_form_grouseticks": ("lme4", fit_then(tick, lambda m: m.predict(re_form="~(1 | LOCATION)",
                                                                                   type="response"))),
        "simulate_sleepstudy_1000": ("lme4", fit_then(sleep, lambda m: simulate(m, 1000, seed=1))),
        "simulate_cbpp_1000": ("lme4", fit_then(herd, lambda m: simulate(m, 1000, seed=1))),
        "bootmer_sleepstudy_100": ("lme4", fit_then(sleep, lambda m: bootMer(m, lambda f: f.fixef, 100, seed=1,
                                                                           n_jobs=1))),
        "profile_sleepstudy": ("lme4", fit_then(sleep, lambda m: m.profile().frame)),
    }


if __name__ == "__main__":
    print_rows(timed)
