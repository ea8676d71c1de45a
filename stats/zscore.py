"""z-scoring model scores (thesis 1.3.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.tables import power_of_two_exponent, validate_scores


def zscore(scores: pd.DataFrame, dataset: Dataset | None = None) -> pd.DataFrame:
    """The scores table with a column ``z``: each model's scores in SD units (thesis 1.3.3).

    Per model, z = (score - mean) / SD over the dataset's sentences (population SD,
    ddof=0, as in the thesis' published z-scores). Rows carrying ``ref_mean``/``ref_sd``
    (a publisher's own reference population, e.g. the BNC trigram of Sprouse et al.
    2018) are standardised with those instead. NaN scores stay NaN. Computed on each
    model's scores divided by a power of two of their largest magnitude (exact), so a
    score of 1e308 or of 1e-310 gives the z-scores of exact arithmetic, and any other
    scores the same z-scores bit for bit as without scaling.

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
    out = validate_scores(scores, sentences)  # with sentences: refuses any other sentence
    score = out["score"]
    # each model's scores divided by a power of two of their largest magnitude: exact,
    # and the mean and SD of values within [-1, 1] cannot overflow (1e308) or underflow
    model = pd.factorize(out["model"])[0]  # grouped by integer codes: one hashing of strings
    exponent = power_of_two_exponent(score.abs().groupby(model, sort=False).transform("max"))
    scaled = pd.Series(np.ldexp(score, -exponent), index=out.index)
    grouped = scaled.groupby(model, sort=False)
    mean, sd = grouped.transform("mean"), grouped.transform(lambda s: s.std(ddof=0))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (scaled - mean) / sd.replace(0.0, np.nan)
        if "ref_mean" in out.columns:
            has_ref = out["ref_mean"].notna() & out["ref_sd"].notna()
            z = z.where(~has_ref, _by_reference(out))
    out["z"] = z
    return out


def _by_reference(out: pd.DataFrame) -> pd.Series:
    """(score - ref_mean) / ref_sd, each row scaled by a power of two of its larger
    magnitude so that the difference cannot overflow."""
    e = power_of_two_exponent(np.fmax(out["score"].abs(), out["ref_mean"].abs()))
    diff = np.ldexp(out["score"], -e) - np.ldexp(out["ref_mean"], -e)
    return diff / np.ldexp(out["ref_sd"], -e).replace(0.0, np.nan)


def exclusion_reason(score: np.ndarray, z: np.ndarray) -> str:
    """Why sentences of a model have no z-score, for a table's reader: its scores are
    constant (SD 0) and/or some sentences have no score; ``""`` when every sentence has one.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.zscore import exclusion_reason
    >>> exclusion_reason(np.array([-3.0, np.nan, -3.0]), np.array([np.nan] * 3))
    'constant scores (SD 0): no z-scores; no score for 1 sentence'
    >>> exclusion_reason(np.array([-3.0, -4.0]), np.array([1.0, -1.0]))
    ''
    """
    unscored = int(np.isnan(score).sum())
    reasons = ["constant scores (SD 0): no z-scores"] * bool(
        (~np.isnan(score) & np.isnan(z)).any())
    if unscored:
        reasons.append(f"no score for {unscored} sentence{'s' * (unscored > 1)}")
    return "; ".join(reasons)
