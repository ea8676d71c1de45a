"""Sentence- and pair-level frames of z-scored model scores beside human judgments."""

from __future__ import annotations

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.stats.zscore import zscore


def sentence_frame(dataset: Dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, sentence): the sentence columns plus ``score`` and ``z``.

    Every dataset sentence appears for every model (``z`` NaN where unscored); ``z``
    comes from [zscore][acceptability.stats.zscore.zscore] (thesis 1.3.3).

    Parameters
    ----------
    dataset : Dataset
        The sentences to list, with their ``human`` judgments.
    scores : pandas.DataFrame
        Scores of the dataset's sentences, one per (sentence, model).

    Returns
    -------
    pandas.DataFrame
        ``model``, the sentence columns, ``score``, ``z`` (and ``method`` when scored
        with one).

    Raises
    ------
    DataError
        From [zscore][acceptability.stats.zscore.zscore]: a malformed scores table or an
        unknown sentence.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.stats import sentence_frame
    >>> example = load_example()
    >>> frame = sentence_frame(*example)
    >>> len(frame) == 3 * len(example[0].sentences)  # 3 models x 57 sentences
    True
    >>> frame.groupby("model", sort=False)["z"].count().to_dict()
    {'bert-large-cased_mlm': 32, 'bert-large-cased_acc': 40, 'trigram_slor': 16}
    """
    z = zscore(scores, dataset)
    s = dataset.sentences
    models = pd.DataFrame({"model": z["model"].unique()})
    full = models.merge(s, how="cross")
    keep = [c for c in ("sentence_id", "model", "score", "z", "method") if c in z.columns]
    return full.merge(z[keep], on=["model", "sentence_id"], how="left")


def pair_deltas(dataset: Dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, pair): the human and model deltas ``dh`` and ``dlm``.

    ``dh`` = human(good) - human(bad) and ``dlm`` = z(good) - z(bad), the good-minus-bad
    differences of the human judgments and of the z-scored model scores (thesis 1.3.3,
    the inputs of the ADC, eq. 1.1-1.2).

    Parameters
    ----------
    dataset : Dataset
        Its pairs give the good and bad sentence ids; its sentences, ``human``.
    scores : pandas.DataFrame
        Model scores, z-scored per model here.

    Returns
    -------
    pandas.DataFrame
        The pair columns plus ``model``, ``human_good``, ``human_bad``, ``z_good``,
        ``z_bad``, ``dh`` and ``dlm`` (NaN where a value is missing).

    Raises
    ------
    DataError
        When ``scores`` is not a valid scores table of ``dataset``.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> d = stats.pair_deltas(*data.load_example())
    >>> mlm = d[d["model"] == "bert-large-cased_mlm"].dropna(subset=["dlm"])
    >>> print(mlm[["pair_id", "dh", "dlm"]].head(3).round(2).to_string(index=False))
    pair_id    dh   dlm
     pair05 -0.42 -0.51
     pair07 -0.16 -1.45
     pair08 -0.09  0.15
    """
    z = zscore(scores, dataset)
    zwide = z.pivot(index="sentence_id", columns="model", values="z")
    human = dataset.sentences.set_index("sentence_id")["human"]
    p = dataset.pairs
    good, bad = p["good_id"], p["bad_id"]
    frames = []
    for model in zwide.columns:
        col = zwide[model]
        frames.append(p.assign(
            model=model,
            human_good=good.map(human).to_numpy(), human_bad=bad.map(human).to_numpy(),
            z_good=good.map(col).to_numpy(), z_bad=bad.map(col).to_numpy(),
        ))
    out = pd.concat(frames, ignore_index=True)
    out["dh"] = out["human_good"] - out["human_bad"]
    out["dlm"] = out["z_good"] - out["z_bad"]
    return out
