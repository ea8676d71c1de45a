"""lme4's deviance function of a GLMM: penalised iteratively reweighted least squares
(PIRLS) for the conditional modes, then the Laplace or adaptive Gauss-Hermite deviance.

Bates, Mächler, Bolker & Walker (2015), J. Stat. Softw. 67(1), section 5, and lme4's
``glmer(..., devFunOnly = TRUE)`` after its first stage: a function of
``pars = c(theta, beta)``. At fixed (theta, beta) PIRLS finds the spherical random effects
``u`` minimising the penalised deviance ``sum(dev.resids) + |u|^2`` by Fisher scoring
(Newton for a canonical link) with the GLM weights ``W = w mu_eta^2 / V(mu)`` (lme4's
``sqrtWrkWt``), halving a step that raises it. With ``L`` the Cholesky factor of
``A = Lambda' Z' W Z Lambda + I`` at the mode, the Laplace deviance (nAGQ = 1) is lme4's
``glmResp::Laplace``: ``-2 sum log f(y_i | mu_i) + |u|^2 + log |L|^2``. For a single scalar
random effect, nAGQ > 1 points give lme4's ``glmerAGQ``: per level ``j`` the conditional
deviance ``devc_j(u) = u_j^2 + sum_{i in j} dev.resid_i`` is integrated by Gauss-Hermite
quadrature centred at the mode with scale ``1 / L_jj``, and the deviance is
``sum_j devc_j(u_hat) + log |L|^2 - 2 sum_j log(sum_k w_k exp(z_k^2 / 2 - (devc_j(u_hat +
z_k / L_jj) - devc_j(u_hat)) / 2))`` (it sums deviance residuals where the Laplace
deviance sums -2 log f, so the two sit on different scales, as in lme4).

Written by hand because the glmm engine does not expose its deviance; ``A`` is factored by
the PLS code's block/Schur factor (``pls._Factor``). Families without
a dispersion parameter (binomial, poisson), with any of R's links for them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.polynomial import hermite_e
from scipy import sparse, special

from acceptability.stats.mixed import pls
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.results import MixedResult

__all__ = ["GlmerDevfun", "PirlsMode", "glmer_devfun"]

_MAXIT = 200  # PIRLS iterations (Fisher scoring for a non-canonical link converges linearly)
_UTOL = 1e-10  # converged when no element of the PIRLS step exceeds this (times 1 + |u|)
_ROUNDING = 1e-12  # relative change of the penalised deviance that is rounding, not a rise


@dataclass
class PirlsMode:
    """The PIRLS solution at one (theta, beta): conditional modes and the factor there."""

    theta: np.ndarray
    beta: np.ndarray
    u: np.ndarray  # spherical random effects at the mode; b = Lambda u
    mu: np.ndarray  # conditional means at the mode
    a_diag: np.ndarray  # diagonal of A = Lambda' Z' W Z Lambda + I
    logdet: float  # log |L|^2 = log |A|
    deviance: float  # the Laplace (nAGQ = 1) or adaptive Gauss-Hermite deviance
    iterations: int


def _dev_resids(name: str, y: np.ndarray, mu: np.ndarray, wt: np.ndarray) -> np.ndarray:
    """R's ``family$dev.resids`` of binomial (y a proportion) and poisson."""
    if name == "binomial":
        return 2 * wt * (special.xlogy(y, y / mu) + special.xlogy(1 - y, (1 - y) / (1 - mu)))
    return 2 * wt * (special.xlogy(y, y / mu) - (y - mu))


class _ZRows:
    """``Z`` as the (column, value) pairs of each row, one per random-effect coefficient,
    with the pattern of ``Z' W Z``: PIRLS forms ``Z b``, ``Z' r`` and ``Z' W Z`` once per
    iteration, which index arithmetic does several times faster than scipy's sparse
    products on these small problems."""

    def __init__(self, d: MixedDesign) -> None:
        cols, vals, off = [], [], 0
        for t in d.terms:
            cols.append(off + t.codes[:, None] * t.nc + np.arange(t.nc))
            vals.append(t.cols)
            off += t.nlev * t.nc
        self.q, self.cols, self.vals = d.q, np.hstack(cols), np.hstack(vals)
        pairs = (self.cols[:, :, None] * d.q + self.cols[:, None, :]).reshape(d.n, -1)
        self._pair_vals = (self.vals[:, :, None] * self.vals[:, None, :]).reshape(d.n, -1)
        self.dense = d.q <= pls._DENSE_Q
        if self.dense:
            self._pairs = pairs.ravel()
        else:  # the distinct entries of Z'WZ, row-major: its CSR layout
            entries, self._pairs = np.unique(pairs.ravel(), return_inverse=True)
            self._indices = entries % d.q
            self._indptr = np.searchsorted(entries // d.q, np.arange(d.q + 1))

    def times(self, b: np.ndarray) -> np.ndarray:
        """Z b."""
        return np.sum(self.vals * b[self.cols], axis=1)

    def t_times(self, r: np.ndarray) -> np.ndarray:
        """Z' r."""
        return np.bincount(self.cols.ravel(), (self.vals * r[:, None]).ravel(), minlength=self.q)

    def crossprod(self, w: np.ndarray):
        """Z' W Z: dense for a small q, else CSR."""
        values = (self._pair_vals * w[:, None]).ravel()
        if self.dense:
            return np.bincount(self._pairs, values, minlength=self.q * self.q).reshape(self.q, self.q)
        data = np.bincount(self._pairs, values, minlength=len(self._indices))
        return sparse.csr_matrix((data, self._indices, self._indptr), shape=(self.q, self.q))


class GlmerDevfun:
    """lme4's GLMM deviance as a function of ``pars = (theta, beta)`` (``glmer(...,
    devFunOnly = TRUE)``, stage 2). Each call warm-starts PIRLS at the previous call's
    modes, as lme4's devfun does; the result is the same to about 1e-10.

    Parameters
    ----------
    design
        A binomial or poisson design ([model_design][acceptability.stats.mixed.stages.model_design]);
        its ``link``, prior ``weights``, binomial ``trials`` and ``offset`` are used.
    nAGQ
        1 (Laplace) or the number of adaptive Gauss-Hermite points (one scalar random
        effect only, as in lme4).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> from acceptability.stats.mixed.laplace import GlmerDevfun
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> f = GlmerDevfun(model_design("cbind(k, n - k) ~ x + (1 | g)", df, "binomial"))
    >>> round(f([0.5, -1.0, 1.2]), 6)  # lme4's devfun(c(0.5, -1, 1.2)): 30.2594105865
    30.259411
    """

    def __init__(self, design: MixedDesign, nAGQ: int = 1) -> None:
        fam = design.glm_family
        if fam.name not in ("binomial", "poisson"):
            raise ValueError(f"lme4's GLMM deviance is computed here for binomial and poisson "
                             f"models; family {fam.name!r} has a dispersion parameter: for its "
                             f"intervals use confint(method='Wald') or method='boot'")
        if nAGQ > 1 and (len(design.terms) != 1 or design.terms[0].nc != 1):
            raise ValueError(f"nAGQ={nAGQ} needs a single scalar random effect, as in lme4 (the "
                             f"model has {[str(t.term) for t in design.terms]}); use nAGQ=1")
        self.design, self.family, self.nagq = design, fam, int(nAGQ)
        n = design.n
        prior = np.ones(n) if design.weights is None else np.asarray(design.weights, float)
        trials = np.ones(n) if design.trials is None else np.asarray(design.trials, float)
        self.y = np.asarray(design.y, float)
        self.offset = np.zeros(n) if design.offset is None else np.asarray(design.offset, float)
        if fam.name == "binomial":
            # lme4's glmResp: weights = prior weights x trials, n = trials; binomial()$aic
            # sums (wt / m) dbinom(round(m y), round(m), mu) with m = n if any n > 1, else wt
            self.wt = prior * trials
            self._m = trials if np.any(trials > 1) else self.wt
        else:
            self.wt = prior
        self._z = _ZRows(design)
        self._u = np.zeros(design.q)  # warm start: the last call's modes
        if self.nagq > 1:
            z, w = hermite_e.hermegauss(self.nagq)
            self._knots = z
            self._log_w = np.log(w / np.sqrt(2 * np.pi)) + z**2 / 2
            self._codes = design.terms[0].codes

    # --- one (theta, beta) --------------------------------------------------------------
    def _minus2_loglik(self, mu: np.ndarray) -> float:
        """lme4's ``aic()`` of the response: -2 sum log f(y | mu) with the prior weights."""
        fam = self.family
        if fam.name == "poisson":
            return float(-2 * np.sum(fam.logpdf(self.y, mu, self.wt)))
        m, keep = self._m, self._m > 0
        logf = fam.logpdf(self.y[keep], mu[keep], m[keep])
        return float(-2 * np.sum(self.wt[keep] / m[keep] * logf))

    def _penalised(self, u: np.ndarray, mu: np.ndarray) -> float:
        return float(np.sum(_dev_resids(self.family.name, self.y, mu, self.wt)) + u @ u)

    def mode(self, theta: np.ndarray, beta: np.ndarray, u: np.ndarray | None = None) -> PirlsMode:
        """PIRLS at (theta, beta) from ``u`` (default: the last call's modes) and the
        deviance there (lme4's ``pwrssUpdate`` then ``Laplace`` or ``glmerAGQ``)."""
        d, link = self.design, self.family.link
        theta, beta = np.asarray(theta, float), np.asarray(beta, float)
        lt = d.lambdat(theta, dense=self._z.dense)
        eta0 = d.X @ beta + self.offset
        u = (self._u if u is None else np.asarray(u, float)).copy()
        eta = eta0 + self._z.times(lt.T @ u)
        mu = link.linkinv(eta)
        pdev = self._penalised(u, mu)
        for it in range(1, _MAXIT + 1):  # noqa: B007 (it is reported)
            mu_eta = link.mu_eta(eta)
            var = self.family.variance(mu)
            a = pls._a_matrix(d, lt, self._z.crossprod(self.wt * mu_eta**2 / var))
            factor = pls._factor(d, a)
            step = factor.solve(lt @ self._z.t_times(self.wt * mu_eta * (self.y - mu) / var) - u)
            if np.max(np.abs(step), initial=0.0) <= _UTOL * (1 + np.max(np.abs(u), initial=0.0)):
                break  # the factor is at the mode
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                for _ in range(30):  # lme4 halves a step that raises the penalised deviance
                    new_u = u + step  # (beyond rounding: near the mode a full step can seem to)
                    new_eta = eta0 + self._z.times(lt.T @ new_u)
                    new_mu = link.linkinv(new_eta)
                    new_pdev = self._penalised(new_u, new_mu)
                    if new_pdev <= pdev + _ROUNDING * abs(pdev) or not np.isfinite(pdev):
                        break
                    step = step / 2
            u, eta, mu, pdev = new_u, new_eta, new_mu, new_pdev
        else:
            raise RuntimeError(f"PIRLS did not converge in {_MAXIT} iterations at theta={theta}, beta={beta}")
        self._u = u
        a_diag = np.asarray(a.diagonal()).ravel()
        if self.nagq == 1:
            dev = self._minus2_loglik(mu) + float(u @ u) + factor.logdet
        else:
            dev = self._agq(lt, eta0, u, mu, a_diag, factor.logdet)
        return PirlsMode(theta, beta, u, mu, a_diag, factor.logdet, float(dev), it)

    def _devc(self, u: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """Per level: u_j^2 + the deviance residuals of its rows (lme4's ``devcCol``)."""
        res = _dev_resids(self.family.name, self.y, mu, self.wt)
        return u**2 + np.bincount(self._codes, res, minlength=len(u))

    def _agq(self, lt, eta0: np.ndarray, u: np.ndarray, mu: np.ndarray, a_diag: np.ndarray,
             logdet: float) -> float:
        """lme4's ``glmerAGQ``: A is diagonal for one scalar term, L_jj = sqrt(A_jj)."""
        sd = 1 / np.sqrt(a_diag)
        devc0 = self._devc(u, mu)
        terms = []
        for z, lw in zip(self._knots, self._log_w, strict=True):
            uz = u + z * sd
            muz = self.family.link.linkinv(eta0 + self._z.times(lt.T @ uz))
            terms.append(lw - 0.5 * (self._devc(uz, muz) - devc0))
        log_mult = special.logsumexp(np.array(terms), axis=0)
        return float(np.sum(devc0) + logdet - 2 * np.sum(log_mult))

    @pls.one_blas_thread
    def __call__(self, pars: np.ndarray) -> float:
        """The deviance at ``pars = (theta, beta)``, lme4's order."""
        pars = np.asarray(pars, float)
        k = self.design.ntheta
        return self.mode(pars[:k], pars[k:]).deviance


def glmer_devfun(m: MixedResult, nAGQ: int | None = None) -> GlmerDevfun:
    """The deviance function of a glmer fit ``m`` (lme4's ``glmer(..., devFunOnly = TRUE)``):
    a function of ``pars = (theta, beta)``, at the fit's nAGQ unless ``nAGQ`` is given.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import glmer
    >>> from acceptability.stats.mixed.laplace import glmer_devfun
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> m = glmer("cbind(k, n - k) ~ x + (1 | g)", df)
    >>> f = glmer_devfun(m)
    >>> bool(abs(f(np.append(m.theta, m.fixef)) - m.deviance) < 1e-4)
    True
    """
    return GlmerDevfun(m.design, m.nagq if nAGQ is None else nAGQ)
