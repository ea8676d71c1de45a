"""The model matrices of a mixed model, built as lme4's ``mkReTrms`` builds them.

Bates, Mächler, Bolker & Walker (2015), "Fitting linear mixed-effects models using lme4",
J. Stat. Softw. 67(1), section 2.3: the random-effects model matrix ``Z`` (n x q, one
column per level and coefficient of each term, level-major), the relative covariance
factor ``Lambda(theta)`` (block diagonal: one lower-triangular ``T_k`` per term, repeated
per level) and the covariance parameter ``theta`` (the lower triangles of the ``T_k``,
column-major). Terms are ordered by decreasing number of levels, as lme4 orders them: when
they are not in that order already, by ``rev(order(nl))``, which also reverses ties.
The fixed-effects matrix ``X`` is R's ``model.matrix`` (terms from glmm's ``model_matrix``, the
same parser that fits the model; each factor coded by its contrasts, R's defaults
``contr.treatment`` and ``contr.poly`` for an ordered factor, or ``contrasts=``); transformed variables
(``scale(x)``, ``poly(x, 2)``, ``log(x)``, ``factor(x)``) are built by
[transforms][acceptability.stats.mixed.transforms], which keeps R's column names, terms and
``assign`` in ``MixedDesign.fixed_part``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import sparse

from acceptability.stats.mixed.formula import Formula, RandomTerm
from acceptability.stats.mixed.glmm.families import Family, family
from acceptability.stats.mixed.slopes import term_columns
from acceptability.stats.mixed.transforms import FixedPart, fit_matrix

__all__ = ["MixedDesign", "ReTerm", "fixed_matrix", "group_key", "mixed_design"]


def group_key(data: pd.DataFrame, factors: tuple[str, ...]) -> pd.Series:
    """Level labels of a grouping factor; an interaction ``g:h`` gives labels ``'a:b'``."""
    out = data[factors[0]].astype(str)
    for f in factors[1:]:
        out = out + ":" + data[f].astype(str)
    return out


@dataclass
class ReTerm:
    """One random-effects term ``(expr | g)``: its levels, each row's level, its columns."""

    term: RandomTerm
    levels: np.ndarray  # level labels, sorted as R's factor() sorts them
    codes: np.ndarray  # (n,) level index of each row
    cols: np.ndarray  # (n, nc) the term's model columns: 1 for the intercept, then slopes
    colnames: tuple[str, ...] = ()  # lme4's names of the columns (a factor slope: f2, f3...)
    slope_levels: dict[str, list[str]] = field(default_factory=dict)  # each factor slope's levels

    @property
    def group(self) -> str:
        return self.term.group

    @property
    def names(self) -> tuple[str, ...]:
        return self.colnames or self.term.names

    @property
    def nc(self) -> int:
        return self.cols.shape[1]

    @property
    def nlev(self) -> int:
        return len(self.levels)

    @property
    def ntheta(self) -> int:
        return self.nc * (self.nc + 1) // 2

    def lower(self, theta: np.ndarray) -> np.ndarray:
        """``T_k``: the lower-triangular factor filled column-major from this term's theta."""
        t = np.zeros((self.nc, self.nc))
        r, c = np.tril_indices(self.nc)
        order = np.lexsort((r, c))  # column-major, as lme4 stores theta
        t[r[order], c[order]] = theta
        return t

    def theta_of(self, t: np.ndarray) -> np.ndarray:
        """Inverse of :meth:`lower`."""
        rows, cols = np.tril_indices(self.nc)
        order = np.lexsort((rows, cols))  # column-major
        return t[rows[order], cols[order]]


@dataclass
class MixedDesign:
    """Response, fixed-effects matrix, random-effects terms and ``Z`` of one mixed model."""

    formula: Formula
    frame: pd.DataFrame
    y: np.ndarray
    X: np.ndarray
    xnames: list[str]
    terms: list[ReTerm]
    trials: np.ndarray | None = None  # binomial cbind(): successes + failures per row
    family: str = "gaussian"  # the response's distribution: gaussian, binomial, poisson, bernoulli, ...
    n_dropped: int = 0  # rows of the data left out for missing values
    link: str | None = None  # the GLMM's link (None: the family's canonical link)
    weights: np.ndarray | None = None  # prior weights (lme4 ``weights=``), None = all 1
    offset: np.ndarray | None = None  # known part of the linear predictor, None = 0
    # the fixed part's transformations (for new rows), R's term labels and assign
    fixed_part: FixedPart | None = None
    _lind: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._lind = np.concatenate(
            [np.tile(np.arange(t.ntheta), t.nlev) + off for t, off in zip(self.terms, self.theta_offsets, strict=True)]
        ) if self.terms else np.zeros(0, int)

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def p(self) -> int:
        return self.X.shape[1]

    @property
    def q(self) -> int:
        return sum(t.nlev * t.nc for t in self.terms)

    @property
    def theta_offsets(self) -> list[int]:
        return list(np.cumsum([0] + [t.ntheta for t in self.terms])[:-1])

    @property
    def ntheta(self) -> int:
        return sum(t.ntheta for t in self.terms)

    @cached_property
    def Z(self) -> sparse.csc_matrix:
        """``Z`` (n x q): for term k, column ``offset + level * nc + j`` holds column j."""
        blocks = []
        rows = np.arange(self.n)
        for t in self.terms:
            r = np.repeat(rows, t.nc)
            c = (t.codes[:, None] * t.nc + np.arange(t.nc)).ravel()
            blocks.append(sparse.csc_matrix((t.cols.ravel(), (r, c)), shape=(self.n, t.nlev * t.nc)))
        return sparse.hstack(blocks, format="csc")

    def crossprods(self, dense: bool) -> tuple[object, np.ndarray, np.ndarray]:
        """Z'WZ (dense array or sparse), Z'WX and X'WX, computed once; W holds the prior
        weights (lme4's weighted PLS, Bates et al. 2015, eq. 16; W = I without weights)."""
        key = "_ztz_dense" if dense else "_ztz_sparse"
        if key not in self.__dict__:
            ztz = (self.Z.T @ self._wz).tocsc()
            self.__dict__[key] = ztz.toarray() if dense else ztz
        return self.__dict__[key], self._ztx_xtx[0], self._ztx_xtx[1]

    @cached_property
    def _wz(self) -> sparse.csc_matrix:
        """W Z."""
        return self.Z if self.weights is None else (sparse.diags(self.weights) @ self.Z).tocsc()

    @cached_property
    def _ztx_xtx(self) -> tuple[np.ndarray, np.ndarray]:
        wx = self.X if self.weights is None else self.weights[:, None] * self.X
        return np.asarray(self._wz.T @ self.X), self.X.T @ wx

    @cached_property
    def response_crossprods(self) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        """``weighted_crossprods`` of the design's response."""
        return self._crossprods(*self.centred_response)

    @cached_property
    def centred_response(self) -> tuple[np.ndarray, np.ndarray]:
        """``centred`` of the design's response."""
        return self.centred(self.y)

    def centred(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(c, gamma): r = y - offset (the design's offset, if any) = X gamma + c, gamma its
        weighted least-squares coefficients on X. A linear model of r is one of c with beta
        less gamma, and c sits at 0 in the response's own units wherever y sits: from y's
        cross products, |y - X beta - Z b|^2 was y'y less the fitted part, which cancelled
        catastrophically far from 0 (issue 43, item 7: sleepstudy's theta moved by 1% at
        y + 1e8, LI-Adger's sentence model had no positive definite solution at y + 1e6)."""
        r = np.asarray(y, float) if self.offset is None else y - self.offset
        if not self.p:
            return r, np.zeros(0)
        sw = np.ones(self.n) if self.weights is None else np.sqrt(self.weights)
        gamma = np.linalg.lstsq(self.X * sw[:, None], r * sw, rcond=None)[0]
        return r - self.X @ gamma, gamma

    def weighted_crossprods(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        """Z'Wc, X'Wc, c'Wc and gamma of ``centred(y)``: the cross products the PLS solves
        for beta - gamma from."""
        return self._crossprods(*self.centred(y))

    def _crossprods(self, c: np.ndarray, gamma: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
        wc = c if self.weights is None else self.weights * c
        return self.Z.T @ wc, self.X.T @ wc, float(c @ wc), gamma

    @property
    def log_weights(self) -> float:
        """sum(log w): lme4's ``ldW``, which a weighted linear model's deviance subtracts."""
        return 0.0 if self.weights is None else float(np.sum(np.log(self.weights)))

    @cached_property
    def _lambdat_pattern(self) -> tuple[np.ndarray, np.ndarray]:
        """Row and column of every entry of ``Lambda'``, in the order of ``_lind``."""
        rows, cols, off = [], [], 0
        for t in self.terms:
            r, c = np.tril_indices(t.nc)
            order = np.lexsort((r, c))  # column-major lower triangle of T = upper of T'
            tr, tc = c[order], r[order]  # transpose: entries of T'
            base = off + np.arange(t.nlev)[:, None] * t.nc
            rows.append((base + tr).ravel())
            cols.append((base + tc).ravel())
            off += t.nlev * t.nc
        return np.concatenate(rows), np.concatenate(cols)

    def lambdat(self, theta: np.ndarray, dense: bool = False):
        """``Lambda(theta)'`` (q x q, upper triangular), lme4's ``Lambdat``; sparse unless
        ``dense``."""
        r, c = self._lambdat_pattern
        values = np.asarray(theta, float)[self._lind]
        if dense:
            out = np.zeros((self.q, self.q))
            out[r, c] = values
            return out
        return sparse.csc_matrix((values, (r, c)), shape=(self.q, self.q))

    def theta_lower(self) -> np.ndarray:
        """Lower bounds: 0 on the diagonal of each ``T_k``, unbounded off it (lme4 ``lower``)."""
        return np.concatenate([t.theta_of(np.where(np.eye(t.nc) > 0, 0.0, -np.inf)) for t in self.terms])

    def theta_start(self) -> np.ndarray:
        """lme4's start: identity ``T_k`` (1 on the diagonal, 0 off it)."""
        return np.concatenate([t.theta_of(np.eye(t.nc)) for t in self.terms])

    def split_theta(self, theta: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(theta)[o:o + t.ntheta] for t, o in zip(self.terms, self.theta_offsets, strict=True)]

    def covariances(self, theta: np.ndarray, sigma: float) -> list[np.ndarray]:
        """Each term's covariance matrix ``sigma^2 T_k T_k'``."""
        out = []
        for t, th in zip(self.terms, self.split_theta(theta), strict=True):
            low = t.lower(th)
            out.append(sigma**2 * low @ low.T)
        return out

    def theta_from_covariances(self, covs: list[np.ndarray], sigma: float) -> np.ndarray:
        """``theta`` from covariance matrices; a singular block gets a pivoted factor."""
        out = []
        for t, cov in zip(self.terms, covs, strict=True):
            out.append(t.theta_of(_lower_factor(np.asarray(cov, float) / sigma**2)))
        return np.concatenate(out)

    @property
    def glm_family(self) -> Family:
        """The response's family and link (R's ``family`` object); gaussian-identity for lmer."""
        return family(self.family, self.link)

    def with_response(self, y: np.ndarray) -> MixedDesign:
        """The same design with another response (bootstrap refits, profiles)."""
        d = MixedDesign(self.formula, self.frame, np.asarray(y, float), self.X, self.xnames,
                        self.terms, self.trials, self.family, self.n_dropped, self.link,
                        self.weights, self.offset, fixed_part=self.fixed_part)
        shared = ("Z", "_wz", "_lambdat_pattern", "_ztz_dense", "_ztz_sparse", "_ztx_xtx")
        d.__dict__.update({k: v for k, v in self.__dict__.items() if k in shared})
        return d


def _lower_factor(s: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor of a positive semi-definite matrix (zeros where it is singular)."""
    try:
        return np.linalg.cholesky(s)
    except np.linalg.LinAlgError:
        n = len(s)
        low = np.zeros_like(s)
        for j in range(n):  # outer-product Cholesky that stops at a zero pivot
            d = s[j, j] - low[j, :j] @ low[j, :j]
            if d <= 1e-14 * max(1.0, abs(s[j, j])):
                continue
            low[j, j] = np.sqrt(d)
            low[j + 1:, j] = (s[j + 1:, j] - low[j + 1:, :j] @ low[j, :j]) / low[j, j]
        return low


def fixed_design(formula: Formula, frame: pd.DataFrame, check_rank: bool = True,
                 contrasts: dict[str, object] | None = None) -> tuple[np.ndarray, FixedPart]:
    """``X`` as R's ``model.matrix`` gives it (R's default contrasts unless ``contrasts``
    names a coding, transformed variables) and the
    [FixedPart][acceptability.stats.mixed.transforms.FixedPart] it comes from (column
    names, terms, codings, what the transformations learnt); a rank-deficient ``X`` is an
    error naming its columns."""
    try:
        x, part = fit_matrix(formula, frame, contrasts)
    except ValueError as err:
        raise ValueError(f"fixed-effects part {formula.fixed!r} of {formula.text!r}: {err}") from None
    if check_rank and np.linalg.matrix_rank(x) < x.shape[1]:
        raise ValueError(
            f"fixed-effects model matrix of {formula.fixed!r} is rank deficient ({x.shape[1]} "
            f"columns {part.xnames}, rank {np.linalg.matrix_rank(x)}): drop the redundant term")
    return x, part


def fixed_matrix(formula: Formula, frame: pd.DataFrame, check_rank: bool = True,
                 contrasts: dict[str, object] | None = None) -> tuple[np.ndarray, list[str]]:
    """``X`` and its column names ([fixed_design][acceptability.stats.mixed.design.fixed_design])."""
    x, part = fixed_design(formula, frame, check_rank, contrasts)
    return x, list(part.xnames)


def mixed_design(formula: Formula, frame: pd.DataFrame, X: np.ndarray, xnames: list[str],
                 y: np.ndarray, trials: np.ndarray | None = None, family: str = "gaussian",
                 n_dropped: int = 0, fixed: FixedPart | None = None) -> MixedDesign:
    """Build the terms of ``formula`` on ``frame`` (complete rows) in lme4's order; ``fixed``
    is the fixed part ``X`` came from (None for a design without fixed columns: brm's,
    whose X bambi builds)."""
    terms = []
    for term in formula.random:
        if len(term.factors) == 1 and pd.api.types.is_numeric_dtype(frame[term.factors[0]]):
            codes, values = pd.factorize(frame[term.factors[0]], sort=True)  # R: numeric order
            levels = np.asarray(pd.Index(values).astype(str))
        else:
            codes, levels = pd.factorize(group_key(frame, term.factors), sort=True)
            levels = np.asarray(levels)
        cols, names, slope_levels = term_columns(term, frame)
        terms.append(ReTerm(term, levels, codes.astype(np.int64), cols, names, slope_levels))
    nlev = [t.nlev for t in terms]
    if any(a < b for a, b in zip(nlev, nlev[1:], strict=False)):
        # lme4's mkReTrms: rev(order(nl)), which also reverses the order of ties, so that
        # (1 + x || g) + (1 | g:h) has terms g:h, x | g, 1 | g (VarCorr g.h, g, g.1)
        terms = sorted(terms, key=lambda t: t.nlev)[::-1]
    # the formula and rows stay the user's (an engine that cannot read a transformation
    # builds its own view from fixed_part and X)
    return MixedDesign(formula, frame, np.asarray(y, float), X, xnames, terms, trials, family,
                       n_dropped, fixed_part=fixed)
