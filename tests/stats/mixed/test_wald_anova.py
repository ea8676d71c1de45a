"""car::Anova's Wald chi-square tables (types II and III) of glmer fits, against R (car 3.1-1:
benchmarks/selection_reference.R) on grouseticks (poisson, a factor x numeric interaction),
the aggregated VerbAgg (binomial, two factors and their interaction) and cbpp.

car runs on both lme4's and glmmTMB's fits: the package's glmer fits are glmmTMB's optimum
(its logLik to 1e-5; lme4's optimum and finite-difference vcov are ~1e-3 off, which moves
lme4's chi-squares by up to 2%), so the tables are compared with car on glmmTMB, and the
machinery itself with car on lme4 at lme4's own estimates and vcov."""

from __future__ import annotations

import functools
import types

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed.fitted.wald import wald_anova
from tests.lme4_data import lme4_data
from tests.stats.mixed.selection_data import quiet, reference

MODELS = {
    "ticks": ("grouseticks", "TICKS ~ YEAR * cHEIGHT + (1 | LOCATION)", "poisson"),
    "verbagg": ("verbagg_agg", "cbind(yes, no) ~ Gender * btype + situ + (1 | id)", "binomial"),
    "cbpp": ("cbpp", "cbind(incidence, size - incidence) ~ period + (1 | herd)", "binomial"),
}


@functools.cache
def fitted(name: str) -> stats.GlmerResult:
    data, formula, family = MODELS[name]
    return quiet(stats.glmer, formula, lme4_data(data), family=family)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("kind", ["II", "III"])
def test_anova_matches_car_on_glmmtmb(name, kind):
    m = fitted(name)
    assert m.logLik == pytest.approx(reference(name, "logLik_tmb").iloc[0, 0], abs=1e-5)
    ours, r = m.Anova(type=kind), reference(name, f"AnovaTMB_{kind}")
    assert list(ours.index) == list(r.index) and list(ours.columns) == list(r.columns)
    assert np.array_equal(ours["Df"], r["Df"])
    assert np.allclose(ours["Chisq"], r["Chisq"], rtol=1e-3)
    # p: to 1e-3 of its log (p runs to 1e-158: a chi-square 1e-3 off moves it by 4e-3 relative)
    assert np.allclose(np.log(ours["Pr(>Chisq)"]), np.log(r["Pr(>Chisq)"]), rtol=1e-3)


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize("kind", ["II", "III"])
def test_anova_at_lme4s_estimates_is_cars(name, kind):
    """The hypotheses and statistics exactly car's: the table at lme4's b and V equals car's
    on lme4's fit to 1e-9."""
    m = fitted(name)
    fe = reference(name, "fixef")["value"]
    vc = reference(name, "vcov").loc[list(fe.index), list(fe.index)]
    at_r = types.SimpleNamespace(design=m.design, formula=m.formula, frame=m.frame, fixef=fe, vcov=vc)
    ours, r = wald_anova(at_r, kind), reference(name, f"Anova_{kind}")
    assert np.allclose(ours["Chisq"], r["Chisq"], rtol=1e-9)
    assert np.allclose(ours["Pr(>Chisq)"], r["Pr(>Chisq)"], rtol=1e-8)


def test_anova_recomputed_by_hand():
    """The joint: type III rows as b' V^-1 b of each term's coefficients; type II of the
    highest-order term equal to type III; type II of cHEIGHT as the Wald test in the
    model without the interaction is not car's (car adjusts in V's metric, in one fit):
    checked instead as the statistic of L = the V-orthogonal complement, built here."""
    m = fitted("ticks")
    b, v = m.fixef, m.vcov
    t3, t2 = m.Anova(type=3), m.Anova()
    for term, cols in {"YEAR": ["YEAR96", "YEAR97"], "cHEIGHT": ["cHEIGHT"],
                       "YEAR:cHEIGHT": ["YEAR96:cHEIGHT", "YEAR97:cHEIGHT"]}.items():
        bt = b[cols].to_numpy()
        assert t3.loc[term, "Chisq"] == pytest.approx(bt @ np.linalg.solve(v.loc[cols, cols], bt), rel=1e-10)
    assert t2.loc["YEAR:cHEIGHT", "Chisq"] == pytest.approx(t3.loc["YEAR:cHEIGHT", "Chisq"], rel=1e-10)
    # cHEIGHT adjusted for YEAR only: project its coefficient off the interaction's in V's metric
    rel, own = ["YEAR96:cHEIGHT", "YEAR97:cHEIGHT"], ["cHEIGHT"]
    vz = v.loc[own + rel, own + rel].to_numpy()
    beta = b[own + rel].to_numpy()
    # L = e_own - (coefficients of rel that make L V-orthogonal to rel's unit rows)
    w = np.linalg.solve(vz[1:, 1:], vz[1:, 0])
    ell = np.r_[1.0, -w]
    stat = (ell @ beta) ** 2 / (ell @ vz @ ell)
    assert t2.loc["cHEIGHT", "Chisq"] == pytest.approx(stat, rel=1e-8)
    assert t3.attrs["heading"].startswith("Analysis of Deviance Table (Type III Wald chisquare tests)")


def test_anova_type_is_checked():
    with pytest.raises(ValueError, match="type=1"):
        fitted("cbpp").Anova(type=1)
    assert isinstance(fitted("cbpp").Anova(), pd.DataFrame)
