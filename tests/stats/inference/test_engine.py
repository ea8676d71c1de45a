"""The resampling engine: its draws, intervals and p-values are scipy's and statsmodels'
(bit for bit where the computation is theirs), whatever the block size; the old keyword
``n=`` for the resample count still works, with a warning, and gives the same numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests

from acceptability.stats.inference import (
    adjust_p,
    bootstrap_p,
    mean_resamples,
    percentile_interval,
    resample,
)
from acceptability.stats.inference.engine import block_size, index_blocks


def _two_means(x, y, axis=-1):
    """A statistic of two samples with two cells (as the dataset statistics have)."""
    return np.stack([x.mean(axis=axis), np.median(y, axis=axis) - x.mean(axis=axis)])


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("batch", [None, 7])
def test_resample_is_scipy_bootstrap_bit_for_bit(method, batch):
    """Same generator, same draws (per block, per sample), same interval: the engine
    replaced scipy.stats.bootstrap without moving a number."""
    rng = np.random.default_rng(11)
    samples = (rng.normal(size=23), rng.gamma(2.0, size=17))
    ours = resample(samples, _two_means, n_boot=301, ci=0.9, method=method, seed=5, batch=batch)
    theirs = sps.bootstrap(samples, _two_means, n_resamples=301, confidence_level=0.9,
                           method="BCa" if method == "bca" else "percentile", batch=batch,
                           vectorized=True, rng=np.random.default_rng(5))
    assert np.array_equal(ours.distribution, theirs.bootstrap_distribution)
    assert np.array_equal(ours.lower, theirs.confidence_interval.low)
    assert np.array_equal(ours.upper, theirs.confidence_interval.high)
    assert np.array_equal(ours.se, theirs.standard_error)
    assert np.array_equal(ours.estimate, _two_means(*samples))


def test_one_samples_draws_do_not_depend_on_the_block_size():
    """One sample (the cluster bootstrap): the same resamples in blocks of any size, so
    bounding memory moves no number. Several samples (strata) are drawn per block, per
    sample, as scipy draws them."""
    def draws(sizes, block):
        blocks = list(index_blocks(np.random.default_rng(3), sizes, 700, block))
        assert blocks[-1][0].stop == 700
        return [np.concatenate(i) for i in zip(*(idx for _, idx in blocks), strict=True)]

    whole = draws([1000], None)[0]
    assert whole.shape == (700, 1000) and whole.max() == 999
    for block in (1, 64, 699):
        assert np.array_equal(draws([1000], block)[0], whole)
    rng = np.random.default_rng(3)
    first = [rng.integers(0, 5, (64, 5)), rng.integers(0, 9, (64, 9))]
    assert all(np.array_equal(a, b[:64]) for a, b in zip(first, draws([5, 9], 64), strict=True))
    assert block_size(10**6) == 16 and block_size(10, 50) == 50 and block_size(5, None) is None


def test_mean_resamples_is_the_paired_stratum_bootstrap():
    """Rows resampled with replacement, every column from the same rows; the draws of the
    hand-written loop the benchmark accuracies used (blocks of 250), any block size."""
    values = np.random.default_rng(0).random((40, 3))
    rng = np.random.default_rng(9)
    expected = np.concatenate([values[rng.integers(0, 40, (b, 40))].mean(axis=1)
                               for b in (250, 250, 100)])
    for batch in (2_000, 250, 33):
        assert np.array_equal(mean_resamples(values, 600, 9, batch=batch), expected)
    shared = np.random.default_rng(1)  # a generator is drawn from in turn, as given
    first, second = mean_resamples(values, 5, shared), mean_resamples(values, 5, shared)
    assert not np.array_equal(first, second)


def test_percentile_interval_is_scipys_and_omits_nan_on_request():
    dist = np.random.default_rng(2).normal(size=(4, 999))
    lower, upper = percentile_interval(dist, 0.9)
    alpha = (1 - 0.9) / 2  # as scipy.stats.bootstrap computes it
    q = sps.quantile(dist, np.array([alpha, 1 - alpha]), axis=-1)
    assert np.array_equal(lower, q[:, 0]) and np.array_equal(upper, q[:, 1])
    dist[1, :10] = np.nan
    lower, upper = percentile_interval(dist, 0.9)
    assert np.isnan(lower[1]) and np.isnan(upper[1]) and not np.isnan(lower[[0, 2, 3]]).any()
    kept = pd.DataFrame(dist.T).quantile([alpha, 1 - alpha]).T.to_numpy()
    np.testing.assert_allclose(np.column_stack(percentile_interval(dist, 0.9, "omit")), kept,
                               rtol=1e-14)


def test_bootstrap_p_by_hand():
    """(1 + the smaller count of resamples <= 0 and >= 0) * 2 / (n + 1), at most 1; NaN
    where a resample is undefined."""
    dist = np.array([[0.5] * 95 + [-0.5] * 4, [1.0] * 99, [0.0] * 99, [np.nan] + [1.0] * 98])
    p, p_min = bootstrap_p(dist)
    assert p_min == 2 / 100
    np.testing.assert_array_equal(p[:3], [5 * 0.02, 0.02, 1.0])
    assert np.isnan(p[3])


def test_adjust_p_is_statsmodels_over_the_p_values_there_are():
    p = np.array([0.01, np.nan, 0.04, 0.03, 0.2])
    for method in ("holm", "fdr_bh"):
        out = adjust_p(p, method)
        assert np.isnan(out[1])
        np.testing.assert_array_equal(out[[0, 2, 3, 4]],
                                      multipletests(p[[0, 2, 3, 4]], method=method)[1])
    assert np.isnan(adjust_p(np.array([np.nan, np.nan]))).all()


