"""The own GLMM fit for the families and links glmm does not fit: the inverse Gaussian,
Gamma with the identity link, gaussian with a log or inverse link, poisson with a sqrt or
identity link, the log-binomial, the negative binomial with a sqrt or identity link, and a
``cbind()`` response with prior weights (lme4 multiplies the two; glmm takes one): the
engine ``"laplace"`` ([LaplaceEngine][acceptability.stats.mixed.engines.laplace_engine.LaplaceEngine]),
which [choose_engine][acceptability.stats.mixed.engines.registry.choose_engine] picks for
the designs glmm refuses.

It maximises the Laplace log-likelihood with the observed information
([LaplaceLikelihood][acceptability.stats.mixed.glmm.laplace.LaplaceLikelihood]; Bates et al. 2015,
J. Stat. Softw. 67(1), eq. 22; Kristensen et al. 2016, J. Stat. Softw. 70(5), "TMB",
section 2) over the covariance factors, the fixed effects and, for a family with one, the
log dispersion (phi, or the negative binomial's size): what glmmTMB maximises and what glmm
reports for the GLMMs it fits, so that every GLMM's logLik here is the same quantity. The
standard errors of the fixed effects come from the inverse of the Hessian of -log L in all
parameters (central differences of the analytic gradient), as TMB's ``sdreport`` computes
them. Only nAGQ = 1. Written here
because glmm refuses these designs and lme4's own deviance for a family with a dispersion is
not this likelihood (its ``aic()`` sets phi to deviance / n).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import optimize, sparse
from scipy.linalg import lapack

from acceptability.stats.mixed.checks import convergence_messages
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.protocol import EngineRefused, FitSettings, FittedParameters
from acceptability.stats.mixed.glmm.families import FAMILY_CLASSES
from acceptability.stats.mixed.glmm.laplace import (
    DomainBoundary,
    GlmerDevfun,
    LaplaceLikelihood,
    LaplaceMode,
)
from acceptability.stats.mixed.lmm import pls

__all__ = ["LAPLACE_ENGINE", "NAGQ0_ENGINE", "LaplaceEngine", "fit_laplace", "fit_nagq0"]

LAPLACE_ENGINE = "acceptability Laplace (glmmTMB's likelihood; a family, link or weighting glmm lacks)"


def _glm_start(d: MixedDesign, f: LaplaceLikelihood) -> tuple[np.ndarray, float]:
    """beta and the dispersion of the GLM without random effects (R's ``glm.fit``: IRLS
    from the family's starting means, a step into an invalid eta or mu halved), the
    dispersion by Pearson's chi^2 / (n - p)."""
    fam, link = f.family, f.family.link
    y = d.y
    mu = fam.initialize(y, f.wt)  # R's family$initialize
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
    return beta, fam.start_dispersion(y, mu, float(pearson))


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


def _gradient(f, x: np.ndarray, f0: float, lower: np.ndarray) -> np.ndarray:
    """Central-difference gradient of ``f`` (``f0 = f(x)``), scipy's ``"3-point"`` scheme:
    steps ``eps^(1/3) max(1, |x|)``, one-sided three-point where ``x - h`` is below ``lower``."""
    h = np.finfo(float).eps ** (1 / 3) * np.maximum(1.0, np.abs(x))
    out = np.empty(len(x))
    for i, e in enumerate(np.diag(h)):
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
                      u: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The gradient and Hessian of -log L in ``x[idx]``: the analytic gradient
    (``LaplaceLikelihood.gradient``) and its central differences, symmetrised; None where a
    gradient is unavailable."""
    def grad(z: np.ndarray) -> np.ndarray | None:
        m = f.mode_at(z, u)
        g = None if m is None or not np.isfinite(m.loglik) else f.gradient(m)
        return None if g is None else -g[idx]

    g0, out = grad(x), np.empty((len(idx), len(idx)))
    for j, i in enumerate(idx):
        e = np.zeros(len(x))
        e[i] = steps[j]
        plus, minus = grad(x + e), grad(x - e)
        if g0 is None or plus is None or minus is None:
            return None
        out[:, j] = (plus - minus) / (2 * steps[j])
    return g0, (out + out.T) / 2


def _start(design: MixedDesign, f: LaplaceLikelihood, start: dict) -> tuple[np.ndarray, np.ndarray]:
    """The start (theta, beta, log dispersion) from the GLM's fit or ``start``, and each
    parameter's scale: |theta|, beta's standard errors from the joint information of (u,
    beta) at the GLM's fit and the start theta (the GLM's own where q is large: they ignore
    the random effects, and the intercept's is then far too small), 1 for the log
    dispersion."""
    fam = f.family
    beta, disp = _glm_start(design, f)
    eta = design.X @ beta + f.offset
    mu = fam.link.linkinv(eta)
    theta = _theta_start(design, (design.y - mu) / fam.link.mu_eta(eta))
    disp = float(start.get("dispersion", disp))
    beta = np.asarray(start.get("beta", beta), float)
    if "theta" in start:
        theta = np.asarray(start["theta"], float) * (np.sqrt(disp) if fam.scaled else 1.0)
    x0 = np.concatenate([theta, beta, [np.log(disp)] if fam.dispersion else []])
    w = f.wt * fam.link.mu_eta(eta) ** 2 / fam.variance(mu, disp) / (disp if fam.scaled else 1.0)
    if design.q <= pls._DENSE_Q:  # with the random effects at the start theta (nAGQ=0's information)
        info = _joint_information(f, design.lambdat(theta, dense=True), w)
        se = np.sqrt(np.diag(np.linalg.pinv(info))[design.q:])
    else:
        se = np.sqrt(np.diag(np.linalg.pinv(design.X.T @ (design.X * w[:, None]))))
    scale = np.concatenate([np.maximum(np.abs(theta), 1e-3 * np.max(np.abs(theta)) + 1e-8),
                            np.maximum(se, 1e-10),
                            [1.0] if fam.dispersion else []])
    return x0, scale


@pls.one_blas_thread
def fit_laplace(design: MixedDesign, settings: FitSettings) -> FittedParameters:
    """Maximise the Laplace likelihood of a GLMM design (any family and link of
    ``families``) from a GLM's estimates, or from
    ``settings.start`` (lme4's theta, beta, dispersion): L-BFGS-B with the analytic
    gradient (``LaplaceLikelihood.gradient``) in parameters scaled by ``_start``'s standard
    errors, Nelder-Mead from its end point where it stops early.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import FitSettings, model_design
    >>> from acceptability.stats.mixed.engines.laplace_engine import fit_laplace
    >>> df = pd.DataFrame({"y": [2.1, 3.5, 2.8, 4.9, 3.3, 6.2, 2.5, 4.1, 3.0, 5.2], "x": [0, 1] * 5,
    ...                    "g": list("aabbccddee")})
    >>> p = fit_laplace(model_design("y ~ x + (1 | g)", df, "Gamma", link="identity"), FitSettings())
    >>> round(float(p.beta[1]), 2), p.engine.startswith("acceptability Laplace")
    (1.92, True)
    """
    if design.glm_family.linear:
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
        m = f.mode_at(z * scale)  # the mode from PIRLS's own start; differences from it
        value = -2 * m.loglik if m is not None and np.isfinite(m.loglik) else 1e300
        grad = f.gradient(m) if one_branch and value < 1e300 else None
        if grad is None:  # theta, beta, log phi analytically where it can (Laplace.gradient)
            u = None if m is None or not one_branch else m.u
            return value, _gradient(lambda w: dev(w, u), z, value, lower / scale)
        return value, -2 * grad * scale

    # mu = eta^-1/2 (1/mu^2): the integrand need not be log-concave, so each difference
    # searches from PIRLS's start too (the sqrt link's mode is unique on its branch: laplace)
    one_branch = fam.link.unimodal
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
    mode = _final_mode(f, theta, beta, disp, best.fun)
    vcov, problems = _vcov(f, x, scale, design, mode.u if one_branch else None)
    sigma = float(np.sqrt(disp)) if fam.scaled else 1.0
    lt = design.lambdat(theta)
    converged = bool(np.isfinite(mode.loglik) and np.all(np.isfinite(vcov))) and not problems
    notes = problems + f.branch_notes(mode)
    return FittedParameters(
        engine=LAPLACE_ENGINE, theta=theta / sigma, beta=beta, vcov=vcov,
        b=np.asarray(lt.T @ mode.u).ravel(), sigma=sigma, loglik=mode.loglik,
        converged=converged, notes=notes, state=mode, dispersion=disp)


def _final_mode(f: LaplaceLikelihood, theta: np.ndarray, beta: np.ndarray, disp: float,
                value: float) -> LaplaceMode:
    """The mode at the optimum; a ValueError naming the rows where the best fit found puts
    the conditional mode on the edge of the family's range (the Laplace approximation is not
    defined there: lme4 stops with "PIRLS loop resulted in NaN value", glmmTMB evaluates its
    densities outside the range)."""
    d, fam = f.design, f.family
    try:
        mode = f.mode(theta, beta, disp)
        rows = f.on_boundary(mode.mu)
    except DomainBoundary as e:
        rows = e.rows
    if not rows.any():
        return mode
    show = np.flatnonzero(rows)[:8] + 1
    raise ValueError(
        f"glmer: {fam.name}({fam.link.name!r}) on {d.formula.text!r}: the best fit found"
        f"{f' (logLik {-value / 2:.2f})' if value < 1e300 else ''} puts the conditional mode of the random effects on the edge of the "
        f"family's range (mu -> {fam.edge}) in {int(rows.sum())} rows "
        f"(rows {', '.join(map(str, show))}{', ...' if rows.sum() > 8 else ''}; y there: "
        f"{', '.join(f'{v:g}' for v in np.unique(d.y[rows]))}), where the Laplace approximation is not defined "
        "(lme4 stops: 'PIRLS loop resulted in NaN value'). Use a link that keeps mu in range "
        f"(family {fam.name!r} with link {fam.links[0]!r}), or a model whose random "
        "effects cannot push mu out of it")


def _vcov(f: LaplaceLikelihood, x: np.ndarray, scale: np.ndarray, d: MixedDesign,
          u: np.ndarray | None) -> tuple[np.ndarray, list[str]]:
    """Cov(beta): the beta block of the inverse Hessian of -log L in every parameter
    off its bound (a variance at 0 is held there), PIRLS from ``u`` (the modes at ``x``, or
    None: PIRLS's own start); and lme4's convergence messages there
    ([convergence_messages][acceptability.stats.mixed.checks.convergence_messages], of the
    deviance's gradient and Hessian in those parameters)."""
    free = np.ones(len(x), bool)
    free[:d.ntheta] = ~((d.theta_lower() == 0) & (x[:d.ntheta] <= 1e-6 * scale[:d.ntheta]))
    idx = np.flatnonzero(free)

    def nll(z: np.ndarray) -> float:
        full = x.copy()
        full[idx] = z
        return -f.loglik(full, u)

    steps = 1e-2 * scale[idx]  # about 1% of a standard error
    both = None if u is None else _gradient_hessian(f, x, idx, steps, u)
    if both is not None:
        grad, h = both
    else:  # no analytic gradient (two branches, sparse A, the Fisher fallback)
        h = _hessian(nll, x[idx], steps)
        small = 1e-3 * steps  # central differences
        grad = np.array([nll(x[idx] + e) - nll(x[idx] - e) for e in np.diag(small)]) / (2 * small)
    notes = convergence_messages(2 * grad, 2 * h, int(np.sum(idx < d.ntheta)))
    try:
        inv = np.linalg.inv(h)
    except np.linalg.LinAlgError:
        return np.full((d.p, d.p), np.nan), notes
    pos = [int(np.flatnonzero(idx == j)[0]) for j in range(d.ntheta, d.ntheta + d.p)]
    return inv[np.ix_(pos, pos)], notes


NAGQ0_ENGINE = "acceptability nAGQ=0 (lme4's: fixed effects inside PIRLS, theta optimised)"


def _joint_information(f: GlmerDevfun, lt, w: np.ndarray) -> np.ndarray:
    """The weighted cross products of (Z Lambda, X) plus the penalty on u: ``[[Lambda' Z'WZ
    Lambda + I, Lambda' Z'WX], [X'WZ Lambda, X'WX]]``, from Z's rows (``ZRows``; O(n) in
    the number of rows, not O(n q^2) as a dense Z Lambda)."""
    d, q = f.design, f.design.q
    if f._scalar:  # one scalar term: Z'WZ and so A are diagonal
        lam = lt.diagonal()
        a = np.diag(lam**2 * f._ztwz_diagonal(w))
    else:
        a = lt @ f._z.crossprod(w) @ lt.T
    wx = d.X * w[:, None]
    zwx = lt @ f._z.t_times(wx) if d.p else np.zeros((q, 0))
    out = np.empty((q + d.p, q + d.p))
    out[:q, :q] = a.toarray() if sparse.issparse(a) else a
    out[:q, q:] = zwx
    out[q:, :q] = zwx.T
    out[q:, q:] = d.X.T @ wx
    out[np.arange(q), np.arange(q)] += 1.0
    return out


def _joint_mode(f: GlmerDevfun, lt, theta: np.ndarray, start: tuple[np.ndarray, np.ndarray],
                saturated: float) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """lme4's PIRLS with the fixed effects (``glmerLaplace`` at nAGQ = 0): the (beta, u) that
    minimise the penalised deviance ``sum(dev.resids) + |u|^2`` at ``lt`` = Lambda', by
    Newton steps (Fisher scoring where the observed information is not positive definite), a
    step that raises it halved. Returns beta, u, lme4's Laplace deviance there (``-2 sum log f
    + |u|^2 + log|A|``, A with the Fisher weights, as ``GlmerDevfun``; -2 sum log f is
    ``sum(dev.resids) + saturated``) and the joint Fisher information of (u, beta). The
    unknowns are ordered (u, beta), so that the Cholesky factor's leading block is A's."""
    d, link, q = f.design, f.family.link, f.design.q
    beta, u = start

    def eta_of(b: np.ndarray, v: np.ndarray) -> np.ndarray:
        return d.X @ b + f._z.times(lt.T @ v) + f.offset

    eta = eta_of(beta, u)
    mu = link.linkinv(eta)
    pdev = f._penalised(eta, mu, u, 1.0)
    observed = not f.family.canonical
    for _ in range(200):
        ratio = f._ratio(eta, 1.0)
        r = f.wt * (f.y - mu) * ratio
        score = np.concatenate([lt @ f._z.t_times(r) - u, d.X.T @ r])
        # Newton (the observed information; a canonical link's is the Fisher information)
        newton = _joint_information(f, lt, f._weights(eta, mu, 1.0, observed, ratio))
        chol, bad = lapack.dpotrf(newton, lower=1)
        fisher = None if observed else newton
        if bad and observed:  # Fisher scoring where the observed information is not positive definite
            fisher = _joint_information(f, lt, f._weights(eta, mu, 1.0, False, ratio))
            chol, bad = lapack.dpotrf(fisher, lower=1)
        if bad:
            raise np.linalg.LinAlgError("the joint information of (u, beta) is not positive definite")
        step = lapack.dpotrs(chol, score, lower=1)[0]
        if np.max(np.abs(step)) <= 1e-10 * (1 + max(np.max(np.abs(u), initial=0), np.max(np.abs(beta), initial=0))):
            if fisher is None:  # log|A| and the information returned are the Fisher ones
                fisher = _joint_information(f, lt, f._weights(eta, mu, 1.0, False, ratio))
                chol = lapack.dpotrf(fisher, lower=1)[0]
            logdet = 2 * np.sum(np.log(np.diag(chol)[:q]))
            return beta, u, pdev + saturated + logdet, fisher
        for _ in range(30):
            nu, nb = u + step[:q], beta + step[q:]
            ne = eta_of(nb, nu)
            nm = link.linkinv(ne)
            npdev = f._penalised(ne, nm, nu, 1.0)
            if npdev <= pdev * (1 + 1e-12):
                break
            step = step / 2
        u, beta, eta, mu, pdev = nu, nb, ne, nm, npdev
    raise RuntimeError(f"PIRLS with the fixed effects did not converge at theta={theta}")


@pls.one_blas_thread
def fit_nagq0(design: MixedDesign, settings: FitSettings) -> FittedParameters:
    """lme4's ``glmer(..., nAGQ = 0)`` for a binomial or poisson design: for each theta
    the fixed effects and the conditional modes maximise the penalised likelihood jointly
    (``_joint_mode``); theta minimises lme4's Laplace deviance there (``GlmerDevfun``, the
    expected information, as lme4's); the standard errors are lme4's from the joint
    information (the inverse of its fixed-effect Schur complement, ``RX``, theta held).
    The reported logLik is the fits' Laplace likelihood (the observed information) at the
    estimates: lme4's for a canonical link.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import FitSettings, model_design
    >>> from acceptability.stats.mixed.engines.laplace_engine import fit_nagq0
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> p = fit_nagq0(model_design("cbind(k, n - k) ~ x + (1 | g)", df, "binomial"), FitSettings(nAGQ=0))
    >>> p.engine.startswith("acceptability nAGQ=0"), p.converged
    (True, True)
    """
    if design.glm_family.dispersion:
        raise EngineRefused(f"nAGQ=0 is fitted for binomial and poisson models, not {design.family}; "
                            "use nAGQ=1 (Laplace)")
    f = GlmerDevfun(design)
    beta0, _ = _glm_start(design, f)
    state = {"start": (beta0, np.zeros(design.q))}
    mu0 = f.family.link.linkinv(design.X @ beta0 + f.offset)  # -2 log f - dev.resids: constant in mu
    saturated = -2 * f.loglik_rows(mu0) - float(np.sum(f.family.dev_resids(f.y, mu0, f.wt)))

    def at(theta: np.ndarray):
        key = np.asarray(theta, float).tobytes()
        if key not in state:  # the optimum is a point the optimiser has been to
            lt = design.lambdat(theta, dense=f._z.dense)
            state[key] = _joint_mode(f, lt, theta, state["start"], saturated)
            state["start"] = state[key][:2]
        return state[key]

    def dev(theta: np.ndarray) -> float:
        try:
            return float(at(np.atleast_1d(theta))[2])
        except (RuntimeError, np.linalg.LinAlgError, ValueError):
            return 1e300

    lower = design.theta_lower()
    if len(lower) == 1:  # the deviance is even in a scalar theta: Brent's method on the line
        opt = optimize.minimize_scalar(dev, bracket=(0.5, 1.0), tol=1e-6)
        # theta to ~1e-6 relative: about where the deviance's rounding (1e-12) leaves it
        opt.x = np.abs(np.atleast_1d(opt.x))
    else:  # derivative-free, as lme4's bobyqa: the deviance is even in each diagonal theta,
        # so its gradient vanishes at 0, where a gradient method started above may stop
        bounds = [(lo if np.isfinite(lo) else None, None) for lo in lower]
        opt = optimize.minimize(dev, design.theta_start(), method="Nelder-Mead", bounds=bounds,
                                options={"xatol": 1e-8, "fatol": 1e-9, "maxfev": 1000 * len(lower)})
    theta = np.maximum(opt.x, lower)
    beta, u, _, info = at(theta)
    vcov = np.linalg.inv(info)[design.q:, design.q:]  # (X'WX - X'WZL A^-1 L'Z'WX)^-1
    mode = LaplaceLikelihood(design, "observed").mode(theta, beta, u=u)
    return FittedParameters(
        engine=NAGQ0_ENGINE, theta=theta, beta=beta, vcov=vcov,
        b=np.asarray(design.lambdat(theta).T @ u).ravel(), sigma=1.0, loglik=mode.loglik,
        converged=bool(opt.success), notes=[] if opt.success else [f"optimizer: {opt.message}"],
        state=mode, dispersion=1.0)


class LaplaceEngine:
    """The own Laplace fit as an engine: ``fit_laplace`` (``fit_nagq0`` for nAGQ = 0) for
    the GLMMs of R's families that glmm lacks (a family, a link, a ``cbind()`` response
    with prior weights), which [choose_engine][acceptability.stats.mixed.engines.registry.choose_engine]
    gives it; ``structure_refusal`` says which random-effects structures it takes (the
    registry passes glmm's: those its fits are tested on against R)."""

    name = "laplace"

    def __init__(self, structure_refusal: Callable[[MixedDesign], str | None]) -> None:
        self.structure_refusal = structure_refusal

    def refusal(self, design: MixedDesign, settings: FitSettings | None = None) -> str | None:
        """Why the Laplace fit does not take ``design`` (a linear model, a family not R's,
        its random effects), or None; it takes any ``settings``' nAGQ."""
        if design.family not in FAMILY_CLASSES:
            return f"family={design.family!r}: the Laplace fit takes R's families {sorted(FAMILY_CLASSES)}"
        if design.glm_family.linear:
            return "a linear mixed model is fitted by penalised least squares"
        return self.structure_refusal(design)

    def fit(self, design: MixedDesign, settings: FitSettings) -> FittedParameters:
        """Maximise the Laplace likelihood (nAGQ = 0: lme4's fast fit)."""
        if (why := self.refusal(design)) is not None:
            raise EngineRefused(f"the Laplace fit refuses {design.formula.text!r}: {why}")
        return fit_nagq0(design, settings) if settings.nAGQ == 0 else fit_laplace(design, settings)
