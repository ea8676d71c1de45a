"""What the matrix's numbers must be, recomputed from the shape's raw files with plain
numpy/pandas written here (no package code): the human value of each sentence, then per
model the BLiMP criterion, the sentence- and pair-level Pearson r, and the counts.

- human: the sentences' ``human`` column where given; else each sentence's mean rating after
  z-scoring every participant's ratings (sample SD; Sprouse et al. 2013), or the plain mean
  where the ratings name no participant (the package's documented default, ``auto``).
- blimp: the share of pairs with score(good) > score(bad) (Warstadt et al. 2020).
- r_sentence: Pearson r of human and score over the sentences with both.
- r_pair: Pearson r of the good-minus-bad differences of human and z-scored score.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from tests.matrix.shapes import BLIMP_PAIRS, BLIMP_PARADIGM


def _read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def human_values(sentences: pd.DataFrame, ratings: pd.DataFrame | None) -> pd.Series:
    """Each sentence's human value, by sentence id."""
    if ratings is None:
        return sentences.set_index("sentence_id")["human"].astype(float)
    rater = next((c for c in ("participant", "subject") if c in ratings), None)
    if rater is None:
        return ratings.groupby("sentence_id")["response"].mean()
    by = ratings.groupby(rater)["response"]
    z = (ratings["response"] - by.transform("mean")) / by.transform("std", ddof=1)
    return z.groupby(ratings["sentence_id"]).mean()


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok] - x[ok].mean(), y[ok] - y[ok].mean()
    return float((x @ y) / np.sqrt((x @ x) * (y @ y)))


def metrics(sentences: pd.DataFrame, pairs: pd.DataFrame | None, scores: pd.DataFrame,
            human: pd.Series | None) -> pd.DataFrame:
    """One row per model: n_sentences, n_pairs, blimp, r_sentence, r_pair (NaN where the data
    do not give them)."""
    rows = []
    for model, group in scores.groupby("model", sort=False):
        score = group.set_index("sentence_id")["score"].astype(float)
        score = score.reindex(sentences["sentence_id"])
        z = (score - score.mean()) / score.std(ddof=0)
        row = {"model": model, "n_sentences": int(score.notna().sum()), "n_pairs": 0,
               "blimp": np.nan, "r_sentence": np.nan, "r_pair": np.nan}
        if human is not None:
            row["r_sentence"] = pearson(human.reindex(score.index).to_numpy(float),
                                        score.to_numpy(float))
        if pairs is not None:
            good, bad = pairs["good_id"], pairs["bad_id"]
            row["n_pairs"] = len(pairs)
            row["blimp"] = float(np.mean(score[good].to_numpy() > score[bad].to_numpy()))
            if human is not None:
                dh = human.reindex(good).to_numpy(float) - human.reindex(bad).to_numpy(float)
                row["r_pair"] = pearson(dh, z[good].to_numpy() - z[bad].to_numpy())
        rows.append(row)
    return pd.DataFrame(rows).set_index("model")


def from_files(folder: Path) -> pd.DataFrame:
    """The metrics of a shape held in the user's files (sentences, pairs, ratings, scores)."""
    sentences = _read(folder / "sentences.csv")
    pairs = _read(folder / "pairs.csv") if (folder / "pairs.csv").exists() else None
    ratings = _read(folder / "ratings.csv") if (folder / "ratings.csv").exists() else None
    human = human_values(sentences, ratings) if ratings is not None or "human" in sentences \
        else None
    return metrics(sentences, pairs, _read(folder / "scores.csv"), human)


def blimp_fc(blimp: Path) -> pd.DataFrame:
    """BLiMP's first pairs of the paradigm, scored by minus their words and characters."""
    lines = (blimp / "data" / f"{BLIMP_PARADIGM}.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines[:BLIMP_PAIRS]]
    out = []
    for model, measure in (("length", lambda t: -len(t.split())), ("chars", lambda t: -len(t))):
        good = np.array([measure(r["sentence_good"]) for r in rows], float)
        bad = np.array([measure(r["sentence_bad"]) for r in rows], float)
        out.append({"model": model, "n_pairs": len(rows), "blimp": float(np.mean(good > bad))})
    return pd.DataFrame(out).set_index("model")
