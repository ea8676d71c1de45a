"""The report figures draw their input tables: one point per row, bar heights, line values,
heatmap cells and axis labels read back from the matplotlib artists and compared with the
tables (and the fit lines with scipy), on the bundled example."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import reports, stats
from acceptability.reports import figures


@pytest.fixture(scope="module")
def results(example):
    return reports.analyse(*example, n_boot=0, formula=None)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _heatmap(ax) -> np.ndarray:
    """The cell values of a seaborn heatmap (NaN cells are masked)."""
    return np.ma.filled(ax.collections[0].get_array().astype(float), np.nan).ravel()


def _assert_heatmap(ax, matrix: pd.DataFrame) -> None:
    np.testing.assert_allclose(_heatmap(ax), matrix.to_numpy(float).ravel())
    assert [t.get_text() for t in ax.get_yticklabels()] == list(matrix.index)
    shown = [t.get_text() for t in ax.texts]  # one annotation per defined cell
    assert shown == [f"{v:.2f}" for v in matrix.to_numpy(float).ravel() if not np.isnan(v)]


def test_correlation_heatmaps_show_every_cell(results):
    _assert_heatmap(figures.correlation_heatmap(results.corr_sentence).axes[0],
                    results.corr_sentence)
    v = results.variability
    fig = figures.type_correlations(v.mean_corr, v.sd_corr)
    for ax, matrix in zip(fig.axes[:2], (v.mean_corr, v.sd_corr), strict=True):  # + colorbars
        _assert_heatmap(ax, matrix)


@pytest.mark.parametrize("kind", ["sentence", "pair"])
def test_scatter_has_one_point_per_row_and_the_least_squares_line(example, kind):
    if kind == "sentence":
        frame, x, y = stats.sentence_frame(*example), "z", "human"
        fig = figures.human_vs_model(frame)
        labels = ("model z-score", "human judgment")
    else:
        frame, x, y = stats.pair_deltas(*example), "dlm", "dh"
        fig = figures.delta_scatter(frame)
        labels = ("model delta (z)", "human delta")
    models = list(dict.fromkeys(frame["model"]))
    assert [ax.get_title() for ax in fig.axes if ax.get_visible()] == models
    for ax, model in zip(fig.axes, models, strict=False):
        rows = frame.loc[frame["model"] == model, [x, y]].dropna()
        assert (ax.get_xlabel(), ax.get_ylabel()) == labels
        if len(rows) < 2:  # e.g. the example's trigram scores no human-rated sentence
            assert not ax.collections and [t.get_text() for t in ax.texts] == ["no data"]
            continue
        points = ax.collections[0].get_offsets()
        assert len(points) == len(rows)
        np.testing.assert_allclose(points[:, 1], rows[y])
        assert np.abs(points[:, 0] - rows[x]).max() < 6 * figures.JITTER  # jitter only
        fit = sps.linregress(rows[x], rows[y])
        (xs, ys) = ax.lines[0].get_data()
        np.testing.assert_allclose(ys, fit.intercept + fit.slope * np.asarray(xs))
        assert ax.get_legend().get_texts()[0].get_text() == f"r = {fit.rvalue:.2f}"


def test_adc_curve_draws_each_models_pass_rates(example):
    curve = stats.adc_curve(*example)
    ax = figures.adc_curve(curve).axes[0]
    drawn = [line for line in ax.lines if not line.get_label().startswith("_")]
    shown = [m for m, g in curve.groupby("model", sort=False) if g["pass_rate"].notna().any()]
    assert len(drawn) == len(shown) > 0
    for line, model in zip(drawn, shown, strict=True):
        g = curve[curve["model"] == model]
        assert line.get_label().startswith(model)
        np.testing.assert_allclose(line.get_xdata(), g["delta"])
        np.testing.assert_allclose(line.get_ydata(), g["pass_rate"])
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("delta", "ADC pass rate")


def test_accuracy_bars_heights_are_the_table(example):
    table = stats.evaluate(*example, by="dataset")
    fig = figures.accuracy_bars(table, "dataset")
    for ax, metric in zip(fig.axes, ("blimp", "adc_1"), strict=True):
        models = list(dict.fromkeys(table["model"]))
        assert len(ax.containers) == len(models)
        for bars, model in zip(ax.containers, models, strict=True):
            heights = [bar.get_height() for bar in bars]
            np.testing.assert_allclose(heights, table.loc[table["model"] == model, metric])
        assert [t.get_text() for t in ax.get_xticklabels()] == list(dict.fromkeys(
            table["dataset"]))


def test_type_mean_sd_has_one_point_per_type(results):
    types = results.variability.types
    fig = figures.type_mean_sd(types)
    sources = list(dict.fromkeys(types["source"]))
    for ax, source in zip(fig.axes, sources, strict=False):
        rows = types[types["source"] == source].dropna(subset=["mean", "sd"])
        np.testing.assert_allclose(ax.collections[0].get_offsets(), rows[["mean", "sd"]])
        assert ax.get_title().endswith(f"mean SD = {rows['sd'].mean():.3f}")


def test_forest_plots_each_difference():
    c = pd.DataFrame({"model_a": ["a", "a"], "model_b": ["b", "c"], "difference": [0.1, -0.2],
                      "lower": [0.0, -0.3], "upper": [0.2, -0.1], "p_boot_adj": [0.04, 0.5]})
    ax = figures.forest(c).axes[0]
    xs, ys = ax.lines[0].get_data()
    np.testing.assert_allclose(xs, c["difference"])
    np.testing.assert_allclose(ys, [1, 0])  # first row on top
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a − b", "a − c"]
    assert [t.get_text() for t in ax.texts] == ["p=0.04", "p=0.5"]
