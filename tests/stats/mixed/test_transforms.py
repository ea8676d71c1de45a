"""Transformed variables (scale, poly, log, sqrt, I, factor) and offset() terms in lmer and
glmer formulas against lme4 (tests/fixtures/lme4_transforms.csv, written by
benchmarks/lme4_transforms.R): R's column names in R's order, estimates, SEs, variance
components, logLik and predictions for new rows with the fit's transformation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import glmer, lmer, model_design, parse_formula
from acceptability.stats.mixed.transforms import fixed_part, formula_offset
from tests.conftest import LME4_TOL, REPO, VARIANCE_RTOL
from tests.lme4_data import lme4_data

REFERENCE = REPO / "tests" / "fixtures" / "lme4_transforms.csv"
LMERS = {  # benchmarks/lme4_transforms.R fits each on sleepstudy (REML)
    "poly": "Reaction ~ poly(Days, 2) + (1 | Subject)",
    "scale": "Reaction ~ scale(Days) + (Days | Subject)",
    "log_response": "log(Reaction) ~ Days + (1 | Subject)",
    "factor": "Reaction ~ factor(Days) + (1 | Subject)",
    "poly_parity": "Reaction ~ poly(Days, 2) * parity + (1 | Subject)",
    "parity_poly_raw": "Reaction ~ parity * poly(Days, 2, raw = TRUE) + (1 | Subject)",
    "mixed_terms": "Reaction ~ scale(Days):parity + log(Days + 1) * parity + (1 | Subject)",
    "center_I": "Reaction ~ scale(Days, scale = FALSE) + I(Days^2/10) + sqrt(Days) + (1 | Subject)",
    "logical": "Reaction ~ I(Days > 4) * Days + (1 | Subject)",  # a logical is a factor in R
}
NA_LMERS = {  # on sleepstudy with Reaction missing in every 7th row
    "na_poly": "Reaction ~ poly(Days, 2) + (1 | Subject)",
    "na_scale": "Reaction ~ scale(Days) * parity + (1 | Subject)",
}
GLMERS = {  # on cbpp
    "cbpp_offset": ("incidence ~ period + offset(log(size)) + (1 | herd)", "poisson"),
    "cbpp_scale": ("cbind(incidence, size - incidence) ~ period + scale(size) + (1 | herd)", "binomial"),
}


def reference(model: str) -> pd.DataFrame:
    table = pd.read_csv(REFERENCE, comment="#", keep_default_na=False, dtype={"name": str})
    rows = table[table["model"] == model].astype({"value": float})
    assert not rows.empty, f"no rows {model!r} in {REFERENCE}: rerun benchmarks/lme4_transforms.R"
    return rows


def _parity(subject: pd.Series) -> np.ndarray:
    return np.where(subject.astype(int) % 2 == 0, "even", "odd")


@pytest.fixture(scope="module")
def sleep() -> pd.DataFrame:
    s = lme4_data("sleepstudy")
    return s.assign(parity=_parity(s["Subject"]))


@pytest.fixture(scope="module")
def sleep_na(sleep) -> pd.DataFrame:
    out = sleep.copy()
    out.loc[(np.arange(len(out)) + 1) % 7 == 0, "Reaction"] = np.nan
    return out


def sleep_new(days=(0, 2.5, 7, 12)) -> pd.DataFrame:
    """R's expand.grid(Days = days, Subject = c("308", "335", "999")): Days varies fastest."""
    rows = pd.DataFrame([(d, s) for s in ("308", "335", "999") for d in days], columns=["Days", "Subject"])
    return rows.assign(parity=_parity(rows["Subject"]))


HERD_NEW = pd.DataFrame({"herd": ["1", "3", "99", "1"], "period": ["1", "2", "3", "4"],
                         "size": [10.0, 25, 14, 40]})


def assert_matches(m, model: str, newdata: pd.DataFrame) -> None:
    """Names in R's order, estimates, SEs, variances, logLik, npar, nobs and predictions."""
    r = reference(model)
    get = {q: g.set_index("name")["value"] for q, g in r.groupby("quantity")}
    assert list(m.fixef.index) == list(get["fixef"].index)
    assert m.fixef.to_numpy() == pytest.approx(get["fixef"].to_numpy(), abs=LME4_TOL)
    assert m.se.to_numpy() == pytest.approx(get["se"].to_numpy(), abs=LME4_TOL)
    vc = m.VarCorr.fillna({"var1": "", "var2": ""})
    ours = {f"{v.grp}|{v.var1}|{v.var2}": v.vcov for v in vc.itertuples()}
    for name, value in get["vcov"].items():
        assert ours[name] == pytest.approx(value, rel=VARIANCE_RTOL), name
    assert m.logLik == pytest.approx(get["logLik"][""], abs=LME4_TOL)
    assert (m.npar, m.nobs) == (get["npar"][""], get["nobs"][""])
    pred = m.predict(newdata, allow_new_levels=True).to_numpy()
    assert pred == pytest.approx(get["predict"].to_numpy(), abs=LME4_TOL)
    fixed = m.predict(newdata, re_form="~0").to_numpy()
    assert fixed == pytest.approx(get["predict_fixed"].to_numpy(), abs=LME4_TOL)


@pytest.mark.parametrize("model", LMERS)
def test_lmer_with_transforms_matches_lme4(model, sleep):
    m = lmer(LMERS[model], sleep)
    assert_matches(m, model, sleep_new((0, 3, 7, 9)) if model == "factor" else sleep_new())


@pytest.mark.parametrize("model", NA_LMERS)
def test_scale_and_poly_learn_from_rows_missing_the_response(model, sleep_na):
    # R evaluates scale() and poly() before na.omit: over all 180 rows of Days, while the fit
    # has the 155 rows with a Reaction
    m = lmer(NA_LMERS[model], sleep_na)
    assert m.n_dropped == 25
    assert_matches(m, model, sleep_new())
    if model == "na_scale":
        days = sleep_na["Days"]
        assert m.design.fixed_part.params["scale(Days)"] == pytest.approx(
            {"center": days.mean(), "scale": days.std()})
        assert days[sleep_na["Reaction"].notna()].mean() != pytest.approx(days.mean())


@pytest.mark.parametrize("model", GLMERS)
def test_glmer_with_offset_and_transform_matches_lme4(model):
    formula, family = GLMERS[model]
    m = glmer(formula, lme4_data("cbpp"), family=family)
    assert m.engine.startswith("glmm")
    assert_matches(m, model, HERD_NEW)


def test_predict_uses_the_fits_scaling(sleep):
    m = lmer(LMERS["scale"], sleep)
    new = sleep_new()
    b = m.fixef
    days = sleep["Days"]
    expected = b["(Intercept)"] + b["scale(Days)"] * (new["Days"] - days.mean()) / days.std()
    assert m.predict(new, re_form="~0").to_numpy() == pytest.approx(expected.to_numpy(), abs=1e-10)
    # not newdata's own mean and SD, which scale(newdata$Days) would give
    own = b["(Intercept)"] + b["scale(Days)"] * (new["Days"] - new["Days"].mean()) / new["Days"].std()
    assert not np.allclose(m.predict(new, re_form="~0"), own)
    # the fitted rows through the newdata path give the fitted values
    assert m.predict(sleep).to_numpy() == pytest.approx(m.fitted.to_numpy(), abs=1e-10)


def test_poly_coefficients_are_rs(sleep):
    p = fixed_part(parse_formula(LMERS["poly"]), sleep)
    x, names = p.matrix(sleep)
    assert names == ["(Intercept)", "poly(Days, 2)1", "poly(Days, 2)2"]
    # R's poly(): orthonormal columns, orthogonal to the constant
    assert x[:, 1:].T @ x[:, 1:] == pytest.approx(np.eye(2), abs=1e-12)
    assert x[:, 1:].sum(axis=0) == pytest.approx([0, 0], abs=1e-12)
    assert p.params["poly(Days, 2)"]["alpha"] == pytest.approx([4.5, 4.5])  # attr(, "coefs")


def test_terms_and_assign_are_rs(sleep):
    m = lmer(LMERS["mixed_terms"], sleep)
    part = m.design.fixed_part
    assert part.labels == ["log(Days + 1)", "parity", "scale(Days):parity", "parity:log(Days + 1)"]
    assert part.assign.tolist() == [0, 1, 2, 3, 3, 4]  # attr(getME(m, "X"), "assign")


def test_offset_terms_stay_out_of_the_fixed_part():
    f = parse_formula("incidence ~ period + offset(log(size)) + (1 | herd)")
    assert f.fixed == "period" and f.offsets == ("log(size)",)
    assert f.columns() == ["incidence", "period", "size", "herd"]
    cbpp = lme4_data("cbpp")
    d = model_design(f.text, cbpp, family="poisson")
    assert d.xnames == ["(Intercept)", "period2", "period3", "period4"]
    assert formula_offset(f, cbpp) == pytest.approx(np.log(cbpp["size"]))
    two = parse_formula("y ~ x + offset(a) + offset(log(b)) + (1 | g)")
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, np.e]})
    assert formula_offset(two, frame) == pytest.approx([1.0, 3.0])
    assert formula_offset(parse_formula("y ~ x + (1 | g)"), frame) is None


def test_columns_inside_calls_are_found_checked_and_cleaned(sleep):
    f = parse_formula("Reaction ~ scale(Days, center = 2, scale = FALSE) + poly(Days, degree = 2, "
                      "raw = TRUE) + log(Reaction) + (1 | Subject)")
    assert f.columns() == ["Reaction", "Days", "Subject"]
    with pytest.raises(KeyError, match="unknown column 'day'"):
        lmer("Reaction ~ scale(day) + (1 | Subject)", sleep)
    holes = sleep.assign(Days=sleep["Days"].where(np.arange(len(sleep)) % 10 != 0))
    m = lmer("Reaction ~ scale(Days) + (1 | Subject)", holes)
    assert (m.n_dropped, m.nobs) == (18, 162)
    assert m.design.fixed_part.params["scale(Days)"]["center"] == pytest.approx(holes["Days"].mean())


def test_unsupported_function_is_named(sleep):
    with pytest.raises(ValueError, match=r"ns\(\) .*not supported.*poly\(\), scale\(\)"):
        lmer("Reaction ~ ns(Days, 3) + (1 | Subject)", sleep)
    with pytest.raises(ValueError, match=r"response 'scale\(Reaction\)'.*only I\(\)"):
        lmer("scale(Reaction) ~ Days + (1 | Subject)", sleep)
    with pytest.raises(ValueError, match=r"degree \(10\) must be less than the number of unique points"):
        lmer("Reaction ~ poly(Days, 10) + (1 | Subject)", sleep)
    with pytest.raises(ValueError, match=r"log\(Days\) is not finite in 18 row"):
        lmer("Reaction ~ log(Days) + (1 | Subject)", sleep)


def test_newdata_needs_the_fits_columns_and_levels(sleep):
    m = lmer(LMERS["factor"], sleep)
    with pytest.raises(ValueError, match=r"newdata: level\(s\) \['2.5'\] of 'factor\(Days\)'"):
        m.predict(sleep_new((0, 2.5)), allow_new_levels=True)
    with pytest.raises(KeyError, match=r"lack column\(s\) \['Days'\]"):
        m.predict(sleep_new().drop(columns="Days"), re_form="~0")


def test_formula_without_transforms_reaches_the_engine_unchanged(sleep):
    d = model_design("Reaction ~ Days * parity + (1 | Subject)", sleep)
    assert d.formula == parse_formula("Reaction ~ Days * parity + (1 | Subject)")
    assert d.fixed_part.labels == ["Days", "parity", "Days:parity"]
    assert d.fixed_part.assign.tolist() == [0, 1, 2, 3]
