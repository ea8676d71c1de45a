"""Zorro's accuracy (Huebner et al. 2021): per paradigm, the share of pairs whose
grammatical sentence the model prefers, with Zorro's handling of exact ties."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.tables import validate_scores

TIES = ("random", "half", "strict")


def zorro_accuracy(dataset, scores: pd.DataFrame, ties: str = "random",
                   seed: int = 0) -> pd.DataFrame:
    """Accuracy per model and paradigm: a pair is correct when its grammatical sentence
    has the higher score (for Zorro's cross-entropies, the lower cross-entropy).

    An exact tie (equal scores) is handled by ``ties``:

    - ``"random"`` (Zorro's rule): correct with probability 1/2. Zorro's
      ``count_correct_choices`` (``zorro/scoring.py``) adds 1 to one of the two
      cross-entropies chosen by an unseeded ``random.random() < 0.5``; here the draw comes
      from ``numpy.random.default_rng(seed)``, one uniform per pair in pair order per
      model, so the result is reproducible.
    - ``"half"``: a tie counts 1/2, the expected value of the random rule.
    - ``"strict"``: a tie counts as wrong (the BLiMP criterion score(good) > score(bad)).

    Pairs with a missing score are left out of ``accuracy`` and counted in ``n_missing``.
    Returns one row per (model, paradigm): ``model, paradigm, phenomenon, n_pairs, ties,
    accuracy, n_missing``, with ``n_pairs`` the pairs scored and ``ties`` the exact ties
    among them. The paradigm is the pairs' ``paradigm`` column, else their ``phenomenon``.
    """
    if ties not in TIES:
        raise ValueError(f"ties must be one of {TIES}, got {ties!r}")
    scores = validate_scores(scores, dataset.sentences)
    p = dataset.pairs
    paradigm = p["paradigm"] if "paradigm" in p.columns else p["phenomenon"]
    wide = scores.pivot(index="sentence_id", columns="model", values="score")
    rng = np.random.default_rng(seed)
    frames = []
    for model in scores["model"].unique():
        good = p["good_id"].map(wide[model]).to_numpy(float)
        bad = p["bad_id"].map(wide[model]).to_numpy(float)
        draw = rng.random(len(p)) < 0.5
        scored = ~(np.isnan(good) | np.isnan(bad))
        tie = scored & (good == bad)
        correct = (good > bad).astype(float)
        if ties == "random":
            correct[tie] = draw[tie]
        elif ties == "half":
            correct[tie] = 0.5
        correct[~scored] = np.nan
        frames.append(pd.DataFrame({"model": model, "paradigm": paradigm.to_numpy(),
                                    "phenomenon": p["phenomenon"].to_numpy(),
                                    "scored": scored, "tie": tie, "correct": correct}))
    long = pd.concat(frames, ignore_index=True)
    out = (long.groupby(["model", "paradigm", "phenomenon"], sort=False)
           .agg(n_pairs=("scored", "sum"), ties=("tie", "sum"), accuracy=("correct", "mean"),
                n_all=("scored", "size"))
           .reset_index())
    out["n_missing"] = out.pop("n_all") - out["n_pairs"]
    out = out.astype({"n_pairs": int, "ties": int, "n_missing": int})
    out.attrs = {"ties": ties, "seed": seed}
    return out
