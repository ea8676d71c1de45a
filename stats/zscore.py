"""z-scoring model scores (thesis 1.3.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.tables import validate_scores


def zscore(scores: pd.DataFrame, dataset: Dataset | None = None) -> pd.DataFrame:
    """The scores table with a column ``z``: each model's scores in SD units (thesis 1.3.3).

    Per model, z = (score - mean) / SD over the dataset's sentences (population SD,
    ddof=0, as in the thesis' published z-scores). Rows carrying ``ref_mean``/``ref_sd``
    (a publisher's own reference population, e.g. the BNC trigram of Sprouse et al.
    2018) are standardised with those instead. NaN scores stay NaN.

    Parameters
    ----------
    scores : pandas.DataFrame
        A long scores table: ``sentence_id``, ``model``, ``score`` (optionally
        ``method``, ``ref_mean``, ``ref_sd``).
    dataset : Dataset, optional
        When given, the scores must belong to its sentences, and only its sentences are
        standardised and returned.

    Returns
    -------
    pandas.DataFrame
        The validated scores with ``z`` added (NaN for a model whose scores are
        constant).

    Raises
    ------
    DataError
        If ``scores`` lacks a column, holds a non-numeric score, or (with ``dataset``)
        names a sentence the dataset does not have.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import zscore
    >>> scores = pd.DataFrame({"sentence_id": ["s1", "s2", "s3"], "model": "lm",
    ...                        "score": [-10.0, -12.0, -14.0]})
    >>> zscore(scores)["z"].round(4).tolist()
    [1.2247, 0.0, -1.2247]

    The bundled example's scores are printed z-scores (``ref_mean=0, ref_sd=1``), kept:

    >>> from acceptability.data import load_example
    >>> dataset, example_scores = load_example()
    >>> z = zscore(example_scores, dataset)
    >>> bool((z["z"] == z["score"]).all())
    True
    """
    sentences = dataset.sentences if dataset is not None else None
    out = validate_scores(scores, sentences)
    if sentences is not None:
        out = out[out["sentence_id"].isin(sentences["sentence_id"])]
    grouped = out.groupby("model", sort=False)["score"]
    mean = grouped.transform("mean")
    sd = grouped.transform(lambda s: s.std(ddof=0))
    if "ref_mean" in out.columns:
        has_ref = out["ref_mean"].notna() & out["ref_sd"].notna()
        mean = mean.where(~has_ref, out["ref_mean"])
        sd = sd.where(~has_ref, out["ref_sd"])
    with np.errstate(invalid="ignore", divide="ignore"):
        out["z"] = (out["score"] - mean) / sd.replace(0.0, np.nan)
    return out
