"""The own GLMM fit for the families and links glmm does not fit: the inverse Gaussian,
Gamma with the identity link, gaussian with a log or inverse link, poisson with a sqrt or
identity link, the log-binomial, the negative binomial with a sqrt or identity link, and a
``cbind()`` response with prior weights (lme4 multiplies the two; glmm takes one). The glmm
adapter ([GlmmEngine][acceptability.stats.mixed.glmm_engine.GlmmEngine]) hands these to
``fit_laplace``.

It maximises the Laplace approximation of the marginal log-likelihood (Bates et al. 2015,
J. Stat. Softw. 67(1), eq. 22; Kristensen et al. 2016, J. Stat. Softw. 70(5), "TMB",
section 2) over the covariance factors, the fixed effects and, for a family with one, the
dispersion (phi, or the negative binomial's size), which is what glmmTMB maximises and what
glmm reports for the GLMMs it fits, so that every GLMM's logLik here is the same quantity:

    log L = sum_i log f(y_i | mu_i(u), phi) - |u|^2 / 2 - log |A| / 2,
    A = Lambda' Z' W Z Lambda + I,

at the mode ``u`` of the integrand (b = Lambda u), ``W`` the observed information of each
row in its linear predictor, ``-d^2 log f / d eta^2`` (the expected one, lme4's, for a
canonical link equals it). The mode is found by Fisher scoring with step halving (lme4's
PIRLS). The standard errors of the fixed effects come from the inverse of the numerical
Hessian of -log L in all parameters, as TMB's ``sdreport`` computes them. Only nAGQ = 1.
Written here because glmm refuses these designs and lme4's own deviance for a family with a
dispersion is not this likelihood (its ``aic()`` sets phi to deviance / n).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse

from acceptability.stats.mixed import pls
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.protocol import EngineRefused, FitSettings, FittedParameters

__all__ = ["LAPLACE_ENGINE", "LaplaceLikelihood", "fit_laplace"]

LAPLACE_ENGINE = "acceptability Laplace (glmmTMB's likelihood; a family, link or weighting glmm lacks)"
_SCALED = ("gaussian", "Gamma", "inverse.gaussian")  # phi scales the log-likelihood
_MAXIT = 100
_DECREMENT = 1e-8  # Newton's decrement g' A^-1 g below which one more step ends the search


class _WeightedCrossProduct:
    """Z'WZ for any diagonal W, from the products of each row's nonzeros of Z found once
    (a Newton step needs it; sparse products cost ~1 ms of overhead each)."""

    def __init__(self, z, dense: bool) -> None:
        z = z.tocsr()
        z.sort_indices()
        q, counts = z.shape[1], np.diff(z.indptr)
        keys, rows, vals = [], [], []
        for k in np.unique(counts):
            r = np.flatnonzero(counts == k)
            pos = z.indptr[r][:, None] + np.arange(k)
            cols, v = z.indices[pos], z.data[pos]
            for a in range(k):
                for b in range(k):
                    keys.append(cols[:, a] * q + cols[:, b])
                    rows.append(r)
                    vals.append(v[:, a] * v[:, b])
        self.keys, self.inverse = np.unique(np.concatenate(keys), return_inverse=True)
        self.rows, self.vals, self.q, self.dense = np.concatenate(rows), np.concatenate(vals), q, dense

    def __call__(self, w: np.ndarray):
        data = np.bincount(self.inverse, w[self.rows] * self.vals, len(self.keys))
        if self.dense:
            out = np.zeros(self.q * self.q)
            out[self.keys] = data
            return out.reshape(self.q, self.q)
        return sparse.csc_matrix((data, (self.keys // self.q, self.keys % self.q)), shape=(self.q, self.q))


@dataclass
class LaplaceMode:
    """The mode of the integrand at one parameter vector, and log L there."""

    u: np.ndarray
    mu: np.ndarray
    loglik: float


class LaplaceLikelihood:
    """The Laplace log-likelihood of a GLMM design as a function of ``(theta, beta,
    log dispersion)``; ``theta`` here is the factor of the covariance of b itself (lme4's
    theta times sigma for a family with a scale).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> from acceptability.stats.mixed.laplace_engine import LaplaceLikelihood
    >>> df = pd.DataFrame({"y": [2.1, 3.5, 2.8, 4.9, 3.3, 6.2, 2.5, 4.1],
    ...                    "x": [0, 1] * 4, "g": list("aabbccdd")})
    >>> f = LaplaceLikelihood(model_design("y ~ x + (1 | g)", df, "Gamma", link="log"))
    >>> round(f.loglik([0.1, 1.0, 0.4, -3.0]), 4)
    -8.8119
    """

    def __init__(self, design: MixedDesign) -> None:
        self.d, self.family = design, design.glm_family
        n = design.n
        prior = np.ones(n) if design.weights is None else design.weights
        trials = np.ones(n) if design.trials is None else design.trials
        self.wt = prior * trials  # lme4's glmResp weights
        # binomial()$aic: (wt / m) dbinom(m y; m, mu), m the trials (the weights without cbind)
        self.m = trials if design.trials is not None else self.wt
        self.offset = np.zeros(n) if design.offset is None else design.offset
        self.dense = design.q <= pls._DENSE_Q
        self._z = design.Z.tocsr()
        self._zt = design.Z.T.tocsr()
        self._ztwz = _WeightedCrossProduct(design.Z, self.dense)
        self.k = design.ntheta + design.p  # then log dispersion, if the family has one

    # --- the family at the rows -----------------------------------------------------------
    def _scale(self, disp: float) -> float:
        return disp if self.family.name in _SCALED else 1.0

    def _logf(self, mu: np.ndarray, disp: float) -> float:
        fam, y = self.family, self.d.y
        if fam.name == "binomial":
            return float(np.sum(self.wt / self.m * fam.logpdf(y, mu, self.m)))
        return float(np.sum(fam.logpdf(y, mu, self.wt, disp)))

    def _ratio(self, eta: np.ndarray, disp: float) -> np.ndarray:
        """mu_eta / V(mu): the score of a row is wt (y - mu) times this, over the scale."""
        link = self.family.link
        return link.mu_eta(eta) / self.family.variance(link.linkinv(eta), disp)

    def _weights(self, eta: np.ndarray, mu: np.ndarray, disp: float, observed: bool) -> np.ndarray:
        """Expected (Fisher) or observed information of each row in eta."""
        link = self.family.link
        w = self.wt * link.mu_eta(eta) * self._ratio(eta, disp)
        if observed:  # - (y - mu) d(mu_eta / V)/d eta, by a central difference
            h = 1e-5 * np.maximum(np.abs(eta), 1e-3)
            slope = (self._ratio(eta + h, disp) - self._ratio(eta - h, disp)) / (2 * h)
            w = w - self.wt * (self.d.y - mu) * slope
        return w / self._scale(disp)

    def valid(self, eta: np.ndarray, mu: np.ndarray, glm: bool = False) -> bool:
        """R's ``validmu``: mu > 0 for counts, Gamma and the inverse Gaussian, 0 < mu < 1
        for binomial; with ``glm``, also R's ``valideta``, which ``glm.fit`` enforces and
        lme4's PIRLS does not: eta > 0 for the sqrt and 1/mu^2 links (mu = eta^2 has a second
        branch, which random effects may reach), eta != 0 for the inverse link."""
        link, name = self.family.link.name, self.family.name
        ok = np.all(np.isfinite(eta)) and np.all(np.isfinite(mu))
        if glm and link in ("sqrt", "1/mu^2"):
            ok = ok and np.all(eta > 0)
        elif glm and link == "inverse":
            ok = ok and np.all(eta != 0)
        if name == "binomial":
            ok = ok and np.all((mu > 0) & (mu < 1))
        elif name != "gaussian":
            ok = ok and np.all(mu > 0)
        return bool(ok)

    def _factor(self, lt, w: np.ndarray) -> pls._Factor:
        return pls._factor(self.d, pls._a_matrix(self.d, lt, self._ztwz(w)))

    # --- one parameter vector ---------------------------------------------------------------
    def unpack(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(theta, beta, dispersion) from the parameter vector."""
        x = np.asarray(x, float)
        disp = float(np.exp(x[self.k])) if self.family.dispersion else 1.0
        return x[:self.d.ntheta], x[self.d.ntheta:self.k], disp

    def mode(self, x: np.ndarray) -> LaplaceMode:
        """The mode of the integrand by Newton's method (Fisher scoring where the observed
        information is not positive definite) with step halving, from u = 0 at every call:
        a warm start would make log L depend on the path, as the integrand of a
        non-canonical link can have several modes (the sqrt link's mu = eta^2); log L with
        the observed information at the mode."""
        theta, beta, disp = self.unpack(x)
        d, link = self.d, self.family.link
        lt = d.lambdat(theta, dense=self.dense)
        lzt = lt @ self._zt
        eta0 = d.X @ beta + self.offset

        def at(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
            eta = eta0 + self._z @ (lt.T @ u)
            mu = link.linkinv(eta)
            if not self.valid(eta, mu):
                return eta, mu, -np.inf
            return eta, mu, self._logf(mu, disp) - u @ u / 2

        u = np.zeros(d.q)
        eta, mu, pen = at(u)
        for _ in range(_MAXIT):
            try:
                factor = self._factor(lt, self._weights(eta, mu, disp, True))
            except np.linalg.LinAlgError:
                factor = self._factor(lt, self._weights(eta, mu, disp, False))
            score = self.wt * (d.y - mu) * self._ratio(eta, disp) / self._scale(disp)
            grad = np.asarray(lzt @ score).ravel() - u
            step = factor.solve(grad)
            if grad @ step < _DECREMENT:  # Newton's decrement: the last step is exact to rounding
                u = u + step
                eta, mu, pen = at(u)
                break
            for _ in range(30):  # halve a step that lowers the integrand
                new_eta, new_mu, new_pen = at(u + step)
                if new_pen >= pen:
                    break
                step = step / 2
            u, eta, mu, pen = u + step, new_eta, new_mu, new_pen
        try:
            logdet = self._factor(lt, self._weights(eta, mu, disp, True)).logdet
        except np.linalg.LinAlgError:
            return LaplaceMode(u, mu, -np.inf)  # the Laplace approximation needs A > 0
        return LaplaceMode(u, mu, float(pen - logdet / 2))

    def loglik(self, x: np.ndarray) -> float:
        """log L at ``x = (theta, beta, log dispersion)``; -inf where it is undefined."""
        with np.errstate(all="ignore"):
            try:
                value = self.mode(x).loglik
            except (np.linalg.LinAlgError, ValueError):
                return -np.inf
        return value if np.isfinite(value) else -np.inf


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


@pls.one_blas_thread
def fit_laplace(design: MixedDesign, settings: FitSettings) -> FittedParameters:
    """Maximise the Laplace likelihood of a GLMM design (any family and link of
    ``families``) from a GLM's estimates, or from
    ``settings.start`` (lme4's theta, beta, dispersion): L-BFGS-B in parameters scaled by
    the GLM's standard errors, Nelder-Mead from its end point where it stops early.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> from acceptability.stats.mixed.laplace_engine import fit_laplace
    >>> from acceptability.stats.mixed.protocol import FitSettings
    >>> df = pd.DataFrame({"y": [2.1, 3.5, 2.8, 4.9, 3.3, 6.2, 2.5, 4.1, 3.0, 5.2],
    ...                    "x": [0, 1] * 5, "g": list("aabbccddee")})
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
    f = LaplaceLikelihood(design)
    fam = f.family
    beta, disp = _glm_start(design, f)
    eta = design.X @ beta + f.offset
    mu = fam.link.linkinv(eta)
    resid = (design.y - mu) / fam.link.mu_eta(eta)
    theta = _theta_start(design, resid)
    start = settings.start or {}
    if "dispersion" in start:
        disp = float(start["dispersion"])
    if "beta" in start:
        beta = np.asarray(start["beta"], float)
    if "theta" in start:
        theta = np.asarray(start["theta"], float) * (np.sqrt(disp) if fam.name in _SCALED else 1.0)
    x0 = np.concatenate([theta, beta, [np.log(disp)] if fam.dispersion else []])
    se = np.sqrt(np.diag(np.linalg.pinv(design.X.T @ (design.X * (f.wt * fam.link.mu_eta(eta) ** 2
                                                               / fam.variance(mu, disp))[:, None]))))
    scale = np.concatenate([np.maximum(np.abs(theta), 1e-3 * np.max(np.abs(theta)) + 1e-8),
                            np.maximum(se * np.sqrt(disp if fam.name in _SCALED else 1.0), 1e-10),
                            [1.0] if fam.dispersion else []])
    lower = np.concatenate([design.theta_lower(), np.full(len(x0) - design.ntheta, -np.inf)])

    def dev(z: np.ndarray) -> float:
        v = -2 * f.loglik(z * scale)
        return v if np.isfinite(v) else 1e300

    bounds = [(lo / s if np.isfinite(lo) else None, None) for lo, s in zip(lower, scale, strict=True)]
    best = optimize.minimize(dev, x0 / scale, method="L-BFGS-B", jac="3-point", bounds=bounds,
                             options={"ftol": 1e-13, "gtol": 1e-6, "maxiter": 2000})
    if not best.success:
        polish = optimize.minimize(dev, best.x, method="Nelder-Mead", bounds=bounds,
                                   options={"xatol": 1e-9, "fatol": 1e-11, "maxfev": 400 * len(x0)})
        if polish.fun < best.fun:
            best = polish
    x = np.maximum(best.x * scale, lower)
    mode = f.mode(x)
    theta, beta, disp = f.unpack(x)
    vcov = _vcov(f, x, scale, design)
    sigma = float(np.sqrt(disp)) if fam.name in _SCALED else 1.0
    lt = design.lambdat(theta)
    converged = bool(np.isfinite(mode.loglik) and np.all(np.isfinite(vcov)))
    return FittedParameters(
        engine=LAPLACE_ENGINE, theta=theta / sigma, beta=beta, vcov=vcov,
        b=np.asarray(lt.T @ mode.u).ravel(), sigma=sigma, loglik=mode.loglik,
        converged=converged, notes=[] if converged else ["the Hessian at the optimum is not "
                                                         "positive definite"],
        state=mode, dispersion=disp)


def _vcov(f: LaplaceLikelihood, x: np.ndarray, scale: np.ndarray, d: MixedDesign) -> np.ndarray:
    """Cov(beta): the beta block of the inverse Hessian of -log L in every parameter
    off its bound (a variance at 0 is held there)."""
    free = np.ones(len(x), bool)
    free[:d.ntheta] = ~((d.theta_lower() == 0) & (x[:d.ntheta] <= 1e-6 * scale[:d.ntheta]))
    idx = np.flatnonzero(free)

    def nll(z: np.ndarray) -> float:
        full = x.copy()
        full[idx] = z
        return -f.loglik(full)

    h = _hessian(nll, x[idx], 1e-2 * scale[idx])  # about 1% of a standard error
    try:
        inv = np.linalg.inv(h)
    except np.linalg.LinAlgError:
        return np.full((d.p, d.p), np.nan)
    pos = [int(np.flatnonzero(idx == j)[0]) for j in range(d.ntheta, d.ntheta + d.p)]
    return inv[np.ix_(pos, pos)]
