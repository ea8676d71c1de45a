"""``evaluate``: every metric for every model in one table (thesis Tables 2.3, 3.1;
seed 004 variability), optionally broken down by a grouping column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats import metrics
from acceptability.stats.defaults import DEFAULT_DELTAS, DEFAULT_N_BOOT, DEFAULT_SEED
from acceptability.stats.deltas import pair_deltas, sentence_frame


def predicted_label(frame: pd.DataFrame) -> np.ndarray:
    """0/1 acceptability predictions for MCC: the sign of the raw score for classifier
    scores (signed confidence, thesis eq. 2.3: positive = predicted acceptable), else
    the sign of the z-score (above the dataset mean = acceptable)."""
    raw = frame["method"].eq("classifier") if "method" in frame else False
    value = np.where(raw, frame["score"], frame["z"]).astype(float)
    return np.where(np.isnan(value), np.nan, (value > 0).astype(float))


def _row(sent: pd.DataFrame, pairs: pd.DataFrame, deltas, max_delta: float, sign: str) -> dict:
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
        "blimp": float(metrics.blimp_rate(dlm)),
    }
    for d in deltas:
        row[f"adc_{d:g}"] = float(metrics.adc_rate(dh, dlm, d, sign))
    row["adc_area"] = float(metrics.adc_area(dh, dlm, max_delta, sign))
    row["r_sentence"] = float(metrics.pearson(human, z))
    row["r_pair"] = float(metrics.pearson(dh, dlm))
    row["variability"] = float(metrics.type_sd_mean(z, codes, len(uniques)))
    labelled = ~(np.isnan(label) | np.isnan(pred))
    row["mcc"] = float(metrics.mcc(pred[labelled], label[labelled])) if labelled.any() else np.nan
    row["n_mcc"] = int(labelled.sum())
    return row


def evaluate(dataset, scores: pd.DataFrame, deltas=DEFAULT_DELTAS, by: str | None = None,
             max_delta: float = 5.0, ci: bool | float = False, n_boot: int = DEFAULT_N_BOOT,
             cluster: str | None = "type_id", seed: int | None = DEFAULT_SEED,
             sign: str = "strict") -> pd.DataFrame:
    """One row per model (per group with ``by``): ``n_pairs``, ``blimp``, ``adc_<delta>``
    for each delta, ``adc_area``, ``r_sentence``, ``r_pair``, ``variability``, ``mcc``,
    and the counts behind them: ``n_pairs`` pairs with a model delta (the BLiMP
    criterion), ``n_pairs_human`` of them with a human delta too (ADC, r_pair),
    ``n_pairs_no_human`` of them without one (in the BLiMP criterion only: all pairs of
    a dataset without human judgments), ``n_pairs_excluded`` pairs without a model delta
    (a sentence unscored: in no metric), ``n_sentences``, ``n_mcc``.

    Scores are z-scored over the whole dataset first; ``by`` (e.g. ``"phenomenon"``,
    ``"dataset"``, ``"paradigm"``) then splits pairs and sentences by that column.

    ``ci=True`` (or a level such as 0.9) adds ``<metric>_lower``/``<metric>_upper``
    beside each metric: percentile intervals from ``n_boot`` bootstrap resamples
    clustered by ``cluster`` (see ``stats.bootstrap``); with ``by``, per group.

    ``sign``: when an ADC pair's deltas agree in sign (``stats.metrics.sign_agree``):
    ``"strict"`` (np.sign, thesis eq. 1.1 as written) or ``"thesis"`` ((dh > 0) ==
    (dlm > 0), which reproduces the thesis' tables; they differ on zero deltas only).
    """
    metrics.check_sign(sign)
    deltas = tuple(float(d) for d in deltas)
    if any(not d > 0 for d in deltas):
        raise ValueError(f"deltas must be positive, got {deltas}")
    sent = sentence_frame(dataset, scores)
    pairs = pair_deltas(dataset, scores)
    keys = ["model"]
    if by is not None:
        if by not in sent.columns and by not in pairs.columns:
            raise KeyError(f"cannot break down by {by!r}: no such column in the sentences "
                           f"or pairs (have {sorted(set(sent.columns) | set(pairs.columns))})")
        if by not in pairs.columns:
            pairs[by] = pairs["good_id"].map(dataset.sentences.set_index("sentence_id")[by])
        if by not in sent.columns:
            sent[by] = np.nan
        keys.append(by)
    pgroups = dict(list(pairs.groupby(keys, sort=False, dropna=False)))
    sgroups = dict(list(sent.groupby(keys, sort=False, dropna=False)))
    rows = []
    for key in dict.fromkeys(list(pgroups) + list(sgroups)):
        s = sgroups.get(key, sent.iloc[:0])
        p = pgroups.get(key, pairs.iloc[:0])
        rows.append(dict(zip(keys, key, strict=True)) | _row(s, p, deltas, max_delta, sign))
    if not ci:
        return pd.DataFrame(rows)
    from acceptability.stats.inference.bootstrap import (  # bootstrap imports this module
        bootstrap,
        with_intervals,
    )
    level = 0.95 if ci is True else float(ci)
    boot = bootstrap(evaluate, dataset, scores, n=n_boot, cluster=cluster, ci=level, seed=seed,
                     deltas=deltas, max_delta=max_delta, by=by, sign=sign)
    return with_intervals(pd.DataFrame(rows), boot, by)
