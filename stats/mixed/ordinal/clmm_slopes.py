"""Random slopes in cumulative link mixed models (R's ``ordinal::clmm`` with
``(1 + x | g)``: vector-valued random effects, fitted by the Laplace approximation).

Each term k has nc_k columns (the intercept, then the slopes) and a lower-triangular
factor L_k, ordinal's ``ST`` matrix: b = Lambda u with Lambda = blockdiag(I_nlev (x) L_k),
u ~ N(0, I), so Cov(b_j) = L_k L_k'. ordinal orders each term's parameters as
``c(diag(ST), ST[lower.tri(ST)])`` (``ST2par``). The Laplace likelihood is that of
``cumulative_mixed`` with M = Z Lambda: -log L = g(u^) + 1/2 log|I + M' W M|, its modes by
Newton's method with step halving. H is dense (q = sum nlev_k nc_k, the number of random
effects) and the gradient in the parameters is a central difference of the likelihood,
as ordinal's (ordinal's general path: 4 s on wine with ``(1 + temp | judge)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse

from acceptability.stats.mixed.design import ReTerm
from acceptability.stats.mixed.formula import RandomTerm
from acceptability.stats.mixed.lmm.pls import one_blas_thread
from acceptability.stats.mixed.ordinal.clmm_polish import newton_polish
from acceptability.stats.mixed.ordinal.clmm_terms import (
    Mode,
    TermLevels,
    end_derivatives,
    newton_modes,
)
from acceptability.stats.mixed.ordinal.cumulative import OrdinalDesign, newton_clm
from acceptability.stats.mixed.schur import SchurFactor

__all__ = ["SlopeLikelihood", "SlopeTerms", "fit_slopes", "slope_terms"]

_DENSE = 4_000_000  # Z dLambda held dense up to this many elements (n q) a parameter


def _strict_lower(nc: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of the elements below the diagonal, column by column (R's
    ``lower.tri``)."""
    rows, cols = np.tril_indices(nc, -1)
    order = np.lexsort((rows, cols))
    return rows[order], cols[order]


@dataclass
class SlopeTerms(TermLevels):
    """Random-effects terms ``(1 + x | g)`` in ordinal's order (most levels first):
    ``codes[:, k]`` is each row's level of term k, ``cols[k]`` its (n, nc_k) columns."""

    groups: list[str]
    names: list[tuple[str, ...]]  # each term's column names: (Intercept), then the slopes
    levels: list[np.ndarray]
    codes: np.ndarray  # (n, T)
    cols: list[np.ndarray]
    re_terms: list[RandomTerm]  # the formula's terms, in this order
    slope_levels: list[dict[str, list[str]]]  # each factor slope's levels (new rows are coded with them)

    @property
    def nc(self) -> np.ndarray:
        return np.array([c.shape[1] for c in self.cols])

    @property
    def ntheta(self) -> int:
        return int(np.sum(self.nc * (self.nc + 1) // 2))

    @property
    def diagonal(self) -> np.ndarray:
        """Which parameters are diagonal elements of an ST matrix (SDs: ordinal bounds
        them at 0 and calls them on the boundary below 1e-3)."""
        return np.concatenate([np.arange(c * (c + 1) // 2) < c for c in self.nc])

    @cached_property
    def Z(self) -> sparse.csr_matrix:
        """(n, q): term k's column ``offset + level * nc + j`` holds its column j."""
        n = len(self.codes)
        rows, cols, vals = [], [], []
        for k, x in enumerate(self.cols):
            nc = x.shape[1]
            rows.append(np.repeat(np.arange(n), nc))
            cols.append((self.offsets[k] + self.codes[:, k, None] * nc + np.arange(nc)).ravel())
            vals.append(x.ravel())
        return sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                 shape=(n, self.q))

    def split(self, theta: np.ndarray) -> list[np.ndarray]:
        return np.split(np.asarray(theta, float), np.cumsum(self.nc * (self.nc + 1) // 2)[:-1])

    def lower(self, theta: np.ndarray) -> list[np.ndarray]:
        """Each term's ST matrix from ordinal's parameters (its ``par2ST``)."""
        out = []
        for nc, par in zip(self.nc, self.split(theta), strict=True):
            st = np.diag(par[:nc])
            st[_strict_lower(nc)] = par[nc:]
            out.append(st)
        return out

    def theta_of(self, sts: list[np.ndarray]) -> np.ndarray:
        """Inverse of ``lower`` (ordinal's ``ST2par``)."""
        return np.concatenate([np.concatenate([np.diag(st), st[_strict_lower(len(st))]]) for st in sts])

    def positive(self, theta: np.ndarray) -> np.ndarray:
        """The same model with each ST's diagonal >= 0: -log L is unchanged when a column
        of ST changes sign (u_j -> -u_j leaves N(0, I) as it is)."""
        sts = [st * np.where(np.diag(st) < 0, -1.0, 1.0)[None, :] for st in self.lower(theta)]
        return self.theta_of(sts)

    def lam(self, theta: np.ndarray) -> sparse.csr_matrix:
        """Lambda: blockdiag over the terms of I_nlev (x) ST_k (Z's level-major columns)."""
        return sparse.block_diag([sparse.kron(sparse.identity(int(n)), st) for n, st
                                  in zip(self.nlev, self.lower(theta), strict=True)], format="csr")

    def per_group(self, values: np.ndarray) -> dict[str, pd.DataFrame]:
        """A vector over the random effects as one (levels x columns) table a term."""
        out = {}
        for k, g in enumerate(self.groups):
            block = values[self.offsets[k]:self.offsets[k] + self.sizes[k]].reshape(self.nlev[k], self.nc[k])
            out[g] = pd.DataFrame(block, index=pd.Index(self.levels[k], name=g), columns=list(self.names[k]))
        return out

    def covariances(self, theta: np.ndarray) -> list[np.ndarray]:
        return [st @ st.T for st in self.lower(theta)]

    @cached_property
    def zdlam(self) -> list[np.ndarray | sparse.csr_matrix]:
        """Z dLambda/dtheta_j, one a parameter (Lambda is linear in theta): dense arrays
        where n q is small (wine: sparse products took 2/3 of the fit), sparse otherwise."""
        dense = len(self.groups) > 1 and len(self.codes) * self.q <= _DENSE
        return [(self.Z @ self.lam(e)).toarray() if dense else (self.Z @ self.lam(e)).tocsr()
                for e in np.eye(self.ntheta)]

    def m(self, theta: np.ndarray) -> np.ndarray | sparse.csr_matrix:
        """M = Z Lambda = sum_j theta_j Z dLambda/dtheta_j."""
        return sum(t * zd for t, zd in zip(theta, self.zdlam, strict=True))


def slope_terms(coded: list[ReTerm]) -> SlopeTerms:
    """The terms of a formula as lmer codes them (``design.mixed_design``), ordered as
    ordinal orders them (``getREterms``: rev(order(nlev)), ties reversed)."""
    terms = coded
    if len({t.nlev for t in terms}) > 1:
        terms = sorted(terms, key=lambda t: t.nlev)[::-1]
    return SlopeTerms([t.group for t in terms], [tuple(t.names) for t in terms],
                      [t.levels for t in terms], np.column_stack([t.codes for t in terms]),
                      [np.asarray(t.cols, float) for t in terms], [t.term for t in terms],
                      [t.slope_levels for t in terms])


def _row_sums(a: np.ndarray | sparse.csr_matrix, b: np.ndarray | sparse.csr_matrix) -> np.ndarray:
    """Row sums of the elementwise product of a and b (each dense or sparse)."""
    if sparse.issparse(a) or sparse.issparse(b):
        return np.asarray((a.multiply(b) if sparse.issparse(a) else b.multiply(a)).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", a, b)


def _scale_rows(w: np.ndarray, a: np.ndarray | sparse.csr_matrix) -> np.ndarray | sparse.csr_matrix:
    return a.multiply(w[:, None]).tocsr() if sparse.issparse(a) else w[:, None] * a


class BlockFactor(SchurFactor):
    """H = I + M' W M for one term: block diagonal, nc x nc a level (each row's effects are
    those of its level), inverted block by block (a
    [SchurFactor][acceptability.stats.mixed.schur.SchurFactor] of A11 alone)."""

    def __init__(self, mb: np.ndarray, codes: np.ndarray, nlev: int, w: np.ndarray) -> None:
        nc = mb.shape[1]
        blocks = np.zeros((nlev, nc, nc))
        np.add.at(blocks, codes, w[:, None, None] * mb[:, :, None] * mb[:, None, :])
        blocks += np.eye(nc)
        super().__init__(blocks)  # raises LinAlgError unless positive definite

    def inverse(self) -> sparse.csr_matrix:
        nlev = len(self._inv11)
        return sparse.bsr_matrix((self._inv11, np.arange(nlev), np.arange(nlev + 1))).tocsr()


class DenseFactor:
    """H = I + M' W M factored by Cholesky, dense (q = the number of random effects)."""

    def __init__(self, m: np.ndarray | sparse.csr_matrix, w: np.ndarray) -> None:
        h = m.T @ (m.multiply(w[:, None]) if sparse.issparse(m) else w[:, None] * m)
        h = h.toarray() if sparse.issparse(h) else h
        h[np.diag_indices_from(h)] += 1
        self._chol = linalg.cho_factor(h, lower=True)  # raises LinAlgError unless positive definite
        self.logdet = float(2 * np.sum(np.log(np.diag(self._chol[0]))))

    def solve(self, v: np.ndarray) -> np.ndarray:
        return linalg.cho_solve(self._chol, v)

    def inverse(self) -> np.ndarray:
        return self.solve(np.eye(len(self._chol[0])))


class SlopeLikelihood:
    """-log L of a clmm with random slopes at x = (alpha, beta, ST parameters) by the
    Laplace approximation, and the conditional modes, warm-started. The gradient is a
    central difference (step 1e-4, ordinal's ``deriv12`` step)."""

    exact_gradient = True  # the Hessian: central differences of the gradient

    def __init__(self, d: OrdinalDesign, terms: SlopeTerms) -> None:
        self.d, self.terms = d, terms
        self.u = np.zeros(terms.q)
        self.evaluations = self.inner = 0

    def mode(self, x: np.ndarray) -> Mode | None:
        """Newton's method in u with step halving to max|gradient| < 1e-10 (as
        ``cumulative_mixed``'s); None where the likelihood is not finite."""
        d = self.d
        m = self.terms.m(x[d.npar:])
        mode, iterations = newton_modes(d, *d.ends(x[:d.npar]), self.u, lambda u: m @ u,
                                        lambda r: m.T @ r, self._factor_of(x))
        if mode is not None:
            self.u = mode.u
        self.inner += iterations
        return mode

    def _factor_of(self, x: np.ndarray):
        """H's factor as a function of the weights: by blocks for one term, dense otherwise."""
        terms = self.terms
        if len(terms.groups) == 1:
            mb = terms.cols[0] @ terms.lower(x[self.d.npar:])[0]  # each row's nonzeros of M
            return lambda w: BlockFactor(mb, terms.codes[:, 0], int(terms.nlev[0]), w)
        m = terms.m(x[self.d.npar:])
        return lambda w: DenseFactor(m, w)

    def value(self, x: np.ndarray) -> float:
        self.evaluations += 1
        mode = self.mode(x)
        return np.inf if mode is None else mode.g + 0.5 * mode.factor.logdet

    def value_grad(self, x: np.ndarray) -> tuple[float, np.ndarray]:
        """-log L and its analytic gradient: d/dx [g(u^(x), x) + 1/2 log|H(u^(x), x)|]
        (as ``cumulative_mixed``'s for random intercepts, with dense H^-1): dg/dx at fixed
        u^, and 1/2 tr(H^-1 dH) = tr(H^-1 M' W dM) + 1/2 sum_i h_i dw_i, h_i = m_i' H^-1 m_i,
        dw the total derivative of the weights along u^(x) (implicit function theorem)."""
        self.evaluations += 1
        mode = self.mode(x)
        if mode is None:
            return np.inf, np.zeros_like(x)
        d, terms, npar = self.d, self.terms, self.d.npar
        m = terms.m(x[npar:])
        iv, ra, rb, wa, wb = end_derivatives(d.link, mode.a, mode.b, d.case_weights)
        hinv = mode.factor.inverse()
        mh = m @ hinv  # (n, q)
        h = _row_sums(m, mh)
        wmh = _scale_rows(mode.w, mh)
        dm = np.column_stack([zd @ mode.u for zd in terms.zdlam])  # (n, K): dM_j u^
        rhs = np.hstack([m.T @ (ra[:, None] * d.B1 + rb[:, None] * d.B2),
                         np.column_stack([zd.T @ mode.r for zd in terms.zdlam]) + m.T @ (mode.w[:, None] * dm)])
        ds = m @ (-hinv @ rhs)
        ds[:, npar:] += dm
        dw = -(wa + wb)[:, None] * ds
        dw[:, :npar] += wa[:, None] * d.B1 + wb[:, None] * d.B2
        c = d.case_weights / iv.p
        grad_fe = d.B1.T @ (-iv.fa * c) + d.B2.T @ (iv.fb * c)
        trace = np.array([np.sum(_row_sums(zd, wmh)) for zd in terms.zdlam])
        grad_theta = mode.r @ dm + trace
        return mode.g + 0.5 * mode.factor.logdet, np.concatenate([grad_fe, grad_theta]) + 0.5 * h @ dw

    def modes_b(self, x: np.ndarray, mode: Mode) -> tuple[np.ndarray, np.ndarray]:
        """b = Lambda u^ and its conditional variances, diag(Lambda H^-1 Lambda')."""
        lam = self.terms.lam(x[self.d.npar:])
        var = _row_sums(lam @ mode.factor.inverse(), lam)
        return lam @ mode.u, var


@one_blas_thread
def fit_slopes(d: OrdinalDesign, terms: SlopeTerms) -> tuple:
    """Minimise -log L from ordinal's start (the clm fit, each ST the identity): L-BFGS-B
    over (alpha, beta, ST parameters) unbounded (a column of ST and its sign are one
    model: each diagonal made >= 0 after), then Newton steps in ordinal's coordinates
    (``clmm_polish.newton_polish``)."""
    lik = SlopeLikelihood(d, terms)
    z0 = np.concatenate([newton_clm(d).par, terms.theta_of([np.eye(nc) for nc in terms.nc])])
    res = optimize.minimize(lik.value_grad, z0, jac=True, method="L-BFGS-B",
                            options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-7, "maxcor": 20})
    x = np.concatenate([res.x[:d.npar], terms.positive(res.x[d.npar:])])
    lik.u = np.zeros(terms.q)  # the modes of the sign-flipped columns
    x, fx, grad, hess, kept, converged = newton_polish(lik, x, terms.diagonal, False)
    b, b_var = lik.modes_b(x, lik.mode(x))
    return x, fx, grad, hess, [*d.par_names, *kept], b, b_var, f"{lik.evaluations}({lik.inner})", converged
