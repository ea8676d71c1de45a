"""allFit: the model refitted with every optimiser of the package, against lme4's
``summary(allFit(m))`` (lme4 1.1-31: benchmarks/selection_reference.R) on sleepstudy and cbpp.
The optimisers differ from lme4's (bobyqa, Nelder_Mead, nlminb, ...); what both must give is
the optimum: every optimiser's log-likelihood and estimates. For cbpp the optimum is
glmmTMB's (the package's Laplace likelihood; lme4's seven optimisers agree with each other at
a log-likelihood 2.8e-4 lower, fixed effects 2e-4 away: lme4's end point, not ours)."""

from __future__ import annotations

import numpy as np
import pytest

from acceptability import stats
from acceptability.stats.mixed.fitted.allfit import available_optimizers
from tests.lme4_data import lme4_data
from tests.stats.mixed.selection_data import quiet, reference


@pytest.fixture(scope="module")
def sleep():
    m = quiet(stats.lmer, "Reaction ~ Days + (Days | Subject)", lme4_data("sleepstudy"))
    return m, m.allFit()


@pytest.fixture(scope="module")
def cbpp():
    m = quiet(stats.glmer, "cbind(incidence, size - incidence) ~ period + (1 | herd)", lme4_data("cbpp"))
    return m, m.allFit()


def test_allfit_sleepstudy_matches_lme4(sleep):
    m, a = sleep
    assert list(a.which_OK.index) == ["glmm", "pls.L-BFGS-B", "Nelder-Mead", "Powell"]
    assert a.which_OK.all() and not any(a.msgs.values())
    r_llik = reference("ss", "allFit_llik")["value"]
    assert (reference("ss", "allFit_ok")["value"] == 1).all()
    assert np.allclose(a.llik, r_llik["bobyqa"], rtol=0, atol=1e-6)  # R's spread: 8e-8
    r_fixef = reference("ss", "allFit_fixef").loc["bobyqa"]
    assert np.allclose(a.fixef[r_fixef.index], r_fixef, rtol=1e-6)
    # lme4's summary names the values of as.data.frame(VarCorr) (sd, sd, cor, sigma) with
    # its tnames order (sd, cor, sd): its "Subject.Days.(Intercept)" holds the SD of Days;
    # compared by position, in VarCorr's order, with our names (the right ones)
    r_sdcor = reference("ss", "allFit_sdcor").loc["bobyqa"]
    assert list(r_sdcor.index) == ["Subject.(Intercept)", "Subject.Days.(Intercept)", "Subject.Days", "sigma"]
    assert list(a.sdcor.columns) == ["Subject.(Intercept)", "Subject.Days", "Subject.Days.(Intercept)", "sigma"]
    assert np.allclose(a.sdcor.to_numpy(), r_sdcor.to_numpy(), rtol=1e-4)
    assert a.llik["pls.L-BFGS-B"] == pytest.approx(m.logLik, abs=1e-7)


def test_allfit_cbpp_reaches_the_optimum(cbpp):
    m, a = cbpp
    assert list(a.which_OK.index) == ["glmm", "laplace.L-BFGS-B", "Nelder-Mead", "Powell"]
    assert a.which_OK.all()
    tmb = reference("cbpp", "logLik_tmb").iloc[0, 0]
    assert np.allclose(a.llik, tmb, rtol=0, atol=1e-5)
    assert (a.llik >= reference("cbpp", "allFit_llik")["value"].max()).all()
    fe = reference("cbpp", "fixef_tmb")["value"]
    assert np.allclose(a.fixef[fe.index], fe, rtol=1e-4, atol=1e-5)
    sd = reference("cbpp", "sd_tmb").loc["herd", "value"]
    assert np.allclose(a.sdcor["herd.(Intercept)"], sd, rtol=1e-4)
    lme4 = reference("cbpp", "allFit_fixef").loc["bobyqa"]
    se = m.se[lme4.index]
    assert (np.abs(a.fixef[lme4.index] - lme4) < 2e-3 * se).all().all()  # lme4 stops 1.3e-3 SE away


def test_allfit_tables_are_its_fits(sleep):
    """The joint: each table row is that fit's own accessor; the summary prints them."""
    _, a = sleep
    for name, fit in a.fits.items():
        assert a.llik[name] == fit.logLik
        assert list(a.fixef.loc[name]) == list(fit.fixef)
        assert list(a.theta.loc[name]) == list(fit.theta)
    text = str(a)
    assert "$llik" in text and "$sdcor" in text and "Nelder-Mead" in text


def test_allfit_optimizers_by_model():
    nb = quiet(stats.lmer, "Reaction ~ Days + (Days || Subject)", lme4_data("sleepstudy"))
    assert available_optimizers(nb) == ["pls.L-BFGS-B", "Nelder-Mead", "Powell"]  # glmm refuses ||
    chosen = nb.allFit(optimizers=["pls.L-BFGS-B", "Powell"])
    assert list(chosen.which_OK.index) == ["pls.L-BFGS-B", "Powell"]
    with pytest.raises(ValueError, match="cannot fit this model"):
        nb.allFit(optimizers=["glmm"])
