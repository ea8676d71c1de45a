"""Shallow predictors of benchmark accuracy (BLiMP, Warstadt et al. 2020, sec. 5.2 and
Fig. 2): a model's accuracy on pairs binned by sentence length, perplexity, the log
probability of the acceptable sentence, and confidence |log P(s1) - log P(s2)|."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.tables import LOGPROB_METHODS, require_columns
from acceptability.stats.benchmarks.outcomes import pair_outcomes

PREDICTORS = {
    "length": "sentence length (words)",
    "perplexity": "perplexity of the acceptable sentence",
    "logprob_good": "log P(acceptable sentence)",
    "confidence": "confidence |log P(s1) - log P(s2)|",
}


def shallow_predictors(dataset, scores: pd.DataFrame, n_bins: int = 5) -> pd.DataFrame:
    """Accuracy per model, predictor and bin: ``model, predictor, bin, low, high,
    n_pairs, accuracy``. Length bins are the word counts of the acceptable sentence;
    the others are ``n_bins`` quantile bins per model. Perplexity is the scores'
    ``perplexity`` column (``scoring.score`` writes it for log-probability methods), else
    exp(-score / n_tokens); without either, that predictor is left out."""
    require_columns(scores, ["sentence_id", "model", "score"], "scores")
    if "method" in scores:
        other = sorted(set(scores["method"].dropna()) - set(LOGPROB_METHODS))
        if other:
            raise DataError(f"shallow predictors need log-probability scores, not {other}",
                            fix=f"score with one of {list(LOGPROB_METHODS)}")
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
        for name in PREDICTORS:
            if name not in values:
                continue
            x = pd.Series(values[name])
            bins = x if name == "length" else pd.qcut(x, n_bins, duplicates="drop")
            g = pd.DataFrame({"x": x, "bin": bins, "correct": correct}).groupby(
                "bin", observed=True, sort=True)
            part = g.agg(low=("x", "min"), high=("x", "max"), n_pairs=("x", "size"),
                         accuracy=("correct", "mean")).reset_index()
            part["bin"] = part["bin"].astype(str)
            rows.append(part.assign(model=model, predictor=name))
    out = pd.concat(rows, ignore_index=True)
    return out[["model", "predictor", "bin", "low", "high", "n_pairs", "accuracy"]]
