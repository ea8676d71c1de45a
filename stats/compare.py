"""Comparing models on one metric: the paired (cluster) bootstrap difference with its
interval and p-value, beside the classical test of each metric: exact McNemar (1947)
for pass/fail criteria, Steiger's (1980) z for correlations sharing the human
variable. Many models: all pairs, p-values corrected by ``statsmodels``' Holm or
Benjamini-Hochberg. McNemar and Steiger treat pairs (sentences) as independent;
the cluster bootstrap does not, so prefer ``p_boot`` on clustered data. The resampling,
intervals, p-values and corrections are the engine's (``stats.inference``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar

from acceptability._warnings import warn
from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.arguments import (
    check_count,
    check_number,
    check_probability,
    check_resampling,
    check_whole,
)
from acceptability.stats.defaults import (
    DEFAULT_DELTAS,
    DEFAULT_MAX_DELTA,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
)
from acceptability.stats.deltas import pair_deltas, sentence_frame
from acceptability.stats.inference.bootstrap import (
    Metric,
    cell_statistic,
    resampling_strata,
    warn_few_clusters,
)
from acceptability.stats.inference.engine import Resamples, Seed, block_size, resample
from acceptability.stats.inference.pvalues import adjust_p, bootstrap_p
from acceptability.stats.inference.resample import Strata, resampling_units
from acceptability.stats.metric_table import check_metric, spec_of


def mcnemar_exact(pass_a: np.ndarray, pass_b: np.ndarray) -> tuple[float, float]:
    """Exact McNemar test (McNemar 1947; binomial on the discordant pairs) of two
    paired 0/1 outcomes.

    Parameters
    ----------
    pass_a, pass_b
        Whether each pair passes under model a and under model b.

    Returns
    -------
    statistic, p : float
        The smaller discordant count and the two-sided p-value.

    Examples
    --------
    >>> from acceptability.stats import mcnemar_exact
    >>> mcnemar_exact([1, 1, 1, 1, 1, 0, 1, 1], [0, 0, 0, 1, 1, 0, 1, 1])
    (0.0, 0.25)
    """
    a, b = np.asarray(pass_a, bool), np.asarray(pass_b, bool)
    table = [[np.sum(a & b), np.sum(a & ~b)], [np.sum(~a & b), np.sum(~a & ~b)]]
    res = mcnemar(table, exact=True)
    return float(res.statistic), float(res.pvalue)


def steiger_z(r_ha: float, r_hb: float, r_ab: float, n: int) -> tuple[float, float]:
    """Steiger's (1980, eq. 15) z for two dependent correlations r(h, a), r(h, b)
    sharing h (Fisher z, pooled r). Hand-written: scipy, statsmodels and pingouin have
    no dependent-correlation test.

    Parameters
    ----------
    r_ha, r_hb
        The two correlations with the shared variable h.
    r_ab
        The correlation of a and b.
    n
        Cases with all three values.

    Returns
    -------
    z, p : float
        Steiger's z and its two-sided normal p-value.

    Examples
    --------
    >>> from acceptability.stats import steiger_z
    >>> z, p = steiger_z(0.5, 0.3, 0.4, 100)
    >>> round(z, 4), round(p, 4)
    (2.0349, 0.0419)
    """
    r_ha, r_hb, r_ab = _correlations(r_ha, r_hb, r_ab)
    n = check_whole("n", n, 4, 2**62, "Steiger's z needs at least 4 cases (its SE has n - 3)")
    rbar = (r_ha + r_hb) / 2
    psi = r_ab * (1 - 2 * rbar**2) - 0.5 * rbar**2 * (1 - 2 * rbar**2 - r_ab**2)
    cov = psi / (1 - rbar**2) ** 2
    if not cov < 1:
        raise ValueError(f"r_ab={r_ab!r}: a and b correlate perfectly and equally with h, so "
                         "their correlations with h cannot differ: there is nothing to test")
    z = (np.arctanh(r_ha) - np.arctanh(r_hb)) * np.sqrt((n - 3) / (2 - 2 * cov))
    return float(z), float(2 * sps.norm.sf(abs(z)))


NO_TEST = {"test": None, "statistic": np.nan, "p_test": np.nan, "n_test": np.nan}


def _classical(dataset, scores, a: str, b: str, metric: str, sign: str = "strict",
               frames: dict | None = None) -> dict:
    """The classical test of ``metric`` for models a and b on the full data, as its entry
    in the metrics table says: McNemar for a pass rate (``passes``), Steiger for a
    correlation with humans (``level``), none otherwise (``frames`` keeps the pair and
    sentence frames for the next pair of models)."""
    frames = {} if frames is None else frames
    spec, delta = spec_of(metric)
    if spec.passes is None and spec.level is None:
        return NO_TEST
    if (spec.passes is not None or spec.level == "pair") and "pairs" not in frames:
        frames["pairs"] = pair_deltas(dataset, scores)
    if spec.level == "sentence" and "sentences" not in frames:
        frames["sentences"] = sentence_frame(dataset, scores)
    if spec.passes is not None:
        frame = frames["pairs"]
        p = frame.pivot(index="pair_id", columns="model", values="dlm")
        dh = frame.drop_duplicates("pair_id").set_index("pair_id")["dh"].reindex(p.index)
        ok = p[[a, b]].notna().all(axis=1) & (dh.notna() if "human" in spec.needs else True)
        h = dh[ok].to_numpy()
        pa = spec.passes(h, p.loc[ok, a].to_numpy(), delta, sign)
        pb = spec.passes(h, p.loc[ok, b].to_numpy(), delta, sign)
        stat, pval = mcnemar_exact(pa, pb)
        return {"test": "mcnemar_exact", "statistic": stat, "p_test": pval, "n_test": int(ok.sum())}
    if spec.level == "pair":
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


def compare_all(dataset: Dataset, scores: pd.DataFrame, metric: Metric,
                models: list[str] | None = None, correction: str | None = "holm",
                n_boot: int = DEFAULT_N_BOOT, cluster: str | None = "type_id", ci: float = 0.95,
                method: str = "percentile", seed: Seed = DEFAULT_SEED, deltas=DEFAULT_DELTAS,
                max_delta: float = DEFAULT_MAX_DELTA, sign: str = "strict") -> pd.DataFrame:
    """Every pair of ``models`` on one ``metric``: the paired bootstrap difference and
    the classical test.

    All differences come from the same resamples (see `stats.bootstrap` for
    ``cluster``, ``method``, ``seed``). ``p_boot`` is two-sided: the standard Monte Carlo
    p-value (1 + count) / (n_boot + 1) (Davison & Hinkley 1997, ch. 4) of the resampled
    differences on the far side of 0 (the smaller of the counts <= 0 and >= 0),
    doubled. Its resolution is ``p_min`` = 2 / (n_boot + 1): corrected for m
    comparisons, no ``p_boot_adj`` can fall below about m * p_min, so choose n_boot with
    `resamples_for`.

    Parameters
    ----------
    dataset, scores
        The data and the long scores table.
    metric
        One metric name (``"r_pair"``, ``"blimp"``, ``"adc_1"``, ...) or a function
        ``f(dataset, scores)`` giving one metric per model.
    models
        The models to compare (default all).
    correction
        ``"holm"``, ``"fdr_bh"``, any ``multipletests`` method, or None.
    n_boot
        Bootstrap resamples.
    cluster, ci, method, seed
        As in `stats.bootstrap`.
    deltas, max_delta, sign
        As in `stats.evaluate` (the ADC's sign convention: ``"strict"`` or ``"thesis"``).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``model_a``, ``model_b``, ``metric``, ``estimate_a``,
        ``estimate_b``, ``difference`` (a - b), its bootstrap ``se``, ``lower``,
        ``upper``, ``p_boot``, ``p_min``, and the classical ``test``, ``statistic``,
        ``p_test``, ``n_test`` (McNemar for blimp/adc_*, Steiger for r_*); with
        ``correction`` also ``p_boot_adj`` and ``p_test_adj``.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> table = stats.compare_all(ds, scores, "blimp", n_boot=199, cluster=None)
    >>> table[["model_a", "model_b"]].to_numpy().tolist()[:2]
    [['bert-large-cased_acc', 'bert-large-cased_mlm'], ['bert-large-cased_acc', 'trigram_slor']]
    >>> table.attrs["p_min"], bool((table["p_boot_adj"] >= table["p_boot"]).all())
    (0.01, True)
    """
    n_boot, ci, seed, deltas, max_delta = check_resampling(n_boot, ci, method, seed, deltas,
                                                           max_delta)
    strata, cells, statistic = _one_metric(dataset, scores, metric, cluster, deltas,
                                           max_delta, sign)
    pairs = _model_pairs(list(cells.get_level_values("model")), models)
    ia = np.array([i for i, _ in pairs], dtype=int)
    ib = np.array([j for _, j in pairs], dtype=int)

    def difference(*idx, axis=-1):
        # indexed, not a contrast matrix product: 0 * NaN of a third model is NaN
        stat = statistic(strata.draws(idx))
        return stat[ia] - stat[ib]

    res = resample(strata.samples, difference, n_boot, ci, method, seed,
                   block_size(strata.units.n))
    full = statistic(strata.draws(strata.samples))
    out, p_min = _comparisons(dataset, scores, metric, cells, pairs, full, res, sign)
    _warn_undefined(out, res)
    if correction is not None:
        for col in ("p_boot", "p_test"):  # correct over the comparisons that have a p
            out[f"{col}_adj"] = adjust_p(out[col].to_numpy(float), correction)
    out.attrs.update(n_boot=n_boot, cluster=cluster, n_units=strata.units.n,
                     unit=strata.unit[0], ci=ci, method=method.lower(), seed=seed,
                     correction=correction, p_min=p_min)
    return out


def _warn_undefined(out: pd.DataFrame, res: Resamples) -> None:
    """Name the pairs of models whose difference is a number but whose bootstrap interval
    and p-value are not: the metric is undefined in some resamples (a resample without a
    pair one model scored), which count on neither side of 0."""
    undefined = (out["p_boot"].isna() & out["difference"].notna()).to_numpy()
    if undefined.any():
        share = np.isnan(np.atleast_2d(res.distribution)[undefined]).mean(axis=1).max()
        pairs = list(zip(out["model_a"][undefined], out["model_b"][undefined], strict=True))
        warn(f"no bootstrap interval or p-value for {len(pairs)} pair(s) of models "
             f"{pairs[:5]}{' ...' if len(pairs) > 5 else ''}: the metric is undefined "
             f"(NaN) in up to {share:.1%} of the resamples (e.g. a resample without a pair "
             "that one of the models scored); resample clusters (cluster=) or compare on "
             "pairs both models scored")


def _one_metric(dataset: Dataset, scores: pd.DataFrame, metric: Metric, cluster: str | None,
                deltas, max_delta: float, sign: str) -> tuple[Strata, pd.MultiIndex, Callable]:
    """How ``compare_all`` resamples (the strata of ``bootstrap`` without ``by``) and the
    cells and statistic of its single ``metric``."""
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
    return strata, cells, statistic


def _model_pairs(have: list[str], models: list[str] | None) -> list[tuple[int, int]]:
    """Positions (in the statistic's cells) of every pair of ``models`` (default all)."""
    position = {m: i for i, m in enumerate(have)}
    models = list(position) if models is None else list(models)
    missing = [m for m in models if m not in position]
    if missing:
        raise KeyError(f"no model(s) {missing} in the scores (have {list(position)})")
    return [(position[a], position[b]) for a, b in combinations(models, 2)]


def _comparisons(dataset: Dataset, scores: pd.DataFrame, metric: Metric, cells: pd.MultiIndex,
                 pairs: list[tuple[int, int]], full: np.ndarray, res: Resamples,
                 sign: str) -> tuple[pd.DataFrame, float]:
    """One row per pair of models (estimates, the bootstrap difference's se, interval and
    p-value, the classical test) and the p-values' resolution ``p_min``."""
    p_boot, p_min = bootstrap_p(res.distribution)
    model, name = cells.get_level_values("model"), cells.get_level_values("metric")[0]
    se, lower, upper = (np.atleast_1d(v) for v in (res.se, res.lower, res.upper))
    rows, frames = [], {}
    for k, (i, j) in enumerate(pairs):
        a, b = model[i], model[j]
        row = {"model_a": a, "model_b": b, "metric": name, "estimate_a": full[i],
               "estimate_b": full[j], "difference": full[i] - full[j], "se": se[k],
               "lower": lower[k], "upper": upper[k], "p_boot": p_boot[k], "p_min": p_min}
        rows.append(row | (_classical(dataset, scores, a, b, metric, sign, frames)
                           if isinstance(metric, str) else NO_TEST))
    return pd.DataFrame(rows), p_min


def resamples_for(n_comparisons: int, alpha: float = 0.05, tail: int = 50) -> int:
    """Bootstrap resamples enough for ``n_comparisons`` corrected comparisons at level
    ``alpha``: the smallest n for which a two-sided ``p_boot`` at the Bonferroni (and
    Holm's first) threshold alpha / m rests on ``tail`` resampled differences beyond 0,
    (n + 1) * alpha / (2 m) >= tail. ``tail=50`` is Davison & Hinkley's (1997, ch. 4)
    999 simulations for a test at 0.05, applied at the corrected level: 28 comparisons
    (8 models) need 55,999 resamples, where 1,000 cannot give any adjusted p below 0.056.

    Parameters
    ----------
    n_comparisons
        Number of corrected comparisons (m; 28 for all pairs of 8 models).
    alpha
        Family-wise level.
    tail
        Resampled differences beyond 0 that a p-value at the threshold rests on.

    Returns
    -------
    int
        The number of resamples, ``n_boot``.

    Examples
    --------
    >>> from acceptability.stats import resamples_for
    >>> resamples_for(28), resamples_for(1)
    (55999, 1999)
    """
    n_comparisons, tail = check_count("n_comparisons", n_comparisons), check_count("tail", tail)
    alpha = check_probability("alpha", alpha)
    return math.ceil(round(2 * tail * n_comparisons / alpha, 9)) - 1


def _correlations(r_ha: float, r_hb: float, r_ab: float) -> tuple[float, float, float]:
    """``steiger_z``'s correlations: r_ha, r_hb in (-1, 1) (Fisher's z of 1 is infinite),
    r_ab in [-1, 1], together those of three real variables (a positive semi-definite
    matrix, determinant >= 0)."""
    rs = [check_number(name, r, -1.0, 1.0, allowed="a correlation must be a number from -1 "
                       "to 1" + (", exclusive (Fisher's z of +-1 is infinite)" if k < 2 else ""))
          for k, (name, r) in enumerate((("r_ha", r_ha), ("r_hb", r_hb), ("r_ab", r_ab)))]
    for name, r in zip(("r_ha", "r_hb"), rs, strict=False):
        if abs(r) == 1:
            raise ValueError(f"{name}={r!r}: a correlation with h must lie strictly between "
                             "-1 and 1 (Fisher's z of +-1 is infinite)")
    a, b, c = rs
    if 1 - a * a - b * b - c * c + 2 * a * b * c < -1e-12:
        raise ValueError(f"r_ha={a!r}, r_hb={b!r}, r_ab={c!r}: no three variables have "
                         "these correlations (their matrix is not positive semi-definite)")
    return a, b, c


def compare(dataset: Dataset, scores: pd.DataFrame, model_a: str, model_b: str, metric: Metric,
            **kwargs) -> pd.Series:
    """Model a against model b on one metric.

    Parameters
    ----------
    dataset, scores
        The data and the long scores table.
    model_a, model_b
        The two models.
    metric
        One metric name or function, as in `compare_all`.
    **kwargs
        `compare_all`'s keywords (``n_boot``, ``cluster``, ``seed``, ...).

    Returns
    -------
    pandas.Series
        The paired bootstrap difference (a - b) with ``se``, ``lower``, ``upper``,
        ``p_boot``, and the classical test (`compare_all`'s row, uncorrected).

    Examples
    --------
    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> row = stats.compare(ds, scores, "bert-large-cased_acc", "bert-large-cased_mlm",
    ...                     "blimp", n_boot=199, cluster=None)
    >>> round(float(row["difference"]), 3), row["test"]
    (0.412, 'mcnemar_exact')
    """
    return compare_all(dataset, scores, metric, models=[model_a, model_b], correction=None,
                       **kwargs).iloc[0]
