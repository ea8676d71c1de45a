"""Timing rows of glmer beside lme4's (issue 44, items 2 and 9): the poisson sqrt-link fit of
grouseticks (sHEIGHT = scaled HEIGHT) and glmer(nAGQ = 0) on cbpp and grouseticks, the models
of tests/stats/mixed/test_glmer_links.py (R: benchmarks/model_rows/glmer_links.R, the same
models with lme4's defaults).

benchmarks/bench_models.py times the rows.
"""

from __future__ import annotations

from collections.abc import Callable

from acceptability.stats.mixed import glmer
from benchmarks.model_rows import quiet
from tests.lme4_data import lme4_data

CBPP = "cbind(incidence, size - incidence) ~ period + (1 | herd)"
GROUSE = "TICKS ~ YEAR + sHEIGHT + (1 | LOCATION)"


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> ("lme4", a function fitting once and returning the fit)."""
    cbpp, gt = lme4_data("cbpp"), lme4_data("grouseticks")
    gt["sHEIGHT"] = (gt["HEIGHT"] - gt["HEIGHT"].mean()) / gt["HEIGHT"].std()  # R's scale()
    fits = {
        "grouseticks_poisson_sqrt": lambda: glmer(GROUSE, gt, "poisson", link="sqrt"),
        "cbpp_nagq0": lambda: glmer(CBPP, cbpp, nAGQ=0),
        "cbpp_probit_nagq0": lambda: glmer(CBPP, cbpp, link="probit", nAGQ=0),
        "grouseticks_nagq0": lambda: glmer(GROUSE, gt, "poisson", nAGQ=0),
    }
    return {name: ("lme4", quiet(fn)) for name, fn in fits.items()}  # the sqrt fit's warning: the test's
