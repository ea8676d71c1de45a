"""Profile intervals of glmer fits (``confint(method="profile")``) against lme4 1.1-31 on
cbpp (binomial: Laplace, nAGQ = 9, and a correlated random slope) and grouseticks
(poisson). R numbers are in tests/fixtures/glmer_profile.csv, written by
benchmarks/glmer_profile.R.

Two references: the exact limits, found in R by root finding on lme4's own devfun (the
others re-optimised by bobyqa for each held value), which ours equal within 1e-5 (measured:
8.3e-10 on cbpp, 3.5e-11 with nAGQ = 9, 3.1e-8 with the slope, 2.4e-7 on grouseticks); and
lme4's ``confint(m, method = "profile")``, which interpolates its profile with splines: it
is off the exact limits by up to 3.4e-5, 2.2e-6, 3.8e-4 and 1.9e-4, and ours are as close
to it as the exact limits are (within 1e-5 more). Each profile takes 2-4 s here (lme4's
``profile``: 3-20 s on the same machine under load).

A probit fit is profiled on the likelihood it maximised (glmm's and glmmTMB's: the observed
information), not on lme4's devfun (the expected information), so its profile is zero at
the fit; its limits are compared with the exact limits on glmmTMB 1.1.5's objective
(``obj$fn``, written by benchmarks/glmer_profile.R), within 1e-5 (measured: 2.7e-10),
and with glmmTMB's ``confint(method = "profile")``, which interpolates its profile linearly
(off the exact limits by up to 3.2e-4). Our fit equals glmmTMB's optimum within 1.4e-6.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed.glmm.laplace import glmer_devfun
from tests.lme4_data import lme4_data

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "glmer_profile.csv"
MODELS = {  # name in the fixture: (formula, data set, family, nAGQ, lme4's names of our SD rows)
    "cbpp": ("cbind(incidence, size - incidence) ~ period + (1 | herd)", "cbpp", "binomial", 1,
             [".sig01"]),
    "cbpp_agq9": ("cbind(incidence, size - incidence) ~ period + (1 | herd)", "cbpp", "binomial", 9,
                  [".sig01"]),
    # ours: SD (Intercept), SD pnum, their correlation; lme4: .sig01 SD, .sig02 cor, .sig03 SD
    "cbpp_slope": ("cbind(incidence, size - incidence) ~ pnum + (1 + pnum | herd)", "cbpp", "binomial", 1,
                   [".sig01", ".sig03", ".sig02"]),
    "grouse": ("TICKS ~ YEAR + cHEIGHT + (1 | LOCATION)", "grouseticks", "poisson", 1, [".sig01"]),
}


def limits(model: str, what: str, rows: list[str]) -> np.ndarray:
    r = pd.read_csv(FIXTURE, comment="#")
    r = r[(r["model"] == model) & (r["what"] == what)].set_index("name")["value"]
    return np.array([[r[f"{row}|lower"], r[f"{row}|upper"]] for row in rows])


@pytest.mark.parametrize("model", list(MODELS))
def test_profile_limits_equal_exact_lme4(model):
    formula, data, family, nagq, sig = MODELS[model]
    frame = lme4_data(data).assign(pnum=lambda f: f["period"].astype(float)) if data == "cbpp" \
        else lme4_data(data)
    m = stats.glmer(formula, frame, family=family, nAGQ=nagq)
    ci = m.confint(method="profile")
    assert list(ci.index) == list(m.params().index)
    assert ci.index[0] == f"sd_(Intercept)|{m.design.terms[0].group}"
    assert list(ci.columns) == ["2.5 %", "97.5 %"]
    rows = [*sig, *m.fixef.index]  # lme4's names of the same rows
    ours, exact, spline = ci.to_numpy(), limits(model, "exact", rows), limits(model, "confint", rows)
    np.testing.assert_allclose(ours, exact, rtol=0, atol=1e-5)
    assert (np.abs(ours - spline) <= np.abs(exact - spline) + 1e-5).all()


def test_wald_stays_the_glmer_default():
    m = stats.glmer(MODELS["cbpp"][0], lme4_data("cbpp"))
    ci = m.confint()
    assert ci.iloc[0].isna().all() and ci.iloc[1:].notna().all().all()


def test_probit_profile_is_centred_on_the_fit():
    """zeta = 0 at m's estimates: the deviance profiled is -2 logLik of the fit, whose
    minimum is the fit (to the optimiser's tolerance), and glmmTMB's optimum; lme4's devfun
    at the fit is above its own minimum (a different optimum)."""
    m = stats.glmer(MODELS["cbpp"][0], lme4_data("cbpp"), link="probit")
    r = pd.read_csv(FIXTURE, comment="#")
    r = r[r["model"] == "cbpp_probit"]
    tmb = r[r["what"] == "tmb_optimum"].set_index("name")["value"]
    devfun = glmer_devfun(m)
    at_fit = devfun(np.append(m.theta, m.fixef))
    assert at_fit == pytest.approx(-2 * m.logLik, rel=1e-12)
    assert at_fit == pytest.approx(tmb["deviance"], abs=1e-6)
    np.testing.assert_allclose(m.params(), tmb[[".sig01", *m.fixef.index]], atol=1e-5)
    lme4 = r[(r["what"] == "devfun") & (r["name"] == "p1")]["value"].iloc[0]  # at lme4's optimum
    assert glmer_devfun(m, information="expected")(np.append(m.theta, m.fixef)) > lme4 + 1e-3
    ci = m.confint(method="profile").to_numpy()
    rows = [".sig01", *m.fixef.index]
    exact, interpolated = limits("cbpp_probit", "tmb_exact", rows), limits("cbpp_probit", "tmb_confint", rows)
    np.testing.assert_allclose(ci, exact, rtol=0, atol=1e-5)
    assert (np.abs(ci - interpolated) <= np.abs(exact - interpolated) + 1e-5).all()
