"""Pieces that had several copies now have one: Pearson r (one policy for constant input
and short series, whatever the route), the within-type SD, connected components."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import stats
from acceptability.data.graph import components
from acceptability.stats import metrics

RNG = np.random.default_rng(7)


def sums(x: np.ndarray, y: np.ndarray) -> tuple:
    return float(len(x)), x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum()


@pytest.mark.parametrize("c", [0.0, 0.1, 1 / 3, 7.3, 123.456])
def test_pearson_of_a_constant_is_nan_by_every_route(c):
    """The bootstrap's one-pass form gave -1e-9, 1e-9, inf and 0.0 here, where evaluate's
    two-pass form gave NaN."""
    x, y = np.full(50, c), RNG.normal(size=50)
    assert np.isnan(metrics.pearson(x, y)) and np.isnan(metrics.pearson(y, x))
    assert np.isnan(metrics.pearson_from_sums(*sums(x, y)))
    m = metrics.pearson_matrix(np.vstack([x, y]))
    assert np.isnan(m[0, 0]) and np.isnan(m[0, 1]) and np.isnan(m[1, 0]) and m[1, 1] == 1


def test_pearson_under_three_pairs_is_nan():
    x, y = np.array([1.0, 2.0, np.nan]), np.array([2.0, 1.0, 5.0])
    assert pd.Series(x).corr(pd.Series(y)) == pytest.approx(-1)  # pandas: r of 2 points
    assert np.isnan(metrics.pearson(x, y))
    assert np.isnan(metrics.pearson_from_sums(*sums(x[:2], y[:2])))
    assert np.isnan(metrics.pearson_matrix(np.vstack([x, y]))[0, 1])


def test_pearson_routes_agree_with_scipy():
    x = RNG.normal(size=200)
    y = 0.6 * x + RNG.normal(size=200) + 40  # an offset: the one-pass sums lose digits
    x[::17] = np.nan
    ok = ~np.isnan(x)
    expected = sps.pearsonr(x[ok], y[ok]).statistic
    assert metrics.pearson(x, y) == pytest.approx(expected, abs=1e-14)
    assert metrics.pearson_from_sums(*sums(x[ok], y[ok])) == pytest.approx(expected, abs=1e-12)
    assert metrics.pearson_matrix(np.vstack([x, y]))[0, 1] == pytest.approx(expected, abs=1e-14)


def test_report_correlations_follow_the_policy(example):
    """A model scored on 2 judged sentences has no correlation (pandas gave r = +-1)."""
    ds, sc = example
    sparse_model, full_model = "bert-large-cased_acc", "bert-large-cased_mlm"
    judged = set(ds.sentences.loc[ds.sentences["human"].notna(), "sentence_id"])
    sparse = sc[(sc["model"] == sparse_model) & sc["sentence_id"].isin(judged)].head(2)
    scores = pd.concat([sc[sc["model"] != sparse_model], sparse])
    matrix = stats.correlation_matrix(ds, scores)
    rows = stats.correlations(ds, scores).set_index(["model", "level"])
    ev = stats.evaluate(ds, scores).set_index("model")
    assert np.isnan(matrix.loc["human", sparse_model])
    assert np.isnan(rows.loc[(sparse_model, "sentence"), "pearson"])
    assert np.isnan(ev.loc[sparse_model, "r_sentence"])
    r = ev.loc[full_model, "r_sentence"]  # the same r by each route
    assert np.isfinite(r)
    assert rows.loc[(full_model, "sentence"), "pearson"] == pytest.approx(r, abs=1e-12)
    assert matrix.loc["human", full_model] == pytest.approx(r, abs=1e-12)


def test_type_sds_match_pandas():
    values = RNG.normal(size=300)
    values[::11] = np.nan
    codes = RNG.integers(0, 60, size=300)
    expected = pd.Series(values).groupby(codes).std(ddof=1).reindex(range(62))
    np.testing.assert_allclose(metrics.type_sds(values, codes, 62), expected, rtol=1e-12)


def test_variability_table_and_evaluate_agree(li_adger, li_adger_scores):
    summary = stats.variability(li_adger, li_adger_scores).summary.set_index("source")
    ev = stats.evaluate(li_adger, li_adger_scores).set_index("model")
    np.testing.assert_allclose(summary.loc[ev.index, "variability"], ev["variability"],
                               rtol=1e-12)


def test_components():
    labels = components(6, np.array([0, 2, 3]), np.array([1, 3, 4]))
    groups = {frozenset(np.flatnonzero(labels == k)) for k in np.unique(labels)}
    assert groups == {frozenset({0, 1}), frozenset({2, 3, 4}), frozenset({5})}
