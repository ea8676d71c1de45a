"""Bootstrap p-values and their multiplicity corrections.

The two-sided p-value of a resampled difference is the standard Monte Carlo p-value
(1 + count) / (n + 1) (Davison & Hinkley 1997, ch. 4) of the resamples on the far side
of 0, doubled; corrections for many comparisons are ``statsmodels``' (Holm 1979,
Benjamini & Hochberg 1995, or any ``multipletests`` method).
"""

from __future__ import annotations

import numpy as np
from statsmodels.stats.multitest import multipletests


def bootstrap_p(dist: np.ndarray) -> tuple[np.ndarray, float]:
    """Two-sided bootstrap p-value that each row of ``dist`` (cells x resamples) centres
    on 0, and the resolution ``p_min`` = 2 / (n + 1) of n resamples.

    Parameters
    ----------
    dist
        Resampled differences, (cells x resamples).

    Returns
    -------
    p : numpy.ndarray
        Per row (1 + the smaller of the counts <= 0 and >= 0) * ``p_min``, at most 1;
        NaN where a resample is not finite (an undefined difference counts as neither
        side and would give the smallest p).
    p_min : float
        The smallest p that n resamples can give.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference import bootstrap_p
    >>> dist = np.array([np.linspace(0.1, 1, 99), np.linspace(-1, 1, 99)])
    >>> p, p_min = bootstrap_p(dist)
    >>> p.round(3).tolist(), p_min
    ([0.02, 1.0], 0.02)
    """
    dist = np.atleast_2d(dist)
    below, above = (dist <= 0).sum(axis=-1), (dist >= 0).sum(axis=-1)
    p_min = 2 / (dist.shape[-1] + 1)
    p = np.where(np.isfinite(dist).all(axis=-1),
                 np.minimum(1.0, (1 + np.minimum(below, above)) * p_min), np.nan)
    return p, p_min


def adjust_p(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """p-values corrected for multiple comparisons over those that are not NaN.

    Parameters
    ----------
    p
        p-values, NaN where a comparison has none.
    method
        ``"holm"``, ``"fdr_bh"`` or any ``statsmodels.stats.multitest.multipletests``
        method.

    Returns
    -------
    numpy.ndarray
        The corrected p-values, NaN where ``p`` is.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference import adjust_p
    >>> adjust_p(np.array([0.01, np.nan, 0.04, 0.03])).round(2).tolist()
    [0.03, nan, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    tested = ~np.isnan(p)
    if tested.any():
        out[tested] = multipletests(p[tested], method=method)[1]
    return out
