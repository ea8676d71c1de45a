"""Zorro's accuracy (Huebner et al. 2021): per paradigm, the share of pairs whose
grammatical sentence the model prefers, exact ties broken at random as Zorro's
``count_correct_choices`` (``zorro/scoring.py``) does."""

from __future__ import annotations

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.tables import pair_groups, validate_scores
from acceptability.stats.benchmarks.outcomes import accuracy, pair_outcomes


def zorro_accuracy(dataset: Dataset, scores: pd.DataFrame, ties: str = "random",
                   seed: int = 0) -> pd.DataFrame:
    """Zorro's accuracy per model and paradigm (Huebner et al. 2021).

    A pair is correct when its grammatical sentence has the higher score (for Zorro's
    cross-entropies, scored as minus the cross-entropy: the lower cross-entropy).

    Parameters
    ----------
    dataset : Dataset
        Sentences and pairs; a ``paradigm`` column of the pairs groups them (else their
        ``phenomenon``).
    scores : pandas.DataFrame
        A long scores table of the dataset's sentences (higher = preferred).
    ties : {"random", "strict", "half"}
        How an exact tie counts, as in
        [pair_outcomes][acceptability.stats.benchmarks.outcomes.pair_outcomes]:
        ``"random"`` is Zorro's rule (a coin flip), ``"strict"`` an error, ``"half"``
        half correct.
    seed : int
        Seed of the coin flips of ``ties="random"``.

    Returns
    -------
    pandas.DataFrame
        One row per (model, paradigm): ``model, paradigm, phenomenon, n_pairs, ties,
        accuracy, n_missing``, with ``n_pairs`` the pairs scored and ``ties`` the exact
        ties among them; pairs missing a score are counted in ``n_missing``.
        ``.attrs`` holds ``ties`` and ``seed``.

    Raises
    ------
    DataError
        If the scores table is malformed or ``ties`` is unknown.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import from_frames
    >>> from acceptability.stats.benchmarks import zorro_accuracy
    >>> sentences = pd.DataFrame({"sentence_id": ["1g", "1b", "2g", "2b", "3g", "3b"],
    ...     "label": [1, 0] * 3, "text": ["is the dog here ?", "are the dog here ?",
    ...     "the dogs bark .", "the dogs barks .", "she saw herself .", "she saw himself ."]})
    >>> pairs = pd.DataFrame({"pair_id": ["1", "2", "3"], "good_id": ["1g", "2g", "3g"],
    ...     "bad_id": ["1b", "2b", "3b"], "phenomenon": ["agreement"] * 2 + ["anaphor"],
    ...     "paradigm": ["question", "question", "gender"]})
    >>> scores = pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "lm",
    ...                        "score": [-3.1, -3.5, -4.0, -4.0, -2.2, -2.9]})
    >>> table = zorro_accuracy(from_frames(sentences, pairs), scores, ties="half")
    >>> print(table.drop(columns="model").to_string(index=False))
    paradigm phenomenon  n_pairs  ties  accuracy  n_missing
      gender    anaphor        1     0      1.00          0
    question  agreement        2     1      0.75          0
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
