"""``evaluate``: every metric for every model in one table (thesis Tables 2.3, 3.1;
seed 004 variability), optionally broken down by a grouping column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.tables import signed_confidence
from acceptability.stats import metrics
from acceptability.stats.arguments import (
    check_ci,
    check_delta,
    check_deltas,
    check_n_boot,
    check_seed,
)
from acceptability.stats.defaults import (
    DEFAULT_DELTAS,
    DEFAULT_MAX_DELTA,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
)
from acceptability.stats.deltas import sentence_and_pair_frames, z_scoring_once
from acceptability.stats.inference.arrays import all_metrics
from acceptability.stats.inference.bootstrap import bootstrap, with_intervals
from acceptability.stats.metric_table import (
    MetricSpec,
    Values,
    correlation_levels,
    metric_names,
    spec_of,
)
from acceptability.stats.ratings.human import norming_note, with_norming
from acceptability.stats.ratings.raters import rater_reliability
from acceptability.stats.zscore import exclusion_reason


def predicted_label(frame: pd.DataFrame) -> np.ndarray:
    """0/1 acceptability predictions for MCC.

    The sign of the raw score for classifier scores (signed confidence, thesis eq. 2.3:
    positive = predicted acceptable), else the sign of the z-score (above the dataset
    mean = acceptable).

    Parameters
    ----------
    frame
        Sentence rows with ``z`` and ``score`` (and ``method``), as ``sentence_frame``
        gives them.

    Returns
    -------
    numpy.ndarray
        1.0 (acceptable), 0.0, or NaN where the value is missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.evaluate import predicted_label
    >>> frame = pd.DataFrame({"method": ["classifier", "pll", "pll"],
    ...                       "score": [-0.2, -30.0, -41.0], "z": [0.4, 0.3, None]})
    >>> predicted_label(frame).tolist()
    [0.0, 1.0, nan]
    """
    raw = signed_confidence(frame["method"]) if "method" in frame else False
    value = np.where(raw, frame["score"], frame["z"]).astype(float)
    return np.where(np.isnan(value), np.nan, (value > 0).astype(float))


def _row(sent: pd.DataFrame, pairs: pd.DataFrame, specs: dict[str, tuple[MetricSpec, float | None]],
         max_delta: float, sign: str) -> dict:
    dh, dlm = pairs["dh"].to_numpy(float), pairs["dlm"].to_numpy(float)
    z, human = sent["z"].to_numpy(float), sent["human"].to_numpy(float)
    label = sent["label"].to_numpy(float)
    pred = predicted_label(sent)
    codes, uniques = pd.factorize(sent["type_id"])
    scored = ~np.isnan(dlm)
    both = scored & ~np.isnan(dh)
    row = {
        "n_pairs": int(scored.sum()),
        "n_pairs_human": int(both.sum()),
        "n_pairs_no_human": int((scored & ~both).sum()),
        "n_pairs_excluded": int((~scored).sum()),
        "n_sentences": int((~np.isnan(z)).sum()),
    }
    values = Values(dh, dlm, z, human, label, pred, codes, len(uniques), max_delta, sign)
    for name, (spec, delta) in specs.items():  # the metrics table's functions
        row[name] = spec.value(values, delta)
    row["n_mcc"] = int((~(np.isnan(label) | np.isnan(pred))).sum())
    row["excluded_because"] = "; ".join(r for r in (
        exclusion_reason(sent["score"].to_numpy(float), z), undefined_reason(human, dh)) if r)
    return row


NO_HUMAN = ("no human judgments (no human values and no trial-level ratings): ADC, "
            "r_sentence and r_pair undefined")
NO_PAIR_HUMAN = "no pair has human judgments of both its sentences: ADC and r_pair undefined"


def undefined_reason(human: np.ndarray, dh: np.ndarray) -> str:
    """Why the metrics of human judgments are NaN, for a table's reader: no sentence has
    a human value, or no pair has one for both its sentences (``""`` otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.evaluate import undefined_reason
    >>> undefined_reason(np.array([np.nan, np.nan]), np.array([np.nan]))[:18]
    'no human judgments'
    >>> undefined_reason(np.array([0.5, -0.5]), np.array([1.0]))
    ''
    """
    if len(human) and np.isnan(human).all():
        return NO_HUMAN
    if len(dh) and np.isnan(dh).all():
        return NO_HUMAN if not len(human) else NO_PAIR_HUMAN
    return ""


@all_metrics  # bootstrap(evaluate, ...) takes the fast path for all these metrics
def evaluate(dataset: Dataset, scores: pd.DataFrame, deltas=DEFAULT_DELTAS,
             by: str | None = None, max_delta: float = DEFAULT_MAX_DELTA,
             ci: bool | float = False, n_boot: int = DEFAULT_N_BOOT,
             cluster: str | None = "type_id", seed: int | None = DEFAULT_SEED,
             sign: str = "strict", norming: str | None = "auto") -> pd.DataFrame:
    """Every metric for every model in one table (thesis Tables 2.3, 3.1).

    Scores are z-scored over the whole dataset first; ``by`` then splits pairs and
    sentences by that column.

    Parameters
    ----------
    dataset, scores
        The data and the long scores table (``sentence_id, model, score``, ...).
    deltas
        ADC thresholds in z-units (positive); one ``adc_<delta>`` column each.
    by
        A sentence or pair column (``"phenomenon"``, ``"dataset"``, ``"paradigm"``):
        one row per model and value.
    max_delta
        Upper end of the ADC curve whose area is ``adc_area``.
    ci, n_boot, cluster, seed
        ``ci=True`` (or a level in (0, 1) such as 0.9) adds ``<metric>_lower``/``<metric>_upper``
        beside each metric: percentile intervals from ``n_boot`` bootstrap resamples
        clustered by ``cluster`` and drawn from ``seed`` (see `stats.bootstrap`); with
        ``by``, per group.
    sign
        When an ADC pair's deltas agree in sign (``stats.metrics.sign_agree``):
        ``"strict"`` (np.sign, thesis eq. 1.1 as written) or ``"thesis"`` ((dh > 0) ==
        (dlm > 0), which reproduces the thesis' tables; they differ on zero deltas only).
    norming
        With trial-level ratings: how they become ``human`` (`stats.with_norming`, as the
        command line's ``--norming``; "auto": the recorded norming, else z per participant
        where named, else the mean), said in ``attrs["norming"]``; with ``ci``,
        ``attrs["intervals"]`` holds the bootstrap's (unit, cluster, number of units).

    Returns
    -------
    pandas.DataFrame
        One row per model (per group with ``by``): ``blimp``, ``adc_<delta>``,
        ``adc_area``, ``r_sentence``, ``r_pair``, ``variability``, ``mcc``, and the
        counts behind them: ``n_pairs`` pairs with a model delta (the BLiMP criterion),
        ``n_pairs_human`` of them with a human delta too (ADC, r_pair),
        ``n_pairs_no_human`` without one, ``n_pairs_excluded`` pairs without a model
        delta (in no metric), ``n_sentences``, ``n_mcc``; ``excluded_because`` says why
        sentences have no z-score ("constant scores (SD 0): no z-scores", "no score for
        N sentences") and why the metrics of human judgments are NaN ("no human
        judgments ...", `undefined_reason`); empty when neither. Where the dataset has
        trial-level ratings, ``r_ceiling`` follows ``r_sentence``: the human ceiling of
        r_sentence, see `_with_ceiling`.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> table = stats.evaluate(ds, scores)
    >>> table["model"].tolist()
    ['bert-large-cased_acc', 'bert-large-cased_mlm', 'trigram_slor']
    >>> table["n_pairs"].tolist(), table["blimp"].round(3).tolist()
    ([20, 16, 8], [0.85, 0.438, 0.875])
    >>> with_ci = stats.evaluate(ds, scores, ci=True, n_boot=200)
    >>> list(with_ci.columns[6:9])
    ['blimp', 'blimp_lower', 'blimp_upper']
    """
    metrics.check_sign(sign)
    deltas, max_delta = check_deltas(deltas), check_delta("max_delta", max_delta)
    level = _level(ci)
    n_boot, seed = check_n_boot(n_boot, used=level is not None), check_seed(seed)
    dataset = with_norming(dataset, norming)  # ratings -> human, as on the command line
    with z_scoring_once():  # the table and the bootstrap's arrays: one z-scoring
        rows = _with_ceiling(_rows(dataset, scores, deltas, by, max_delta, sign), dataset)
        rows.attrs |= {"norming": norming_note(dataset)} if dataset.ratings is not None else {}
        if level is None:
            return rows
        boot = bootstrap(evaluate, dataset, scores, n_boot=n_boot, cluster=cluster,
                         ci=level, seed=seed, deltas=deltas,
                         max_delta=max_delta, by=by, sign=sign)
    out = with_intervals(rows, boot, by)
    out.attrs["intervals"] = dict(boot.attrs)  # what was resampled, as the engine says
    return out


def _level(ci: bool | float | None) -> float | None:
    """``evaluate``'s ``ci`` as an interval level: None (False, None: no intervals), 0.95
    (True) or a level checked by `stats.arguments.check_ci`."""
    if ci is None or isinstance(ci, (bool, np.bool_)):
        return 0.95 if ci else None
    return check_ci(ci)


CEILING_SEED = 0
"""The fixed seed of ``r_ceiling``'s split halves (not ``evaluate``'s ``seed``: the ceiling
is the data's, the same whatever the models and their intervals)."""


def _with_ceiling(table: pd.DataFrame, dataset: Dataset) -> pd.DataFrame:
    """``r_ceiling`` after ``r_sentence`` when ``dataset.ratings`` is not None: sqrt of the
    Spearman-Brown corrected split-half reliability of the per-sentence mean ratings
    ([rater_reliability][acceptability.stats.ratings.raters.rater_reliability],
    200 splits, seed `CEILING_SEED`), the largest r_sentence an error-free model can be
    expected to reach; one number for the whole dataset, also beside each ``by`` group.
    Of the raw ``response`` (the report computes it on the trials its ``human`` averages,
    normed within participant where it norms them). NaN where the ratings give no
    reliability (the reason in ``attrs["r_ceiling"]``)."""
    if dataset.ratings is None:
        return table
    try:
        rel = rater_reliability(dataset.ratings, "split_half", seed=CEILING_SEED, ci=None)
        ceiling = float(rel.set_index("quantity").at["ceiling", "estimate"])
        table.attrs["r_ceiling"] = (f"sqrt(split-half reliability), {rel['split'].iloc[0]} "
                                    f"halves, {rel['n_splits'].iloc[0]} splits, seed "
                                    f"{CEILING_SEED}")
    except DataError as err:
        ceiling, table.attrs["r_ceiling"] = np.nan, f"no ceiling: {err}"
    sentence_r = next(m for m, level in correlation_levels().items() if level == "sentence")
    table.insert(table.columns.get_loc(sentence_r) + 1, "r_ceiling", ceiling)
    return table


def _rows(dataset: Dataset, scores: pd.DataFrame, deltas: tuple[float, ...], by: str | None,
          max_delta: float, sign: str) -> pd.DataFrame:
    """``evaluate``'s table without intervals: one ``_row`` per model (and ``by`` value)."""
    sent, pairs = sentence_and_pair_frames(dataset, scores, ["type_id", "human", "label", by])
    keys = ["model"]
    if by is not None:
        if by not in sent.columns and by not in pairs.columns:
            have = set(sent.columns) | set(pairs.columns) | set(dataset.sentences.columns) | set(
                dataset.pairs.columns)
            raise KeyError(f"cannot break down by {by!r}: no such column in the sentences "
                           f"or pairs (have {sorted(have)})")
        if by not in pairs.columns:
            pairs[by] = pairs["good_id"].map(dataset.sentences.set_index("sentence_id")[by])
        if by not in sent.columns:
            sent[by] = np.nan
        keys.append(by)
    pgroups = dict(list(pairs.groupby(keys, sort=False, dropna=False)))
    sgroups = dict(list(sent.groupby(keys, sort=False, dropna=False)))
    specs = {name: spec_of(name) for name in metric_names(deltas)}  # evaluate's metrics
    rows = []
    for key in dict.fromkeys(list(pgroups) + list(sgroups)):
        s = sgroups.get(key, sent.iloc[:0])
        p = pgroups.get(key, pairs.iloc[:0])
        rows.append(dict(zip(keys, key, strict=True)) | _row(s, p, specs, max_delta, sign))
    return pd.DataFrame(rows)
