"""Timing rows of prediction and simulation beside R's (issue 44, item 10): the models of
tests/stats/mixed/test_predict_re_form.py, test_simulate.py, test_bootmer.py and
test_profile_object.py (R: benchmarks/model_rows/simulation.R, the same work with each
package's default settings). Each row fits the model and runs the function once, as R's
rows do; bootMer runs in one process (R's default ``parallel = "no"``).

Run alone: ``python benchmarks/model_rows/simulation.py REPS`` prints model,seconds,logLik as
simulation.R does (each seconds the median of REPS timings, each the mean of k runs lasting
~0.2 s; ``bench_models.median_time``).
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from acceptability.stats.mixed import bootMer, glmer, lmer, simulate

LME4 = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "lme4"
FACTORS = {"sleepstudy": ["Subject"], "penicillin": ["plate", "sample"], "cbpp": ["herd", "period"],
           "grouseticks": ["INDEX", "BROOD", "YEAR", "LOCATION"]}


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
    pen, ss, cbpp, ticks = _data("penicillin"), _data("sleepstudy"), _data("cbpp"), _data("grouseticks")

    def penicillin() -> object:
        return lmer("diameter ~ 1 + (1 | plate) + (1 | sample)", pen)

    def sleep() -> object:
        return lmer("Reaction ~ Days + (Days | Subject)", ss)

    def herd() -> object:
        return glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)

    def tick() -> object:
        return glmer("TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION)", ticks, family="poisson")

    return {
        "predict_re_form_penicillin": ("lme4", _row(penicillin, lambda m: m.predict(re_form="~(1 | plate)"))),
        "predict_re_form_grouseticks": ("lme4", _row(tick, lambda m: m.predict(re_form="~(1 | LOCATION)",
                                                                               type="response"))),
        "simulate_sleepstudy_1000": ("lme4", _row(sleep, lambda m: simulate(m, 1000, seed=1))),
        "simulate_cbpp_1000": ("lme4", _row(herd, lambda m: simulate(m, 1000, seed=1))),
        "bootmer_sleepstudy_100": ("lme4", _row(sleep, lambda m: bootMer(m, lambda f: f.fixef, 100, seed=1,
                                                                       n_jobs=1))),
        "profile_sleepstudy": ("lme4", _row(sleep, lambda m: m.profile().frame)),
    }


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench_models import median_time

    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print("model,seconds,logLik")
    for name, (_, fn) in timed().items():
        seconds, m = median_time(fn, reps)
        print(f"{name},{seconds:.6f},{m.logLik:.15g}", flush=True)
