"""stats.brm (bambi on PyMC/nutpie) against lmer on LI-Adger; diagnostics; bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import need_module

need_module("bambi")

from acceptability.stats.brm import brm, loo_compare  # noqa: E402
from acceptability.stats.judgment_models import SENTENCE_FORMULA, sentence_model_frame  # noqa: E402
from acceptability.stats.lmer import SingularFitWarning, lmer  # noqa: E402


@pytest.fixture(scope="module")
def li_adger_frame(li_adger, li_adger_scores) -> pd.DataFrame:
    return sentence_model_frame(li_adger, li_adger_scores, model="bert-large-cased_mlm")


def _lmer_slope(frame: pd.DataFrame) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        return float(lmer(SENTENCE_FORMULA, frame).fixef["score"])


def test_brm_slope_agrees_with_lmer_few_draws(li_adger_frame):
    b = brm(SENTENCE_FORMULA, li_adger_frame, draws=300, tune=400, chains=2, seed=1)
    assert b.n_dropped == 2
    post = b.draws("score")
    assert abs(post.mean() - _lmer_slope(li_adger_frame)) < 2 * post.std()
    summ = b.summary()
    assert {"mean", "sd", "ess_bulk", "ess_tail", "r_hat"} <= set(summ.columns)
    assert summ.loc["score", "r_hat"] < 1.05  # few draws; the default settings give < 1.01
    assert b.settings | {"draws": 300, "tune": 400, "chains": 2, "seed": 1} == b.settings
    assert "phenomenon_type_id" in b.settings["formula"]


@pytest.mark.slow
def test_brm_default_settings_converge(li_adger_frame):
    """The done-when check with brm's defaults (4 chains x 1000 draws, 1000 tuning)."""
    b = brm(SENTENCE_FORMULA, li_adger_frame)
    summ = b.summary()
    assert summ.loc[["Intercept", "score", "sigma"], "r_hat"].max() < 1.01
    post = b.draws("score")
    assert abs(post.mean() - _lmer_slope(li_adger_frame)) < 2 * post.std()


def _crossed(seed: int = 0, n_s: int = 12, n_i: int = 10) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.repeat(np.arange(n_s), n_i)
    i = np.tile(np.arange(n_i), n_s)
    x = rng.normal(size=s.size)
    z = rng.normal(size=s.size)  # unrelated to y
    y = 0.3 + 0.8 * x + rng.normal(0, 0.5, n_s)[s] + rng.normal(0, 0.5, n_i)[i] + rng.normal(0, 0.4, s.size)
    return pd.DataFrame({"y": y, "x": x, "z": z, "subj": [f"s{k}" for k in s], "item": [f"i{k}" for k in i]})


@pytest.fixture(scope="module")
def crossed_fits():
    df = _crossed()
    kw = {"draws": 300, "tune": 300, "chains": 2, "seed": 2}
    return (brm("y ~ x + z + (1 | subj) + (1 | item)", df, **kw),
            brm("y ~ 1 + (1 | subj) + (1 | item)", df, **kw))


def test_crossed_effects_ppc_rope(crossed_fits):
    m1, _ = crossed_fits
    assert set(m1.summary().index) >= {"Intercept", "x", "z", "sigma", "1|subj_sigma", "1|item_sigma"}
    assert abs(m1.fixef["x"] - 0.8) < 0.15
    ppc = m1.ppc()
    assert list(ppc["statistic"]) == ["mean", "sd"] and ppc["p_value"].between(0.01, 0.99).all()
    rope = m1.rope("x", (-0.1, 0.1))
    assert rope["p_in_rope"] == 0 and rope["hdi_low"] > 0.1


def _savage_dickey_scipy(fit, name: str, ref_val: float) -> float:
    """BF01 computed independently of stats.brm: scipy's Gaussian KDE of the posterior
    draws over scipy's normal density of bambi's prior for ``name``, at ``ref_val``."""
    comp = fit.model.components[fit.model.family.likelihood.parent]
    prior = comp.common_terms[name].prior
    assert prior.name == "Normal"
    density = sps.norm(float(prior.args["mu"]), float(prior.args["sigma"])).pdf(ref_val)
    return float(sps.gaussian_kde(fit.draws(name))(ref_val)[0] / density)


def test_savage_dickey_bayes_factor_equals_density_ratio(crossed_fits):
    m1, _ = crossed_fits
    z = m1.bayes_factor("z")  # unrelated to y: evidence for the null
    assert 1 < z["BF01"] < np.inf and z["BF10"] == pytest.approx(1 / z["BF01"])
    assert z["BF01"] == pytest.approx(_savage_dickey_scipy(m1, "z", 0.0), rel=0.02)
    x = m1.bayes_factor("x", ref_val=0.8)  # the true slope: evidence for it
    assert x["BF01"] > 1
    assert x["BF01"] == pytest.approx(_savage_dickey_scipy(m1, "x", 0.8), rel=0.02)
    # no posterior draw comes near 0 (slope 0.8, posterior SD ~0.04): no KDE estimate there
    assert m1.draws("x").min() > 0.5 and m1.bayes_factor("x") == {"BF10": np.inf, "BF01": 0.0}
    with pytest.raises(KeyError, match="not a fixed effect"):
        m1.bayes_factor("1|subj_sigma")


def test_loo_comparison_prefers_true_model(crossed_fits):
    m1, m0 = crossed_fits
    table = loo_compare(with_x=m1, without_x=m0)
    assert table.index[0] == "with_x" and "elpd_diff" in table.columns
    assert m1.loo().elpd_loo > m0.loo().elpd_loo


def test_bernoulli_needs_binary_response():
    df = _crossed()
    with pytest.raises(ValueError, match=r"bernoulli.*0/1 response.*'y'"):
        brm("y ~ x + (1 | subj)", df, family="bernoulli")


def test_bad_family_column_and_levels():
    df = _crossed()
    with pytest.raises(ValueError, match="family="):
        brm("y ~ x + (1 | subj)", df, family="poisson")
    with pytest.raises(KeyError, match="unknown column 'w'"):
        brm("y ~ w + (1 | subj)", df)
    with pytest.raises(ValueError, match="has 1 level"):
        brm("y ~ x + (1 | subj)", df.assign(subj="one"))
