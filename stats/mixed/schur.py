"""Cholesky factors of the random effects' positive definite systems, by blocks: lme4's
A = Lambda' Z'Z Lambda + I (``lmm.pls``, ``glmm.laplace``; Bates et al. 2015, JSS 67(1),
section 3) and ordinal's H = I + M' W M (``ordinal.clmm_terms``; Christensen 2019).

Split after the first term, the one with most levels (lme4 and ordinal order terms so):
A11 is block diagonal, one nc x nc block per level (diagonal for an intercept), and the
Schur complement S = A22 - A21 A11^-1 A12 of the other terms is dense (crossed factors fill
it in) and small, so log|A| = log|A11| + log|S| and A^-1 b takes one solve with S. This is
the fill-reducing order CHOLMOD finds for lme4, written out because CHOLMOD is not a
pip-installable dependency. A small A is factored whole by LAPACK (`DenseFactor`).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.linalg import lapack

__all__ = ["DenseFactor", "SchurFactor", "factor"]


class DenseFactor:
    """A dense A, factored by LAPACK's Cholesky directly (no per-call checks)."""

    def __init__(self, a: np.ndarray, what: str = "A") -> None:
        chol, info = lapack.dpotrf(a, lower=1)
        if info:
            raise np.linalg.LinAlgError(f"{what} is not positive definite (leading minor {info})")
        self._cho = chol
        self.logdet = float(2 * np.sum(np.log(np.diag(chol))))

    def solve(self, b: np.ndarray) -> np.ndarray:
        """A^-1 b for a vector or the columns of a matrix."""
        return lapack.dpotrs(self._cho, b, lower=1)[0]


class SchurFactor:
    """A = [[A11, A12], [A21, A22]] factored by blocks, from its parts: ``a11`` the diagonal
    of A11 (q1,) or its blocks (levels, nc, nc), ``a12`` sparse (CSR), ``a22`` dense, ``a21``
    A12' if already at hand (CSR). Without ``a12`` A is A11 alone. ``what`` names A in the
    error a matrix that is not positive definite raises (``LinAlgError``)."""

    def __init__(self, a11: np.ndarray, a12: sparse.csr_matrix | None = None,
                 a22: np.ndarray | None = None, a21: sparse.spmatrix | None = None,
                 what: str = "A") -> None:
        if a11.ndim == 1:
            if not np.all(a11 > 0):
                raise np.linalg.LinAlgError(f"{what} is not positive definite")
            self._inv11 = (1 / a11)[:, None, None]
            logdet = np.sum(np.log(a11))
        else:
            chol = np.linalg.cholesky(a11)
            self._inv11 = np.linalg.inv(a11)
            logdet = 2 * np.sum(np.log(np.diagonal(chol, axis1=1, axis2=2)))
        nlev, nc, _ = self._inv11.shape
        self.q1 = nlev * nc
        self._s_chol = None
        if a12 is not None:
            self._a21 = a12.T if a21 is None else a21
            if nc == 1:  # A11^-1 A12: A12's rows scaled
                rows = np.repeat(self._inv11[:, 0, 0], np.diff(a12.indptr))
                self._w = sparse.csr_matrix((a12.data * rows, a12.indices, a12.indptr), shape=a12.shape)
            else:
                self._w = (sparse.block_diag(list(self._inv11), format="csr") @ a12).tocsr()
            chol, info = lapack.dpotrf(a22 - (self._a21 @ self._w).toarray(), lower=1)
            if info:
                raise np.linalg.LinAlgError(f"{what} is not positive definite")
            self._s_chol = chol
            logdet += 2 * np.sum(np.log(np.diag(chol)))
        self.logdet = float(logdet)

    def _apply_inv11(self, b: np.ndarray) -> np.ndarray:
        nlev, nc, _ = self._inv11.shape
        shaped = b.reshape(nlev, nc, -1)
        return np.einsum("lij,ljk->lik", self._inv11, shaped).reshape(b.shape)

    def solve(self, b: np.ndarray) -> np.ndarray:
        """A^-1 b for a vector or the columns of a matrix."""
        b = np.asarray(b, float)
        y1 = self._apply_inv11(b[:self.q1])
        if self._s_chol is None:
            return y1
        x2 = lapack.dpotrs(self._s_chol, b[self.q1:] - self._a21 @ y1, lower=1)[0]
        return np.concatenate([y1 - self._w @ x2, x2])


def factor(a: np.ndarray | sparse.spmatrix, q1: int, nc1: int) -> DenseFactor | SchurFactor:
    """The factor of A, dense or sparse (then split after its first ``q1`` rows, the first
    term's, ``nc1`` random effects a level)."""
    if not sparse.issparse(a):
        return DenseFactor(a)
    csr = a.tocsr()
    if nc1 == 1:  # A11 diagonal: no blocks to gather (a third of the time of a PLS solve)
        a11 = csr.diagonal()[:q1]
    else:
        coo = csr[:q1, :q1].tocoo()
        a11 = np.zeros((q1 // nc1, nc1, nc1))
        np.add.at(a11, (coo.row // nc1, coo.row % nc1, coo.col % nc1), coo.data)
    if q1 == a.shape[0]:
        return SchurFactor(a11)
    return SchurFactor(a11, csr[:q1, q1:], csr[q1:, q1:].toarray(), csr[q1:, :q1])
