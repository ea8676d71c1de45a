"""Norming trial-level ratings within each participant (Sprouse, Schütze & Almeida 2013,
Lingua 134: z-scores by participant; a rank-based normal transform as a robust variant).

Both remove a participant's own use of the scale (a lenient rater's 5 is a strict rater's 3):
method "z" = (response - participant mean) / participant SD, with the sample SD (ddof=1, as
R's ``scale()`` that the z-score literature uses); method "rank" = the standard normal
quantile of the participant's average ranks (ties share their mean rank),
Phi^-1((r - 3/8) / (n + 1/4)) (Blom 1958, Statistical Estimates from Order Statistics: the
approximately unbiased normal scores, R's ``qqnorm`` for n > 10).
"""

from __future__ import annotations

import pandas as pd
from scipy import special

from acceptability.data.errors import DataError
from acceptability.data.ratings import validate_ratings

__all__ = ["PER_PARTICIPANT", "exclusion_table", "normed_trials"]

PER_PARTICIPANT = ("z", "rank")
_BLOM = 3 / 8  # Phi^-1((r - a) / (n + 1 - 2a)) with Blom's a = 3/8


def exclusion_table(rows: list[tuple[str, str, int]]) -> pd.DataFrame:
    """Rows set aside, counted: (table, reason, n) rows as a frame of the shape of
    ``data.Dataset.exclusions``.

    Examples
    --------
    >>> from acceptability.stats.ratings.norming import exclusion_table
    >>> exclusion_table([("ratings", "participant with one rating (z undefined)", 3)])["n"].tolist()
    [3]
    """
    return pd.DataFrame(rows, columns=["table", "reason", "n"]).astype({"n": int})


def normed_trials(ratings: pd.DataFrame, method: str = "z") -> pd.DataFrame:
    """The validated ratings table with ``response_norm``: each rating normed within its
    participant (module docstring: "z" with the sample SD, "rank" with Blom's scores).

    A participant whose z-score is undefined (one rating, or all ratings equal: SD 0 or
    NaN) says nothing about relative acceptability; their trials are left out under both
    methods and counted in ``out.attrs["exclusions"]`` (table, reason, n: n = trials).

    Parameters
    ----------
    ratings : pandas.DataFrame
        A ratings table (``participant``, ``sentence_id``, ``response``) declaring its scale
        in ``ratings.attrs["scale"]`` (as ``data.validate_ratings`` and the loaders leave it).
    method : {"z", "rank"}, default "z"

    Returns
    -------
    pandas.DataFrame
        The kept trials, their columns as validated, plus ``response_norm``.

    Raises
    ------
    DataError
        If the table declares no scale or fails validation, a rating names no participant,
        or the method is unknown.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.ratings import normed_trials
    >>> trials = pd.DataFrame({"participant": ["a", "a", "a", "b", "b", "c"],
    ...                        "sentence_id": ["s1", "s2", "s3", "s1", "s2", "s1"],
    ...                        "response": [1, 4, 7, 5, 5, 6]})
    >>> trials.attrs["scale"] = "likert:1-7"
    >>> out = normed_trials(trials)
    >>> out["response_norm"].round(3).tolist()
    [-1.0, 0.0, 1.0]
    >>> out.attrs["exclusions"][["reason", "n"]].to_dict("records")
    [{'reason': 'participant with constant ratings (z undefined)', 'n': 2}, {'reason': 'participant with one rating (z undefined)', 'n': 1}]
    >>> normed_trials(trials, method="rank")["response_norm"].round(3).tolist()
    [-0.869, 0.0, 0.869]
    """
    if method not in PER_PARTICIPANT:
        raise DataError(f"unknown per-participant norming method {method!r}",
                        fix=f"use one of {list(PER_PARTICIPANT)}")
    return _within_participants(validate_ratings(ratings), method)


def _require_participants(out: pd.DataFrame, method: str) -> None:
    """Refuse ratings without participant ids for a method that needs them."""
    anonymous = out["participant"].isna().to_numpy()
    if anonymous.any():
        raise DataError(f"{int(anonymous.sum())} of {len(out)} ratings name no participant, so "
                        f"method {method!r}, which models each participant's use of the scale, "
                        "cannot norm them", source="ratings", column="participant",
                        fix="use method='mean' (the plain mean rating per sentence), or add "
                            "the participant ids")


def _within_participants(out: pd.DataFrame, method: str) -> pd.DataFrame:
    """``normed_trials`` on a validated table."""
    _require_participants(out, method)
    person = pd.factorize(out["participant"])[0]
    response = out["response"]
    grouped = response.groupby(person, sort=False)
    n = grouped.transform("size").to_numpy()
    sd = grouped.transform("std").to_numpy()  # ddof=1 (R's sd and scale)
    one, constant = n == 1, (n > 1) & (sd == 0)
    exclusions = exclusion_table([
        ("ratings", "participant with constant ratings (z undefined)", int(constant.sum())),
        ("ratings", "participant with one rating (z undefined)", int(one.sum())),
    ])
    keep = ~(one | constant)
    out = out[keep].copy()
    if method == "z":
        mean = grouped.transform("mean").to_numpy()[keep]
        out["response_norm"] = (out["response"].to_numpy() - mean) / sd[keep]
    else:
        rank = out["response"].groupby(person[keep], sort=False).rank(method="average")
        p = (rank.to_numpy() - _BLOM) / (n[keep] + 1 - 2 * _BLOM)
        out["response_norm"] = special.ndtri(p)
    out.attrs["exclusions"] = exclusions[exclusions["n"] > 0].reset_index(drop=True)
    return out
