"""stats.lmer / stats.glmer against lme4 1.1-31, lmerTest and glmmTMB on lme4's canonical
data sets and on the package's judgment models (issue 12). Every number on the R side is
in tests/fixtures/lme4_reference.csv, written by benchmarks/lme4_reference.R.

Linear models: fixed effects, SEs, variance components (also relative) and logLik within
1e-4. GLMMs (Laplace): lme4's optimum is approximate, so our logLik must be at least
lme4's minus 1e-3 and the fixed effects within 0.1 of lme4's SE; glmmTMB's optimum is
exact, and ours equals it to 1e-4.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from tests.conftest import LME4_TOL, assert_anova_matches_lme4, assert_matches_lme4, lme4_reference
from tests.lme4_data import lme4_data


def quiet(fit, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # singular fits are asserted where lme4 reports them
        return fit(*args, **kwargs)


@pytest.fixture(scope="module")
def sleep_corr():
    return quiet(stats.lmer, "Reaction ~ Days + (Days | Subject)", lme4_data("sleepstudy"))


@pytest.fixture(scope="module")
def sleep_uncorr():
    return quiet(stats.lmer, "Reaction ~ Days + (Days || Subject)", lme4_data("sleepstudy"))


@pytest.fixture(scope="module")
def penicillin():
    return quiet(stats.lmer, "diameter ~ 1 + (1 | plate) + (1 | sample)", lme4_data("penicillin"))


@pytest.fixture(scope="module")
def pastes():
    return quiet(stats.lmer, "strength ~ 1 + (1 | batch/cask)", lme4_data("pastes"))


def assert_singular_like_lme4(m, prefix: str) -> None:
    assert m.singular == bool(lme4_reference(prefix)["singular"]), prefix


def assert_satterthwaite(m, prefix: str) -> None:
    r = lme4_reference(prefix)
    table = m.coefficients
    for name in m.fixef.index:
        assert table.loc[name, "df"] == pytest.approx(r[f"satt_df|{name}"], rel=1e-4), name
        assert table.loc[name, "Pr(>|t|)"] == pytest.approx(r[f"satt_p|{name}"], rel=1e-3, abs=1e-12), name


def assert_profile(m, prefix: str, sig_names: list[str]) -> None:
    """lme4's profile rows .sig01... are ``sig_names`` (our ``params`` names), then .sigma."""
    r = lme4_reference(prefix)
    ci = m.confint()  # method="profile", lme4's default
    lme4_names = [f".sig{i + 1:02d}" for i in range(len(sig_names))] + [".sigma", *m.fixef.index]
    ours = [*sig_names, "sigma", *m.fixef.index]
    for theirs, name in zip(lme4_names, ours, strict=True):
        for col, side in zip(ci.columns, ("lower", "upper"), strict=True):
            assert ci.loc[name, col] == pytest.approx(r[f"profile|{theirs}|{side}"], rel=2e-4, abs=2e-4), \
                (name, side)


def test_sleepstudy_correlated_slopes(sleep_corr):
    m = sleep_corr
    assert_matches_lme4(m, "sleepstudy|corr|")
    assert_singular_like_lme4(m, "sleepstudy|corr|")
    assert_satterthwaite(m, "sleepstudy|corr|")


def test_sleepstudy_profile_intervals(sleep_corr):
    assert_profile(sleep_corr, "sleepstudy|corr|",
                   ["sd_(Intercept)|Subject", "cor_Days.(Intercept)|Subject", "sd_Days|Subject"])


def test_sleepstudy_ranef_condvar_and_predict(sleep_corr):
    m, r = sleep_corr, lme4_reference("sleepstudy|corr|")
    re = m.ranef_frame().set_index(["grp", "term"])
    var = m.condvar()["(1 + Days | Subject)"]
    levels = list(m.ranef["Subject"].index)
    for lev in ("308", "309", "310"):
        for term in ("(Intercept)", "Days"):
            assert re.loc[(lev, term), "condval"] == pytest.approx(r[f"ranef|Subject|{lev}|{term}"], abs=LME4_TOL)
        block = var[levels.index(lev)]
        for (i, a), (j, b) in [((0, "(Intercept)"), (0, "(Intercept)")), ((0, "(Intercept)"), (1, "Days")),
                               ((1, "Days"), (1, "Days"))]:
            assert block[i, j] == pytest.approx(r[f"condvar|Subject|{lev}|{a}|{b}"], rel=1e-4)
    rows = [1, 2, 11, 180]  # R's 1-based rows
    assert m.predict().iloc[[i - 1 for i in rows]].to_numpy() == pytest.approx(
        [r[f"predict|{i}"] for i in rows], abs=LME4_TOL)
    assert m.predict(re_form="~0").iloc[[i - 1 for i in rows]].to_numpy() == pytest.approx(
        [r[f"predict_fixed|{i}"] for i in rows], abs=LME4_TOL)
    new = pd.DataFrame({"Subject": ["308", "308", "999", "999"], "Days": [0, 5.5, 0, 5.5]})
    expected = [r[f"predict_new|{s}|{d:g}"] for s, d in zip(new.Subject, new.Days, strict=True)]
    assert m.predict(new, allow_new_levels=True).to_numpy() == pytest.approx(expected, abs=LME4_TOL)


def test_sleepstudy_uncorrelated_and_no_intercept_terms(sleep_corr, sleep_uncorr):
    assert_matches_lme4(sleep_uncorr, "sleepstudy|uncorr|")
    explicit = quiet(stats.lmer, "Reaction ~ Days + (1 | Subject) + (0 + Days | Subject)",
                     lme4_data("sleepstudy"))
    assert_matches_lme4(explicit, "sleepstudy|nointercept|")
    table = stats.anova(sleep_uncorr, sleep_corr)
    assert_anova_matches_lme4(table, "sleepstudy|anova|")


def test_sleepstudy_uncorrelated_profile(sleep_uncorr):
    assert_profile(sleep_uncorr, "sleepstudy|uncorr|", ["sd_(Intercept)|Subject", "sd_Days|Subject"])


def test_penicillin_crossed(penicillin):
    assert_matches_lme4(penicillin, "penicillin|")
    assert_singular_like_lme4(penicillin, "penicillin|")
    assert_satterthwaite(penicillin, "penicillin|")
    assert_profile(penicillin, "penicillin|", ["sd_(Intercept)|plate", "sd_(Intercept)|sample"])
    r = lme4_reference("penicillin|")
    re = penicillin.ranef_frame().set_index(["grpvar", "grp"])
    for grp, lev in (("plate", "a"), ("sample", "A")):
        assert re.loc[(grp, lev), "condval"] == pytest.approx(r[f"ranef|{grp}|{lev}|(Intercept)"], abs=LME4_TOL)
        assert re.loc[(grp, lev), "condsd"] ** 2 == pytest.approx(
            r[f"condvar|{grp}|{lev}|(Intercept)|(Intercept)"], rel=1e-4)


def test_pastes_nested(pastes):
    assert_matches_lme4(pastes, "pastes|", groups={"cask:batch": "batch:cask"})
    assert_singular_like_lme4(pastes, "pastes|")
    assert_satterthwaite(pastes, "pastes|")
    assert_profile(pastes, "pastes|", ["sd_(Intercept)|batch:cask", "sd_(Intercept)|batch"])


def test_insteval_crossed_73k_rows():
    m = quiet(stats.lmer, "y ~ service + (1 | s) + (1 | d)", lme4_data("insteval"))
    assert m.nobs == 73421 and dict(m.ngrps) == {"s": 2972, "d": 1128}
    assert_matches_lme4(m, "insteval|")


def test_li_adger_sentence_and_pair_satterthwaite(li_adger, li_adger_scores):
    sentence = quiet(stats.sentence_model, li_adger, li_adger_scores, model="bert-large-cased_mlm")
    assert_satterthwaite(sentence, "sentence|REML|")
    pair = quiet(stats.pair_model, li_adger, li_adger_scores, model="bert-large-cased_mlm")
    assert_satterthwaite(pair, "pair|REML|")
    assert_profile(pair, "pair|REML|", ["sd_(Intercept)|phenomenon"])


def assert_glmm(m, prefix: str, tmb: str | None, loglik: str = "logLik") -> None:
    """Laplace GLMM: logLik >= lme4's - 1e-3, fixed effects within 0.1 lme4 SE; equal to
    glmmTMB's optimum (logLik and fixed effects 1e-4, variances 1e-3 relative)."""
    r = lme4_reference(prefix)
    assert m.logLik >= r[loglik] - 1e-3
    for name in m.fixef.index:
        assert abs(m.fixef[name] - r[f"fixef|{name}"]) <= 0.1 * r[f"se|{name}"], name
    assert dict(m.ngrps) == {k[6:]: v for k, v in r.items() if k.startswith("ngrps|")}
    if tmb is None:
        return
    t = lme4_reference(tmb)
    assert m.logLik == pytest.approx(t["logLik"], abs=1e-4)
    for name in m.fixef.index:
        assert m.fixef[name] == pytest.approx(t[f"fixef|{name}"], abs=1e-4), name
        assert m.se[name] == pytest.approx(t[f"se|{name}"], rel=1e-3), name
    for row in m.VarCorr.itertuples():
        assert row.vcov == pytest.approx(t[f"vcov|{row.grp}|{row.var1}|"], rel=1e-3), row.grp
    assert m.npar == t["npar"]
    aic = m.AIC
    assert aic == pytest.approx(t["AIC"], abs=1e-3)


def test_cbpp_binomial_laplace_and_agq():
    cbpp = lme4_data("cbpp")
    m = stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)
    assert_glmm(m, "cbpp|laplace|", "cbpp|tmb|")
    assert m.engine.startswith("glmm") and m.provenance["nAGQ"] == 1
    r = lme4_reference("cbpp|laplace|")
    re = m.ranef_frame().set_index("grp")
    for lev in ("1", "2"):
        assert re.loc[lev, "condval"] == pytest.approx(r[f"ranef|herd|{lev}|(Intercept)"], abs=1e-3)
        assert re.loc[lev, "condsd"] ** 2 == pytest.approx(r[f"condvar|herd|{lev}|(Intercept)|(Intercept)"], rel=1e-2)
    agq = stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp, nAGQ=9)
    # lme4 prints nAGQ > 1 logLiks on another scale (lme4 issues #161, #567); the reference
    # integrates the marginal likelihood at lme4's estimates numerically instead
    assert_glmm(agq, "cbpp|agq9|", None, loglik="logLik_integrate")
    assert agq.logLik == pytest.approx(lme4_reference("cbpp|agq9|")["logLik_integrate"], abs=1e-4)


def test_cbpp_poisson_and_glmer_bootstrap():
    cbpp = lme4_data("cbpp")
    m = stats.glmer("incidence ~ period + (1 | herd)", cbpp, family="poisson")
    assert_glmm(m, "cbpp|poisson|", "cbpp|poisson_tmb|")
    assert m.predict(type="response").to_numpy() == pytest.approx(np.exp(m.predict().to_numpy()))
    b = stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)
    ci = b.confint(method="boot", nsim=30, seed=1)
    assert list(ci.index) == list(b.params().index) == ["sd_(Intercept)|herd", *b.fixef.index]
    inside = (ci.iloc[:, 0] <= b.params()) & (b.params() <= ci.iloc[:, 1])
    assert inside.all()


def test_blimp_forced_choice_crossed_glmm(blimp_fc_frame):
    m = quiet(stats.glmer, stats.FC_FORMULA, blimp_fc_frame)
    assert_glmm(m, "fc|laplace|", "fc|tmb|")
    gf = quiet(stats.glmer, "chose_good ~ dlm + good_first + (1 | participant) + (1 | pair_id) + (1 | paradigm)",
               blimp_fc_frame)
    assert_glmm(gf, "fc_gf|laplace|", None)


def test_parametric_bootstrap_reuses_the_engine(sleep_corr):
    from acceptability.stats.mixed.fitted.parametric import parametric_bootstrap

    one = parametric_bootstrap(sleep_corr, 6, seed=5, n_jobs=1)
    assert one.equals(parametric_bootstrap(sleep_corr, 6, seed=5, n_jobs=2))  # same draws
    ci = sleep_corr.confint(method="boot", nsim=40, seed=2)
    est = sleep_corr.params()
    assert list(ci.index) == list(est.index)
    inside = (ci.iloc[:, 0] <= est) & (est <= ci.iloc[:, 1])
    assert inside.drop("cor_Days.(Intercept)|Subject").all()
    assert np.isfinite(ci.to_numpy()).all()
