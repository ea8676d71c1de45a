"""The Laplace likelihood (``stats.mixed.glmm.laplace``). With the expected information it is
lme4's GLMM deviance function, tested against lme4 1.1-31's
``glmer(..., devFunOnly = TRUE)`` at four (theta, beta) points of each model: Laplace and
nAGQ = 9, logit, probit and cloglog links, prior weights, an offset, a correlated random
slope and three crossed/nested terms (q = 584, the sparse factor). Every R number is in
tests/fixtures/glmer_profile.csv, written by benchmarks/glmer_profile.R.

Measured: at most 2.2e-9 relative (probit and cloglog links), 9.6e-10 (the slope model),
4.0e-10 (canonical links, with weights or an offset); nAGQ = 9 and the sparse three-term
model below 1e-12. The remainder is lme4's: it takes log|L|^2 from the factor at the
last-but-one PIRLS iterate, ours at the mode (|u|^2 and -2 log f agree to 1e-15).
With the observed information it is the likelihood glmer's fits report (glmm's, glmmTMB's),
which the families' fits test against R (test_glmer_families.py); here: that the two agree
for a canonical link and that the fit's deviance is -2 logLik at nAGQ = 1 and 9.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import glmer, model_design
from acceptability.stats.mixed.glmm.laplace import GlmerDevfun, LaplaceLikelihood, glmer_devfun
from tests.lme4_data import lme4_data

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "glmer_profile.csv"
CBPP = "cbind(incidence, size - incidence) ~ period + (1 | herd)"
GROUSE = "TICKS ~ YEAR + cHEIGHT + (1 | LOCATION)"


@pytest.fixture(scope="module")
def reference() -> pd.DataFrame:
    return pd.read_csv(FIXTURE, comment="#")


@pytest.fixture(scope="module")
def designs() -> dict[str, tuple[object, int]]:
    """Each model of benchmarks/glmer_profile.R: (design, nAGQ). Links, weights and offsets
    are set on the design's fields, as glmer's arguments set them."""
    cbpp = lme4_data("cbpp").assign(pnum=lambda f: f["period"].astype(float))
    gt = lme4_data("grouseticks")
    d = model_design(CBPP, cbpp, "binomial")
    g = model_design(GROUSE, gt, "poisson")
    size = cbpp["size"].to_numpy(float)
    return {
        "cbpp": (d, 1), "cbpp_agq9": (d, 9),
        "cbpp_probit": (dataclasses.replace(d, link="probit"), 1),
        "cbpp_cloglog": (dataclasses.replace(d, link="cloglog"), 1),
        "cbpp_weights": (dataclasses.replace(d, trials=None, weights=size), 1),  # y = proportion
        "cbpp_slope": (model_design("cbind(incidence, size - incidence) ~ pnum + (1 + pnum | herd)",
                                    cbpp, "binomial"), 1),
        "cbpp_offset": (dataclasses.replace(model_design("incidence ~ period + (1 | herd)", cbpp, "poisson"),
                                            offset=np.log(size)), 1),
        "grouse": (g, 1), "grouse_agq9": (g, 9),
        "grouse_pw": (dataclasses.replace(g, weights=1 + (np.arange(1, len(gt) + 1) % 3) / 2), 1),
        "grouse_3re": (model_design("TICKS ~ YEAR + cHEIGHT + (1 | INDEX) + (1 | BROOD) + (1 | LOCATION)",
                                    gt, "poisson"), 1),  # INDEX: a level per row
    }


def points(reference: pd.DataFrame, model: str) -> list[tuple[np.ndarray, float]]:
    r = reference[reference["model"] == model]
    out = []
    for k in range(1, 5):
        pars = r[(r["what"] == "par") & r["name"].str.startswith(f"p{k}|")]
        dev = r[(r["what"] == "devfun") & (r["name"] == f"p{k}")]["value"]
        out.append((pars["value"].to_numpy(float), float(dev.iloc[0])))
    return out


MODELS = ["cbpp", "cbpp_agq9", "cbpp_probit", "cbpp_cloglog", "cbpp_weights", "cbpp_slope",
          "cbpp_offset", "grouse", "grouse_agq9", "grouse_pw", "grouse_3re"]


@pytest.mark.parametrize("model", MODELS)
def test_deviance_equals_lme4_devfun(model, designs, reference):
    d, nagq = designs[model]
    f = GlmerDevfun(d, nagq)
    assert len(points(reference, model)[0][0]) == d.ntheta + d.p
    for pars, want in points(reference, model):
        assert f(pars) == pytest.approx(want, rel=1e-8, abs=0), (model, pars)


def test_warm_and_cold_starts_agree(designs, reference):
    """PIRLS from the last call's modes (as lme4's devfun) or from u = 0: the same mode."""
    d, _ = designs["cbpp_probit"]
    f = GlmerDevfun(d)
    (p1, _), (p2, _), *_ = points(reference, "cbpp_probit")
    f(p1)
    warm = f.mode(p2[:1], p2[1:])
    cold = f.mode(p2[:1], p2[1:], u=np.zeros(d.q))
    assert warm.deviance == pytest.approx(cold.deviance, rel=1e-12)
    assert np.abs(warm.u - cold.u).max() < 1e-9


@pytest.mark.parametrize("model", ["cbpp", "cbpp_agq9", "grouse"])
def test_minimum_equals_r(model, designs, reference):
    """The polished optimum of benchmarks/glmer_profile.R (bobyqa on lme4's devfun)."""
    d, nagq = designs[model]
    r = reference[(reference["model"] == model) & (reference["what"] == "optimum")].set_index("name")["value"]
    pars = r.drop("deviance").to_numpy(float)
    assert GlmerDevfun(d, nagq)(pars) == pytest.approx(r["deviance"], rel=1e-9)


def test_glmer_devfun_at_the_fit():
    m = glmer(CBPP, lme4_data("cbpp"))
    f = glmer_devfun(m)
    assert f(np.append(m.theta, m.fixef)) == pytest.approx(m.deviance, abs=1e-6)


@pytest.mark.parametrize(("link", "nagq"), [("logit", 1), ("probit", 1), ("cloglog", 1), ("probit", 9)])
def test_fit_deviance_is_the_fits_minus_2_loglik(link, nagq):
    """glmer_devfun(m) is the likelihood the fit maximised (glmm's: observed information,
    -2 log f summed with nAGQ = 9 too); lme4's (expected) is above it for a non-canonical
    link (its log|L| differs) and on its deviance-residual scale with nAGQ = 9."""
    m = glmer(CBPP, lme4_data("cbpp"), link=link, nAGQ=nagq)
    pars = np.append(m.theta, m.fixef)
    assert glmer_devfun(m)(pars) == pytest.approx(-2 * m.logLik, rel=1e-9)
    lme4 = glmer_devfun(m, information="expected")(pars)
    if nagq == 1 and link != "logit":
        assert lme4 > -2 * m.logLik + 0.05
    elif nagq == 1:
        assert lme4 == pytest.approx(-2 * m.logLik, rel=1e-12)


def test_observed_equals_expected_for_a_canonical_link(designs, reference):
    for model in ("cbpp", "grouse_pw", "cbpp_offset"):
        d, _ = designs[model]
        for pars, want in points(reference, model):
            assert LaplaceLikelihood(d, "observed")(pars) == pytest.approx(want, rel=1e-8)


def test_refusals(designs):
    d, _ = designs["grouse_3re"]
    with pytest.raises(ValueError, match="single scalar random effect"):
        GlmerDevfun(d, nAGQ=9)
    gauss = model_design("Reaction ~ Days + (1 | Subject)", lme4_data("sleepstudy"))
    with pytest.raises(ValueError, match="dispersion"):
        GlmerDevfun(gauss)
    gamma = glmer("Reaction ~ Days + (1 | Subject)", lme4_data("sleepstudy"), "Gamma", link="log")
    with pytest.raises(ValueError, match="method='Wald'"):
        gamma.confint(method="profile")
    with pytest.raises(ValueError, match="information="):
        LaplaceLikelihood(d, "fisher")


@pytest.mark.parametrize(("formula", "data", "family", "link", "x"), [
    ("TICKS ~ YEAR + cHEIGHT + (1 | LOCATION)", "grouseticks", "poisson", "sqrt", [0.5, 1.2, 0.3, -0.4, 0.01]),
    ("Reaction ~ Days + (Days | Subject)", "sleepstudy", "Gamma", "identity",
     [20.0, 2.0, 5.0, 250.0, 10.0, np.log(0.005)]),
])
def test_analytic_gradient_equals_central_differences(formula, data, family, link, x):
    """LaplaceLikelihood.gradient (theta, beta, log phi: the fits' optimiser and their
    Hessian use it) against central differences of log L written here, PIRLS from the
    mode at x: measured within 1e-9 relative (sqrt link) and 9e-8 (Gamma with a correlated
    slope: log phi's derivative, which the gradient itself takes by differences)."""
    frame = lme4_data(data)
    if "cHEIGHT" in formula:
        frame = frame.assign(cHEIGHT=frame["HEIGHT"] - frame["HEIGHT"].mean())
    f = LaplaceLikelihood(model_design(formula, frame, family, link=link))
    x = np.asarray(x, float)
    mode = f.mode(*f.unpack(x))
    numeric = []
    for i in range(len(x)):
        step = np.zeros(len(x))
        step[i] = 1e-5 * max(1.0, abs(x[i]))
        numeric.append((f.loglik(x + step, mode.u) - f.loglik(x - step, mode.u)) / (2 * step[i]))
    assert np.allclose(f.gradient(mode), numeric, rtol=2e-7, atol=1e-6)
