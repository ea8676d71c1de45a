"""Cumulative link (mixed) models against R's ordinal 2022.11.16: every constant comes from
benchmarks/ordinal_reference.R (tests/fixtures/ordinal_reference.csv, ordinal's printed
summaries in tests/fixtures/ordinal_summaries.txt, its wine data in tests/fixtures/ordinal/).

Tolerances: clm fits match to 1e-6 (both are Newton's method on the same exact likelihood;
ordinal stops at max|gradient| 1e-6). clmm fits match to 1e-4, as asked: ordinal stops its
clmm fits about 1e-5 from the optimum (nlminb on a numerical gradient, inner modes to
max|gradient| 1e-4; max.grad 1e-5 for wine, 3e-3 for MegaAcceptability), ours at the
optimum to rounding error. The MegaAcceptability design is read from ../shared/data (or
$ACCEPTABILITY_DATA_DIR): when it is missing the test fails, it never skips.
"""

from __future__ import annotations

import re
import time
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed import anova_clm, clm, clmm
from acceptability.stats.mixed.ordinal.ordinal_links import interval
from tests.conftest import DATA_DIR

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REF = pd.read_csv(FIXTURES / "ordinal_reference.csv", keep_default_na=False)
WINE_FORMULA = "rating ~ temp + contact"
MEGA_FORMULA = "rating ~ passive + (1 | participant) + (1 | item)"


def ref(model: str, quantity: str) -> pd.Series:
    rows = REF[(REF.model == model) & (REF.quantity == quantity)]
    return pd.Series(pd.to_numeric(rows.value, errors="coerce").to_numpy(), index=rows.name.to_numpy())


def ref1(model: str, quantity: str) -> float:
    return float(ref(model, quantity).iloc[0])


def wine() -> pd.DataFrame:
    w = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"judge": str, "bottle": str})
    w["rating"] = pd.Categorical(w["rating"], categories=[1, 2, 3, 4, 5], ordered=True)
    return w


def mega_frame() -> pd.DataFrame:
    """The MegaAcceptability subset of benchmarks/ordinal_reference.R: the 12 verbs first by
    name, all their frames and participants, rows with a response; item = 'verb | frame',
    passive = the frame starts with 'NP was '."""
    path = DATA_DIR / "megaacceptability" / "mega-acceptability-v1.zip"
    if not path.is_file():
        pytest.fail(f"MegaAcceptability v1 not found at {path}: the ordinal parity tests need it "
                    "(set ACCEPTABILITY_DATA_DIR)", pytrace=False)
    with zipfile.ZipFile(path) as z:
        d = pd.read_csv(z.open("mega-acceptability-v1/mega-acceptability-v1.tsv"), sep="\t")
    verbs = sorted(d["verb"].unique())[:12]
    s = d[d["verb"].isin(verbs) & d["response"].notna()].copy()
    s["rating"] = pd.Categorical(s["response"].astype(int), categories=range(1, 8), ordered=True)
    s["passive"] = np.where(s["frame"].str.startswith("NP was "), "yes", "no")
    s["item"] = s["verb"] + " | " + s["frame"]
    return s


GRID = pd.DataFrame({"temp": ["cold", "warm", "cold", "warm"], "contact": ["no", "no", "yes", "yes"]})
CLM_FITS = {"wine_clm_flexible": {}, "wine_clm_symmetric": {"threshold": "symmetric"},
            "wine_clm_equidistant": {"threshold": "equidistant"}, "wine_clm_probit": {"link": "probit"},
            "wine_clm_cloglog": {"link": "cloglog"}, "wine_clm_loglog": {"link": "loglog"}}


def assert_close(ours: pd.Series, theirs: pd.Series, atol: float, what: str) -> None:
    ours = ours.reindex(theirs.index)
    assert not ours.isna().any(), f"{what}: names differ: ours {list(ours.index)}"
    np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=0, atol=atol, err_msg=what)


def check_fit(m, model: str, atol: float) -> None:
    """logLik, AIC, BIC, nobs, edf, coef, SEs (vcov's diagonal), Theta and vcov."""
    for q in ("logLik", "AIC", "BIC"):
        assert getattr(m, q) == pytest.approx(ref1(model, q), abs=2 * atol), q
    assert m.nobs == ref1(model, "nobs") and m.edf == ref1(model, "edf")
    assert_close(m.coef, ref(model, "coef"), atol, "coef")
    assert_close(pd.Series(np.sqrt(np.diag(m.vcov)), index=m.vcov.index), ref(model, "se"), atol, "se")
    assert_close(m.Theta, ref(model, "Theta"), atol, "Theta")
    vc = ref(model, "vcov")
    ours = pd.Series([m.vcov.loc[tuple(n.split("/"))] for n in vc.index], index=vc.index)
    assert_close(ours, vc, atol, "vcov")


@pytest.mark.parametrize("model", list(CLM_FITS))
def test_clm_matches_ordinal_on_wine(model):
    m = clm(WINE_FORMULA, wine(), **CLM_FITS[model])
    check_fit(m, model, 1e-6)
    assert m.cond_H == pytest.approx(ref1(model, "cond.H"), rel=1e-6)
    prob = ref(model, "prob")
    ours = m.predict(GRID)
    assert_close(pd.Series([ours.iloc[int(n.split("/")[0]) - 1][n.split("/")[1]] for n in prob.index],
                           index=prob.index), prob, 1e-6, "predict")
    assert list(m.fixef.index) == ["tempwarm", "contactyes"]


@pytest.mark.parametrize("model", ["wine4_clm_symmetric", "mega_clm_symmetric"])
def test_clm_symmetric_thresholds_odd_and_six(model, request):
    """Symmetric thresholds with an odd number of them (wine with 4 and 5 merged: 'central',
    'spacing.1') and with six (MegaAcceptability's 1-7: two spacings)."""
    if model.startswith("wine4"):
        frame = wine().assign(rating=lambda f: pd.Categorical(np.minimum(f["rating"].astype(int), 4),
                                                              categories=[1, 2, 3, 4], ordered=True))
        m = clm(WINE_FORMULA, frame, threshold="symmetric")
    else:
        m = clm("rating ~ passive", request.getfixturevalue("mega"), threshold="symmetric")
    check_fit(m, model, 1e-6)
    assert comparable(str(m.summary()).splitlines()) == comparable(r_summaries()[model])


def test_clm_cauchit_differs_from_ordinal_only_by_its_finite_ends():
    """ordinal stands in +-1e5 for the infinite ends of the top and bottom categories; for
    the Cauchy distribution F(1e5) = 1 - 3.2e-6, so its likelihood is lower than the exact
    one by 2.8e-4 on wine and its optimum moves by up to 1.2e-4. With those ends at ordinal's
    estimates, our likelihood is ordinal's logLik to 1e-9; the exact fit is within 5e-4."""
    m = clm(WINE_FORMULA, wine(), link="cauchit")
    d, par = m.design, ref("wine_clm_cauchit", "coef").to_numpy()
    a = np.where(d.y == 4, 1e5 + d.B1 @ par, d.B1 @ par)
    b = np.where(d.y == 0, -1e5 + d.B2 @ par, d.B2 @ par)
    assert np.sum(np.log(interval(d.link, a, b).p)) == pytest.approx(ref1("wine_clm_cauchit", "logLik"), abs=1e-9)
    assert m.logLik > ref1("wine_clm_cauchit", "logLik")
    assert_close(m.coef, ref("wine_clm_cauchit", "coef"), 5e-4, "coef")


def test_clm_anova_matches_ordinal():
    w = wine()
    tab = anova_clm(clm(WINE_FORMULA, w), clm("rating ~ temp", w))
    assert list(tab.columns) == ["no.par", "AIC", "logLik", "LR.stat", "df", "Pr(>Chisq)"]
    assert list(tab.index) == ["m2", "m1"]  # ordered by number of parameters, as ordinal
    for col in tab.columns:
        np.testing.assert_allclose(tab[col].to_numpy(), ref("anova_wine_clm", col).to_numpy(),
                                   rtol=1e-7, atol=1e-9, equal_nan=True, err_msg=col)


@pytest.mark.parametrize(("model", "nagq"), [("wine_clmm_laplace", 1), ("wine_clmm_agq10", 10),
                                             ("wine_clmm_ghq10", -10)])
def test_clmm_matches_ordinal_on_wine(model, nagq):
    m = clmm(WINE_FORMULA + " + (1 | judge)", wine(), nAGQ=nagq)
    check_mixed(m, model)


def test_clmm_three_terms_with_a_boundary_sd():
    """Two crossed factors and a nested one (the dense Schur complement has two terms);
    bottle's SD is 0 in both fits (ordinal 1e-5, ours below it), so, as in ordinal, it has
    no row in vcov. The SE of judge:temp's SD (0.13, weakly determined) is ordinal's within
    1.4e-3 only: ordinal's Hessian is a second difference (step 1e-4) of a likelihood whose
    modes stop at max|gradient| 1e-4, and this entry amplifies that noise; the second
    difference of our likelihood moves by 5e-4 between steps 1e-4 and 1e-3, where the
    difference of our analytic gradient agrees with the larger step within 1.1e-5."""
    model = "wine_clmm_three"
    m = clmm(WINE_FORMULA + " + (1 | judge) + (1 | bottle) + (1 | judge:temp)", wine())
    assert list(m.ST.index) == ["judge:temp", "judge", "bottle"]
    assert m.ST["bottle"] < 1e-3 and ref(model, "ST")["bottle"] < 1e-3
    assert list(m.vcov.index)[-2:] == ["ST1", "ST2"] == list(ref(model, "se").index)[-2:]
    se = pd.Series(np.sqrt(np.diag(m.vcov)), index=m.vcov.index)
    assert_close(se.iloc[:-2], ref(model, "se").iloc[:-2], 1e-4, "se")
    assert_close(se.iloc[-2:], ref(model, "se").iloc[-2:], 2e-3, "se of the SDs")
    for q in ("logLik", "AIC", "BIC"):
        assert getattr(m, q) == pytest.approx(ref1(model, q), abs=2e-4), q
    assert_close(m.coef, ref(model, "coef"), 1e-4, "coef")
    assert_close(m.ST.iloc[:2], ref(model, "ST").iloc[:2], 1e-4, "ST")
    for q, ours in (("ranef", m.ranef), ("condVar", m.condVar)):
        flat = pd.concat({g: t["(Intercept)"] for g, t in ours.items()})
        flat.index = [f"{g}/{lev}" for g, lev in flat.index]
        assert_close(flat, ref(model, q), 1e-4, q)


def check_mixed(m, model: str) -> None:
    check_fit(m, model, 1e-4)
    # the condition number of a numerical Hessian at ordinal's approximate optimum
    assert m.cond_H == pytest.approx(ref1(model, "cond.H"), rel=1e-3)
    assert_close(m.ST, ref(model, "ST"), 1e-4, "ST")
    for q, ours in (("ranef", m.ranef), ("condVar", m.condVar)):
        theirs = ref(model, q)
        flat = pd.concat({g: t["(Intercept)"] for g, t in ours.items()})
        flat.index = [f"{g}/{lev}" for g, lev in flat.index]
        assert_close(flat, theirs, 1e-4, q)


@pytest.fixture(scope="module")
def mega() -> pd.DataFrame:
    return mega_frame()


@pytest.fixture(scope="module")
def mega_fit(mega):
    start = time.perf_counter()
    m = clmm(MEGA_FORMULA, mega)
    return m, time.perf_counter() - start


def test_clmm_matches_ordinal_on_crossed_megaacceptability(mega, mega_fit):
    m, seconds = mega_fit
    assert (m.nobs, dict(m.ngrps)) == (3000, {"item": 600, "participant": 408})
    check_mixed(m, "mega_clmm_laplace")
    # faster than ordinal's median default fit (benchmarks/bench_ordinal.py times both in one run)
    assert seconds < ref1("mega", "fit_seconds")


def test_clmm_anova_matches_ordinal(mega, mega_fit):
    null = clmm("rating ~ 1 + (1 | participant) + (1 | item)", mega)
    check_fit(null, "mega_clmm_null", 1e-4)
    tab = mega_fit[0].anova(null)
    for col in tab.columns:
        np.testing.assert_allclose(tab[col].to_numpy(), ref("anova_mega_clmm", col).to_numpy(),
                                   rtol=0, atol=1e-4, equal_nan=True, err_msg=col)


# --- printed summaries ----------------------------------------------------------------------

def r_summaries() -> dict[str, list[str]]:
    out, name = {}, None
    for line in (FIXTURES / "ordinal_summaries.txt").read_text().splitlines():
        if line.startswith("=== "):
            name = line[4:]
            out[name] = []
        else:
            out[name].append(line)
    return out


def info_cells(lines: list[str]) -> dict[str, str]:
    i = next(k for k, line in enumerate(lines) if line.startswith(" link "))
    return dict(zip(lines[i].split(), lines[i + 1].split(), strict=True))


def comparable(lines: list[str]) -> list[str]:
    """The printout without the data line (R prints the data's variable name) and the info
    table (niter and max.grad are each optimiser's own; its other cells are compared)."""
    i = next(k for k, line in enumerate(lines) if line.startswith(" link "))
    return [line for k, line in enumerate(lines) if k not in (i, i + 1) and not line.startswith("data:")]


@pytest.mark.parametrize("model", list(CLM_FITS))
def test_clm_summary_prints_as_ordinal(model):
    ours = str(clm(WINE_FORMULA, wine(), **CLM_FITS[model]).summary()).splitlines()
    theirs = r_summaries()[model]
    assert comparable(ours) == comparable(theirs)
    keep = ("link", "threshold", "nobs", "logLik", "AIC", "cond.H")
    assert {k: info_cells(ours)[k] for k in keep} == {k: info_cells(theirs)[k] for k in keep}


def test_clmm_summary_prints_as_ordinal(mega_fit):
    """The layout exactly, with every number masked (ordinal's estimates are 1e-5 from the
    optimum, which can move the 4th decimal); the numbers are compared above."""
    fits = {"wine_clmm_laplace": clmm(WINE_FORMULA + " + (1 | judge)", wine()),
            "wine_clmm_agq10": clmm(WINE_FORMULA + " + (1 | judge)", wine(), nAGQ=10),
            "wine_clmm_ghq10": clmm(WINE_FORMULA + " + (1 | judge)", wine(), nAGQ=-10),
            "wine_clmm_three": clmm(WINE_FORMULA + " + (1 | judge) + (1 | bottle) + (1 | judge:temp)",
                                    wine()),
            "mega_clmm_laplace": mega_fit[0]}
    number = re.compile(r"-?\d+(\.\d+)?(e[-+]\d+)?")
    for name, m in fits.items():
        ours, theirs = str(m.summary()).splitlines(), r_summaries()[name]
        assert [number.sub("#", x) for x in comparable(ours)] == \
            [number.sub("#", x) for x in comparable(theirs)], name
        assert info_cells(ours)["logLik"] == info_cells(theirs)["logLik"]
    summary = fits["wine_clmm_laplace"].summary()
    assert list(summary.tables) == ["coefficients", "random", "info"]


# --- response, thresholds and the other accessors --------------------------------------------

def test_integer_response_is_its_sorted_levels():
    w = wine()
    a = clm(WINE_FORMULA, w)
    w["rating"] = w["rating"].astype(int)
    b = clm(WINE_FORMULA, w)
    assert list(b.Theta.index) == ["1|2", "2|3", "3|4", "4|5"]
    np.testing.assert_allclose(a.coef, b.coef, rtol=1e-12)


def test_an_empty_category_is_an_error_naming_it():
    w = wine()
    w["rating"] = w["rating"].cat.add_categories([6])
    with pytest.raises(ValueError, match=r"\[6\].*no rows.*remove_unused_categories"):
        clm(WINE_FORMULA, w)
    w = wine()
    w = w[w["rating"] != 3].assign(rating=lambda f: f["rating"].astype(int))
    with pytest.raises(ValueError, match=r"no row has the rating\(s\) \[3\]"):
        clm(WINE_FORMULA, w)


@pytest.mark.parametrize(("change", "message"), [
    (lambda w: w.assign(rating=w["rating"].astype(str)), "ordered Categorical"),
    (lambda w: w.assign(rating=pd.Categorical(w["rating"].astype(int))), "unordered Categorical"),
    (lambda w: w.assign(rating=w["rating"].astype(int) + 0.5), "not whole numbers"),
])
def test_a_response_that_is_not_ordinal_is_an_error(change, message):
    with pytest.raises(ValueError, match=message):
        clm(WINE_FORMULA, change(wine()))


def test_thresholds_the_data_cannot_support_are_an_error():
    w = wine().assign(rating=lambda f: (f["rating"].astype(int) > 2).astype(int) + 1)
    for threshold in ("symmetric", "equidistant"):
        with pytest.raises(ValueError, match="3 or more categories"):
            clm(WINE_FORMULA, w, threshold=threshold)
    with pytest.raises(ValueError, match="threshold='weird'"):
        clm(WINE_FORMULA, wine(), threshold="weird")
    with pytest.raises(ValueError, match="link='identity'"):
        clm(WINE_FORMULA, wine(), link="identity")


@pytest.mark.parametrize(("formula", "kwargs", "message"), [
    ("rating ~ temp + (1 + contact | judge)", {"nAGQ": 5}, "random slopes"),
    ("rating ~ temp + (1 | judge) + (1 | bottle)", {"nAGQ": 5}, "one grouping factor"),
    ("rating ~ temp + (1 | judge)", {"nAGQ": 0}, "nAGQ=0"),
    ("rating ~ temp", {}, "no random-effects term"),
    ("rating ~ 0 + temp + (1 | judge)", {}, "no intercept"),
])
def test_clmm_refuses_what_it_cannot_fit(formula, kwargs, message):
    with pytest.raises(ValueError, match=message):
        clmm(formula, wine(), **kwargs)


def test_clm_refuses_random_terms():
    with pytest.raises(ValueError, match="fit it with clmm"):
        clm("rating ~ temp + (1 | judge)", wine())


def test_missing_values_are_dropped_and_counted():
    w = wine()
    w.loc[[0, 5], "rating"] = np.nan
    m = clm(WINE_FORMULA, w)
    assert (m.nobs, m.n_dropped) == (70, 2)
    assert "(2 observations deleted due to missingness)" in str(m.summary())


def test_clmm_predictions_population_level_and_conditional():
    m = clmm(WINE_FORMULA + " + (1 | judge)", wine())
    pop = m.predict(GRID)
    cond = m.predict(wine().iloc[:8], conditional=True)
    np.testing.assert_allclose(pop.sum(axis=1), 1)
    np.testing.assert_allclose(cond.sum(axis=1), 1)
    # judge 1's mode (1.70) raises its ratings above the typical judge's
    typical = m.predict(wine().iloc[:8])
    assert (cond[["4", "5"]].sum(axis=1) > typical[["4", "5"]].sum(axis=1)).all()
    np.testing.assert_allclose(m.fitted.to_numpy(),
                               m.predict().to_numpy()[np.arange(m.nobs), m.design.y])
    frame = m.ranef_frame()
    assert list(frame.columns) == ["grpvar", "term", "grp", "condval", "condsd"] and len(frame) == 9
    assert stats.clmm is clmm and stats.clm is clm
    assert m.VarCorr["Std.Dev."].iloc[0] == pytest.approx(ref("wine_clmm_laplace", "ST").iloc[0], abs=1e-4)


@pytest.mark.parametrize(("link", "nagq"), [("logit", 10), ("probit", 5), ("cloglog", 7)])
def test_quadrature_gradient_equals_central_differences(link, nagq):
    """The adaptive quadrature's analytic gradient (through the modes and the curvatures
    that place the nodes) equals central differences of the likelihood, away from the
    optimum where the gradient is not ~0."""
    from acceptability.stats.mixed.ordinal.clmm_polish import value_gradient
    from acceptability.stats.mixed.ordinal.cumulative import ordinal_design
    from acceptability.stats.mixed.ordinal.cumulative_mixed import _Likelihood, intercept_terms

    d = ordinal_design("rating ~ temp + contact + (1 | judge)", wine(), link=link, random=True)
    lik = _Likelihood(d, intercept_terms(d), nagq)
    x = np.array([-1.2, 1.1, 3.4, 5.0, 2.3, 1.4, 0.9])
    value, grad = lik.value_grad(x)
    lik.u[:] = 0
    num_value, num_grad = value_gradient(lik.values, x, 1e-5)
    assert value == pytest.approx(num_value, rel=1e-12)
    np.testing.assert_allclose(grad, num_grad, rtol=1e-6, atol=1e-7)
