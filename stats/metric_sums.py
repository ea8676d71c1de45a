"""The metrics as functions of per-unit sums, the bootstrap's fast path (the weighted
forms of ``stats.metrics``): per-unit statistics gathered as the columns of one
(units x statistics) matrix (`Columns`), step functions evaluated at each resample's own
z-scoring (`StepSums`), and, per metric, the builder that adds a model's statistics to the
columns and returns its value in each resample from a block's sums (a `Part`). The
metrics table (``stats.metric_table``) names the builders; ``MetricArrays``
(``stats.inference.arrays``, whose module doc says why sums suffice) runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.sparse import csr_matrix

from acceptability.stats import metrics

# a metric of one model: (sums, counts, mean, scale) -> its value in each resample
Part = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


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
    >>> from acceptability.stats.metric_sums import StepSums
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


class Columns:
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


@dataclass(frozen=True)
class ModelRows:
    """One model's rows over the sentences and pairs of one group, as a metric's builder
    sums them into ``columns``.

    Sentences: their resampling units ``sentence_unit``, full-data z-scores ``z``,
    ``valid`` where present in the group, ``z0`` (0 elsewhere), ``human``, ``label``, type
    codes ``types`` (``types_nested``: every type inside one unit), ``fixed`` predictions
    (the raw score's sign for classifiers, else NaN). Pairs: their units ``pair_unit``,
    the model deltas ``d0`` (NaN outside the group); of the pairs with both deltas,
    ``dh``, ``dl``, their units ``both_unit``, sign agreement ``agree`` and the column
    counting them, ``n_both``; ``max_delta``: the ADC area's upper end."""

    columns: Columns
    sentence_unit: np.ndarray
    pair_unit: np.ndarray
    types_nested: bool
    z: np.ndarray
    valid: np.ndarray
    z0: np.ndarray
    d0: np.ndarray
    human: np.ndarray
    label: np.ndarray
    types: np.ndarray
    fixed: np.ndarray
    dh: np.ndarray
    dl: np.ndarray
    both_unit: np.ndarray
    agree: np.ndarray
    n_both: int
    max_delta: float


def pass_rate_sums(rows: ModelRows, _: float | None = None) -> Part:
    """The BLiMP criterion: pairs with a model delta above 0 over pairs with one
    (invariant to the resample's z-scoring)."""
    ok = ~np.isnan(rows.d0)
    c = rows.columns.add(rows.pair_unit, ok, ok & (rows.d0 > 0))
    return lambda sums, *_: _ratio(sums[:, c[1]], sums[:, c[0]])


def _pearson(columns: Columns, units: np.ndarray, x: np.ndarray, y: np.ndarray) -> Part:
    c = columns.add(units, np.ones_like(x), x, y, x**2, y**2, x * y)
    return lambda sums, *_: metrics.pearson_from_sums(*sums[:, c].T)


def pair_r_sums(rows: ModelRows, _: float | None = None) -> Part:
    """Pearson r of the human and model deltas (invariant to the z-scoring)."""
    return _pearson(rows.columns, rows.both_unit, rows.dh, rows.dl)


def sentence_r_sums(rows: ModelRows, _: float | None = None) -> Part:
    """Pearson r of the human judgments and the model's z-scores."""
    ok = rows.valid & ~np.isnan(rows.human)
    return _pearson(rows.columns, rows.sentence_unit[ok], rows.human[ok], rows.z[ok])


def adc_sums(rows: ModelRows, delta: float | None) -> Part:
    """The ADC pass rate at ``delta`` (`_adc`: a step function of each resample's 1 / SD)."""
    a = rows.agree  # a resample's scale > 0 keeps the signs
    return _adc(rows.columns, rows.both_unit[a], rows.dh[a], rows.dl[a], delta, rows.n_both)


def area_sums(rows: ModelRows, _: float | None = None) -> Part:
    """The area under the ADC curve up to ``max_delta`` (`_area`)."""
    a = rows.agree
    return _area(rows.columns, rows.both_unit[a], rows.dh[a], rows.dl[a], rows.max_delta,
                 rows.n_both)


def variability_sums(rows: ModelRows, _: float | None = None) -> Part:
    """The mean within-type SD of the z-scores: per type SDs summed once when types lie
    in units, else each type's weighted SD in each resample; times the resample's 1 / SD."""
    valid = rows.valid
    types, us, zv = rows.types[valid], rows.sentence_unit[valid], rows.z0[valid]
    if rows.types_nested:
        sd_t = metrics.type_sds(zv, types, rows.types.max() + 1)
        ok = ~np.isnan(sd_t)
        unit_t = np.zeros(len(sd_t), dtype=int)
        unit_t[types] = us
        c = rows.columns.add(unit_t[ok], sd_t[ok], np.ones(int(ok.sum())))
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


def mcc_sums(rows: ModelRows, _: float | None = None) -> Part:
    """MCC against the expert labels: predictions fixed by a raw score summed once, the
    others (z above the resample's mean) by step sums at each resample's mean."""
    labelled = rows.valid & ~np.isnan(rows.label)
    lab = np.where(labelled, rows.label, 0.0)
    us = rows.sentence_unit
    is_fixed = labelled & ~np.isnan(rows.fixed)
    fp = np.where(is_fixed, rows.fixed, 0.0)
    c = rows.columns.add(us, labelled, lab, fp, fp * lab)
    free = labelled & ~is_fixed  # predicted 1 iff z0 > m_b, i.e. -z0 < -m_b
    steps, (c_pred, c_hit) = rows.columns.steps(us[free], -rows.z[free], 0.0,
                                                np.ones(int(free.sum())), lab[free])

    def mcc(sums, counts, mean, scale):
        pred, hit = steps.correction(counts, -mean)
        n_pred = sums[:, c[2]] + sums[:, c_pred] + pred
        n_both = sums[:, c[3]] + sums[:, c_hit] + hit
        return metrics.mcc_from_counts(sums[:, c[0]], n_pred, sums[:, c[1]], n_both)
    return mcc


def _adc(columns: Columns, units: np.ndarray, dh: np.ndarray, dl: np.ndarray, delta: float,
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


def _area(columns: Columns, units: np.ndarray, dh: np.ndarray, dl: np.ndarray, d: float,
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



def _ratio(num, den) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
