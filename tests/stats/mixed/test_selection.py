"""lmerTest's ranova, drop1 and step, and lme4's isSingular, against R (lmerTest 3.1-3, lme4
1.1-31: benchmarks/selection_reference.R) on lmerTest's ham and lme4's sleepstudy."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import stats
from acceptability.stats.mixed.fitted import selection
from tests.lme4_data import lme4_data
from tests.stats.mixed.selection_data import quiet, reference, reference_text

HAM3 = ("Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer) + "
        "(1 | Information:Consumer)")
FORMULAS = {
    "ham3": ("ham", HAM3, True),
    "hamadd": ("ham", "Informed.liking ~ Product*Information + Gender + Age + (1 | Consumer)", True),
    "ss": ("sleepstudy", "Reaction ~ Days + (Days | Subject)", True),
    "ssml": ("sleepstudy", "Reaction ~ Days + (Days | Subject)", False),
    "ss1": ("sleepstudy", "Reaction ~ Days + (1 | Subject)", True),
    "hamsing": ("ham", "Informed.liking ~ Product*Information*Gender + (1 | Consumer) + "
                "(1 | Information:Consumer)", True),
}


@functools.cache
def fitted(name: str) -> stats.LmerResult:
    data, formula, reml = FORMULAS[name]
    return quiet(stats.lmer, formula, lme4_data(data), REML=reml)


def assert_table(ours: pd.DataFrame, r: pd.DataFrame) -> None:
    """Same rows and columns; counts exact, estimates and statistics 1e-4 relative (1e-6 of
    a log-likelihood), df and p values 1e-3 relative."""
    assert list(ours.index) == list(r.index)
    assert list(ours.columns) == list(r.columns)
    for col in r.columns:
        a, b = ours[col].to_numpy(float), r[col].to_numpy(float)
        assert np.array_equal(np.isnan(a), np.isnan(b)), col
        ok = ~np.isnan(b)
        if col in ("npar", "NumDF", "Eliminated"):
            assert np.array_equal(a[ok], b[ok]), col
        elif col in ("logLik", "AIC"):
            assert np.allclose(a[ok], b[ok], rtol=0, atol=1e-6 * np.abs(b[ok]).max()), col
        else:
            rtol = 1e-3 if col in ("DenDF", "Df", "Pr(>Chisq)", "Pr(>F)") else 1e-4
            assert np.allclose(a[ok], b[ok], rtol=rtol, atol=1e-12), (col, a[ok] / b[ok] - 1)


@pytest.mark.parametrize("name", ["ham3", "ss", "ssml", "ss1"])
def test_ranova_matches_lmertest(name):
    assert_table(fitted(name).ranova(), reference(name, "ranova"))


def test_ranova_recomputed_from_its_refits():
    """The joint: each row's LRT and p from the two models' log-likelihoods, the reduced
    model refitted here from its formula; the lm row's REML log-likelihood by hand."""
    m = fitted("ss")
    table = m.ranova()
    row = "Days in (Days | Subject)"
    assert table.attrs["formulae"][row] == "Reaction ~ Days + (1 | Subject)"
    reduced = quiet(stats.lmer, "Reaction ~ Days + (1 | Subject)", lme4_data("sleepstudy"))
    lrt = 2 * (m.logLik - reduced.logLik)
    assert table.loc[row, "LRT"] == pytest.approx(lrt, rel=1e-9)
    assert table.loc[row, "Pr(>Chisq)"] == pytest.approx(sps.chi2.sf(lrt, 2), rel=1e-9)
    x, y = fitted("ss1").design.X, fitted("ss1").design.y
    n, p = x.shape
    rss = np.sum((y - x @ np.linalg.lstsq(x, y, rcond=None)[0]) ** 2)
    s2 = rss / (n - p)  # REML: -1/2 [(n - p) log(2 pi s2) + log|X'X| + (n - p)]
    reml = -0.5 * ((n - p) * np.log(2 * np.pi * s2) + np.linalg.slogdet(x.T @ x)[1] + (n - p))
    assert fitted("ss1").ranova().loc["(1 | Subject)", "logLik"] == pytest.approx(reml, rel=1e-12)


def test_ranova_whole_terms():
    """reduce_terms=False removes (Days | Subject) whole: the model left is lm's, R's
    ``(1 | Subject)`` row of ss1 (the same lm)."""
    table = fitted("ss").ranova(reduce_terms=False)
    assert list(table.index) == ["<none>", "(Days | Subject)"]
    lm = reference("ss1", "ranova").loc["(1 | Subject)"]
    assert table.loc["(Days | Subject)", "logLik"] == pytest.approx(lm["logLik"], rel=1e-9)
    assert table.loc["(Days | Subject)", "Df"] == 3


@pytest.mark.parametrize("name", ["ham3", "hamadd"])
@pytest.mark.parametrize("ddf", ["Satterthwaite", "Kenward-Roger"])
def test_drop1_matches_lmertest(name, ddf):
    assert_table(fitted(name).drop1(ddf=ddf), reference(name, f"drop1_{ddf}"))


def test_drop1_is_the_f_test_of_the_terms_coefficients():
    """hamadd's Age row: one coefficient, so F = t^2 of lmerTest's coefficient table."""
    m = fitted("hamadd")
    row = m.drop1().loc["Age"]
    assert row["F value"] == pytest.approx(m.coefficients.loc["Age", "t value"] ** 2, rel=1e-10)
    assert row["DenDF"] == pytest.approx(m.coefficients.loc["Age", "df"], rel=1e-10)
    assert set(m.drop1().index) == {"Gender", "Age", "Product:Information"}  # the marginal terms


@pytest.mark.parametrize("name", ["ham3", "ss"])
def test_step_matches_lmertest(name):
    result = fitted(name).step()
    assert_table(result.random, reference(name, "step_random"))
    assert_table(result.fixed, reference(name, "step_fixed"))
    assert result.formula == reference_text(name, "step_model")
    assert result.model.logLik == pytest.approx(reference(name, "step_model").iloc[0, 0], abs=1e-6)


def test_step_keep_and_no_reduction():
    result = fitted("ham3").step(keep=["Gender"], reduce_random=False)
    assert "Gender" in result.fixed.index and result.fixed.loc["Gender", "Eliminated"] == 0
    assert (result.random["Eliminated"].fillna(0) == 0).all()
    none = fitted("ss").step(reduce_fixed=False, reduce_random=False)
    assert none.formula == "Reaction ~ Days + (Days | Subject)"
    with pytest.raises(ValueError, match="not fixed terms"):
        fitted("ss").step(keep=["Age"])


@pytest.mark.parametrize("name", ["ss", "hamsing"])
@pytest.mark.parametrize("tol", [1e-4, 0.5])
def test_is_singular_matches_lme4(name, tol):
    r = reference(name, "isSingular").loc[format(tol).replace("0.0001", "1e-04"), "value"]
    assert fitted(name).isSingular(tol) is bool(r)
    assert fitted(name).isSingular() is fitted(name).singular


def test_selection_refuses_what_it_cannot_test():
    g = quiet(stats.glmer, "cbind(incidence, size - incidence) ~ period + (1 | herd)", lme4_data("cbpp"))
    for f in (selection.ranova, selection.drop1, selection.step):
        with pytest.raises(ValueError, match="linear mixed models fitted by lmer"):
            f(g)
    with pytest.raises(ValueError, match="tol="):
        fitted("ss").isSingular(-1)
