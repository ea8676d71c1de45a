"""One acceptability value per sentence from trial-level ratings (``stats.normalize_ratings``):
the plain mean, the mean of the trials normed within participant
(``norming``), or the ordinal item mode
(``ordinal_norm``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.ratings import validate_ratings
from acceptability.stats.defaults import NORMINGS
from acceptability.stats.ratings.norming import (
    _require_participants,
    _within_participants,
    exclusion_table,
)
from acceptability.stats.ratings.ordinal_norm import ordinal_norms

__all__ = ["METHODS", "normalize_ratings"]

METHODS = NORMINGS


def normalize_ratings(ratings: pd.DataFrame, method: str = "z") -> pd.DataFrame:
    """One acceptability value per sentence from trial-level ratings, usable as the
    ``human`` column of a sentences table.

    - ``"mean"``: the plain mean rating (needs no participant ids);
    - ``"z"``, ``"rank"``: the mean of the sentence's trials normed within participant
      ([normed_trials][acceptability.stats.ratings.norming.normed_trials]: sample-SD z-scores,
      Blom's rank-based normal scores);
    - ``"ordinal"``: the sentence's conditional mode in the cumulative link mixed model
      ``response ~ 1 + (1 | participant) + (1 | sentence_id)``
      (module ``stats.ratings.ordinal_norm``, after White & Rawlins 2020).

    Parameters
    ----------
    ratings : pandas.DataFrame
        A ratings table declaring its scale in ``ratings.attrs["scale"]``.
    method : {"z", "rank", "ordinal", "mean"}, default "z"

    Returns
    -------
    pandas.DataFrame
        ``sentence_id``, ``human``, ``n_ratings`` (the ratings behind it) and ``se``: the
        standard error of the mean (``SD / sqrt(n)``, NaN for one rating) or, for
        "ordinal", the conditional SD of the mode. ``attrs["exclusions"]`` counts the
        ratings and sentences set aside; ``attrs["method"]`` names the method.

    Raises
    ------
    DataError
        As ``normed_trials``; for "ordinal" also a scale that is not ordered.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import normalize_ratings
    >>> ratings = pd.DataFrame({"participant": ["w1", "w1", "w2", "w2"],
    ...                         "sentence_id": ["good", "bad", "good", "bad"],
    ...                         "response": [7, 5, 3, 1]})
    >>> ratings.attrs["scale"] = "likert:1-7"
    >>> normalize_ratings(ratings, method="mean")[["sentence_id", "human", "n_ratings"]]
      sentence_id  human  n_ratings
    0        good    5.0          2
    1         bad    3.0          2
    >>> normalize_ratings(ratings)["human"].round(4).tolist()  # each rater: +-0.7071
    [0.7071, -0.7071]
    """
    if method not in METHODS:
        raise DataError(f"unknown norming method {method!r}", fix=f"use one of {list(METHODS)}")
    if method == "ordinal":
        return _ordinal(ratings)
    trials = validate_ratings(ratings)
    if method == "mean":
        n_sentences = 0
        trials["response_norm"] = trials["response"]
        trials.attrs["exclusions"] = exclusion_table([])
    else:
        n_sentences = trials["sentence_id"].nunique()
        trials = _within_participants(trials, method)
    value = trials.groupby("sentence_id", sort=False)["response_norm"]
    out = pd.DataFrame({"human": value.mean(), "n_ratings": value.size(),
                        "se": value.std() / np.sqrt(value.size())}).reset_index()
    rows = [("sentences", "all ratings set aside (participants with z undefined)",
             max(n_sentences - len(out), 0))]
    return _finish(out, trials.attrs["exclusions"], rows, method)


def _ordinal(ratings: pd.DataFrame) -> pd.DataFrame:
    """The clmm norm, refusing ratings without participant ids as ``normed_trials`` does."""
    trials = validate_ratings(ratings)
    _require_participants(trials, "ordinal")
    n = trials.groupby("sentence_id", sort=False).size()  # order: first appearance
    out = ordinal_norms(trials).set_index("sentence_id").reindex(n.index).reset_index()
    out.insert(2, "n_ratings", n.to_numpy())
    return _finish(out, exclusion_table([]), [], "ordinal")


def _finish(out: pd.DataFrame, exclusions: pd.DataFrame, rows: list, method: str) -> pd.DataFrame:
    more = exclusion_table(rows)
    out.attrs["exclusions"] = pd.concat([exclusions, more[more["n"] > 0]], ignore_index=True)
    out.attrs["method"] = method
    return out
