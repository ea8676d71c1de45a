"""lme4's penalised least squares (PLS) for linear mixed models, with a sparse factor.

Bates, Mächler, Bolker & Walker (2015), J. Stat. Softw. 67(1), section 3: for a
covariance parameter ``theta``, ``A = Lambda' Z' Z Lambda + I`` is factored (by blocks:
``stats.mixed.schur``), the fixed effects and spherical random effects solve the PLS
system (eq. 25-31), and the profiled deviance is eq. 34 (ML) or eq. 41 (REML).
Used for the fits glmm refuses (``||``, ``(0 + x | g)``, a factor in several terms, a slope
that is not also a fixed effect), and,
at every fit's optimum, for the conditional variances, Satterthwaite's degrees of freedom
(lmerTest's ``devfun_vp``; Kuznetsova, Brockhoff & Christensen 2017, J. Stat. Softw.
82(13), section 3) and the likelihood profiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, sparse
from threadpoolctl import threadpool_limits

from acceptability.stats.mixed import schur
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.lmm.pls_gradient import MAX_DENSE, ProfiledDeviance

# One BLAS thread: the matrices here are small, and OpenBLAS's threads slow each call down
# 5-30x when the two cores are busy (measured: 17 ms vs 527 ms per deviance evaluation).
one_blas_thread = threadpool_limits.wrap(limits=1, user_api="blas")

__all__ = ["PlsFit", "Satterthwaite", "cond_var", "fit_theta", "one_blas_thread", "pls",
           "satterthwaite", "varpar_deviance"]

_LOG2PI = np.log(2 * np.pi)


@dataclass
class PlsFit:
    """The PLS solution at one ``theta``."""

    theta: np.ndarray
    beta: np.ndarray
    u: np.ndarray  # spherical random effects; b = Lambda u
    b: np.ndarray
    pwrss: float  # penalised weighted residual sum of squares |y - X beta - Z b|^2 + |u|^2
    logdet_a: float  # log |A| = log |L|^2
    xtx: np.ndarray  # R_X' R_X = X'X - X'Z Lambda A^-1 Lambda'Z'X
    reml: bool
    n: int
    factor: schur.DenseFactor | schur.SchurFactor  # of A
    log_weights: float = 0.0  # sum(log w) of the prior weights (lme4's ldW)

    @property
    def p(self) -> int:
        return len(self.beta)

    @property
    def sigma(self) -> float:
        """Residual SD: sqrt(pwrss / (n - p)) for REML, sqrt(pwrss / n) for ML (lme4)."""
        return float(np.sqrt(self.pwrss / (self.n - self.p if self.reml else self.n)))

    @property
    def logdet_rx(self) -> float:
        return float(np.linalg.slogdet(self.xtx)[1])

    @property
    def deviance(self) -> float:
        """Profiled deviance: eq. 34 (ML) or the REML criterion, eq. 41, less sum(log w) with
        prior weights (lme4's ``lmerResp::Laplace``: the density of y ~ N(mu, sigma^2 / w))."""
        if self.reml:
            m = self.n - self.p
            return (self.logdet_a + self.logdet_rx + m * (1 + _LOG2PI + np.log(self.pwrss / m))
                    - self.log_weights)
        return self.logdet_a + self.n * (1 + _LOG2PI + np.log(self.pwrss / self.n)) - self.log_weights

    @property
    def vcov(self) -> np.ndarray:
        """Covariance of the fixed effects, sigma^2 (R_X' R_X)^-1 (lme4 ``vcov``)."""
        return self.sigma**2 * np.linalg.inv(self.xtx)


_DENSE_Q = 100  # largest q factored densely: one deviance of ham's (0 + Product | Consumer),
# q = 324, took 3.1 ms dense and 0.55 ms by blocks; sleepstudy's (Days || Subject), q = 36,
# 0.04 ms dense and 0.6 ms by blocks (one BLAS thread, AMD EPYC, 2 busy cores)


def _a_matrix(d: MixedDesign, lt, ztz) -> object:
    """A = Lambda' Z'Z Lambda + I (dense when q is small)."""
    if d.q <= _DENSE_Q:
        return lt @ ztz @ lt.T + np.eye(d.q)
    if all(t.nc == 1 for t in d.terms):  # Lambda diagonal: scale Z'Z's entries (two sparse
        lam = lt.diagonal()               # products took a fifth of a PLS solve, ham q = 405)
        ztz = sparse.csc_matrix(ztz)
        cols = np.repeat(np.arange(d.q), np.diff(ztz.indptr))
        data = ztz.data * lam[ztz.indices] * lam[cols]
        on_diagonal = ztz.indices == cols
        if ztz.has_canonical_format and np.count_nonzero(on_diagonal) == d.q:
            data[on_diagonal] += 1
            return sparse.csc_matrix((data, ztz.indices.copy(), ztz.indptr.copy()), shape=ztz.shape)
        return (sparse.csc_matrix((data, ztz.indices, ztz.indptr), shape=ztz.shape)
                + sparse.identity(d.q, format="csc")).tocsc()
    return (lt @ ztz @ lt.T + sparse.identity(d.q, format="csc")).tocsc()


def _factor(d: MixedDesign, a) -> schur.DenseFactor | schur.SchurFactor:
    first = d.terms[0]
    return schur.factor(a, first.nlev * first.nc, first.nc)


def pls(d: MixedDesign, theta: np.ndarray, reml: bool, y: np.ndarray | None = None,
        offset: np.ndarray | None = None) -> PlsFit:
    """Solve the PLS problem at ``theta`` (Bates et al. 2015, eqs. 25-31) from the cross
    products Z'Z, Z'X, X'X, Z'c, X'c, c'c, so that each call costs nothing in n; c is the
    response less its least-squares fit X gamma (``MixedDesign.centred``), solved for
    beta - gamma, so that pwrss does not cancel when y sits far from 0."""
    ztz, ztx, xtx0 = d.crossprods(dense=d.q <= _DENSE_Q)
    if y is None and offset is None:
        zty, xty, yty, gamma = d.response_crossprods
    else:
        zty, xty, yty, gamma = d.weighted_crossprods((d.y if y is None else y) - (0 if offset is None else offset))
    lt = d.lambdat(theta, dense=d.q <= _DENSE_Q)
    f = _factor(d, _a_matrix(d, lt, ztz))
    lzty, lztx = lt @ zty, np.asarray(lt @ ztx)
    cu, cx = f.solve(lzty), f.solve(lztx) if d.p else np.zeros((d.q, 0))
    xtx = xtx0 - lztx.T @ cx
    beta = np.linalg.solve(xtx, xty - lztx.T @ cu) if d.p else np.zeros(0)
    u = cu - cx @ beta
    # the least-squares identity |y~ - W~ s|^2 = y'y - s'W~'y~ for the augmented system
    pwrss = float(yty - u @ lzty - beta @ xty)
    return PlsFit(np.asarray(theta, float), beta + gamma, u, lt.T @ u, pwrss, f.logdet, xtx, reml,
                  d.n, f, d.log_weights)


@one_blas_thread
def fit_theta(d: MixedDesign, reml: bool, start: np.ndarray | None = None,
              y: np.ndarray | None = None, offset: np.ndarray | None = None) -> tuple[np.ndarray, bool]:
    """``theta`` minimising the profiled deviance, by bounded quasi-Newton (L-BFGS-B with
    the analytic gradient of [ProfiledDeviance][acceptability.stats.mixed.lmm.pls_gradient.ProfiledDeviance],
    or a central-difference one where the terms after the first have more than
    ``MAX_DENSE`` columns; Nelder-Mead from its end point when it reports failure);
    returns (theta, converged)."""
    lower = d.theta_lower()
    bounds = [(lo if np.isfinite(lo) else None, None) for lo in lower]
    x0 = d.theta_start() if start is None else np.maximum(np.asarray(start, float), lower)

    def dev(th: np.ndarray) -> float:
        return pls(d, th, reml, y, offset).deviance

    analytic = d.q - d.terms[0].nlev * d.terms[0].nc <= MAX_DENSE
    fun, jac = (ProfiledDeviance(d, reml, y, offset, d.q <= _DENSE_Q), True) if analytic else (dev, "3-point")
    best = optimize.minimize(fun, x0, method="L-BFGS-B", jac=jac, bounds=bounds,
                             options={"ftol": 1e-12, "gtol": 1e-8, "maxiter": 1000})
    if not best.success:
        polish = optimize.minimize(dev, best.x, method="Nelder-Mead", bounds=bounds,
                                   options={"xatol": 1e-7, "fatol": 1e-10, "maxfev": 200 * len(x0)})
        best = polish if polish.fun <= best.fun else best
    # lme4's restart_edge: a diagonal of T_k at 0 is a stationary point whenever the deviance
    # is even in it (carrots' (1 + sens2 | Consumer) stopped there at REML criterion 3765.04,
    # lme4's optimum is 3759.12), so step into the interior and restart when that is lower
    for i in np.flatnonzero((lower == 0) & (best.x <= 1e-8)):
        for h in (1e-3, 0.1):
            probe = best.x.copy()
            probe[i] = h
            if dev(probe) < best.fun:
                again = optimize.minimize(fun, probe, method="L-BFGS-B", jac=jac, bounds=bounds,
                                          options={"ftol": 1e-12, "gtol": 1e-8, "maxiter": 1000})
                best = again if again.fun < best.fun else best
                break
    return np.maximum(best.x, lower), bool(best.success)


def varpar_deviance(d: MixedDesign, varpar: np.ndarray, reml: bool) -> float:
    """Deviance as a function of (theta, sigma) with beta profiled out (lmerTest
    ``devfun_vp``): log|A| + pwrss/sigma^2 + n log(2 pi sigma^2), plus
    log|R_X'R_X| - p log(2 pi sigma^2) for REML."""
    return _deviance_at(d, pls(d, varpar[:-1], reml), varpar[-1] ** 2, reml)


def _deviance_at(d: MixedDesign, f: PlsFit, sigma2: float, reml: bool) -> float:
    """``varpar_deviance`` from the PLS solution ``f`` at theta and sigma^2."""
    dev = f.logdet_a + f.pwrss / sigma2 + d.n * np.log(2 * np.pi * sigma2) - f.log_weights
    if reml:
        dev += f.logdet_rx - d.p * np.log(2 * np.pi * sigma2)
    return float(dev)


def _richardson(g, levels: int = 3) -> np.ndarray:
    """Richardson extrapolation of a central difference ``g(scale)`` over steps 1, 1/2,
    1/4, ... (``levels`` of them): each level removes the next even power of the step, as
    numDeriv (which lmerTest uses) does."""
    a = [g(0.5**k) for k in range(levels)]
    for m in range(1, levels):
        a = [(4**m * a[k + 1] - a[k]) / (4**m - 1) for k in range(len(a) - 1)]
    return a[0]


def _steps(x: np.ndarray) -> np.ndarray:
    """1% of each parameter, extrapolated over three halvings: the profiled deviance
    carries rounding noise of about 1e-12 relative (pwrss from cross products), which
    0.1% steps amplified into 1e-4 errors in the Satterthwaite df (Pastes: 9.0011 against
    lmerTest's 9.0000, on an AMD EPYC; now 8.99999, and LI-Adger's 510.79937 and 165.39352
    against 510.79939 and 165.39352)."""
    return 1e-2 * np.maximum(np.abs(x), 0.1)


def _hessian(f, x: np.ndarray) -> np.ndarray:
    k, hs = len(x), _steps(x)
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            def second(scale, i=i, j=j):
                e_i, e_j = np.eye(k)[i] * hs[i] * scale, np.eye(k)[j] * hs[j] * scale
                val = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j))
                return val / (4 * hs[i] * hs[j] * scale**2)
            out[i, j] = out[j, i] = _richardson(second)
    return out


def _jacobian(f, x: np.ndarray) -> list[np.ndarray]:
    k, hs = len(x), _steps(x)
    out = []
    for i in range(k):
        def first(scale, i=i):
            e = np.eye(k)[i] * hs[i] * scale
            return (f(x + e) - f(x - e)) / (2 * hs[i] * scale)
        out.append(_richardson(first))
    return out


@dataclass
class Satterthwaite:
    """lmerTest's ingredients of Satterthwaite's df at a fit (its ``vcov_beta``,
    ``Jac_list`` and ``vcov_varpar``): C = Cov(beta), the derivatives of C in
    (theta, sigma), and A = 2 H^-1 the asymptotic covariance of (theta, sigma)."""

    vcov_beta: np.ndarray
    jacobian: list[np.ndarray]
    vcov_varpar: np.ndarray

    def df(self, contrasts: np.ndarray) -> np.ndarray:
        """df = 2 (l'Cl)^2 / (g' A g) of each row ``l`` of ``contrasts``, g the gradient of
        l'Cl in (theta, sigma) (lmerTest's ``contest1D``)."""
        out = []
        for row in np.atleast_2d(contrasts):
            var = row @ self.vcov_beta @ row
            g = np.array([row @ j @ row for j in self.jacobian])
            out.append(2 * var**2 / (g @ self.vcov_varpar @ g))
        return np.array(out)


@one_blas_thread
def satterthwaite(d: MixedDesign, fit: PlsFit) -> Satterthwaite:
    """[Satterthwaite][acceptability.stats.mixed.lmm.pls.Satterthwaite] at ``fit``: H is the
    Hessian of ``varpar_deviance``; derivatives are numerical, as lmerTest's.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.stats.mixed.lmm.pls import satterthwaite
    >>> ds, scores = data.load_example()
    >>> m = stats.lmer("human ~ score + (1 | phenomenon)", stats.sentence_model_frame(
    ...     ds, scores, model="bert-large-cased_mlm"))
    >>> s = satterthwaite(m.design, m.state)
    >>> [round(float(v), 4) for v in s.df([[1, 0], [0, 1]])] == [round(v, 4) for v in m.df]
    True
    """
    varpar = np.append(fit.theta, fit.sigma)
    fits: dict[bytes, PlsFit] = {}

    def at(theta: np.ndarray) -> PlsFit:  # PLS depends on theta only: the differences that
        key = theta.tobytes()              # move sigma, or revisit a theta, reuse its solution
        if key not in fits:                # (fewer than half as many solutions)
            fits[key] = pls(d, theta, fit.reml)
        return fits[key]

    def cov_beta(vp: np.ndarray) -> np.ndarray:
        return vp[-1] ** 2 * np.linalg.inv(at(vp[:-1]).xtx)

    h = _hessian(lambda vp: _deviance_at(d, at(vp[:-1]), vp[-1] ** 2, fit.reml), varpar)
    return Satterthwaite(cov_beta(varpar), _jacobian(cov_beta, varpar), 2 * np.linalg.pinv(h))


@one_blas_thread
def cond_var(d: MixedDesign, theta: np.ndarray, sigma: float, factor: schur.DenseFactor | schur.SchurFactor | None = None,
             weights: np.ndarray | None = None) -> list[np.ndarray]:
    """Conditional covariance of each level's random effects (lme4 ``ranef(condVar=TRUE)``):
    blocks of sigma^2 Lambda A^-1 Lambda', one (nlev, nc, nc) array per term. An LMM passes
    the factor of A at its fit; a GLMM the working weights W, for A = Lambda' Z' W Z Lambda + I."""
    lt = d.lambdat(theta, dense=d.q <= _DENSE_Q)
    if weights is None:
        assert factor is not None, "pass the factor of A or the working weights"
    else:
        ztwz = (d.Z.T @ sparse.diags(weights) @ d.Z).tocsc()
        factor = _factor(d, _a_matrix(d, lt, ztwz.toarray() if isinstance(lt, np.ndarray) else ztwz))
    out, off = [], 0
    for t in d.terms:
        width = t.nlev * t.nc
        blocks = np.empty((t.nlev, t.nc, t.nc))
        slab = t.nc * max(1, 512 // t.nc)
        for start in range(0, width, slab):  # A^-1 Lambda' one slab of columns at a time
            stop = min(start + slab, width)
            cols = lt[:, off + start:off + stop]
            sol = cols.T @ factor.solve(cols if isinstance(cols, np.ndarray) else cols.toarray())
            for lev in range(start // t.nc, stop // t.nc):
                k = lev * t.nc - start
                blocks[lev] = sol[k:k + t.nc, k:k + t.nc]
        out.append(sigma**2 * blocks)
        off += width
    return out
