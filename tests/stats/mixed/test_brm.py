"""stats.brm (bambi on PyMC/nutpie) against lmer on LI-Adger; diagnostics; bad input."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import REPO, missing, need_module

need_module("bambi")

from acceptability.stats.mixed.brm import brm, loo_compare, memory_estimate  # noqa: E402
from acceptability.stats.mixed.lmm.lmer import lmer  # noqa: E402
from acceptability.stats.mixed.mer import SingularFitWarning  # noqa: E402
from acceptability.stats.ratings.judgment import SENTENCE_FORMULA, sentence_model_frame  # noqa: E402

brm_module = importlib.import_module("acceptability.stats.mixed.brm")  # the module, not stats.brm


@pytest.fixture(scope="module")
def li_adger_frame(li_adger, li_adger_scores) -> pd.DataFrame:
    return sentence_model_frame(li_adger, li_adger_scores, model="bert-large-cased_mlm")


def _lmer_slope(frame: pd.DataFrame) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        return float(lmer(SENTENCE_FORMULA, frame).fixef["score"])


def test_brm_slope_agrees_with_lmer_few_draws(li_adger_frame):
    b = brm(SENTENCE_FORMULA, li_adger_frame, draws=300, tune=400, chains=2, seed=1, thin=1)
    assert b.n_dropped == 2
    post = b.draws("score")
    assert abs(post.mean() - _lmer_slope(li_adger_frame)) < 2 * post.std()
    summary = b.summary()
    summ = summary.tables["posterior"]
    assert {"mean", "sd", "ess_bulk", "ess_tail", "r_hat"} <= set(summ.columns)
    # the printout is brms' layout
    assert "Regression Coefficients:" in str(summary) and "Multilevel Hyperparameters:" in summary
    assert list(summary.coefficients.index) == b.fixed_names
    assert 0 < b.fit_seconds == b.settings["fit_seconds"] == summ.attrs["fit_seconds"]
    assert f"fit {b.fit_seconds:.1f} s" in repr(b)
    assert summ.loc["score", "r_hat"] < 1.05  # few draws; the default settings give < 1.01
    assert b.settings | {"draws": 300, "tune": 400, "chains": 2, "seed": 1, "thin": 1} == b.settings
    assert "phenomenon_type_id" in b.settings["formula"]


@pytest.mark.slow
def test_brm_default_settings_converge(li_adger_frame):
    """The done-when check with brm's defaults (4 chains x 1000 kept draws, thin 10, 1000
    warm-up): R-hat < 1.01 for every parameter, the phenomenon intercept SD (about 0.03,
    weakly identified) and each group-level coefficient included. Measured with seeds 0-2:
    largest R-hat 1.002-1.004; it was 1.05-1.09 with 4 x 1000 unthinned draws."""
    b = brm(SENTENCE_FORMULA, li_adger_frame)
    rhat = b.rhat()
    assert rhat["1|phenomenon_sigma"] < 1.01 and b.rhat_max() < 1.01, rhat.sort_values().tail()
    assert b.summary().tables["posterior"].loc["1|phenomenon_sigma", "ess_bulk"] > 400
    assert b.idata.posterior.sizes["draw"] == 1000 and b.settings["thin"] == 10
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
    kw = {"draws": 300, "tune": 300, "chains": 2, "seed": 2, "thin": 1}
    return (brm("y ~ x + z + (1 | subj) + (1 | item)", df, **kw),
            brm("y ~ 1 + (1 | subj) + (1 | item)", df, **kw))


def test_crossed_effects_ppc_rope(crossed_fits):
    m1, _ = crossed_fits
    assert set(m1.summary().tables["posterior"].index) >= {"Intercept", "x", "z", "sigma", "1|subj_sigma", "1|item_sigma"}
    assert abs(m1.fixef["x"] - 0.8) < 0.15
    ppc = m1.ppc()
    assert list(ppc["statistic"]) == ["mean", "sd"] and ppc["p_value"].between(0.01, 0.99).all()
    rope = m1.rope("x", (-0.1, 0.1))
    assert rope["p_in_rope"] == 0 and rope["hdi_low"] > 0.1


def _savage_dickey_scipy(fit, name: str, ref_val: float, kde: str = "scipy") -> float:
    """BF01 computed independently of stats.brm: a KDE of the posterior draws (scipy's
    Gaussian KDE, Scott's bandwidth; or arviz's, the estimator ``bayes_factor`` documents)
    over scipy's normal density of bambi's prior for ``name``, at ``ref_val``."""
    comp = fit.model.components[fit.model.family.likelihood.parent]
    prior = comp.common_terms[name].prior
    assert prior.name == "Normal"
    density = sps.norm(float(prior.args["mu"]), float(prior.args["sigma"])).pdf(ref_val)
    draws = fit.draws(name)
    if kde == "arviz":
        import arviz as az

        grid, pdf = az.kde(draws)
        return float(np.interp(ref_val, grid, pdf) / density)
    return float(sps.gaussian_kde(draws)(ref_val)[0] / density)


def test_savage_dickey_bayes_factor_equals_density_ratio(crossed_fits):
    m1, _ = crossed_fits
    z = m1.bayes_factor("z")  # unrelated to y: evidence for the null
    assert 1 < z["BF01"] < np.inf and z["BF10"] == pytest.approx(1 / z["BF01"])
    x = m1.bayes_factor("x", ref_val=0.8)  # the true slope: evidence for it
    assert x["BF01"] > 1
    for bf, name, ref in ((z, "z", 0.0), (x, "x", 0.8)):
        # the documented estimator over the prior's exact density
        assert bf["BF01"] == pytest.approx(_savage_dickey_scipy(m1, name, ref, "arviz"),
                                           rel=1e-9)
        # another bandwidth rule: at the posterior mode of 600 draws the two KDEs differ by
        # about 2% (x: 45.11 against scipy's 44.21 on an AMD EPYC's draws)
        assert bf["BF01"] == pytest.approx(_savage_dickey_scipy(m1, name, ref), rel=0.05)
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


CBPP = REPO / "tests" / "fixtures" / "lme4" / "cbpp.csv.gz"
# lme4 1.1.31 (R 4.2.2): glmer(cbind(incidence, size - incidence) ~ period + (1 | herd),
# family = binomial, data = cbpp); summary(m)$coefficients, estimate and SE
CBPP_LME4 = {"Intercept": (-1.398343, 0.2312140), "period2": (-0.991925, 0.3031506),
             "period3": (-1.128216, 0.3228302), "period4": (-1.579745, 0.4220492)}


def _cbpp_bernoulli() -> pd.DataFrame:
    """lme4's cbpp with each herd-period's ``cbind(incidence, size - incidence)`` written
    as ``size`` 0/1 rows (brm has no binomial family; the likelihood is the same)."""
    if not CBPP.is_file():
        missing(f"lme4's cbpp data {CBPP} not found")
    cbpp = pd.read_csv(CBPP)
    rows = cbpp.loc[cbpp.index.repeat(cbpp["size"])].copy()
    rows["sick"] = (rows.groupby(level=0).cumcount() < rows["incidence"]).astype(int)
    rows["herd"], rows["period"] = rows["herd"].astype(str), rows["period"].astype(str)
    assert rows["sick"].sum() == cbpp["incidence"].sum() and len(rows) == cbpp["size"].sum()
    return rows.reset_index(drop=True)


def test_categorical_predictor_one_coefficient_per_contrast():
    """cbpp: ``period`` has 4 levels, so 3 treatment contrasts named as lme4 names them
    (it was one number, -1.04, the mean of the three)."""
    b = brm("sick ~ period + (1 | herd)", _cbpp_bernoulli(), family="bernoulli",
            draws=300, tune=300, chains=2, seed=3, thin=2)
    assert b.idata.posterior.sizes["draw"] == 300 and b.settings["thin"] == 2
    assert b.fixed_names == list(CBPP_LME4)
    assert list(b.fixef.index) == list(CBPP_LME4)
    summ = b.summary().tables["posterior"]
    assert list(summ.index[:4]) == list(CBPP_LME4)
    for name, (est, se) in CBPP_LME4.items():
        post = b.draws(name)
        assert post.mean() == pytest.approx(b.fixef[name]) == pytest.approx(summ.loc[name, "mean"], abs=1e-3)
        # the posterior mean lies within 1 lme4 SE of lme4's ML estimate; SDs within 25%
        assert abs(post.mean() - est) < se, name
        assert post.std() == pytest.approx(se, rel=0.25), name
    assert b.bayes_factor("period4")["BF10"] > 1
    # the prior of one contrast: its element of the vector prior of the term ``period``
    prior = b.model.components["p"].common_terms["period"].prior
    assert prior.name == "Normal"
    density = sps.norm(np.ravel(prior.args["mu"])[0], np.ravel(prior.args["sigma"])[0]).pdf(-1.0)
    bf01 = sps.gaussian_kde(b.draws("period2"))(-1.0)[0] / density
    assert b.bayes_factor("period2", ref_val=-1.0)["BF01"] == pytest.approx(bf01, rel=0.02)


def _insteval() -> pd.DataFrame:
    """lme4's InstEval: 73421 ratings, 2972 students (s), 1128 lecturers (d), 14
    departments, crossed. Only the memory estimate and the refusal are tested on it."""
    path = CBPP.with_name("insteval.csv.gz")
    if not path.is_file():
        missing(f"lme4's InstEval data {path} not found")
    return pd.read_csv(path, dtype={"s": str, "d": str, "service": str, "dept": str})


def test_memory_estimate_follows_its_formula():
    df = _insteval()
    est = memory_estimate("y ~ service + (1 | s) + (1 | d) + (1 | dept)", df)
    n, p, levels = 73421, 2, 2972 + 1128 + 14
    assert (est["rows"], est["fixed_columns"], est["group_coefficients"]) == (n, p, levels)
    assert est["design"] == 8 * n * (p + levels + 3)
    assert est["per_draw"] == p + 2 * (levels + 3 + 1)
    assert est["trace"] == 2 * 8 * 4 * 1000 * 10 * est["per_draw"]
    assert est["loglik"] == 2 * 8 * 4 * 1000 * n + 400 * 2**20
    assert est["total"] == est["design"] + est["trace"] + est["loglik"] + 200 * 2**20  # 12 GiB
    slopes = memory_estimate("y ~ 1 + (1 + service | s)", df.assign(service=df["service"].astype(int)),
                             family="bernoulli", draws=10, chains=1, thin=1)
    assert slopes["group_coefficients"] == 2 * 2972
    assert slopes["per_draw"] == 1 + 2 * (2 * 2972 + 2)
    assert slopes["trace"] == 2 * 8 * 10 * slopes["per_draw"]


def test_too_large_model_is_refused_before_it_is_built(monkeypatch):
    df = _insteval()
    formula = "y ~ service + (1 | s) + (1 | d) + (1 | dept)"
    gib = 1024.0**3
    assert 11.5 * gib < memory_estimate(formula, df)["total"] < 12.5 * gib
    monkeypatch.setattr(brm_module, "available_memory", lambda: 4 * gib)

    def no_build(*args, **kwargs):
        raise AssertionError("bambi.Model was built")

    monkeypatch.setattr("bambi.Model", no_build)
    with pytest.raises(ValueError, match=r"needs about 12\.\d GiB of memory, but only 4\.0 GiB "
                       r"is available.*73421 rows, 4114 group-level.*fewer draws, chains or "
                       r"thin.*draws=\d+ with chains=4 would fit.*stats\.lmer"):
        brm(formula, df)
    assert memory_estimate(formula, df, draws=100)["total"] < 4 * gib
    with pytest.raises(AssertionError, match="was built"):  # fewer draws: accepted, built
        brm(formula, df, draws=100)
    with pytest.raises(AssertionError, match="was built"):
        brm(formula, df, check_memory=False)


def test_available_memory_reads_the_system():
    avail = brm_module.available_memory()
    assert 0 < avail < np.inf


@pytest.mark.parametrize("formula", ["y ~ log(x) + (1 | g)", "y ~ x + offset(x) + (1 | g)",
                                     "log(y) ~ x + (1 | g)", "y ~ factor(x) + (1 | g)"])
def test_brm_refuses_transforms_it_would_read_otherwise(formula):
    """bambi's own formula parser reads R's transforms its own way or fails deep inside;
    brm says so before anything is built."""
    df = pd.DataFrame({"y": [1.0, 2, 3, 4, 5, 6], "x": [1, 2, 3, 4, 5, 6], "g": list("aabbcc")})
    with pytest.raises(ValueError, match="brm fits plain columns"):
        brm(formula, df)
    with pytest.raises(ValueError, match="brm fits plain columns"):
        memory_estimate(formula, df)
