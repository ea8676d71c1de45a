"""The own GLMM fit for the families and links glmm does not fit: the inverse Gaussian,
Gamma with the identity link, gaussian with a log or inverse link, poisson with a sqrt or
identity link, the log-binomial, the negative binomial with a sqrt or identity link, and a
``cbind()`` response with prior weights (lme4 multiplies the two; glmm takes one). The glmm
adapter ([GlmmEngine][acceptability.stats.mixed.glmm_engine.GlmmEngine]) hands these to
``fit_laplace``.

It maximises the Laplace log-likelihood with the observed information
([LaplaceLikelihood][acceptability.stats.mixed.laplace.LaplaceLikelihood]; Bates et al. 2015,
J. Stat. Softw. 67(1), eq. 22; Kristensen et al. 2016, J. Stat. Softw. 70(5), "TMB",
section 2) over the covariance factors, the fixed effects and, for a family with one, the
log dispersion (phi, or the negative binomial's size): what glmmTMB maximises and what glmm
reports for the GLMMs it fits, so that every GLMM's logLik here is the same quantity. The
standard errors of the fixed effects come from the inverse of the numerical Hessian of
-log L in all parameters, as TMB's ``sdreport`` computes them. Only nAGQ = 1. Written here
because glmm refuses these designs and lme4's own deviance for a family with a dispersion is
not this likelihood (its ``aic()`` sets phi to deviance / n).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from acceptability.stats.mixed import pls
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.laplace import SCALED, LaplaceLikelihood
from acceptability.stats.mixed.protocol import EngineRefused, FitSettings, FittedParameters

__all__ = ["LAPLACE_ENGINE", "fit_laplace"]

LAPLACE_ENGINE = "acceptability Laplace (glmmTMB's likelihood; a family, link or weighting glmm lacks)"


def _glm_start(d: MixedDesign, f: LaplaceLikelihood) -> tuple[np.ndarray, float]:
    """beta and the dispersion of the GLM without random effects (R's ``glm.fit``: IRLS
    from the family's starting means, a step into an invalid eta or mu halved), the
    dispersion by Pearson's chi^2 / (n - p)."""
    fam, link = f.family, f.family.link
    y = d.y
    mu = {"binomial": (f.wt * y + 0.5) / (f.wt + 1), "poisson": y + 0.1,
          "negative.binomial": y + 1 / 6}.get(fam.name, y)  # R's family$initialize
    eta = link.linkfun(mu)
    beta = np.zeros(d.p)
    for _ in range(50):
        mu_eta = link.mu_eta(eta)
        w = f.wt * mu_eta**2 / fam.variance(mu, 10.0)
        z = eta - f.offset + (y - mu) / mu_eta
        new = np.linalg.lstsq(d.X * np.sqrt(w)[:, None], z * np.sqrt(w), rcond=None)[0]
        for _ in range(30):
            eta_new = d.X @ new + f.offset
            if f.valid(eta_new, link.linkinv(eta_new), glm=True) or not f.valid(eta, mu, glm=True):
                break
            new = (new + beta) / 2
        done = np.max(np.abs(new - beta)) <= 1e-10 * (1 + np.max(np.abs(beta)))
        beta, eta = new, d.X @ new + f.offset
        mu = link.linkinv(eta)
        if done:
            break
    pearson = np.sum(f.wt * (y - mu) ** 2 / fam.variance(mu, 10.0)) / max(d.n - d.p, 1)
    if fam.name == "negative.binomial":  # moments: Var = mu + mu^2 / size
        excess = np.mean((y - mu) ** 2 - mu)
        return beta, float(np.clip(np.mean(mu**2) / excess, 0.1, 100.0) if excess > 0 else 100.0)
    return beta, float(pearson)


def _theta_start(d: MixedDesign, resid: np.ndarray) -> np.ndarray:
    """Each term's diagonal: the SD of the level means of the working residuals (eta
    scale), divided by the SD of a slope's column; 0 off the diagonal."""
    out = []
    for t in d.terms:
        means = np.bincount(t.codes, resid, t.nlev) / np.maximum(np.bincount(t.codes, None, t.nlev), 1)
        s = max(float(np.std(means)), 1e-2 * float(np.std(resid)) + 1e-8)
        spread = np.array([1.0 if np.ptp(c) == 0 else np.std(c) for c in t.cols.T])
        out.append(t.theta_of(np.diag(s / spread)))
    return np.concatenate(out)


def _gradient(f, x: np.ndarray, f0: float, lower: np.ndarray, k: int | None = None) -> np.ndarray:
    """Central-difference gradient of ``f`` (``f0 = f(x)``) in its first ``k`` elements
    (default: all), scipy's ``"3-point"`` scheme: steps ``eps^(1/3) max(1, |x|)``,
    one-sided three-point where ``x - h`` is below ``lower``."""
    h = np.finfo(float).eps ** (1 / 3) * np.maximum(1.0, np.abs(x))
    out = np.empty(len(x) if k is None else k)
    for i, e in zip(range(len(out)), np.diag(h), strict=False):
        if x[i] - h[i] >= lower[i]:
            out[i] = (f(x + e) - f(x - e)) / (2 * h[i])
        else:
            out[i] = (-3 * f0 + 4 * f(x + e) - f(x + 2 * e)) / (2 * h[i])
    return out


def _hessian(f, x: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Central-difference Hessian of ``f`` with per-parameter steps."""
    k = len(x)
    out = np.empty((k, k))
    e = np.diag(steps)
    f0 = f(x)
    for i in range(k):
        out[i, i] = (f(x + e[i]) - 2 * f0 + f(x - e[i])) / steps[i] ** 2
        for j in range(i):
            out[i, j] = out[j, i] = (f(x + e[i] + e[j]) - f(x + e[i] - e[j]) - f(x - e[i] + e[j])
                                     + f(x - e[i] - e[j])) / (4 * steps[i] * steps[j])
    return out


def _gradient_hessian(f: LaplaceLikelihood, x: np.ndarray, idx: np.ndarray, steps: np.ndarray,
                      u: np.ndarray) -> np.ndarray | None:
    """Hessian of -log L in ``x[idx]``: the beta and log dispersion rows by central
    differences of the analytic gradient (``LaplaceLikelihood.fixed_gradient``), the theta
    block by differences of values as ``_hessian``; None where a gradient is unavailable."""
    k, nt = len(idx), f.design.ntheta
    th = idx < nt
    out = np.empty((k, k))

    def mode(z: np.ndarray):
        full = x.copy()
        full[idx] = z
        m = f.mode_at(full, u)
        return m if m is not None and np.isfinite(m.loglik) else None

    z0, e = x[idx], np.diag(steps)
    m0 = mode(z0)
    if m0 is None:
        return None
    for j in range(k):
        plus, minus = mode(z0 + e[j]), mode(z0 - e[j])
        grads = [None if m is None else f.fixed_gradient(m) for m in (plus, minus)]
        if grads[0] is None or grads[1] is None:
            return None
        out[~th, j] = -(grads[0] - grads[1]) / (2 * steps[j])
        if th[j]:
            out[j, j] = -(plus.loglik - 2 * m0.loglik + minus.loglik) / steps[j] ** 2
    for i in np.flatnonzero(th):
        for j in np.flatnonzero(th[:i]):
            corners = [mode(z0 + a * e[i] + b * e[j]) for a, b in ((1, 1), (1, -1), (-1, 1), (-1, -1))]
            if any(m is None for m in corners):
                return None
            ll = [m.loglik for m in corners]
            out[i, j] = out[j, i] = -(ll[0] - ll[1] - ll[2] + ll[3]) / (4 * steps[i] * steps[j])
    out[np.ix_(th, ~th)] = out[np.ix_(~th, th)].T
    fixed = out[np.ix_(~th, ~th)]
    out[np.ix_(~th, ~th)] = (fixed + fixed.T) / 2
    return out


def _start(design: MixedDesign, f: LaplaceLikelihood, start: dict) -> tuple[np.ndarray, np.ndarray]:
    """The start (theta, beta, log dispersion) from the GLM's fit or ``start``, and each
    parameter's scale: |theta|, the GLM's standard errors, 1 for the log dispersion."""
    fam = f.family
    beta, disp = _glm_start(design, f)
    eta = design.X @ beta + f.offset
    mu = fam.link.linkinv(eta)
    theta = _theta_start(design, (design.y - mu) / fam.link.mu_eta(eta))
    disp = float(start.get("dispersion", disp))
    beta = np.asarray(start.get("beta", beta), float)
    if "theta" in start:
        theta = np.asarray(start["theta"], float) * (np.sqrt(disp) if fam.name in SCALED else 1.0)
    x0 = np.concatenate([theta, beta, [np.log(disp)] if fam.dispersion else []])
    info = design.X.T @ (design.X * (f.wt * fam.link.mu_eta(eta) ** 2 / fam.variance(mu, disp))[:, None])
    se = np.sqrt(np.diag(np.linalg.pinv(info)))
    scale = np.concatenate([np.maximum(np.abs(theta), 1e-3 * np.max(np.abs(theta)) + 1e-8),
                            np.maximum(se * np.sqrt(disp if fam.name in SCALED else 1.0), 1e-10),
                            [1.0] if fam.dispersion else []])
    return x0, scale


@pls.one_blas_thread
def fit_laplace(design: MixedDesign, settings: FitSettings) -> FittedParameters:
    """Maximise the Laplace likelihood of a GLMM design (any family and link of
    ``families``) from a GLM's estimates, or from
    ``settings.start`` (lme4's theta, beta, dispersion): L-BFGS-B in parameters scaled by
    the GLM's standard errors, Nelder-Mead from its end point where it stops early.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import FitSettings, model_design
    >>> from acceptability.stats.mixed.laplace_engine import fit_laplace
    >>> df = pd.DataFrame({"y": [2.1, 3.5, 2.8, 4.9, 3.3, 6.2, 2.5, 4.1, 3.0, 5.2], "x": [0, 1] * 5,
    ...                    "g": list("aabbccddee")})
    >>> p = fit_laplace(model_design("y ~ x + (1 | g)", df, "Gamma", link="identity"), FitSettings())
    >>> round(float(p.beta[1]), 2), p.engine.startswith("acceptability Laplace")
    (1.92, True)
    """
    if design.family == "gaussian" and design.link is None:
        raise EngineRefused("a linear mixed model is fitted by penalised least squares")
    if settings.nAGQ != 1:
        raise EngineRefused(
            f"nAGQ={settings.nAGQ}: adaptive Gauss-Hermite quadrature is available for the "
            f"families and links glmm fits, not {design.family}({design.glm_family.link.name}); "
            "use nAGQ=1 (Laplace)")
    f = LaplaceLikelihood(design, "observed")
    fam = f.family
    x0, scale = _start(design, f, settings.start or {})
    lower = np.concatenate([design.theta_lower(), np.full(len(x0) - design.ntheta, -np.inf)])

    def dev(z: np.ndarray, u: np.ndarray | None = None) -> float:
        v = -2 * f.loglik(z * scale, u)
        return v if np.isfinite(v) else 1e300

    def dev_grad(z: np.ndarray) -> tuple[float, np.ndarray]:
        m = f.mode_at(z * scale)  # the mode from PIRLS's own start; the differences from it
        u = None if m is None or not one_branch else m.u
        value = -2 * m.loglik if m is not None and np.isfinite(m.loglik) else 1e300
        fixed = f.fixed_gradient(m) if u is not None and value < 1e300 else None
        if fixed is None:
            return value, _gradient(lambda w: dev(w, u), z, value, lower / scale)
        # theta by differences; beta and log phi analytically (Laplace.fixed_gradient)
        grad = _gradient(lambda w: dev(w, u), z, value, lower / scale, design.ntheta)
        return value, np.concatenate([grad, -2 * fixed * scale[design.ntheta:]])

    # mu = eta^2 (sqrt, 1/mu^2) has two branches: there a mode searched from a neighbour's
    # may sit on the other one, so each difference searches from PIRLS's start too
    one_branch = fam.link.name not in ("sqrt", "1/mu^2")
    bounds = [(lo / s if np.isfinite(lo) else None, None) for lo, s in zip(lower, scale, strict=True)]
    best = optimize.minimize(dev_grad, x0 / scale, method="L-BFGS-B", jac=True, bounds=bounds,
                             options={"ftol": 1e-13, "gtol": 1e-6, "maxiter": 2000})
    if not best.success:
        polish = optimize.minimize(dev, best.x, method="Nelder-Mead", bounds=bounds,
                                   options={"xatol": 1e-9, "fatol": 1e-11, "maxfev": 400 * len(x0)})
        if polish.fun < best.fun:
            best = polish
    x = np.maximum(best.x * scale, lower)
    theta, beta, disp = f.unpack(x)
    mode = f.mode(theta, beta, disp)
    vcov = _vcov(f, x, scale, design, mode.u if one_branch else None)
    sigma = float(np.sqrt(disp)) if fam.name in SCALED else 1.0
    lt = design.lambdat(theta)
    converged = bool(np.isfinite(mode.loglik) and np.all(np.isfinite(vcov)))
    return FittedParameters(
        engine=LAPLACE_ENGINE, theta=theta / sigma, beta=beta, vcov=vcov,
        b=np.asarray(lt.T @ mode.u).ravel(), sigma=sigma, loglik=mode.loglik,
        converged=converged, notes=[] if converged else ["the Hessian at the optimum is not "
                                                         "positive definite"],
        state=mode, dispersion=disp)


def _vcov(f: LaplaceLikelihood, x: np.ndarray, scale: np.ndarray, d: MixedDesign,
          u: np.ndarray | None) -> np.ndarray:
    """Cov(beta): the beta block of the inverse Hessian of -log L in every parameter
    off its bound (a variance at 0 is held there), PIRLS from ``u`` (the modes at ``x``, or
    None: PIRLS's own start)."""
    free = np.ones(len(x), bool)
    free[:d.ntheta] = ~((d.theta_lower() == 0) & (x[:d.ntheta] <= 1e-6 * scale[:d.ntheta]))
    idx = np.flatnonzero(free)

    def nll(z: np.ndarray) -> float:
        full = x.copy()
        full[idx] = z
        return -f.loglik(full, u)

    steps = 1e-2 * scale[idx]  # about 1% of a standard error
    h = None if u is None else _gradient_hessian(f, x, idx, steps, u)
    if h is None:  # no analytic gradient (two branches, sparse A, the Fisher fallback)
        h = _hessian(nll, x[idx], steps)
    try:
        inv = np.linalg.inv(h)
    except np.linalg.LinAlgError:
        return np.full((d.p, d.p), np.nan)
    pos = [int(np.flatnonzero(idx == j)[0]) for j in range(d.ntheta, d.ntheta + d.p)]
    return inv[np.ix_(pos, pos)]
