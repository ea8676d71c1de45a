"""The fast bootstrap path: every metric of ``evaluate`` for every model, for many
resamples at once, from a (resamples x units) count matrix and arrays built once.

A resample is a vector of unit counts, so a row's weight is the count of its unit and
every weighted sum is ``counts @ per_unit_sums``. Model scores are z-scored again in
each resample (the statistic applied to the resampled dataset): with z0 the full-data
z-scores, resampled z = (z0 - m_b) / s_b, m_b and s_b the weighted mean and SD of z0.
Correlations and the BLiMP rate are invariant to that; the ADC, its area, the
variability and MCC predictions are not. ADC and area are step / piecewise-linear
functions of 1 / s_b per pair, MCC predictions steps in m_b: `StepSums` evaluates
them exactly without a (resamples x pairs) matrix. Models standardised by a published
reference (``ref_mean``/``ref_sd``) keep fixed z-scores.

The cost follows the units, not the rows: every sum is a column of one (units x
statistics) matrix built once (about 150 columns for LI-Adger's 8 models), a block of
resamples costs one product of its counts with it (BLAS) and, per step function, the
few rows whose step lies between the full data's threshold and a resample's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cached_property

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from acceptability.data.dataset import Dataset
from acceptability.data.tables import member, signed_confidence
from acceptability.stats import metrics
from acceptability.stats.defaults import DEFAULT_MAX_DELTA
from acceptability.stats.deltas import model_grid, positions
from acceptability.stats.inference.resample import Units
from acceptability.stats.metric_sums import Columns, ModelRows, Part
from acceptability.stats.metric_table import metric_names, spec_of

ALL_METRICS = "bootstrap_metrics"  # the attribute all_metrics sets


def all_metrics(func: Callable) -> Callable:
    """Mark ``func`` (``stats.evaluate``) as giving every metric of `metric_names`.

    ``stats.bootstrap(func, ...)`` then takes the fast path for them
    (``func.bootstrap_metrics(deltas)`` names them) instead of calling ``func`` on each
    resampled dataset. A mark, not an import, so that ``evaluate`` can call the bootstrap
    without the bootstrap importing ``evaluate`` (no import cycle).

    Examples
    --------
    >>> from acceptability import stats
    >>> stats.evaluate.bootstrap_metrics((0.5,))[:3]
    ['blimp', 'adc_0.5', 'adc_area']
    """
    setattr(func, ALL_METRICS, metric_names)
    return func


# The products here on one BLAS thread: OpenBLAS's threads slow them down when the cores
# are shared (measured 20-50x on thin ones); on one thread BLAS is 10x faster than numpy's
# own loop (einsum) on the 200 statistics of 8 models.
_one_blas_thread = threadpool_limits.wrap(limits=1, user_api="blas")


class MetricArrays:
    """Arrays of one dataset and its scores, ready to give the metrics of any count
    matrix: ``MetricArrays(...)(counts)`` -> (models, metrics, resamples).

    Every metric is a function of weighted sums over rows (per-unit statistics: a
    (units x statistics) matrix built once) and of step sums at each resample's own
    z-scoring (`StepSums`): a block of resamples costs one (resamples x units) product
    and a few rows near the steps, whatever the number of rows."""

    def __init__(self, dataset: Dataset, scores: pd.DataFrame, units: Units,
                 metrics_: list[str], max_delta: float = DEFAULT_MAX_DELTA, by: str | None = None,
                 sign: str = "strict"):
        self.specs = [spec_of(m) for m in metrics_]  # a ValueError for an unknown name
        self.metrics, self.units, self.max_delta = list(metrics_), units, max_delta
        self.sign = metrics.check_sign(sign)
        s, p = dataset.sentences, dataset.pairs
        self.models, grid = model_grid(dataset, scores)
        self.z, raw = grid["z"], grid["score"]
        cls = signed_confidence(grid["method"]) if "method" in grid else np.zeros_like(raw, bool)
        # predictions fixed by the raw score (classifiers, evaluate.predicted_label)
        self.fixed_pred = np.where(cls, raw > 0, np.nan)
        self.fixed_pred[np.isnan(raw)] = np.nan
        self.restandardise = self._restandardise(dataset, scores)
        self.human = s["human"].to_numpy(float)
        self.label = s["label"].to_numpy(float)
        self.types, _ = pd.factorize(s["type_id"])
        self.good = positions(s["sentence_id"], p["good_id"])
        self.bad = positions(s["sentence_id"], p["bad_id"])
        self.dh = self.human[self.good] - self.human[self.bad]
        self.groups, self.sentence_in, self.pair_in = group_masks(dataset, by)

    def _restandardise(self, dataset: Dataset, scores: pd.DataFrame) -> np.ndarray:
        if not {"ref_mean", "ref_sd"} <= set(scores.columns):
            return np.ones(len(self.models), dtype=bool)
        sc = scores[member(scores["sentence_id"], dataset.sentences["sentence_id"])]
        has = (sc["ref_mean"].notna() & sc["ref_sd"].notna()).groupby(sc["model"]).agg(
            ["any", "all"])
        mixed = has["any"] & ~has["all"]
        if mixed.any():
            raise ValueError(f"model(s) {list(has.index[mixed])} have ref_mean/ref_sd on some rows "
                             "only; the fast bootstrap needs all or none (pass a function to "
                             "use the general path)")
        return ~has["all"].reindex(self.models).to_numpy(bool)

    @_one_blas_thread
    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """(models, metrics, resamples); with ``by``: (models, groups, metrics, resamples)."""
        out = np.full((len(self.models), len(self.groups), len(self.metrics), counts.shape[0]),
                      np.nan)
        (matrix, standard), plans = self._plans
        sums = counts @ matrix
        mean, scale = self._standardisation(sums, standard)
        for g, (_, cols) in enumerate(self._views):
            local = counts
            if cols is not None:
                local = np.concatenate([counts[:, cols], np.zeros((len(counts), 1))], axis=1)
            view_matrix, parts = plans[g]
            view_sums = sums if view_matrix is None else local @ view_matrix
            for j, part in enumerate(parts):
                for k, m in enumerate(self.metrics):
                    value = part[m](view_sums, local, mean[j], scale[j])
                    # a resample whose scores have SD 0 has no z-scores (stats.zscore)
                    out[j, g, k] = np.where(np.isnan(scale[j]), np.nan, value)
        return out if self.groups != [None] else out[:, 0]

    @cached_property
    def _views(self) -> list[tuple[MetricArrays, np.ndarray | None]]:
        """Per group: these arrays seen through the units its sentences and pairs touch
        (``cols``), every other row in one extra unit whose count is 0; the whole arrays
        (``cols`` None) when it touches all units. The values are the same, and a group's
        cost scales with its own units instead of all of them."""
        views = []
        for s_in, p_in in zip(self.sentence_in, self.pair_in, strict=True):
            cols = np.union1d(self.units.sentence[s_in], self.units.pair[p_in])
            if len(cols) == self.units.n:
                views.append((self, None))
                continue
            code = np.full(self.units.n, len(cols))
            code[cols] = np.arange(len(cols))
            view = copy.copy(self)
            view.units = Units(code[self.units.sentence], code[self.units.pair], len(cols) + 1,
                               self.units.types_nested)
            views.append((view, cols))
        return views

    @cached_property
    def _plans(self) -> tuple[tuple[np.ndarray, list], list]:
        """The per-unit statistics of all units (the standardisation's columns, then those
        of the groups that touch every unit) and, per group, its own matrix (None: the
        shared one) and each model's metric `Part` functions."""
        shared = Columns(self.units.n)
        standard = [shared.add(self.units.sentence, *self._standard_rows(j))
                    for j in range(len(self.models))]
        plans = []
        for g, (view, cols) in enumerate(self._views):
            columns = shared if cols is None else Columns(view.units.n)
            parts = [view._plan(columns, j, self.sentence_in[g], self.pair_in[g])
                     for j in range(len(self.models))]
            plans.append((columns, parts))
        matrix = shared.matrix()
        return (matrix, standard), [(None if c is shared else c.matrix(), parts)
                                    for c, parts in plans]

    def _standard_rows(self, j: int) -> tuple[np.ndarray, ...]:
        """Rows summed for model j's resampled mean and SD: valid, z0, z0**2 (none for a
        model standardised by a published reference)."""
        if not self.restandardise[j]:
            return ()
        z = self.z[:, j]
        valid = ~np.isnan(z)
        z0 = np.where(valid, z, 0.0)
        return valid.astype(float), z0, z0**2

    def _standardisation(self, sums: np.ndarray, standard: list[list[int]]
                         ) -> tuple[np.ndarray, np.ndarray]:
        """Each resample's mean and 1 / SD of each model's full-data z-scores, over all
        sentences (fixed 0 and 1 for scores standardised by a published reference)."""
        mean, scale = np.zeros((len(standard), len(sums))), np.ones((len(standard), len(sums)))
        for j, cols in enumerate(standard):
            if cols:
                n, s1, s2 = sums[:, cols].T
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean[j] = s1 / n
                sd = metrics.sd_from_sums(n, s1, s2)
                scale[j] = np.where(sd > 0, 1 / np.where(sd > 0, sd, 1), np.nan)
        return mean, scale

    def _plan(self, columns: Columns, j: int, sentence_in: np.ndarray,
              pair_in: np.ndarray) -> dict[str, Part]:
        """Model j's metrics over the sentences and pairs selected by the two masks: their
        per-unit statistics added to ``columns``, and a `Part` giving each metric."""
        up = self.units.pair
        z = self.z[:, j]
        valid = ~np.isnan(z) & sentence_in
        d0 = np.where(pair_in, z[self.good] - z[self.bad], np.nan)
        both = ~(np.isnan(d0) | np.isnan(self.dh))
        dh, dl = self.dh[both], d0[both]
        rows = ModelRows(
            columns=columns, sentence_unit=self.units.sentence, pair_unit=up,
            types_nested=self.units.types_nested, z=z, valid=valid, z0=np.where(valid, z, 0.0),
            d0=d0, human=self.human, label=self.label, types=self.types,
            fixed=self.fixed_pred[:, j], dh=dh, dl=dl, both_unit=up[both],
            agree=metrics.sign_agree(dh, dl, self.sign),
            n_both=columns.add(up[both], np.ones_like(dh))[0], max_delta=self.max_delta)
        return {m: spec.sums(rows, delta)  # the table's per-unit sums of each metric
                for m, (spec, delta) in zip(self.metrics, self.specs, strict=True)}


def group_masks(dataset: Dataset, by: str | None
                ) -> tuple[list, list[np.ndarray], list[np.ndarray]]:
    """The values of ``by`` and, for each, masks of its sentences and pairs, as ``evaluate``
    splits them: pairs without a ``by`` column take their good sentence's value; sentences
    without one form a NaN group. ``by=None``: one group, [None], holding everything.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.inference.arrays import group_masks
    >>> ds, _ = data.load_example()
    >>> groups, sentence_in, pair_in = group_masks(ds, "dataset")
    >>> groups, int(sentence_in[0].sum()), int(pair_in[0].sum())
    (['published example'], 57, 29)
    """
    s, p = dataset.sentences, dataset.pairs
    if by is None:
        return [None], [np.ones(len(s), bool)], [np.ones(len(p), bool)]
    sent = s[by] if by in s.columns else pd.Series(np.nan, index=s.index)
    pair = (p[by] if by in p.columns
            else p["good_id"].map(s.set_index("sentence_id")[by]) if by in s.columns else None)
    if pair is None:
        raise KeyError(f"cannot break down by {by!r}: no such column in the sentences or pairs")
    codes, groups = pd.factorize(pd.concat([pair, sent], ignore_index=True), use_na_sentinel=False)
    pair_codes, sent_codes = codes[:len(p)], codes[len(p):]
    return (list(groups), [sent_codes == g for g in range(len(groups))],
            [pair_codes == g for g in range(len(groups))])
