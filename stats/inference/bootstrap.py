"""``bootstrap``: percentile and BCa intervals for every metric of every model, by a
(cluster) bootstrap over resampling units (Efron 1987; Davison & Hinkley 1997, 3.8;
Field & Welsh 2007). The units are resampled by the engine
(``stats.inference.engine.resample``); the statistic turns the resampled unit indices into
unit counts and computes the metrics from them.

A unit is a cluster (``cluster="type_id"``: on LI-Adger the 236 phenomena, as a pair
joins the clusters of its sentences) with all its sentences and pairs; ``cluster=None``
resamples single pairs and sentences (the naive pair bootstrap, which under-covers when
pairs are clustered, tests/stats/inference/test_bootstrap.py, and biases ``variability``
low). Data of fewer than ``MIN_CLUSTERS`` clusters, too few to resample, are resampled by
the pairs within each cluster (an interval conditional on the clusters), with a warning;
so is a single cluster (one BLiMP paradigm). With ``by``, each group's units are
resampled within it, a group of fewer than 10 clusters by its pairs (a LI-Adger
phenomenon, a BLiMP paradigm), and a group of one unit gets no interval.

Every resample is the statistic applied to a resampled dataset: model scores are z-scored
again over its sentences (which moves the ADC, variability and MCC; r and BLiMP are
invariant), except scores with a published ``ref_mean``/``ref_sd``. Resampled copies of a
unit are distinct sentence types.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from acceptability._warnings import warn
from acceptability.data.dataset import Dataset
from acceptability.stats.arguments import check_resampling
from acceptability.stats.defaults import (
    DEFAULT_DELTAS,
    DEFAULT_MAX_DELTA,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
)
from acceptability.stats.inference.arrays import ALL_METRICS, MetricArrays, group_masks
from acceptability.stats.inference.engine import Resamples, Seed, block_size, resample
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
# how the warnings about an interval's resampling begin (reports turn them into notes)
WARNINGS = ("no bootstrap interval", "bootstrap intervals")


def cell_statistic(metric: Metric, dataset: Dataset, scores: pd.DataFrame, units: Units,
                   deltas=DEFAULT_DELTAS, max_delta: float = DEFAULT_MAX_DELTA,
                   by: str | None = None, sign: str = "strict"):
    """The (model, metric) cells of ``metric`` ((model, ``by`` value, metric) with ``by``)
    and a vectorised statistic of unit indices giving their values, shape (cells,
    resamples), as the engine (``stats.inference.engine.resample``) expects.

    ``stats.evaluate`` (marked by `stats.inference.arrays.all_metrics`), a metric name or
    a list of names take the fast path (``stats.inference.arrays.MetricArrays``); any
    other function ``f(dataset, scores)`` (a float, or a frame with a ``model`` column
    and numeric columns) is called on each resampled dataset (`resample_dataset`):
    general but about a thousand times slower.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability import data
    >>> from acceptability.stats.inference import resampling_units
    >>> from acceptability.stats.inference.bootstrap import cell_statistic
    >>> ds, scores = data.load_example()
    >>> units = resampling_units(ds)
    >>> cells, statistic = cell_statistic("blimp", ds, scores, units)
    >>> list(cells)[0], statistic(np.arange(units.n)).round(3).tolist()
    (('bert-large-cased_acc', 'blimp'), [0.85, 0.438, 0.875])
    """
    every = getattr(metric, ALL_METRICS, None)  # stats.evaluate: its metric names
    if every is not None or isinstance(metric, str) or (
            isinstance(metric, Sequence) and all(isinstance(m, str) for m in metric)):
        names = (every(deltas) if every is not None
                 else [metric] if isinstance(metric, str) else list(metric))
        arrays = MetricArrays(dataset, scores, units, names, max_delta, by, sign)
        cells = (pd.MultiIndex.from_product([arrays.models, names], names=["model", "metric"])
                 if by is None else pd.MultiIndex.from_product(
                     [arrays.models, arrays.groups, names], names=["model", by, "metric"]))

        def fast(idx, axis=-1):
            values = arrays(counts_from_indices(idx, units.n))
            return values.reshape(len(cells), -1) if np.ndim(idx) > 1 else values.reshape(-1)
        return cells, fast
    if not callable(metric):
        raise TypeError(f"metric={metric!r} ({type(metric).__name__}): a metric is stats."
                        "evaluate, a metric name such as 'r_pair', a list of names, or a "
                        "function f(dataset, scores)")
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


def bootstrap(metric: Metric, dataset: Dataset, scores: pd.DataFrame,
              n_boot: int = DEFAULT_N_BOOT, cluster: str | None = "type_id", ci: float = 0.95,
              method: str = "percentile", seed: Seed = DEFAULT_SEED, deltas=DEFAULT_DELTAS,
              max_delta: float = DEFAULT_MAX_DELTA, distribution: bool = False,
              batch: int | None = 2_000, by: str | None = None, sign: str = "strict"):
    """Bootstrap intervals of metrics, one row per (model, metric) (module doc: what a
    resample is; a cell whose interval is undefined is named in a warning).

    Parameters
    ----------
    metric
        ``stats.evaluate`` (all its metrics), a metric name (``"r_pair"``, ``"adc_1"``)
        or list of names: the fast vectorised path; or any function ``f(dataset,
        scores)`` giving a float or a frame with a ``model`` column and numeric
        columns, called on each resampled dataset.
    dataset, scores
        The data and the long scores table.
    n_boot
        Resamples, 20 to 1,000,000.
    cluster
        Sentence column resampled whole (clusters linked by a pair merged: on LI-Adger
        ``"type_id"`` gives the 236 phenomena); ``None``: the naive pair bootstrap,
        which under-covers clustered pairs. Fewer than ``MIN_CLUSTERS`` (10) clusters
        are resampled by the pairs within each, with a warning (``attrs["unit"]``).
    ci, method
        Interval level, between 0 and 1; ``"percentile"`` or ``"bca"`` (Efron 1987).
    seed
        For ``numpy.random.default_rng``: 0 to 2**32 - 1 (default 0), a Generator, or
        None (fresh entropy).
    deltas, max_delta, sign
        As in `stats.evaluate`.
    distribution
        Also return the bootstrap distribution, (resamples x (model, metric)).
    batch
        Resamples evaluated at once (fewer where the units are many; None: all).
    by
        A sentence or pair column: one interval per model, value and metric, each
        group's units resampled within it (``stats.inference.resample.stratify``).

    Returns
    -------
    pandas.DataFrame
        ``model``, (``by``,) ``metric``, ``estimate``, ``se``, ``lower``, ``upper``;
        with ``by`` also ``unit`` (the cluster column, ``"pair"``, or ``"none"``: no
        interval) and ``n_units``. ``attrs`` keep the settings.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> table = stats.bootstrap(["blimp", "r_pair"], ds, scores, n_boot=200, cluster=None)
    >>> table.loc[0, ["model", "metric"]].tolist(), table.attrs["unit"]
    (['bert-large-cased_acc', 'blimp'], 'pair')
    >>> table.loc[0, ["estimate", "lower", "upper"]].astype(float).round(2).tolist()
    [0.85, 0.67, 1.0]
    """
    n_boot, ci, seed, deltas, max_delta = check_resampling(n_boot, ci, method, seed, deltas,
                                                           max_delta, batch)
    units = resampling_units(dataset, cluster)
    strata = resampling_strata(dataset, units, cluster, by)
    cells, statistic = cell_statistic(metric, dataset, scores, strata.units, deltas, max_delta,
                                      by, sign)

    def resampled(*idx, axis=-1):
        return statistic(strata.draws(idx))

    with np.errstate(invalid="ignore"):  # NaN intervals are named by _warn_missing
        res = (resample(strata.samples, resampled, n_boot, ci, method, seed,
                        block_size(strata.units.n, batch)) if strata.samples else None)
    table, dist = _table(cells, res, resampled, strata, by)
    warn_few_clusters(units, strata, cluster, by)
    _warn_missing(table, dist, by, table["unit"].to_numpy())
    if by is None:
        table = table.drop(columns=["unit", "n_units"])
    table.attrs.update(n_boot=n_boot, cluster=cluster, n_units=strata.units.n, ci=ci,
                       method=method.lower(), unit=strata.unit[0] if by is None else "per group",
                       seed=seed)
    if distribution:
        return table, pd.DataFrame(dist.T, columns=cells)
    return table


def _table(cells: pd.MultiIndex, res: Resamples | None, resampled: Callable, strata: Strata,
           by: str | None) -> tuple[pd.DataFrame, np.ndarray]:
    """``bootstrap``'s table (with each cell's ``unit`` and ``n_units``) and distribution
    (cells x resamples) from the engine's results (None: nothing was resampled)."""
    table = cells.to_frame(index=False).assign(
        estimate=resampled(*strata.samples) if res is None else res.estimate)
    table["se"] = table["lower"] = table["upper"] = np.nan
    dist = np.full((len(cells), 0), np.nan)
    if res is not None:
        dist = np.atleast_2d(res.distribution)
        table["se"], table["lower"], table["upper"] = res.se, res.lower, res.upper
    group = (np.arange(len(cells)) // cells.get_level_values("metric").nunique()
             ) % len(strata.unit)
    table["unit"] = np.asarray(strata.unit, dtype=object)[group]
    table["n_units"] = strata.n_units[group]
    table.loc[table["unit"] == "none", ["se", "lower", "upper"]] = np.nan
    return table, dist


def resampling_strata(dataset: Dataset, units: Units, cluster: str | None,
                      by: str | None = None) -> Strata:
    """How ``bootstrap`` and ``compare_all`` resample ``units``: all together, or within
    the groups of ``by``; data of fewer than ``MIN_CLUSTERS`` clusters (units with pairs)
    as one group of them, by the pairs within each cluster
    (`stats.inference.resample.stratify`). A single unit leaves nothing to resample (unit
    ``"none"``).

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.inference import resampling_units
    >>> from acceptability.stats.inference.bootstrap import resampling_strata
    >>> ds, _ = data.load_example()
    >>> strata = resampling_strata(ds, resampling_units(ds), "type_id")
    >>> strata.unit, len(strata.samples[0])
    (['type_id'], 23)
    """
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
    by the pairs within their few clusters, and intervals from few resampled units.

    Examples
    --------
    >>> import warnings
    >>> from acceptability import data
    >>> from acceptability.stats.inference import resampling_units
    >>> from acceptability.stats.inference.bootstrap import resampling_strata, warn_few_clusters
    >>> ds, _ = data.load_example()
    >>> units = resampling_units(ds, "dataset")  # one cluster: its pairs are resampled
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_few_clusters(units, resampling_strata(ds, units, "dataset"), "dataset", None)
    >>> str(caught[0].message)[:58]
    'bootstrap intervals: the data hold 1 dataset cluster(s), f'
    """
    what = cluster or "pair"
    if by is None and strata.unit[0] in ("pair", "sentence") and cluster is not None:
        k, m, unit = _n_clusters(units), int(strata.n_units[0]), strata.unit[0]
        warn(f"bootstrap intervals: the data hold {k} {cluster} cluster(s), fewer than "
             f"{MIN_CLUSTERS}, too few to resample as clusters, so their {unit}s are "
             f"resampled within each cluster ({m} units): the intervals are "
             f"conditional on these clusters (they cover variation between {unit}s, "
             "not between clusters)" + (f"; {m} units are also too few for a reliable "
                                        "interval" if m < MIN_CLUSTERS else ""))
        return
    few = [g for g, (u, m) in enumerate(zip(strata.unit, strata.n_units, strict=True))
           if u == what and 2 <= m < MIN_CLUSTERS]
    if few:
        where = "" if by is None else f" of {len(few)} {by} group(s)"
        warn(f"bootstrap intervals{where} rest on fewer than {MIN_CLUSTERS} resampling "
             f"units ({what}; {sorted({int(strata.n_units[g]) for g in few})}): a "
             "resample is one of few distinct ones, so the intervals are unreliable "
             "(too narrow)")


def _warn_missing(table: pd.DataFrame, dist: np.ndarray, by: str | None,
                  unit: np.ndarray) -> None:
    """Warn about intervals that are missing although the estimate is a number."""
    missing = table["estimate"].notna() & table["lower"].isna()
    if not missing.any():
        return
    none = missing & (unit == "none")
    if by is None and none.any():
        warn("no bootstrap interval: the data hold a single resampling unit (one "
             "pair, or pairs sharing a sentence), so there is nothing to resample")
        return
    if by is not None:
        if none.any():
            groups = list(dict.fromkeys(table.loc[none, by]))
            warn(f"no bootstrap interval for {len(groups)} {by} group(s) {groups[:10]}"
                 f"{' ...' if len(groups) > 10 else ''}: each holds a single resampling "
                 "unit (one pair, or pairs sharing a sentence), so there is nothing "
                 "to resample (their 'unit' column says 'none')")
        missing &= ~none
    if missing.any():
        share = np.isnan(dist[missing.to_numpy()]).mean(axis=1) if dist.size else [np.nan]
        keys = [c for c in ("model", by, "metric") if c is not None]
        cells = [tuple(r) for r in table.loc[missing, keys].to_numpy()]
        warn(f"no bootstrap interval for {len(cells)} cell(s) {cells[:5]}"
             f"{' ...' if len(cells) > 5 else ''}: the metric is undefined (NaN) in "
             f"up to {np.max(share):.1%} of the resamples, which lack what it needs "
             "(e.g. a correlation whose resampled values are all equal, a "
             "variability without a type of two sentences)")


def with_intervals(table: pd.DataFrame, boot: pd.DataFrame, by: str | None = None) -> pd.DataFrame:
    """``evaluate``'s table with ``<metric>_lower``/``<metric>_upper`` beside each
    bootstrapped metric column (matched on model, and the ``by`` column if given); per
    group also ``ci_unit`` and ``ci_n_units``, what was resampled (``bootstrap``'s
    ``unit``, ``n_units``: ``"none"`` where a group gets no interval).

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.stats.inference.bootstrap import with_intervals
    >>> ds, scores = data.load_example()
    >>> boot = stats.bootstrap("blimp", ds, scores, n_boot=100, cluster=None)
    >>> table = with_intervals(stats.evaluate(ds, scores), boot)
    >>> list(table.columns[6:10])
    ['blimp', 'blimp_lower', 'blimp_upper', 'adc_0.5']
    """
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
