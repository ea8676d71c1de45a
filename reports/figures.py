"""Report figures, each a public function that takes a ``stats`` output table and returns
a matplotlib ``Figure`` (Agg backend: no display needed).

Thesis (Vázquez Martínez 2021) figs 2-4/2-6/3-1/3-3 (correlation heatmaps), 2-5/3-2
(human vs model scatter), 2-7/3-4 (delta scatter); seed 004 fig. 2 (type means and SDs).
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from acceptability.reports.labels import header, resampled  # noqa: E402
from acceptability.stats import metrics  # noqa: E402

JITTER, ALPHA = 0.05, 0.3  # thesis figs 2-5, 2-7, 3-2, 3-4: x-jitter 0.05, alpha 0.3


def _short(name: object, width: int = 28) -> str:
    """A model name short enough for a tick label (local model paths can be long)."""
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


def correlation_heatmap(matrix: pd.DataFrame, title: str = "Pearson r") -> Figure:
    """Correlation matrix of humans and models as an annotated heatmap (thesis figs 2-4,
    3-1 at sentence level; 2-6, 3-3 at pair level); input: ``stats.correlation_matrix``."""
    n = len(matrix)
    fig, ax = plt.subplots(figsize=(max(5.0, 1.5 + 0.7 * n), max(4.0, 1.0 + 0.6 * n)),
                           layout="constrained")
    sns.heatmap(_labelled(matrix), vmin=-1, vmax=1, cmap="RdBu_r", annot=True, fmt=".2f", square=True,
                cbar_kws={"shrink": 0.7}, ax=ax, annot_kws={"size": 8})
    ax.set_title(title)
    ax.tick_params(axis="x", labelrotation=45)
    plt.setp(ax.get_xticklabels(), ha="right")
    return fig


def _scatter(frame: pd.DataFrame, x: str, y: str, xlabel: str, ylabel: str,
             seed: int) -> Figure:
    rng = np.random.default_rng(seed)
    models = list(dict.fromkeys(frame["model"]))
    fig, axes = _grid(len(models))
    for ax, model in zip(axes, models, strict=False):
        g = frame.loc[frame["model"] == model, [x, y]].dropna()
        ax.set_title(_short(model, 40), fontsize=9)
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


def human_vs_model(sentence_frame: pd.DataFrame, seed: int = 0) -> Figure:
    """Human judgment (y) vs model z-score (x) per sentence, one panel per model, with
    x-jitter 0.05, alpha 0.3 and the least-squares line in red (thesis figs 2-5, 3-2);
    input: ``stats.sentence_frame``."""
    return _scatter(sentence_frame, "z", "human", "model z-score", "human judgment", seed)


def delta_scatter(pair_deltas: pd.DataFrame, seed: int = 0) -> Figure:
    """Human delta (y) vs model delta (x) per minimal pair, as :func:`human_vs_model`
    (thesis figs 2-7, 3-4); input: ``stats.pair_deltas``."""
    return _scatter(pair_deltas, "dlm", "dh", "model delta (z)", "human delta", seed)


def adc_curve(curve: pd.DataFrame, intervals: pd.DataFrame | None = None,
              marks=(0.5, 1.0, 5.0)) -> Figure:
    """ADC pass rate against delta per model and, in the legend, the normalised area
    under the curve (thesis 1.3.3), the deltas of Table 3.1 marked, with error bars at
    them from ``intervals`` (the report's tidy ``stats.bootstrap`` table: ``model,
    metric, lower, upper`` with ``adc_<delta>`` rows), the tables' cluster-bootstrap
    intervals; input: ``stats.adc_curve``."""
    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    bounds = (intervals.set_index(["model", "metric"])[["estimate", "lower", "upper"]]
              if intervals is not None and len(intervals) else None)
    for model, g in curve.groupby("model", sort=False):
        if g["pass_rate"].isna().all():
            continue
        area = curve.attrs.get("area", {}).get(model)
        label = _short(model, 40) + (f" (area {area:.3f})" if area is not None else "")
        (line,) = ax.plot(g["delta"], g["pass_rate"], lw=1.5, label=label)
        keys = [(model, f"adc_{d:g}") for d in marks]
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


def accuracy_bars(by_group: pd.DataFrame, by: str, metrics=("blimp", "adc_1")) -> Figure:
    """Per-group (paradigm, phenomenon, sub-dataset) BLiMP-criterion and ADC pass rates
    per model, with error bars from ``<metric>_lower``/``_upper`` where the table has
    them (the per-group cluster-bootstrap intervals of ``stats.evaluate(..., by=by,
    ci=True)`` or ``reports.analysis.group_intervals``); input: ``stats.evaluate(...,
    by=by)``."""
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
            ax.bar(x, rate, width, label=_short(model, 40), yerr=err, capsize=2,
                   error_kw={"lw": 0.8})
        ax.set_xticks(np.arange(len(groups)), groups, rotation=30 if len(groups) > 6 else 0,
                      ha="right" if len(groups) > 6 else "center", fontsize=8)
        ax.set(ylim=(0, 1), ylabel=header(metric), title=f"{header(metric)} by {by}")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(4, len(models)), fontsize=7)
    return fig


def type_mean_sd(types: pd.DataFrame) -> Figure:
    """Each sentence type's mean against its SD, one panel per source (humans first), the
    panel title giving the mean SD (seed 004 section 4); input: ``Variability.types``."""
    sources = list(dict.fromkeys(types["source"]))
    fig, axes = _grid(len(sources), ncols=5, size=2.6)
    for ax, source in zip(axes, sources, strict=False):
        g = types[types["source"] == source].dropna(subset=["mean", "sd"])
        ax.scatter(g["mean"], g["sd"], s=5, alpha=0.5, linewidths=0,
                   color="black" if source == "human" else "tab:blue")
        ax.set_title(f"{_short(source)}\nmean SD = {g['sd'].mean():.3f}", fontsize=8)
        ax.set(xlabel="type mean (z)", ylabel="type SD")
    return fig


def type_correlations(mean_corr: pd.DataFrame, sd_corr: pd.DataFrame) -> Figure:
    """Correlation matrices of per-type means (top) and per-type SDs (bottom) across humans
    and models (seed 004 fig. 2); inputs: ``Variability.mean_corr`` and ``.sd_corr``."""
    n = len(mean_corr)
    fig, axes = plt.subplots(2, 1, figsize=(max(5.0, 1.5 + 0.7 * n), 2 * max(4.0, 1.0 + 0.6 * n)),
                             layout="constrained")
    for ax, matrix, what in zip(axes, (mean_corr, sd_corr), ("means", "SDs"), strict=True):
        sns.heatmap(_labelled(matrix), vmin=-1, vmax=1, cmap="RdBu_r", annot=True, fmt=".2f", square=True,
                    ax=ax, cbar_kws={"shrink": 0.7}, annot_kws={"size": 7})
        ax.set(title=f"Correlation of type {what}", xlabel="", ylabel="")
        ax.tick_params(axis="x", labelrotation=45)
        plt.setp(ax.get_xticklabels(), ha="right")
    return fig


def forest(comparisons: pd.DataFrame, estimate: str = "difference", lower: str = "lower",
           upper: str = "upper", p: str | None = "p_boot_adj") -> Figure:
    """Forest plot of model differences (a − b) with their bootstrap intervals, a zero line
    and the corrected p-value beside each row, the title saying how p was obtained (from
    the table's attrs); input: ``stats.compare_all``."""
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
    if p and {"n", "p_min"} <= set(a):
        adjusted = f"{a['correction']}-adjusted " if p.endswith("_adj") and a.get("correction") else ""
        title += (f"\np: {adjusted}paired {resampled(a)}, {a['n']:,} resamples "
                  f"(smallest raw p {a['p_min']:.2g})")
    ax.set_xlabel(f"difference in {header(metric)} (a − b)")
    ax.set_title(title, fontsize=9)
    return fig


def shallow_predictors(table: pd.DataFrame) -> Figure:
    """Accuracy per bin of each shallow predictor, a line per model (BLiMP sec. 5.2,
    Fig. 2); input: ``stats.shallow_predictors``."""
    from acceptability.stats.benchmarks.shallow import PREDICTORS

    names = [p for p in PREDICTORS if p in set(table["predictor"])]
    fig, axes = _grid(len(names), ncols=len(names), size=3.4)
    for ax, name in zip(axes, names, strict=False):
        part = table[table["predictor"] == name]
        for model, g in part.groupby("model", sort=False):
            x = g["low"] if name == "length" else (g["low"] + g["high"]) / 2
            ax.plot(x.to_numpy(float), g["accuracy"].to_numpy(float), marker="o", ms=3,
                    label=_short(model, 40))
        ax.set(title=PREDICTORS[name], ylim=(0, 1), ylabel="accuracy")
        wide = name == "perplexity" and part["high"].max() > 10 * part["low"].min() > 0
        ax.set_xscale("log" if wide else "linear")
        ax.axhline(0.5, color="grey", lw=0.6, ls=":")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=min(4, len(labels)),
               fontsize=7)
    return fig


def learning_curve_figure(curve: pd.DataFrame, slopes: pd.DataFrame) -> Figure:
    """Accuracy per phenomenon against log2 of the training words, one panel per benchmark,
    the mean over phenomena in grey (BLiMP §6.3, Fig. 5); legend entries carry each
    phenomenon's slope per doubling. Input: ``reports.training.learning_curve`` and
    ``curve_slopes``."""
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


def flip_figure(curve: pd.DataFrame) -> Figure:
    """Thesis Fig. 2-3: the share of test sentences whose predicted label has flipped
    ("acrobatic") as training orders accumulate, with each order's MCC and the majority-class
    accuracy. Input: ``stats.training.flip_curve``."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4), layout="constrained")
    x = curve["n_shuffles"].to_numpy()
    ax.plot(x, curve["acrobatic_pct"] / 100, marker="o", ms=3, label="acrobatic (flipped)")
    ax.plot(x, curve["mcc"], marker="s", ms=3, color="green", label="MCC of this order")
    ax.plot(x, curve["majority_accuracy"], color="orange", ls="--",
            label="majority-class accuracy")
    ax.set(xlabel="training orders", ylabel="share / MCC / accuracy", ylim=(0, 1))
    ax.legend(fontsize=7)
    return fig
