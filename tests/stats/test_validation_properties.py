"""Property-based tests of the public statistics' argument and data validation (issue 43,
"Done when"): for arbitrary argument values (NaN, infinities, negatives, huge integers,
bools, strings, None) each call either returns finite, in-range results (intervals with
lower <= estimate <= upper, ADC rates and areas in [0, 1], p-values in [0, 1]) or raises
ValueError/TypeError naming an argument that is out of its range; which arguments are
valid is decided here, by rules written in the test, not by ``stats.arguments``. Tables
with NaN, infinities, text and empty groups either work or raise a DataError/ValueError
with a message. Never another exception type, never a silent NaN or out-of-range number.

Derandomised where CI is set (the same examples every run); 60 examples a test: the file
takes ~10 s (AMD EPYC, 2 cores shared with other work; 500 examples a test, 35 s, passed).
"""

from __future__ import annotations

import importlib
import math
import numbers
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acceptability import data, stats
from acceptability.data import DataError
from tests.conftest import need_data, require_everything
from tests.lme4_data import lme4_data
from tests.stats.mixed.test_ordinal import wine

SETTINGS = settings(max_examples=60, deadline=None, derandomize=require_everything(),
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])
TOL = 1e-12

# Arbitrary values of any argument; each strategy of one argument mixes in valid values.
JUNK = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
                 st.integers(-(2**70), 19), st.integers(10**6 + 1, 2**70), st.text(max_size=4),
                 st.sampled_from([np.nan, np.int64(-1), np.float32(0.5), [0.5], "0.95", 95]))
LEVELS = st.one_of(st.floats(0.01, 0.99), JUNK)
# valid resample counts stay small (20-60) so that the file stays fast; the ceiling of a
# million is checked without running it (test_arguments.py)
N_BOOTS = st.one_of(st.integers(20, 60), st.integers(-(10**6), 19), st.integers(10**6 + 1, 2**80),
                    JUNK)
SEEDS = st.one_of(st.none(), st.integers(0, 2**32 - 1), st.integers(2**32, 2**70),
                  st.integers(-(2**40), -1), JUNK)
DELTAS = st.one_of(st.floats(0.01, 100), st.floats(100.0001, 1e300), JUNK)


def real(x) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def whole(x, low, high) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, (bool, np.bool_)) \
        and low <= x <= high


def level_ok(x) -> bool:
    return real(x) and 0 < x < 1


def delta_ok(x) -> bool:
    return real(x) and math.isfinite(x) and 0 < x <= 100


def seed_ok(x) -> bool:
    return x is None or whole(x, 0, 2**32 - 1)


def boot_ok(x, zero: bool = False, used: bool = True) -> bool:
    return whole(x, 20 if used else 0, 10**6) or (zero and whole(x, 0, 0))


def deltas_ok(x) -> bool:
    return isinstance(x, (list, tuple)) and all(delta_ok(d) for d in x)


def outcome(call, invalid: dict[str, bool]):
    """Run ``call``: None when it raised ValueError/TypeError naming an invalid argument
    (there must be one), else its result (all arguments must then be valid)."""
    bad = [name for name, wrong in invalid.items() if wrong]
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = call()
    except (ValueError, TypeError) as err:
        assert bad, f"refused valid arguments: {err}"
        assert any(f"{name}=" in str(err) or f"{name}[" in str(err) for name in bad), (bad, err)
        return None
    assert not bad, f"accepted invalid {bad}"
    return result, [str(w.message) for w in caught]


def check_intervals(table: pd.DataFrame, estimate: str, lower: str, upper: str,
                    messages: list[str], level: float = 0.95) -> None:
    """Intervals are finite with lower <= upper, and at a level of 0.8 or more hold their
    estimate (a percentile interval is two quantiles of the resamples: a narrow one, such
    as 25%, may miss an estimate in the tail of a skewed, discrete distribution); a
    missing interval is named in a warning."""
    has = table[lower].notna()
    assert (table.loc[has, lower] <= table.loc[has, upper] + TOL).all()
    if level >= 0.8:
        assert (table.loc[has, lower] <= table.loc[has, estimate] + TOL).all()
        assert (table.loc[has, estimate] <= table.loc[has, upper] + TOL).all()
    assert np.isfinite(table.loc[has, [lower, upper]].to_numpy(float)).all()
    missing = ~has & table[estimate].notna()
    assert not missing.any() or any("no bootstrap interval" in m for m in messages)


def check_metrics(table: pd.DataFrame) -> None:
    """Rates and areas in [0, 1], correlations in [-1, 1], SDs >= 0; NaN only with a
    reason in ``excluded_because``."""
    rates = [c for c in table if c == "blimp" or c.startswith("adc_")]
    for cols, low, high in ((rates, 0, 1), (["r_sentence", "r_pair", "mcc"], -1, 1),
                            (["variability"], 0, np.inf)):
        values = table[[c for c in cols if c in table]].to_numpy(float)
        shown = values[~np.isnan(values)]
        assert ((shown >= low - TOL) & (shown <= high + TOL)).all(), cols
    undefined = table[[c for c in rates if not c.endswith(("_lower", "_upper"))]].isna().any(axis=1)
    assert (table.loc[undefined, "excluded_because"] != "").all()


@pytest.fixture(scope="module")
def example():
    return data.load_example()


@SETTINGS
@given(deltas=st.one_of(st.lists(DELTAS, max_size=3), DELTAS), max_delta=DELTAS,
       ci=st.one_of(st.booleans(), LEVELS), n_boot=N_BOOTS, seed=SEEDS)
def test_evaluate(example, deltas, max_delta, ci, n_boot, seed):
    interval = ci is True or (not isinstance(ci, bool) and ci is not None)
    got = outcome(lambda: stats.evaluate(*example, deltas=deltas, max_delta=max_delta, ci=ci,
                                         n_boot=n_boot, seed=seed),
                  {"deltas": not deltas_ok(deltas), "max_delta": not delta_ok(max_delta),
                   "ci": interval and ci is not True and not level_ok(ci),
                   "n_boot": not boot_ok(n_boot, used=interval), "seed": not seed_ok(seed)})
    if got is not None:
        table, messages = got
        check_metrics(table)
        for lower in (c for c in table if c.endswith("_lower")):
            check_intervals(table, lower[:-6], lower, lower[:-6] + "_upper", messages,
                            0.95 if ci is True else ci)


@SETTINGS
@given(metric=st.sampled_from(["blimp", ["adc_1", "r_pair", "adc_area"], "variability"]),
       ci=LEVELS, n_boot=N_BOOTS, seed=SEEDS, method=st.one_of(
           st.sampled_from(["percentile", "bca", "BCa"]), JUNK),
       batch=st.one_of(st.none(), st.integers(1, 50), st.integers(-5, 0), JUNK))
def test_bootstrap(example, metric, ci, n_boot, seed, method, batch):
    got = outcome(lambda: stats.bootstrap(metric, *example, n_boot=n_boot, ci=ci, seed=seed,
                                          method=method, batch=batch, cluster=None),
                  {"ci": not level_ok(ci), "n_boot": not boot_ok(n_boot),
                   "seed": not seed_ok(seed), "batch": batch is not None and not whole(
                       batch, 1, 10**6),
                   "method": not (isinstance(method, str) and method.lower() in (
                       "percentile", "bca"))})
    if got is not None:
        check_intervals(got[0], "estimate", "lower", "upper", got[1], ci)


@SETTINGS
@given(ci=LEVELS, n_boot=N_BOOTS, seed=SEEDS)
def test_compare_all(example, ci, n_boot, seed):
    got = outcome(lambda: stats.compare_all(*example, "blimp", n_boot=n_boot, ci=ci,
                                            seed=seed, cluster=None),
                  {"ci": not level_ok(ci), "n_boot": not boot_ok(n_boot),
                   "seed": not seed_ok(seed)})
    if got is not None:
        table, messages = got
        assert ((table["lower"] <= table["upper"]) | table["lower"].isna()).all()
        p = table[["p_boot", "p_boot_adj"]].to_numpy(float)
        assert ((p[~np.isnan(p)] > 0) & (p[~np.isnan(p)] <= 1)).all()
        assert not np.isnan(p).any() or any("no bootstrap interval or p-value" in m
                                            for m in messages)


@SETTINGS
@given(delta=DELTAS, max_delta=DELTAS, grid=st.lists(st.one_of(st.just(0.0), DELTAS),
                                                     max_size=3))
def test_adc_and_its_curve(example, delta, max_delta, grid):
    got = outcome(lambda: stats.adc(*example, delta=delta), {"delta": not delta_ok(delta)})
    if got is not None:
        rates = got[0].filter(like="adc_").to_numpy(float)
        assert ((rates[~np.isnan(rates)] >= 0) & (rates[~np.isnan(rates)] <= 1)).all()
    got = outcome(lambda: stats.adc_curve(*example, deltas=grid, max_delta=max_delta),
                  {"max_delta": not delta_ok(max_delta),
                   "deltas": not all((real(d) and d == 0) or delta_ok(d) for d in grid)})
    if got is not None:
        area = np.array(list(got[0].attrs["area"].values()))
        assert ((area[~np.isnan(area)] >= 0) & (area[~np.isnan(area)] <= 1)).all()


@pytest.fixture(scope="module")
def ratings():
    """The first 60 sentences' ratings of Lau et al. (2020), no context (real data)."""
    table = data.load_lau2020(need_data("lau2020"), context="none").ratings
    keep = table["sentence_id"].isin(table["sentence_id"].unique()[:60])
    return table[keep].reset_index(drop=True)


@pytest.mark.needs_data("lau2020")
@SETTINGS
@given(ci=st.one_of(st.none(), LEVELS), n_boot=N_BOOTS, seed=SEEDS,
       n_splits=st.one_of(st.integers(1, 30), st.integers(-3, 0), JUNK),
       method=st.sampled_from(["split_half", "one_vs_rest", "icc"]))
def test_rater_reliability(ratings, ci, n_boot, seed, n_splits, method):
    got = outcome(lambda: stats.rater_reliability(ratings, method, n_splits=n_splits,
                                                  n_boot=n_boot, seed=seed, ci=ci),
                  {"ci": ci is not None and not level_ok(ci),
                   "n_boot": not boot_ok(n_boot, used=ci is not None), "seed": not seed_ok(seed),
                   "n_splits": not whole(n_splits, 1, 10**6)})
    if got is not None and ci is not None:
        table = got[0]
        check_intervals(table, "estimate", "ci_low", "ci_high", got[1], ci)
        assert (table["estimate"].abs() <= 1 + TOL).all()


@SETTINGS
@given(n_boot=st.one_of(st.just(0), N_BOOTS), seed=SEEDS, ci=LEVELS)
def test_accuracy(example, n_boot, seed, ci):
    outcomes = stats.pair_outcomes(*example)
    got = outcome(lambda: stats.accuracy(outcomes, n_boot=n_boot, seed=seed, ci=ci),
                  {"n_boot": not boot_ok(n_boot, zero=True), "seed": not seed_ok(seed),
                   "ci": not level_ok(ci)})
    if got is not None:
        table = got[0]
        assert table["accuracy"].between(0, 1).all()
        if n_boot:
            check_intervals(table.dropna(subset=["accuracy"]), "accuracy", "lower", "upper",
                            got[1] + ["no bootstrap interval"], ci)  # one pair: none


@SETTINGS
@given(r=st.floats(0, 1), factor=st.one_of(st.floats(0.01, 100), JUNK),
       corr=st.tuples(*[st.one_of(st.floats(-0.99, 0.99), JUNK)] * 3),
       n=st.one_of(st.integers(4, 10**6), st.integers(-5, 3), JUNK),
       alpha=st.one_of(st.floats(0.001, 0.5), JUNK),
       m=st.one_of(st.integers(1, 50), st.integers(-3, 0), JUNK))
def test_reliability_and_tests(r, factor, corr, n, alpha, m):
    got = outcome(lambda: stats.spearman_brown(r, factor=factor),
                  {"factor": not (real(factor) and math.isfinite(factor) and factor > 0)})
    if got is not None:
        assert -TOL <= got[0] <= 1 + TOL
    names = ("r_ha", "r_hb", "r_ab")
    valid = {k: real(v) and -1 < v < 1 for k, v in zip(names, corr, strict=True)}
    try:
        z, p = stats.steiger_z(*corr, n=n)
    except (ValueError, TypeError) as err:
        assert any(f"{k}=" in str(err) for k in (*names, "n")), err
    else:
        assert all(valid.values()) and whole(n, 4, 2**62)
        assert math.isfinite(z) and 0 <= p <= 1
    got = outcome(lambda: stats.resamples_for(m, alpha=alpha),
                  {"n_comparisons": not whole(m, 1, 10**6),
                   "alpha": not (real(alpha) and 0 < alpha < 1)})
    if got is not None:
        assert isinstance(got[0], int) and got[0] >= 1


@SETTINGS
@given(k=st.one_of(st.floats(0.1, 100), JUNK), initial=st.one_of(st.floats(-1e4, 1e4), JUNK),
       n_orders=st.one_of(st.integers(0, 5), st.integers(-3, -1), JUNK), seed=SEEDS)
def test_elo(k, initial, n_orders, seed):
    winners, losers = ["a", "a", "b", "c"], ["b", "c", "c", "a"]
    got = outcome(lambda: stats.elo_ratings(winners, losers, k=k, initial=initial,
                                            n_orders=n_orders, seed=seed),
                  {"k": not (real(k) and math.isfinite(k) and 0 < k <= 1e6),
                   "initial": not (real(initial) and abs(initial) <= 1e9),
                   "n_orders": not whole(n_orders, 0, 10_000), "seed": not seed_ok(seed)})
    if got is not None:
        elo = got[0]["elo"].to_numpy(float)
        assert np.isfinite(elo).all()
        assert elo.sum() == pytest.approx(3 * float(initial), abs=1e-6 * max(1, abs(initial)))


@SETTINGS
@given(values=st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30), ci=LEVELS,
       n_boot=st.one_of(st.integers(1, 200), st.integers(-3, 0), JUNK), seed=SEEDS)
def test_engine(values, ci, n_boot, seed):
    x = np.array(values)[:, None]
    got = outcome(lambda: stats.inference.mean_resamples(x, n_boot, seed),
                  {"n_boot": not whole(n_boot, 1, 10**6), "seed": not seed_ok(seed)})
    if got is None:
        return
    dist = got[0][:, 0]
    assert dist.min() >= x.min() - 1e-6 and dist.max() <= x.max() + 1e-6
    got = outcome(lambda: stats.inference.percentile_interval(dist, ci), {"ci": not level_ok(ci)})
    if got is not None:
        lower, upper = got[0]
        ulp = 1e-12 * max(1.0, float(np.abs(dist).max()))  # the quantiles' interpolation
        assert dist.min() - ulp <= lower <= upper + ulp and upper <= dist.max() + ulp


# Data validation: the example's tables with cells replaced by arbitrary values.
CELLS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3),
                  st.none(), st.sampled_from([1e308, -1e308, 5e-324, "NA", "", True]))


@SETTINGS
@given(column=st.sampled_from(["score", "model", "sentence_id"]),
       rows=st.lists(st.integers(0, 10_000), min_size=1, max_size=5), value=CELLS,
       keep=st.sampled_from([1.0, 0.5, 0.1, 0.0]))
def test_evaluate_and_bootstrap_on_damaged_scores(example, column, rows, value, keep):
    ds, scores = example
    sc = scores.sample(frac=keep, random_state=0).astype({column: object})
    at = [sc.index[i % len(sc)] for i in rows] if len(sc) else []
    sc.loc[at, column] = value
    for call in (lambda: stats.evaluate(ds, sc, ci=True, n_boot=20),
                 lambda: stats.bootstrap(["blimp", "r_pair"], ds, sc, n_boot=20, cluster=None)):
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                table = call()
        except (DataError, ValueError) as err:
            assert str(err).strip(), "an error without a message"
            continue
        if "estimate" in table:
            check_intervals(table, "estimate", "lower", "upper",
                            [str(w.message) for w in caught])
        else:
            check_metrics(table)


@pytest.mark.needs_data("lau2020")
@SETTINGS
@given(column=st.sampled_from(["response", "participant", "sentence_id"]),
       rows=st.lists(st.integers(0, 10_000), min_size=1, max_size=40), value=CELLS,
       keep=st.sampled_from([1.0, 0.2, 0.01, 0.0]))
def test_rater_reliability_on_damaged_ratings(ratings, column, rows, value, keep):
    table = ratings.sample(frac=keep, random_state=0).astype({column: object})
    table.attrs = dict(ratings.attrs)
    at = [table.index[i % len(table)] for i in rows] if len(table) else []
    table.loc[at, column] = value
    try:
        out = stats.rater_reliability(table, n_splits=10, n_boot=20)
    except (DataError, ValueError) as err:
        assert str(err).strip()
        return
    assert (out["estimate"].dropna().abs() <= 1 + TOL).all()
    assert (out["ci_low"] <= out["estimate"] + TOL).all()


# Mixed models: fitted once (lme4's sleepstudy, lmerTest's ham for a factor); only the
# arguments read after the fit are run, and the pre-fit ones (glmer's and clmm's nAGQ,
# brm's sampling settings, the parametric bootstrap's) up to where the work would start
# (`Reached`). The two tests add ~1.5 s (AMD EPYC, 2 shared cores).
class Reached(Exception):
    """The fit, sampler or simulation that a valid argument lets the call start."""


def _reached(*args, **kwargs):
    raise Reached


@pytest.fixture(scope="module")
def mixed_fits():
    return (stats.lmer("Reaction ~ Days + (Days | Subject)", lme4_data("sleepstudy")),
            stats.lmer("Informed.liking ~ Product + (1 | Consumer)", lme4_data("ham")),
            lme4_data("cbpp"), lme4_data("sleepstudy"))


def up_to_the_work(call, *modules_and_names):
    """``call`` with the work replaced by `Reached`: "reached" when it got there."""
    with pytest.MonkeyPatch.context() as mp:
        for module, name in modules_and_names:
            mp.setattr(importlib.import_module(f"acceptability.stats.mixed.{module}"), name,
                       _reached)
        try:
            return call()
        except Reached:
            return "reached"


@SETTINGS
@given(level=LEVELS, which=st.sampled_from(["confint", "emmeans", "ls_means"]))
def test_mixed_model_levels(mixed_fits, level, which):
    sleep, ham = mixed_fits[:2]
    calls = {"confint": lambda: sleep.confint(level=level, method="Wald").dropna(),
             "emmeans": lambda: stats.emmeans(ham, "Product", level=level),
             "ls_means": lambda: stats.ls_means(ham, level=level)}
    got = outcome(calls[which], {"level": not level_ok(level)})
    if got is None:
        return
    table, messages = got
    if which == "confint":
        table = table.set_axis(["lower", "upper"], axis=1).assign(estimate=sleep.fixef)
    names = {"emmeans": ("emmean", "lower.CL", "upper.CL"),
             "ls_means": ("Estimate", "lower", "upper")}.get(which, ("estimate", "lower", "upper"))
    check_intervals(table, *names, messages)  # t and z intervals: symmetric at any level


@SETTINGS
@given(nsim=N_BOOTS, seed=SEEDS, n_jobs=st.one_of(st.none(), st.integers(1, 64),
                                                    st.integers(-3, 0), JUNK),
       nagq=st.one_of(st.integers(-30, 30), st.integers(101, 2**70), JUNK))
def test_mixed_model_counts_and_seeds(mixed_fits, nsim, seed, n_jobs, nagq):
    sleep, _, cbpp, sleepstudy = mixed_fits
    got = outcome(lambda: up_to_the_work(lambda: sleep.confint(
        method="boot", nsim=nsim, seed=seed, n_jobs=n_jobs), ("fitted.parametric", "Simulator")),
        {"nsim": not boot_ok(nsim), "seed": not seed_ok(seed),
         "n_jobs": n_jobs is not None and not whole(n_jobs, 1, 10**6)})
    assert got is None or got[0] == "reached"
    got = outcome(lambda: up_to_the_work(lambda: stats.glmer(
        "cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp, nAGQ=nagq),
        ("lmm.lmer", "fit")), {"nAGQ": not (whole(nagq, 0, 25) and (nagq == 0 or nagq % 2 == 1))})
    assert got is None or got[0] == "reached"
    got = outcome(lambda: up_to_the_work(lambda: stats.clmm(
        "rating ~ temp + contact + (1 | judge)", wine(), nAGQ=nagq),
        ("ordinal.cumulative_mixed", "_fit")), {"nAGQ": not whole(nagq, -100, 100) or nagq in (0, -1)})
    assert got is None or got[0] == "reached"
    got = outcome(lambda: up_to_the_work(lambda: stats.brm(
        "Reaction ~ Days + (1 | Subject)", sleepstudy, draws=nsim, chains=n_jobs or 1,
        seed=seed, target_accept=0.9, check_memory=False), ("brm", "fit")),
        {"draws": not whole(nsim, 1, 10**6), "seed": not whole(seed, 0, 2**32 - 1),
         "chains": not whole(n_jobs or 1, 1, 10**6)})
    assert got is None or got[0] == "reached"
