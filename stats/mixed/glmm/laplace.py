"""The Laplace likelihood of a GLMM: the conditional modes by penalised iteratively
reweighted least squares (PIRLS) / Newton's method, then the Laplace or adaptive
Gauss-Hermite value. One implementation for the fit of the families and links glmm lacks
([fit_laplace][acceptability.stats.mixed.engines.laplace_engine.fit_laplace]), for lme4's deviance
function and for the profile intervals of glmer fits (``profile``).

Bates, Mächler, Bolker & Walker (2015), J. Stat. Softw. 67(1), section 5 and eq. 22;
Kristensen et al. (2016), J. Stat. Softw. 70(5), "TMB", section 2. At fixed
``(theta, beta)`` and dispersion ``phi`` (Gamma, inverse Gaussian, gaussian: the scale; the
negative binomial: its size) the spherical random effects ``u`` (``b = Lambda u``) minimise
the penalised deviance ``sum(dev.resids) / scale + |u|^2``, by Newton steps
``A^-1 (Lambda' Z' score - u)`` with ``A = Lambda' Z' W Z Lambda + I``, a step that raises
it halved (lme4's ``pwrssUpdate``). ``W`` is each row's information in its linear predictor:

* ``information="expected"``: the Fisher weights ``w mu_eta^2 / (scale V(mu))`` (lme4's
  ``sqrtWrkWt``; Fisher scoring): lme4's ``glmer(..., devFunOnly = TRUE)`` deviance.
* ``information="observed"``: ``-d^2 log f / d eta^2`` (Newton; Fisher scoring where it is
  not positive definite): glmmTMB's Laplace likelihood, and glmm's, which the glmer fits
  report.

The two are equal for a canonical link (``mu_eta / V`` constant). The Laplace
log-likelihood is ``sum log f(y_i | mu_i, phi) - |u|^2 / 2 - log |A| / 2`` at the mode
(lme4's ``glmResp::Laplace`` is -2 times it). For a single scalar random effect of a
binomial or poisson model, nAGQ > 1 points give lme4's ``glmerAGQ``: per level ``j`` the
conditional deviance ``devc_j(u) = u_j^2 + sum_{i in j} dev.resid_i`` is integrated by
Gauss-Hermite quadrature centred at the mode with scale ``1 / L_jj``, and the deviance is
``sum_j devc_j(u_hat) + log |L|^2 - 2 sum_j log(sum_k w_k exp(z_k^2 / 2 - (devc_j(u_hat +
z_k / L_jj) - devc_j(u_hat)) / 2))`` (lme4's; it sums deviance residuals where the
Laplace deviance sums -2 log f, so the two sit on different scales. glmm's nAGQ > 1
likelihood is this one with the observed information, -2 log f summed: the constant
``-2 sum log f - sum dev.resids`` apart).

Written by hand because glmm does not expose its likelihood; ``A`` is factored by the PLS
code's block/Schur factor (``stats.mixed.schur``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.polynomial import hermite_e
from scipy import linalg, sparse, special

from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.glmm.zrows import Diagonal, ZRows
from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.results import MixedResult

__all__ = ["DOMAIN_NOTE", "DomainBoundary", "GlmerDevfun", "LaplaceLikelihood", "LaplaceMode", "glmer_devfun"]

Information = Literal["expected", "observed"]
DOMAIN_NOTE = "sqrt link:"  # the start of branch_notes' caveat, which glmer warns
_MAXIT = 200  # PIRLS iterations (Fisher scoring for a non-canonical link converges linearly)
_UTOL = 1e-10  # converged when no element of the step exceeds this (times 1 + |u|)
_ROUNDING = 1e-12  # relative change of the penalised deviance that is rounding, not a rise


class DomainBoundary(RuntimeError):
    """PIRLS approached the edge of the family's range (``LaplaceLikelihood.on_boundary``):
    the conditional mode is not inside the domain, where the Laplace approximation is
    defined."""

    def __init__(self, mu: np.ndarray, rows: np.ndarray) -> None:
        super().__init__(f"the conditional mode puts {int(rows.sum())} rows' mean on the edge of "
                         f"the family's range (smallest {mu.min():.3g})")
        self.mu, self.rows = mu, rows


@dataclass
class LaplaceMode:
    """The conditional mode at one (theta, beta, dispersion) and the likelihood there."""

    theta: np.ndarray
    beta: np.ndarray
    dispersion: float
    u: np.ndarray  # spherical random effects at the mode; b = Lambda u
    mu: np.ndarray  # conditional means at the mode
    a_diag: np.ndarray  # diagonal of A = Lambda' Z' W Z Lambda + I
    logdet: float  # log |L|^2 = log |A|; inf where A is not positive definite
    loglik: float  # the Laplace log-likelihood (-inf where it is undefined)
    deviance: float  # -2 loglik, or lme4's adaptive Gauss-Hermite deviance (nAGQ > 1)
    iterations: int


class LaplaceLikelihood:
    """The Laplace likelihood of a GLMM design at ``(theta, beta, dispersion)``, with the
    expected (lme4's) or observed (glmmTMB's) information in its curvature; ``theta`` is the
    factor of the covariance of b itself (lme4's theta times sigma for a family with a
    scale). Calls warm-start at the last call's modes where the integrand has one mode
    (binomial logit/probit/cloglog, poisson log; lme4's devfun always does), else start at
    u = 0, so that the value does not depend on the path (the sqrt link's mu = eta^2 has
    two branches).

    Parameters
    ----------
    design
        A GLMM design ([model_design][acceptability.stats.mixed.stages.model_design]); its
        ``link``, prior ``weights``, binomial ``trials`` and ``offset`` are used.
    information
        ``"observed"`` (glmmTMB's, glmm's and the glmer fits' likelihood: the deviance is
        -2 logLik, with nAGQ > 1 too) or ``"expected"`` (lme4's devfun, whose nAGQ > 1
        deviance sums deviance residuals); equal for a canonical link but for that constant.
    nAGQ
        1 (Laplace) or the number of adaptive Gauss-Hermite points (lme4's ``glmerAGQ``: a
        binomial or poisson model with one scalar random effect).
    warm
        Warm-start PIRLS at the last call's modes (default: where the integrand has one mode).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> from acceptability.stats.mixed.glmm.laplace import LaplaceLikelihood
    >>> df = pd.DataFrame({"y": [2.1, 3.5, 2.8, 4.9, 3.3, 6.2, 2.5, 4.1],
    ...                    "x": [0, 1] * 4, "g": list("aabbccdd")})
    >>> f = LaplaceLikelihood(model_design("y ~ x + (1 | g)", df, "Gamma", link="log"))
    >>> round(f.loglik([0.1, 1.0, 0.4, -3.0]), 4)  # x = (theta, beta, log phi)
    -8.8119
    """

    def __init__(self, design: MixedDesign, information: Information = "observed", nAGQ: int = 1,
                 warm: bool | None = None) -> None:
        fam = design.glm_family
        if information not in ("expected", "observed"):
            raise ValueError(f"information={information!r}: use 'expected' (lme4's) or 'observed' (glmmTMB's)")
        if nAGQ > 1 and (len(design.terms) != 1 or design.terms[0].nc != 1):
            raise ValueError(f"nAGQ={nAGQ} needs a single scalar random effect, as in lme4 (the "
                             f"model has {[str(t.term) for t in design.terms]}); use nAGQ=1")
        if nAGQ > 1 and fam.dispersion:
            raise ValueError(f"nAGQ={nAGQ}: adaptive Gauss-Hermite quadrature is lme4's, for binomial "
                             f"and poisson models, not {fam.name}; use nAGQ=1")
        self.design, self.family, self.nagq, self.information = design, fam, int(nAGQ), information
        # mu_eta / V constant (a canonical link; not the negative binomial's log): observed = expected
        self.observed = information == "observed" and not fam.fisher_is_observed
        self.warm = fam.one_mode if warm is None else warm
        n = design.n
        prior = np.ones(n) if design.weights is None else np.asarray(design.weights, float)
        trials = np.ones(n) if design.trials is None else np.asarray(design.trials, float)
        self.y = np.asarray(design.y, float)
        self.offset = np.zeros(n) if design.offset is None else np.asarray(design.offset, float)
        self.wt = prior * trials  # lme4's glmResp weights: prior weights x trials
        # binomial()$aic sums (wt / m) dbinom(round(m y), round(m), mu), m = n if any n > 1, else wt
        self._m = trials if np.any(trials > 1) else self.wt
        self.k = design.ntheta + design.p  # the parameter vector: then log dispersion, if any
        self._z = ZRows(design)
        self._u = np.zeros(design.q)  # warm start: the last call's modes
        self._scalar = len(design.terms) == 1 and design.terms[0].nc == 1  # A diagonal
        # log f = saturated - dev.resids / 2 exactly where the counts are whole (``_loglik_at``)
        self._counts = fam.whole_counts(self.y, self._m)
        self._saturated: float | None = None
        # mu = eta^2 is even in eta: a row with y > 0 has a mode of its density on either side
        # of eta = 0, so the integrand has a mode for each way of signing those rows' eta (the
        # Laplace value then jumps with the mode PIRLS happens to find: issue 44, item 2). R's
        # valideta (eta > 0) names the model's branch: the mode with eta > 0 wherever y > 0,
        # where log f = 2 y log(eta) - eta^2 is concave, so that mode is unique
        self._branch = self.y > 0 if fam.link.even else None
        if self.nagq > 1:
            z, w = hermite_e.hermegauss(self.nagq)
            self._knots = z
            self._log_w = np.log(w / np.sqrt(2 * np.pi)) + z**2 / 2
            self._codes = design.terms[0].codes

    # --- the family at the rows -----------------------------------------------------------
    def _scale(self, disp: float) -> float:
        return disp if self.family.scaled else 1.0

    def loglik_rows(self, mu: np.ndarray, disp: float = 1.0) -> float:
        """sum log f(y | mu, phi) with the prior weights (lme4's ``aic()`` times -1/2)."""
        return self.family.loglik(self.y, mu, self.wt, self._m, disp)

    def _ratio(self, eta: np.ndarray, disp: float) -> np.ndarray:
        """mu_eta / V(mu): the score of a row is wt (y - mu) times this, over the scale."""
        link = self.family.link
        return link.mu_eta(eta) / self.family.variance(link.linkinv(eta), disp)

    def _weights(self, eta: np.ndarray, mu: np.ndarray, disp: float, observed: bool,
                 ratio: np.ndarray) -> np.ndarray:
        """Expected (Fisher) or observed information of each row in eta (``ratio``:
        ``_ratio(eta, disp)``, which the score shares)."""
        w = self.wt * self.family.link.mu_eta(eta) * ratio
        if observed:  # - (y - mu) d(mu_eta / V)/d eta, by a central difference
            h = 1e-5 * np.maximum(np.abs(eta), 1e-3)
            slope = (self._ratio(eta + h, disp) - self._ratio(eta - h, disp)) / (2 * h)
            w = w - self.wt * (self.y - mu) * slope
        return w / self._scale(disp)

    def valid(self, eta: np.ndarray, mu: np.ndarray, glm: bool = False) -> bool:
        """R's ``validmu``: mu > 0 for counts, Gamma and the inverse Gaussian, 0 < mu < 1
        for binomial; with ``glm``, also R's ``valideta``, which ``glm.fit`` enforces and
        lme4's PIRLS does not: eta > 0 for the sqrt and 1/mu^2 links (mu = eta^2 has a second
        branch, which random effects may reach), eta != 0 for the inverse link; without
        ``glm``, the sqrt link's branch: eta > 0 where y > 0 (``_branch``)."""
        ok = np.isfinite(eta).all() and np.isfinite(mu).all()  # methods: no dispatch overhead
        if glm:
            ok = ok and self.family.link.valideta(eta)
        elif self._branch is not None:
            ok = ok and (eta[self._branch] > 0).all()
        return bool(ok and self.family.valid_mu(mu))

    def on_boundary(self, mu: np.ndarray) -> np.ndarray:
        """The rows whose mean sits at the edge of the family's range, within 1e-6 (relative
        to the mean response): mu -> 0 for counts, Gamma and the inverse Gaussian, mu -> 1 for
        the log-binomial. Only a link whose inverse can leave the range (identity, inverse,
        the log-binomial) reaches it; a row with y > 0 is held off by its density."""
        return self.family.on_boundary(mu, self.y)

    def _penalised(self, eta: np.ndarray, mu: np.ndarray, u: np.ndarray, disp: float) -> float:
        """sum(dev.resids) / scale + |u|^2 (-2 log of the integrand, less a constant); inf
        where mu is not valid."""
        if not self.valid(eta, mu):
            return np.inf
        res = self.family.dev_resids(self.y, mu, self.wt, disp)
        return float(res.sum() / self._scale(disp) + u @ u)

    # --- one (theta, beta, dispersion) ----------------------------------------------------------
    def mode(self, theta: np.ndarray, beta: np.ndarray, dispersion: float = 1.0,
             u: np.ndarray | None = None) -> LaplaceMode:
        """The conditional mode at (theta, beta, dispersion) from ``u`` (default: the last
        call's modes if warm, else 0) and the likelihood there (lme4's ``pwrssUpdate``
        then ``Laplace`` or ``glmerAGQ``). Raises RuntimeError when PIRLS does not converge."""
        d, link, disp = self.design, self.family.link, float(dispersion)
        theta, beta = np.asarray(theta, float), np.asarray(beta, float)
        lt = d.lambdat(theta, dense=self._z.dense)
        eta0 = d.X @ beta + self.offset
        u = (u if u is not None else self._u if self.warm else np.zeros(d.q)).astype(float, copy=True)
        eta = eta0 + self._z.times(lt.T @ u)
        if self._branch is not None and not self.valid(eta, link.linkinv(eta)):
            u = self._on_branch(theta, eta0, lt)
            eta = eta0 + self._z.times(lt.T @ u)
        mu = link.linkinv(eta)
        pdev = self._penalised(eta, mu, u, disp)
        for it in range(1, _MAXIT + 1):  # noqa: B007 (it is reported)
            fisher = not self.observed
            ratio = self._ratio(eta, disp)
            try:
                a, factor = self._factor(lt, self._weights(eta, mu, disp, not fisher, ratio))
            except np.linalg.LinAlgError:  # the observed information is not positive definite
                fisher = True
                a, factor = self._factor(lt, self._weights(eta, mu, disp, False, ratio))
            score = self.wt * (self.y - mu) * ratio / self._scale(disp)
            step = factor.solve(lt @ self._z.t_times(score) - u)
            if np.max(np.abs(step), initial=0.0) <= _UTOL * (1 + np.max(np.abs(u), initial=0.0)):
                break  # the factor is at the mode
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                for _ in range(30):  # lme4 halves a step that raises the penalised deviance
                    new_u = u + step  # (beyond rounding: near the mode a full step can seem to)
                    new_eta = eta0 + self._z.times(lt.T @ new_u)
                    new_mu = link.linkinv(new_eta)
                    new_pdev = self._penalised(new_eta, new_mu, new_u, disp)
                    if new_pdev <= pdev + _ROUNDING * abs(pdev) or not np.isfinite(pdev):
                        break
                    step = step / 2
            u, eta, mu, pdev = new_u, new_eta, new_mu, new_pdev
        else:
            if self.on_boundary(mu).any():
                raise DomainBoundary(mu, self.on_boundary(mu))
            raise RuntimeError(f"PIRLS did not converge in {_MAXIT} iterations at theta={theta}, beta={beta}")
        if self.warm:
            self._u = u
        a_diag = np.asarray(a.diagonal()).ravel()
        logdet = np.inf if fisher and self.observed else factor.logdet  # Laplace needs A > 0
        loglik = self._loglik_at(mu, pdev - float(u @ u), disp) - float(u @ u) / 2 - logdet / 2
        if self.nagq == 1:
            dev = -2 * loglik
        else:  # lme4's scale sums deviance residuals; glmm's -2 log f: a constant apart
            dev = self._agq(lt, eta0, u, mu, a_diag, logdet)
            if self.information == "observed":
                dev += -2 * self.loglik_rows(mu) - float(np.sum(self.family.dev_resids(self.y, mu, self.wt)))
        return LaplaceMode(theta, beta, disp, u, mu, a_diag, logdet, loglik, float(dev), it)

    def _factor(self, lt, w: np.ndarray) -> tuple[object, object]:
        """A = Lambda' Z'WZ Lambda + I and its factor (``pls._factor``); for one scalar term
        A is diagonal, ``theta^2 Z'WZ + I``, solved elementwise."""
        if self._scalar:
            lam = lt.diagonal() if sparse.issparse(lt) else np.diagonal(lt)
            diag = Diagonal(lam**2 * self._ztwz_diagonal(w) + 1)
            return diag, diag
        a = pls._a_matrix(self.design, lt, self._z.crossprod(w))
        return a, pls._factor(self.design, a)

    def _ztwz_diagonal(self, w: np.ndarray) -> np.ndarray:
        """Z'WZ for one scalar term: diagonal."""
        return np.bincount(self._z.cols[:, 0], self._z.vals[:, 0] ** 2 * w, self.design.q)

    def _loglik_at(self, mu: np.ndarray, deviance: float, disp: float) -> float:
        """sum log f(y | mu) (``loglik_rows``) given ``deviance`` = sum(dev.resids) / scale:
        for binomial and poisson counts, ``-deviance / 2`` plus the saturated model's log f,
        found once (no log-pmf per PIRLS)."""
        if not self._counts:
            return self.loglik_rows(mu, disp)
        if self._saturated is None:
            value = self.loglik_rows(mu, disp)
            if np.isfinite(value):
                self._saturated = value + deviance / 2
            return value
        return self._saturated - deviance / 2

    def _on_branch(self, theta: np.ndarray, eta0: np.ndarray, lt) -> np.ndarray:
        """A start u with eta > 0 where y > 0 (the sqrt link's branch): from u = 0, each level
        of the first term's intercept raised to put its rows' eta at least at sqrt(y), the
        row's own mode; ValueError where that intercept's variance is 0."""
        d = self.design
        t = d.terms[0]
        lift = np.zeros(t.nlev)
        np.maximum.at(lift, t.codes, np.where(self._branch, np.sqrt(self.y) - eta0, 0.0))
        db = np.zeros(d.q)
        db[np.arange(t.nlev) * t.nc] = lift  # b = Lambda u: the intercept is each level's first
        lam = np.asarray(lt.T.todense()) if sparse.issparse(lt) else lt.T
        if np.any(lift > 0) and not np.all(np.diag(lam)[:t.nlev * t.nc:t.nc] > 0):
            raise ValueError(f"no conditional mode on the sqrt link's branch at theta={theta}")
        return linalg.solve_triangular(lam, db, lower=True)

    def branch_notes(self, m: LaplaceMode, level: float = 1e-3) -> list[str]:
        """The sqrt link's caveat at a fit's mode ``m``: the rows with y > 0 whose eta the
        Laplace approximation's conditional distribution (normal, mean at the mode, covariance
        Lambda A^-1 Lambda' per level, ``pls.cond_var``) puts at or below 0 with probability
        above ``level``: there mu = eta^2 has other modes, which this likelihood (eta > 0
        where y > 0, R's valideta) leaves out. Empty for other links."""
        if self._branch is None:
            return []
        d, eta = self.design, np.sqrt(m.mu)
        w = self._weights(eta, m.mu, m.dispersion, self.observed, self._ratio(eta, m.dispersion))
        var = np.zeros(d.n)
        for t, blocks in zip(d.terms, pls.cond_var(d, m.theta, 1.0, weights=w), strict=True):
            var += np.einsum("ij,ijk,ik->i", t.cols, blocks[t.codes], t.cols)
        p = special.ndtr(-eta / np.sqrt(var))
        k = int(np.sum(p[self._branch] > level))
        if not k:
            return []
        return [f"{DOMAIN_NOTE} the random effects put eta <= 0 within reach of {k} of the "
                f"{int(self._branch.sum())} rows with y > 0 (conditional probability up to "
                f"{p[self._branch].max():.2g}), where mu = eta^2 has other modes; the Laplace "
                "likelihood here is that of eta > 0 there (R's valideta), lme4's and glmmTMB's "
                "may sit on another branch (docs/mixed/differences-from-r.md)"]

    def gradient(self, m: LaplaceMode) -> np.ndarray | None:
        """d log L / d (theta, beta, log dispersion) at the mode ``m`` (observed information;
        dense q only; else None): the envelope term (``X' score``, ``score' Z dLambda_k u``,
        ``d log f / d log phi`` at fixed u) less ``tr(A^-1 dA) / 2``, ``dA`` through Lambda
        and through ``dW`` along eta, the mode moved by the implicit function theorem, ``du =
        A^-1 (dLambda' Z' score - Lambda' Z' W Z dLambda u)`` for theta, ``A^-1 Lambda' Z' W X``
        for beta (Bates et al. 2015, eq. 22; Kristensen et al. 2016, eq. 6). In q x q
        products and Z's rows (``ZRows``), nothing n x q."""
        d, link, disp, z = self.design, self.family.link, m.dispersion, self._z
        if not (z.dense and np.isfinite(m.logdet) and self.nagq == 1):
            return None
        lt = d.lambdat(m.theta, dense=True)
        eta = d.X @ m.beta + self.offset + z.times(lt.T @ m.u)
        mu = link.linkinv(eta)

        def weights(e: np.ndarray, phi: float) -> np.ndarray:
            return self._weights(e, link.linkinv(e), phi, True, self._ratio(e, phi))

        def score(phi: float) -> np.ndarray:
            return self.wt * (self.y - mu) * self._ratio(eta, phi) / self._scale(phi)

        w, s = weights(eta, disp), score(disp)
        ztwz = z.crossprod(w)
        cho = linalg.cho_factor(lt @ ztwz @ lt.T + np.eye(d.q), lower=True, check_finite=False)
        ainv_lt = linalg.cho_solve(cho, lt, check_finite=False)  # A^-1 Lambda'
        proj = lt.T @ ainv_lt  # Lambda A^-1 Lambda'

        def moved(r: np.ndarray) -> np.ndarray:  # Z Lambda A^-1 Lambda' Z' r
            return z.times(proj @ z.t_times(r))

        h = 1e-4 * np.maximum(np.abs(eta), 1.0)
        lev_dw = z.quad(proj) * (weights(eta + h, disp) - weights(eta - h, disp)) / (2 * h)
        deta = d.X - z.times_matrix(proj @ z.t_times(w[:, None] * d.X)) if d.p else d.X
        theta = np.empty(d.ntheta)
        for k, unit in enumerate(np.eye(d.ntheta)):
            dlt = d.lambdat(unit, dense=True)  # Lambda is linear in theta
            dzu = z.times(dlt.T @ m.u)
            move = dzu + z.times(ainv_lt.T @ (dlt @ z.t_times(s) - lt @ z.t_times(w * dzu)))
            # tr(A^-1 dA_k) = 2 tr(A^-1 Lambda' Z'WZ dLambda) + sum(lev dW deta_k)
            theta[k] = s @ dzu - np.sum(ainv_lt.T * (ztwz @ dlt.T)) - 0.5 * lev_dw @ move
        grad = np.concatenate([theta, d.X.T @ s - 0.5 * lev_dw @ deta])
        if not self.family.dispersion:
            return grad
        e = 1e-5  # log phi: d log f (and d score, d W but for a scale) by central differences
        up, down = disp * np.exp(e), disp * np.exp(-e)
        dphi = (self.loglik_rows(mu, up) - self.loglik_rows(mu, down)) / (2 * e)
        if self.family.scaled:  # score and W are proportional to 1 / phi
            dscore, dw_fixed = -s, -w
        else:
            dscore = (score(up) - score(down)) / (2 * e)
            dw_fixed = (weights(eta, up) - weights(eta, down)) / (2 * e)
        lev = z.quad(proj)
        return np.append(grad, dphi - 0.5 * (lev_dw @ moved(dscore) + lev @ dw_fixed))

    def _devc(self, u: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """Per level: u_j^2 + the deviance residuals of its rows (lme4's ``devcCol``)."""
        res = self.family.dev_resids(self.y, mu, self.wt)
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

    # --- the parameter vector ---------------------------------------------------------------------
    def unpack(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(theta, beta, dispersion) from ``x = (theta, beta, log dispersion if any)``."""
        x = np.asarray(x, float)
        disp = float(np.exp(x[self.k])) if self.family.dispersion else 1.0
        return x[:self.design.ntheta], x[self.design.ntheta:self.k], disp

    def mode_at(self, x: np.ndarray, u: np.ndarray | None = None) -> LaplaceMode | None:
        """``mode`` at ``x = (theta, beta, log dispersion)`` from ``u``; None where PIRLS
        fails (no valid mu, A singular, no convergence)."""
        with np.errstate(all="ignore"):
            try:
                return self.mode(*self.unpack(x), u=u)
            except (np.linalg.LinAlgError, ValueError, RuntimeError):
                return None

    def loglik(self, x: np.ndarray, u: np.ndarray | None = None) -> float:
        """log L at ``x = (theta, beta, log dispersion)``, PIRLS from ``u`` (as ``mode``);
        -inf where it is undefined."""
        m = self.mode_at(x, u)
        return m.loglik if m is not None and np.isfinite(m.loglik) else -np.inf

    @pls.one_blas_thread
    def __call__(self, pars: np.ndarray) -> float:
        """The deviance at ``pars = (theta, beta, log dispersion if any)`` (lme4's order)."""
        return self.mode(*self.unpack(pars)).deviance


class GlmerDevfun(LaplaceLikelihood):
    """lme4's GLMM deviance as a function of ``pars = (theta, beta)`` (``glmer(...,
    devFunOnly = TRUE)``, stage 2): the expected information, PIRLS warm-started at the
    previous call's modes as lme4's devfun does (the result is the same to about 1e-10).

    Parameters
    ----------
    design
        A binomial or poisson design ([model_design][acceptability.stats.mixed.stages.model_design]).
    nAGQ
        1 (Laplace) or the number of adaptive Gauss-Hermite points (one scalar random
        effect only, as in lme4).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> from acceptability.stats.mixed.glmm import laplace
    >>> counts = {"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8, "x": [0, 1] * 4, "g": list("aabbccdd")}
    >>> f = laplace.GlmerDevfun(model_design("cbind(k, n - k) ~ x + (1 | g)", pd.DataFrame(counts), "binomial"))
    >>> round(f([0.5, -1.0, 1.2]), 6)  # lme4's devfun(c(0.5, -1, 1.2)): 30.2594105865
    30.259411
    """

    def __init__(self, design: MixedDesign, nAGQ: int = 1) -> None:
        if design.glm_family.dispersion:
            raise ValueError(f"lme4's GLMM deviance is computed here for binomial and poisson models; "
                             f"family {design.glm_family.name!r} has a dispersion parameter (lme4's "
                             f"deviance then is not a likelihood)")
        super().__init__(design, "expected", nAGQ, warm=True)


def glmer_devfun(m: MixedResult, nAGQ: int | None = None, information: Information = "observed") -> LaplaceLikelihood:
    """The deviance function of a binomial or poisson glmer fit ``m``, of ``pars = (theta,
    beta)``, at the fit's nAGQ unless ``nAGQ`` is given: by default the likelihood the fit
    maximised (-2 ``logLik``; the observed information, glmmTMB's and glmm's), with
    ``information="expected"`` lme4's ``glmer(..., devFunOnly = TRUE)``; the two differ
    for a non-canonical link only.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import glmer
    >>> from acceptability.stats.mixed.glmm.laplace import glmer_devfun
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> m = glmer("cbind(k, n - k) ~ x + (1 | g)", df)
    >>> f = glmer_devfun(m)
    >>> bool(abs(f(np.append(m.theta, m.fixef)) - m.deviance) < 1e-4)
    True
    """
    nagq = m.nagq if nAGQ is None else nAGQ
    if nagq == 0:
        raise ValueError("nAGQ=0: the fit's fixed effects come from PIRLS, not from a likelihood of "
                         "(theta, beta) to profile; refit with nAGQ=1 for profile intervals, or use "
                         "confint(method='Wald') or method='boot'")
    if information == "expected":
        return GlmerDevfun(m.design, nagq)
    if m.design.glm_family.dispersion:
        raise ValueError(f"profile intervals are computed for binomial and poisson glmer fits; a "
                         f"{m.design.glm_family.name} fit's likelihood also depends on its dispersion: use "
                         f"confint(method='Wald') or method='boot' (or LaplaceLikelihood(m.design), a "
                         f"function of (theta, beta, log dispersion))")
    return LaplaceLikelihood(m.design, information, nagq)
