"""Report figures, each a public function that takes a ``stats`` output table and returns
a matplotlib ``Figure`` (Agg backend: no display needed).

Thesis (Vázquez Martínez 2021) figs 2-4/2-6/3-1/3-3 (correlation heatmaps), 2-5/3-2
(human vs model scatter), 2-7/3-4 (delta scatter); seed 004 fig. 2 (type means and SDs).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from matplotlib.ticker import LogFormatter, ScalarFormatter  # noqa: E402

from acceptability.reports.labels import header, resampled, resampled_units  # noqa: E402
from acceptability.stats import metrics  # noqa: E402
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_SEED  # noqa: E402
from acceptability.stats.metric_table import member  # noqa: E402

JITTER, ALPHA = 0.05, 0.3  # thesis figs 2-5, 2-7, 3-2, 3-4: x-jitter 0.05, alpha 0.3


def plain_text(draw: Callable[..., Figure]) -> Callable[..., Figure]:
    """``draw`` whose figure shows every text it wrote as written: titles, labels, legends,
    annotations and named tick labels (model, group and source names) are plain text, neither
    mathtext (a name with ``$x_$`` stopped the report) nor LaTeX (``text.usetex``). The tick
    labels matplotlib formats on a numeric axis keep their mathtext (``10^{2}`` on a log axis).

    Examples
    --------
    >>> from acceptability.reports.figures import plain_text
    >>> import matplotlib.pyplot as plt
    >>> @plain_text
    ... def titled(name):
    ...     fig, ax = plt.subplots()
    ...     ax.set_title(name)
    ...     return fig
    >>> import io
    >>> fig = titled("m$x_$")
    >>> fig.savefig(io.BytesIO())  # mathtext would stop at "x_"
    >>> fig.axes[0].get_title(), fig.axes[0].title.get_parse_math()
    ('m$x_$', False)
    """
    @functools.wraps(draw)
    def drawn(*args, **kwargs) -> Figure:
        with plt.rc_context({"text.parse_math": False, "text.usetex": False}):
            fig = draw(*args, **kwargs)  # seaborn draws it once inside (tick label sizes)
        for ax in fig.axes:  # numbers as matplotlib's formatters write them (10^{2})
            for axis in (ax.xaxis, ax.yaxis):
                if isinstance(axis.get_major_formatter(), ScalarFormatter | LogFormatter):
                    for text in axis.findobj(Text):
                        if text is not axis.label:
                            text.set_parse_math(matplotlib.rcParams["text.parse_math"])
                            text.set_usetex(None)
        return fig

    return drawn


def _short(name: object, width: int = 40) -> str:
    """A model name short enough for a tick label: whole up to ``width`` characters
    (``SmolLM2-135M-Instruct_logprob``), a long local path by its end."""
    text = str(name)
    return text if len(text) <= width else "…" + text[-(width - 1):]


def _labelled(matrix: pd.DataFrame) -> pd.DataFrame:
    return matrix.rename(index=_short, columns=_short)


def _grid(n: int, ncols: int = 4, size: float = 3.0) -> tuple[Figure, np.ndarray]:
    ncols = max(1, min(ncols, n))
    nrows = max(1, math.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(size * ncols, size * nrows), squeeze=False,
                             sharex=False, sharey=True, layout="constrained")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat


@plain_text
def correlation_heatmap(matrix: pd.DataFrame, title: str = "Pearson r") -> Figure:
    """Correlation matrix of humans and models as an annotated heatmap (thesis figs 2-4,
    3-1 at sentence level; 2-6, 3-3 at pair level).

    Parameters
    ----------
    matrix : pandas.DataFrame
        A square correlation matrix, ``stats.correlation_matrix``'s.
    title : str
        The axes' title.

    Returns
    -------
    matplotlib.figure.Figure
        The heatmap and its colour bar.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import correlation_heatmap
    >>> fig = correlation_heatmap(stats.correlation_matrix(*data.load_example()))
    >>> fig.axes[0].get_title()
    'Pearson r'
    """
    fig, ax = plt.subplots(figsize=_heatmap_size(matrix), layout="constrained")
    _heatmap(ax, matrix, title, annot=8)
    return fig


def _heatmap_size(matrix: pd.DataFrame, cell: float = 0.55) -> tuple[float, float]:
    """Inches for a square heatmap of ``matrix``: ``cell`` inches a cell, plus room for the
    longest label (about 0.6 em a character at 10 pt) at the left and, turned 45°, below."""
    label = max(len(_short(name)) for name in matrix.index) * 0.6 * 10 / 72
    side = len(matrix) * cell
    return label + side + 1.8, 0.75 * label + side + 0.9


def _heatmap(ax, matrix: pd.DataFrame, title: str, annot: int) -> None:
    """``matrix`` as an annotated heatmap on ``ax``: every name whole (``_short``) and
    level, the column names turned 45° and ending under their column. Cells are square by the figure's
    size (``_heatmap_size``), not by a fixed aspect, which constrained layout only settles on
    a second drawing (a label left the saved figure)."""
    sns.heatmap(_labelled(matrix), vmin=-1, vmax=1, cmap="RdBu_r", annot=True, fmt=".2f",
                cbar_kws={"shrink": 0.7}, ax=ax, annot_kws={"size": annot})
    ax.set(title=title, xlabel="", ylabel="")
    plt.setp(ax.get_xticklabels(), rotation=45, ha="right", rotation_mode="anchor")
    plt.setp(ax.get_yticklabels(), rotation=0)  # seaborn turns them upright where they fit


def _scatter(frame: pd.DataFrame, x: str, y: str, xlabel: str, ylabel: str,
             seed: int) -> Figure:
    rng = np.random.default_rng(seed)
    models = list(dict.fromkeys(frame["model"]))
    fig, axes = _grid(len(models))
    for ax, model in zip(axes, models, strict=False):
        g = frame.loc[frame["model"] == model, [x, y]].dropna()
        ax.set_title(_short(model), fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if len(g) < 2:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
            continue
        xs = g[x].to_numpy(float) + rng.normal(0, JITTER, len(g))
        ax.scatter(xs, g[y], s=4, alpha=ALPHA, linewidths=0, color="tab:blue", rasterized=True)
        slope, intercept = np.polyfit(g[x], g[y], 1)
        line = np.linspace(g[x].min(), g[x].max(), 2)
        r = float(metrics.pearson(g[x].to_numpy(float), g[y].to_numpy(float)))
        ax.plot(line, slope * line + intercept, color="red", lw=1.5, label=f"r = {r:.2f}")
        ax.legend(loc="upper left", fontsize=8, frameon=False)
    return fig


@plain_text
def human_vs_model(sentence_frame: pd.DataFrame, seed: int = DEFAULT_SEED) -> Figure:
    """Human judgment (y) vs model z-score (x) per sentence, one panel per model, with
    x-jitter 0.05, alpha 0.3 and the least-squares line in red (thesis figs 2-5, 3-2).

    Parameters
    ----------
    sentence_frame : pandas.DataFrame
        ``stats.sentence_frame``'s table (``model``, ``z``, ``human``).
    seed : int
        Seed of the jitter.

    Returns
    -------
    matplotlib.figure.Figure
        A scatter plot per model, its least-squares line in red.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import human_vs_model
    >>> fig = human_vs_model(stats.sentence_frame(*data.load_example()))
    >>> [ax.get_title() for ax in fig.axes]
    ['bert-large-cased_mlm', 'bert-large-cased_acc', 'trigram_slor']
    """
    return _scatter(sentence_frame, "z", "human", "model z-score", "human judgment", seed)


@plain_text
def delta_scatter(pair_deltas: pd.DataFrame, seed: int = DEFAULT_SEED) -> Figure:
    """Human delta (y) vs model delta (x) per minimal pair, as ``human_vs_model``
    (thesis figs 2-7, 3-4).

    Parameters
    ----------
    pair_deltas : pandas.DataFrame
        ``stats.pair_deltas``'s table (``model``, ``dlm``, ``dh``).
    seed : int
        As in ``human_vs_model``.

    Returns
    -------
    matplotlib.figure.Figure
        A panel per model, as ``human_vs_model`` draws it.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import delta_scatter
    >>> fig = delta_scatter(stats.pair_deltas(*data.load_example()))
    >>> len(fig.axes)
    3
    """
    return _scatter(pair_deltas, "dlm", "dh", "model delta (z)", "human delta", seed)


@plain_text
def adc_curve(curve: pd.DataFrame, intervals: pd.DataFrame | None = None,
              marks=DEFAULT_DELTAS) -> Figure:
    """ADC pass rate against delta per model and, in the legend, the normalised area
    under the curve (thesis 1.3.3), the deltas of Table 3.1 marked, with error bars at
    them from ``intervals`` (the report's tidy ``stats.bootstrap`` table: ``model,
    metric, lower, upper`` with ``adc_<delta>`` rows), the tables' cluster-bootstrap
    intervals.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``stats.adc_curve``'s table (``model``, ``delta``, ``pass_rate``; the areas in
        ``attrs["area"]``).
    intervals : pandas.DataFrame, optional
        The tidy bootstrap table whose ``adc_<delta>`` rows give the error bars.
    marks : sequence of float
        The deltas marked (default: the package's ``DEFAULT_DELTAS``).

    Returns
    -------
    matplotlib.figure.Figure
        One axes, a line per model.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import adc_curve
    >>> fig = adc_curve(stats.adc_curve(*data.load_example()))
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    ['bert-large-cased_acc (area 0.289)', 'bert-large-cased_mlm (area 0.456)']
    """
    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    bounds = (intervals.set_index(["model", "metric"])[["estimate", "lower", "upper"]]
              if intervals is not None and len(intervals) else None)
    for model, g in curve.groupby("model", sort=False):
        if g["pass_rate"].isna().all():
            continue
        area = curve.attrs.get("area", {}).get(model)
        label = _short(model) + (f" (area {area:.3f})" if area is not None else "")
        (line,) = ax.plot(g["delta"], g["pass_rate"], lw=1.5, label=label)
        keys = [(model, member("adc", d)) for d in marks]
        if bounds is not None and all(k in bounds.index for k in keys):
            b = bounds.loc[keys]
            ax.errorbar(marks, b["estimate"], yerr=_err(b["estimate"], b["lower"], b["upper"]),
                        fmt="none", ecolor=line.get_color(), capsize=3, lw=1)
    for d in marks:
        ax.axvline(d, color="grey", lw=0.8, ls=":")
    what = "" if bounds is None else "\n(bars: the table's 95% bootstrap intervals)"
    ax.set(xlabel="delta", ylabel="ADC pass rate", ylim=(0, 1),
           xlim=(0, 1.02 * curve["delta"].max()))
    ax.set_title(f"ADC pass rate against delta{what}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return fig


def _err(value, lower, upper) -> np.ndarray:
    """Error-bar lengths below and above ``value`` (NaN bounds: no bar)."""
    value = np.asarray(value, float)
    return np.nan_to_num(np.abs(np.vstack([value - np.asarray(lower, float),
                                           np.asarray(upper, float) - value])))


@plain_text
def accuracy_bars(by_group: pd.DataFrame, by: str, metrics=("blimp", "adc_1")) -> Figure:
    """Per-group (paradigm, phenomenon, sub-dataset) BLiMP-criterion and ADC pass rates
    per model, with error bars from ``<metric>_lower``/``_upper`` where the table has
    them (the per-group cluster-bootstrap intervals of ``stats.evaluate(..., by=by,
    ci=True)`` or ``reports.analysis.group_intervals``).

    Parameters
    ----------
    by_group : pandas.DataFrame
        ``stats.evaluate(..., by=by)``'s table.
    by : str
        The grouping column.
    metrics : sequence of str
        The metrics, one panel each.

    Returns
    -------
    matplotlib.figure.Figure
        A panel per metric, bars per group and model.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import accuracy_bars
    >>> by_group = stats.evaluate(*data.load_example(), by="phenomenon")
    >>> fig = accuracy_bars(by_group, "phenomenon")
    >>> [ax.get_title() for ax in fig.axes]
    ['BLiMP accuracy by phenomenon', 'ADC (δ = 1) by phenomenon']
    """
    frame = by_group.assign(_group=by_group[by].astype(str))
    models = list(dict.fromkeys(frame["model"]))
    groups = list(dict.fromkeys(frame["_group"]))
    fig, axes = plt.subplots(len(metrics), 1, squeeze=False, layout="constrained",
                             figsize=(max(7.0, 2 + 0.25 * len(groups) * len(models)),
                                      3.2 * len(metrics)))
    width = 0.8 / len(models)
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        for i, model in enumerate(models):
            g = frame[frame["model"] == model].set_index("_group").reindex(groups)
            rate = g[metric].to_numpy(float)
            x = np.arange(len(groups)) + (i - (len(models) - 1) / 2) * width
            err = (_err(rate, g[f"{metric}_lower"], g[f"{metric}_upper"])
                   if f"{metric}_lower" in g else None)
            ax.bar(x, rate, width, label=_short(model), yerr=err, capsize=2,
                   error_kw={"lw": 0.8})
        ax.set_xticks(np.arange(len(groups)), groups, rotation=30 if len(groups) > 6 else 0,
                      ha="right" if len(groups) > 6 else "center", fontsize=8)
        ax.set(ylim=(0, 1), ylabel=header(metric), title=f"{header(metric)} by {by}")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(4, len(models)), fontsize=7)
    return fig


@plain_text
def type_mean_sd(types: pd.DataFrame) -> Figure:
    """Each sentence type's mean against its SD, one panel per source (humans first), the
    panel title giving the mean SD (seed 004 section 4).

    Parameters
    ----------
    types : pandas.DataFrame
        ``stats.variability(...).types`` (``source``, ``type_id``, ``mean``, ``sd``).

    Returns
    -------
    matplotlib.figure.Figure
        A panel per source, humans first.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import type_mean_sd
    >>> fig = type_mean_sd(stats.variability(*data.load_example()).types)
    >>> fig.axes[0].get_title()
    'human\\nmean SD = 0.372'
    """
    sources = list(dict.fromkeys(types["source"]))
    fig, axes = _grid(len(sources), ncols=5, size=2.6)
    for ax, source in zip(axes, sources, strict=False):
        g = types[types["source"] == source].dropna(subset=["mean", "sd"])
        ax.scatter(g["mean"], g["sd"], s=5, alpha=0.5, linewidths=0,
                   color="black" if source == "human" else "tab:blue")
        ax.set_title(f"{_short(source)}\nmean SD = {g['sd'].mean():.3f}", fontsize=8)
        ax.set(xlabel="type mean (z)", ylabel="type SD")
    return fig


@plain_text
def type_correlations(mean_corr: pd.DataFrame, sd_corr: pd.DataFrame) -> Figure:
    """Correlation matrices of per-type means (top) and per-type SDs (bottom) across humans
    and models (seed 004 fig. 2).

    Parameters
    ----------
    mean_corr, sd_corr : pandas.DataFrame
        ``stats.variability(...).mean_corr`` and ``.sd_corr``.

    Returns
    -------
    matplotlib.figure.Figure
        Two heatmaps, means above SDs.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import type_correlations
    >>> v = stats.variability(*data.load_example())
    >>> fig = type_correlations(v.mean_corr, v.sd_corr)
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['Correlation of type means', 'Correlation of type SDs']
    """
    width, height = _heatmap_size(mean_corr)
    fig, axes = plt.subplots(2, 1, figsize=(width, 2 * height), layout="constrained")
    for ax, matrix, what in zip(axes, (mean_corr, sd_corr), ("means", "SDs"), strict=True):
        _heatmap(ax, matrix, f"Correlation of type {what}", annot=7)
    return fig


@plain_text
def forest(comparisons: pd.DataFrame, estimate: str = "difference", lower: str = "lower",
           upper: str = "upper", p: str | None = "p_boot_adj") -> Figure:
    """Forest plot of model differences (a − b) with their bootstrap intervals, a zero line
    and the corrected p-value beside each row, the title saying how p was obtained (from
    the table's attrs).

    Parameters
    ----------
    comparisons : pandas.DataFrame
        ``stats.compare_all``'s table, with its ``attrs``.
    estimate, lower, upper : str
        The columns of the difference and its interval.
    p : str or None
        The column of the p-value written beside each row (None: none).

    Returns
    -------
    matplotlib.figure.Figure
        A row per comparison: its difference, interval and p.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.reports.figures import forest
    >>> comparisons = stats.compare_all(*data.load_example(), "blimp", n_boot=200)
    >>> fig = forest(comparisons)
    >>> print(fig.axes[0].get_title())
    Model comparisons
    p: holm-adjusted paired cluster bootstrap, 200 resamples of 23 type_id clusters (smallest raw p 0.01)
    """
    c = comparisons.reset_index(drop=True)
    labels = c["model_a"].map(_short) + " − " + c["model_b"].map(_short)
    fig, ax = plt.subplots(figsize=(8, 1.0 + 0.3 * len(c)), layout="constrained")
    y = np.arange(len(c))[::-1]
    est = c[estimate].to_numpy(float)
    err = np.abs(np.vstack([est - c[lower].to_numpy(float), c[upper].to_numpy(float) - est]))
    ax.errorbar(est, y, xerr=err, fmt="o", color="black", ms=3, capsize=2, lw=1)
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    ax.set_yticks(y, labels, fontsize=7)
    if p and p in c:
        for yi, pv in zip(y, c[p], strict=True):
            ax.annotate(f"p={pv:.2g}", (1.01, yi), xycoords=("axes fraction", "data"),
                        va="center", fontsize=7)
    metric = c["metric"].iloc[0] if "metric" in c and len(c) else estimate
    a, title = comparisons.attrs, "Model comparisons"
    if p and {"n_boot", "p_min"} <= set(a):
        adjusted = f"{a['correction']}-adjusted " if p.endswith("_adj") and a.get("correction") else ""
        title += (f"\np: {adjusted}paired {resampled(a)}, {a['n_boot']:,} resamples of "
                  f"{resampled_units(a)} (smallest raw p {a['p_min']:.2g})")
    ax.set_xlabel(f"difference in {header(metric)} (a − b)")
    ax.set_title(title, fontsize=9, wrap=True)  # broken where it would leave the figure
    return fig


@plain_text
def shallow_predictors(table: pd.DataFrame) -> Figure:
    """Accuracy per bin of each shallow predictor, a line per model (BLiMP sec. 5.2,
    Fig. 2).

    Parameters
    ----------
    table : pandas.DataFrame
        ``stats.shallow_predictors``'s table (``predictor``, ``model``, ``low``,
        ``high``, ``accuracy``).

    Returns
    -------
    matplotlib.figure.Figure
        A panel per predictor, a line per model.

    Examples
    --------
    >>> from acceptability.reports.figures import shallow_predictors
    >>> import pandas as pd
    >>> table = pd.DataFrame({"predictor": "length", "model": "gpt2", "low": [4, 6, 8],
    ...                       "high": [4, 6, 8], "accuracy": [0.9, 0.8, 0.7]})
    >>> fig = shallow_predictors(table)
    >>> fig.axes[0].get_title()
    'sentence length (words)'
    """
    from acceptability.stats.benchmarks.shallow import PREDICTORS

    names = [p for p in PREDICTORS if p in set(table["predictor"])]
    fig, axes = _grid(len(names), ncols=len(names), size=3.4)
    for ax, name in zip(axes, names, strict=False):
        part = table[table["predictor"] == name]
        for model, g in part.groupby("model", sort=False):
            x = g["low"] if name == "length" else (g["low"] + g["high"]) / 2
            ax.plot(x.to_numpy(float), g["accuracy"].to_numpy(float), marker="o", ms=3,
                    label=_short(model))
        ax.set(title=PREDICTORS[name], ylim=(0, 1), ylabel="accuracy")
        wide = name == "perplexity" and part["high"].max() > 10 * part["low"].min() > 0
        ax.set_xscale("log" if wide else "linear")
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(4, len(labels)),
               fontsize=7)
    return fig


@plain_text
def learning_curve_figure(curve: pd.DataFrame, slopes: pd.DataFrame) -> Figure:
    """Accuracy per phenomenon against log2 of the training words, one panel per benchmark,
    the mean over phenomena in grey (BLiMP §6.3, Fig. 5); legend entries carry each
    phenomenon's slope per doubling.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``scoring.training.learning_curve``'s table (``benchmark``, ``phenomenon``,
        ``n_words``, ``accuracy``, ``final``).
    slopes : pandas.DataFrame
        ``scoring.training.curve_slopes``'s table (``benchmark``, ``phenomenon``, ``slope``).

    Returns
    -------
    matplotlib.figure.Figure
        A panel per benchmark.

    Examples
    --------
    >>> from acceptability.reports.figures import learning_curve_figure
    >>> import pandas as pd
    >>> curve = pd.DataFrame({"benchmark": "blimp", "phenomenon": "island_effects",
    ...                       "n_words": [1000, 2000, 4000], "accuracy": [0.5, 0.6, 0.7],
    ...                       "final": True})
    >>> slopes = pd.DataFrame({"benchmark": "blimp", "phenomenon": ["island_effects", "overall"],
    ...                        "slope": [0.1, 0.1]})
    >>> fig = learning_curve_figure(curve, slopes)
    >>> fig.axes[0].get_title()
    'blimp'
    """
    final = curve[curve["final"]]
    names = list(dict.fromkeys(final["benchmark"]))
    fig, axes = _grid(len(names), ncols=len(names), size=4.6)
    colours = plt.get_cmap("tab20").colors  # BLiMP and Zorro have 12-13 phenomena
    for ax, name in zip(axes, names, strict=False):
        part = final[final["benchmark"] == name]
        slope = slopes[slopes["benchmark"] == name].set_index("phenomenon")["slope"]
        means = part.groupby(["phenomenon", "n_words"])["accuracy"].mean().unstack(0)
        x = np.log2(means.index.to_numpy(float))
        for i, phen in enumerate(means.columns):
            ax.plot(x, means[phen].to_numpy(float), marker="o", ms=3, lw=1,
                    color=colours[i % len(colours)],
                    label=f"{phen} ({slope.get(phen, np.nan):+.3f})")
        ax.plot(x, means.mean(axis=1).to_numpy(float), color="grey", lw=3, alpha=0.7,
                label=f"mean ({slope.get('overall', np.nan):+.3f})")
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
        ax.set(title=name, xlabel="log2(training words)", ylabel="accuracy", ylim=(0, 1))
        ax.legend(fontsize=6, ncols=2, loc="upper center", bbox_to_anchor=(0.5, -0.16),
                  title="phenomenon (slope per doubling)", title_fontsize=6)
    return fig


@plain_text
def flip_figure(curve: pd.DataFrame) -> Figure:
    """Thesis Fig. 2-3: the share of test sentences whose predicted label has flipped
    ("acrobatic") as training orders accumulate, with each order's MCC and the majority-class
    accuracy.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``stats.benchmarks.training.flip_curve``'s table (``n_shuffles``,
        ``acrobatic_pct``, ``mcc``, ``majority_accuracy``).

    Returns
    -------
    matplotlib.figure.Figure
        One axes with three lines.

    Examples
    --------
    >>> from acceptability.reports.figures import flip_figure
    >>> import pandas as pd
    >>> curve = pd.DataFrame({"n_shuffles": [1, 2, 3], "acrobatic_pct": [0.0, 5.0, 7.5],
    ...                       "mcc": [0.5, 0.52, 0.49], "majority_accuracy": 0.69})
    >>> fig = flip_figure(curve)
    >>> fig.axes[0].get_xlabel()
    'training orders'
    """
    fig, ax = plt.subplots(figsize=(5.5, 3.4), layout="constrained")
    x = curve["n_shuffles"].to_numpy()
    ax.plot(x, curve["acrobatic_pct"] / 100, marker="o", ms=3, label="acrobatic (flipped)")
    ax.plot(x, curve["mcc"], marker="s", ms=3, color="green", label="MCC of this order")
    ax.plot(x, curve["majority_accuracy"], color="orange", ls="--",
            label="majority-class accuracy")
    ax.set(xlabel="training orders", ylabel="share / MCC / accuracy", ylim=(0, 1))
    ax.legend(fontsize=7)
    return fig
