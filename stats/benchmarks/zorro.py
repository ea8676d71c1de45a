"""Zorro's accuracy (Huebner et al. 2021): per paradigm, the share of pairs whose
grammatical sentence the model prefers, exact ties broken at random as Zorro's
``count_correct_choices`` (``zorro/scoring.py``) does."""

from __future__ import annotations

import pandas as pd

from acceptability.data.tables import validate_scores
from acceptability.stats.benchmarks.outcomes import accuracy, pair_groups, pair_outcomes


def zorro_accuracy(dataset, scores: pd.DataFrame, ties: str = "random",
                   seed: int = 0) -> pd.DataFrame:
    """Accuracy per model and paradigm: a pair is correct when its grammatical sentence
    has the higher score (for Zorro's cross-entropies, the lower cross-entropy); ``ties``
    and ``seed`` as in :func:`stats.benchmarks.pair_outcomes` (``"random"``: Zorro's rule).

    Returns one row per (model, paradigm): ``model, paradigm, phenomenon, n_pairs, ties,
    accuracy, n_missing``, with ``n_pairs`` the pairs scored and ``ties`` the exact ties
    among them; pairs missing a score are counted in ``n_missing``.
    """
    scores = validate_scores(scores, dataset.sentences)
    outcomes = pair_outcomes(dataset, scores, ties=ties, seed=seed)
    acc = accuracy(outcomes, n_boot=0)
    out = acc[acc["level"] == "paradigm"].rename(columns={"system": "model",
                                                          "group": "paradigm"})
    per_paradigm = pair_groups(dataset.pairs)["paradigm"].value_counts()
    out["n_missing"] = out["paradigm"].map(per_paradigm) - out["n_pairs"]
    out = out[["model", "paradigm", "phenomenon", "n_pairs", "ties", "accuracy", "n_missing"]]
    out = out.astype({"n_pairs": int, "ties": int, "n_missing": int}).reset_index(drop=True)
    out.attrs = {"ties": ties, "seed": seed}
    return out
