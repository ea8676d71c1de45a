"""Shallow predictors of benchmark accuracy (BLiMP, Warstadt et al. 2020, sec. 5.2 and
Fig. 2): a model's accuracy on pairs binned by sentence length, perplexity, the log
probability of the acceptable sentence, and confidence |log P(s1) - log P(s2)|."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.tables import (
    SIGNED_CONFIDENCE_METHOD,
    require_columns,
    signed_confidence,
)
from acceptability.stats.arguments import check_whole
from acceptability.stats.benchmarks.outcomes import pair_outcomes

PREDICTORS = {
    "length": "sentence length (words)",
    "perplexity": "perplexity of the acceptable sentence",
    "logprob_good": "log P(acceptable sentence)",
    "confidence": "confidence |log P(s1) - log P(s2)|",
}


def _binned(x: pd.Series, correct: np.ndarray, name: str, n_bins: int) -> pd.DataFrame:
    """Accuracy per bin of one predictor: its values for length, else quantile bins."""
    bins = x if name == "length" else pd.qcut(x, n_bins, duplicates="drop")
    g = pd.DataFrame({"x": x, "bin": bins, "correct": correct}).groupby(
        "bin", observed=True, sort=True)
    part = g.agg(low=("x", "min"), high=("x", "max"), n_pairs=("x", "size"),
                 accuracy=("correct", "mean")).reset_index()
    part["bin"] = part["bin"].astype(str)
    return part


def shallow_predictors(dataset: Dataset, scores: pd.DataFrame, n_bins: int = 5) -> pd.DataFrame:
    """Accuracy per model, predictor and bin (Warstadt et al. 2020, sec. 5.2, Fig. 2).

    A pair is correct when score(good) > score(bad)
    ([pair_outcomes][acceptability.stats.benchmarks.outcomes.pair_outcomes]). Length bins
    are the word counts of the acceptable sentence; the other predictors get ``n_bins``
    quantile bins per model. Perplexity is the scores' ``perplexity`` column
    (``scoring.score`` writes it for log-probability methods), else
    exp(-score / n_tokens); without either, that predictor is left out.

    Parameters
    ----------
    dataset : Dataset
        Sentences (with ``text``) and pairs.
    scores : pandas.DataFrame
        Log-probability scores of the dataset's sentences: ``sentence_id``, ``model``,
        ``score``, optionally ``method``, ``perplexity``, ``n_tokens``.
    n_bins : int
        Quantile bins per predictor other than length (fewer where values repeat).

    Returns
    -------
    pandas.DataFrame
        ``model``, ``predictor``, ``bin`` (as text), ``low``, ``high`` (the range of the
        predictor in the bin), ``n_pairs``, ``accuracy``.

    Raises
    ------
    DataError
        If a column is missing or a ``method`` is not a log-probability method.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.stats.benchmarks import shallow_predictors
    >>> dataset, scores = load_example()
    >>> pll = scores[scores["method"] == "pll"]  # BERT's PLL, printed as z-scores
    >>> table = shallow_predictors(dataset, pll, n_bins=2)
    >>> confidence = table[table["predictor"] == "confidence"]
    >>> print(confidence[["low", "high", "n_pairs", "accuracy"]].round(2).to_string(index=False))
     low  high  n_pairs  accuracy
    0.03  0.27        8      0.50
    0.28  1.45        8      0.38
    """
    n_bins = check_whole("n_bins", n_bins, 1, 1_000)
    require_columns(scores, ["sentence_id", "model", "score"], "scores")
    if "method" in scores and signed_confidence(scores["method"]).any():
        raise DataError(f"shallow predictors need log-probability scores, not "
                        f"{SIGNED_CONFIDENCE_METHOD!r} (a signed confidence)",
                        fix="score with a log-probability method (scoring.METHODS)")
    sc = scores.copy()
    if "n_tokens" in sc:  # a model without the scorer's perplexity gets it from n_tokens
        derived = np.exp(-sc["score"] / sc["n_tokens"])
        sc["perplexity"] = sc["perplexity"].fillna(derived) if "perplexity" in sc else derived
    outcomes = pair_outcomes(dataset, sc)
    pairs = dataset.pairs.set_index("pair_id")
    words = dataset.sentences.set_index("sentence_id")["text"].str.split().str.len()
    rows = []
    for model, o in outcomes.groupby("system", sort=False):
        s = sc[sc["model"] == model].set_index("sentence_id")
        good, bad = pairs.loc[o["pair_id"], "good_id"], pairs.loc[o["pair_id"], "bad_id"]
        values = {
            "length": words.reindex(good).to_numpy(float),
            "logprob_good": s["score"].reindex(good).to_numpy(float),
            "confidence": np.abs(s["score"].reindex(good).to_numpy(float)
                                 - s["score"].reindex(bad).to_numpy(float)),
        }
        if "perplexity" in s:
            values["perplexity"] = s["perplexity"].reindex(good).to_numpy(float)
        correct = o["correct"].to_numpy(float)
        for name in (p for p in PREDICTORS if p in values):
            part = _binned(pd.Series(values[name]), correct, name, n_bins)
            rows.append(part.assign(model=model, predictor=name))
    out = pd.concat(rows, ignore_index=True)
    return out[["model", "predictor", "bin", "low", "high", "n_pairs", "accuracy"]]
