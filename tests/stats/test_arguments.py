"""Impossible arguments are refused with the argument's name, the value, what is allowed
and the fix (issue 43, item 9; the seed message of item 13), at every public entry point of
``acceptability.stats`` that takes a level, a number of resamples, a seed or a threshold.
Each case below gave a number (or numpy's bare message) on the code before the check."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from tests.conftest import need_data


@pytest.fixture(scope="module")
def example():
    return data.load_example()


@pytest.mark.parametrize("kwargs, match", [
    (dict(max_delta=0), r"max_delta=0: .*greater than 0"),      # gave adc_area 0.0
    (dict(max_delta=-3), r"max_delta=-3: .*greater than 0"),    # gave 1.09 (> its max 1)
    (dict(max_delta=float("inf")), r"max_delta=inf: "),
    (dict(deltas=(0.5, float("nan"))), r"deltas\[1\]=nan: "),
    (dict(ci=True, n_boot=1), r"n_boot=1: .*needs 20 to 1,000,000"),   # an interval excluding its estimate
    (dict(ci=1.5), r"ci=1.5: .*between 0 and 1"),
    (dict(ci=95), r"ci=95: .*did you mean ci=0.95"),
    (dict(ci=True, seed=-1), r"seed=-1: the seed must be None or a whole number from 0 to "
                             r"4,294,967,295"),
])
def test_evaluate_refuses_impossible_arguments(example, kwargs, match):
    with pytest.raises(ValueError, match=match):
        stats.evaluate(*example, **kwargs)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(ci=-1), ValueError, r"ci=-1: "),       # gave lower above upper
    (dict(ci=1.5), ValueError, r"ci=1.5: "),     # gave NaN intervals
    (dict(ci=0.0), ValueError, r"ci=0.0: "),
    (dict(ci="0.95"), TypeError, r"ci='0.95' \(str\): .*a number"),
    (dict(n_boot=True), TypeError, r"n_boot=True \(bool\): .*whole number"),  # ran 1 resample
    (dict(n_boot=1.5), TypeError, r"n_boot=1.5 \(float\): "),
    (dict(n_boot=0), ValueError, r"n_boot=0: "),
    (dict(n_boot=2**63 - 1), ValueError, r"needs 20 to 1,000,000"),  # ran until killed
    (dict(seed=-1), ValueError, r"seed=-1: the seed must be"),
    (dict(seed=2**32), ValueError, r"seed=4294967296: "),
    (dict(seed=1.0), TypeError, r"seed=1.0 \(float\): "),
    (dict(batch=0), ValueError, r"batch=0: "),
    (dict(metric=5), TypeError, r"metric=5 \(int\): "),  # was "'int' object is not callable"
])
def test_bootstrap_refuses_impossible_arguments(example, kwargs, error, match):
    with pytest.raises(error, match=match):
        kwargs = {"metric": "blimp", "n_boot": 50} | kwargs
        stats.bootstrap(kwargs.pop("metric"), *example, **kwargs)


@pytest.mark.needs_data("lau2020")
def test_rater_reliability_refuses_a_level_above_one():
    table = data.load_lau2020(need_data("lau2020"), context="none").ratings
    with pytest.raises(ValueError, match=r"ci=2: .*between 0 and 1"):  # gave numbers
        stats.rater_reliability(table, ci=2)
    with pytest.raises(ValueError, match=r"n_splits=0: "):
        stats.rater_reliability(table, n_splits=0)
    with pytest.raises(ValueError, match=r"seed=-3: the seed must be"):
        stats.rater_reliability(table, seed=-3)


@pytest.mark.parametrize("call, match", [
    (lambda ds, sc: stats.adc(ds, sc, delta=-1), r"delta=-1: "),
    (lambda ds, sc: stats.adc(ds, sc, delta=float("nan")), r"delta=nan: "),
    (lambda ds, sc: stats.adc_curve(ds, sc, max_delta=float("inf")), r"max_delta=inf: "),
    (lambda ds, sc: stats.adc_curve(ds, sc, deltas=[-1.0]), r"deltas\[0\]=-1.0: "),
    (lambda ds, sc: stats.reduced(ds, sc, "trigram_slor", delta=0), r"delta=0: "),
    (lambda ds, sc: stats.compare_all(ds, sc, "blimp", n_boot=5), r"n_boot=5: "),
    (lambda ds, sc: stats.compare(ds, sc, "trigram_slor", "bert-large-cased_mlm", "blimp",
                                  ci=1.0), r"ci=1.0: "),
    (lambda ds, sc: stats.spearman_brown(0.5, factor=0), r"factor=0: "),
    (lambda ds, sc: stats.resamples_for(3, alpha=1.5), r"alpha=1.5: "),
    (lambda ds, sc: stats.steiger_z(0.5, 0.4, 0.3, n=True), r"n=True \(bool\): "),
    (lambda ds, sc: stats.elo_ratings(np.array([0]), np.array([1]), k=float("nan")), r"k=nan: "),
    (lambda ds, sc: stats.elo_ratings(np.array([0]), np.array([1]), seed=-1), r"seed=-1: "),
    (lambda ds, sc: stats.shallow_predictors(ds, sc, n_bins=0), r"n_bins=0: "),
    (lambda ds, sc: stats.inference.percentile_interval(np.arange(5.0), ci=-0.5), r"ci=-0.5: "),
    (lambda ds, sc: stats.split_half(pd.DataFrame(), n_splits=0), r"n_splits=0: "),
    (lambda ds, sc: stats.learning_slopes(pd.DataFrame(), level=95),
     r"level=95: .*did you mean level=0.95"),
    (lambda ds, sc: stats.accuracy(None, n_boot=5), r"n_boot=5: "),
    (lambda ds, sc: stats.syntaxgym_accuracy(pd.DataFrame(), ds, ci=2), r"ci=2: "),
    (lambda ds, sc: stats.zorro_accuracy(ds, sc, seed=-1), r"seed=-1: the seed must be"),
])
def test_other_entry_points_refuse_impossible_arguments(example, call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call(*example)


def test_the_valid_limits_are_accepted(example):
    from acceptability.stats import arguments

    ds, sc = example
    assert arguments.check_seed(2**32 - 1) == 2**32 - 1
    assert arguments.check_seed(np.int64(7)) == 7
    assert arguments.check_seed(None) is None
    rng = np.random.default_rng(0)
    assert arguments.check_seed(rng) is rng
    assert arguments.check_n_boot(arguments.MIN_N_BOOT) == 20
    assert arguments.check_n_boot(0, allow_zero=True) == 0
    assert arguments.check_ci(np.float32(0.9)) == pytest.approx(0.9)
    table = stats.bootstrap("blimp", ds, sc, n_boot=20, ci=0.5, seed=2**32 - 1)
    assert (table["lower"] <= table["upper"]).all()


@pytest.mark.parametrize("flags, match", [
    (["--seed", "-1"], r"seed.*-1.*0 to 4,294,967,295"),
    (["--n-boot", "1"], r"n_boot.*20 to 1,000,000.*\b1\b"),  # the command line's own check
    (["--n-boot", "19"], r"n_boot.*20 to 1,000,000.*\b19\b"),  # or the statistics'
])
def test_the_command_line_exits_non_zero_with_the_message(flags, match, tmp_path):
    done = subprocess.run([sys.executable, "-m", "acceptability.reports.cli", "evaluate",
                           "--dataset", "example", *flags], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode != 0
    assert re.search(match, done.stderr), done.stderr
    assert "Traceback" not in done.stderr and "unexpected error" not in done.stderr


def test_compare_all_names_the_pairs_without_a_p_value(example):
    """Seed 11: some of 1,000 pair resamples hold no pair that trigram_slor scored, so its
    differences have no p-value and no interval; before, NaN without a word."""
    with pytest.warns(UserWarning, match=r"no bootstrap interval or p-value for 2 pair"):
        table = stats.compare_all(*example, "blimp", n_boot=1000, seed=11, cluster=None)
    assert table["p_boot"].isna().sum() == 2
