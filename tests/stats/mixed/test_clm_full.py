"""clm in full (issue 44, item 8) against R's ordinal 2022.11.16: nominal and scale effects,
case weights, symmetric2 thresholds, profile-likelihood intervals and predict's four types, on
ordinal's wine and soup. Every R constant comes from benchmarks/clm_reference.R
(tests/fixtures/clm_reference.csv, its printed summaries in tests/fixtures/clm_summaries.txt,
soup in tests/fixtures/clm_soup.csv.gz).

Tolerances: fits to 1e-6 (both are Newton's method on the same exact likelihood; ordinal stops
at max|gradient| 1e-6), profile-interval ends to 1e-3 (ordinal interpolates a spline through
its profile; ours are solved to 1e-8, checked here against the likelihood-ratio statistic of
refits with the coefficient moved into an offset).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability.stats.mixed import clm
from acceptability.stats.mixed.ordinal.clm_newton import clm_objective
from acceptability.stats.mixed.ordinal.ordinal_summary import clm_summary

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
REF = pd.read_csv(FIXTURES / "clm_reference.csv", keep_default_na=False, dtype=str)


def ref(model: str, quantity: str) -> pd.Series:
    rows = REF[(REF.model == model) & (REF.quantity == quantity)]
    return pd.Series(pd.to_numeric(rows.value, errors="coerce").to_numpy(), index=rows.name.to_numpy())


def wine() -> pd.DataFrame:
    w = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"judge": str, "bottle": str})
    w["rating"] = pd.Categorical(w["rating"], categories=[1, 2, 3, 4, 5], ordered=True)
    w["w"] = np.tile([1, 2, 3], 24)  # R: rep(1:3, length.out = 72)
    return w


def soup() -> pd.DataFrame:
    s = pd.read_csv(FIXTURES / "clm_soup.csv.gz", dtype=str)
    s["SURENESS"] = pd.Categorical(s["SURENESS"].astype(int), categories=range(1, 7), ordered=True)
    return s


def soup_counts() -> pd.DataFrame:
    """Each (SURENESS, PROD, DAY) once with its count (R: aggregate(n ~ ..., FUN = sum))."""
    counts = soup().groupby(["SURENESS", "PROD", "DAY"], observed=True).size().rename("n").reset_index()
    return counts.sort_values(["DAY", "PROD", "SURENESS"], ignore_index=True)  # R's row order


FITS = {
    "wine_nominal": (wine, "rating ~ temp + contact", {"nominal": "~contact"}),
    "wine_scale": (wine, "rating ~ temp + contact", {"scale": "~temp"}),
    "wine_nom_scale": (wine, "rating ~ temp", {"nominal": "~contact", "scale": "~temp"}),
    "wine_weights": (wine, "rating ~ temp + contact", {"weights": "w"}),
    "wine_symmetric2": (wine, "rating ~ temp + contact", {"threshold": "symmetric2"}),
    "wine_plain": (wine, "rating ~ temp + contact", {}),
    "soup_nominal": (soup, "SURENESS ~ PROD", {"nominal": "~DAY"}),
    "soup_scale": (soup, "SURENESS ~ PRODID", {"scale": "~PROD", "link": "probit"}),
    "soup_symmetric2": (soup, "SURENESS ~ PROD + DAY", {"threshold": "symmetric2", "link": "cloglog"}),
    "soup_weights": (soup_counts, "SURENESS ~ PROD + DAY", {"weights": "n"}),
}
GRIDS = {"wine": pd.DataFrame({"temp": ["cold", "warm", "cold", "warm"], "contact": ["no", "no", "yes", "yes"]}),
         "soup": pd.DataFrame({"PROD": ["Ref", "Test", "Ref", "Test"], "DAY": ["1", "1", "2", "2"],
                               "PRODID": ["1", "2", "1", "3"]})}
_CACHE: dict = {}


def fit(model: str):
    if model not in _CACHE:
        data, formula, kw = FITS[model]
        _CACHE[model] = clm(formula, data(), **kw)
    return _CACHE[model]


@pytest.mark.parametrize("model", list(FITS))
def test_clm_fit_matches_ordinal(model):
    m = fit(model)
    for q, ours in (("logLik", m.logLik), ("AIC", m.AIC), ("BIC", m.BIC), ("nobs", m.nobs), ("edf", m.edf)):
        assert ours == pytest.approx(ref(model, q).iloc[0], abs=1e-6), q
    for q, ours in (("coef", m.coef), ("se", m.se)):
        theirs = ref(model, q)
        aliased = theirs.isna().to_numpy()  # ordinal's NA: the columns we leave out
        assert m.aliased == theirs.index[aliased].tolist()
        theirs = theirs[~aliased]
        assert list(ours.index) == list(theirs.index)
        np.testing.assert_allclose(ours.to_numpy(), theirs.to_numpy(), rtol=0, atol=1e-6, err_msg=q)
    theirs = ref(model, "Theta")
    theta = m.Theta
    if isinstance(theta, pd.DataFrame):  # nominal: one row per level of the nominal variable
        ours = theta.iloc[:, -(len(m.levels) - 1):].to_numpy().ravel()
    else:
        ours = theta.to_numpy()
    np.testing.assert_allclose(ours, theirs.to_numpy(), rtol=0, atol=1e-6)


def test_nominal_thresholds_name_and_rows():
    m = fit("wine_nominal")
    assert list(m.alpha.index[:2]) == ["1|2.(Intercept)", "2|3.(Intercept)"]
    assert list(m.alpha.index[4:6]) == ["1|2.contactyes", "2|3.contactyes"]
    # contact = yes shifts every threshold by its own coefficient
    np.testing.assert_allclose(m.Theta.iloc[1, 1:].to_numpy(float) - m.Theta.iloc[0, 1:].to_numpy(float),
                               m.alpha.iloc[4:].to_numpy(), atol=1e-12)
    assert m.Theta["contact"].tolist() == ["no", "yes"]


@pytest.mark.parametrize("model", ["wine_plain", "wine_scale", "wine_nom_scale", "wine_weights",
                                   "wine_symmetric2", "soup_nominal", "soup_scale", "soup_symmetric2",
                                   "soup_weights"])
def test_clm_profile_intervals_match_ordinal(model):
    m = fit(model)
    ours = m.confint()
    theirs = ref(model, "profile")
    lower = theirs[[n for n in theirs.index if n.endswith("/lower")]]
    upper = theirs[[n for n in theirs.index if n.endswith("/upper")]]
    assert list(ours.index) == [n.rsplit("/", 1)[0] for n in lower.index]
    np.testing.assert_allclose(ours.iloc[:, 0].to_numpy(), lower.to_numpy(), rtol=0, atol=1e-3)
    np.testing.assert_allclose(ours.iloc[:, 1].to_numpy(), upper.to_numpy(), rtol=0, atol=1e-3)
    wald = m.confint(type="Wald")
    theirs = ref(model, "wald")
    for col, end in enumerate(("lower", "upper")):  # by position: ordinal repeats names (scale)
        part = theirs[[n.endswith(f"/{end}") for n in theirs.index]]
        assert [n.rsplit("/", 1)[0] for n in part.index] == [n.removeprefix("sca.") for n in wald.index]
        np.testing.assert_allclose(wald.iloc[:, col].to_numpy(), part.to_numpy(), rtol=0, atol=1e-6)


def test_profile_ends_are_where_the_likelihood_ratio_reaches_the_quantile():
    """Brute force: refit with tempwarm held at each end, its column moved into an offset;
    2 (logLik^ - logLik(end)) is the squared normal quantile."""
    w = wine()
    m = fit("wine_plain")
    z2 = sps.norm.ppf(0.975) ** 2
    warm = (w["temp"] == "warm").to_numpy(float)
    for end in m.confint().loc["tempwarm"]:
        w["held"] = end * warm
        held = clm("rating ~ contact + offset(held)", w)
        assert 2 * (m.logLik - held.logLik) == pytest.approx(z2, abs=1e-6)
    m90 = m.confint(parm=["contactyes"], level=0.9)
    assert list(m90.columns) == ["5.0 %", "95.0 %"]


@pytest.mark.parametrize("model", list(FITS))
def test_clm_predict_matches_ordinal(model):
    m = fit(model)
    grid = GRIDS[model.split("_")[0]]
    prob = m.predict(grid, type="prob")
    np.testing.assert_allclose(prob.to_numpy().ravel(), ref(model, "prob").to_numpy(), atol=1e-6)
    for kind, names in (("cum.prob", ("cprob1", "cprob2")), ("linear.predictor", ("eta1", "eta2"))):
        ours = m.predict(grid, type=kind)
        for name in names:
            assert ours[name].shape == (len(grid), len(m.levels))
            a, b = ours[name].to_numpy().ravel(), ref(model, name).to_numpy()
            big = np.abs(b) > 1e4  # ordinal's +-100000 (over sigma) stands for the infinite end thresholds
            assert np.all(np.isinf(a[big])) and np.all(np.sign(a[big]) == np.sign(b[big]))
            np.testing.assert_allclose(a[~big], b[~big], atol=1e-6, err_msg=name)
    classes = REF[(REF.model == model) & (REF.quantity == "class")].value.tolist()
    assert m.predict(grid, type="class").astype(str).tolist() == classes
    # the fitted rows: each row's observed category
    np.testing.assert_allclose(m.predict().to_numpy()[:20], ref(model, "fitprob").to_numpy(), atol=1e-6)
    np.testing.assert_allclose(m.fitted.to_numpy()[:20], ref(model, "fitprob").to_numpy(), atol=1e-6)
    for kind, names in (("cum.prob", ("cprob1", "cprob2")), ("linear.predictor", ("eta1", "eta2"))):
        ours = m.predict(type=kind).iloc[:20]
        for name in names:
            a, b = ours[name].to_numpy(), ref(model, "fit" + name.replace("cprob", "cprob")).to_numpy()
            big = np.abs(b) > 1e4
            assert np.all(np.isinf(a[big]))
            np.testing.assert_allclose(a[~big], b[~big], atol=1e-6, err_msg=name)


def test_predict_prob_is_the_difference_of_the_cumulative_probabilities():
    """The joint: prob recomputed from the link and the thresholds by hand."""
    m = fit("wine_scale")
    grid = GRIDS["wine"]
    warm = (grid["temp"] == "warm").to_numpy(float)
    sigma = np.exp(m.zeta["tempwarm"] * warm)
    eta = m.beta["tempwarm"] * warm + m.beta["contactyes"] * (grid["contact"] == "yes").to_numpy(float)
    cuts = np.concatenate([[-np.inf], m.Theta.to_numpy(), [np.inf]])
    cum = 1 / (1 + np.exp(-(cuts[None, :] - eta[:, None]) / sigma[:, None]))
    np.testing.assert_allclose(m.predict(grid).to_numpy(), np.diff(cum, axis=1), atol=1e-12)
    np.testing.assert_allclose(m.predict(grid, type="cum.prob")["cprob1"].to_numpy(), cum[:, 1:], atol=1e-12)


def test_case_weights_equal_repeated_rows():
    """A row of weight k counts as k copies of it (ordinal's weights)."""
    w = wine()
    m = fit("wine_weights")
    repeated = w.loc[w.index.repeat(w["w"])].reset_index(drop=True)
    r = clm("rating ~ temp + contact", repeated)
    assert m.logLik == pytest.approx(r.logLik, abs=1e-9)
    np.testing.assert_allclose(m.coef.to_numpy(), r.coef.to_numpy(), atol=1e-9)
    np.testing.assert_allclose(m.se.to_numpy(), r.se.to_numpy(), atol=1e-9)
    assert m.nobs == r.nobs == 144
    # the same weights as an array; the aggregated soup fits as the whole of it
    assert clm("rating ~ temp + contact", w, weights=w["w"].to_numpy()).logLik == pytest.approx(m.logLik, abs=1e-12)
    whole = clm("SURENESS ~ PROD + DAY", soup())
    assert fit("soup_weights").logLik == pytest.approx(whole.logLik, abs=1e-8)


def test_symmetric2_thresholds_mirror_about_zero():
    for model in ("wine_symmetric2", "soup_symmetric2"):  # 4 and 5 thresholds
        theta = fit(model).Theta.to_numpy()
        np.testing.assert_allclose(theta, -theta[::-1], atol=1e-12)
    assert list(fit("soup_symmetric2").alpha.index) == ["spacing.1", "spacing.2"]


@pytest.mark.parametrize("model", ["wine_scale", "wine_nom_scale", "soup_scale", "wine_weights"])
def test_gradient_and_hessian_are_those_of_the_likelihood(model):
    """The analytic derivatives against central differences of the negative log-likelihood."""
    m = fit(model)
    par = m.par + 0.05
    _, grad, hess = clm_objective(m.design, par, order=2)
    h = 1e-5
    eye = np.eye(len(par))
    num = np.array([(clm_objective(m.design, par + h * e) - clm_objective(m.design, par - h * e)) / (2 * h)
                    for e in eye])
    np.testing.assert_allclose(grad, num, rtol=1e-6, atol=1e-5)
    num_h = np.array([(clm_objective(m.design, par + h * e, 1)[1] - clm_objective(m.design, par - h * e, 1)[1])
                      / (2 * h) for e in eye])
    np.testing.assert_allclose(hess, num_h, rtol=1e-5, atol=1e-4)


def r_summaries() -> dict[str, list[str]]:
    """R's printed summaries by model: the file split at its "=== MODEL" lines."""
    parts = re.split(r"^=== (.+)\n", (FIXTURES / "clm_summaries.txt").read_text(), flags=re.M)
    return {name: text.splitlines() for name, text in zip(parts[1::2], parts[2::2], strict=True)}


def comparable(lines: list[str]) -> list[str]:
    """Without the data line (R prints the data's name) and the info table's niter and
    max.grad (each optimiser's own); its other cells compared."""
    i = next(k for k, line in enumerate(lines) if line.startswith(" link "))
    info = dict(zip(lines[i].split(), lines[i + 1].split(), strict=True))
    info = {k: v for k, v in info.items() if k not in ("niter", "max.grad")}
    return [str(info), *(line for k, line in enumerate(lines) if k not in (i, i + 1) and not line.startswith("data:"))]


@pytest.mark.parametrize("model", list(FITS))
def test_clm_summary_prints_as_ordinal(model):
    assert comparable(str(clm_summary(fit(model))).splitlines()) == comparable(r_summaries()[model])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"nominal": "contact"}, "one-sided formula"),
    ({"scale": "~ 0 + temp"}, "no intercept"),
    ({"scale": "~ nope"}, "nope"),
    ({"weights": "nope"}, "not a column"),
    ({"weights": np.r_[-1.0, np.ones(71)]}, "positive"),
])
def test_clm_argument_errors(kwargs, message):
    with pytest.raises((ValueError, KeyError), match=message):
        clm("rating ~ temp", wine(), **kwargs)


def test_clm_result_errors():
    m = fit("wine_plain")
    with pytest.raises(ValueError, match="type='response'"):
        m.predict(type="response")
    with pytest.raises(ValueError, match="thresholds are not profiled"):
        m.confint(parm=["1|2"])
    with pytest.raises(ValueError, match="'profile' or 'Wald'"):
        m.confint(type="boot")
    two = wine().assign(r2=lambda d: pd.Categorical((d["rating"].astype(int) > 2).astype(int) + 1, ordered=True))
    with pytest.raises(ValueError, match="3 or more categories"):
        clm("r2 ~ temp", two, threshold="symmetric2")
    bad = GRIDS["wine"].assign(rating=["1", "2", "9", "3"])
    with pytest.raises(ValueError, match="not categories"):
        m.predict(bad)
