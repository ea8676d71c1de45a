"""lme4's profiled deviance of a linear mixed model and its analytic gradient in ``theta``,
computed by blocks, for the optimiser of [fit_theta][acceptability.stats.mixed.lmm.pls.fit_theta].

The deviance is Bates, Mächler, Bolker & Walker (2015), J. Stat. Softw. 67(1), eq. 34 (ML)
and eq. 41 (REML), from the PLS solution at ``theta`` (eqs. 25-31), with
``A = Lambda' G Lambda + I`` and ``G = Z'WZ`` (``W`` the prior weights; the cross
products are the design's, those [pls][acceptability.stats.mixed.lmm.pls] uses). Its gradient, with ``r`` the residual,
``u`` the spherical random effects, ``F = Z' V^-1 X = Z'X - G Lambda A^-1 Lambda' Z'X``,
``R_X'R_X = X' V^-1 X`` and ``V = I + Z Lambda Lambda' Z'`` (derivatives of the Gaussian
log-likelihood as in Wolfinger, Tobias & Sall 1994, SIAM J. Sci. Comput. 15(6)):

- ``d log|A| = 2 tr(G Lambda A^-1 dLambda')``,
- ``d pwrss = -2 r' Z dLambda u`` (the PLS solution is a minimum: envelope theorem),
- ``d log|R_X'R_X| = -2 tr((R_X'R_X)^-1 F' dLambda Lambda' F)`` (REML),

so that each derivative in one element of a term's ``T_k`` needs only the diagonal
``nc x nc`` blocks, level by level, of ``G Lambda A^-1``, ``Z'r u'`` and ``F F'``. ``A`` is
split after the first term, whose block of ``A`` is block diagonal (one block per level),
as in [pls][acceptability.stats.mixed.lmm.pls]; the rest (``q2`` columns) is held dense, so a
design whose later terms have many levels is left to the numerical gradient. A small ``q``
(``dense=True``) is computed with one dense ``A`` and its inverse: fewer numpy calls.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from scipy.linalg import lapack

from acceptability.stats.mixed.design import MixedDesign

__all__ = ["MAX_DENSE", "ProfiledDeviance"]

MAX_DENSE = 1500  # most columns of the terms after the first held dense (q2)

_LOG2PI = np.log(2 * np.pi)


def _chol(a: np.ndarray) -> np.ndarray:
    """Lower Cholesky factor by LAPACK directly, without scipy's per-call checks (as
    [pls][acceptability.stats.mixed.lmm.pls] factors a dense A)."""
    low, info = lapack.dpotrf(a, lower=1, clean=1)
    if info:
        raise np.linalg.LinAlgError(f"A is not positive definite (leading minor {info})")
    return low


def _cho_solve(low: np.ndarray, b: np.ndarray) -> np.ndarray:
    return lapack.dpotrs(low, b, lower=1)[0]


def _bdot(t: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``T' m_l`` for each level's block ``m_l`` of ``m`` (levels first)."""
    return np.einsum("ji,ljk->lik", t, m)


class ProfiledDeviance:
    """The profiled deviance (REML criterion) of ``design`` and its gradient in theta.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> from acceptability.stats.mixed.lmm.pls_gradient import ProfiledDeviance
    >>> df = pd.DataFrame({"y": [1.0, 2.4, 2.9, 4.6, 5.1, 6.5], "x": [1, 2, 3, 4, 5, 6],
    ...                    "g": list("aabbcc")})
    >>> dev = ProfiledDeviance(model_design("y ~ x + (1 | g)", df), reml=False)
    >>> value, grad = dev([0.5])
    >>> h = 1e-6  # the gradient against a central difference
    >>> round(value, 4), round(float(grad[0]), 4), round((dev([0.5 + h])[0] - dev([0.5 - h])[0]) / (2 * h), 4)
    (0.781, 3.1043, 3.1043)
    """

    def __init__(self, d: MixedDesign, reml: bool, y: np.ndarray | None = None,
                 offset: np.ndarray | None = None, dense: bool = False) -> None:
        self.d, self.reml, self.dense = d, reml, dense
        first = d.terms[0]
        self.n1, self.c1 = first.nlev, first.nc
        self.q1 = self.n1 * self.c1
        self.q2 = d.q - self.q1
        ztz, ztx, xtx = d.crossprods(dense=dense)
        if y is None and offset is None:  # the cross products of pls.pls, prior weights in
            zty, self.xty, self.yty, _ = d.response_crossprods
        else:
            yy = (d.y if y is None else y) - (0 if offset is None else offset)
            zty, self.xty, self.yty, _ = d.weighted_crossprods(yy)
        self.xtx = xtx
        self.ztr = np.column_stack([zty, ztx])  # Z'[c | X], c the centred response
        if dense:  # small q: A as one dense matrix (fewer numpy calls than blocks)
            self.g = ztz
            return
        coo = ztz.tocsr()[:self.q1, :self.q1].tocoo()
        self.g11 = np.zeros((self.n1, self.c1, self.c1))
        np.add.at(self.g11, (coo.row // self.c1, coo.row % self.c1, coo.col % self.c1), coo.data)
        if self.q2:
            self.g12 = ztz[:self.q1, self.q1:].toarray()
            self.g22 = ztz[self.q1:, self.q1:].toarray()

    def _lambda2(self, parts: list[np.ndarray]) -> np.ndarray:
        """Lambda of the terms after the first (dense, q2 x q2)."""
        return linalg.block_diag(*[np.kron(np.eye(t.nlev), low)
                                   for t, low in zip(self.d.terms[1:], parts, strict=True)])

    def _times_g(self, x: np.ndarray) -> np.ndarray:
        """``G x`` for a (q, m) array."""
        if self.dense:
            return self.g @ x
        x1 = x[:self.q1].reshape(self.n1, self.c1, -1)
        out1 = np.matmul(self.g11, x1).reshape(self.q1, -1)
        if not self.q2:
            return out1
        x2 = x[self.q1:]
        return np.vstack([out1 + self.g12 @ x2, self.g12.T @ x[:self.q1] + self.g22 @ x2])

    def _level_sums(self, x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
        """Per term, the sum over its levels of ``x_l y_l'`` (``x_l``: the level's rows)."""
        out, off = [], 0
        x, y = x.reshape(self.d.q, -1), y.reshape(self.d.q, -1)
        for t in self.d.terms:
            width = t.nlev * t.nc
            xs = x[off:off + width].reshape(t.nlev, t.nc, -1)
            ys = y[off:off + width].reshape(t.nlev, t.nc, -1)
            out.append(np.einsum("lim,ljm->ij", xs, ys))
            off += width
        return out

    def _diag_block_sums(self, m: np.ndarray) -> list[np.ndarray]:
        """Per term, the sum over its levels of the level's diagonal block of ``m`` (q x q)."""
        out, off = [], 0
        for t in self.d.terms:
            width = t.nlev * t.nc
            sub = m[off:off + width, off:off + width].reshape(t.nlev, t.nc, t.nlev, t.nc)
            out.append(np.einsum("lilj->ij", sub))
            off += width
        return out

    def _solve(self, theta: np.ndarray, lows: list[np.ndarray]) -> dict[str, object]:
        """The factor of A at ``theta`` and the solution of ``A [cu | cx] = Lambda' Z'[y | X]``."""
        if self.dense:
            lam = self.d.lambdat(theta, dense=True).T
            low = _chol(lam.T @ self.g @ lam + np.eye(self.d.q))
            rhs = lam.T @ self.ztr
            return {"lam": lam, "ainv": _cho_solve(low, np.eye(self.d.q)), "rhs": rhs,
                    "sol": _cho_solve(low, rhs), "logdet": 2 * float(np.sum(np.log(np.diag(low))))}
        n1, c1, q1, t1 = self.n1, self.c1, self.q1, lows[0]
        binv = np.linalg.inv(_bdot(t1, self.g11 @ t1) + np.eye(c1))
        st = {"binv": binv, "logdet": -float(np.sum(np.linalg.slogdet(binv)[1]))}
        rhs1 = _bdot(t1, self.ztr[:q1].reshape(n1, c1, -1))  # Lambda_1' Z_1'[y | X]
        sol1 = (binv @ rhs1).reshape(q1, -1)
        st["rhs"], st["sol"] = rhs1.reshape(q1, -1), sol1
        if not self.q2:
            return st
        lam2 = self._lambda2(lows[1:])
        m12 = _bdot(t1, self.g12.reshape(n1, c1, -1)).reshape(q1, -1)  # Lambda_1' G_12
        a12 = m12 @ lam2
        w = (binv @ a12.reshape(n1, c1, -1)).reshape(q1, -1)  # A_11^-1 A_12
        s_cho = _chol(lam2.T @ self.g22 @ lam2 + np.eye(self.q2) - a12.T @ w)
        rhs2 = lam2.T @ self.ztr[q1:]
        sol2 = _cho_solve(s_cho, rhs2 - a12.T @ sol1)
        st["logdet"] += 2 * float(np.sum(np.log(np.diag(s_cho))))
        st["rhs"], st["sol"] = np.vstack([st["rhs"], rhs2]), np.vstack([sol1 - w @ sol2, sol2])
        st |= {"lam2": lam2, "m12": m12, "w": w, "s_cho": s_cho}
        return st

    def _lambda_times(self, lows: list[np.ndarray], st: dict[str, object], x: np.ndarray) -> np.ndarray:
        """``Lambda x`` for a (q, m) array."""
        if self.dense:
            return st["lam"] @ x
        top = np.matmul(lows[0], x[:self.q1].reshape(self.n1, self.c1, -1)).reshape(self.q1, -1)
        return np.vstack([top, st["lam2"] @ x[self.q1:]]) if self.q2 else top

    def _logdet_blocks(self, lows: list[np.ndarray], st: dict[str, object]) -> list[np.ndarray]:
        """Per term, the sum over levels of the diagonal blocks of ``G Lambda A^-1``, from
        the blocks of ``A^-1``: ``A_11^-1 + W S^-1 W'``, ``-S^-1 W'`` and ``S^-1``, with
        ``W = A_11^-1 A_12`` and ``S`` the Schur complement."""
        if self.dense:
            return self._diag_block_sums(self.g @ st["lam"] @ st["ainv"])
        n1, c1, t1 = self.n1, self.c1, lows[0]
        ainv11 = st["binv"]
        if not self.q2:
            return [np.einsum("lij,jk,lkm->im", self.g11, t1, ainv11)]
        lam2, w, s_cho = st["lam2"], st["w"], st["s_cho"]
        u = _cho_solve(s_cho, w.T)  # S^-1 W' (q2 x q1)
        ur = u.T.reshape(n1, c1, -1)
        ainv11 = ainv11 + np.einsum("liq,ljq->lij", w.reshape(n1, c1, -1), ur)
        first = np.einsum("lij,jk,lkm->im", self.g11, t1, ainv11) - np.einsum(
            "liq,ljq->ij", (self.g12 @ lam2).reshape(n1, c1, -1), ur)
        g22l, s_inv = self.g22 @ lam2, _cho_solve(s_cho, np.eye(self.q2))
        out, off = [first], 0
        for t in self.d.terms[1:]:  # blocks of G_22 Lambda_2 S^-1 - G_21 Lambda_1 S^-1 W'
            rows, shape = slice(off, off + t.nlev * t.nc), (t.nlev, t.nc, -1)
            out.append(np.einsum("liq,ljq->ij", g22l[rows].reshape(shape), s_inv[rows].reshape(shape))
                       - np.einsum("liq,ljq->ij", st["m12"][:, rows].T.reshape(shape), u[rows].reshape(shape)))
            off += t.nlev * t.nc
        return out

    def __call__(self, theta) -> tuple[float, np.ndarray]:
        """(deviance, its gradient) at ``theta``."""
        d, theta = self.d, np.asarray(theta, float)
        lows = [t.lower(th) for t, th in zip(d.terms, d.split_theta(theta), strict=True)]
        st = self._solve(theta, lows)
        rhs, sol = st["rhs"], st["sol"]
        rx, cu, cx = rhs[:, 1:], sol[:, 0], sol[:, 1:]
        xtx = self.xtx - rx.T @ cx
        beta = np.linalg.solve(xtx, self.xty - rx.T @ cu) if d.p else np.zeros(0)
        u = cu - cx @ beta
        pwrss = float(self.yty - u @ rhs[:, 0] - beta @ self.xty)
        m = d.n - d.p if self.reml else d.n
        dev = st["logdet"] + m * (1 + _LOG2PI + np.log(pwrss / m)) - d.log_weights
        h = self.ztr - self._times_g(self._lambda_times(lows, st, sol))  # [Z'y - G Lambda cu | F]
        f = h[:, 1:]
        grads = [2 * q - 2 * m / pwrss * pr for q, pr in zip(
            self._logdet_blocks(lows, st), self._level_sums(h[:, 0] - f @ beta, u), strict=True)]
        if self.reml:
            dev += float(np.linalg.slogdet(xtx)[1]) if d.p else 0.0
            if d.p:
                ff = self._level_sums(f, f @ np.linalg.inv(xtx))
                grads = [g - 2 * r @ low for g, r, low in zip(grads, ff, lows, strict=True)]
        grad = np.concatenate([t.theta_of(g) for t, g in zip(d.terms, grads, strict=True)])
        return float(dev), grad
