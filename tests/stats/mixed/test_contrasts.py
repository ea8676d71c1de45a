"""Factor coding against R (issue 44, items 1, 3 and 6): ordered factors get ``contr.poly``
(MASS's oats, N ordered), a data column named ``Treatment`` is a column (CO2), and
``contrasts=`` on lmer, glmer, clm and clmm gives R's coefficients, names, predictions for
new rows and lmerTest's type III anova. R's numbers are in tests/fixtures/contrasts_*.csv,
written by benchmarks/contrasts_reference.R."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import lmer
from acceptability.stats.mixed.contrasts import contr_helmert, contr_poly, contr_sum
from tests.conftest import REPO

FIXTURES = REPO / "tests" / "fixtures"
CMAT = np.array([[-3.0, 1, -1], [-1, -1, 3], [1, -1, -3], [3, 1, 1]])  # R: matrix(c(...), 4)
UNBALANCED = [0, 6, 29]  # R's oats[-c(1, 7, 30), ]
REL = 1e-4  # estimates, relative (issue 44's tolerance)
DF_P = 1e-3  # df and p values, relative


def reference(model: str) -> dict[str, pd.Series]:
    table = pd.read_csv(FIXTURES / "contrasts_reference.csv", comment="#",
                        keep_default_na=False, dtype={"name": str})
    rows = table[table["model"] == model].astype({"value": float})
    assert not rows.empty, f"no rows {model!r}: rerun benchmarks/contrasts_reference.R"
    return {q: g.set_index("name")["value"] for q, g in rows.groupby("quantity", sort=False)}


def _factors(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """The data set's factors with R's levels and orderedness (contrasts_levels.csv)."""
    levels = pd.read_csv(FIXTURES / "contrasts_levels.csv")
    for var, rows in levels[levels["variable"].str.startswith(prefix + ".")].groupby("variable"):
        name = var.split(".", 1)[1]
        frame[name] = pd.Categorical(frame[name], categories=list(rows["level"]),
                                     ordered=bool(rows["ordered"].iloc[0]))
    return frame


@pytest.fixture(scope="module")
def oats() -> pd.DataFrame:
    return _factors(pd.read_csv(FIXTURES / "contrasts_oats.csv"), "oats")


@pytest.fixture(scope="module")
def co2() -> pd.DataFrame:
    return _factors(pd.read_csv(FIXTURES / "contrasts_co2.csv"), "co2")


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


# --- item 3: a column is a column, whatever its name ---------------------------------------
@pytest.mark.filterwarnings("ignore:lmer: boundary")  # singular in R too
def test_column_named_treatment_is_a_column(co2):
    m = lmer("uptake ~ Type + Treatment + (1 | Plant)", co2)
    assert_fit(m, "co2_treatment")


@pytest.mark.filterwarnings("ignore:lmer: boundary")
@pytest.mark.parametrize("name", ["Treatment", "Sum", "Poly", "Helmert", "Diff", "C", "Q", "I", "np"])
def test_any_column_name_is_read(co2, name):
    data = co2.rename(columns={"Treatment": name})
    m = lmer(f"uptake ~ Type + {name} + (1 | Plant)", data)
    assert list(m.fixef.index) == ["(Intercept)", "TypeMississippi", f"{name}chilled"]
    assert m.fixef.iloc[2] == pytest.approx(reference("co2_treatment")["fixef"].iloc[2], rel=REL)
