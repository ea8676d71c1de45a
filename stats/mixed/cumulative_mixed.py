"""Cumulative link mixed models with crossed random intercepts (R's ``ordinal::clmm``;
Christensen 2019, "A tutorial on fitting cumulative link mixed models with clmm2 from the
ordinal package"; Agresti 2010, Analysis of Ordinal Categorical Data, section 10.2).

Pr(Y <= j | b) = F(theta_j - x'beta - z'b), b = Lambda u with one intercept per level of
each grouping factor, u ~ N(0, I) and Lambda = diag(sigma_k per level of term k).

The likelihood integrates u out. The Laplace approximation (``nAGQ = 1``):
-log L = g(u^) + 1/2 log|H|, g(u) = -sum log P_i(u) + |u|^2 / 2 and H = I + M' W M its
Hessian in u at the conditional mode u^ (M = Z Lambda, W diagonal: one weight per row).
The modes come from Newton's method in u, warm-started from the previous evaluation's. H is
factored by blocks: the term with most levels first, its block diagonal, and the dense Schur
complement of the others (as ``pls._Factor`` does for lme4); the same blocks give the
selected elements of H^-1 that the analytic gradient of the Laplace likelihood needs
(its derivative through u^ and through W: the third derivative of log P): those of the
off-diagonal block only at the pairs of levels that share rows, each a sparse row times a
column of S^-1, so that all of MegaAcceptability (249,990 ratings, 50,000 items x 729
participants) fits in 30 s of CPU time on an AMD EPYC (59 s with the block formed whole).
ordinal itself differentiates numerically, one likelihood per parameter and direction.
With one grouping factor, adaptive (``nAGQ > 1``) or non-adaptive (``nAGQ < -1``)
Gauss-Hermite quadrature, level by level, replaces the Laplace approximation, as in ordinal.
The optimiser gets the exact gradient of the adaptive quadrature (through the modes and
curvatures that place its nodes); ordinal's deriv12 Hessian (and the non-adaptive gradient)
are central differences, all their points evaluated in one vectorised call, the modes solved
side by side.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse
from scipy.linalg import lapack

from acceptability._warnings import warn
from acceptability.stats.arguments import check_whole
from acceptability.stats.mixed.cumulative import (
    OrdinalDesign,
    OrdinalResult,
    newton_clm,
    ordinal_design,
)
from acceptability.stats.mixed.design import group_key, mixed_design
from acceptability.stats.mixed.ordinal_links import CumulativeLink, Interval, interval, probability
from acceptability.stats.mixed.pls import one_blas_thread
from acceptability.stats.mixed.results import Summary

__all__ = ["ClmmResult", "InterceptTerms", "clmm", "intercept_terms"]

_INNER_TOL = 1e-10  # max |gradient| of the conditional modes
# a Newton step of the modes is kept where g rises by no more than this much relative: the
# rounding of g's sum (near the mode a full step changes g by less than that, and a strict
# g_new <= g rejected it, halving the step 34 times and then taking steps of 2^-k, up to
# 100 slow iterations per mode: 5x ordinal's time on wine)
_ROUNDING = 64 * np.finfo(float).eps
_BOUND = 1e-3  # an SD below this is on the boundary: left out of the Hessian (ordinal's paratBoundary2)
MAX_NAGQ = 100  # quadrature nodes a level: bounds the work (ordinal sets no bound)
_H = 1e-4  # the difference step of the Hessian (ordinal's deriv12 delta)


@dataclass
class InterceptTerms:
    """Random intercepts ``(1 | g)`` of one or more grouping factors, in ordinal's order
    (most levels first); ``codes[:, k]`` is each row's level of term k."""

    groups: list[str]
    levels: list[np.ndarray]
    codes: np.ndarray  # (n, T)

    @property
    def nlev(self) -> np.ndarray:
        return np.array([len(lv) for lv in self.levels])

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.nlev)[:-1]])

    @property
    def q(self) -> int:
        return int(self.nlev.sum())

    @cached_property
    def columns(self) -> np.ndarray:
        """(n, T): each row's column of Z in each term."""
        return self.codes + self.offsets[None, :]

    @cached_property
    def Z(self) -> sparse.csr_matrix:
        n, t = self.codes.shape
        rows = np.repeat(np.arange(n), t)
        return sparse.csr_matrix((np.ones(n * t), (rows, self.columns.ravel())), shape=(n, self.q))

    @cached_property
    def Zt(self) -> sparse.csr_matrix:
        return self.Z.T.tocsr()

    @cached_property
    def pairs(self) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """For terms k < l: the distinct (level of k, level of l) pairs that share rows and
        each row's pair: the pattern of the off-diagonal blocks of H."""
        out = {}
        for k in range(len(self.groups)):
            for j in range(k + 1, len(self.groups)):
                key = self.codes[:, k] * self.nlev[j] + self.codes[:, j]
                uniq, inverse = np.unique(key, return_inverse=True)
                out[k, j] = (uniq // self.nlev[j], uniq % self.nlev[j], inverse)
        return out


def intercept_terms(d: OrdinalDesign) -> InterceptTerms:
    """The random-intercept terms of ``d.formula``, their levels coded as for lmer
    (``design.mixed_design``) and ordered as ordinal orders them; random slopes are refused
    (ordinal's ``clmm`` fits them only through its slow general path: not here)."""
    for term in d.formula.random:
        if not term.intercept or term.slopes:
            raise ValueError(
                f"random-effects term {term}: clmm fits random intercepts (1 | group) only, "
                "as ordinal's fast path does; random slopes are not supported (write a "
                "random intercept per group, or fit the slope as a fixed effect)")
    # only the terms are read: no fixed columns named, so no fixed part is learnt again
    # (1.1 ms of a 27 ms quadrature fit on wine)
    coded = {t.term: t for t in mixed_design(d.formula, d.frame, d.X, [], np.zeros(d.n)).terms}
    terms = [coded[term] for term in d.formula.random]
    if len({t.nlev for t in terms}) > 1:  # ordinal's getREterms: rev(order(nlev)), ties reversed
        terms = sorted(terms, key=lambda t: t.nlev)[::-1]
    return InterceptTerms([t.group for t in terms], [t.levels for t in terms],
                          np.column_stack([t.codes for t in terms]))


class _Factor:
    """H = I + M' diag(w) M for random intercepts, factored by blocks: H11 (first term)
    is diagonal, S = H22 - H21 H11^-1 H12 is dense (the other terms)."""

    def __init__(self, terms: InterceptTerms, sigma: np.ndarray, w: np.ndarray) -> None:
        self.terms = terms
        nlev, off = terms.nlev, terms.offsets
        sigq = np.repeat(sigma, nlev)
        hdiag = 1 + sigq**2 * np.bincount(terms.columns.ravel(), np.repeat(w, len(nlev)), terms.q)
        self.q1 = q1 = int(nlev[0])
        self.d1 = hdiag[:q1]
        if np.any(self.d1 <= 0):
            raise np.linalg.LinAlgError("H is not positive definite")
        self.logdet = float(np.sum(np.log(self.d1)))
        self._chol = None
        if len(nlev) == 1:
            return
        m = terms.q - q1
        rest = np.diag(hdiag[q1:])
        rows, cols, vals = [], [], []
        for (k, j), (lk, lj, inverse) in terms.pairs.items():
            v = sigma[k] * sigma[j] * np.bincount(inverse, w, len(lk))
            if k == 0:
                rows.append(lk)
                cols.append(off[j] - q1 + lj)
                vals.append(v)
            else:
                np.add.at(rest, (off[k] - q1 + lk, off[j] - q1 + lj), v)
                np.add.at(rest, (off[j] - q1 + lj, off[k] - q1 + lk), v)
        c = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(q1, m))
        self._w = (sparse.diags(1 / self.d1) @ c).tocsr()  # H11^-1 H12
        schur = rest - (c.T @ self._w).toarray()
        chol, info = lapack.dpotrf(schur, lower=1)
        if info:
            raise np.linalg.LinAlgError("H is not positive definite")
        self._chol = chol
        self.logdet += float(2 * np.sum(np.log(np.diag(chol))))

    def solve(self, v: np.ndarray) -> np.ndarray:
        """H^-1 v for a vector or the columns of a matrix."""
        d1 = self.d1 if v.ndim == 1 else self.d1[:, None]
        if self._chol is None:
            return v / d1
        y1 = v[:self.q1] / d1
        x2 = lapack.dpotrs(self._chol, v[self.q1:] - self._w.T @ v[:self.q1], lower=1)[0]
        return np.concatenate([y1 - self._w @ x2, x2])

    @cached_property
    def _sinv(self) -> np.ndarray:
        """S^-1 (dense: the levels of the terms after the first)."""
        sinv = lapack.dpotri(self._chol, lower=1)[0]
        return np.tril(sinv) + np.tril(sinv, -1).T

    @cached_property
    def _ws(self) -> np.ndarray | None:
        """H11^-1 H12 S^-1 whole (q1 x (q - q1)) where that is less work than its selected
        elements (``_h12``: sum over the first term's levels of their nonzeros squared);
        None otherwise. MegaAcceptability (50,000 items x 729 participants, 5 ratings an
        item): 36 million elements against 1.25 million, 1.4 s against 0.13 s of CPU for
        the elements one gradient needs."""
        nnz = np.diff(self._w.indptr)
        if float(nnz @ nnz) < self.q1 * (self.terms.q - self.q1):
            return None
        return np.asarray(self._w @ self._sinv)

    def _h12(self, i: np.ndarray, c: np.ndarray) -> np.ndarray:
        """(H^-1)12 = -H11^-1 H12 S^-1 at the pairs (level i of the first term, column c of
        S): each a sparse row of H11^-1 H12 times a column of S^-1."""
        if self._ws is not None:
            return -self._ws[i, c]
        w = self._w
        start, count = w.indptr[i], np.diff(w.indptr)[i]
        owner = np.repeat(np.arange(len(i)), count)
        first = np.cumsum(count) - count  # each pair's first place in owner
        entry = np.arange(owner.size) - np.repeat(first, count) + np.repeat(start, count)
        return -np.bincount(owner, w.data[entry] * self._sinv[w.indices[entry], c[owner]], len(i))

    @cached_property
    def _diag11(self) -> np.ndarray:
        """diag of (H^-1)11 = H11^-1 + H11^-1 H12 S^-1 H21 H11^-1."""
        if self._chol is None:
            return 1 / self.d1
        w = self._w
        rows = np.repeat(np.arange(self.q1), np.diff(w.indptr))
        return 1 / self.d1 - np.bincount(rows, w.data * self._h12(rows, w.indices), self.q1)

    def diag_inverse(self) -> np.ndarray:
        """diag(H^-1): the conditional variances of u."""
        if self._chol is None:
            return self._diag11
        return np.concatenate([self._diag11, np.diag(self._sinv)])

    def row_inverse(self) -> np.ndarray:
        """(n, T, T): (H^-1) at the columns of each row's levels, k and l (the elements of
        (H^-1)12 once per distinct pair of levels)."""
        terms = self.terms
        codes, t = terms.codes, len(terms.groups)
        out = np.empty((len(codes), t, t))
        out[:, 0, 0] = self._diag11[codes[:, 0]]
        rest = terms.columns - self.q1
        for j in range(1, t):
            first, level, inverse = terms.pairs[0, j]
            out[:, 0, j] = out[:, j, 0] = self._h12(first, terms.offsets[j] - self.q1 + level)[inverse]
            for k in range(1, j + 1):
                out[:, k, j] = out[:, j, k] = self._sinv[rest[:, k], rest[:, j]]
        return out


@dataclass
class _Mode:
    """The conditional modes at one parameter value and what the likelihood needs there."""

    u: np.ndarray
    a: np.ndarray  # the ends of each row's interval at the modes
    b: np.ndarray
    g: float  # -sum log P + |u|^2 / 2
    r: np.ndarray  # d(-log P)/ds per row
    w: np.ndarray  # d2(-log P)/ds2 per row
    factor: _Factor


def _score_curvature(link: CumulativeLink, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's r = -d log P / ds and w = dr / ds at the interval (a - s, b - s): the
    gradient and curvature of -log P in the random-effect sum s (ordinal's ``update.u``)."""
    iv = interval(link, a, b)
    r = (iv.fa - iv.fb) / iv.p
    return r, r * r - (iv.ga - iv.gb) / iv.p


class _Likelihood:
    """-log L of a clmm at x = (alpha, beta, sigma_1..T) (the Laplace approximation or
    Gauss-Hermite quadrature), its gradient, and the conditional modes, warm-started."""

    def __init__(self, d: OrdinalDesign, terms: InterceptTerms, nagq: int) -> None:
        self.d, self.terms, self.nagq = d, terms, nagq
        self.u = np.zeros(terms.q)
        self.evaluations = self.inner = 0
        if abs(nagq) > 1:
            self.nodes, self.weights = np.polynomial.hermite.hermgauss(abs(nagq))

    def _split(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return x[:self.d.npar], np.asarray(x[self.d.npar:], float)

    def mode(self, x: np.ndarray) -> _Mode | None:
        """Newton's method in u with step halving (ordinal's ``update.u``), to max|gradient|
        < 1e-10; None where the likelihood is not finite."""
        fe, sigma = self._split(x)
        terms, link = self.terms, self.d.link
        a0, b0 = self.d.ends(fe)
        sigq = np.repeat(sigma, terms.nlev)

        def at(u):
            s = terms.Z @ (sigq * u)
            p = probability(link, a0 - s, b0 - s)
            g = -np.sum(np.log(p)) + 0.5 * u @ u if np.all(p > 0) else np.inf
            return s, g

        u = self.u
        s, g = at(u)
        if not np.isfinite(g):
            u = np.zeros(terms.q)
            s, g = at(u)
            if not np.isfinite(g):
                return None
        iterations = 0
        while iterations < 100:
            iterations += 1
            r, w = _score_curvature(link, a0 - s, b0 - s)
            grad = sigq * (terms.Zt @ r) + u
            try:
                factor = _Factor(terms, sigma, w)
            except np.linalg.LinAlgError:
                return None
            if np.max(np.abs(grad)) < _INNER_TOL or iterations == 100:
                break
            step, lam = factor.solve(grad), 1.0
            while True:
                s_new, g_new = at(u - lam * step)
                if g_new <= g + _ROUNDING * abs(g):
                    break
                lam /= 2
                if lam < 1e-10:  # no descent left: the mode to rounding error
                    s_new, g_new = s, g
                    break
            if lam < 1e-10:
                break
            u, s, g = u - lam * step, s_new, g_new
        self.u = u
        self.inner += iterations
        return _Mode(u, a0 - s, b0 - s, float(g), r, w, factor)

    def value(self, x: np.ndarray) -> float:
        if abs(self.nagq) > 1:
            return float(self.values(x[None, :])[0])
        self.evaluations += 1
        mode = self.mode(x)
        if mode is None:
            return np.inf
        return mode.g + 0.5 * mode.factor.logdet

    def values(self, xs: np.ndarray) -> np.ndarray:
        """-log L by Gauss-Hermite quadrature over each level's intercept at each row of xs
        (one grouping factor), the probes side by side: adaptive (``nAGQ > 1``: nodes
        u^_j + sqrt(2 / H_jj) x_k) or at fixed nodes (``nAGQ < -1``: b = sigma x_k with
        weights w_k exp(x_k^2 / 2) / sqrt(2 pi), ordinal's ``getNGHQ``)."""
        self.evaluations += len(xs)
        d, zt = self.d, self.terms.Zt
        codes = self.terms.codes[:, 0]
        fe, sigma = xs[:, :d.npar].T, np.asarray(xs[:, d.npar], float)  # (npar, P), (P,)
        top = len(d.levels) - 1
        a0 = np.where(d.y[:, None] == top, np.inf, d.B1 @ fe - d.offset[:, None])  # (n, P)
        b0 = np.where(d.y[:, None] == 0, -np.inf, d.B2 @ fe - d.offset[:, None])
        out = np.full(len(xs), np.inf)
        live = np.arange(len(xs))
        if self.nagq > 1:
            modes = self._modes(a0, b0, sigma)
            if modes is None:
                return out
            live, u, hdiag = modes
            a0, b0, sigma = a0[:, live], b0[:, live], sigma[live]
            scale = np.sqrt(2 / hdiag)  # (q, P)
            u = u[:, :, None] + scale[:, :, None] * self.nodes  # (q, P, N)
            logw = (np.log(scale)[:, :, None] + np.log(self.weights) + self.nodes**2
                    - 0.5 * u**2 - 0.5 * np.log(2 * np.pi))
            b = sigma[:, None] * u[codes]  # (n, P, N)
        else:
            logw = np.log(self.weights) + 0.5 * self.nodes**2 - 0.5 * np.log(2 * np.pi)
            b = np.broadcast_to(sigma[:, None] * self.nodes, (len(codes), len(xs), len(self.nodes)))
        p = probability(d.link, a0[:, :, None] - b, b0[:, :, None] - b)
        finite = np.all(p > 0, axis=(0, 2))
        with np.errstate(divide="ignore"):
            logp = (zt @ np.log(p).reshape(len(codes), -1)).reshape(-1, *p.shape[1:])  # (q, P, N)
        logj = logp + logw  # log sum exp over the nodes, written out: scipy's logsumexp
        top_j = logj.max(axis=2, keepdims=True)  # took a third of the time of a quadrature fit
        value = -np.sum(top_j[:, :, 0] + np.log(np.exp(logj - top_j).sum(axis=2)), axis=0)
        out[live] = np.where(finite, value, np.inf)
        return out

    def _modes(self, a0: np.ndarray, b0: np.ndarray,
               sigma: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The conditional modes of one grouping factor for P probes at once: Newton's method
        in u with step halving level by level (-log L is a sum over the levels, each in its
        own u_j), to max|gradient| < 1e-10, from the last modes (zeros where they give no
        finite likelihood). Returns the probes with finite likelihood and positive H, their
        modes and H_jj (q, P), or None if there are none."""
        link, zt = self.d.link, self.terms.Zt
        codes = self.terms.codes[:, 0]

        def at(u, a, b, sig):
            s = sig * u[codes]
            p = probability(link, a - s, b - s)
            with np.errstate(divide="ignore", invalid="ignore"):
                g = np.where(np.all(p > 0, axis=0), 1.0, np.inf) * (-(zt @ np.log(p)) + 0.5 * u**2)
            return s, np.where(np.isnan(g), np.inf, g)

        u = np.repeat(self.u[:, None], a0.shape[1], axis=1)
        s, g = at(u, a0, b0, sigma)
        restart = ~np.all(np.isfinite(g), axis=0)
        if restart.any():
            u[:, restart] = 0
            s, g = at(u, a0, b0, sigma)
        live = np.flatnonzero(np.all(np.isfinite(g), axis=0))
        if len(live) == 0:
            return None
        if len(live) < a0.shape[1]:
            a0, b0, sigma, u, s, g = a0[:, live], b0[:, live], sigma[live], u[:, live], s[:, live], g[:, live]
        iterations = 0
        while iterations < 100:
            iterations += 1
            r, w = _score_curvature(link, a0 - s, b0 - s)
            grad = sigma * (zt @ r) + u
            hdiag = 1 + sigma**2 * (zt @ w)
            if np.max(np.abs(grad), initial=0) < _INNER_TOL or iterations == 100 or np.any(hdiag <= 0):
                break
            step, lam = grad / hdiag, np.ones_like(u)
            done = np.zeros(u.shape, bool)
            u_new, g_new = u.copy(), g.copy()
            while True:
                trial = u - lam * step
                g_trial = at(trial, a0, b0, sigma)[1]
                ok = ~done & (g_trial <= g + _ROUNDING * np.abs(g))
                u_new[ok], g_new[ok] = trial[ok], g_trial[ok]
                done |= ok
                lam[~done] /= 2
                if done.all() or lam.min() < 1e-10:  # the rest: at the mode to rounding error
                    break
            if not done.any():
                break
            u, g = u_new, g_new
            s = sigma * u[codes]
        self.inner += iterations
        positive = np.all(hdiag > 0, axis=0)
        if not positive.any():
            return None
        if positive[0] and live[0] == 0:
            self.u = u[:, 0].copy()
        return live[positive], u[:, positive], hdiag[:, positive]

    def value_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """-log L and its analytic gradient in x: the Laplace approximation or adaptive
        quadrature (``nAGQ > 1``)."""
        self.evaluations += 1
        mode = self.mode(x)
        if mode is None:
            return np.inf, np.zeros_like(x)
        if self.nagq > 1:
            return self._quadrature_value_grad(x, mode)
        return mode.g + 0.5 * mode.factor.logdet, self._laplace_gradient(x, mode)

    def _mode_derivatives(self, x: np.ndarray, mode: _Mode) -> tuple[Interval, np.ndarray, np.ndarray]:
        """The interval at the modes (to f''), du^/dx (q, k) by the implicit function
        theorem, du^/dx = -H^-1 d(grad_u g)/dx, and the total dw/dx (n, k) along u^(x): through
        a, b and s = M u^ (dw/ds: the third derivative)."""
        d, terms = self.d, self.terms
        sigma = self._split(x)[1]
        sigq = np.repeat(sigma, terms.nlev)
        iv = interval(d.link, mode.a, mode.b, order=2)
        p, fa, fb = iv.p, iv.fa, iv.fb
        dfab, dg = fa - fb, iv.ga - iv.gb
        ra = iv.ga / p - dfab * fa / p**2  # dr/da
        rb = -iv.gb / p + dfab * fb / p**2
        wa = -iv.ha / p + dg * fa / p**2 + 2 * dfab * iv.ga / p**2 - 2 * dfab**2 * fa / p**3
        wb = iv.hb / p - dg * fb / p**2 - 2 * dfab * iv.gb / p**2 + 2 * dfab**2 * fb / p**3
        w3 = -(wa + wb)  # dw/ds
        cm = mode.u[terms.columns]  # (n, T): u of each row's levels
        b1, b2 = d.B1, d.B2
        # right-hand sides d(grad_u g)/dx: fixed parameters, then the SDs
        rhs_fe = sigq[:, None] * (terms.Zt @ (ra[:, None] * b1 + rb[:, None] * b2))
        zr = terms.Zt @ mode.r
        rhs_sd = sigq[:, None] * (terms.Zt @ (mode.w[:, None] * cm))
        for k in range(len(sigma)):
            block = slice(terms.offsets[k], terms.offsets[k] + terms.nlev[k])
            rhs_sd[block, k] += zr[block]
        du = -mode.factor.solve(np.hstack([rhs_fe, rhs_sd]))
        ds = terms.Z @ (sigq[:, None] * du)  # (n, p + T)
        npar = d.npar
        ds[:, npar:] += cm
        dw = w3[:, None] * ds
        dw[:, :npar] += wa[:, None] * b1 + wb[:, None] * b2
        return iv, du, dw

    def _laplace_gradient(self, x: np.ndarray, mode: _Mode) -> np.ndarray:
        """d/dx [g(u^(x), x) + 1/2 log|H(u^(x), x)|]: d log|H| = tr(H^-1 dH) with
        dH = dM' W M + M' W dM + M' diag(dw) M (``_mode_derivatives``)."""
        d, terms = self.d, self.terms
        sigma = self._split(x)[1]
        iv, _, dw = self._mode_derivatives(x, mode)
        hinv = mode.factor.row_inverse()  # (n, T, T)
        grow = hinv @ sigma  # (n, T): (H^-1 M_i')_{column of term k}
        h = grow @ sigma  # M_i H^-1 M_i'
        cm = mode.u[terms.columns]
        npar = d.npar
        grad_fe = d.B1.T @ (-iv.fa / iv.p) + d.B2.T @ (iv.fb / iv.p) + 0.5 * h @ dw[:, :npar]
        grad_sd = mode.r @ cm + mode.w @ grow + 0.5 * h @ dw[:, npar:]
        return np.concatenate([grad_fe, grad_sd])

    def _quadrature_value_grad(self, x: np.ndarray, mode: _Mode) -> tuple[float, np.ndarray]:
        """Adaptive quadrature (one grouping factor): -log L = -sum_j log sum_k exp(T_jk),
        T_jk = log P_j(U_jk) + log(c_j w_k) + x_k^2 - U_jk^2 / 2 - log(2 pi) / 2 at the nodes
        U_jk = u^_j + c_j x_k, c_j = sqrt(2 / H_jj), and its exact gradient: the derivative
        of T at fixed U plus that through U and c, which move with u^ and H_jj
        (``_mode_derivatives``; dH_jj = sigma^2 sum dw + 2 sigma dsigma sum w)."""
        d, zt = self.d, self.terms.Zt
        codes = self.terms.codes[:, 0]
        fe, sigma = x[:d.npar], float(x[d.npar])
        _, du, dw = self._mode_derivatives(x, mode)
        hdiag = mode.factor.d1
        dh = sigma**2 * (zt @ dw)
        dh[:, -1] += 2 * sigma * (zt @ mode.w)
        dlogc = -0.5 * dh / hdiag[:, None]  # (q, k)
        c = np.sqrt(2 / hdiag)
        u = mode.u[:, None] + c[:, None] * self.nodes  # (q, N)
        logw = np.log(c)[:, None] + np.log(self.weights) + self.nodes**2 - 0.5 * u**2 - 0.5 * np.log(2 * np.pi)
        b = sigma * u[codes]  # (n, N)
        a0, b0 = d.ends(fe)
        iv = interval(d.link, a0[:, None] - b, b0[:, None] - b)
        if not np.all(iv.p > 0):
            return np.inf, np.zeros_like(x)
        t = zt @ np.log(iv.p) + logw
        top = t.max(axis=1, keepdims=True)
        e = np.exp(t - top)
        total = e.sum(axis=1)
        pi = e / total[:, None]  # each level's weights over the nodes
        zr = zt @ ((iv.fa - iv.fb) / iv.p)  # -d log P_j / d(sigma U)
        dt_du = pi * (-sigma * zr - u)  # pi dT/dU
        pic = pi[codes]
        grad = np.append(d.B2.T @ np.sum(pic * iv.fb / iv.p, axis=1) - d.B1.T @ np.sum(pic * iv.fa / iv.p, axis=1),
                         np.sum(pi * zr * u))
        grad -= du.T @ dt_du.sum(axis=1) + dlogc.T @ (c * (dt_du @ self.nodes) + 1)
        return float(-np.sum(top[:, 0] + np.log(total))), grad


def _value_gradient(f, x: np.ndarray, h: float = 1e-6) -> tuple[float, np.ndarray]:
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


def _gradient(lik: _Likelihood, coords: _Coordinates, x: np.ndarray) -> np.ndarray:
    """Gradient of -log L in ordinal's coordinates at x (numerical for quadrature)."""
    if lik.nagq == 1:
        return coords.gradient_to_r(lik.value_grad(x)[1], x)
    u0 = lik.u.copy()
    out = _value_gradient(lambda ys: lik.values(np.array([coords.from_r(y, x) for y in ys])),
                          coords.to_r(x), _H)[1]
    lik.u = u0
    return out


def _hessian(lik: _Likelihood, coords: _Coordinates, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of -log L in ordinal's coordinates at x: central differences
    of the analytic gradient (Laplace) or ordinal's ``deriv12`` of the value (quadrature),
    both with ordinal's step 1e-4."""
    y0 = coords.to_r(x)
    k = len(y0)
    u0 = lik.u.copy()

    def grad_r(y):
        lik.u = u0.copy()
        xx = coords.from_r(y, x)
        return coords.gradient_to_r(lik.value_grad(xx)[1], xx)

    hess = np.empty((k, k))
    if lik.nagq == 1:
        grad = grad_r(y0)
        for j in range(k):
            e = np.zeros(k)
            e[j] = _H
            hess[:, j] = (grad_r(y0 + e) - grad_r(y0 - e)) / (2 * _H)
        hess = (hess + hess.T) / 2
    else:
        e = _H * np.eye(k)
        i, j = np.tril_indices(k, -1)
        ys = np.vstack([y0, y0 + e, y0 - e, y0 + e[i] + e[j], y0 + e[i] - e[j],
                        y0 - e[i] + e[j], y0 - e[i] - e[j]])
        f = lik.values(np.array([coords.from_r(y, x) for y in ys]))  # all of deriv12's points at once
        f0, fp, fm = f[0], f[1:k + 1], f[k + 1:2 * k + 1]
        fpp, fpm, fmp, fmm = f[2 * k + 1:].reshape(4, -1)
        grad = (fp - fm) / (2 * _H)
        hess[np.diag_indices(k)] = (fp - 2 * f0 + fm) / _H**2
        hess[i, j] = hess[j, i] = (fpp - fpm - fmp + fmm) / (4 * _H**2)
    lik.u = u0
    return grad, hess


@one_blas_thread
def _fit(d: OrdinalDesign, terms: InterceptTerms, nagq: int) -> tuple:
    """Minimise -log L from ordinal's start (the clm fit, SDs 1): L-BFGS-B over (alpha, beta,
    log SD), then Newton steps on the Hessian of ordinal's coordinates until they are below
    1e-6. Not over the SDs with a bound at 0: -log L is even in each SD, so its gradient is
    0 at SD = 0 and a step cut at the bound stops there, short of an optimum at 0.13 (wine
    with (1 | judge) + (1 | bottle) + (1 | judge:temp): logLik -81.5654 instead of -81.5649)."""
    lik = _Likelihood(d, terms, nagq)
    npar = d.npar
    z0 = np.concatenate([newton_clm(d).par, np.zeros(len(terms.groups))])

    def x_of(z):
        return np.concatenate([z[:npar], np.exp(z[npar:])])

    def fg(z):
        x = x_of(z)
        if nagq >= 1:
            f, g = lik.value_grad(x)
        else:
            f, g = _value_gradient(lik.values, x)
        return f, np.concatenate([g[:npar], g[npar:] * x[npar:]])

    res = optimize.minimize(fg, z0, jac=True, method="L-BFGS-B",
                            options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-9, "maxcor": 20})
    x = x_of(res.x)
    fx = lik.value(x)
    converged = False
    for _ in range(5):
        sd = x[d.npar:]
        coords = _Coordinates(d.npar, len(terms.groups) == 1 and sd[0] >= _BOUND,
                              np.concatenate([np.ones(d.npar, bool), sd >= _BOUND]))
        grad, hess = _hessian(lik, coords, x)
        try:
            step = linalg.solve(hess, grad, assume_a="pos")
        except (linalg.LinAlgError, ValueError):
            break
        trial = coords.from_r(coords.to_r(x) - step, x)
        if np.any(trial[d.npar:] < 0):
            break
        f_trial = lik.value(trial)
        if not f_trial <= fx:  # no decrease: at the optimum to rounding error, or lost
            converged = bool(np.max(np.abs(step)) < 1e-6)
            break
        x, fx = trial, f_trial
        if np.max(np.abs(step)) < 1e-6:  # the Hessian holds to 1e-6 here: keep it
            converged = True
            grad = _gradient(lik, coords, x)
            break
    mode = lik.mode(x)
    names = [*d.par_names, *(f"ST{k + 1}" for k in range(len(terms.groups)))]
    kept = [n for n, keep in zip(names, coords.free, strict=True) if keep]
    converged = converged or bool(np.max(np.abs(grad)) < 1e-5)
    return x, fx, grad, hess, kept, mode, f"{lik.evaluations}({lik.inner})", converged


@dataclass(repr=False)
class ClmmResult(OrdinalResult):
    """A fitted [clmm][acceptability.stats.mixed.cumulative_mixed.clmm]: ordinal's
    ``clmm`` object. Beside the accessors of ``clm`` fits: ``ST``/``VarCorr`` (the
    random-intercept SDs and variances), ``ranef`` (conditional modes per grouping factor),
    ``condVar`` (their conditional variances), ``ranef_frame()``, ``ngrps`` and ``nAGQ``.

    ``vcov``, as ordinal's, also has rows ``ST1``, ``ST2``, ... for the random-effect
    parameters: the log SD when the model has a single random-intercept term (ordinal fits
    that case on the log scale), the SD otherwise; an SD below 1e-3 is on the boundary and
    has no row."""

    terms: InterceptTerms | None = None
    sd: np.ndarray | None = None
    u: np.ndarray | None = None
    u_var: np.ndarray | None = None  # conditional variances of u
    nAGQ: int = 1

    @property
    def _kind(self) -> str:
        return "clmm"

    @property
    def edf(self) -> int:
        return len(self.par) + len(self.terms.groups)

    @property
    def ngrps(self) -> pd.Series:
        """Number of levels of each grouping factor."""
        return pd.Series(self.terms.nlev, index=self.terms.groups)

    @property
    def ST(self) -> pd.Series:
        """SD of each random intercept (ordinal's ``ST``, per grouping factor)."""
        return pd.Series(self.sd, index=self.terms.groups)

    @property
    def VarCorr(self) -> pd.DataFrame:
        """Variance and SD of each random intercept (ordinal's ``VarCorr``)."""
        return pd.DataFrame({"Groups": self.terms.groups, "Name": "(Intercept)",
                             "Variance": self.sd**2, "Std.Dev.": self.sd})

    def _per_group(self, values: np.ndarray) -> dict[str, pd.DataFrame]:
        out = {}
        for k, (g, levels) in enumerate(zip(self.terms.groups, self.terms.levels, strict=True)):
            block = values[self.terms.offsets[k]:self.terms.offsets[k] + len(levels)]
            out[g] = pd.DataFrame({"(Intercept)": block}, index=pd.Index(levels, name=g))
        return out

    @property
    def ranef(self) -> dict[str, pd.DataFrame]:
        """Conditional modes b = SD * u of each level, per grouping factor (ordinal's
        ``ranef``): an item's mode is its rating norm on the latent scale."""
        return self._per_group(np.repeat(self.sd, self.terms.nlev) * self.u)

    @property
    def condVar(self) -> dict[str, pd.DataFrame]:
        """Conditional variances of the modes, SD^2 diag(H^-1) at the fit (ordinal's
        ``condVar``)."""
        return self._per_group(np.repeat(self.sd, self.terms.nlev) ** 2 * self.u_var)

    def ranef_frame(self) -> pd.DataFrame:
        """One row per level: ``grpvar``, ``grp``, the mode ``condval`` and its conditional
        SD ``condsd`` (as lme4's ``as.data.frame(ranef(m, condVar = TRUE))``)."""
        modes, var = self.ranef, self.condVar
        return pd.concat([pd.DataFrame({"grpvar": g, "term": "(Intercept)", "grp": modes[g].index,
                                        "condval": modes[g]["(Intercept)"].to_numpy(),
                                        "condsd": np.sqrt(var[g]["(Intercept)"].to_numpy())})
                          for g in self.terms.groups], ignore_index=True)

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "prob",
                conditional: bool = False) -> pd.DataFrame | pd.Series:
        """Category probabilities of the fitted rows or ``newdata``.

        By default the random effects are set to zero: the probabilities of a typical
        participant rating a typical item (not the marginal probabilities averaged over the
        random effects, which are flatter). ``conditional=True`` adds each row's
        conditional modes (levels the fit did not see get 0). ordinal has no ``predict``
        for clmm fits. ``type`` as for ``clm``."""
        eta, index = self._eta(newdata)
        if conditional:
            data = self.frame if newdata is None else newdata
            modes = self.ranef
            for term in self.formula.random:
                keys = group_key(data, term.factors)  # Pr(Y <= j) = F(theta_j - x'beta - z'b)
                eta = eta + keys.map(modes[term.group]["(Intercept)"]).fillna(0.0).to_numpy()
        return self._predict(eta, index, type)

    def summary(self) -> Summary:
        """The fit printed as ordinal's ``summary(clmm)`` prints it, with its tables."""
        from acceptability.stats.mixed.ordinal_summary import clmm_summary

        return clmm_summary(self)


def clmm(formula: str, data: pd.DataFrame, link: str = "logit", threshold: str = "flexible",
         nAGQ: int = 1) -> ClmmResult:
    """Fit a cumulative link mixed model with crossed random intercepts (R's
    ``ordinal::clmm``): ``rating ~ x + (1 | participant) + (1 | item)``.

    Pr(Y <= j | b) = F(theta_j - x'beta - z'b), one normal intercept per level of each
    grouping factor. ``nAGQ = 1``: the Laplace approximation (any number of crossed or
    nested intercept terms); ``nAGQ > 1``: adaptive Gauss-Hermite quadrature with that many
    nodes, ``nAGQ < -1``: non-adaptive quadrature (one grouping factor, as in ordinal).
    Random slopes are refused. Response, link, thresholds and ``offset(...)`` terms as for
    [clm][acceptability.stats.mixed.cumulative.clm].

    Parameters
    ----------
    formula
        Fixed effects and ``(1 | group)`` terms.
    data
        One row per rating.
    link
        logit, probit, cloglog, loglog or cauchit.
    threshold
        flexible, equidistant or symmetric.
    nAGQ
        1 (Laplace), > 1 (adaptive quadrature) or < -1 (non-adaptive quadrature).

    Returns
    -------
    ClmmResult

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from acceptability.stats.mixed import clmm
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"judge": np.repeat(np.arange(8), 6), "x": np.tile([0, 1], 24)})
    >>> latent = df["x"] + rng.normal(0, 1, 8)[df["judge"]] + rng.logistic(size=48)
    >>> df["rating"] = np.digitize(latent, [-1, 0.5, 2]) + 1
    >>> m = clmm("rating ~ x + (1 | judge)", df)
    >>> list(m.coef.index), int(m.ngrps["judge"])
    (['1|2', '2|3', '3|4', 'x'], 8)
    """
    nagq = check_whole("nAGQ", nAGQ, -MAX_NAGQ, MAX_NAGQ, f"nAGQ is 1 (Laplace) or a whole "
                       f"number of quadrature points from 2 to {MAX_NAGQ} (adaptive) or -2 to "
                       f"-{MAX_NAGQ} (non-adaptive)", "use nAGQ=1 (ordinal's default)")
    if nagq in (0, -1):
        raise ValueError(f"nAGQ={nAGQ!r}: use 1 (Laplace), an integer > 1 (adaptive "
                         "Gauss-Hermite quadrature) or < -1 (non-adaptive quadrature)")
    d = ordinal_design(formula, data, link, threshold, random=True)
    terms = intercept_terms(d)
    if nagq != 1 and len(terms.groups) > 1:
        raise ValueError(f"nAGQ={nagq}: quadrature integrates one grouping factor; the model has "
                         f"{len(terms.groups)} ({terms.groups}): use nAGQ=1 (Laplace), as ordinal requires")
    x, fx, grad, hess, names, mode, niter, converged = _fit(d, terms, nagq)
    notes = []
    if not converged:
        notes.append(f"clmm: the optimiser did not converge (max|gradient| {np.max(np.abs(grad)):.2g})")
        warn(notes[-1])
    return ClmmResult(d, x[:d.npar], -fx, grad, hess, names, niter, converged, notes,
                      terms=terms, sd=x[d.npar:], u=mode.u, u_var=mode.factor.diag_inverse(),
                      nAGQ=nagq)
