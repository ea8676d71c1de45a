"""z-scoring model scores (thesis 1.3.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.tables import validate_scores


def zscore(scores: pd.DataFrame, dataset=None) -> pd.DataFrame:
    """The scores table with a column ``z``: each model's scores in SD units.

    Per model, z = (score - mean) / SD over the dataset's sentences (population SD,
    ddof=0, as in the thesis' published z-scores). Rows carrying ``ref_mean``/``ref_sd``
    (a publisher's own reference population, e.g. the BNC trigram of Sprouse et al.
    2018) are standardised with those instead. NaN scores stay NaN. With ``dataset``,
    scores must belong to its sentences.
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
