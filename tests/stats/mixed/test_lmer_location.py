"""lmer's fit does not depend on where the response sits or on its unit (issue 43, item 7).

A linear mixed model's theta (relative covariance factors) is the same for y, y + c and
a * y; the fixed effects move by c in the intercept and by the factor a, sigma, the SEs and
the random effects by a, and the log-likelihood (REML criterion) by the Jacobian of y -> a y:
-(n - p) log|a| for REML, -n log|a| for ML. Before the fix the residual sum of squares was
y'y less the fitted part (the PLS cross products), which cancels catastrophically when y sits
far from 0: the LI-Adger sentence model (human z-scores, SD 0.78) failed at a shift of 1e6
("A is not positive definite"), sleepstudy's theta moved by 1% at 1e8 and its log-likelihood
rose above lme4's maximum by 0.67.

The reference is lme4 1.1-31 on the unshifted data (tests/fixtures/lme4_reference.csv,
benchmarks/lme4_reference.R): the log-likelihood at every shift within LME4_TOL of lme4's.
Against our unshifted fit: theta within 1e-6 of its largest entry (the sentence model's optimum
is singular and flat: glmm stops within 5e-7 there, whatever the shift), the fixed effects
within 1e-5 of their SEs, the SEs, sigma, residuals, fitted values, predictions and random
effects within 1e-5 relative, the log-likelihood within 1e-5 (y + 1e8 is rounded to 1.5e-8
per row, which moves the sentence model's log-likelihood by 2e-6).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.ratings.judgment import SENTENCE_FORMULA
from tests.conftest import LME4_TOL, lme4_reference
from tests.lme4_data import lme4_data

SHIFTS = [0.0, 1e6, 1e7, 1e8]
SCALES = [1e-6, 1e6]
SLEEP = "Reaction ~ Days + (Days | Subject)"


def fit(formula: str, frame: pd.DataFrame, response: str, shift: float = 0.0, scale: float = 1.0,
        REML: bool = True):
    data = frame.assign(**{response: frame[response] * scale + shift})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the sentence model is singular, as in lme4
        return stats.lmer(formula, data, REML=REML)


@pytest.fixture(scope="module")
def sentence_frame(li_adger, li_adger_scores) -> pd.DataFrame:
    return stats.sentence_model_frame(li_adger, li_adger_scores, model="bert-large-cased_mlm")


CASES = {"sleepstudy": (SLEEP, "Reaction", "sleepstudy|corr|"),
         "sentence": (SENTENCE_FORMULA, "human", "sentence|REML|")}


def case(name: str, request) -> tuple[str, pd.DataFrame, str, str]:
    formula, response, prefix = CASES[name]
    frame = lme4_data("sleepstudy") if name == "sleepstudy" else request.getfixturevalue("sentence_frame")
    return formula, frame, response, prefix


def assert_same_fit(m, base, shift: float, scale: float, jacobian: float) -> None:
    """``m`` is ``base`` with the response a * y + c: theta equal, the rest moved as they must."""
    np.testing.assert_allclose(m.theta, base.theta, rtol=0, atol=1e-6 * np.abs(base.theta).max(),
                               err_msg="theta")
    fe, se = base.fixef * scale, base.se * scale
    fe["(Intercept)"] += shift
    np.testing.assert_array_less(np.abs(m.fixef - fe), 1e-5 * se + 4 * np.spacing(shift))
    np.testing.assert_allclose(m.se, se, rtol=1e-5, err_msg="se")
    assert m.sigma == pytest.approx(base.sigma * scale, rel=1e-5)
    assert m.logLik == pytest.approx(base.logLik + jacobian, abs=1e-5)
    tol = 1e-5 * base.sigma * scale + 4 * np.spacing(shift)
    np.testing.assert_allclose(m.residuals, base.residuals * scale, rtol=0, atol=tol, err_msg="residuals")
    np.testing.assert_allclose(m.fitted - shift, base.fitted * scale, rtol=0, atol=tol, err_msg="fitted")
    np.testing.assert_allclose(m.predict(re_form="NA") - shift, base.predict(re_form="NA") * scale,
                               rtol=0, atol=tol, err_msg="predict")
    for group, table in base.ranef.items():
        theirs = table.to_numpy() * scale
        np.testing.assert_allclose(m.ranef[group].to_numpy(), theirs, rtol=0,
                                   atol=1e-5 * np.abs(theirs).max(), err_msg=group)


@pytest.mark.parametrize("name", list(CASES))
def test_a_shifted_response_gives_the_same_fit_as_lme4(name, request):
    formula, frame, response, prefix = case(name, request)
    base = fit(formula, frame, response)
    assert base.logLik == pytest.approx(lme4_reference(prefix)["logLik"], abs=LME4_TOL)
    for shift in SHIFTS[1:]:
        m = fit(formula, frame, response, shift=shift)
        assert m.converged, shift
        assert m.logLik == pytest.approx(lme4_reference(prefix)["logLik"], abs=LME4_TOL), shift
        assert_same_fit(m, base, shift, 1.0, 0.0)


@pytest.mark.parametrize("REML", [True, False])
@pytest.mark.parametrize("name", list(CASES))
def test_a_rescaled_response_moves_the_loglik_by_its_jacobian(name, REML, request):
    formula, frame, response, _ = case(name, request)
    base = fit(formula, frame, response, REML=REML)
    for scale in SCALES:
        m = fit(formula, frame, response, scale=scale, REML=REML)
        n = base.nobs - (len(base.fixef) if REML else 0)
        assert_same_fit(m, base, 0.0, scale, -n * np.log(scale))


def test_the_own_pls_engine_is_location_free_too():
    """The structures glmm refuses ((Days || Subject)) go to the own PLS optimiser."""
    formula, frame = "Reaction ~ Days + (Days || Subject)", lme4_data("sleepstudy")
    base = fit(formula, frame, "Reaction")
    assert base.engine.startswith("acceptability PLS")
    for shift in SHIFTS[1:]:
        assert_same_fit(fit(formula, frame, "Reaction", shift=shift), base, shift, 1.0, 0.0)


def test_shifted_sleepstudy_agrees_with_statsmodels():
    """statsmodels' MixedLM (REML, its own optimiser) on y + 1e8: the log-likelihood within
    1e-6 of ours (1.3e-9 measured), the fixed effects within 1e-6 of their SEs, the variance
    components within 1e-4 relative (statsmodels stops 1e-5 from lme4's optimum)."""
    import statsmodels.formula.api as smf

    frame = lme4_data("sleepstudy")
    shifted = frame.assign(Reaction=frame["Reaction"] + 1e8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sm = smf.mixedlm("Reaction ~ Days", shifted, groups="Subject", re_formula="~Days").fit(reml=True)
    m = fit(SLEEP, frame, "Reaction", shift=1e8)
    assert m.logLik == pytest.approx(sm.llf, abs=1e-6)
    np.testing.assert_array_less(np.abs(m.fixef.to_numpy() - sm.fe_params.to_numpy()), 1e-6 * m.se.to_numpy())
    ours = m.design.covariances(m.theta, m.sigma)[0]
    np.testing.assert_allclose(ours, np.asarray(sm.cov_re), rtol=1e-4)
    assert m.sigma**2 == pytest.approx(sm.scale, rel=1e-4)


def test_profile_intervals_and_satterthwaite_df_move_with_the_shift():
    """The likelihood-profile intervals (lme4's default confint) of y + 1e8 are those of y,
    the intercept's moved by 1e8, within 1e-6 of its SE (the roots were found to 1e-10 of
    |estimate|: 0.01 at 1e8, 3.4e-4 off), and lme4's; Satterthwaite's df within 1e-6."""
    frame = lme4_data("sleepstudy")
    base, m = fit(SLEEP, frame, "Reaction"), fit(SLEEP, frame, "Reaction", shift=1e8)
    ci, ours = base.confint(), m.confint()
    ours.loc["(Intercept)"] -= 1e8
    np.testing.assert_allclose(ours.to_numpy(), ci.to_numpy(), rtol=0, atol=1e-6 * base.se["(Intercept)"])
    r = lme4_reference("sleepstudy|corr|")
    for side, col in zip(("lower", "upper"), ours.columns, strict=True):
        assert ours.loc["(Intercept)", col] == pytest.approx(r[f"profile|(Intercept)|{side}"], rel=2e-4)
    np.testing.assert_allclose(m.coefficients["df"], base.coefficients["df"], rtol=1e-6)
