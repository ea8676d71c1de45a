"""Likelihood-profile confidence intervals of an :func:`stats.lmer` fit (lme4's
``confint(m, method="profile")``; Bates et al. 2015, J. Stat. Softw. 67(1), section 5.1).

As lme4's ``profile.merMod`` does, the model is refitted by maximum likelihood and each
parameter (standard deviations, correlations and sigma on their own scale, then the fixed
effects) is held at a value while the deviance is minimised over all others; the interval
ends are where the signed root ``zeta = sign(v - v_hat) sqrt(D(v) - D_hat)`` reaches the
normal quantile. By hand: no Python library profiles a mixed model's likelihood.

A glmer fit is profiled on the Laplace (or adaptive Gauss-Hermite) deviance of the SDs,
correlations and fixed effects that the fit maximised (``laplace.glmer_devfun``: -2 logLik,
the observed information in the curvature, glmmTMB's and glmm's), as lme4's ``profile``
does for a GLMM on its own deviance, with the same root finding. For a canonical link that
is lme4's deviance; for probit, cloglog, ... lme4's uses the expected information, and its
intervals are centred on its own optimum, not on this fit's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as sps

from acceptability.stats.mixed import pls
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.laplace import glmer_devfun
from acceptability.stats.mixed.results import MixedResult

__all__ = ["profile_confint"]


def _layout(d: MixedDesign) -> list[tuple[int, int, int]]:
    """Per variance parameter (term, i, j): an SD when i == j, else the correlation of i, j,
    in the order of ``VarCorr`` (SDs of a term, then its correlations)."""
    out = []
    for k, t in enumerate(d.terms):
        out += [(k, i, i) for i in range(t.nc)]
        out += [(k, i, j) for i in range(t.nc) for j in range(i + 1, t.nc)]
    return out


def _to_theta(d: MixedDesign, s: np.ndarray) -> tuple[np.ndarray, float]:
    """(theta, sigma) from (SDs and correlations in ``_layout`` order, sigma)."""
    sigma = s[-1]
    covs = [np.zeros((t.nc, t.nc)) for t in d.terms]
    sds = {(k, i): v for (k, i, j), v in zip(_layout(d), s, strict=False) if i == j}
    for (k, i, j), v in zip(_layout(d), s, strict=False):
        if i == j:
            covs[k][i, i] = v**2
        else:
            covs[k][i, j] = covs[k][j, i] = v * sds[(k, i)] * sds[(k, j)]
    return d.theta_from_covariances(covs, sigma), sigma


def _bounds(d: MixedDesign) -> list[tuple[float, float | None]]:
    return [(0.0, None) if i == j else (-1.0, 1.0) for _, i, j in _layout(d)] + [(1e-12, None)]


def _ml_deviance(d: MixedDesign, s: np.ndarray) -> float:
    theta, sigma = _to_theta(d, s)
    try:
        return pls.varpar_deviance(d, np.append(theta, sigma), reml=False)
    except np.linalg.LinAlgError:  # sigma so small against the SDs that A is numerically singular
        return np.inf


def _min_over(fun, x0: np.ndarray, bounds) -> tuple[float, np.ndarray]:
    if len(x0) == 0:
        return fun(x0), x0
    with np.errstate(invalid="ignore"):  # a difference step into the infinite region
        r = optimize.minimize(fun, x0, method="L-BFGS-B", bounds=bounds, jac="3-point",
                              options={"ftol": 1e-13, "gtol": 1e-8})
    return float(r.fun), r.x


def _zeta_roots(zeta, est: float, step: float, z: float, lo: float | None, hi: float | None) -> tuple[float, float]:
    """Where zeta(v) = -z below ``est`` and = +z above it (a bound when never reached).
    Values are remembered, so that the root finder sees the signs the bracketing saw (the
    inner optimisations start where the last one ended). The roots are found to 1e-10 of
    ``step`` (the parameter's scale), not of ``est``: an intercept of 1e8 (y + 1e8) was
    found to 0.01, 3.4e-4 off (issue 43, item 7)."""
    memo: dict[float, float] = {est: 0.0}

    def cached(v: float) -> float:
        if v not in memo:
            memo[v] = zeta_raw(v)
        return memo[v]

    zeta_raw, zeta = zeta, cached
    out = []
    for sign, bound in ((-1, lo), (1, hi)):
        a, width = est, step
        for _ in range(60):
            b = est + sign * width
            if bound is not None and sign * (b - bound) >= 0:
                b = bound
            if sign * zeta(b) >= z:
                out.append(optimize.brentq(lambda v, s=sign: zeta(v) - s * z, a, b, xtol=1e-10 * max(1, step)))
                break
            if b == bound:
                out.append(bound)
                break
            a, width = b, width * 2
        else:
            out.append(np.nan)
    return out[0], out[1]


@pls.one_blas_thread
def profile_confint(m: MixedResult, level: float = 0.95) -> pd.DataFrame:
    """Profile intervals for ``m.params()`` (lower, upper columns)."""
    if m._kind == "glmer":
        return _glmm_profile(m, level)
    ml = m.refit_ml()
    d = ml.design
    z = sps.norm.ppf((1 + level) / 2)
    s_hat = np.append(ml._varpars().to_numpy()[:-1], ml.sigma)
    dev_hat = _ml_deviance(d, s_hat)
    bounds = _bounds(d)
    rows = []
    for j in range(len(s_hat)):
        others = [k for k in range(len(s_hat)) if k != j]
        warm = {"x": s_hat[others]}

        def zeta(v: float, j=j, others=others, warm=warm) -> float:
            def dev(x: np.ndarray) -> float:
                s = s_hat.copy()
                s[j], s[others] = v, x
                return _ml_deviance(d, s)
            # from the estimate and from the last end point: the better of the two, as a
            # quasi-Newton run from one start can stop short where the profile bends
            b_others = [bounds[k] for k in others]
            val, warm["x"] = min(_min_over(dev, warm["x"], b_others),
                                 _min_over(dev, s_hat[others], b_others), key=lambda r: r[0])
            return float(np.sign(v - s_hat[j]) * np.sqrt(max(val - dev_hat, 0.0)))

        lo, hi = bounds[j]
        step = max(abs(s_hat[j]) * 0.25, 1e-3)
        rows.append(_zeta_roots(zeta, s_hat[j], step, z, lo, hi))
    for j in range(d.p):
        rest = np.delete(np.arange(d.p), j)
        sub = MixedDesign(d.formula, d.frame, d.y, d.X[:, rest], [d.xnames[k] for k in rest], d.terms,
                          weights=d.weights, offset=d.offset)
        est, se = ml.fixef.iloc[j], ml.se.iloc[j]
        warm = {"theta": ml.theta}

        def zeta_beta(v: float, j=j, sub=sub, est=est, warm=warm) -> float:
            offset = d.X[:, j] * v
            warm["theta"], _ = pls.fit_theta(sub, False, warm["theta"], offset=offset)
            val = pls.pls(sub, warm["theta"], False, offset=offset).deviance
            return float(np.sign(v - est) * np.sqrt(max(val - ml.deviance, 0.0)))

        rows.append(_zeta_roots(zeta_beta, est, se, z, None, None))
    return pd.DataFrame(rows, index=m.params().index, columns=["lower", "upper"])


def _glmm_profile(m: MixedResult, level: float) -> pd.DataFrame:
    """Profile intervals of a glmer fit: the deviance of (SDs and correlations, beta) is
    the fit's (-2 logLik) at its nAGQ; its minimum is polished from the fit's estimates (the
    profile's zero), and each parameter is held while the others are re-optimised, on each
    side from where the last value on that side left them. The optimiser works in units of
    each parameter's scale (a quarter of an SD, a fixed effect's standard error): unscaled,
    a slope on a wide covariate (grouseticks' centred height, SE 0.004) made its first
    quasi-Newton steps overflow the linear predictor."""
    d = m.design
    devfun = glmer_devfun(m)
    z = sps.norm.ppf((1 + level) / 2)
    k = len(_layout(d))
    bounds = _bounds(d)[:-1] + [(None, None)] * d.p
    s0 = np.append(m._varpars().to_numpy(), m.fixef)
    se = m.se.to_numpy()
    scale = np.append(np.maximum(0.25 * np.abs(s0[:k]), 0.05),
                      np.where(np.isfinite(se) & (se > 0), se, np.maximum(0.1 * np.abs(s0[k:]), 0.1)))

    def deviance(s: np.ndarray) -> float:
        theta, _ = _to_theta(d, np.append(s[:k], 1.0))
        try:
            return devfun.mode(theta, s[k:]).deviance
        except (RuntimeError, np.linalg.LinAlgError):  # PIRLS failed far out: not the minimum
            return np.inf

    def minimise(fun, x0: np.ndarray, idx: np.ndarray) -> tuple[float, np.ndarray]:
        """min of fun over the parameters ``idx`` from x0, in units of their scale."""
        sc = scale[idx]
        unit = [(None if lo is None else (lo - c) / s, None if hi is None else (hi - c) / s)
                for (lo, hi), c, s in zip([bounds[i] for i in idx], x0, sc, strict=True)]
        with np.errstate(invalid="ignore"):  # a difference step into the infinite region
            r = optimize.minimize(lambda t: fun(x0 + t * sc), np.zeros(len(x0)), method="L-BFGS-B",
                                  jac="3-point", bounds=unit, options={"ftol": 1e-12, "gtol": 1e-6})
        return float(r.fun), x0 + r.x * sc

    everything = np.arange(len(s0))
    dev_hat, s_hat = minimise(deviance, s0, everything)
    rows = []
    for j in everything:
        others = np.delete(everything, j)
        warm = {-1.0: s_hat[others], 1.0: s_hat[others]}

        def zeta(v: float, j=j, others=others, warm=warm) -> float:
            def dev(x: np.ndarray) -> float:
                s = s_hat.copy()
                s[j], s[others] = v, x
                return deviance(s)
            side = 1.0 if v >= s_hat[j] else -1.0
            val, warm[side] = minimise(dev, warm[side], others)
            return float(side * np.sqrt(max(val - dev_hat, 0.0)))

        lo, hi = bounds[j]
        rows.append(_zeta_roots(zeta, s_hat[j], scale[j], z, lo, hi))
    return pd.DataFrame(rows, index=m.params().index, columns=["lower", "upper"])
