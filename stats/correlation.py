"""Pearson and Spearman correlations with humans at sentence and minimal-pair level
(thesis 2.4-2.5.1, Table 2.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.data.dataset import Dataset
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


def correlations(dataset: Dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """Pearson and Spearman correlations with humans per model, at sentence and pair level.

    Thesis 2.4-2.5.1 and Table 2.3: at ``sentence`` level, human judgments against the
    z-scored model scores; at ``pair`` level, the human deltas ``dh`` against the model
    deltas ``dlm`` ([pair_deltas][acceptability.stats.deltas.pair_deltas]). Pearson r
    follows the package's policy ([pearson][acceptability.stats.metrics.pearson]: NaN
    for fewer than 3 complete pairs or a constant variable), and then every coefficient
    is NaN.

    Parameters
    ----------
    dataset : Dataset
        Sentences (with ``human``) and pairs; without pairs only the sentence level.
    scores : pandas.DataFrame
        A long table: ``sentence_id``, ``model``, ``score``.

    Returns
    -------
    pandas.DataFrame
        One row per (model, level): ``model``, ``level``, ``n`` (complete pairs),
        ``n_excluded`` (with a NaN), ``pearson``, ``pearson_p``, ``spearman``,
        ``spearman_p`` (two-sided p-values of ``scipy.stats``).

    Raises
    ------
    DataError
        If the scores table does not validate against the dataset.

    Examples
    --------
    >>> from acceptability.stats import correlations
    >>> from acceptability.data import load_example
    >>> table = correlations(*load_example())
    >>> cols = ["model", "level", "n", "n_excluded", "pearson", "spearman"]
    >>> print(table[cols].round(2).to_string(index=False))
                   model    level  n  n_excluded  pearson  spearman
    bert-large-cased_mlm sentence 32          25     0.17      0.08
    bert-large-cased_acc sentence 24          33     0.31      0.41
            trigram_slor sentence  0          57      NaN       NaN
    bert-large-cased_acc     pair 12          17    -0.06     -0.21
    bert-large-cased_mlm     pair 16          13     0.16      0.21
            trigram_slor     pair  0          29      NaN       NaN
    """
    rows = _corr_rows(sentence_frame(dataset, scores), "human", "z", "sentence")
    if len(dataset.pairs):
        rows += _corr_rows(pair_deltas(dataset, scores), "dh", "dlm", "pair")
    return pd.DataFrame(rows)


def correlation_matrix(dataset: Dataset, scores: pd.DataFrame, level: str = "sentence",
                       method: str = "pearson") -> pd.DataFrame:
    """Correlation matrix of human judgments and every model (thesis figs 2-4, 2-6, 3-1,
    3-3), pairwise-complete.

    Parameters
    ----------
    dataset : Dataset
        The human judgments (sentences) and, for ``level="pair"``, the pairs.
    scores : pandas.DataFrame
        Every model's scores of the dataset's sentences.
    level : {"sentence", "pair"}
        Correlate the z-scores of sentences, or the deltas of pairs.
    method : str
        ``"pearson"`` (the package's policy:
        [pearson_matrix][acceptability.stats.metrics.pearson_matrix]), or a method of
        ``pandas.DataFrame.corr`` (``"spearman"``, ``"kendall"``).

    Returns
    -------
    pandas.DataFrame
        Square, ``human`` first, then the models.

    Raises
    ------
    ValueError
        If ``level`` is neither ``"sentence"`` nor ``"pair"``.
    DataError
        For an invalid scores table.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> matrix = stats.correlation_matrix(*data.load_example(), level="sentence")
    >>> print(matrix.round(2).to_string())
                          human  bert-large-cased_acc  bert-large-cased_mlm  trigram_slor
    human                  1.00                  0.31                  0.17           NaN
    bert-large-cased_acc   0.31                  1.00                  0.14          0.26
    bert-large-cased_mlm   0.17                  0.14                  1.00           NaN
    trigram_slor            NaN                  0.26                   NaN          1.00
    """
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
