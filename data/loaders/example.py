"""The bundled example: minimal pairs printed in the seed papers, with the human and
model z-scores they print (a transcription, not the data set: see the file header)."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset, from_frames
from acceptability.data.tables import validate_scores

MODELS = ("bert-large-cased_mlm", "bert-large-cased_acc", "trigram_slor")
METHODS = {"bert-large-cased_mlm": "pll", "bert-large-cased_acc": "classifier",
           "trigram_slor": "slor"}


def load_example() -> tuple[Dataset, pd.DataFrame]:
    """The bundled example as ``(dataset, scores)``, offline.

    29 LI-Adger minimal pairs (57 sentences) from thesis tables 1.4, 2.5, 2.7, 2.8,
    3.2-3.5 and seed 004 table 2. The printed model values are already z-scores over
    all LI-Adger sentences, so the scores carry ``ref_mean=0, ref_sd=1`` and
    `stats.zscore` keeps them as printed. Values a table does not print are missing
    and are excluded (and counted) by the metrics.

    Returns
    -------
    dataset : Dataset
        The 57 sentences (with their human z-scores) and 29 pairs.
    scores : pandas.DataFrame
        The long scores table (``sentence_id, model, score, method, ref_mean, ref_sd``)
        of three models: BERT-large's PLL (``bert-large-cased_mlm``), BERT_CoLA's signed
        confidence (``bert-large-cased_acc``) and the trigram SLOR (``trigram_slor``).

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> ds, scores = load_example()
    >>> len(ds.sentences), len(ds.pairs)
    (57, 29)
    >>> sorted(scores["model"].unique())
    ['bert-large-cased_acc', 'bert-large-cased_mlm', 'trigram_slor']
    """
    folder = resources.files("acceptability.data").joinpath("examples")
    with resources.as_file(folder) as path:
        sents = pd.read_csv(path / "published_sentences.csv", comment="#")
        pairs = pd.read_csv(path / "published_pairs.csv", comment="#")
    labels = pd.Series(np.nan, index=sents["sentence_id"])
    labels[pairs["good_id"]] = 1.0
    labels[pairs["bad_id"]] = 0.0
    sentences = sents.assign(
        dataset="published example", label=sents["sentence_id"].map(labels),
        type_id=sents["sentence_id"].str.rsplit(".", n=1).str[0],
    )
    ds = from_frames(sentences.drop(columns=list(MODELS)), pairs, name="published example")
    ds.source = "data/examples (transcribed from the seed papers)"
    long = sents.melt(id_vars="sentence_id", value_vars=list(MODELS), var_name="model",
                      value_name="score").dropna(subset=["score"])
    scores = long.assign(method=long["model"].map(METHODS), ref_mean=0.0, ref_sd=1.0)
    return ds, validate_scores(scores, ds.sentences, source="bundled example scores")
