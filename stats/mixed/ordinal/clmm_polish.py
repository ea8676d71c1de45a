"""The last steps of a clmm fit in ordinal's coordinates: Newton steps on the Hessian
of -log L, a central difference of its analytic gradient (Laplace with random intercepts)
or ordinal's ``deriv12`` of the likelihood (quadrature, random slopes), with ordinal's step
1e-4; ordinal's vcov is the inverse of that Hessian.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import linalg

__all__ = ["H", "newton_polish", "value_gradient"]

_BOUND = 1e-3  # an SD below this is on the boundary: left out of the Hessian (ordinal's paratBoundary2)
H = 1e-4  # the difference step of the Hessian (ordinal's deriv12 delta)
# the forward-difference step of the exact gradient: its truncation error (step x third
# derivative) and rounding (the modes' 1e-10 / step) are both ~1e-5 of the Hessian; half
# the likelihoods of central differences (a quarter of a small fit's time)
FORWARD = 1e-5


def value_gradient(f, x: np.ndarray, h: float = 1e-6) -> tuple[float, np.ndarray]:
    """f(x) and its central-difference gradient, f evaluated at the 2 k + 1 points in one
    call (f maps rows of points to values)."""
    e = h * np.eye(len(x))
    v = f(np.vstack([x, x + e, x - e]))
    return float(v[0]), (v[1:len(x) + 1] - v[len(x) + 1:]) / (2 * h)


@dataclass
class _Coordinates:
    """ordinal's parameters for the Hessian: log SD for one random-intercept term (its
    ``clmm.fit.ssr``), the SDs otherwise, without SDs on the boundary (< 1e-3)."""

    npar: int
    log_sd: bool
    free: np.ndarray  # which of x enter the Hessian

    def to_r(self, x: np.ndarray) -> np.ndarray:
        y = x.copy()
        if self.log_sd:
            y[self.npar:] = np.log(x[self.npar:])
        return y[self.free]

    def from_r(self, y: np.ndarray, x: np.ndarray) -> np.ndarray:
        out = x.copy()
        out[self.free] = y
        if self.log_sd:
            out[self.npar:] = np.exp(out[self.npar:])
        return out

    def gradient_to_r(self, grad: np.ndarray, x: np.ndarray) -> np.ndarray:
        g = grad.copy()
        if self.log_sd:
            g[self.npar:] *= x[self.npar:]
        return g[self.free]


def _gradient(lik, coords: _Coordinates, x: np.ndarray) -> np.ndarray:
    """Gradient of -log L in ordinal's coordinates at x (numerical for quadrature)."""
    if lik.exact_gradient:
        return coords.gradient_to_r(lik.value_grad(x)[1], x)
    u0 = lik.u.copy()
    out = value_gradient(lambda ys: lik.values(np.array([coords.from_r(y, x) for y in ys])),
                          coords.to_r(x), H)[1]
    lik.u = u0
    return out


def _hessian(lik, coords: _Coordinates, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of -log L in ordinal's coordinates at x: forward differences
    (step 1e-5) of the analytic gradient (Laplace), or ordinal's ``deriv12`` of the value
    (quadrature: central differences, ordinal's step 1e-4)."""
    y0 = coords.to_r(x)
    k = len(y0)
    u0 = lik.u.copy()

    def grad_r(y):
        lik.u = u0.copy()
        xx = coords.from_r(y, x)
        return coords.gradient_to_r(lik.value_grad(xx)[1], xx)

    hess = np.empty((k, k))
    if lik.exact_gradient:
        grad = grad_r(y0)
        for j in range(k):
            e = np.zeros(k)
            e[j] = FORWARD
            hess[:, j] = (grad_r(y0 + e) - grad) / FORWARD
        hess = (hess + hess.T) / 2
    else:
        e = H * np.eye(k)
        i, j = np.tril_indices(k, -1)
        ys = np.vstack([y0, y0 + e, y0 - e, y0 + e[i] + e[j], y0 + e[i] - e[j],
                        y0 - e[i] + e[j], y0 - e[i] - e[j]])
        f = lik.values(np.array([coords.from_r(y, x) for y in ys]))  # all of deriv12's points at once
        f0, fp, fm = f[0], f[1:k + 1], f[k + 1:2 * k + 1]
        fpp, fpm, fmp, fmm = f[2 * k + 1:].reshape(4, -1)
        grad = (fp - fm) / (2 * H)
        hess[np.diag_indices(k)] = (fp - 2 * f0 + fm) / H**2
        hess[i, j] = hess[j, i] = (fpp - fpm - fmp + fmm) / (4 * H**2)
    lik.u = u0
    return grad, hess


def newton_polish(lik, x: np.ndarray, diagonal: np.ndarray, log_sd: bool, fx: float | None = None) -> tuple:
    """Newton steps from the optimiser's x on the Hessian of ordinal's coordinates
    (``_Coordinates``: log SD when ``log_sd``, SDs (``diagonal``) below 1e-3 left out)
    until they are below 1e-6. Returns x, -log L, the gradient and Hessian there, the names
    ``ST1``, ... of the random-effect parameters kept, and whether it converged. ``fx``:
    -log L at x, if known."""
    npar = lik.d.npar
    fx = lik.value(x) if fx is None else fx
    converged = False
    for _ in range(5):
        theta = x[npar:]
        coords = _Coordinates(npar, log_sd and theta[0] >= _BOUND,
                              np.concatenate([np.ones(npar, bool), ~diagonal | (theta >= _BOUND)]))
        grad, hess = _hessian(lik, coords, x)
        try:
            step = linalg.solve(hess, grad, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            break
        trial = coords.from_r(coords.to_r(x) - step, x)
        if np.any(trial[npar:][diagonal] < 0):
            break
        if lik.exact_gradient:  # the gradient there comes with the value
            f_trial, g_trial = lik.value_grad(trial)
        else:
            f_trial = lik.value(trial)
        if not f_trial <= fx:  # no decrease: at the optimum to rounding error, or lost
            converged = bool(np.max(np.abs(step)) < 1e-6)
            break
        x, fx = trial, f_trial
        if np.max(np.abs(step)) < 1e-6:  # the Hessian holds to 1e-6 here: keep it
            converged = True
            grad = coords.gradient_to_r(g_trial, x) if lik.exact_gradient else _gradient(lik, coords, x)
            break
    kept = [f"ST{k + 1}" for k, keep in enumerate(coords.free[npar:]) if keep]
    converged = converged or bool(np.max(np.abs(grad)) < 1e-5)
    return x, fx, grad, hess, kept, converged

