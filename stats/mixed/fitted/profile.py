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

from collections.abc import Callable
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as sps

from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.glmm.laplace import glmer_devfun
from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.results import MixedResult

__all__ = ["MixedProfile", "lme4_names", "profile_confint"]


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
    """min of a linear model's ML deviance over the free SDs, correlations and sigma, by
    L-BFGS-B with forward differences: as exact against lme4's profile intervals as central
    ones (sleepstudy 4.8e-5, Penicillin 3.9e-5 relative, both), in half the evaluations."""
    if len(x0) == 0:
        return fun(x0), x0
    with np.errstate(invalid="ignore"):  # a difference step into the infinite region
        r = optimize.minimize(fun, x0, method="L-BFGS-B", bounds=bounds, jac="2-point",
                              options={"ftol": 1e-13, "gtol": 1e-8})
    return float(r.fun), r.x


def _zeta_roots(zeta, est: float, step: float, z: float, lo: float | None, hi: float | None,
                xtol: float = 1e-10) -> tuple[float, float]:
    """Where zeta(v) = -z below ``est`` and = +z above it (a bound when never reached).
    Values are remembered, so that the root finder sees the signs the bracketing saw (the
    inner optimisations start where the last one ended). The roots are found to 1e-10 of
    ``step`` (the parameter's scale), not of ``est``: an intercept of 1e8 (y + 1e8) was
    found to 0.01, 3.4e-4 off (issue 43, item 7). A profile's frame asks for its ends to
    ``xtol`` 1e-2 of the step: only its grid's reach depends on them."""
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
                out.append(optimize.brentq(lambda v, s=sign: zeta(v) - s * z, a, b, xtol=xtol * max(1, step)))
                break
            if b == bound:
                out.append(bound)
                break
            a, width = b, width * 2
        else:
            out.append(np.nan)
    return out[0], out[1]


def _from_theta(d: MixedDesign, theta: np.ndarray, sigma: float) -> np.ndarray:
    """(SDs and correlations in ``_layout`` order, sigma) from (theta, sigma): `_to_theta`'s inverse."""
    covs = d.covariances(theta, sigma)
    out = []
    for k, i, j in _layout(d):
        c = covs[k]
        out.append(np.sqrt(c[i, i]) if i == j else c[i, j] / np.sqrt(c[i, i] * c[j, j]) if c[i, i] * c[j, j] > 0 else 0.0)
    return np.append(out, sigma)


def lme4_names(m: MixedResult) -> dict[str, str]:
    """lme4's profile names of ``m.params()``: ``.sig01``... in theta's order (each term's
    lower triangle column by column: an SD, then the correlations below it), ``.sigma``,
    then the fixed effects' own names."""
    d, ours = m.design, list(m._varpars().index)
    order: dict[tuple[int, int, int], int] = {}
    for k, t in enumerate(d.terms):
        for c in range(t.nc):
            for r in range(c, t.nc):
                order[(k, c, r)] = len(order)
    layout = _layout(d)
    out = {ours[n]: f".sig{order[key] + 1:02d}" for n, key in enumerate(layout)}
    if m._has_sigma:
        out["sigma"] = ".sigma"
    return out | {x: x for x in m.fixef.index}


GRID = 3  # evenly spaced points of each side of a profile's frame (besides the root finder's)
Zeta = Callable[[float], tuple[float, np.ndarray]]  # value -> (zeta, every parameter at the point)


def _lmm_zetas(m: MixedResult) -> tuple[np.ndarray, list[Zeta], np.ndarray, list]:
    """The ML profile of a linear model: estimates, one zeta per parameter of ``m.params()``,
    each parameter's scale and bounds."""
    ml = m.refit_ml()
    d = ml.design
    s_hat = np.append(ml._varpars().to_numpy()[:-1], ml.sigma)
    dev_hat = _ml_deviance(d, s_hat)
    bounds = _bounds(d)
    zetas: list[Zeta] = []
    for j in range(len(s_hat)):
        others = [k for k in range(len(s_hat)) if k != j]
        warm = {"x": s_hat[others]}

        def zeta(v: float, j=j, others=others, warm=warm) -> tuple[float, np.ndarray]:
            def dev(x: np.ndarray) -> float:
                s = s_hat.copy()
                s[j], s[others] = v, x
                return _ml_deviance(d, s)
            # from the estimate and from the last end point: the better of the two, as a
            # quasi-Newton run from one start can stop short where the profile bends
            b_others = [bounds[k] for k in others]
            starts = [warm["x"]] + ([] if np.array_equal(warm["x"], s_hat[others]) else [s_hat[others]])
            val, warm["x"] = min((_min_over(dev, x0, b_others) for x0 in starts), key=lambda r: r[0])
            s = s_hat.copy()
            s[j], s[others] = v, warm["x"]
            try:
                beta = pls.pls(d, _to_theta(d, s)[0], False).beta
            except np.linalg.LinAlgError:  # where the deviance is infinite too (_ml_deviance)
                beta = np.full(d.p, np.nan)
            return float(np.sign(v - s_hat[j]) * np.sqrt(max(val - dev_hat, 0.0))), np.append(s, beta)

        zetas.append(zeta)
    for j in range(d.p):
        zetas.append(_beta_zeta(ml, j))
    scale = np.append(np.maximum(np.abs(s_hat) * 0.25, 1e-3), ml.se)
    return np.append(s_hat, ml.fixef), zetas, scale, bounds + [(None, None)] * d.p


def _beta_zeta(ml: MixedResult, j: int) -> Zeta:
    """zeta of fixed effect j: the model refitted with X_j beta_j as an offset."""
    d = ml.design
    rest = np.delete(np.arange(d.p), j)
    sub = MixedDesign(d.formula, d.frame, d.y, d.X[:, rest], [d.xnames[k] for k in rest], d.terms,
                      weights=d.weights, offset=d.offset)
    est = ml.fixef.iloc[j]
    warm = {"theta": ml.theta}

    def zeta(v: float) -> tuple[float, np.ndarray]:
        offset = d.X[:, j] * v
        warm["theta"], _ = pls.fit_theta(sub, False, warm["theta"], offset=offset)
        f = pls.pls(sub, warm["theta"], False, offset=offset)
        beta = np.insert(f.beta, j, v)
        point = np.append(_from_theta(d, warm["theta"], f.sigma), beta)
        return float(np.sign(v - est) * np.sqrt(max(f.deviance - ml.deviance, 0.0))), point

    return zeta


def _glmm_zetas(m: MixedResult) -> tuple[np.ndarray, list[Zeta], np.ndarray, list]:
    """The profile of a glmer fit: the deviance of (SDs and correlations, beta) is
    the fit's (-2 logLik) at its nAGQ; its minimum is polished from the fit's estimates (the
    profile's zero), and each parameter is held while the others are re-optimised, on each
    side from where the last value on that side left them. The optimiser works in units of
    each parameter's scale (a quarter of an SD, a fixed effect's standard error): unscaled,
    a slope on a wide covariate (grouseticks' centred height, SE 0.004) made its first
    quasi-Newton steps overflow the linear predictor."""
    d = m.design
    devfun = glmer_devfun(m)
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
    zetas: list[Zeta] = []
    for j in everything:
        others = np.delete(everything, j)
        warm = {-1.0: s_hat[others], 1.0: s_hat[others]}

        def zeta(v: float, j=j, others=others, warm=warm) -> tuple[float, np.ndarray]:
            def dev(x: np.ndarray) -> float:
                s = s_hat.copy()
                s[j], s[others] = v, x
                return deviance(s)
            side = 1.0 if v >= s_hat[j] else -1.0
            val, warm[side] = minimise(dev, warm[side], others)
            s = s_hat.copy()
            s[j], s[others] = v, warm[side]
            return float(side * np.sqrt(max(val - dev_hat, 0.0))), s

        zetas.append(zeta)
    return s_hat, zetas, scale, bounds


class MixedProfile:
    """The likelihood profile of an lmer / glmer fit (lme4's ``profile.merMod``): for each
    parameter of ``m.params()`` the signed root ``zeta`` of the deviance minimised over the
    others, on the SD / correlation / sigma scale (lme4's ``.sig01``..., ``.sigma``:
    `lme4_names`). ``zeta(name, v)`` evaluates it (remembered), `confint` finds where it
    crosses the normal quantiles, `frame` is the profile on a grid as lme4's
    ``as.data.frame(profile(m))`` and `plot` draws it as ``xyplot(profile(m))``."""

    def __init__(self, m: MixedResult) -> None:
        self.m = m
        self.names = list(m.params().index)
        setup = _glmm_zetas if m._kind == "glmer" else _lmm_zetas
        self.estimates, self._zetas, self._scale, self._bounds = setup(m)
        self._points: list[dict[float, tuple[float, np.ndarray]]] = [{} for _ in self.names]

    def _index(self, name: str | int) -> int:
        if isinstance(name, int):
            return name
        if name not in self.names:
            raise ValueError(f"parameter {name!r}: the profile's parameters are {self.names}")
        return self.names.index(name)

    @pls.one_blas_thread
    def point(self, name: str | int, v: float) -> tuple[float, np.ndarray]:
        """(zeta, every parameter) with parameter ``name`` held at ``v``."""
        j = self._index(name)
        if v not in self._points[j]:
            self._points[j][v] = (0.0, self.estimates.copy()) if v == self.estimates[j] else self._zetas[j](v)
        return self._points[j][v]

    def zeta(self, name: str | int, v: float) -> float:
        """The signed root of the deviance's rise with ``name`` held at ``v``."""
        return self.point(name, v)[0]

    def limits(self, j: int, z: float, xtol: float = 1e-10) -> tuple[float, float]:
        """Where parameter j's zeta reaches -z and +z (a bound when never reached)."""
        lo, hi = self._bounds[j]
        return _zeta_roots(lambda v: self.zeta(j, v), self.estimates[j], self._scale[j], z, lo, hi, xtol)

    @cached_property
    @pls.one_blas_thread
    def frame(self) -> pd.DataFrame:
        """The profile as lme4's ``as.data.frame(profile(m))``: for each parameter (``.par``)
        points from zeta = -cutoff to +cutoff (lme4's cutoff sqrt(qchisq(0.99, number of
        parameters))): those the root finding visited and `GRID` evenly spaced on each side
        of the estimate; columns ``.zeta``, every parameter's value (readable names:
        `lme4_names` gives lme4's), ``.par`` and ``.focal`` (the held value)."""
        cutoff = float(np.sqrt(sps.chi2.ppf(0.99, len(self.names))))
        rows = []
        for j, name in enumerate(self.names):
            lo, hi = self.limits(j, cutoff, xtol=1e-2)
            est = self.estimates[j]
            grid = [v for end in (lo, hi) if np.isfinite(end) for v in np.linspace(est, end, GRID + 2)[1:-1]]
            for v in [est, *grid]:
                self.point(j, v)
            inside = sorted(v for v in self._points[j] if lo <= v <= hi)
            for v in inside:
                z, values = self._points[j][v]
                if np.isfinite(z):
                    rows.append([z, *values, name, v])
        return pd.DataFrame(rows, columns=[".zeta", *self.names, ".par", ".focal"])

    @pls.one_blas_thread
    def confint(self, level: float = 0.95) -> pd.DataFrame:
        """Profile intervals of every parameter (lower, upper columns): lme4's
        ``confint(profile(m))`` with the ends found by root finding, not from a spline."""
        z = sps.norm.ppf((1 + level) / 2)
        rows = [self.limits(j, z) for j in range(len(self.names))]
        return pd.DataFrame(rows, index=self.names, columns=["lower", "upper"])


@pls.one_blas_thread
def profile_confint(m: MixedResult, level: float = 0.95) -> pd.DataFrame:
    """Profile intervals for ``m.params()`` (lower, upper columns): `MixedProfile.confint`."""
    return MixedProfile(m).confint(level)
