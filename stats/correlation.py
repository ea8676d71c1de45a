"""Pearson and Spearman correlations with humans at sentence and minimal-pair level
(thesis 2.4-2.5.1, Table 2.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats import metrics
from acceptability.stats.deltas import pair_deltas, sentence_frame


def _corr_rows(frame: pd.DataFrame, x: str, y: str, level: str) -> list[dict]:
    rows = []
    for model, g in frame.groupby("model", sort=False):
        ok = g[[x, y]].dropna()
        row = {"model": model, "level": level, "n": len(ok), "n_excluded": len(g) - len(ok)}
        xs, ys = ok[x].to_numpy(float), ok[y].to_numpy(float)
        r = float(metrics.pearson(xs, ys))  # NaN: under 3 pairs or a constant variable
        if np.isnan(r):
            row |= dict.fromkeys(["pearson", "pearson_p", "spearman", "spearman_p"], np.nan)
        else:
            sr = sps.spearmanr(xs, ys)
            row |= {"pearson": r, "pearson_p": sps.pearsonr(xs, ys).pvalue,
                    "spearman": sr.statistic, "spearman_p": sr.pvalue}
        rows.append(row)
    return rows


def correlations(dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """Per model and level (``sentence``: human vs z; ``pair``: dh vs dlm): Pearson and
    Spearman coefficients with p-values, and the counts used and excluded (NaN)."""
    rows = _corr_rows(sentence_frame(dataset, scores), "human", "z", "sentence")
    if len(dataset.pairs):
        rows += _corr_rows(pair_deltas(dataset, scores), "dh", "dlm", "pair")
    return pd.DataFrame(rows)


def correlation_matrix(dataset, scores: pd.DataFrame, level: str = "sentence",
                       method: str = "pearson") -> pd.DataFrame:
    """Correlation matrix of human judgments and every model (thesis figs 2-4, 2-6, 3-1,
    3-3), at ``sentence`` level (z-scores) or ``pair`` level (deltas); pairwise-complete."""
    if level == "sentence":
        f = sentence_frame(dataset, scores)
        wide = f.pivot(index="sentence_id", columns="model", values="z")
        human = dataset.sentences.set_index("sentence_id")["human"]
    elif level == "pair":
        f = pair_deltas(dataset, scores)
        wide = f.pivot(index="pair_id", columns="model", values="dlm")
        human = f.drop_duplicates("pair_id").set_index("pair_id")["dh"]
    else:
        raise ValueError(f"level must be 'sentence' or 'pair', got {level!r}")
    wide.insert(0, "human", human.reindex(wide.index))
    wide.columns.name = None
    if method != "pearson":
        return wide.corr(method=method)
    r = metrics.pearson_matrix(wide.to_numpy(float).T)  # the one Pearson policy
    return pd.DataFrame(r, index=wide.columns, columns=wide.columns)
