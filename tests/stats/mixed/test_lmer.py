"""stats.lmer against lme4 on LI-Adger and on a synthetic nested design; lme4 formula
parsing, anova, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed.formula import parse_formula
from acceptability.stats.mixed.lmm.lmer import lmer
from acceptability.stats.mixed.mer import SingularFitWarning, anova
from acceptability.stats.ratings.judgment import SENTENCE_FORMULA, sentence_model_frame
from tests.conftest import (
    LME4_TOL,
    assert_anova_matches_lme4,
    assert_matches_lme4,
    lme4_reference,
)


@pytest.fixture(scope="module")
def frame(li_adger, li_adger_scores) -> pd.DataFrame:
    return sentence_model_frame(li_adger, li_adger_scores, model="bert-large-cased_mlm")


@pytest.fixture(scope="module")
def fit(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        return lmer(SENTENCE_FORMULA, frame)


def test_lmer_matches_lme4_on_li_adger(fit):
    assert fit.n_dropped == 2
    assert_matches_lme4(fit, "sentence|REML|")
    r = lme4_reference("sentence|REML|")
    wald = fit.confint(method="Wald")
    for name in fit.fixef.index:
        assert wald.loc[name].to_numpy() == pytest.approx(
            [r[f"wald|{name}|lower"], r[f"wald|{name}|upper"]], abs=LME4_TOL)
    assert wald.loc["sigma"].isna().all()
    # lme4 reports this fit as singular (correlation -1); so must we, not hide it
    assert r["singular"] == 1 and fit.singular
    assert "singular" in fit.summary()


def test_ml_refit_matches_lme4(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        assert_matches_lme4(fit.refit_ml(), "sentence|ML|")


def test_anova_refits_with_ml_like_lme4(frame, fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        m0 = lmer("human ~ 1 + (1 + score | phenomenon) + (1 | phenomenon:type_id)", frame)
        table = anova(m0, fit)
    assert table.attrs["refitted_ml"]
    assert_anova_matches_lme4(table, "sentence|anova|")
    assert table["Pr(>Chisq)"].iloc[1] < 1e-20
    assert list(table["npar"]) == [6, 7]


def test_summary_layout_and_accessors(fit):
    text = str(fit.summary())
    criterion = lme4_reference("sentence|REML|")["criterion"]  # lme4's REMLcrit(m)
    for part in ("Linear mixed model fit by REML",
                 f"REML criterion at convergence: {criterion:.1f}",
                 "Scaled residuals:", "Random effects:", "phenomenon:type_id", "Residual",
                 "Number of obs: 4176, groups:  phenomenon:type_id, 522; phenomenon, 236",
                 "Fixed effects:", "Correlation of Fixed Effects:",
                 "Rows dropped for missing values: 2"):
        assert part in text
    ranef = fit.ranef
    assert ranef["phenomenon"].shape == (236, 2)
    assert ranef["phenomenon:type_id"].shape == (522, 1)
    # conditional predictions + residuals give back the data; new levels get population level
    assert np.allclose(fit.predict() + fit.residuals, fit.frame["human"])
    new = fit.frame.head(3).assign(phenomenon="unseen", type_id="unseen")
    with pytest.raises(ValueError, match="allow_new_levels=True"):  # lme4's default
        fit.predict(new)
    assert np.allclose(fit.predict(new, allow_new_levels=True), fit.predict(new, re_form="~0"))


# --- synthetic data --------------------------------------------------------------------

def nested_frame(seed: int = 1, n_g: int = 12, n_h: int = 4, n: int = 6) -> pd.DataFrame:
    """Groups h nested in g, random intercepts and slopes. benchmarks/lme4_frames.py writes
    it for lme4: change it and rerun benchmarks/lme4_reference.R."""
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
    df = nested_frame()
    a = lmer("y ~ x + (1 | g/h)", df)
    b = lmer("y ~ x + (1 | g) + (1 | g:h)", df)
    assert_matches_lme4(a, "nested_gh|REML|", groups={"h:g": "g:h"})
    assert a.logLik == pytest.approx(b.logLik)
    assert set(a.ranef) == {"g", "g:h"} and a.ranef["g:h"].shape == (48, 1)


def test_uncorrelated_slope_and_no_intercept_terms():
    df = nested_frame()
    m = lmer("y ~ x + (1 | g) + (0 + x | g) + (1 | g:h)", df)
    # lme4: y ~ x + (1 + x || g) + (1 | g:h); its terms g:h, x | g, 1 | g are labelled g.h, g
    # and g.1 in VarCorr, and ranef(m)$g has columns x, (Intercept)
    assert_matches_lme4(m, "nested_uncorr|REML|")
    assert list(m.VarCorr.grp) == ["g.h", "g", "g.1", "Residual"]
    assert m.VarCorr.var2.isna().all()  # no correlation estimated
    assert list(m.ranef["g"].columns) == ["x", "(Intercept)"]
    m2 = lmer("y ~ x + (0 + x | g)", df)
    assert list(m2.ranef["g"].columns) == ["x"]


def test_bootstrap_confint_covers_estimates():
    df = nested_frame()
    m = lmer("y ~ x + (1 | g)", df)
    ci = m.confint(method="boot", nsim=20, seed=1)
    est = m.params()
    assert list(ci.index) == list(est.index)
    assert ((ci.iloc[:, 0] <= est) & (est <= ci.iloc[:, 1])).all()


def test_anova_refits_every_reml_fit_like_lme4():
    df = nested_frame()
    m1 = lmer("y ~ x + (1 | g)", df)
    m2 = lmer("y ~ x + (1 | g) + (1 | g:h)", df)
    assert_matches_lme4(m1, "nested_g|REML|")
    table = anova(m2, m1)
    assert table.attrs["refitted_ml"]  # lme4's anova.merMod(refit=TRUE) refits every REML fit
    assert list(table.index) == ["m1", "m0"]  # ordered by npar
    assert_anova_matches_lme4(table, "nested|anova|")
    reml = lme4_reference("nested_g|REML|")["logLik"]
    assert anova(m1, m2, refit=False)["logLik"].iloc[0] == pytest.approx(reml, abs=LME4_TOL)


# --- bad input -------------------------------------------------------------------------

def test_unknown_column_names_the_term():
    df = nested_frame()
    with pytest.raises(KeyError, match="unknown column 'z' in formula term"):
        lmer("y ~ z + (1 | g)", df)
    with pytest.raises(KeyError, match=r"'k'.*\(1 \| k\)"):
        lmer("y ~ x + (1 | k)", df)


def test_one_level_grouping_factor():
    df = nested_frame().assign(g="only")
    with pytest.raises(ValueError, match=r"grouping factor 'g' in \(1 \| g\) has 1 level"):
        lmer("y ~ x + (1 | g)", df)


def test_nan_rows_dropped_and_counted():
    df = nested_frame()
    df.loc[[0, 5], "y"] = np.nan
    df.loc[7, "x"] = np.nan
    df.loc[9, "h"] = None  # unused column: row kept
    m = lmer("y ~ x + (1 | g)", df)
    assert m.n_dropped == 3 and m.nobs == len(df) - 3
    assert "Rows dropped for missing values: 3" in m.summary()


def test_crossed_and_correlated_nested_terms_fit():
    df = nested_frame()
    crossed = lmer("y ~ x + (1 | g) + (1 | h)", df)
    assert set(crossed.ngrps.index) == {"g", "h"} and crossed.engine.startswith("glmm")
    nested = lmer("y ~ x + (1 | g) + (1 + x | g:h)", df)
    assert len(nested.VarCorr) == 5  # g, g:h intercept, g:h slope, their correlation, residual


def test_no_random_effects():
    with pytest.raises(ValueError, match="no random-effects term"):
        lmer("y ~ x", nested_frame())


def test_singular_fit_is_reported():
    df = nested_frame()
    noise = pd.Series(np.random.default_rng(0).normal(0, 1, len(df)))
    df["y"] = 1 + 0.5 * df["x"] + noise - noise.groupby(df["g"]).transform("mean")  # no g effect
    with pytest.warns(SingularFitWarning):
        m = lmer("y ~ x + (1 | g)", df)
    assert m.singular and "singular" in m.summary()
