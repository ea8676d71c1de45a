"""Non-canonical links at the edge of their domain, lme4's convergence checks, lme4's nAGQ > 1
log-likelihood and deviance(), and glmer(nAGQ = 0) (issue 44, items 2, 5 and 9), against
lme4 1.1-31 and glmmTMB 1.1.5: every R number is in tests/fixtures/glmer_links_fits.csv,
written by benchmarks/glmer_links_reference.R; the integrals are brute force, written here.

Item 2 (the poisson sqrt link on grouseticks): before the fix the fit reported logLik -1234.19
with SE(Intercept) 0.00019 and "converged": the mode searched from u = 0 jumps between the
branches of mu = eta^2, and the optimiser stopped on the ridge where it jumps. The Laplace
likelihood now keeps the mode on R's valideta branch (eta > 0 where y > 0), where it is unique.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special
from scipy import stats as sps

from acceptability import stats
from acceptability.stats.mixed.checks import convergence_messages
from acceptability.stats.mixed.glmm.laplace import GlmerDevfun, LaplaceLikelihood
from acceptability.stats.mixed.mer import ConvergenceWarning
from tests.lme4_data import lme4_data

REF = pd.read_csv(Path(__file__).resolve().parents[2] / "fixtures" / "glmer_links_fits.csv", comment="#",
                  keep_default_na=False, na_values=["NA"])
SQRT = "TICKS ~ YEAR + sHEIGHT + (1 | LOCATION)"
CBPP = "cbind(incidence, size - incidence) ~ period + (1 | herd)"


def ref(model: str, source: str, quantity: str) -> pd.Series:
    rows = REF[(REF.model == model) & (REF.source == source) & (REF.quantity == quantity)]
    assert len(rows), (model, source, quantity)
    return rows.set_index("term").value


def one(model: str, source: str, quantity: str) -> float:
    return float(ref(model, source, quantity).iloc[0])


HERDS = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9, 5, 7, 0, 4], "n": [10] * 12,  # the docs page's
                      "x": [0, 1] * 6, "g": list("aabbccddeeff")})
HF = "cbind(k, n - k) ~ x + (1 | g)"


def grouse() -> pd.DataFrame:
    gt = lme4_data("grouseticks")
    return gt.assign(sHEIGHT=(gt["HEIGHT"] - gt["HEIGHT"].mean()) / gt["HEIGHT"].std())  # R's scale()


_FITS: dict[str, object] = {}


def fitted(name: str):
    if name not in _FITS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _FITS[name] = {
                "sqrt": lambda: stats.glmer(SQRT, grouse(), "poisson", link="sqrt"),
                "cbpp_laplace": lambda: stats.glmer(CBPP, lme4_data("cbpp")),
                "cbpp_agq9": lambda: stats.glmer(CBPP, lme4_data("cbpp"), nAGQ=9),
                "grouse_log_laplace": lambda: stats.glmer(SQRT, grouse(), "poisson"),
                "grouse_log_agq9": lambda: stats.glmer(SQRT, grouse(), "poisson", nAGQ=9),
                "cbpp_agq0": lambda: stats.glmer(CBPP, lme4_data("cbpp"), nAGQ=0),
                "cbpp_probit_agq0": lambda: stats.glmer(CBPP, lme4_data("cbpp"), link="probit", nAGQ=0),
                "grouse_log_agq0": lambda: stats.glmer(SQRT, grouse(), "poisson", nAGQ=0),
                "herds_laplace": lambda: stats.glmer(HF, HERDS),
                "herds_agq9": lambda: stats.glmer(HF, HERDS, nAGQ=9),
                "herds_agq0": lambda: stats.glmer(HF, HERDS, nAGQ=0),
            }[name]()
    return _FITS[name]


def lme4_point(model: str, source: str = "lme4") -> np.ndarray:
    """(theta, beta) of an R fit (one scalar random intercept: theta = its SD)."""
    return np.concatenate([ref(model, source, "sd").to_numpy(), ref(model, source, "fixef").to_numpy()])


def integral(design, x: np.ndarray, logf, branch: bool = False, n: int = 4001) -> float:
    """log of prod_j int phi(z) prod_{i in j} f(y_i | eta_i + theta z) dz for one scalar
    random intercept, by the trapezoid rule on z in [-10, 10]; with ``branch`` only where
    eta > 0 in every row with y > 0 of the level."""
    theta, beta = x[0], x[1:]
    eta0, codes, z = design.X @ beta, design.terms[0].codes, np.linspace(-10, 10, n)
    total = 0.0
    for j in range(design.terms[0].nlev):
        rows = codes == j
        eta = eta0[rows][:, None] + theta * z[None, :]
        lp = logf(rows, eta).sum(axis=0) + sps.norm.logpdf(z)
        if branch:
            lp[((eta <= 0) & (design.y[rows][:, None] > 0)).any(axis=0)] = -np.inf
        total += special.logsumexp(lp) + np.log(z[1] - z[0])  # the trapezoid's ends are ~0
    return float(total)


def poisson_sqrt(design):
    return lambda rows, eta: sps.poisson.logpmf(design.y[rows][:, None], eta**2)


# --- item 2: the poisson sqrt link ---------------------------------------------------------
def test_sqrt_fit_is_the_branch_optimum_glmmtmb_reaches_from_lme4s_start():
    """The fit equals glmmTMB's started at lme4's estimates: logLik -1253.6608 (abs 1e-3),
    estimates 1e-4 relative, SEs 1e-3 relative (measured: 8e-10, 5.7e-6, 3.1e-6)."""
    m = fitted("sqrt")
    assert m.logLik == pytest.approx(one("grouse_sqrt", "glmmTMB_lme4start", "logLik"), abs=1e-3)
    fe, se = ref("grouse_sqrt", "glmmTMB_lme4start", "fixef"), ref("grouse_sqrt", "glmmTMB_lme4start", "se")
    assert np.allclose(m.fixef[fe.index], fe, rtol=1e-4)
    assert np.allclose(m.se[se.index], se, rtol=1e-3)
    assert m.VarCorr.sdcor.iloc[0] == pytest.approx(one("grouse_sqrt", "glmmTMB_lme4start", "sd"), rel=1e-4)
    assert m.converged


def test_sqrt_fit_ses_are_lme4s_not_1000_times_smaller():
    """The SEs are within 2% of lme4's (the issue: SE(Intercept) 0.00019 against 0.164) and
    5% of glmmTMB's default fit (measured: 1.8% and 4.2%, YEAR97 and YEAR96), whose
    estimates sit on other branches."""
    m = fitted("sqrt")
    for source, tol in (("lme4", 0.02), ("glmmTMB", 0.05)):
        se = ref("grouse_sqrt", source, "se")
        assert np.allclose(m.se[se.index], se, rtol=tol), (source, (m.se[se.index] / se - 1).to_dict())


def test_sqrt_fit_is_at_least_as_good_as_lme4_and_glmmtmb_on_its_likelihood():
    """On the likelihood it maximises, lme4's estimates give -1255.90 and glmmTMB's default
    fit -1256.61, below the fit's -1253.66. lme4's own -1242.84 is another quantity: the
    expected information in log|A|, at a mode with eta < 0 in rows with y > 0."""
    m = fitted("sqrt")
    f = LaplaceLikelihood(m.design)
    at = {s: f.loglik(lme4_point("grouse_sqrt", s)) for s in ("lme4", "glmmTMB")}
    assert at["lme4"] == pytest.approx(-1255.90, abs=0.01)
    assert at["glmmTMB"] == pytest.approx(-1256.61, abs=0.01)
    assert m.logLik > max(at.values()) + 2
    assert one("grouse_sqrt", "lme4", "min_eta_positive_y") < -1  # lme4's mode: off the branch
    eta = m.predict().to_numpy()
    assert eta[m.design.y > 0].min() > 0.1


def test_sqrt_laplace_is_the_branch_integral():
    """At the fit the Laplace value (-1253.66) approximates the integral over the branch
    (brute force: -1254.03); the integral over every branch of mu = eta^2 is -1232.06, so the
    other branches carry most of the mass, which the fit's warning says."""
    m = fitted("sqrt")
    x = np.concatenate([m.theta, m.fixef.to_numpy()])
    logf = poisson_sqrt(m.design)
    branch, full = integral(m.design, x, logf, branch=True), integral(m.design, x, logf)
    assert branch == pytest.approx(-1254.03, abs=0.01)
    assert full == pytest.approx(-1232.06, abs=0.01)
    assert abs(m.logLik - branch) < 0.5


def test_sqrt_fit_warns_and_summary_says_why():
    with pytest.warns(ConvergenceWarning, match="sqrt link: the random effects put eta <= 0"):
        m = stats.glmer(SQRT, grouse(), "poisson", link="sqrt")
    text = str(m.summary())
    assert "optimizer (acceptability Laplace" in text and "converged" in text
    assert "sqrt link: the random effects put eta <= 0 within reach of 10 of the 277 rows" in text


def test_identity_link_with_the_mode_on_the_boundary_is_refused():
    """poisson(identity) on cbpp: herds with no cases push mu -> 0 at the mode; lme4 stops
    ('PIRLS loop resulted in NaN value'); glmmTMB reports -98.27, evaluating dpois there."""
    assert one("cbpp_identity", "lme4", "error") == 1
    assert np.isfinite(one("cbpp_identity", "glmmTMB", "logLik"))
    with pytest.raises(ValueError, match=r"poisson\('identity'\).*edge of the family's range \(mu -> 0\)"
                                         r".*y there: 0\).*link 'log'"):
        stats.glmer("incidence ~ period + (1 | herd)", lme4_data("cbpp"), "poisson", link="identity")


@pytest.mark.parametrize(("h", "message"), [
    (np.diag([2.0, 3e6, 1.0]), "Model is nearly unidentifiable: very large eigenvalue - Rescale variables?"),
    (np.diag([2.0, -1.0, 1.0]), "Model failed to converge: degenerate fixed-effect Hessian with 1 negative"),
    (np.diag([2.0, 1e-9, 1.0]), "fixed-effect Hessian is numerically singular"),
])
def test_convergence_messages_are_lme4s(h, message):
    """lme4's checkConv / checkHess (lme4 1.1-31, glmerControl's tolerances) on a Hessian with
    a huge, a negative and a zero eigenvalue (theta first, then two fixed effects)."""
    out = convergence_messages(np.zeros(3), h, ntheta=1)
    assert any(m.startswith(message) for m in out), out


def test_a_badly_scaled_fit_warns_as_lme4_and_is_not_converged():
    """sleepstudy's Days in ms on a Gamma identity GLMM: lme4 gives "very large eigenvalue"
    and "large eigenvalue ratio"; so does the fit, unconverged, in the warning and summary()."""
    ss = lme4_data("sleepstudy").assign(ms=lambda f: f["Days"] * 1000)
    for q in ("very_large_eigenvalue", "large_eigenvalue_ratio"):
        assert one("sleepstudy_ms_gamma_identity", "lme4", q) == 1
    with pytest.warns(ConvergenceWarning, match="model failed to converge; Model is nearly unidentifiable: "
                                                "very large eigenvalue"):
        m = stats.glmer("Reaction ~ ms + (1 | Subject)", ss, "Gamma", link="identity")
    assert not m.converged
    text = str(m.summary())
    assert "did NOT converge" in text and "large eigenvalue ratio - Rescale variables?" in text


def test_convergence_messages_scaled_gradient():
    """The scaled gradient solve(chol(H), g), elementwise the smaller of it and g, against
    0.002: here chol(H) = diag(10, 1), g = (0.05, 0.001): 0.005 > 0.002, component 1."""
    out = convergence_messages(np.array([0.05, 0.001]), np.diag([100.0, 1.0]), ntheta=1)
    assert out == ["Model failed to converge with max|grad| = 0.005 (tol = 0.002, component 1)"]
    assert convergence_messages(np.array([0.01, 0.001]), np.diag([100.0, 1.0]), ntheta=1) == []


# --- item 5: lme4's nAGQ > 1 log-likelihood and deviance() ----------------------------------
def _binomial(design):
    n, k = design.trials, design.y * design.trials
    return lambda rows, eta: sps.binom.logpmf(k[rows][:, None], n[rows][:, None], special.expit(eta))


def _poisson(design):
    return lambda rows, eta: sps.poisson.logpmf(design.y[rows][:, None], np.exp(eta))


@pytest.mark.parametrize(("name", "logf", "tol"), [("cbpp_agq9", _binomial, 1e-5), ("herds_agq9", _binomial, 1e-5),
                                                 ("grouse_log_agq9", _poisson, 5e-4)])
def test_agq_loglik_is_the_integral_and_lme4s_is_off_by_the_saturated_loglik(name, logf, tol):
    """The brute-force marginal likelihood at each fit's estimates: ours (nAGQ = 9) equals it
    to 1e-5 on cbpp and 5e-4 on grouseticks (measured: 2.4e-4: nine points for locations of
    up to 50 rows); lme4's logLik (-50.005 on cbpp, -667.90 on grouseticks) is it less the saturated
    model's log-likelihood sum log f(y | mu = y) (lme4 sums deviance residuals: lme4 GitHub
    issues 161 and 567), to the same precision."""
    m = fitted(name)
    ours = integral(m.design, np.concatenate([m.theta, m.fixef.to_numpy()]), logf(m.design))
    assert m.logLik == pytest.approx(ours, abs=tol)
    at_lme4 = integral(m.design, lme4_point(name), logf(m.design))
    y = m.design.y
    if m.family == "binomial":
        saturated = sps.binom.logpmf(np.round(y * m.design.trials), m.design.trials, y).sum()
    else:
        saturated = sps.poisson.logpmf(y, y).sum()
    assert one(name, "lme4", "logLik") == pytest.approx(at_lme4 - saturated, abs=tol)
    assert m.logLik == pytest.approx(at_lme4, abs=tol + 1e-4)  # the same optimum


@pytest.mark.parametrize("name", ["cbpp_laplace", "cbpp_agq9", "grouse_log_laplace", "grouse_log_agq9",
                                  "herds_laplace", "herds_agq9"])
def test_deviance_is_minus_twice_loglik_and_lme4s_sums_the_deviance_residuals(name):
    """Our deviance is -2 logLik (lme4's summary prints that); lme4's deviance(m) is the sum
    of squared deviance residuals at the conditional modes (the conditional deviance),
    recomputed here from our fitted means to 1e-4 relative."""
    m = fitted(name)
    assert m.deviance == pytest.approx(-2 * m.logLik, abs=1e-9)
    if name.endswith("laplace"):
        assert m.deviance == pytest.approx(one(name, "lme4", "minus2logLik"), abs=2e-3)
    y, mu = m.design.y, m.fitted.to_numpy()
    if m.family == "binomial":
        n = m.design.trials
        res = 2 * n * (special.xlogy(y, y / mu) + special.xlogy(1 - y, (1 - y) / (1 - mu)))
    else:
        res = 2 * (special.xlogy(y, y / mu) - (y - mu))
    assert res.sum() == pytest.approx(one(name, "lme4", "deviance"), rel=1e-4)
    assert one(name, "lme4", "deviance") == pytest.approx(one(name, "lme4", "devresid_sum"), rel=1e-12)


# --- item 9: nAGQ = 0 -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cbpp_agq0", "grouse_log_agq0", "cbpp_probit_agq0", "herds_agq0"])
def test_nagq0_matches_lme4(name):
    """Estimates, SEs and theta to 1e-4 relative (measured: 2.9e-7 at worst); logLik to 1e-4
    for a canonical link; for probit lme4's logLik is its deviance function's (the expected
    information), which GlmerDevfun at our estimates gives to 1e-4."""
    m = fitted(name)
    assert m.nagq == 0 and m.engine.startswith("acceptability nAGQ=0")
    for q, ours in (("fixef", m.fixef), ("se", m.se)):
        r = ref(name, "lme4", q)
        assert np.allclose(ours[r.index], r, rtol=1e-4), (q, (ours[r.index] / r - 1).to_dict())
    assert m.theta == pytest.approx(ref(name, "lme4", "theta").to_numpy(), rel=1e-4)
    lme4 = one(name, "lme4", "logLik")
    if name == "cbpp_probit_agq0":
        devfun = GlmerDevfun(m.design)(np.concatenate([m.theta, m.fixef.to_numpy()]))
        assert -devfun / 2 == pytest.approx(lme4, abs=1e-4)
        assert m.logLik > lme4  # the observed information's Laplace value, as the other fits
    else:
        assert m.logLik == pytest.approx(lme4, abs=1e-4)


def test_nagq0_is_refused_for_a_dispersion_family():
    ss = lme4_data("sleepstudy")
    with pytest.raises(Exception, match="nAGQ=0 is fitted for binomial and poisson"):
        stats.glmer("Reaction ~ Days + (1 | Subject)", ss, "Gamma", link="log", nAGQ=0)


def test_the_docs_pages_numbers():
    """docs/mixed/differences-from-r.md's numbers, at the precision it prints them."""
    r = {(m, q): round(one(m, "lme4", q), 4) for m, q in [
        ("cbpp_agq9", "logLik"), ("cbpp_laplace", "deviance"), ("cbpp_laplace", "minus2logLik"),
        ("grouse_sqrt", "logLik"), ("herds_agq9", "logLik"), ("herds_laplace", "deviance"),
        ("herds_laplace", "minus2logLik"), ("herds_agq0", "logLik"), ("cbpp_probit_agq0", "logLik")]}
    assert r == {("cbpp_agq9", "logLik"): -50.005, ("cbpp_laplace", "deviance"): 73.4717,
                 ("cbpp_laplace", "minus2logLik"): 184.0526, ("grouse_sqrt", "logLik"): -1242.8443,
                 ("herds_agq9", "logLik"): -7.897, ("herds_laplace", "deviance"): 6.2313,
                 ("herds_laplace", "minus2logLik"): 43.6052, ("herds_agq0", "logLik"): -21.8138,
                 ("cbpp_probit_agq0", "logLik"): -92.6368}
    assert round(ref("grouse_sqrt", "lme4", "se")["(Intercept)"], 3) == 0.164
    assert round(one("grouse_sqrt", "glmmTMB", "logLik"), 2) == -1249.65
    assert round(one("cbpp_identity", "glmmTMB", "logLik"), 2) == -98.27
    assert (round(fitted("cbpp_agq9").logLik, 3), round(fitted("cbpp_laplace").deviance, 2)) == (-91.983, 184.05)
    assert round(fitted("sqrt").logLik, 2) == -1253.66 and round(fitted("sqrt").se["(Intercept)"], 3) == 0.165
    assert round(fitted("cbpp_probit_agq0").logLik, 3) == -92.592
    herds = ref("herds_agq0", "lme4", "fixef").round(4).tolist() + [round(one("herds_agq0", "lme4", "theta"), 4)]
    assert herds == [-1.1634, 1.8193, 0.6557]
    worst = max(np.max(np.abs(np.r_[fitted(n).fixef, fitted(n).se, fitted(n).theta]
                              / np.r_[ref(n, "lme4", "fixef"), ref(n, "lme4", "se"), ref(n, "lme4", "theta")] - 1))
                for n in ("cbpp_agq0", "grouse_log_agq0", "cbpp_probit_agq0", "herds_agq0"))
    assert worst < 1e-6  # "to 1e-6 relative"


def test_nagq0_fit_has_no_likelihood_profile():
    with pytest.raises(ValueError, match="nAGQ=0: the fit's fixed effects come from PIRLS.*nAGQ=1"):
        fitted("herds_agq0").confint(method="profile")
    assert "nAGQ = 0" in str(fitted("herds_agq0").summary()).splitlines()[0]  # lme4's title
