"""Comparing models on one metric: the paired (cluster) bootstrap difference with its
interval and p-value, beside the classical test of each metric: exact McNemar (1947)
for pass/fail criteria, Steiger's (1980) z for correlations sharing the human
variable. Many models: all pairs, p-values corrected by ``statsmodels``' Holm or
Benjamini-Hochberg. McNemar and Steiger treat pairs (sentences) as independent;
the cluster bootstrap does not, so prefer ``p_boot`` on clustered data.
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_N_BOOT, DEFAULT_SEED
from acceptability.stats.deltas import pair_deltas, sentence_frame
from acceptability.stats.inference.arrays import adc_delta, check_metric
from acceptability.stats.inference.bootstrap import (
    Metric,
    cell_statistic,
    resampling_strata,
    warn_few_clusters,
)
from acceptability.stats.inference.resample import resampling_units


def mcnemar_exact(pass_a: np.ndarray, pass_b: np.ndarray) -> tuple[float, float]:
    """Exact McNemar test (McNemar 1947; binomial on the discordant pairs) of two
    paired 0/1 outcomes: (smaller discordant count, two-sided p)."""
    a, b = np.asarray(pass_a, bool), np.asarray(pass_b, bool)
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    res = mcnemar(table, exact=True)
    return float(res.statistic), float(res.pvalue)


def steiger_z(r_ha: float, r_hb: float, r_ab: float, n: int) -> tuple[float, float]:
    """Steiger's (1980, eq. 15) z for two dependent correlations r(h, a), r(h, b)
    sharing h, with r(a, b) and n cases (Fisher z, pooled r): (z, two-sided p).
    Hand-written: scipy, statsmodels and pingouin have no dependent-correlation test."""
    rbar = (r_ha + r_hb) / 2
    psi = r_ab * (1 - 2 * rbar**2) - 0.5 * rbar**2 * (1 - 2 * rbar**2 - r_ab**2)
    cov = psi / (1 - rbar**2) ** 2
    z = (np.arctanh(r_ha) - np.arctanh(r_hb)) * np.sqrt((n - 3) / (2 - 2 * cov))
    return float(z), float(2 * sps.norm.sf(abs(z)))


NO_TEST = {"test": None, "statistic": np.nan, "p_test": np.nan, "n_test": np.nan}


def _classical(dataset, scores, a: str, b: str, metric: str, sign: str = "strict",
               frames: dict | None = None) -> dict:
    """The classical test of ``metric`` for models a and b on the full data (``frames``
    keeps the pair and sentence frames for the next pair of models)."""
    frames = {} if frames is None else frames
    delta = adc_delta(metric)
    if (metric in ("blimp", "r_pair") or delta is not None) and "pairs" not in frames:
        frames["pairs"] = pair_deltas(dataset, scores)
    if metric == "r_sentence" and "sentences" not in frames:
        frames["sentences"] = sentence_frame(dataset, scores)
    if metric == "blimp" or delta is not None:
        frame = frames["pairs"]
        p = frame.pivot(index="pair_id", columns="model", values="dlm")
        dh = frame.drop_duplicates("pair_id").set_index("pair_id")["dh"].reindex(p.index)
        if metric == "blimp":
            ok = p[[a, b]].notna().all(axis=1)
            pa, pb = p.loc[ok, a] > 0, p.loc[ok, b] > 0
        else:
            ok = p[[a, b]].notna().all(axis=1) & dh.notna()
            h = dh[ok].to_numpy()
            pa = metrics.adc_pass(h, p.loc[ok, a].to_numpy(), delta, sign)
            pb = metrics.adc_pass(h, p.loc[ok, b].to_numpy(), delta, sign)
        stat, pval = mcnemar_exact(pa, pb)
        return {"test": "mcnemar_exact", "statistic": stat, "p_test": pval, "n_test": int(ok.sum())}
    if metric in ("r_pair", "r_sentence"):
        if metric == "r_pair":
            frame = frames["pairs"]
            wide = frame.pivot(index="pair_id", columns="model", values="dlm")
            h = frame.drop_duplicates("pair_id").set_index("pair_id")["dh"].reindex(wide.index)
        else:
            frame = frames["sentences"]
            wide = frame.pivot(index="sentence_id", columns="model", values="z")
            h = dataset.sentences.set_index("sentence_id")["human"].reindex(wide.index)
        complete = pd.DataFrame({"h": h, "a": wide[a], "b": wide[b]}).dropna()
        r = metrics.pearson_matrix(complete.to_numpy().T)  # (3 variables x n cases)
        n = len(complete)  # cases with all three values, not the 3 variables
        stat, pval = steiger_z(r[0, 1], r[0, 2], r[1, 2], n)
        return {"test": "steiger_z", "statistic": stat, "p_test": pval, "n_test": n}
    return NO_TEST


def compare_all(dataset: Dataset, scores: pd.DataFrame, metric: Metric,
                models: list[str] | None = None, correction: str | None = "holm",
                n: int = DEFAULT_N_BOOT, cluster: str | None = "type_id", ci: float = 0.95,
                method: str = "percentile", seed: int | None = DEFAULT_SEED,
                deltas=DEFAULT_DELTAS,
                max_delta: float = 5.0, sign: str = "strict") -> pd.DataFrame:
    """Every pair of ``models`` (default all) on one ``metric``: one row each with
    ``estimate_a``, ``estimate_b``, ``difference`` (a - b), its paired bootstrap
    ``se``, ``lower``, ``upper`` and ``p_boot``, and the classical ``test``,
    ``statistic``, ``p_test`` (McNemar for blimp/adc_*, Steiger for r_*).

    All differences come from the same resamples (see ``stats.bootstrap`` for
    ``cluster``, ``method``, ``seed``). ``p_boot`` is two-sided: the standard Monte Carlo
    p-value (1 + count) / (n + 1) (Davison & Hinkley 1997, ch. 4) of the resampled
    differences on the far side of 0 (the smaller of the counts <= 0 and >= 0),
    doubled. Its resolution is ``p_min`` = 2 / (n + 1), the smallest p that n resamples
    can give (also in ``attrs``): corrected for m comparisons, no p_boot_adj can fall
    below about m * p_min, so choose n with :func:`resamples_for`. With
    ``correction`` ("holm", "fdr_bh", or any ``multipletests`` method) the columns
    ``p_boot_adj`` and ``p_test_adj`` hold the corrected p-values. ``sign``: the ADC's
    sign convention, ``"strict"`` or ``"thesis"`` (``stats.metrics.sign_agree``).
    """
    if not (isinstance(metric, str) or callable(metric)):
        raise TypeError("compare a single metric: a name such as 'r_pair', or a function")
    if isinstance(metric, str):
        check_metric(dataset, metric)
    units = resampling_units(dataset, cluster)
    strata = resampling_strata(dataset, units, cluster)  # few clusters: pairs within each
    if not strata.samples:
        raise ValueError("cannot compare models by bootstrap: the data hold a single "
                         "resampling unit (one pair, or pairs sharing a sentence)")
    warn_few_clusters(units, strata, cluster, None)
    cells, statistic = cell_statistic([metric] if isinstance(metric, str) else metric,
                                      dataset, scores, strata.units, deltas, max_delta,
                                      sign=sign)
    names = cells.get_level_values("metric").unique()
    if len(names) != 1:
        raise ValueError(f"the function gives several metrics {list(names)}; compare one")
    position = {m: i for i, m in enumerate(cells.get_level_values("model"))}
    models = list(position) if models is None else list(models)
    missing = [m for m in models if m not in position]
    if missing:
        raise KeyError(f"no model(s) {missing} in the scores (have {list(position)})")
    pairs = list(combinations(models, 2))
    ia = np.array([position[a] for a, _ in pairs], dtype=int)
    ib = np.array([position[b] for _, b in pairs], dtype=int)

    def difference(*idx, axis=-1):
        # indexed, not a contrast matrix product: 0 * NaN of a third model is NaN
        stat = statistic(strata.draws(idx))
        return stat[ia] - stat[ib]

    res = sps.bootstrap(strata.samples, difference, n_resamples=n, batch=2_000,
                        vectorized=True, confidence_level=ci, rng=np.random.default_rng(seed),
                        method="BCa" if method.lower() == "bca" else "percentile")
    full = statistic(strata.draws(strata.samples))
    dist = np.atleast_2d(res.bootstrap_distribution)
    below, above = (dist <= 0).sum(axis=1), (dist >= 0).sum(axis=1)
    p_min = 2 / (n + 1)
    # a difference undefined in some resample (a NaN metric) has no bootstrap p: NaN
    # comparisons count as neither side and would give the smallest p
    p_boot = np.where(np.isfinite(dist).all(axis=1),
                      np.minimum(1.0, (1 + np.minimum(below, above)) * p_min), np.nan)
    rows, frames = [], {}
    for k, (a, b) in enumerate(pairs):
        ea, eb = full[position[a]], full[position[b]]
        row = {"model_a": a, "model_b": b, "metric": names[0], "estimate_a": ea, "estimate_b": eb,
               "difference": ea - eb, "se": np.atleast_1d(res.standard_error)[k],
               "lower": np.atleast_1d(res.confidence_interval.low)[k],
               "upper": np.atleast_1d(res.confidence_interval.high)[k], "p_boot": p_boot[k],
               "p_min": p_min}
        rows.append(row | (_classical(dataset, scores, a, b, metric, sign, frames)
                           if isinstance(metric, str) else NO_TEST))
    out = pd.DataFrame(rows)
    if correction is not None:
        for col in ("p_boot", "p_test"):  # correct over the comparisons that have a p
            tested = out[col].notna()
            out[f"{col}_adj"] = np.nan
            if tested.any():
                out.loc[tested, f"{col}_adj"] = multipletests(out.loc[tested, col],
                                                              method=correction)[1]
    out.attrs.update(n=n, cluster=cluster, n_units=strata.units.n, unit=strata.unit[0],
                     ci=ci, method=method.lower(),
                     seed=seed, correction=correction, p_min=p_min)
    return out


def resamples_for(n_comparisons: int, alpha: float = 0.05, tail: int = 50) -> int:
    """Bootstrap resamples enough for ``n_comparisons`` corrected comparisons at level
    ``alpha``: the smallest n for which a two-sided ``p_boot`` at the Bonferroni (and
    Holm's first) threshold alpha / m rests on ``tail`` resampled differences beyond 0,
    (n + 1) * alpha / (2 m) >= tail. ``tail=50`` is Davison & Hinkley's (1997, ch. 4)
    999 simulations for a test at 0.05, applied at the corrected level: 28 comparisons
    (8 models) need 55,999 resamples, where 1,000 cannot give any adjusted p below 0.056.
    """
    if n_comparisons < 1 or not 0 < alpha < 1 or tail < 1:
        raise ValueError(f"need n_comparisons >= 1, 0 < alpha < 1, tail >= 1; got "
                         f"{n_comparisons}, {alpha}, {tail}")
    return math.ceil(round(2 * tail * n_comparisons / alpha, 9)) - 1


def compare(dataset: Dataset, scores: pd.DataFrame, model_a: str, model_b: str, metric: Metric,
            **kwargs) -> pd.Series:
    """Model a against model b on one metric: the paired bootstrap difference (a - b)
    with ``se``, ``lower``, ``upper``, ``p_boot``, and the classical test (see
    :func:`compare_all`, which takes the same keywords)."""
    return compare_all(dataset, scores, metric, models=[model_a, model_b], correction=None,
                       **kwargs).iloc[0]
