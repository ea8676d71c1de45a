"""predict(re_form=...) with a subset of the random terms (lme4's ``re.form``) against lme4
1.1-31: Penicillin's crossed plate and sample, sleepstudy's (Days | Subject) taken apart into
its intercept and slope, grouseticks' crossed BROOD and LOCATION (poisson, link and response
scales), on the fitted rows and on new rows with new levels (``allow.new.levels = TRUE``).
R's numbers: tests/fixtures/simulation_predict.csv, written by benchmarks/simulation_reference.R;
a factor slope (MASS's oats, ``(1 + V | B)`` with V ordered or sum-coded):
tests/fixtures/contrasts_reference.csv, written by benchmarks/contrasts_reference.R.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from tests.lme4_data import lme4_data
from tests.stats.mixed.test_contrasts import oats, reference  # noqa: F401 (a fixture)

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "simulation_predict.csv"
NEWDATA = {
    "penicillin": pd.DataFrame({"plate": ["a", "b", "zz", "c"], "sample": ["A", "zz", "B", "F"]}),
    "sleepstudy": pd.DataFrame({"Days": [0, 4.5, 9, 2], "Subject": ["308", "309", "new", "372"]}),
    "grouseticks": pd.DataFrame({"YEAR": ["95", "96", "97", "96"], "cHEIGHT": [-20.0, 0, 35, 10],
                                 "BROOD": ["501", "new", "606", "520"], "LOCATION": ["32", "6", "new", "15"]}),
}


def _fit(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "penicillin":
            return stats.lmer("diameter ~ 1 + (1 | plate) + (1 | sample)", lme4_data("penicillin"))
        if name == "sleepstudy":
            return stats.lmer("Reaction ~ Days + (Days | Subject)", lme4_data("sleepstudy"))
        return stats.glmer("TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION)", lme4_data("grouseticks"),
                           family="poisson")


@pytest.fixture(scope="module")
def fits():
    return {name: _fit(name) for name in NEWDATA}


def _r_form(text: str):
    return {"NULL": None, "NA": "NA"}.get(text, text)


@pytest.mark.parametrize("name", list(NEWDATA))
def test_predict_re_form_matches_lme4(fits, name):
    """Every re.form of the fixture, fitted rows and new rows: lmer to 1e-6 relative; the
    poisson fit to 1e-4 relative or 2e-5 absolute (a linear predictor near 0; its estimates
    are within 1e-5 of lme4's, whose glmer optimum is approximate)."""
    r = pd.read_csv(FIXTURE, keep_default_na=False)
    m = fits[name]
    rtol, atol = (1e-6, 0.0) if name != "grouseticks" else (1e-4, 2e-5)
    worst = 0.0
    for (re_form, type_, new), rows in r[r["model"] == name].groupby(["re_form", "type", "newdata"]):
        got = m.predict(NEWDATA[name] if new else None, re_form=_r_form(re_form), type=type_,
                        allow_new_levels=True).to_numpy()
        want = rows["value"].to_numpy(float)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{name} {re_form} {type_} {new}")
        worst = max(worst, float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1))))
    print(f"{name}: worst difference {worst:.2e} (relative, absolute below 1)")


def test_re_form_subset_is_the_sum_of_its_terms(fits):
    """Brute force: the fixed part plus each term's modes, summed by hand from ranef."""
    m = fits["penicillin"]
    data = m.frame
    fixed = m.predict(re_form="NA")
    plate = data["plate"].map(m.ranef["plate"]["(Intercept)"])
    sample = data["sample"].map(m.ranef["sample"]["(Intercept)"])
    assert np.allclose(m.predict(re_form="~(1 | plate)"), fixed + plate)
    assert np.allclose(m.predict(re_form="~(1 | sample)"), fixed + sample)
    assert np.allclose(m.predict(re_form="~(1 | plate) + (1 | sample)"), m.predict())


def test_re_form_errors_name_the_problem(fits):
    m = fits["sleepstudy"]
    with pytest.raises(ValueError, match="grouping factor 'plate' is not in the model"):
        m.predict(re_form="~(1 | plate)")
    with pytest.raises(ValueError, match=r"random effect\(s\) \['x'\]"):
        m.predict(re_form="~(0 + x | Subject)")
    with pytest.raises(ValueError, match="names no random term"):
        m.predict(re_form="~ Days")
    with pytest.raises(ValueError, match="new level"):
        m.predict(NEWDATA["sleepstudy"], re_form="~(1 | Subject)")


@pytest.mark.parametrize(("model", "ordered", "contrasts"), [
    ("oats_ordered_slope", True, None),  # (Intercept), V.L, V.Q: contr.poly
    ("oats_sum_slope", False, {"V": "sum"}),  # V1, V2 in the fixed part; VMarvellous, VVictory in (1 + V | B)
])
def test_re_form_with_a_factor_slope_matches_lme4(oats, model, ordered, contrasts):  # noqa: F811
    """A factor slope's columns are those its term built (an ordered V's V.L and V.Q, not V
    followed by a level): lme4's predict(re.form = ~(1 + V | B)) on the fitted rows and on
    new rows to 1e-6 relative, and ~(1 | B) as the fixed part plus B's intercepts by hand
    (lme4 1.1-31 stops on it: benchmarks/contrasts_reference.R)."""
    data = oats.assign(V=oats["V"].cat.as_ordered() if ordered else oats["V"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = stats.lmer("Y ~ N + V + (1 + V | B)", data, contrasts=contrasts)
    r = reference(model)
    assert m.predict(re_form="~(1 + V | B)").to_numpy() == pytest.approx(
        r["predict_re|~(1 + V | B)"].to_numpy(), rel=1e-6)
    new = pd.DataFrame({"B": ["I", "III", "VI"], "N": ["0.0cwt", "0.4cwt", "0.6cwt"],
                        "V": pd.Categorical(["Victory", "Golden.rain", "Marvellous"],
                                            categories=oats["V"].cat.categories, ordered=ordered)})
    assert m.predict(new, re_form="~(1 + V | B)").to_numpy() == pytest.approx(
        r["predict_re_new|~(1 + V | B)"].to_numpy(), rel=1e-6)
    intercepts = data["B"].astype(str).map(m.ranef["B"]["(Intercept)"])
    assert np.allclose(m.predict(re_form="~(1 | B)"), m.predict(re_form="NA") + intercepts)
