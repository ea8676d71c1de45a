"""The fast bootstrap path: every metric of ``evaluate`` for every model, for many
resamples at once, from a (resamples x units) count matrix and arrays built once.

A resample is a vector of unit counts, so a row's weight is the count of its unit and
every weighted sum is ``counts @ per_unit_sums``. Model scores are z-scored again in
each resample (the statistic applied to the resampled dataset): with z0 the full-data
z-scores, resampled z = (z0 - m_b) / s_b, m_b and s_b the weighted mean and SD of z0.
Correlations and the BLiMP rate are invariant to that; the ADC, its area, the
variability and MCC predictions are not. ADC and area are step / piecewise-linear
functions of 1 / s_b per pair, MCC predictions steps in m_b: `step_sums`
evaluates them exactly without a (resamples x pairs) matrix. Models standardised by
a published reference (``ref_mean``/``ref_sd``) keep fixed z-scores.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from functools import cached_property

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix

from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_MAX_DELTA
from acceptability.stats.deltas import sentence_frame
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


def step_sums(counts: np.ndarray, units: np.ndarray, x: np.ndarray, v: np.ndarray,
              t: np.ndarray) -> np.ndarray:
    """sum_u counts[b, u] * sum_{i in u} v_i [x_i < t_b] for every resample b.

    Hand-written (no library does it): rows whose breakpoint x_i lies below every
    threshold are a plain weighted sum, rows above all of them drop out, and only the
    few with x_i inside the narrow range of t (the resampled SD or mean moves little)
    need a (resamples x rows) indicator.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference.arrays import step_sums
    >>> counts = np.array([[1.0, 2.0], [0.0, 1.0]])  # 2 resamples of 2 units
    >>> step_sums(counts, np.array([0, 1]), np.array([0.0, 1.0]), np.ones(2),
    ...           np.array([0.5, 2.0])).tolist()
    [1.0, 1.0]
    """
    always = x < t.min()
    out = _dot(counts, np.bincount(units[always], weights=v[always], minlength=counts.shape[1]))
    active = ~always & (x < t.max())
    if active.any():
        on = t[:, None] > x[active]
        out += np.einsum("br,br,r->b", counts[:, units[active]], on, v[active])
    return out


class MetricArrays:
    """Arrays of one dataset and its scores, ready to give the metrics of any count
    matrix: ``MetricArrays(...)(counts)`` -> (models, metrics, resamples)."""

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
        ids = pd.Index(s["sentence_id"])
        sent = sentence_frame(dataset, scores)
        self.models = sorted(sent["model"].unique())
        wide = sent.pivot(index="sentence_id", columns="model",
                          values=[c for c in ("z", "score", "method") if c in sent])
        self.z = wide["z"].reindex(index=ids, columns=self.models).to_numpy(float)
        raw = wide["score"].reindex(index=ids, columns=self.models).to_numpy(float)
        cls = (wide["method"].reindex(index=ids, columns=self.models).eq("classifier").to_numpy()
               if "method" in sent else np.zeros_like(raw, dtype=bool))
        # predictions fixed by the raw score (classifiers, evaluate.predicted_label)
        self.fixed_pred = np.where(cls, raw > 0, np.nan)
        self.fixed_pred[np.isnan(raw)] = np.nan
        self.restandardise = self._restandardise(dataset, scores)
        self.human = s["human"].to_numpy(float)
        self.label = s["label"].to_numpy(float)
        self.types, _ = pd.factorize(s["type_id"])
        self.good = ids.get_indexer(p["good_id"])
        self.bad = ids.get_indexer(p["bad_id"])
        self.dh = self.human[self.good] - self.human[self.bad]
        self.groups, self.sentence_in, self.pair_in = group_masks(dataset, by)

    def _restandardise(self, dataset: Dataset, scores: pd.DataFrame) -> np.ndarray:
        if not {"ref_mean", "ref_sd"} <= set(scores.columns):
            return np.ones(len(self.models), dtype=bool)
        sc = scores[scores["sentence_id"].isin(dataset.sentences["sentence_id"])]
        has = (sc["ref_mean"].notna() & sc["ref_sd"].notna()).groupby(sc["model"]).agg(
            ["any", "all"])
        mixed = has["any"] & ~has["all"]
        if mixed.any():
            raise ValueError(f"model(s) {list(has.index[mixed])} have ref_mean/ref_sd on some rows "
                             "only; the fast bootstrap needs all or none (pass a function to "
                             "use the general path)")
        return ~has["all"].reindex(self.models).to_numpy(bool)

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """(models, metrics, resamples); with ``by``: (models, groups, metrics, resamples)."""
        out = np.full((len(self.models), len(self.groups), len(self.metrics), counts.shape[0]),
                      np.nan)
        local = [counts if cols is None else
                 np.concatenate([counts[:, cols], np.zeros((len(counts), 1))], axis=1)
                 for _, cols in self._views]
        for j in range(len(self.models)):
            mean, scale = self._standardisation(counts, j)
            for g, (view, _) in enumerate(self._views):
                values = view._model(local[g], j, mean, scale, self.sentence_in[g],
                                     self.pair_in[g])
                for k, m in enumerate(self.metrics):
                    out[j, g, k] = values[m]
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

    def _lin(self, counts, units, *vs):
        """counts @ per-unit sums of each v."""
        sums = np.stack([np.bincount(units, weights=v, minlength=self.units.n) for v in vs], 1)
        return list(_dot(counts, sums).T)

    def _standardisation(self, counts: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Each resample's mean and 1 / SD of model j's full-data z-scores, over all sentences
        (fixed 0 and 1 for scores standardised by a published reference)."""
        z = self.z[:, j]
        valid = ~np.isnan(z)
        if not self.restandardise[j]:
            return np.zeros(counts.shape[0]), np.ones(counts.shape[0])
        z0 = np.where(valid, z, 0.0)
        n, s1, s2 = self._lin(counts, self.units.sentence, valid, z0, z0**2)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = s1 / n
        sd = metrics.sd_from_sums(n, s1, s2)
        return mean, np.where(sd > 0, 1 / np.where(sd > 0, sd, 1), np.nan)

    def _model(self, counts: np.ndarray, j: int, mean: np.ndarray, scale: np.ndarray,
               sentence_in: np.ndarray, pair_in: np.ndarray) -> dict[str, np.ndarray]:
        """Metrics of model j over the sentences and pairs selected by the two masks."""
        us, up = self.units.sentence, self.units.pair

        def lin(units, *vs):
            return self._lin(counts, units, *vs)

        z = self.z[:, j]
        valid = ~np.isnan(z) & sentence_in
        z0 = np.where(valid, z, 0.0)
        d0 = np.where(pair_in, z[self.good] - z[self.bad], np.nan)
        wanted, out = set(self.metrics), {}
        if "blimp" in wanted:
            ok = ~np.isnan(d0)
            n, up_ = lin(up, ok, ok & (d0 > 0))
            out["blimp"] = _ratio(up_, n)
        both = ~(np.isnan(d0) | np.isnan(self.dh))
        dh, dl, upb = self.dh[both], d0[both], up[both]
        if "r_pair" in wanted:
            out["r_pair"] = metrics.pearson_from_sums(*lin(upb, np.ones_like(dh), dh, dl, dh**2,
                                                          dl**2, dh * dl))
        agree = metrics.sign_agree(dh, dl, self.sign)  # a resample's scale > 0 keeps signs
        n_both = lin(upb, np.ones_like(dh))[0]
        for m in self.metrics:
            if adc_delta(m) is not None:
                out[m] = _ratio(self._adc(counts, upb[agree], dh[agree], dl[agree],
                                          adc_delta(m), scale), n_both)
        if "adc_area" in wanted:
            out["adc_area"] = _ratio(self._area(counts, upb[agree], dh[agree], dl[agree], scale),
                                     n_both)
        if "r_sentence" in wanted:
            ok = valid & ~np.isnan(self.human)
            h, zz = self.human[ok], z[ok]
            out["r_sentence"] = metrics.pearson_from_sums(*lin(us[ok], np.ones_like(h), h, zz, h**2,
                                                              zz**2, h * zz))
        if "variability" in wanted:
            out["variability"] = self._variability(counts, valid, z0) * scale
        if "mcc" in wanted:
            out["mcc"] = self._mcc(counts, j, valid, z, mean, lin)
        # a resample whose scores have SD 0 has no z-scores (stats.zscore): all NaN
        return {m: np.where(np.isnan(scale), np.nan, v) for m, v in out.items()}

    def _adc(self, counts, units, dh, dl, delta, scale) -> np.ndarray:
        # |dh - dl * a| < delta  <=>  a in (lo, hi); dl == 0: always if |dh| < delta, else
        # never (an empty interval at +inf)
        with np.errstate(divide="ignore", invalid="ignore"):
            e1, e2 = (dh - delta) / dl, (dh + delta) / dl
        flat = np.where(np.abs(dh) < delta, -np.inf, np.inf)
        lo = np.where(dl > 0, e1, np.where(dl < 0, e2, flat))
        hi = np.where(dl > 0, e2, np.where(dl < 0, e1, np.inf))
        x = np.concatenate([lo, hi])
        v = np.concatenate([np.ones_like(lo), -np.ones_like(hi)])
        return step_sums(counts, np.concatenate([units, units]), x, v, scale)

    def _area(self, counts, units, dh, dl, scale) -> np.ndarray:
        # credit(a) = max(0, 1 - |dh - dl a| / D): a tent in a, peak at c = dh / dl,
        # half-width w = D / |dl|: intercept + slope * a on each side (metrics.adc_area)
        d = self.max_delta
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
        return (step_sums(counts, u4[keep], x[keep], icpt[keep], scale)
                + scale * step_sums(counts, u4[keep], x[keep], slope[keep], scale))

    def _variability(self, counts, valid, z0) -> np.ndarray:
        types, us = self.types[valid], self.units.sentence[valid]
        zv = z0[valid]
        if self.units.types_nested:
            sd_t = metrics.type_sds(zv, types, self.types.max() + 1)
            ok = ~np.isnan(sd_t)
            unit_t = np.zeros(len(sd_t), dtype=int)
            unit_t[types] = us
            sums = np.stack([np.bincount(unit_t[ok], sd_t[ok], self.units.n),
                             np.bincount(unit_t[ok], minlength=self.units.n)], 1)
            tot = _dot(counts, sums)
            return _ratio(tot[:, 0], tot[:, 1])
        # types span units (the pair bootstrap): weighted SD of each type's multiset
        present, types = np.unique(types, return_inverse=True)  # only the types here
        member = csr_matrix((np.ones(len(types)), (types, np.arange(len(types)))),
                            shape=(len(present), len(types)))
        w = counts[:, us].T
        n = member @ w
        sd = metrics.sd_from_sums(n, member @ (w * zv[:, None]), member @ (w * zv[:, None] ** 2),
                                  ddof=1)
        ok = n >= 2
        return _ratio(np.where(ok, sd, 0).sum(0), ok.sum(0))

    def _mcc(self, counts, j, valid, z, mean, lin) -> np.ndarray:
        fixed = self.fixed_pred[:, j]
        labelled = valid & ~np.isnan(self.label)
        lab = np.where(labelled, self.label, 0.0)
        us = self.units.sentence
        is_fixed = labelled & ~np.isnan(fixed)
        fp = np.where(is_fixed, fixed, 0.0)
        n, n_label, n_pred, n_both = lin(us, labelled, lab, fp, fp * lab)
        free = labelled & ~is_fixed  # predicted 1 iff z0 > m_b
        if free.any():
            n_pred = n_pred + step_sums(counts, us[free], -z[free], np.ones(free.sum()), -mean)
            n_both = n_both + step_sums(counts, us[free], -z[free], lab[free], -mean)
        return metrics.mcc_from_counts(n, n_pred, n_label, n_both)


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


def _dot(counts: np.ndarray, per_unit: np.ndarray) -> np.ndarray:
    """counts @ per_unit without BLAS: threaded BLAS is 20-50x slower on these thin
    products when cores are shared (measured), numpy's own loop is not."""
    return np.einsum("bu,u...->b...", counts, per_unit)


def _ratio(num, den) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
