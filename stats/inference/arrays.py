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
import re
from collections.abc import Callable
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from threadpoolctl import threadpool_limits

from acceptability.data.dataset import Dataset
from acceptability.data.tables import member
from acceptability.stats import metrics
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_MAX_DELTA
from acceptability.stats.deltas import model_grid, positions
from acceptability.stats.inference.resample import Units


def metric_names(deltas=DEFAULT_DELTAS) -> list[str]:
    """The metric columns of ``evaluate`` for these ADC deltas, in its order.

    Examples
    --------
    >>> from acceptability.stats.inference.arrays import metric_names
    >>> metric_names([1])
    ['blimp', 'adc_1', 'adc_area', 'r_sentence', 'r_pair', 'variability', 'mcc']
    """
    return (["blimp"] + [f"adc_{float(d):g}" for d in deltas]
            + ["adc_area", "r_sentence", "r_pair", "variability", "mcc"])


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


_ADC = re.compile(r"adc_(\d*\.?\d+(?:e-?\d+)?)$")


def adc_delta(name: str) -> float | None:
    """The delta of an ``adc_<delta>`` metric name, else None.

    Examples
    --------
    >>> from acceptability.stats.inference.arrays import adc_delta
    >>> adc_delta("adc_0.5"), adc_delta("adc_area")
    (0.5, None)
    """
    match = _ADC.match(name)
    return float(match.group(1)) if match else None


def missing_for(dataset: Dataset, metric: str) -> str | None:
    """What ``dataset`` lacks to define ``metric`` (a name of `metric_names`, any
    ``adc_<delta>``), or None: minimal pairs (BLiMP, ADC, r_pair), gradient human
    judgments (ADC, correlations), expert labels (MCC), a sentence type with two or
    more sentences (variability).

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.inference.arrays import missing_for
    >>> ds, _ = data.load_example()
    >>> one_pair = ds.subset(ds.pairs["pair_id"][:1])
    >>> missing_for(ds, "variability"), missing_for(one_pair, "variability")
    (None, 'sentence types with two or more sentences')
    """
    s = dataset.sentences
    adc = metric == "adc_area" or adc_delta(metric) is not None
    if (metric in ("blimp", "r_pair") or adc) and len(dataset.pairs) == 0:
        return "minimal pairs"
    if (metric in ("r_sentence", "r_pair") or adc) and not s["human"].notna().any():
        return "gradient human judgments"
    if metric == "mcc" and not s["label"].notna().any():
        return "expert labels"
    if metric == "variability" and not s["type_id"].duplicated().any():
        return "sentence types with two or more sentences"
    return None


def check_metric(dataset: Dataset, metric: str) -> str:
    """``metric`` if ``dataset`` defines it (`missing_for`), else a ValueError
    saying what is missing and which metrics it does define.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.inference.arrays import check_metric
    >>> ds, _ = data.load_example()
    >>> check_metric(ds, "adc_1")
    'adc_1'
    """
    lacks = missing_for(dataset, metric)
    if lacks is not None:
        have = [m for m in metric_names() if missing_for(dataset, m) is None]
        raise ValueError(f"metric {metric!r} needs {lacks}, which dataset "
                         f"{getattr(dataset, 'name', '')!r} lacks; it defines {have}")
    return metric


class StepSums:
    """Per-unit step functions F_u(t) = sum_{i in u} v_i [x_i < t] evaluated at each
    resample's own threshold t_b, exactly and at a cost that follows the units; ``v``
    (rows x k): k step functions of the same breakpoints at the cost of one.

    ``base`` holds F_u(t0) at a reference threshold t0 (the full data's: a scale of 1, a
    mean of 0): one column of the per-unit statistics that a resample's counts multiply.
    Thresholds move little between resamples (a resampled SD or mean), so
    `correction` needs only the rows whose breakpoint lies between t0 and each
    resample's threshold: the rows of a window around t0, sorted by breakpoint once
    (widened when a block's thresholds leave it).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference.arrays import StepSums
    >>> counts = np.array([[1.0, 2.0], [0.0, 1.0]])  # 2 resamples of 2 units
    >>> steps = StepSums(np.array([0, 1]), np.array([0.0, 1.0]), np.ones(2), 2, 0.5)
    >>> (counts @ steps.base + steps.correction(counts, np.array([0.5, 2.0]))).tolist()
    [1.0, 1.0]
    """

    def __init__(self, units: np.ndarray, x: np.ndarray, v: np.ndarray, n_units: int,
                 t0: float):
        self.units, self.x, self.v, self.t0 = units, x, v, t0
        below = x < t0  # NaN: never below a threshold
        self.base = (np.bincount(units[below], v[below], n_units) if v.ndim == 1 else
                     np.stack([np.bincount(units[below], c, n_units) for c in v[below].T], 1))
        self._window = (t0, t0)
        self._sorted = (x[:0], units[:0], v[:0])

    def _rows_near(self, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Breakpoint, unit and value of every row with lo <= x < hi (and maybe more),
        sorted by breakpoint."""
        if lo < self._window[0] or hi > self._window[1]:
            margin = hi - lo  # room for the next blocks' thresholds
            self._window = (min(lo, self._window[0]) - margin, max(hi, self._window[1]) + margin)
            near = np.flatnonzero((self.x >= self._window[0]) & (self.x < self._window[1]))
            near = near[np.argsort(self.x[near])]
            self._sorted = (self.x[near], self.units[near], self.v[near])
        return self._sorted

    def correction(self, counts: np.ndarray, t: np.ndarray) -> np.ndarray:
        """sum_u counts[b, u] (F_u(t_b) - F_u(t0)) for every resample b (0 where t_b is NaN;
        (k, resamples) for k step functions): the rows whose breakpoint lies between t0
        and t_b, each resample its own run of the sorted rows (on average a tenth of a
        block's range of thresholds), their counts gathered once for all k."""
        t = np.where(np.isnan(t), self.t0, t)
        x, units, v = self._rows_near(min(t.min(), self.t0), max(t.max(), self.t0))
        at, at0 = np.searchsorted(x, t), np.searchsorted(x, self.t0)
        start, length = np.minimum(at, at0), np.abs(at - at0)
        total = int(length.sum())
        if not total:
            return np.zeros(v.shape[1:] + t.shape)
        b = np.repeat(np.arange(len(t)), length)
        row = np.repeat(start - (np.cumsum(length) - length), length)
        row += np.arange(total)
        cell = units[row].astype(np.intp, copy=False)  # a flat take: 1.5x a 2-d index
        cell += b * counts.shape[1]
        weight, v = np.ravel(counts).take(cell), v[row]
        sums = (np.bincount(b, weight * v, minlength=len(t)) if v.ndim == 1 else
                np.stack([np.bincount(b, weight * c, minlength=len(t)) for c in v.T]))
        return np.where(at >= at0, sums, -sums)


class _Columns:
    """Per-unit sums of row values, gathered as the columns of one (units x statistics)
    matrix, so that one product with a block's counts gives every weighted sum."""

    def __init__(self, n_units: int):
        self.n, self.sums, self.known = n_units, [], {}

    def _column(self, sums: np.ndarray) -> int:
        """The column holding ``sums``: an equal one already there (models scored on the
        same sentences share their counts and human sums), else a new one."""
        key = sums.tobytes()
        if key not in self.known:
            self.known[key] = len(self.sums)
            self.sums.append(sums)
        return self.known[key]

    def add(self, units: np.ndarray, *vs: np.ndarray) -> list[int]:
        """Columns holding the per-unit sums of each of ``vs``."""
        return [self._column(np.bincount(units, weights=v, minlength=self.n)) for v in vs]

    def steps(self, units: np.ndarray, x: np.ndarray, t0: float, *vs: np.ndarray
              ) -> tuple[StepSums, list[int]]:
        """`StepSums` of these rows' values ``vs`` (one correction for all) and the
        columns of its ``base``."""
        steps = StepSums(units, x, np.stack(vs, 1), self.n, t0)
        return steps, [self._column(np.ascontiguousarray(c)) for c in steps.base.T]

    def matrix(self) -> np.ndarray:
        return np.stack(self.sums, 1) if self.sums else np.zeros((self.n, 0))


# The products here on one BLAS thread: OpenBLAS's threads slow them down when the cores
# are shared (measured 20-50x on thin ones); on one thread BLAS is 10x faster than numpy's
# own loop (einsum) on the 200 statistics of 8 models.
_one_blas_thread = threadpool_limits.wrap(limits=1, user_api="blas")

# a metric of one model: (sums, counts, mean, scale) -> its value in each resample
Part = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


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
        for m in metrics_:
            if m not in metric_names(()) and adc_delta(m) is None:
                raise ValueError(f"unknown metric {m!r}; use {metric_names()} "
                                 "(any adc_<delta>) or pass a function")
        self.metrics, self.units, self.max_delta = list(metrics_), units, max_delta
        self.sign = metrics.check_sign(sign)
        s, p = dataset.sentences, dataset.pairs
        self.models, grid = model_grid(dataset, scores)
        self.z, raw = grid["z"], grid["score"]
        cls = grid["method"] == "classifier" if "method" in grid else np.zeros_like(raw, bool)
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
        shared = _Columns(self.units.n)
        standard = [shared.add(self.units.sentence, *self._standard_rows(j))
                    for j in range(len(self.models))]
        plans = []
        for g, (view, cols) in enumerate(self._views):
            columns = shared if cols is None else _Columns(view.units.n)
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

    def _plan(self, columns: _Columns, j: int, sentence_in: np.ndarray,
              pair_in: np.ndarray) -> dict[str, Part]:
        """Model j's metrics over the sentences and pairs selected by the two masks: their
        per-unit statistics added to ``columns``, and a `Part` giving each metric."""
        us, up = self.units.sentence, self.units.pair
        z = self.z[:, j]
        valid = ~np.isnan(z) & sentence_in
        z0 = np.where(valid, z, 0.0)
        d0 = np.where(pair_in, z[self.good] - z[self.bad], np.nan)
        wanted, parts = set(self.metrics), {}
        if "blimp" in wanted:
            ok = ~np.isnan(d0)
            c = columns.add(up, ok, ok & (d0 > 0))
            parts["blimp"] = lambda sums, *_, c=c: _ratio(sums[:, c[1]], sums[:, c[0]])
        both = ~(np.isnan(d0) | np.isnan(self.dh))
        dh, dl, upb = self.dh[both], d0[both], up[both]
        if "r_pair" in wanted:
            c = columns.add(upb, np.ones_like(dh), dh, dl, dh**2, dl**2, dh * dl)
            parts["r_pair"] = lambda sums, *_, c=c: metrics.pearson_from_sums(*sums[:, c].T)
        agree = metrics.sign_agree(dh, dl, self.sign)  # a resample's scale > 0 keeps signs
        n_both = columns.add(upb, np.ones_like(dh))[0]
        for m in self.metrics:
            if adc_delta(m) is not None:
                parts[m] = _adc(columns, upb[agree], dh[agree], dl[agree], adc_delta(m), n_both)
        if "adc_area" in wanted:
            parts["adc_area"] = _area(columns, upb[agree], dh[agree], dl[agree], self.max_delta,
                                      n_both)
        if "r_sentence" in wanted:
            ok = valid & ~np.isnan(self.human)
            h, zz = self.human[ok], z[ok]
            c = columns.add(us[ok], np.ones_like(h), h, zz, h**2, zz**2, h * zz)
            parts["r_sentence"] = lambda sums, *_, c=c: metrics.pearson_from_sums(*sums[:, c].T)
        if "variability" in wanted:
            parts["variability"] = self._variability(columns, valid, z0)
        if "mcc" in wanted:
            parts["mcc"] = self._mcc(columns, j, valid, z)
        return parts

    def _variability(self, columns: _Columns, valid: np.ndarray, z0: np.ndarray) -> Part:
        types, us = self.types[valid], self.units.sentence[valid]
        zv = z0[valid]
        if self.units.types_nested:
            sd_t = metrics.type_sds(zv, types, self.types.max() + 1)
            ok = ~np.isnan(sd_t)
            unit_t = np.zeros(len(sd_t), dtype=int)
            unit_t[types] = us
            c = columns.add(unit_t[ok], sd_t[ok], np.ones(int(ok.sum())))
            return lambda sums, counts, mean, scale: _ratio(sums[:, c[0]], sums[:, c[1]]) * scale
        # types span units (the pair bootstrap): weighted SD of each type's multiset
        present, types = np.unique(types, return_inverse=True)  # only the types here
        member_ = csr_matrix((np.ones(len(types)), (types, np.arange(len(types)))),
                             shape=(len(present), len(types)))

        def variability(sums, counts, mean, scale):
            w = counts[:, us].T
            n = member_ @ w
            sd = metrics.sd_from_sums(n, member_ @ (w * zv[:, None]),
                                      member_ @ (w * zv[:, None] ** 2), ddof=1)
            ok = n >= 2
            return _ratio(np.where(ok, sd, 0).sum(0), ok.sum(0)) * scale
        return variability

    def _mcc(self, columns: _Columns, j: int, valid: np.ndarray, z: np.ndarray) -> Part:
        fixed = self.fixed_pred[:, j]
        labelled = valid & ~np.isnan(self.label)
        lab = np.where(labelled, self.label, 0.0)
        us = self.units.sentence
        is_fixed = labelled & ~np.isnan(fixed)
        fp = np.where(is_fixed, fixed, 0.0)
        c = columns.add(us, labelled, lab, fp, fp * lab)
        free = labelled & ~is_fixed  # predicted 1 iff z0 > m_b, i.e. -z0 < -m_b
        steps, (c_pred, c_hit) = columns.steps(us[free], -z[free], 0.0,
                                               np.ones(int(free.sum())), lab[free])

        def mcc(sums, counts, mean, scale):
            pred, hit = steps.correction(counts, -mean)
            n_pred = sums[:, c[2]] + sums[:, c_pred] + pred
            n_both = sums[:, c[3]] + sums[:, c_hit] + hit
            return metrics.mcc_from_counts(sums[:, c[0]], n_pred, sums[:, c[1]], n_both)
        return mcc


def _adc(columns: _Columns, units: np.ndarray, dh: np.ndarray, dl: np.ndarray, delta: float,
         n_both: int) -> Part:
    """The ADC rate at ``delta``: |dh - dl * a| < delta  <=>  a in (lo, hi), a = 1 / SD
    of the resample; dl == 0: always if |dh| < delta, else never (an empty interval at
    +inf)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        e1, e2 = (dh - delta) / dl, (dh + delta) / dl
    flat = np.where(np.abs(dh) < delta, -np.inf, np.inf)
    lo = np.where(dl > 0, e1, np.where(dl < 0, e2, flat))
    hi = np.where(dl > 0, e2, np.where(dl < 0, e1, np.inf))
    steps, (c,) = columns.steps(np.concatenate([units, units]), np.concatenate([lo, hi]), 1.0,
                                np.concatenate([np.ones_like(lo), -np.ones_like(hi)]))

    def adc(sums, counts, mean, scale):
        return _ratio(sums[:, c] + steps.correction(counts, scale)[0], sums[:, n_both])
    return adc


def _area(columns: _Columns, units: np.ndarray, dh: np.ndarray, dl: np.ndarray, d: float,
          n_both: int) -> Part:
    """The area under the ADC curve up to ``d``: credit(a) = max(0, 1 - |dh - dl a| / d),
    a tent in a with peak at c = dh / dl and half-width w = d / |dl|, intercept + slope *
    a on each side (metrics.adc_area)."""
    flat = dl == 0
    k = np.abs(dl) / d
    with np.errstate(divide="ignore", invalid="ignore"):
        c = np.where(flat, 0.0, dh / np.where(flat, 1.0, dl))
        w = np.where(flat, np.inf, d / np.where(flat, 1.0, np.abs(dl)))
    kc = np.sign(dl) * dh / d
    left, right = 1 - kc, 1 + kc
    const = np.where(flat, np.clip(1 - np.abs(dh) / d, 0, None), 0.0)
    x = np.concatenate([np.full_like(c, -np.inf), c - w, c, c + w])
    u4 = np.concatenate([units] * 4)
    keep = ~np.isnan(x)
    icpt = np.concatenate([const, np.where(flat, 0, left), np.where(flat, 0, right - left),
                           np.where(flat, 0, -right)])
    slope = np.concatenate([np.zeros_like(k), k, -2 * k, k])
    steps, (c_fixed, c_sloped) = columns.steps(u4[keep], x[keep], 1.0, icpt[keep],
                                               slope[keep])

    def area(sums, counts, mean, scale):
        fixed, sloped = steps.correction(counts, scale)
        return _ratio(sums[:, c_fixed] + fixed + scale * (sums[:, c_sloped] + sloped),
                      sums[:, n_both])
    return area


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


def _ratio(num, den) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
