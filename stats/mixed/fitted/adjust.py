"""p-value adjustments for a family of contrasts, as emmeans' ``summary(pairs(...), adjust =)``
gives them (Lenth 2016, J. Stat. Softw. 69(1); emmeans' ``.adj.p.value``).

A family is the contrasts of one ``by`` group. ``tukey``: the studentized range of the k
means compared, P(Q_k,df > sqrt(2) |t|) (Tukey 1953; R's ``ptukey``); ``sidak``:
1 - (1 - p)^m; ``bonferroni``: min(1, m p); ``holm``: R's ``p.adjust(method = "holm")``
(Holm 1979); ``mvt``: 1 - P(max_i |T_i| < |t|), T the contrasts' joint t (normal when
df = Inf) distribution with their estimated correlation (Hothorn, Bretz & Westfall 2008;
emmeans calls mvtnorm's ``pmvt``), integrated over the rank of the correlation (pairwise
contrasts of k means have rank k - 1; ``mvt_p``). As
emmeans, each contrast uses its df rounded as ``floor(df + 0.25)``.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import special
from scipy import stats as sps
from scipy.stats import qmc

from acceptability.stats.inference.pvalues import adjust_p as step_adjusted
from acceptability.stats.mixed.fitted.ptukey import tukey_sf

__all__ = ["ADJUST", "adjust_p", "mvt_p"]

ADJUST = ("tukey", "mvt", "sidak", "bonferroni", "holm", "none")
_MVT_POINTS = 2**16
_NODES = 1024


def _two_sided(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    return np.where(np.isinf(df), 2 * sps.norm.sf(t), 2 * sps.t.sf(t, np.where(np.isinf(df), 1, df)))


@cache
def _directions(r: int, points: int) -> np.ndarray:
    """``points`` directions uniform on the unit sphere of R^r: normalised normal
    quantiles of a scrambled Sobol sequence with a fixed seed."""
    z = special.ndtri(qmc.Sobol(r, scramble=True, seed=20240).random(points))
    out = z / np.linalg.norm(z, axis=1, keepdims=True)
    out.flags.writeable = False
    return out


def mvt_p(t: np.ndarray, df: np.ndarray, cov: np.ndarray, points: int = _MVT_POINTS) -> np.ndarray:
    """1 - P(max_i |T_i| < |t_j|) for each contrast j of a family whose estimates have
    covariance ``cov`` (any rank r) and df ``df`` (Inf: normal), by the spherical-radial
    decomposition (Genz & Bretz 2009, section 4.1.3): T = R A u / s with u uniform on the
    unit sphere of R^r, A A' the correlation, R^2 ~ chi^2_r and s^2 ~ chi^2_df / df, so
    given u the probability is that of R^2 / r / s^2 ~ F(r, df) below (|t_j| / max|A u|)^2 / r,
    averaged over u (a scrambled Sobol sequence with a fixed seed: reproducible). That
    probability is smooth and monotone in max|A u|, so it is evaluated at ``_NODES`` of
    the sorted values, denser in the tails, and integrated over the ranks between them
    (piecewise linear: within 5e-6 of the mean over all the points, on random families;
    tests/stats/mixed/test_emmeans.py), 1,025 F evaluations instead of 65,536."""
    sd = np.sqrt(np.diag(cov))
    w, v = np.linalg.eigh(cov / np.outer(sd, sd))
    keep = w > 1e-10 * w.max()
    root = v[:, keep] * np.sqrt(w[keep])  # corr = root @ root.T
    r = root.shape[1]
    reach = np.sort(np.abs(np.einsum("nr,mr->nm", _directions(r, points), root)).max(axis=1))  # no BLAS: thin
    at, weight = _rank_nodes(points)
    out = np.empty(len(t))
    for j, (tj, d) in enumerate(zip(np.abs(t), df, strict=True)):
        x = (tj / reach[at]) ** 2 / r
        d = 0 if np.isinf(d) or d > 9999 else np.floor(max(1.0, d) + 0.25)  # emmeans' .fix.df
        cdf = special.chdtr(r, x * r) if d == 0 else special.fdtr(r, d, x)
        out[j] = 1 - weight @ cdf
    return out


@cache
def _rank_nodes(points: int) -> tuple[np.ndarray, np.ndarray]:
    """Ranks 0..points-1 at which to evaluate a smooth function of the sorted sample
    (Chebyshev-spaced: denser at both ends) and the weights of the mean of its piecewise
    linear interpolation over every rank."""
    at = np.unique(np.round((points - 1) * (1 - np.cos(np.pi * np.arange(_NODES + 1) / _NODES)) / 2).astype(int))
    k = np.arange(points)
    seg = np.minimum(np.searchsorted(at, k, side="right") - 1, len(at) - 2)
    frac = (k - at[seg]) / (at[seg + 1] - at[seg])
    weight = (np.bincount(seg, 1 - frac, len(at)) + np.bincount(seg + 1, frac, len(at))) / points
    return at, weight


def adjust_p(t: np.ndarray, df: np.ndarray, method: str, n_means: int, cov: np.ndarray) -> np.ndarray:
    """Adjusted two-sided p-values of one family of pairwise contrasts (t statistics ``t``,
    df ``df``, covariance of the estimates ``cov``) among ``n_means`` means."""
    t, df = np.abs(np.asarray(t, float)), np.asarray(df, float)
    raw = _two_sided(t, df)
    if method == "none" or not len(t):
        return raw
    if method in ("bonferroni", "holm"):  # statsmodels' multipletests, as stats.compare
        return step_adjusted(raw, method)
    if method == "sidak":  # emmeans' formula (multipletests' expm1 form differs by ~1e-11)
        return 1 - (1 - raw) ** len(t)
    if method == "tukey":
        return raw if n_means <= 2 else tukey_sf(np.sqrt(2) * t, n_means, df)
    if method == "mvt":
        return mvt_p(t, df, cov)
    raise ValueError(f"adjust={method!r}: use one of {', '.join(ADJUST)}")
