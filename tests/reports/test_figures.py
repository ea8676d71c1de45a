"""The report figures draw their input tables: one point per row, bar heights, line values,
heatmap cells and axis labels read back from the matplotlib artists and compared with the
tables (and the fit lines with scipy), on the bundled example; and every label drawn clear of
the others and inside the figure, with real long model names."""

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


# Real model names as long as a user's: the published LI-Adger scores under other labels (the
# scores are unchanged; only the tick labels, titles and legends grow).
LONG_NAMES = {"bert-large-uncased_mlm": "bert-large-uncased_pll",
              "bert-base-uncased_mlm": "bert-base-uncased_pll",
              "bert-large-cased_mlm": "bert-large-cased_pll",
              "trigram_logprob": "SmolLM2-135M-Instruct_logprob"}


def _drawn_texts(fig) -> list:
    """The texts ``fig`` draws: visible, not empty, on a visible axes; a tick's labels only
    where the tick lies inside its axis' view (matplotlib draws no others)."""
    from matplotlib.text import Text

    undrawn = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            slack = 1e-9 * max(1.0, hi - lo)
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - slack <= tick.get_loc() <= hi + slack:
                    undrawn.update((tick.label1, tick.label2))
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
            and t not in undrawn and (t.axes is None or t.axes.get_visible())]


def _outline(text, renderer) -> np.ndarray:
    """The four corners (pixels) of ``text``'s box as drawn, rotated with it: its window extent
    is the axis-aligned box around them, whose sides each corner touches."""
    box = text.get_window_extent(renderer)
    theta = np.deg2rad(text.get_rotation() % 90)
    if theta < 1e-6 or "\n" in text.get_text():  # upright, or a quarter turn: the box itself
        return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])
    w, h, _ = renderer.get_text_width_height_descent(text.get_text(), text.get_fontproperties(),
                                                     ismath=False)
    if text.get_rotation() % 180 >= 90:
        w, h = h, w
    s, c = np.sin(theta), np.cos(theta)
    return np.array([[box.x0 + h * s, box.y0], [box.x1, box.y0 + w * s],
                     [box.x1 - h * s, box.y1], [box.x0, box.y0 + h * c]])


def _intersect(a: np.ndarray, b: np.ndarray, slack: float = 0.5) -> bool:
    """Whether two convex outlines overlap by more than ``slack`` pixels (separating axes)."""
    for poly in (a, b):
        for i in range(len(poly)):
            edge = poly[(i + 1) % len(poly)] - poly[i]
            normal = np.array([-edge[1], edge[0]]) / np.hypot(*edge)
            pa, pb = a @ normal, b @ normal
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= slack:
                return False
    return True


def _collisions(fig) -> tuple[list[str], list[tuple[str, str]]]:
    """The drawn texts that leave the figure, and the pairs of drawn texts that overlap."""
    import itertools

    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    shapes = [(t.get_text(), _outline(t, renderer)) for t in _drawn_texts(fig)]
    width, height = fig.bbox.width, fig.bbox.height
    outside = [name for name, p in shapes if p.min() < -0.5 or p[:, 0].max() > width + 0.5
               or p[:, 1].max() > height + 0.5]
    overlapping = [(a, b) for (a, pa), (b, pb) in itertools.combinations(shapes, 2)
                   if _intersect(pa, pb)]
    return outside, overlapping


def test_the_collision_check_sees_overlapping_and_escaping_labels():
    names = ["SmolLM2-135M-Instruct_logprob", "bert-large-uncased_pll"]
    for rotation in (0, 45):  # side by side; turned, from the same anchor
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.set_xticks([0, 0.02], names, rotation=rotation, ha="right", rotation_mode="anchor")
        outside, overlapping = _collisions(fig)
        assert tuple(names) in overlapping and names[0] in outside
    ax.set_xticks([0, 1], names, rotation=45, ha="right", rotation_mode="anchor")
    fig.set_layout_engine("constrained")
    fig.set_size_inches(6, 4)
    assert _collisions(fig) == ([], [])


@pytest.fixture(scope="module")
def long_named(li_adger, li_adger_scores):
    scores = li_adger_scores.assign(model=li_adger_scores["model"].replace(LONG_NAMES))
    return reports.analyse(li_adger, scores, n_boot=20, formula=None)


def test_no_label_overlaps_another_or_leaves_the_figure_with_real_model_names(long_named):
    from acceptability.reports.render import sections

    drawn = {name: make for s in sections(long_named) for name, _, make in s.figures}
    assert {"corr_sentence", "corr_pair", "type_correlations", "comparisons_forest",
            "scatter_sentence", "adc_curve", "accuracy_by_group"} <= set(drawn)
    faults = {}
    for name, make in drawn.items():
        fig = make()
        shown = {t.get_text() for t in _drawn_texts(fig)}
        if name.startswith("corr_"):  # every name whole, none shortened
            assert set(long_named.corr_sentence.index) <= shown
        if (found := _collisions(fig)) != ([], []):
            faults[name] = found
        plt.close(fig)
    assert not faults


@pytest.mark.needs_data("blimp", "raw_results/models_summary.jsonl")
def test_bar_labels_stay_apart_on_blimps_twelve_phenomena():
    """BLiMP's published accuracies (Warstadt et al. 2020) by phenomenon: twelve long group
    names under the bars, five systems in the legend."""
    from acceptability.data.loaders.blimp_results import load_blimp_results
    from tests.conftest import DATA_DIR

    published = load_blimp_results(DATA_DIR / "blimp")
    table = (published.groupby(["system", "phenomenon"], sort=False)["accuracy"].mean()
             .reset_index().rename(columns={"system": "model", "accuracy": "blimp"}))
    fig = figures.accuracy_bars(table, "phenomenon", metrics=("blimp",))
    assert len(fig.axes[0].get_xticklabels()) == 12
    assert _collisions(fig) == ([], [])


def test_heatmap_names_read_level_with_one_model(example):
    """With room for them upright, seaborn turned the row names upright (one model of the
    bundled example and the humans); they stay level, clear and inside the figure."""
    dataset, scores = example
    one = stats.correlation_matrix(dataset, scores[scores["model"] == "bert-large-cased_mlm"])
    fig = figures.correlation_heatmap(one)
    assert _collisions(fig) == ([], [])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == list(one.index)
    assert {t.get_rotation() for t in fig.axes[0].get_yticklabels()} == {0.0}


@pytest.mark.needs_data("lau2020", "context-real-ratings.csv")
def test_context_shift_labels_stay_apart_on_lau_et_al():
    """Lau et al.'s (2020) ratings in three contexts, by the report's eight sentence groups:
    legends with long group names, three panels side by side."""
    from acceptability import data
    from acceptability.reports import context
    from acceptability.reports.ratings import figures as rating_figures
    from tests.conftest import DATA_DIR

    shifts = context.quality_shifts(data.load_lau2020(DATA_DIR / "lau2020"), 0, 0)
    fig = rating_figures.context_shifts(shifts)
    assert sum(len(ax.get_legend().get_texts()) for ax in fig.axes) == len(shifts) == 8
    assert _collisions(fig) == ([], [])
