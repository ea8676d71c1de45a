"""The guard's own arithmetic (issue 28): every number of a report recomputed from the raw
input frames with numpy, scipy, pandas and scikit-learn, never with ``acceptability``'s
functions.

Definitions (docs/metrics.md "Definitions", ../shared/docs/DESIGN.md):

- z-score: a model's scores standardised over the data set's sentences with the population
  SD (ddof = 0, the thesis' published z-scores, thesis 1.3.3); scores published with their
  own z-scores (the trigram models of LI-Adger) keep them.
- BLiMP criterion: z(good) > z(bad); ADC at delta: sign(dh) == sign(dlm) and
  |dh - dlm| < delta (thesis eq. 1.1-1.2, ``np.sign``: the "strict" convention); ADC area:
  mean(agree * max(0, 1 - |dh - dlm| / 5)).
- r_sentence = Pearson(human, z), r_pair = Pearson(dh, dlm).
- variability: SD (ddof = 1) of the z-scores of each sentence type with two or more,
  averaged over those types (seed 004).
- MCC: expert label against z > 0, or raw score > 0 for a classifier (thesis eq. 2.3).

Intervals come from a bootstrap written here (:class:`Design`, :meth:`Data.resampled`): each
resample re-z-scores the resampled sentences, as the statistic applied to the resampled
data set. Its endpoints cannot equal the package's (other random draws), so
:func:`assert_endpoint` compares them within a Monte Carlo tolerance derived there.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats as sps
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components
from sklearn.metrics import matthews_corrcoef

CI = 0.95
# Monte Carlo tolerance in standard deviations (see assert_endpoint and assert_p_boot)
K_SD = 5.0
BATCH = 500  # resamples computed at once: (BATCH x sentences) float arrays stay small
LABELS = ("model", "source", "term", "level", "test", "model_a", "model_b", "quantity",
          "value", "table", "reason", "paradigm", "phenomenon", "contrast", "system",
          "dataset", "ci_unit", "metric", "condition", "method", "split", "norming", "group",
          "classified_by", "fit")


# ------------------------------------------------------------------ definitions


def zscore(x: np.ndarray) -> np.ndarray:
    """(x - mean) / SD with the population SD (ddof = 0), NaN left out and kept."""
    return (x - np.nanmean(x)) / np.nanstd(x, ddof=0)


def adc_pass(dh: np.ndarray, dlm: np.ndarray, delta: float) -> np.ndarray:
    """Thesis eq. 1.1-1.2 with np.sign: the ADC verdict of each pair."""
    return (np.sign(dh) == np.sign(dlm)) & (np.abs(dh - dlm) < delta)


def adc_credit(dh: np.ndarray, dlm: np.ndarray, max_delta: float = 5.0) -> np.ndarray:
    """The mean of adc_pass over delta in [0, max_delta], per pair."""
    return (np.sign(dh) == np.sign(dlm)) * np.clip(1 - np.abs(dh - dlm) / max_delta, 0, None)


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson r over the positions where both are finite (NaN for fewer than 3)."""
    ok = np.isfinite(x) & np.isfinite(y)
    return float(np.corrcoef(x[ok], y[ok])[0, 1]) if ok.sum() >= 3 else math.nan


def type_sds(z: np.ndarray, types: np.ndarray) -> pd.Series:
    """SD (ddof = 1) of the finite z of each type that has any; NaN for one value."""
    frame = pd.DataFrame({"type": types, "z": z}).dropna()
    return frame.groupby("type")["z"].std(ddof=1)


def steiger(h: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float, int]:
    """Steiger (1980, eq. 15) for r(h, a) against r(h, b), written out: Fisher z of both,
    their covariance from the pooled r and r(a, b), n - 3 degrees of freedom; (z, two-sided
    p, n) over the cases with all three values."""
    ok = np.isfinite(h) & np.isfinite(a) & np.isfinite(b)
    h, a, b = h[ok], a[ok], b[ok]
    n = len(h)
    r_ha, r_hb, r_ab = np.corrcoef(h, a)[0, 1], np.corrcoef(h, b)[0, 1], np.corrcoef(a, b)[0, 1]
    rbar = (r_ha + r_hb) / 2
    psi = r_ab * (1 - 2 * rbar**2) - 0.5 * rbar**2 * (1 - 2 * rbar**2 - r_ab**2)
    s = psi / (1 - rbar**2) ** 2
    z = (math.atanh(r_ha) - math.atanh(r_hb)) * math.sqrt((n - 3) / (2 - 2 * s))
    return z, math.erfc(abs(z) / math.sqrt(2)), n


def mcnemar_exact(pass_a: np.ndarray, pass_b: np.ndarray) -> tuple[float, float]:
    """Exact McNemar test: a binomial test of the discordant pairs (scipy); (the smaller
    discordant count, two-sided p)."""
    b, c = int((pass_a & ~pass_b).sum()), int((~pass_a & pass_b).sum())
    p = sps.binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
    return float(min(b, c)), float(p)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values, written out."""
    p = np.asarray(p, float)
    order = np.argsort(p)
    m = len(p)
    adjusted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def resamples_for(comparisons: int, alpha: float = 0.05, tail: int = 50) -> int:
    """Resamples for corrected bootstrap p-values: the smallest n with (n + 1) alpha / (2 m)
    >= tail (Davison & Hinkley 1997, ch. 4: 999 resamples for one test at 0.05)."""
    return math.ceil(2 * tail * comparisons / alpha) - 1


def components(types: np.ndarray, good: np.ndarray, bad: np.ndarray) -> np.ndarray:
    """Cluster code of each sentence: its type's connected component in the graph of types
    linked by the pairs (good, bad: sentence row numbers)."""
    codes, uniques = pd.factorize(types)
    k = len(uniques)
    graph = coo_matrix((np.ones(len(good)), (codes[good], codes[bad])), shape=(k, k))
    _, comp = connected_components(graph, directed=False)
    return comp[codes]


# ------------------------------------------------------------------ data and metrics


@dataclass
class Model:
    """A model's scores per sentence (NaN: no score), whether they are published z-scores
    (kept as they are) and whether MCC reads the sign of the raw score (a classifier)."""

    x: np.ndarray
    fixed: bool = False
    classifier: bool = False

    def z(self) -> np.ndarray:
        return self.x if self.fixed else zscore(self.x)


def excluded_because(x: np.ndarray, z: np.ndarray, human: np.ndarray | None = None,
                     dh: np.ndarray | None = None) -> str:
    """Why sentences have no z-score, in the package's words: a score without a z-score
    means constant scores; a missing score is counted. Then why the metrics of human
    judgments are NaN: no sentence has a human value, or no pair one for both sentences."""
    reasons = []
    if (np.isfinite(x) & ~np.isfinite(z)).any():
        reasons.append("constant scores (SD 0): no z-scores")
    missing = int((~np.isfinite(x)).sum())
    if missing:
        reasons.append(f"no score for {missing} sentence{'s' if missing > 1 else ''}")
    human = np.empty(0) if human is None else human
    dh = np.empty(0) if dh is None else dh
    if (len(human) and not np.isfinite(human).any()) or (
            not len(human) and len(dh) and not np.isfinite(dh).any()):
        reasons.append("no human judgments (no human values and no trial-level ratings): "
                       "ADC, r_sentence and r_pair undefined")
    elif len(dh) and not np.isfinite(dh).any():
        reasons.append("no pair has human judgments of both its sentences: ADC and r_pair "
                       "undefined")
    return "; ".join(reasons)


@dataclass
class Data:
    """Raw input frames as arrays: per sentence the human judgment, expert label and type;
    per pair the row numbers of its good and bad sentence; the models."""

    human: np.ndarray
    label: np.ndarray
    types: np.ndarray
    good: np.ndarray
    bad: np.ndarray
    models: dict[str, Model]

    def evaluate(self, deltas=(0.5, 1.0, 5.0), sentence_in: np.ndarray | None = None,
                 pair_in: np.ndarray | None = None) -> pd.DataFrame:
        """Every metric per model on the full data (restricted to a group's sentences and
        pairs when masks are given; z-scores over all sentences)."""
        s_in = np.ones(len(self.human), bool) if sentence_in is None else sentence_in
        p_in = np.ones(len(self.good), bool) if pair_in is None else pair_in
        rows = []
        for name, m in self.models.items():
            z = m.z()
            dh = (self.human[self.good] - self.human[self.bad])[p_in]
            dlm = (z[self.good] - z[self.bad])[p_in]
            scored, both = np.isfinite(dlm), np.isfinite(dlm) & np.isfinite(dh)
            zs, hs, ls = z[s_in], self.human[s_in], self.label[s_in]
            row = {"model": name, "n_pairs": int(scored.sum()), "n_pairs_human": int(both.sum()),
                   "n_pairs_no_human": int((scored & ~both).sum()),
                   "n_pairs_excluded": int((~scored).sum()),
                   "n_sentences": int(np.isfinite(zs).sum()),
                   "blimp": float(np.mean(dlm[scored] > 0)) if scored.any() else math.nan}
            for d in deltas:
                row[f"adc_{d:g}"] = (float(adc_pass(dh[both], dlm[both], d).mean())
                                     if both.any() else math.nan)
            row["adc_area"] = (float(adc_credit(dh[both], dlm[both]).mean()) if both.any()
                               else math.nan)
            row["r_sentence"] = pearson(hs, zs)
            row["r_pair"] = pearson(dh, dlm)
            sds = type_sds(zs, self.types[s_in]).dropna()
            row["variability"] = float(sds.mean()) if len(sds) else math.nan
            labelled = np.isfinite(ls) & np.isfinite(zs)
            pred = (m.x[s_in] if m.classifier else zs)[labelled] > 0
            row["mcc"] = (float(matthews_corrcoef(ls[labelled].astype(int), pred.astype(int)))
                          if labelled.any() else math.nan)
            row["n_mcc"] = int(labelled.sum())
            row["excluded_because"] = excluded_because(m.x[s_in], zs, hs, dh)
            rows.append(row)
        return pd.DataFrame(rows).set_index("model")

    def resampled(self, design: Design, n: int, seed: int, deltas=(0.5, 1.0, 5.0),
                  pair_in: np.ndarray | None = None,
                  only: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
        """Bootstrap distributions, metric -> (n, models): each resample weights every
        sentence and pair by its unit's count, re-z-scores (weighted mean and population
        SD over the resampled sentences) and computes the metrics of the resampled data
        set; ``pair_in`` restricts the pair metrics to a group, ``only`` computes some
        metrics. A type drawn k times counts k times when types are nested in units, else
        its duplicated sentences enter its SD."""
        rng = np.random.default_rng(seed)
        with np.errstate(invalid="ignore", divide="ignore"):  # NaN: a metric undefined
            parts = [self._weighted(design, design.counts(min(BATCH, n - i), rng), deltas,
                                    pair_in, only) for i in range(0, n, BATCH)]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def _weighted(self, design: Design, counts: np.ndarray, deltas: tuple[float, ...],
                  pair_in: np.ndarray | None, only: tuple[str, ...] | None) -> dict:
        """The metrics of each resample (rows of ``counts``). A weighted sum over sentences
        or pairs is counts @ (its sums per unit); the ADC, MCC and variability, which
        depend on each resample's mean and SD, weight the rows themselves."""
        p_in = np.ones(len(self.good), bool) if pair_in is None else pair_in
        ws, wp = counts[:, design.sentence_unit], counts[:, design.pair_unit] * p_in
        dh = self.human[self.good] - self.human[self.bad]
        type_codes = pd.factorize(self.types)[0]
        out: dict[str, list] = {}
        for m in self.models.values():
            # the full-data z-scores z0: the resampled z-scores (z0 - mean) / sd, mean and
            # sd of z0 in the resample, equal those of the raw scores (z is affine in
            # them), and z0 keeps the weighted sums well conditioned
            z0 = m.z()
            ok = np.isfinite(z0)
            x = np.where(ok, z0, 0.0)
            has_h = ok & np.isfinite(self.human)
            h_s = np.where(has_h, self.human, 0)
            n_ok, sx, sxx, *r_s = _unit_sums(counts, design.sentence_unit, [
                ok, x, x * x, has_h, has_h * h_s, has_h * x, h_s * h_s, has_h * x * x, h_s * x])
            mean = np.zeros(len(ws)) if m.fixed else sx / n_ok
            sd = np.ones(len(ws)) if m.fixed else np.sqrt(sxx / n_ok - mean**2)
            dlm0 = z0[self.good] - z0[self.bad]
            scored = np.isfinite(dlm0) & p_in
            both = scored & np.isfinite(dh)
            h, dl = np.where(both, dh, 0), np.where(both, dlm0, 0)
            n_scored, n_up, *r_p = _unit_sums(counts, design.pair_unit, [
                scored, scored & (np.nan_to_num(dlm0) > 0), both, h, dl, h * h, dl * dl,
                h * dl])
            res = {"blimp": n_up / n_scored}
            agree = both & (np.sign(h) == np.sign(dl))
            gap = np.abs(h[None, :] - dl[None, :] / sd[:, None])
            for d in deltas:
                res[f"adc_{d:g}"] = (wp * (gap < d)) @ agree / r_p[0]
            res["adc_area"] = (wp * np.clip(1 - gap / 5.0, 0, None)) @ agree / r_p[0]
            res["r_sentence"] = _r_from_sums(*r_s)
            res["r_pair"] = _r_from_sums(*r_p)
            if only is None or "variability" in only:
                res["variability"] = _variability(m, ws, type_codes, design, counts) / sd
            if only is None or "mcc" in only:
                labelled = ok & np.isfinite(self.label)
                pred = np.broadcast_to(np.nan_to_num(m.x) > 0, ws.shape) if m.classifier \
                    else x[None, :] > mean[:, None]
                res["mcc"] = _weighted_phi(ws, pred, labelled, np.nan_to_num(self.label))
            for k, v in res.items():
                if only is None or k in only:
                    out.setdefault(k, []).append(v)
        return {k: np.column_stack(v) for k, v in out.items()}


def _unit_sums(counts: np.ndarray, unit: np.ndarray, columns: list) -> list[np.ndarray]:
    """For each column (one value per row), its weighted sum in every resample:
    counts @ (the column summed within each unit)."""
    per_unit = np.zeros((counts.shape[1], len(columns)))
    np.add.at(per_unit, unit, np.column_stack([np.asarray(c, float) for c in columns]))
    return list((counts @ per_unit).T)


def _r_from_sums(*sums: np.ndarray) -> np.ndarray:
    """Pearson r from weighted sums: n, sum a, sum b, sum a^2, sum b^2, sum ab."""
    n, sa, sb, saa, sbb, sab = sums
    cov = sab / n - sa * sb / n**2
    return cov / np.sqrt((saa / n - (sa / n) ** 2) * (sbb / n - (sb / n) ** 2))


def assert_statistic_is_the_estimate(data: Data, design: Design,
                                     deltas: tuple[float, ...]) -> None:
    """Our bootstrap statistic, given every unit once, equals the full-data estimates."""
    with np.errstate(invalid="ignore", divide="ignore"):
        once = data._weighted(design, np.ones((1, design.n_units)), deltas, None, None)
    full = data.evaluate(deltas)
    for metric, values in once.items():
        assert_close(values[0], full[metric], f"our bootstrap statistic {metric}", atol=1e-12)


def _variability(m: Model, ws: np.ndarray, type_codes: np.ndarray, design: Design,
                 counts: np.ndarray) -> np.ndarray:
    """Mean within-type SD (ddof = 1) of the raw scores of each resampled data set."""
    n_types = type_codes.max() + 1
    if design.types_nested:  # the copies of a unit are new types: a type counts k times
        sds = type_sds(m.z(), type_codes).reindex(range(n_types)).to_numpy()
        unit = pd.Series(design.sentence_unit).groupby(type_codes).first().to_numpy()
        c = counts[:, unit] * np.isfinite(sds)
        return c @ np.nan_to_num(sds) / c.sum(1)
    ok = np.isfinite(m.x)
    z = m.z()
    centred = z - pd.Series(z).groupby(type_codes).transform("mean").to_numpy()
    x = np.where(ok, centred, 0.0)  # the SD within a type does not move; sums stay exact
    onehot = np.zeros((len(x), n_types))
    onehot[np.arange(len(x)), type_codes] = 1
    sw, swx, swxx = ws @ (onehot * ok[:, None]), ws @ (onehot * x[:, None]), \
        ws @ (onehot * (x * x)[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.clip((swxx - swx**2 / sw) / (sw - 1), 0, None))
    counted = sw >= 2  # a type with two sentences drawn (the same one twice included)
    return np.where(counted, sd, 0).sum(1) / counted.sum(1)


def _weighted_phi(w: np.ndarray, pred: np.ndarray, mask: np.ndarray,
                  label: np.ndarray) -> np.ndarray:
    """MCC from weighted confusion counts over the cases in ``mask``; 0 where a margin is
    empty (scikit-learn's rule), NaN without cases."""
    wm = w * mask
    n, pos = wm.sum(1), wm @ label
    wpred = wm * pred
    tp, pp = wpred @ label, wpred.sum(1)
    fp, fn = pp - tp, pos - tp
    tn = n - pp - fn
    den = np.sqrt(pp * pos * (n - pp) * (n - pos))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(den > 0, (tp * tn - fp * fn) / den, 0.0), np.nan)


# ------------------------------------------------------------------ resampling designs


@dataclass(frozen=True)
class Design:
    """What a bootstrap draws: the unit of every sentence and pair, the strata (unit codes
    drawn with replacement within each) and units kept once in every resample."""

    sentence_unit: np.ndarray
    pair_unit: np.ndarray
    strata: tuple[np.ndarray, ...]
    fixed: np.ndarray
    types_nested: bool

    @property
    def n_units(self) -> int:
        return int(self.sentence_unit.max()) + 1

    def counts(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """(n, units) draw counts: each stratum's units drawn len(stratum) times."""
        out = np.zeros((n, self.n_units))
        out[:, self.fixed] = 1
        for s in self.strata:
            out[:, s] = rng.multinomial(len(s), np.full(len(s), 1 / len(s)), size=n)
        return out


def cluster_design(data: Data, group: np.ndarray | None = None) -> Design:
    """Clusters = sentence types merged through their pairs, all resampled together; with
    ``group`` (one value per sentence), the clusters of each group resampled within it,
    clusters with pairs apart from those without (a stratified bootstrap)."""
    unit = components(data.types, data.good, data.bad)
    pair_unit = unit[data.good]
    if group is None:
        strata = (np.arange(unit.max() + 1),)
    else:
        paired = np.isin(np.arange(unit.max() + 1), pair_unit)
        of_unit = pd.Series(group).groupby(unit).first().to_numpy()
        strata = tuple(np.flatnonzero((of_unit == g) & (paired == p))
                       for g in pd.unique(group) for p in (True, False))
    return _design(unit, pair_unit, strata, types_nested=True)


def pairs_within(data: Data, cluster: np.ndarray) -> Design:
    """Each pair with its two sentences one unit, drawn within its cluster (``cluster``:
    one value per pair): the stratified pair bootstrap of data with few clusters."""
    n_pairs = len(data.good)
    unit = np.full(len(data.human), -1)
    unit[data.good], unit[data.bad] = np.arange(n_pairs), np.arange(n_pairs)
    assert (unit >= 0).all() and len(set(data.good) | set(data.bad)) == 2 * n_pairs
    strata = tuple(np.flatnonzero(cluster == c) for c in pd.unique(cluster))
    return _design(unit, np.arange(n_pairs), strata, types_nested=False)


def sentence_design(n: int) -> Design:
    """Every sentence its own unit (data without pairs or types)."""
    return _design(np.arange(n), np.arange(0), (np.arange(n),), types_nested=True)


def _design(unit: np.ndarray, pair_unit: np.ndarray, strata: tuple[np.ndarray, ...],
            types_nested: bool) -> Design:
    big = tuple(s for s in strata if len(s) >= 2)
    fixed = np.concatenate([s for s in strata if len(s) == 1] or [np.arange(0)]).astype(int)
    return Design(unit, pair_unit, big, fixed, types_nested)


def paradigm_draws(rates: dict[str, np.ndarray], n: int, seed: int) -> dict[str, np.ndarray]:
    """Benchmark accuracy: per paradigm, n means of its pair rates resampled with
    replacement (pairs within paradigms)."""
    rng = np.random.default_rng(seed)
    return {p: r[rng.integers(0, len(r), (n, len(r)))].mean(axis=1) for p, r in rates.items()}


# ------------------------------------------------------------------ Monte Carlo checks


def assert_endpoint(value: float, dist: np.ndarray, level: float, n_package: int,
                    what: str) -> None:
    """``value``, a percentile interval endpoint at ``level`` (0.025 or 0.975) from the
    package's ``n_package`` resamples, must sit at that level of our bootstrap
    distribution ``dist``. The package's endpoint is an order statistic, so F(value) has
    SD sqrt(level (1 - level) / n_package) (a Beta law, F our distribution's CDF); our
    empirical CDF at a point adds sqrt(F (1 - F) / len(dist)). Tolerance: K_SD = 5 of
    those SDs combined, around the share of ``dist`` below ``value`` and the share at or
    below it (equal for a continuous statistic, apart for a discrete one such as a rate).
    """
    dist = dist[np.isfinite(dist)]
    assert len(dist), f"{what}: our bootstrap has no finite value"
    eps = 1e-9 * max(1.0, abs(value))
    below, at_most = np.mean(dist < value - eps), np.mean(dist <= value + eps)
    tol = K_SD * math.sqrt(level * (1 - level) * (1 / n_package + 1 / len(dist)))
    assert below - tol <= level <= at_most + tol, (
        f"{what}: endpoint {value:.6g} lies at {below:.4f}-{at_most:.4f} of our bootstrap "
        f"distribution, expected {level} +- {tol:.4f}")


def assert_interval(lower: float, upper: float, estimate: float, dist: np.ndarray,
                    n_package: int, what: str) -> None:
    """Both percentile endpoints (:func:`assert_endpoint`) and the estimate inside them."""
    alpha = (1 - CI) / 2
    assert lower <= estimate + 1e-12 and estimate <= upper + 1e-12, (
        f"{what}: estimate {estimate} outside its interval [{lower}, {upper}]")
    assert_endpoint(lower, dist, alpha, n_package, f"{what} lower")
    assert_endpoint(upper, dist, 1 - alpha, n_package, f"{what} upper")


def assert_p_boot(p: float, diff: np.ndarray, n_package: int, what: str) -> None:
    """A bootstrap p-value (1 + the smaller count of differences <= 0 and >= 0) / (n + 1),
    doubled, capped at 1: the count the package saw over its n resamples must match the
    share pi of our differences on that side within K_SD binomial SDs of both samples."""
    share = min(np.mean(diff <= 0), np.mean(diff >= 0))
    count = p * (n_package + 1) / 2 - 1  # the package's count behind p (below the cap)
    spread = max(share * (1 - share), 1 / len(diff))
    tol = K_SD * math.sqrt(spread * (1 / n_package + 1 / len(diff))) + 1 / n_package
    if p >= 1:
        assert share >= (n_package + 1) / (2 * n_package) - 1 / n_package - tol, (
            f"{what}: p_boot is 1 but only {share:.4f} of our differences lie beyond 0")
    else:
        assert abs(count / n_package - share) <= tol, (
            f"{what}: p_boot {p:.5g} means {count / n_package:.4f} of the resampled "
            f"differences beyond 0, ours {share:.4f} (tolerance {tol:.4f})")


def check_r_comparison(table: pd.DataFrame, data: Data, r_boot: np.ndarray,
                       n_package: int) -> tuple[int, int]:
    """The one comparison of two models' r_sentence: the estimates, Steiger's z over the
    sentences with both scores, the paired bootstrap difference's interval and p against
    ours (``r_boot``: resamples x models, in the order of ``data.models``), Holm of one p.
    Returns the sentences Steiger's z used and the package's resamples."""
    assert len(table) == 1
    row = table.iloc[0]
    a, b = row["model_a"], row["model_b"]
    names = list(data.models)
    _, p, n_cases = steiger(data.human, data.models[a].z(), data.models[b].z())
    n = max(n_package, resamples_for(1))
    ours = data.evaluate()
    ea, eb = ours.loc[a, "r_sentence"], ours.loc[b, "r_sentence"]
    what = f"comparisons {a} - {b}"
    assert_close(row[["estimate_a", "estimate_b", "difference", "p_min"]],
                 [ea, eb, ea - eb, 2 / (n + 1)], what)
    assert_close([row["p_test"], row["p_test_adj"]], [p, p], f"{what} Steiger p", rtol=1e-9)
    assert row["test"] == "steiger_z"
    diff = r_boot[:, names.index(a)] - r_boot[:, names.index(b)]
    assert_interval(row["difference_lower"], row["difference_upper"], ea - eb, diff, n, what)
    assert_p_boot(row["p_boot"], diff, n, what)
    assert_close(row["p_boot_adj"], row["p_boot"], f"{what} Holm of one p")
    assert_only(table, {"estimate_a", "estimate_b", "difference", "difference_lower",
                        "difference_upper", "p_boot", "p_boot_adj", "p_min", "p_test",
                        "p_test_adj"}, "comparisons")
    return n_cases, n


def models_of(scores: pd.DataFrame, ids: pd.Series, classifiers: tuple[str, ...] = ()
              ) -> dict[str, Model]:
    """Each model of a long scores table as a ``Model`` over ``ids`` (NaN: no score), in
    the table's order."""
    return {m: Model(t.set_index("sentence_id")["score"].reindex(ids).to_numpy(float),
                     classifier=m in classifiers)
            for m, t in scores.groupby("model", sort=False)}


def check_metrics(table: pd.DataFrame, ours: pd.DataFrame, dist: dict[str, np.ndarray],
                  what: str, n_package: int) -> set[str]:
    """Each column of ``table`` that ``ours`` (indexed by model) has, per model row, and
    each ``<metric>_lower``/``_upper`` pair against our bootstrap ``dist`` (metric ->
    (resamples, models in the order of ``ours``)); returns the columns checked."""
    checked = {"model"}
    order = list(ours.index)
    for col in table.columns:
        if col in ours.columns and not pd.api.types.is_numeric_dtype(ours[col]):  # text
            assert table[col].astype(object).fillna("").tolist() == ours.loc[table["model"], col].tolist(), (
                f"{what} {col}")
            checked.add(col)
        elif col in ours.columns:
            assert_close(table[col], ours.loc[table["model"], col], f"{what} {col}")
            checked.add(col)
        if f"{col}_lower" in table:
            for _, row in table.iterrows():
                assert_interval(row[f"{col}_lower"], row[f"{col}_upper"], row[col],
                                dist[col][:, order.index(row["model"])], n_package,
                                f"{what} {col} of {row['model']}")
            checked |= {f"{col}_lower", f"{col}_upper"}
    return checked


# ------------------------------------------------------------------ the report's files


def read_tables(out: Path) -> dict[str, pd.DataFrame]:
    """Every CSV table the report wrote (tables/*.csv), by file stem."""
    return {p.stem: pd.read_csv(p) for p in sorted((out / "tables").glob("*.csv"))}


def assert_only(table: pd.DataFrame, checked: set[str], what: str) -> None:
    """Every column of ``table`` is a label column or one the test recomputed: a number
    added to a report without a check here fails the guard."""
    unchecked = [c for c in table.columns if c not in checked and c not in LABELS]
    assert not unchecked, f"{what}: columns {unchecked} are not recomputed by the guard"


def assert_close(actual: object, expected: object, what: str, atol: float = 1e-9,
                 rtol: float = 0.0) -> None:
    """Numbers equal within ``atol`` + ``rtol`` * |expected| (NaN only where expected)."""
    a = np.asarray(actual, float)
    e = np.asarray(expected, float)
    assert a.shape == e.shape, f"{what}: shape {a.shape}, expected {e.shape}"
    same_nan = np.isnan(a) == np.isnan(e)
    close = np.isclose(np.nan_to_num(a), np.nan_to_num(e), rtol=rtol, atol=atol)
    assert (same_nan & close).all(), f"{what}: {a.tolist()} != expected {e.tolist()}"


# a backslash before ASCII punctuation: Markdown's escape ("\\|", "\\*", "\\["), read back
_MD_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_CELL_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?", re.IGNORECASE)


def markdown_tables(out: Path) -> dict[str, list[list[str]]]:
    """The tables of report.md by file stem (their number, from the first line of each
    tables/<stem>.tex): header row and data rows as cell strings."""
    stem_of = {}
    for tex in (out / "tables").glob("*.tex"):
        first = tex.read_text().splitlines()[0]
        stem_of[int(re.fullmatch(r"% Table (\d+) of report\.html", first).group(1))] = tex.stem
    lines = (out / "report.md").read_text().splitlines()
    found: dict[str, list[list[str]]] = {}
    for i, line in enumerate(lines):
        number = re.match(r"\*\*Table (\d+)\.\*\*", line)
        if not number:
            continue
        rows = []
        for row in lines[i + 2:]:
            if not row.startswith("|"):
                if rows:
                    break
                continue
            cells = re.split(r"(?<!\\)\|", row.strip().removeprefix("|").removesuffix("|"))
            rows.append([_MD_ESCAPE.sub(r"\1", c.strip()) for c in cells])
        found[stem_of[int(number.group(1))]] = [rows[0], *rows[2:]]  # without the |:--| row
    return found


def _is_p(column: str) -> bool:
    return column.startswith("p_") or column.endswith(("_p", "pvalue", "p_value"))


def assert_markdown_matches(out: Path, tables: dict[str, pd.DataFrame]) -> None:
    """Every number of every Markdown table is its CSV value as printed: 3 decimals (p-values
    3 significant digits), an interval ``v [lower, upper]`` beside a value that has one, a
    dash where the CSV has none; texts and whole numbers as they are. The CSVs are what
    the other tests recompute."""
    md = markdown_tables(out)
    missing = sorted(set(k for k in tables if (out / "tables" / f"{k}.tex").exists()) - set(md))
    assert not missing, f"tables {missing} have a CSV and a .tex but no Markdown table"
    for stem, rows in md.items():
        csv = tables[stem]
        folded = {c for c in csv.columns if c.endswith(("_lower", "_upper"))
                  and c.rsplit("_", 1)[0] in csv.columns}
        shown = [c for c in csv.columns if c not in folded]
        assert len(rows[0]) == len(shown), f"{stem}: Markdown columns {rows[0]} vs CSV {shown}"
        assert len(rows) - 1 == len(csv), f"{stem}: {len(rows) - 1} Markdown rows, CSV {len(csv)}"
        for r, cells in enumerate(rows[1:]):
            for col, cell in zip(shown, cells, strict=True):
                where = f"report.md table {stem}, row {r + 1}, column {col!r}: {cell!r}"
                _assert_cell(cell, csv[col].iloc[r], csv, col, r, where)


def _assert_cell(cell: str, value: object, csv: pd.DataFrame, col: str, r: int,
                 where: str) -> None:
    assert "nan" not in cell.lower().split(), f"{where}: NaN printed as text"
    if isinstance(value, bool | np.bool_):
        assert cell == str(value), where
        return
    if isinstance(value, str):
        number = _number(value)
        if number is None:
            assert cell == value.strip(), where
        else:
            assert _number(cell) is not None and abs(_number(cell) - number) <= 5e-4 + 1e-9, where
        return
    if pd.isna(value):
        assert cell in ("–", ""), f"{where}: expected a dash for a missing value"
        return
    numbers = [float(n) for n in _CELL_NUMBER.findall(cell.replace("−", "-"))]
    expected = [float(value)]
    if f"{col}_lower" in csv and pd.notna(csv[f"{col}_lower"].iloc[r]):
        expected += [float(csv[f"{col}_lower"].iloc[r]), float(csv[f"{col}_upper"].iloc[r])]
    if _is_p(col) and value == 0:
        assert cell == "< 1e-300", where
        return
    assert len(numbers) == len(expected), f"{where}: expected {len(expected)} numbers"
    whole = pd.api.types.is_integer_dtype(csv[col])
    for got, want in zip(numbers, expected, strict=True):
        if whole:
            tol = 0.0
        elif _is_p(col):
            tol = 0.5 * 10 ** (math.floor(math.log10(abs(want))) - 2) * (1 + 1e-9)
        else:
            tol = 5e-4 + 1e-9
        assert abs(got - want) <= tol, f"{where}: {got} vs {want}"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None
