"""Bootstrap intervals from a bootstrap distribution: percentile and BCa (Efron 1987;
Efron & Tibshirani 1993, secs. 13.3, 14.3 and eq. 14.15). The quantiles are
``scipy.stats.quantile``'s (linear interpolation), the BCa levels follow
``scipy.stats.bootstrap``'s computation step by step, so both give scipy's numbers."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats as sps
from scipy.special import ndtr, ndtri

from acceptability.stats.arguments import check_ci

Levels = tuple[np.ndarray, np.ndarray]


def percentile_levels(ci: float) -> Levels:
    """The quantile levels ((1 - ci) / 2, (1 + ci) / 2) of a two-sided ``ci`` interval.

    Examples
    --------
    >>> from acceptability.stats.inference.intervals import percentile_levels
    >>> [round(float(q), 9) for q in percentile_levels(0.9)]
    [0.05, 0.95]
    """
    alpha = np.asarray((1 - ci) / 2, dtype=float)
    return alpha, 1 - alpha


def interval(dist: np.ndarray, levels: Levels,
             nan_policy: str = "propagate") -> tuple[np.ndarray, np.ndarray]:
    """The ``levels`` quantiles of each row of ``dist`` (cells x resamples; levels scalar
    or one per cell); a row holding NaN gives NaN (``nan_policy="omit"``: drops them).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference.intervals import interval
    >>> dist = np.array([np.arange(11.0), np.arange(11.0) * 2])
    >>> lower, upper = interval(dist, (np.array([0.1, 0.2]), np.array([0.9, 0.8])))
    >>> lower.tolist(), upper.tolist()
    ([1.0, 4.0], [9.0, 16.0])
    """
    q = sps.quantile(dist, np.stack(levels, axis=-1), axis=-1, nan_policy=nan_policy)
    return q[..., 0], q[..., 1]


def percentile_interval(dist: np.ndarray, ci: float = 0.95,
                        nan_policy: str = "propagate") -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval of level ``ci`` of each row of a bootstrap distribution.

    Parameters
    ----------
    dist
        Resampled values, (resamples,) or (cells x resamples).
    ci
        Confidence level.
    nan_policy
        ``"propagate"`` (a row holding NaN has no interval) or ``"omit"`` (drop NaN).

    Returns
    -------
    lower, upper
        The (1 - ci) / 2 and (1 + ci) / 2 quantiles (linear interpolation), per row.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference import percentile_interval
    >>> lower, upper = percentile_interval(np.arange(101.0), ci=0.9)
    >>> round(float(lower), 9), round(float(upper), 9)
    (5.0, 95.0)
    """
    return interval(dist, percentile_levels(check_ci(ci)), nan_policy)


def _jackknife(samples: Sequence[np.ndarray], statistic: Callable, batch: int | None
               ) -> list[np.ndarray]:
    """Per sample, the statistic with each of its observations left out in turn (the
    other samples whole), (cells x observations)."""
    out = []
    for j, sample in enumerate(samples):
        n = len(sample)
        step = batch or n
        parts = []
        for k in range(0, n, step):
            rows = min(step, n - k)
            keep = np.ones((rows, n), dtype=bool)
            np.fill_diagonal(keep[:, k:k + rows], False)
            left = np.broadcast_to(np.arange(n), (rows, n))[keep].reshape(rows, n - 1)
            args = [sample[left] if i == j else np.broadcast_to(s, (rows, len(s)))
                    for i, s in enumerate(samples)]
            parts.append(statistic(*args))
        out.append(np.concatenate(parts, axis=-1))
    return out


def bca_levels(samples: Sequence[np.ndarray], statistic: Callable, estimate: np.ndarray,
               dist: np.ndarray, ci: float, batch: int | None = None) -> Levels:
    """The BCa interval's quantile levels per cell: bias correction z0 from the share of
    resamples below the estimate, acceleration from the jackknife over each sample's
    observations (Efron & Tibshirani 1993, eqs. 14.14-14.15).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference.intervals import bca_levels
    >>> x = np.array([1.0, 2.0, 2.5, 3.0, 9.0])
    >>> def mean(s):
    ...     return s.mean(axis=-1)[None]
    >>> dist = mean(x[np.random.default_rng(0).integers(0, 5, (500, 5))])
    >>> low, high = bca_levels([x], mean, mean(x), dist, 0.9)
    >>> bool(low[0] > 0.05 and high[0] > 0.95)  # skewed data shift the levels up
    True
    """
    theta = np.expand_dims(estimate, axis=-1)
    below = np.count_nonzero(dist < theta, axis=-1) + np.count_nonzero(dist <= theta, axis=-1)
    z0 = ndtri(below.astype(theta.dtype) / (2 * dist.shape[-1]))
    jack = _jackknife(samples, statistic, batch)
    n = [float(j.shape[-1]) for j in jack]
    u = [(m - 1) * (np.mean(j, axis=-1, keepdims=True) - j) for j, m in zip(jack, n, strict=True)]
    skew = sum(np.sum(x**3, axis=-1) / m**3 for x, m in zip(u, n, strict=True))
    spread = sum(np.sum(x**2, axis=-1) / m**2 for x, m in zip(u, n, strict=True))
    a = 1 / 6 * skew / spread ** (3 / 2)
    z = float(ndtri((1 - ci) / 2))
    return (ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))),
            ndtr(z0 + (z0 - z) / (1 - a * (z0 - z))))
