"""The bootstrap at scale (issue 30, item 12): per-cluster statistics and step sums give
the row-level bootstrap's numbers (the intervals of the code before, pinned), the step
sums' windows are exact whatever the thresholds, and a replicated dataset (new clusters
per copy, as benchmarks/bench_scale.py builds it) keeps every metric."""

from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from acceptability.stats import deltas
from acceptability.stats.deltas import model_grid, positions, sentence_and_pair_frames
from acceptability.stats.inference.arrays import MetricArrays, metric_names
from acceptability.stats.inference.resample import counts_from_indices, resampling_units
from acceptability.stats.metric_sums import StepSums
from acceptability.stats.zscore import zscore
from tests.conftest import REPO

HERE = REPO / "tests" / "stats" / "inference"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_scale",
                                                  REPO / "benchmarks" / "bench_scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_intervals_equal_the_row_level_bootstrap_before(li_adger, li_adger_scores):
    # li_adger_intervals_before.csv: evaluate(ci=True, n_boot=1000, seed=0) by the code
    # before the per-cluster statistics (commit 77f781a), which summed over rows: the same
    # draws give the same intervals up to the order of float sums
    before = pd.read_csv(HERE / "li_adger_intervals_before.csv").set_index("model")
    now = stats.evaluate(li_adger, li_adger_scores, ci=True, n_boot=1000, seed=0)
    now = now.set_index("model")[before.columns]
    assert list(now.index) == list(before.index)
    np.testing.assert_allclose(now.to_numpy(float), before.to_numpy(float), rtol=0, atol=1e-9)


def _brute(counts, units, x, v, t):
    return ((counts[:, units] * v) * (x[None, :] < t[:, None])).sum(1)


def test_step_sums_are_exact_block_after_block():
    rng = np.random.default_rng(5)
    units, v = rng.integers(0, 30, 400), rng.normal(size=400)
    x = np.round(rng.normal(1.0, 0.05, 400), 3)  # ties, and thresholds equal to breakpoints
    x[:4] = [-np.inf, np.inf, np.nan, 1.0]
    steps = StepSums(units, x, v, 30, t0=1.0)
    for spread in (0.001, 0.02, 0.0, 0.1):  # the window widens when a block leaves it
        counts = rng.integers(0, 3, (50, 30)).astype(float)
        t = np.round(rng.normal(1.0, spread, 50), 3)
        t[0] = np.nan  # a resample without z-scores: no correction
        got = counts @ steps.base + steps.correction(counts, t)
        want = _brute(counts, units, x, v, np.where(np.isnan(t), 1.0, t))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_positions_and_counts():
    assert positions(pd.Series(["a", "b", "c"], dtype="str"), ["c", "x", "a", None]).tolist() \
        == [2, -1, 0, -1]
    idx = np.random.default_rng(0).integers(0, 7, (5, 9))
    rows = np.arange(5)[:, None] * 7
    expected = np.bincount((rows + idx).ravel(), minlength=35).reshape(5, 7)
    assert np.array_equal(counts_from_indices(idx, 7), expected)


@pytest.fixture(scope="module")
def tripled(li_adger, li_adger_scores):
    return _bench().replicate(li_adger, li_adger_scores, 3)


def test_replicated_copies_keep_every_metric(li_adger, li_adger_scores, tripled):
    # three copies have the same mean and SD, hence the same z-scores and metrics
    one = stats.evaluate(li_adger, li_adger_scores).set_index("model")
    three = stats.evaluate(*tripled).set_index("model")
    names = metric_names()
    np.testing.assert_allclose(three[names].to_numpy(float), one[names].to_numpy(float),
                               rtol=0, atol=1e-12)
    assert (three["n_pairs"] == 3 * one["n_pairs"]).all()
    units = resampling_units(tripled[0])
    assert units.n == 3 * resampling_units(li_adger).n and units.types_nested
    arrays = MetricArrays(*tripled, units, names)
    whole = arrays(np.ones((1, units.n)))[:, :, 0]
    np.testing.assert_allclose(whole, one.loc[arrays.models, names].to_numpy(float),
                               rtol=0, atol=1e-12)


def test_frames_of_one_z_scoring(tripled):
    sent, pairs = sentence_and_pair_frames(*tripled)
    pd.testing.assert_frame_equal(sent, stats.sentence_frame(*tripled))
    pd.testing.assert_frame_equal(pairs, stats.pair_deltas(*tripled))
    models, grid = model_grid(*tripled)
    wide = sent.pivot(index="sentence_id", columns="model", values="z").reindex(
        index=tripled[0].sentences["sentence_id"], columns=models)
    np.testing.assert_array_equal(grid["z"], wide.to_numpy(float))


def test_evaluate_with_intervals_z_scores_once(monkeypatch):
    """The table and the bootstrap's arrays share one z-scoring (3.3 million score rows
    at 100x: 2 s each); a later call z-scores afresh."""
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return zscore(*args, **kwargs)

    monkeypatch.setattr(deltas, "zscore", counted)
    ds, scores = data.load_example()
    stats.evaluate(ds, scores, ci=True, n_boot=20)
    assert len(calls) == 1
    stats.evaluate(ds, scores)
    assert len(calls) == 2
