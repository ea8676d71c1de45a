"""The random intercepts of a clmm and the blocks of its Hessian in u (the Laplace
approximation's H = I + M' W M: ``cumulative_mixed``), the conditional modes' Newton step,
shared with the random slopes of ``clmm_slopes``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.linalg import lapack

from acceptability.stats.mixed.design import ReTerm, mixed_design
from acceptability.stats.mixed.ordinal.cumulative import OrdinalDesign
from acceptability.stats.mixed.ordinal.ordinal_links import (
    CumulativeLink,
    Interval,
    interval,
    probability,
)
from acceptability.stats.mixed.schur import SchurFactor

__all__ = ["INNER_TOL", "ROUNDING", "InterceptFactor", "InterceptTerms", "TermLevels", "Mode", "coded_terms", "end_derivatives", "halving", "intercept_terms", "newton_modes", "score_curvature"]

INNER_TOL = 1e-10  # max |gradient| of the conditional modes
# a Newton step of the modes is kept where g rises by no more than this much relative: the
# rounding of g's sum (near the mode a full step changes g by less than that, and a strict
# g_new <= g rejected it, halving the step 34 times and then taking steps of 2^-k, up to
# 100 slow iterations per mode: 5x ordinal's time on wine)
ROUNDING = 64 * np.finfo(float).eps


class TermLevels:
    """What random-effects terms share: each term's levels (``levels``) and columns
    (``nc``), its nlev nc random effects and where they start in u."""

    levels: list[np.ndarray]

    @property
    def nc(self) -> np.ndarray:
        raise NotImplementedError

    @cached_property
    def nlev(self) -> np.ndarray:
        return np.array([len(lv) for lv in self.levels])

    @cached_property
    def sizes(self) -> np.ndarray:
        """Random effects per term: nlev_k nc_k."""
        return self.nlev * self.nc

    @cached_property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.sizes)[:-1]])

    @cached_property
    def q(self) -> int:
        return int(self.sizes.sum())


@dataclass
class InterceptTerms(TermLevels):
    """Random intercepts ``(1 | g)`` of one or more grouping factors, in ordinal's order
    (most levels first); ``codes[:, k]`` is each row's level of term k."""

    groups: list[str]
    levels: list[np.ndarray]
    codes: np.ndarray  # (n, T)

    @property
    def names(self) -> list[tuple[str, ...]]:
        return [("(Intercept)",)] * len(self.groups)

    @property
    def nc(self) -> np.ndarray:
        return np.ones(len(self.groups), int)

    def per_group(self, values: np.ndarray) -> dict[str, pd.DataFrame]:
        """A vector over the levels as one table a term."""
        return {g: pd.DataFrame({"(Intercept)": values[o:o + len(lv)]}, index=pd.Index(lv, name=g))
                for g, lv, o in zip(self.groups, self.levels, self.offsets, strict=True)}

    def covariances(self, theta: np.ndarray) -> list[np.ndarray]:
        return [np.array([[sd**2]]) for sd in theta]

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

    def times(self, v: np.ndarray) -> np.ndarray:
        """Z v for a vector v: each row's sum of its levels' entries (a tenth of the time
        of the sparse product on wine)."""
        return v[self.columns].sum(axis=1)

    def times_t(self, r: np.ndarray) -> np.ndarray:
        """Z' r for a vector r: each level's sum of its rows' entries."""
        return np.bincount(self.columns.ravel(), np.repeat(r, len(self.groups)), self.q)

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


def coded_terms(d: OrdinalDesign) -> list[ReTerm]:
    """The random-effects terms of ``d.formula``, their levels and columns coded as for
    lmer (``design.mixed_design``), in the formula's order."""
    # only the terms are read: no fixed columns named, so no fixed part is learnt again
    # (1.1 ms of a 27 ms quadrature fit on wine)
    coded = {t.term: t for t in mixed_design(d.formula, d.frame, d.X, [], np.zeros(d.n)).terms}
    return [coded[term] for term in d.formula.random]


def intercept_terms(d: OrdinalDesign, coded: list[ReTerm] | None = None) -> InterceptTerms:
    """The random-intercept terms of ``d.formula`` (``(1 | g)`` each; ``coded``: those of
    ``coded_terms``, if already built), ordered as ordinal orders them."""
    terms = coded_terms(d) if coded is None else coded
    if len({t.nlev for t in terms}) > 1:  # ordinal's getREterms: rev(order(nlev)), ties reversed
        terms = sorted(terms, key=lambda t: t.nlev)[::-1]
    return InterceptTerms([t.group for t in terms], [t.levels for t in terms],
                          np.column_stack([t.codes for t in terms]))


class InterceptFactor(SchurFactor):
    """H = I + M' diag(w) M for random intercepts, factored by blocks
    ([SchurFactor][acceptability.stats.mixed.schur.SchurFactor]): H11 (first term) is
    diagonal, S = H22 - H21 H11^-1 H12 is dense (the other terms); with the selected elements
    of H^-1 that the Laplace likelihood's gradient needs."""

    def __init__(self, terms: InterceptTerms, sigma: np.ndarray, w: np.ndarray) -> None:
        self.terms = terms
        nlev, off = terms.nlev, terms.offsets
        sigq = np.repeat(sigma, nlev)
        hdiag = 1 + sigq**2 * np.bincount(terms.columns.ravel(), np.repeat(w, len(nlev)), terms.q)
        q1 = int(nlev[0])
        self.d1 = hdiag[:q1]
        if len(nlev) == 1:
            super().__init__(self.d1, what="H")
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
        super().__init__(self.d1, c, rest, what="H")

    @cached_property
    def _sinv(self) -> np.ndarray:
        """S^-1 (dense: the levels of the terms after the first)."""
        sinv = lapack.dpotri(self._s_chol, lower=1)[0]
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
        if self._s_chol is None:
            return 1 / self.d1
        w = self._w
        rows = np.repeat(np.arange(self.q1), np.diff(w.indptr))
        return 1 / self.d1 - np.bincount(rows, w.data * self._h12(rows, w.indices), self.q1)

    def diag_inverse(self) -> np.ndarray:
        """diag(H^-1): the conditional variances of u."""
        if self._s_chol is None:
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
class Mode:
    """The conditional modes at one parameter value and what the likelihood needs there."""

    u: np.ndarray
    a: np.ndarray  # the ends of each row's interval at the modes
    b: np.ndarray
    g: float  # -sum log P + |u|^2 / 2
    r: np.ndarray  # d(-log P)/ds per row
    w: np.ndarray  # d2(-log P)/ds2 per row
    factor: InterceptFactor  # or clmm_slopes.DenseFactor


def score_curvature(link: CumulativeLink, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's r = -d log P / ds and w = dr / ds at the interval (a - s, b - s): the
    gradient and curvature of -log P in the random-effect sum s (ordinal's ``update.u``)."""
    iv = interval(link, a, b)
    r = (iv.fa - iv.fb) / iv.p
    return r, r * r - (iv.ga - iv.gb) / iv.p


def end_derivatives(link: CumulativeLink, a: np.ndarray, b: np.ndarray,
                    wt: np.ndarray) -> tuple[Interval, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The interval (to f'') at the ends (a, b) and the derivatives in them of each row's
    r and w (``score_curvature``, times the case weight ``wt``): dr/da, dr/db, dw/da,
    dw/db (dw/ds = -(dw/da + dw/db): the third derivative of -log P)."""
    iv = interval(link, a, b, order=2)
    p, fa, fb = iv.p, iv.fa, iv.fb
    dfab, dg = fa - fb, iv.ga - iv.gb
    ra = wt * (iv.ga / p - dfab * fa / p**2)
    rb = wt * (-iv.gb / p + dfab * fb / p**2)
    wa = wt * (-iv.ha / p + dg * fa / p**2 + 2 * dfab * iv.ga / p**2 - 2 * dfab**2 * fa / p**3)
    wb = wt * (iv.hb / p - dg * fb / p**2 - 2 * dfab * iv.gb / p**2 + 2 * dfab**2 * fb / p**3)
    return iv, ra, rb, wa, wb


def halving(at, u: np.ndarray, step: np.ndarray, s: np.ndarray, g: float) -> tuple:
    """The Newton step of the modes, u - lam step for lam = 1, 1/2, ...: the first that
    raises g = ``at(u)[1]`` by no more than its rounding; (u, s, g, lam < 1e-10) where none
    does (the mode to rounding error). Returns u, s, g there and lam."""
    lam = 1.0
    while True:
        s_new, g_new = at(u - lam * step)
        if g_new <= g + ROUNDING * abs(g):
            return u - lam * step, s_new, g_new, lam
        lam /= 2
        if lam < 1e-10:
            return u, s, g, lam


def newton_modes(d: OrdinalDesign, a0: np.ndarray, b0: np.ndarray, u: np.ndarray, times,
                 times_t, factor_of) -> tuple[Mode | None, int]:
    """The conditional modes by Newton's method in u with step halving (ordinal's
    ``update.u``), to max|gradient| < 1e-10, from ``u`` (from 0 where the likelihood is not
    finite there): s = ``times(u)`` = M u, ``times_t(r)`` = M' r and ``factor_of(w)`` the
    factored H = I + M' W M (raising LinAlgError unless positive definite). Returns the
    mode (None where the likelihood is not finite) and the iterations taken."""
    wt = d.case_weights

    def at(u):
        s = times(u)
        p = probability(d.link, a0 - s, b0 - s)
        return s, (-(wt @ np.log(p)) + 0.5 * u @ u if np.all(p > 0) else np.inf)

    s, g = at(u)
    if not np.isfinite(g):
        u = np.zeros_like(u)
        s, g = at(u)
        if not np.isfinite(g):
            return None, 0
    for iterations in range(1, 101):  # noqa: B007 (the count is returned)
        r, w = score_curvature(d.link, a0 - s, b0 - s)
        r, w = wt * r, wt * w
        grad = times_t(r) + u
        try:
            factor = factor_of(w)
        except np.linalg.LinAlgError:
            return None, iterations
        if np.max(np.abs(grad)) < INNER_TOL or iterations == 100:
            break
        u_new, s, g, lam = halving(at, u, factor.solve(grad), s, g)
        if lam < 1e-10:
            break
        u = u_new
    return Mode(u, a0 - s, b0 - s, float(g), r, w, factor), iterations
