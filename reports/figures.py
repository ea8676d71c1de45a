"""Report figures, each a public function that takes a ``stats`` output table and returns
a matplotlib ``Figure`` (Agg backend: no display needed).

Thesis (Vázquez Martínez 2021) figs 2-4/2-6/3-1/3-3 (correlation heatmaps), 2-5/3-2
(human vs model scatter), 2-7/3-4 (delta scatter); seed 004 fig. 2 (type means and SDs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import seaborn as sns  # noqa: E402
from acceptability.stats import metrics  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from statsmodels.stats.proportion import proportion_confint  # noqa: E402

from .labels import header  # noqa: E402

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


def _wilson(rate: pd.Series, n: pd.Series, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for a pass rate over ``n`` pairs (pairs treated as independent)."""
    n = n.to_numpy(float)
    ok = n > 0
    lo, hi = np.full(len(n), np.nan), np.full(len(n), np.nan)
    count = np.round(rate.to_numpy(float)[ok] * n[ok])
    lo[ok], hi[ok] = proportion_confint(count, n[ok], alpha=1 - level, method="wilson")
    return lo, hi


def adc_curve(curve: pd.DataFrame, n_pairs: Mapping[str, int], marks=(0.5, 1.0, 5.0),
              level: float = 0.95) -> Figure:
    """ADC pass rate against delta per model with a Wilson ``level`` band and, in the
    legend, the normalised area under the curve (thesis 1.3.3; the deltas of Table 3.1
    marked); inputs: ``stats.adc_curve`` and each model's number
    of pairs with human and model deltas (``n_pairs_human`` of ``stats.evaluate``)."""
    fig, ax = plt.subplots(figsize=(7, 4.5), layout="constrained")
    for model, g in curve.groupby("model", sort=False):
        if g["pass_rate"].isna().all():
            continue
        lo, hi = _wilson(g["pass_rate"], pd.Series(n_pairs.get(model, 0), index=g.index), level)
        area = curve.attrs.get("area", {}).get(model)
        label = _short(model, 40) + (f" (area {area:.3f})" if area is not None else "")
        (line,) = ax.plot(g["delta"], g["pass_rate"], lw=1.5, label=label)
        ax.fill_between(g["delta"], lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    for d in marks:
        ax.axvline(d, color="grey", lw=0.8, ls=":")
    ax.set(xlabel="delta", ylabel="ADC pass rate", ylim=(0, 1), xlim=(0, curve["delta"].max()),
           title=f"ADC pass rate against delta ({level:.0%} Wilson bands)")
    ax.legend(fontsize=8, loc="lower right")
    return fig


def accuracy_bars(by_group: pd.DataFrame, by: str, metrics=("blimp", "adc_1"),
                  level: float = 0.95) -> Figure:
    """Per-group (paradigm, phenomenon, sub-dataset) BLiMP-criterion and ADC pass rates
    per model with Wilson ``level`` error bars; input: ``stats.evaluate(..., by=by)``."""
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
            n = g["n_pairs" if metric == "blimp" else "n_pairs_human"].fillna(0)
            lo, hi = _wilson(g[metric], n, level)
            rate = g[metric].to_numpy(float)
            x = np.arange(len(groups)) + (i - (len(models) - 1) / 2) * width
            ax.bar(x, rate, width, label=_short(model, 40), yerr=np.abs(np.vstack([rate - lo, hi - rate])),
                   capsize=2, error_kw={"lw": 0.8})
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
    and the corrected p-value beside each row; input: ``stats.compare_all``."""
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
    ax.set(xlabel=f"difference in {header(metric)} (a − b)", title="Model comparisons")
    return fig
