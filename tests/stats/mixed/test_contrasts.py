"""Factor coding against R (issue 44, items 1, 3 and 6): ordered factors get ``contr.poly``
(MASS's oats, N ordered), a data column named ``Treatment`` is a column (CO2), and
``contrasts=`` on lmer, glmer, clm and clmm gives R's coefficients, names, predictions for
new rows and lmerTest's type III anova. R's numbers are in tests/fixtures/contrasts_*.csv,
written by benchmarks/contrasts_reference.R."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import clm, clmm, glmer, lmer, parse_formula
from acceptability.stats.mixed.contrasts import contr_helmert, contr_poly, contr_sum
from acceptability.stats.mixed.transforms import fit_matrix
from tests.conftest import REPO
from tests.lme4_data import lme4_data, r_factors

FIXTURES = REPO / "tests" / "fixtures"
CMAT = np.array([[-3.0, 1, -1], [-1, -1, 3], [1, -1, -3], [3, 1, 1]])  # R: matrix(c(...), 4)
UNBALANCED = [0, 6, 29]  # R's oats[-c(1, 7, 30), ]
REL = 1e-4  # estimates, relative (issue 44's tolerance)
DF_P = 1e-3  # df and p values, relative
# CO2's Plant variance is 0 in the additive fits (lme4 says "boundary (singular) fit" too)
pytestmark = pytest.mark.filterwarnings("ignore:.*boundary .singular. fit")


def reference(model: str) -> dict[str, pd.Series]:
    table = pd.read_csv(FIXTURES / "contrasts_reference.csv", comment="#",
                        keep_default_na=False, dtype={"name": str})
    rows = table[table["model"] == model].astype({"value": float})
    assert not rows.empty, f"no rows {model!r}: rerun benchmarks/contrasts_reference.R"
    return {q: g.set_index("name")["value"] for q, g in rows.groupby("quantity", sort=False)}


@pytest.fixture(scope="module")
def oats() -> pd.DataFrame:
    return r_factors(pd.read_csv(FIXTURES / "contrasts_oats.csv"), "oats")


@pytest.fixture(scope="module")
def co2() -> pd.DataFrame:
    return r_factors(pd.read_csv(FIXTURES / "contrasts_co2.csv"), "co2")


@pytest.fixture(scope="module")
def wine() -> pd.DataFrame:
    w = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"bottle": str, "judge": str})
    return w.assign(rating=pd.Categorical(w["rating"], ordered=True))


def oats_new() -> pd.DataFrame:
    return pd.DataFrame({"N": ["0.0cwt", "0.2cwt", "0.4cwt", "0.6cwt"],
                         "V": ["Victory", "Marvellous", "Golden.rain", "Victory"]})


def assert_fit(m, model: str, coef=None, newdata: pd.DataFrame | None = None) -> float:
    """R's names in R's order, estimates and SEs (1e-4 relative), logLik and the
    fixed-effects predictions for new rows; returns the worst relative difference."""
    r = reference(model)
    est = m.fixef if coef is None else coef
    assert list(est.index) == list(r["fixef"].index)
    worst = 0.0
    for ours, theirs in ((est, r["fixef"]), (m.se[est.index], r["se"]), (pd.Series([m.logLik]), r["logLik"])):
        scale = np.maximum(np.abs(theirs.to_numpy()), 1e-2 * np.abs(theirs.to_numpy()).max())
        diff = np.abs(ours.to_numpy() - theirs.to_numpy()) / scale
        assert diff.max() < REL, (model, ours, theirs)
        worst = max(worst, diff.max())
    if newdata is not None:
        pred = m.predict(newdata, re_form="~0").to_numpy()
        assert pred == pytest.approx(r["predict_fixed"].to_numpy(), rel=REL)
    return worst


# --- R's contrast matrices -------------------------------------------------------------------
def test_contrast_matrices_are_rs():
    # R: contr.poly(5), contr.sum(4), contr.helmert(4), written out by hand from R's output
    poly5 = contr_poly(5)
    assert poly5.names == (".L", ".Q", ".C", "^4")
    assert poly5.matrix[:, 0] == pytest.approx([-0.632455532, -0.316227766, 0, 0.316227766, 0.632455532])
    assert poly5.matrix[:, 1] == pytest.approx([0.5345225, -0.2672612, -0.5345225, -0.2672612, 0.5345225])
    assert poly5.matrix[:, 3] == pytest.approx([0.1195229, -0.4780914, 0.7171372, -0.4780914, 0.1195229])
    assert contr_sum(4).matrix.tolist() == [[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, -1, -1]]
    assert contr_helmert(4).matrix.tolist() == [[-1, -1, -1], [1, -1, -1], [0, 2, -1], [0, 0, 3]]
    assert contr_sum(4).names == contr_helmert(4).names == ("1", "2", "3")


# --- item 1: ordered factors -------------------------------------------------------------------
def test_ordered_factor_gets_contr_poly(oats):
    m = lmer("Y ~ N + V + (1 | B/V)", oats)
    assert list(m.fixef.index[1:4]) == ["N.L", "N.Q", "N.C"]
    assert_fit(m, "oats_poly", newdata=oats_new())
    # the REML log-likelihood depends on the coding (log|X'V^-1 X|): treatment coding of N
    # gives R's -284.034 (benchmarks/contrasts_reference.R's first version), poly -284.728
    assert m.logLik == pytest.approx(-284.727524703274, abs=1e-6)
    assert m.design.fixed_part.contrasts["N"].kind == "contr.poly"


def test_emmeans_of_an_ordered_factor(oats):
    m = lmer("Y ~ N + V + (1 | B/V)", oats)
    r = reference("oats_poly")
    em = m.emmeans("N")
    assert list(em["N"]) == list(r["emmean"].index)
    assert em["emmean"].to_numpy() == pytest.approx(r["emmean"].to_numpy(), rel=REL)
    assert em["SE"].to_numpy() == pytest.approx(r["emmean_se"].to_numpy(), rel=REL)


def test_ordered_factor_in_a_random_term_gets_contr_poly(oats):
    # lme4 builds a random term's columns with model.matrix, whose default for an ordered
    # factor is contr.poly: (1 + V | B) has columns (Intercept), V.L, V.Q
    data = oats.assign(V=oats["V"].cat.as_ordered())
    m = lmer("Y ~ N + V + (1 + V | B)", data)
    assert_fit(m, "oats_ordered_slope")
    vc = m.VarCorr.fillna({"var1": "", "var2": ""})
    ours = {f"{v.grp}|{v.var1}|{v.var2}": v.vcov for v in vc.itertuples()}
    theirs = reference("oats_ordered_slope")["vcov"]
    assert ours.keys() == theirs.to_dict().keys()
    for name, value in theirs.items():
        assert ours[name] == pytest.approx(value, rel=REL), name
    # new rows get the fit's polynomial columns: the fitted rows, as new data, give the fit
    assert m.predict(data).to_numpy() == pytest.approx(m.fitted.to_numpy(), rel=1e-10)


# --- item 3: a column is a column, whatever its name ---------------------------------------
def test_column_named_treatment_is_a_column(co2):
    m = lmer("uptake ~ Type + Treatment + (1 | Plant)", co2)
    assert_fit(m, "co2_treatment")


@pytest.mark.parametrize("name", ["Treatment", "Sum", "Poly", "Helmert", "Diff", "C", "Q", "I", "np"])
def test_any_column_name_is_read(co2, name):
    data = co2.rename(columns={"Treatment": name})
    m = lmer(f"uptake ~ Type + {name} + (1 | Plant)", data)
    assert list(m.fixef.index) == ["(Intercept)", "TypeMississippi", f"{name}chilled"]
    assert m.fixef.iloc[2] == pytest.approx(reference("co2_treatment")["fixef"].iloc[2], rel=REL)


# --- item 6: contrasts= -------------------------------------------------------------------------
CO2_SUM = "uptake ~ Type * Treatment + conc + (1 | Plant)"
CO2_NEW = pd.DataFrame({"Type": ["Quebec", "Mississippi", "Mississippi"],
                        "Treatment": ["chilled", "nonchilled", "chilled"], "conc": [95.0, 500, 1000]})


def assert_anova(table: pd.DataFrame, model: str, quantity: str = "anova3") -> float:
    """lmerTest's (or afex's) anova table: NumDF exactly, DenDF, F and p to 1e-3
    relative (F to 1e-4); returns the worst relative difference of DenDF, F and p."""
    r = reference(model)[quantity]
    cols = {"NumDF": "NumDF", "DenDF": "DenDF", "F value": "F value", "Pr(>F)": "Pr(>F)"}
    if quantity == "afex3":
        cols = {"num Df": "NumDF", "den Df": "DenDF", "F": "F value", "Pr(>F)": "Pr(>F)"}
    worst = 0.0
    for name, value in r.items():
        term, col = name.split("|")
        ours = table.loc[term, cols[col]]
        if cols[col] == "NumDF":
            assert ours == value, name
            continue
        rel = abs(ours - value) / abs(value)
        assert rel < (REL if cols[col] == "F value" else DF_P), (name, ours, value)
        worst = max(worst, rel)
    return worst


def test_sum_coded_lmer_and_its_type3_anova_match_lmertest(co2):
    m = lmer(CO2_SUM, co2, contrasts={"Type": "sum", "Treatment": "sum"})
    assert_fit(m, "co2_sum", newdata=CO2_NEW)
    assert_anova(m.anova(type=3), "co2_sum")
    # sum coding: the intercept is the mean of the four Type x Treatment cells at conc = 0,
    # each cell's mean from treatment-coded estimates, written here
    t = lmer(CO2_SUM, co2).fixef
    cells = [t["(Intercept)"], t["(Intercept)"] + t["TypeMississippi"],
             t["(Intercept)"] + t["Treatmentchilled"],
             t["(Intercept)"] + t["TypeMississippi"] + t["Treatmentchilled"]
             + t["TypeMississippi:Treatmentchilled"]]
    assert m.fixef["(Intercept)"] == pytest.approx(np.mean(cells), rel=1e-6)


@pytest.mark.parametrize(("model", "contrasts"), [
    ("oats_helmert_matrix", {"V": "helmert", "N": CMAT}),
    ("oats_named_matrix", {"N": pd.DataFrame(CMAT[:, :2], columns=["lin", "quad"])}),
])
def test_helmert_and_matrix_contrasts_match_lme4(oats, model, contrasts):
    # a matrix with fewer than k - 1 columns is used as it is (R's contrasts(x, ncol(m)) <- m)
    data = oats.assign(N=oats["N"].cat.as_unordered())
    m = lmer("Y ~ V + N + (1 | B/V)", data, contrasts=contrasts)
    assert_fit(m, model, newdata=oats_new())


def test_type3_anova_does_not_depend_on_the_coding(oats):
    # unbalanced (three rows left out): lmerTest maps the treatment-coded type III
    # hypotheses to the fit's coding (get_contrasts_type3), so that sum coding and R's default
    # (N ordered: contr.poly) give one table, and afex (sum coding) the same
    unbal = oats.drop(index=UNBALANCED)
    sums = lmer("Y ~ V * N + (1 | B/V)", unbal, contrasts={"V": "sum", "N": "sum"})
    assert_fit(sums, "oats_unbalanced_sum")
    table = sums.anova(type=3)
    assert_anova(table, "oats_unbalanced_sum")
    assert_anova(table, "oats_unbalanced_sum", "afex3")
    default = lmer("Y ~ V * N + (1 | B/V)", unbal)
    assert_fit(default, "oats_unbalanced_default")
    assert_anova(default.anova(type=3), "oats_unbalanced_default")
    # types II and I on X as it is coded, as lmerTest computes them
    assert_anova(sums.anova(type=2), "oats_unbalanced_sum", "anova2")
    assert_anova(sums.anova(type=1), "oats_unbalanced_sum", "anova1")
    assert_anova(default.anova(type=2), "oats_unbalanced_default", "anova2")


@pytest.mark.parametrize(("model", "coding"), [
    ("cbpp_sum", "sum"), ("cbpp_helmert", "helmert"), ("cbpp_matrix", CMAT), ("cbpp_poly", "poly")])
def test_glmer_contrasts_match_lme4(model, coding):
    new = pd.DataFrame({"period": ["1", "2", "3", "4"], "size": [10.0, 25, 14, 40]})
    m = glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", lme4_data("cbpp"),
              contrasts={"period": coding})
    assert m.engine.startswith("glmm")
    assert_fit(m, model)
    eta = m.predict(new, re_form="~0", type="link").to_numpy()
    assert eta == pytest.approx(reference(model)["predict_fixed"].to_numpy(), rel=REL)


def test_glmer_ordered_factor_gets_contr_poly():
    cbpp = lme4_data("cbpp")
    cbpp["period"] = pd.Categorical(cbpp["period"], ordered=True)
    m = glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp)
    assert_fit(m, "cbpp_poly")


def test_clm_and_clmm_contrasts_match_ordinal(wine):
    m = clm("rating ~ temp * contact", wine, contrasts={"temp": "sum", "contact": "sum"})
    assert_fit(m, "wine_clm_sum", coef=m.coef)
    # predict() of new rows codes them with the fit's contrasts: the fitted rows, given as
    # new data, get the fitted probabilities
    prob = m.predict(wine[["temp", "contact"]]).to_numpy()
    assert prob[np.arange(len(wine)), wine["rating"].cat.codes] == pytest.approx(m.fitted.to_numpy())
    m = clm("rating ~ bottle", wine, contrasts={"bottle": "poly"})
    assert_fit(m, "wine_clm_poly", coef=m.coef)
    ordered = wine.assign(bottle=pd.Categorical(wine["bottle"], ordered=True))  # R's default for it
    m = clm("rating ~ bottle", ordered)
    assert_fit(m, "wine_clm_poly", coef=m.coef)
    m = clmm("rating ~ temp + contact + (1 | judge)", wine, contrasts={"temp": "sum", "contact": "helmert"})
    assert_fit(m, "wine_clmm_sum", coef=m.coef)


def test_model_matrix_is_indicators_times_contrasts(co2):
    # X's columns for Type * Treatment built here from the indicators and R's matrices
    x, part = fit_matrix(parse_formula("uptake ~ Type * Treatment + (1 | Plant)"), co2.copy(),
                         {"Type": "sum", "Treatment": "helmert"})
    type_ = np.where(co2["Type"] == "Quebec", 1.0, -1.0)  # contr.sum(2): 1, -1
    treat = np.where(co2["Treatment"] == "nonchilled", -1.0, 1.0)  # contr.helmert(2): -1, 1
    assert part.xnames == ["(Intercept)", "Type1", "Treatment1", "Type1:Treatment1"]
    assert x == pytest.approx(np.column_stack([np.ones(len(co2)), type_, treat, type_ * treat]))
    assert part.contrasts["Type"].kind == "contr.sum"
    # a factor whose margin is absent from the model keeps the indicator of every level
    # (R's rule; names from R's model.matrix(~ Type + Type:Treatment, CO2, contrasts.arg = ...))
    sums = {"Type": "sum", "Treatment": "sum"}
    _, part = fit_matrix(parse_formula("uptake ~ Type + Type:Treatment + (1 | Plant)"), co2.copy(), sums)
    assert part.xnames == ["(Intercept)", "Type1", "TypeQuebec:Treatment1", "TypeMississippi:Treatment1"]
    _, part = fit_matrix(parse_formula("uptake ~ conc:Type + Treatment + (1 | Plant)"), co2.copy(), sums)
    assert part.xnames == ["(Intercept)", "Treatment1", "conc:TypeQuebec", "conc:TypeMississippi"]


def test_emmeans_do_not_depend_on_the_coding(co2):
    sums = lmer(CO2_SUM, co2, contrasts={"Type": "sum", "Treatment": "helmert"})
    default = lmer(CO2_SUM, co2)
    a, b = sums.emmeans("Type"), default.emmeans("Type")
    assert a["emmean"].to_numpy() == pytest.approx(b["emmean"].to_numpy(), rel=1e-8)
    assert a["SE"].to_numpy() == pytest.approx(b["SE"].to_numpy(), rel=1e-6)


@pytest.mark.parametrize(("contrasts", "message"), [
    ({"Plant": "sum"}, r"names \['Plant'\], which is not a factor of the fixed effects"),
    ({"conc": "sum"}, "not a factor"),
    ({"Type": "deviation"}, "use one of treatment, sum, helmert, poly"),
    ({"Type": np.ones((3, 1))}, "needs 2 rows"),
    ({"Type": np.array([[1.0], [1.0]])}, "singular, or one of its columns is constant"),
    ({"Type": "sum", 3: "sum"}, "a dict from factor names"),
    (["Type"], "a dict from factor names"),
])
def test_bad_contrasts_are_refused_clearly(co2, contrasts, message):
    with pytest.raises(ValueError, match=message):
        lmer(CO2_SUM, co2, contrasts=contrasts)
