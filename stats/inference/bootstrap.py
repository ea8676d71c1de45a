"""``bootstrap``: percentile and BCa intervals for every metric of every model, by a
(cluster) bootstrap over resampling units (Efron 1987; Davison & Hinkley 1997, 3.8;
Field & Welsh 2007). Resampling, percentiles and the BCa correction are
``scipy.stats.bootstrap``'s, applied to the unit indices; the statistic turns the
resampled indices into unit counts and computes the metrics from them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.data.dataset import Dataset
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_N_BOOT, DEFAULT_SEED
from acceptability.stats.evaluate import evaluate
from acceptability.stats.inference.arrays import MetricArrays, group_masks, metric_names
from acceptability.stats.inference.resample import (
    MIN_CLUSTERS,
    Strata,
    Units,
    counts_from_indices,
    resample_dataset,
    resampling_units,
    stratify,
)

Metric = Callable | str | Sequence[str]
# at most this many unit counts (float64) per batch of resamples: 128 MB, e.g. 250
# resamples of BLiMP's 67,000 pairs when each paradigm is resampled by its pairs
COUNTS_PER_BATCH = 2**24
# how the warnings about an interval's resampling begin (reports turn them into notes)
WARNINGS = ("no bootstrap interval", "bootstrap intervals")


def cell_statistic(metric: Metric, dataset: Dataset, scores: pd.DataFrame, units: Units,
                   deltas=DEFAULT_DELTAS, max_delta: float = 5.0, by: str | None = None,
                   sign: str = "strict"):
    """The (model, metric) cells of ``metric`` ((model, ``by`` value, metric) with ``by``)
    and a vectorised statistic of unit indices giving their values, shape (cells,
    resamples), as scipy expects.

    ``stats.evaluate``, a metric name or a list of names take the fast path
    (:class:`~stats.bootstrap_arrays.MetricArrays`); any other function
    ``f(dataset, scores)`` (a float, or a frame with a ``model`` column and numeric
    columns) is called on each resampled dataset (:func:`resample_dataset`): general
    but about a thousand times slower.
    """
    if metric is evaluate or isinstance(metric, str) or (
            isinstance(metric, Sequence) and all(isinstance(m, str) for m in metric)):
        names = (metric_names(deltas) if metric is evaluate
                 else [metric] if isinstance(metric, str) else list(metric))
        arrays = MetricArrays(dataset, scores, units, names, max_delta, by, sign)
        cells = (pd.MultiIndex.from_product([arrays.models, names], names=["model", "metric"])
                 if by is None else pd.MultiIndex.from_product(
                     [arrays.models, arrays.groups, names], names=["model", by, "metric"]))

        def fast(idx, axis=-1):
            values = arrays(counts_from_indices(idx, units.n))
            return values.reshape(len(cells), -1) if np.ndim(idx) > 1 else values.reshape(-1)
        return cells, fast
    if by is not None:
        raise ValueError("by= needs stats.evaluate or metric names; a function can split "
                         "the data itself (one row per model and group, the group in `model`)")

    def cells_of(result) -> pd.Series:
        if np.isscalar(result):
            return pd.Series([float(result)], index=pd.MultiIndex.from_tuples(
                [(None, getattr(metric, "__name__", "value"))], names=["model", "metric"]))
        frame = result.set_index("model").select_dtypes("number")
        return frame.stack().rename_axis(["model", "metric"]).astype(float)

    cells = cells_of(metric(dataset, scores)).index

    def general(idx, axis=-1):
        rows = np.atleast_2d(idx)
        out = np.column_stack([
            cells_of(metric(*resample_dataset(dataset, scores, units, c))).reindex(cells)
            for c in counts_from_indices(rows, units.n)])
        return out if np.ndim(idx) > 1 else out[:, 0]
    return cells, general


def bootstrap(metric: Metric, dataset: Dataset, scores: pd.DataFrame, n: int = DEFAULT_N_BOOT,
              cluster: str | None = "type_id", ci: float = 0.95, method: str = "percentile",
              seed: int | None = DEFAULT_SEED, deltas=DEFAULT_DELTAS, max_delta: float = 5.0,
              distribution: bool = False, batch: int | None = 2_000, by: str | None = None,
              sign: str = "strict"):
    """Bootstrap intervals: one row per (model, metric) with ``estimate`` (the full
    data value), ``se``, ``lower``, ``upper``.

    metric: ``stats.evaluate`` (all its metrics), a metric name (``"r_pair"``,
        ``"adc_1"``, ...) or list of names: fast vectorised path; or any function
        ``f(dataset, scores)`` returning a float or a frame with a ``model`` column and
        numeric columns: general path, ``f`` called on each resampled dataset.
    cluster: sentence column whose values are resampled whole, with all their
        sentences and pairs; clusters linked by a pair are merged (a pair belongs to
        the unit holding its sentences), so on LI-Adger ``"type_id"`` gives the 236
        phenomena. ``None``: the naive pair bootstrap (single pairs and sentences),
        which under-covers when pairs are clustered (see tests/stats/inference/test_bootstrap.py) and
        biases ``variability`` low (a drawn-twice sentence shrinks its type's SD). Data
        of fewer than ``stats.resample.MIN_CLUSTERS`` (10) clusters, too few to resample,
        are resampled by the pairs within each cluster (a stratified bootstrap whose
        intervals are conditional on the clusters), with a warning; so is a single
        cluster (one BLiMP paradigm). ``attrs["unit"]`` says what was resampled.
    by: a sentence or pair column (``"phenomenon"``, ``"dataset"``): one interval per
        model, value of ``by`` and metric, split as ``evaluate(by=...)`` splits; each
        resample is z-scored over the whole resampled dataset. Each group's units are
        resampled within it (a stratified bootstrap), and a group of fewer than 10
        clusters (a LI-Adger phenomenon, a BLiMP paradigm: one) by the pairs within each
        (:func:`stats.resample.stratify`); columns ``unit`` (what was resampled: the
        cluster column, ``"pair"``, or ``"none"``: one unit, no interval, with a warning)
        and ``n_units``.
    method: ``"percentile"`` or ``"bca"`` (Efron 1987; acceleration by jackknife over
        units), both by ``scipy.stats.bootstrap``. seed: for ``numpy.random.default_rng``
        (default 0: the same call gives the same intervals; None: fresh entropy); kept,
        with n, cluster, ci and method, in the table's ``attrs``.
    sign: the ADC's sign convention for metric names and ``evaluate``, ``"strict"`` or
        ``"thesis"`` (``stats.metrics.sign_agree``).

    Every resample is the statistic applied to a resampled dataset: model scores are
    z-scored again over its sentences (which moves the ADC, variability and MCC; r and
    BLiMP are invariant), except scores with a published ``ref_mean``/``ref_sd``.
    Resampled copies of a unit are distinct sentence types. A cell whose estimate is a
    number but whose interval is not (the metric is undefined in some resamples) is
    named in a warning. With ``distribution=True`` also returns the bootstrap
    distribution, (resamples x (model, metric)).
    """
    if method.lower() not in ("percentile", "bca"):
        raise ValueError(f"method must be 'percentile' or 'bca', got {method!r}")
    units = resampling_units(dataset, cluster)
    strata = resampling_strata(dataset, units, cluster, by)
    cells, statistic = cell_statistic(metric, dataset, scores, strata.units, deltas, max_delta,
                                      by, sign)
    if batch is not None:  # a batch's (resamples x units) counts stay within COUNTS_PER_BATCH
        batch = max(1, min(batch, COUNTS_PER_BATCH // max(strata.units.n, 1)))

    def resampled(*idx, axis=-1):
        return statistic(strata.draws(idx))

    table = cells.to_frame(index=False).assign(estimate=resampled(*strata.samples))
    dist = np.full((len(cells), 0), np.nan)
    table["se"] = table["lower"] = table["upper"] = np.nan
    if strata.samples:
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            # NaN intervals are reported below (_warn_missing), naming their cells
            warnings.filterwarnings("ignore", category=sps.DegenerateDataWarning)
            res = sps.bootstrap(strata.samples, resampled, n_resamples=n, batch=batch,
                                vectorized=True, confidence_level=ci,
                                rng=np.random.default_rng(seed),
                                method="BCa" if method.lower() == "bca" else "percentile")
        dist = np.atleast_2d(res.bootstrap_distribution)
        table["se"], table["lower"] = res.standard_error, res.confidence_interval.low
        table["upper"] = res.confidence_interval.high
    group = (np.arange(len(cells)) // cells.get_level_values("metric").nunique()
             ) % len(strata.unit)
    unit = np.asarray(strata.unit, dtype=object)[group]
    table.loc[unit == "none", ["se", "lower", "upper"]] = np.nan
    if by is not None:
        table["unit"], table["n_units"] = unit, strata.n_units[group]
    warn_few_clusters(units, strata, cluster, by)
    _warn_missing(table, dist, by, unit)
    table.attrs.update(n=n, cluster=cluster, n_units=strata.units.n, ci=ci,
                       method=method.lower(), unit=strata.unit[0] if by is None else "per group")
    table.attrs["seed"] = seed
    if distribution:
        return table, pd.DataFrame(dist.T, columns=cells)
    return table


def resampling_strata(dataset: Dataset, units: Units, cluster: str | None,
                      by: str | None = None) -> Strata:
    """How ``bootstrap`` and ``compare_all`` resample ``units``: all together, or within
    the groups of ``by``; data of fewer than ``MIN_CLUSTERS`` clusters (units with pairs)
    as one group of them, by the pairs within each cluster (:func:`stats.resample.
    stratify`). A single unit leaves nothing to resample (unit ``"none"``)."""
    if by is not None:
        _, sentence_in, pair_in = group_masks(dataset, by)
        return stratify(dataset, units, cluster, sentence_in, pair_in,
                        sentence_column=by in dataset.sentences.columns)
    if cluster is not None and _n_clusters(units) < MIN_CLUSTERS:
        return stratify(dataset, units, cluster, [np.ones(len(dataset.sentences), bool)],
                        [np.ones(len(dataset.pairs), bool)])
    if units.n < 2:
        return Strata(units, (), np.arange(units.n), ["none"], np.array([units.n]))
    return Strata(units, (np.arange(units.n),), np.arange(0), [cluster or "pair"],
                  np.array([units.n]))


def _n_clusters(units: Units) -> int:
    """Units holding pairs (all units when there are no pairs)."""
    return len(np.unique(units.pair)) if len(units.pair) else units.n


def warn_few_clusters(units: Units, strata: Strata, cluster: str | None, by: str | None) -> None:
    """Warn where intervals rest on fewer than ``MIN_CLUSTERS`` clusters: data resampled
    by the pairs within their few clusters, and intervals from few resampled units."""
    what = cluster or "pair"
    if by is None and strata.unit[0] in ("pair", "sentence") and cluster is not None:
        k, m, unit = _n_clusters(units), int(strata.n_units[0]), strata.unit[0]
        warnings.warn(f"bootstrap intervals: the data hold {k} {cluster} cluster(s), fewer than "
                      f"{MIN_CLUSTERS}, too few to resample as clusters, so their {unit}s are "
                      f"resampled within each cluster ({m} units): the intervals are "
                      f"conditional on these clusters (they cover variation between {unit}s, "
                      "not between clusters)" + (f"; {m} units are also too few for a reliable "
                                                 "interval" if m < MIN_CLUSTERS else ""),
                      stacklevel=3)
        return
    few = [g for g, (u, m) in enumerate(zip(strata.unit, strata.n_units, strict=True))
           if u == what and 2 <= m < MIN_CLUSTERS]
    if few:
        where = "" if by is None else f" of {len(few)} {by} group(s)"
        warnings.warn(f"bootstrap intervals{where} rest on fewer than {MIN_CLUSTERS} resampling "
                      f"units ({what}; {sorted({int(strata.n_units[g]) for g in few})}): a "
                      "resample is one of few distinct ones, so the intervals are unreliable "
                      "(too narrow)", stacklevel=3)


def _warn_missing(table: pd.DataFrame, dist: np.ndarray, by: str | None,
                  unit: np.ndarray) -> None:
    """Warn about intervals that are missing although the estimate is a number."""
    missing = table["estimate"].notna() & table["lower"].isna()
    if not missing.any():
        return
    none = missing & (unit == "none")
    if by is None and none.any():
        warnings.warn("no bootstrap interval: the data hold a single resampling unit (one "
                      "pair, or pairs sharing a sentence), so there is nothing to resample",
                      stacklevel=3)
        return
    if by is not None:
        if none.any():
            groups = list(dict.fromkeys(table.loc[none, by]))
            warnings.warn(f"no bootstrap interval for {len(groups)} {by} group(s) {groups[:10]}"
                          f"{' ...' if len(groups) > 10 else ''}: each holds a single resampling "
                          "unit (one pair, or pairs sharing a sentence), so there is nothing "
                          "to resample (their 'unit' column says 'none')", stacklevel=3)
        missing &= ~none
    if missing.any():
        share = np.isnan(dist[missing.to_numpy()]).mean(axis=1) if dist.size else [np.nan]
        keys = [c for c in ("model", by, "metric") if c is not None]
        cells = [tuple(r) for r in table.loc[missing, keys].to_numpy()]
        warnings.warn(f"no bootstrap interval for {len(cells)} cell(s) {cells[:5]}"
                      f"{' ...' if len(cells) > 5 else ''}: the metric is undefined (NaN) in "
                      f"up to {np.max(share):.1%} of the resamples, which lack what it needs "
                      "(e.g. a correlation whose resampled values are all equal, a "
                      "variability without a type of two sentences)", stacklevel=3)


def with_intervals(table: pd.DataFrame, boot: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """``evaluate``'s table with ``<metric>_lower``/``<metric>_upper`` beside each
    bootstrapped metric column (matched on model, and the ``by`` column if given); per
    group also ``ci_unit`` and ``ci_n_units``, what was resampled (``bootstrap``'s
    ``unit``, ``n_units``: ``"none"`` where a group gets no interval)."""
    out = table.copy()
    keys = ["model"] if by is None else ["model", by]
    rows_of = pd.MultiIndex.from_frame(out[keys])
    for metric, rows in boot.groupby("metric", sort=False):
        bounds = rows.set_index(keys).reindex(rows_of if by else rows_of.get_level_values(0))
        at = out.columns.get_loc(metric) + 1
        for k, side in enumerate(("lower", "upper")):
            out.insert(at + k, f"{metric}_{side}", bounds[side].to_numpy())
        for col in ("unit", "n_units") if by is not None and "unit" in bounds else ():
            out[f"ci_{col}"] = bounds[col].to_numpy()
    out.attrs.update(boot.attrs)
    return out
