"""stats.lmer against lme4 on LI-Adger, lme4 formula parsing, anova, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from acceptability.stats.formula import parse_formula
from acceptability.stats.judgment_models import SENTENCE_FORMULA, sentence_model_frame
from acceptability.stats.lmer import SingularFitWarning, anova, lmer

# lme4 1.1.31 (R 4.2, Debian r-cran-lme4), produced by benchmarks/lme4_reference.R on the
# frame of stats.judgment_models.sentence_model_frame(load_li_adger(), load_li_adger_scores(),
# model="bert-large-cased_mlm") written to CSV (4178 rows, 2 with missing human dropped):
#   lmer(human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id), REML = TRUE)
# ML numbers: the same model and the intercept-only model with REML = FALSE and
# lmerControl(optimizer = "bobyqa"); lme4's default nloptwrap stops early on this ML fit
# (logLik -1940.275243, theta on the boundary), bobyqa and statsmodels agree on the optimum.
R_FIXEF = {"(Intercept)": -3.844070116e-03, "score": 1.147028355e-01}
R_SE = {"(Intercept)": 2.965906323e-02, "score": 1.004707030e-02}
R_VCOV = {  # as.data.frame(VarCorr(m))$vcov
    ("phenomenon:type_id", "(Intercept)", None): 4.423061703e-01,
    ("phenomenon", "(Intercept)", None): 4.379898651e-04,
    ("phenomenon", "score", None): 7.015365819e-03,
    ("phenomenon", "(Intercept)", "score"): -1.752900205e-03,
    ("Residual", None, None): 9.170239202e-02,
}
R_LOGLIK_REML = -1946.385194
R_LOGLIK_ML = -1940.101788
R_LOGLIK_ML_NULL = -1993.663667  # human ~ 1 + (1 + score | phenomenon) + (1 | phenomenon:type_id)
R_CHISQ = 107.12376  # anova(m0, m1) of the two ML (bobyqa) fits
# confint(m, method = "Wald") of the REML fit:
R_WALD = {"(Intercept)": (-0.06197401897, 0.05428611408), "score": (0.09501150013, 0.13439535110)}


@pytest.fixture(scope="module")
def frame(li_adger, li_adger_scores) -> pd.DataFrame:
    return sentence_model_frame(li_adger, li_adger_scores, model="bert-large-cased_mlm")


@pytest.fixture(scope="module")
def fit(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        return lmer(SENTENCE_FORMULA, frame)


def test_lmer_matches_lme4_on_li_adger(fit):
    assert fit.nobs == 4176 and fit.n_dropped == 2
    for name, value in R_FIXEF.items():
        assert fit.fixef[name] == pytest.approx(value, abs=1e-3)
        assert fit.se[name] == pytest.approx(R_SE[name], abs=1e-3)
    vc = fit.VarCorr
    for (grp, v1, v2), value in R_VCOV.items():
        row = vc[(vc.grp == grp) & (vc.var1.fillna("") == (v1 or "")) & (vc.var2.fillna("") == (v2 or ""))]
        assert len(row) == 1
        assert row.vcov.iloc[0] == pytest.approx(value, abs=1e-3)
    assert fit.logLik == pytest.approx(R_LOGLIK_REML, abs=0.01)
    wald = fit.confint()
    for name, (lo, hi) in R_WALD.items():
        assert wald.loc[name].to_numpy() == pytest.approx([lo, hi], abs=1e-3)
    assert wald.loc["sigma"].isna().all()
    # lme4 reports this fit as singular (correlation -1); so must we, not hide it
    assert fit.singular
    assert "singular" in fit.summary()


def test_anova_refits_with_ml_like_lme4(frame, fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        m0 = lmer("human ~ 1 + (1 + score | phenomenon) + (1 | phenomenon:type_id)", frame)
        table = anova(m0, fit)
    assert table.attrs["refitted_ml"]
    assert table["logLik"].to_numpy() == pytest.approx([R_LOGLIK_ML_NULL, R_LOGLIK_ML], abs=0.01)
    assert table["Chisq"].iloc[1] == pytest.approx(R_CHISQ, abs=0.02)
    assert table["Df"].iloc[1] == 1 and table["Pr(>Chisq)"].iloc[1] < 1e-20
    assert list(table["npar"]) == [6, 7]


def test_summary_layout_and_accessors(fit):
    text = fit.summary()
    for part in ("Linear mixed model fit by REML", "REML criterion at convergence: 3892.8",
                 "Scaled residuals:", "Random effects:", "phenomenon:type_id", "Residual",
                 "Number of obs: 4176, groups:  phenomenon:type_id, 522; phenomenon, 236",
                 "Fixed effects:", "Correlation of Fixed Effects:",
                 "Rows dropped for missing values: 2"):
        assert part in text
    ranef = fit.ranef
    assert ranef["phenomenon"].shape == (236, 2)
    assert ranef["phenomenon:type_id"].shape == (522, 1)
    assert fit.npar == 7
    assert np.isclose(fit.AIC, -2 * fit.logLik + 14)
    assert np.isclose(fit.BIC, -2 * fit.logLik + 7 * np.log(4176))
    # conditional predictions + residuals give back the data; new levels get population level
    assert np.allclose(fit.predict() + fit.residuals, fit.frame["human"])
    new = fit.frame.head(3).assign(phenomenon="unseen", type_id="unseen")
    assert np.allclose(fit.predict(new), fit.predict(new, re_form="~0"))


# --- synthetic data --------------------------------------------------------------------

def _nested(seed: int = 1, n_g: int = 12, n_h: int = 4, n: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(n_g), n_h * n)
    h = np.tile(np.repeat(np.arange(n_h), n), n_g)
    x = rng.normal(size=g.size)
    y = (1 + 0.5 * x + rng.normal(0, 1, n_g)[g] + rng.normal(0, 0.5, n_g)[g] * x
         + rng.normal(0, 0.7, (n_g, n_h))[g, h] + rng.normal(0, 0.5, g.size))
    return pd.DataFrame({"y": y, "x": x, "g": [f"g{i}" for i in g], "h": [f"h{i}" for i in h]})


def test_parse_formula_expands_nesting_and_double_bar():
    f = parse_formula("y ~ x + (1 + x || g) + (1 | g/h) + (0 + x | g:h)")
    assert f.fixed_formula == "y ~ x"
    assert [str(t) for t in f.random] == [
        "(1 | g)", "(0 + x | g)", "(1 | g)", "(1 | g:h)", "(0 + x | g:h)"]
    assert f.columns() == ["y", "x", "g", "h"]


def test_nested_slash_equals_explicit_interaction():
    df = _nested()
    a = lmer("y ~ x + (1 | g/h)", df)
    b = lmer("y ~ x + (1 | g) + (1 | g:h)", df)
    assert a.logLik == pytest.approx(b.logLik)
    assert set(a.ranef) == {"g", "g:h"} and a.ranef["g:h"].shape == (48, 1)


def test_uncorrelated_slope_and_no_intercept_terms():
    df = _nested()
    m = lmer("y ~ x + (1 | g) + (0 + x | g) + (1 | g:h)", df)
    assert set(m.VarCorr.var1.dropna()) == {"(Intercept)", "x"}
    assert m.VarCorr.var2.isna().all()  # no correlation estimated
    assert m.npar == 3 + 3  # 2 fixed + 3 variances + sigma
    assert list(m.ranef["g"].columns) == ["(Intercept)", "x"]
    m2 = lmer("y ~ x + (0 + x | g)", df)
    assert list(m2.ranef["g"].columns) == ["x"]


def test_bootstrap_confint_covers_estimates():
    df = _nested()
    m = lmer("y ~ x + (1 | g)", df)
    ci = m.confint(method="boot", nsim=20, seed=1)
    est = m.params()
    assert list(ci.index) == list(est.index)
    assert ((ci.iloc[:, 0] <= est) & (est <= ci.iloc[:, 1])).all()


def test_anova_refits_every_reml_fit_like_lme4():
    df = _nested()
    m1 = lmer("y ~ x + (1 | g)", df)
    m2 = lmer("y ~ x + (1 | g) + (1 | g:h)", df)
    table = anova(m2, m1)
    assert table.attrs["refitted_ml"]  # lme4's anova.merMod(refit=TRUE) refits every REML fit
    assert list(table.index) == ["m1", "m0"]  # ordered by npar
    assert anova(m1, m2, refit=False)["logLik"].iloc[0] == pytest.approx(m1.logLik)


# --- bad input -------------------------------------------------------------------------

def test_unknown_column_names_the_term():
    df = _nested()
    with pytest.raises(KeyError, match="unknown column 'z' in formula term"):
        lmer("y ~ z + (1 | g)", df)
    with pytest.raises(KeyError, match=r"'k'.*\(1 \| k\)"):
        lmer("y ~ x + (1 | k)", df)


def test_one_level_grouping_factor():
    df = _nested().assign(g="only")
    with pytest.raises(ValueError, match=r"grouping factor 'g' in \(1 \| g\) has 1 level"):
        lmer("y ~ x + (1 | g)", df)


def test_nan_rows_dropped_and_counted():
    df = _nested()
    df.loc[[0, 5], "y"] = np.nan
    df.loc[7, "x"] = np.nan
    df.loc[9, "h"] = None  # unused column: row kept
    m = lmer("y ~ x + (1 | g)", df)
    assert m.n_dropped == 3 and m.nobs == len(df) - 3
    assert "Rows dropped for missing values: 3" in m.summary()


def test_crossed_effects_point_to_brm():
    df = _nested()
    with pytest.raises(ValueError, match=r"crossed.*use stats\.brm"):
        lmer("y ~ x + (1 | g) + (1 | h)", df)


def test_correlated_nested_term_is_refused_with_fix():
    df = _nested()
    with pytest.raises(ValueError, match=r"\(1 \+ x \|\| g:h\)"):
        lmer("y ~ x + (1 | g) + (1 + x | g:h)", df)


def test_no_random_effects():
    with pytest.raises(ValueError, match="no random-effects term"):
        lmer("y ~ x", _nested())


def test_singular_fit_is_reported():
    df = _nested()
    df["y"] = 1 + 0.5 * df["x"] + np.random.default_rng(0).normal(0, 1, len(df))
    with pytest.warns(SingularFitWarning):
        m = lmer("y ~ x + (1 | g)", df)
    assert m.singular and "singular" in m.summary()
