"""The one place bootstrap resamples are drawn (Efron & Tibshirani 1993, ch. 6).

Every resampling of the package comes here: ``bootstrap`` and ``compare_all`` resample
the units of a dataset (clustered, or stratified within groups and clusters: one sample
of unit codes per stratum), ``accuracy`` the pairs within each paradigm (paired over the
systems judged on them). Indices are drawn by `index_blocks`, block by block so that
memory stays bounded, in ``scipy.stats.bootstrap``'s order (per block, per sample,
``rng.integers(0, n, (block, n))``): the same seed gives scipy's resamples, and for one
sample (a cluster bootstrap) the same resamples whatever the block size. Intervals and
p-values come from ``stats.inference.intervals`` and ``stats.inference.pvalues``.

Written here rather than calling ``scipy.stats.bootstrap``: scipy draws and discards its
indices, and one engine must hand the same draws to every caller (paired comparisons of
models, the BLiMP accuracies' paired systems), which scipy's interface does not allow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from acceptability.stats.arguments import (
    INTERVALS,
    MAX_N_BOOT,
    check_choice,
    check_ci,
    check_n_boot,
    check_seed,
    check_whole,
)
from acceptability.stats.defaults import DEFAULT_SEED
from acceptability.stats.inference.intervals import bca_levels, interval, percentile_levels

# at most this many float64 values per block of resamples: 128 MB, e.g. 250 resamples of
# BLiMP's 67,000 pairs when each paradigm is resampled by its pairs
CELLS_PER_BLOCK = 2**24

Seed = int | np.random.Generator | None
Statistic = Callable[..., np.ndarray]


def block_size(per_resample: int, batch: int | None = 2_000) -> int | None:
    """Resamples drawn at once: at most ``batch``, and few enough that a block's
    (resamples x ``per_resample``) float64 values stay within `CELLS_PER_BLOCK`.
    ``batch=None``: all at once (returns None).

    Examples
    --------
    >>> from acceptability.stats.inference.engine import block_size
    >>> block_size(236), block_size(67_000), block_size(10, None)
    (2000, 250, None)
    """
    if batch is None:
        return None
    return max(1, min(batch, CELLS_PER_BLOCK // max(per_resample, 1)))


def index_blocks(rng: np.random.Generator, sizes: Sequence[int], n_boot: int,
                 block: int | None = None) -> Iterator[tuple[slice, list[np.ndarray]]]:
    """Resample indices, one block at a time: for each block of resamples (``block``;
    None: all ``n_boot`` at once) its position in the ``n_boot`` resamples and, per
    sample of ``sizes``, a (resamples x size) array of indices drawn with replacement.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference.engine import index_blocks
    >>> [(part, [i.shape for i in idx]) for part, idx in
    ...  index_blocks(np.random.default_rng(0), [3, 5], n_boot=5, block=4)]
    [(slice(0, 4, None), [(4, 3), (4, 5)]), (slice(4, 5, None), [(1, 3), (1, 5)])]
    """
    step = block or n_boot or 1
    for start in range(0, n_boot, step):
        size = min(step, n_boot - start)
        yield slice(start, start + size), [rng.integers(0, n, (size, n)) for n in sizes]


@dataclass(frozen=True)
class Resamples:
    """A statistic's bootstrap results, one entry per cell (the statistic's first axis):
    ``estimate`` on the data, ``distribution`` (cells x resamples), its standard
    deviation ``se`` and the interval ``lower``, ``upper``."""

    estimate: np.ndarray
    distribution: np.ndarray
    se: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def resample(samples: Sequence[np.ndarray], statistic: Statistic, n_boot: int,
             ci: float = 0.95, method: str = "percentile", seed: Seed = DEFAULT_SEED,
             batch: int | None = None) -> Resamples:
    """Bootstrap ``statistic`` over ``samples``, each resampled on its own (a
    stratified bootstrap when there are several).

    Parameters
    ----------
    samples
        1-d arrays of at least two observations each (for a dataset: unit codes).
    statistic
        ``statistic(*resampled)``: each resampled sample (resamples x size), or the
        samples themselves, to an array (cells x resamples), or (cells,) on the data.
    n_boot
        Number of resamples, 20 to 1,000,000 (`stats.arguments.check_n_boot`).
    ci, method
        Interval level (between 0 and 1) and method, ``"percentile"`` or ``"bca"`` (Efron 1987; the
        acceleration by jackknife over each sample's observations).
    seed
        For ``numpy.random.default_rng`` (a Generator is used as is).
    batch
        Resamples evaluated at once (None: all).

    Returns
    -------
    Resamples
        Estimate, distribution, standard error and interval of every cell; the same
        numbers as ``scipy.stats.bootstrap`` with the same generator.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference import resample
    >>> x = np.arange(10.0)
    >>> res = resample([x], lambda s: s.mean(axis=-1)[None], n_boot=200, seed=1)
    >>> res.distribution.shape, float(res.estimate[0])
    ((1, 200), 4.5)
    >>> round(float(res.lower[0]), 2), round(float(res.upper[0]), 2)
    (2.69, 6.4)
    """
    method, n_boot = check_choice("method", method, INTERVALS, lower=True), check_n_boot(n_boot)
    ci, seed = check_ci(ci), check_seed(seed)
    samples = [np.asarray(s) for s in samples]
    if not samples or min(len(s) for s in samples) < 2:
        raise ValueError("each sample must hold two or more observations to resample")
    rng = np.random.default_rng(seed)
    dist = np.concatenate([statistic(*(s[i] for s, i in zip(samples, idx, strict=True)))
                           for _, idx in index_blocks(rng, [len(s) for s in samples], n_boot,
                                                      batch)], axis=-1)
    estimate = statistic(*samples)
    levels = (bca_levels(samples, statistic, estimate, dist, ci, batch)
              if method == "bca" else percentile_levels(ci))
    lower, upper = interval(dist, levels)
    return Resamples(estimate, dist, np.std(dist, ddof=1, axis=-1), lower, upper)


def mean_resamples(values: np.ndarray, n_boot: int, seed: Seed = DEFAULT_SEED,
                   batch: int | None = 2_000) -> np.ndarray:
    """Column means of ``values`` (rows x columns) over ``n_boot`` resamples of its rows,
    every column drawn from the same rows (a paired bootstrap), (resamples x columns).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference import mean_resamples
    >>> values = np.array([[1.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> dist = mean_resamples(values, n_boot=500, seed=0)
    >>> dist.shape, bool(np.all((dist >= 0) & (dist <= 1)))
    ((500, 2), True)
    """
    n_boot = check_whole("n_boot", n_boot, 1, MAX_N_BOOT)
    rng = np.random.default_rng(check_seed(seed))
    out = np.empty((n_boot, values.shape[1]))
    for part, (idx,) in index_blocks(rng, [len(values)], n_boot,
                                     block_size(values.size, batch)):
        out[part] = values[idx].mean(axis=1)
    return out
