"""Newton's method for a cumulative link model on its exact log-likelihood, with the
analytic gradient and Hessian (ordinal's ``clm.fit.NR``, ``clm.nll``, ``clm.grad``,
``clm.hess``; Christensen 2019, "Cumulative link models for ordinal regression with the R
package ordinal", section 3.1), case weights and scale effects included.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from scipy.linalg import lapack

from acceptability.stats.mixed.ordinal.clm_effects import scale_objective
from acceptability.stats.mixed.ordinal.ordinal_links import interval

if TYPE_CHECKING:
    from acceptability.stats.mixed.ordinal.clm_design import OrdinalDesign

__all__ = ["NewtonFit", "clm_objective", "newton_clm"]

# a step is kept where the negative log-likelihood rises by no more than this much relative:
# the rounding of its sum near the optimum (a strict nll_new <= nll halved the last steps of
# nominal and scale fits up to 14 times before they stopped)
_ROUNDING = 64 * np.finfo(float).eps


def clm_objective(d: OrdinalDesign, par: np.ndarray, order: int = 0):
    """Negative log-likelihood at ``par`` (``order`` 0), with its gradient (1) and Hessian
    (2) (ordinal's ``clm.nll``, ``clm.grad``, ``clm.hess``), each row counted with its case
    weight; inf where a row has probability <= 0 (thresholds out of order). With scale
    effects: [scale_objective][acceptability.stats.mixed.ordinal.clm_effects.scale_objective]."""
    if d.scale is not None:
        return scale_objective(d, par, order)
    a, b = d.ends(par)
    iv = interval(d.link, a, b)
    p = iv.p
    if not np.all(p > 0):
        return np.inf if order == 0 else (np.inf, *[None] * order)
    w = d.weights
    logp = np.log(p)
    nll = float(-(np.sum(logp) if w is None else w @ logp))
    if order == 0:
        return nll
    c = 1 / p if w is None else w / p
    grad = d.B1.T @ (-iv.fa * c) + d.B2.T @ (iv.fb * c)
    if order == 1:
        return nll, grad
    c2 = d.B1 * iv.fa[:, None] - d.B2 * iv.fb[:, None]
    hess = -(d.B1.T @ (d.B1 * (iv.ga * c)[:, None]) - d.B2.T @ (d.B2 * (iv.gb * c)[:, None]))
    hess += c2.T @ (c2 * (c / p)[:, None])
    return nll, grad, hess


@dataclass
class NewtonFit:
    par: np.ndarray
    nll: float
    gradient: np.ndarray
    hessian: np.ndarray
    iterations: int
    halvings: int
    converged: bool


def _newton_direction(hess: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """H^-1 g by LAPACK's Cholesky factor and solve (dpotrf, dpotrs: a tenth of numpy's
    cholesky and two general solves on these small matrices), with H's diagonal inflated by
    |min eigenvalue| + 1 where H is not positive definite (ordinal's ``clm.fit.NR``)."""
    chol, info = lapack.dpotrf(hess, lower=1)
    if info != 0:
        inflate = abs(np.linalg.eigvalsh(hess).min()) + 1
        chol, info = lapack.dpotrf(hess + inflate * np.eye(len(hess)), lower=1)
        if info != 0:
            raise np.linalg.LinAlgError("clm: the Hessian is not positive definite even inflated")
    return lapack.dpotrs(chol, grad, lower=1)[0]


def _start(d: OrdinalDesign) -> np.ndarray:
    """ordinal's ``set.start``: with scale effects, the fit without them (zeta = 0) is the
    start (a Newton step from sigma = 1 at crude thresholds overshoots: 12 iterations and 21
    halvings on soup, 8 and 0 from here)."""
    if d.scale is None:
        return d.start()
    return np.concatenate([newton_clm(replace(d, scale=None)).par, np.zeros(d.nzeta)])


def newton_clm(d: OrdinalDesign, max_iter: int = 100, start: np.ndarray | None = None,
               free: np.ndarray | None = None) -> NewtonFit:
    """Newton's method with step halving, to the precision of the arithmetic: it stops
    when the Newton step is below 1e-10 (ordinal stops at max|gradient| < 1e-6 and steps
    below 1e-6; the same optimum, to more digits). It starts where ordinal does: logistic
    quantiles for the thresholds, zero coefficients (with scale effects: the fit without
    them), or at ``start``. As ordinal's ``clm.fit.NR`` a halved step factor is doubled
    back one step at a time. Each trial point's gradient and Hessian are computed with its
    likelihood (one pass over the rows: accepted points are the next iteration's).
    ``free`` (a mask) moves only those parameters, the others held at ``start`` (a
    profile's fits); the gradient and Hessian returned are then those of the free ones."""
    par = _start(d) if start is None else np.array(start, float)
    idx = np.arange(d.npar) if free is None else np.flatnonzero(free)
    nll, grad_all, hess_all = clm_objective(d, par, order=2)
    if not np.isfinite(nll):
        raise ValueError("clm: the log-likelihood is not finite at the starting values")
    halvings, iterations, converged, factor = 0, 0, False, 1.0
    while iterations < max_iter:
        iterations += 1
        grad, hess = grad_all[idx], hess_all[np.ix_(idx, idx)]
        step = _newton_direction(hess, grad)
        if np.max(np.abs(step)) < 1e-10:
            converged = True
            break
        factor = min(1.0, 2 * factor)
        while True:
            trial = par.copy()
            trial[idx] -= factor * step
            out = clm_objective(d, trial, order=2)
            if out[0] <= nll + _ROUNDING * abs(nll):  # no rise beyond the rounding of the sum
                break
            factor /= 2
            halvings += 1
            if factor < 2**-30:  # no descent left: at the optimum to rounding error
                converged = bool(np.max(np.abs(grad)) < 1e-6)
                trial, out = par, (nll, grad_all, hess_all)
                break
        par, (nll, grad_all, hess_all) = trial, out
        if factor < 2**-30:
            break
    return NewtonFit(par, nll, grad_all[idx], hess_all[np.ix_(idx, idx)], iterations, halvings, converged)
