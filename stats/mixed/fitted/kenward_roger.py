"""Kenward-Roger's adjusted covariance of the fixed effects and its F test, as pbkrtest
computes them (``vcovAdj``, ``KRmodcomp``, ``Lb_ddf``; Halekoh & Højsgaard 2014, J. Stat.
Softw. 59(9)).

Kenward & Roger (1997), Biometrics 53, 983-997: with Sigma = sum_r gamma_r G_r the marginal
covariance of y (one G_r per variance or covariance parameter of a random-effects term, and
the identity for the residual variance), Phi = (X' Sigma^-1 X)^-1, P_r = -X' S G_r S X,
Q_rs = X' S G_r S G_s S X (S = Sigma^-1) and W = 2 I_E^-1 the asymptotic covariance of the
gammas (I_E the expected information), the adjusted covariance is
Phi_A = Phi + 2 Phi (sum_rs W_rs (Q_rs - P_r Phi P_s)) Phi (without the second
derivatives, which vanish for covariance structures linear in the gammas), and an F test of
L beta = 0 gets Kenward and Roger's scaling and denominator df.

pbkrtest forms Sigma^-1 (n x n) densely. Here every product is reduced to q x q matrices
(q random effects) by Woodbury's identity, Sigma^-1 = sigma^-2 (I - Z M Z'),
M = Lambda A^-1 Lambda' with A = Lambda' Z'Z Lambda + I, so that the cost does not grow
with the number of rows: Z' S^j Y = sigma^-2j (I - K)^j Z'Y with K = Z'Z M.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy import linalg, sparse

from acceptability.stats.mixed.lmm.pls import one_blas_thread

if TYPE_CHECKING:
    from acceptability.stats.mixed.results import MixedResult

__all__ = ["MAX_Q", "KenwardRoger", "kenward_roger"]

MAX_Q = 3000  # largest number of random effects: the q x q products take O(q^3) time, O(q^2) memory


@dataclass
class KenwardRoger:
    """pbkrtest's ``vcovAdj`` result: the unadjusted and adjusted covariances of the fixed
    effects and the ``P`` and ``W`` of Kenward & Roger (1997) that its tests use."""

    vcov: np.ndarray  # Phi
    vcov_adjusted: np.ndarray  # Phi_A
    P: list[np.ndarray]
    W: np.ndarray

    def _a1_a2(self, L: np.ndarray) -> tuple[float, float]:
        """Kenward & Roger's (1997) A1 and A2 for the hypothesis rows ``L``."""
        phi = self.vcov
        theta = L.T @ np.linalg.solve(L @ phi @ L.T, L)
        u = [theta @ phi @ p @ phi for p in self.P]
        a1 = a2 = 0.0
        for i in range(len(u)):
            for j in range(i, len(u)):
                e = 1.0 if i == j else 2.0
                a1 += e * self.W[i, j] * np.trace(u[i]) * np.trace(u[j])
                a2 += e * self.W[i, j] * np.sum(u[i] * u[j].T)
        return a1, a2

    def ddf(self, L: np.ndarray) -> float:
        """Denominator df of the test of ``L beta = 0`` (pbkrtest ``Lb_ddf``; q = rows of L)."""
        L = np.atleast_2d(np.asarray(L, float))
        return _df2(*self._a1_a2(L), L.shape[0])[0]

    def ftest(self, L: np.ndarray, beta: np.ndarray) -> dict[str, float]:
        """The F test of ``L beta = 0`` (pbkrtest ``KRmodcomp`` with a restriction matrix):
        ``F`` (scaled), ``F_unscaled`` (the Wald statistic over q, with Phi_A), ``scaling``,
        ``ndf`` (the rank q of L) and ``ddf``."""
        L = _full_rank(np.atleast_2d(np.asarray(L, float)))
        q = np.linalg.matrix_rank(L)
        ddf, scaling = _df2(*self._a1_a2(L), q)
        lb = L @ beta
        f_unscaled = float(lb @ np.linalg.solve(L @ self.vcov_adjusted @ L.T, lb)) / q
        return {"F": scaling * f_unscaled, "F_unscaled": f_unscaled, "scaling": scaling,
                "ndf": q, "ddf": ddf}


def _full_rank(L: np.ndarray) -> np.ndarray:
    """pbkrtest's ``force_full_rank``: an orthonormal basis of the row space when the rows
    of ``L`` are dependent."""
    rank = np.linalg.matrix_rank(L)
    return L if rank == L.shape[0] else np.linalg.qr(L.T)[0][:, :rank].T


def _df2(a1: float, a2: float, q: int) -> tuple[float, float]:
    """Denominator df and F scaling from A1, A2 (Kenward & Roger 1997; pbkrtest's
    ``.KR_adjust``, including its guards)."""
    b = (a1 + 6 * a2) / (2 * q)
    g = ((q + 1) * a1 - (q + 4) * a2) / ((q + 2) * a2)
    denom = 3 * q + 2 * (1 - g)
    c1, c2, c3 = g / denom, (q - g) / denom, (q + 2 - g) / denom
    v0, v1, v2 = 1 + c1 * b, 1 - c2 * b, 1 - c3 * b
    v0 = 0.0 if abs(v0) < 1e-10 else v0
    ratio = 1.0 if abs(1 - a2 / q) < 1e-14 and abs(v1) < 1e-14 else (1 - a2 / q) / v1
    rho = ratio**2 * v0 / (q * v2)
    df2 = 4 + (q + 2) / (q * rho - 1)
    scaling = 1.0 if abs(df2 - 2) < 0.01 else df2 * (1 - a2 / q) / (df2 - 2)
    return float(df2), float(scaling)


def _parameter_matrices(model: MixedResult) -> tuple[np.ndarray, list[sparse.csr_matrix]]:
    """The gammas (per term the lower triangle of its covariance matrix, column-major, as
    pbkrtest reads ``VarCorr``) and each one's E_r, with G_r = Z E_r Z' (pbkrtest's
    ``.get_SigmaG``); the residual variance comes last and is not in the list of E_r."""
    d = model.design
    gammas, mats, off = [], [], 0
    for t, cov in zip(d.terms, d.covariances(model.theta, model.sigma), strict=True):
        rows, cols = np.tril_indices(t.nc)
        order = np.lexsort((rows, cols))  # column-major lower triangle
        base = off + np.arange(t.nlev) * t.nc
        for a, b in zip(rows[order], cols[order], strict=True):
            gammas.append(cov[a, b])
            r = np.concatenate([base + a, base + b]) if a != b else base + a
            c = np.concatenate([base + b, base + a]) if a != b else base + a
            mats.append(sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(d.q, d.q)))
        off += t.nlev * t.nc
    return np.array([*gammas, model.sigma**2]), mats


@one_blas_thread
def kenward_roger(model: MixedResult) -> KenwardRoger:
    """Kenward-Roger's adjusted covariance of a REML fit's fixed effects (pbkrtest
    ``vcovAdj``), computed in the q random effects rather than the n rows.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from acceptability.stats.mixed import lmer
    >>> from acceptability.stats.mixed.fitted.kenward_roger import kenward_roger
    >>> rng = np.random.default_rng(1)
    >>> df = pd.DataFrame({"g": np.repeat(list("abcdef"), 4), "x": np.tile([0.0, 1, 2, 3], 6)})
    >>> df["y"] = df["x"] + np.repeat(rng.normal(size=6), 4) + rng.normal(size=24)
    >>> kr = kenward_roger(lmer("y ~ x + (1 | g)", df))
    >>> bool(np.all(np.diag(kr.vcov_adjusted) >= np.diag(kr.vcov)))
    True
    """
    d = model.design
    if not model.REML:
        raise ValueError("Kenward-Roger's method is only available for REML fits (as in lmerTest "
                         "and pbkrtest): refit with REML=True, or use ddf='Satterthwaite'")
    if d.weights is not None:
        raise ValueError("Kenward-Roger's method here (as pbkrtest's) assumes unit residual weights; "
                         "use ddf='Satterthwaite' for a weighted fit")
    if d.q > MAX_Q:
        raise ValueError(f"Kenward-Roger's method needs dense {d.q} x {d.q} matrices (q = {d.q} random "
                         f"effects, more than {MAX_Q}): use ddf='Satterthwaite'")
    sigma2 = model.sigma**2
    ztz, ztx, xtx = d.crossprods(dense=True)
    lt = d.lambdat(model.theta, dense=True)
    a = lt @ ztz @ lt.T + np.eye(d.q)
    m = lt.T @ linalg.cho_solve(linalg.cho_factor(a, lower=True), lt)  # Lambda A^-1 Lambda'
    i_k = np.eye(d.q) - ztz @ m  # I - K
    u, v = i_k @ ztz / sigma2, i_k @ ztx / sigma2  # Z'SZ, Z'SX
    zs2z, zs2x = i_k @ u / sigma2, i_k @ v / sigma2  # Z'S^2Z, Z'S^2X
    # S X = (X + Z c) / sigma^2 with c = -M Z'X: X'S^2X and X'S^3X = (SX)' S (SX) from
    # (X + Zc)'(X + Zc) and Z'(X + Zc)
    zc = ztx - ztz @ m @ ztx
    cc = xtx - 2 * ztx.T @ m @ ztx + ztx.T @ m @ ztz @ m @ ztx
    xs2x, xs3x = cc / sigma2**2, (cc - zc.T @ m @ zc) / sigma2**3
    kk = ztz @ m
    trace_s2 = (d.n - 2 * np.trace(kk) + np.sum(kk * kk.T)) / sigma2**2

    gammas, mats = _parameter_matrices(model)
    k = len(gammas)
    eu = [e @ u for e in mats]
    ev = [e @ v for e in mats]
    P = [-(v.T @ e) for e in ev] + [-xs2x]
    ktrace = np.empty((k, k))
    Q: dict[tuple[int, int], np.ndarray] = {}
    for r in range(k):
        for s in range(r, k):
            if s < k - 1:  # two random-effect parameters
                ktrace[r, s] = np.sum(eu[r] * eu[s].T)
                Q[r, s] = ev[r].T @ u @ ev[s]
            elif r < k - 1:  # a random-effect parameter and the residual variance
                ktrace[r, s] = np.sum(mats[r].multiply(zs2z))
                Q[r, s] = ev[r].T @ zs2x
            else:
                ktrace[r, s] = trace_s2
                Q[r, s] = xs3x
            ktrace[s, r] = ktrace[r, s]
    phi = model.vcov.to_numpy()
    info = np.empty((k, k))
    for r in range(k):
        phi_p = phi @ P[r]
        for s in range(r, k):
            info[r, s] = info[s, r] = (ktrace[r, s] - 2 * np.sum(phi * Q[r, s])
                                       + np.sum(phi_p * (P[s] @ phi)))
    w = 2 * (np.linalg.solve(info, np.eye(k)) if np.min(np.abs(np.linalg.eigvalsh(info))) > 1e-10
             else np.linalg.pinv(info))
    uu = np.zeros_like(phi)
    for r in range(k):
        for s in range(r + 1, k):
            uu += w[r, s] * (Q[r, s] - P[r] @ phi @ P[s])
    uu = uu + uu.T
    for r in range(k):
        uu += w[r, r] * (Q[r, r] - P[r] @ phi @ P[r])
    return KenwardRoger(phi, phi + 2 * phi @ uu @ phi, P, w)
