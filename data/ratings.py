"""The trial-level ratings table: one row per rating of one sentence by one participant.

Columns: ``participant`` (may be missing: some data sets, e.g. Lau et al. 2020, publish the
ratings of a sentence without who gave them), ``sentence_id``, ``response``, and any further
columns. The task and scale are declared with a [RatingScale][acceptability.data.RatingScale]
(Likert with its range, magnitude estimation, binary) and travel with the table in
``ratings.attrs["scale"]`` (its text form, e.g. ``"likert:1-7"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.tables import (
    ColumnMap,
    LineOffset,
    _where,
    id_column,
    member,
    numeric_column,
    refuse_repeats,
    rename_columns,
    require_columns,
)

RATING_COLUMNS = ["participant", "sentence_id", "response"]
REPEATED_TRIAL_FIX = ("drop the repeated row: a copy counts one judgment twice and inflates "
                      "reliability and the norms' precision; if the participant rated the "
                      "sentence twice by design, add a column that tells the trials apart "
                      "(trial number, presentation order, block)")
TASKS = ("likert", "me", "binary")


@dataclass(frozen=True)
class RatingScale:
    """What a rating is: ``task`` "likert" (integers ``low`` to ``high``), "me" (magnitude
    estimation: any positive number) or "binary" (0/1).

    Examples
    --------
    >>> from acceptability.data import RatingScale
    >>> RatingScale.parse("likert:1-7")
    RatingScale(task='likert', low=1, high=7)
    >>> str(RatingScale("binary")), RatingScale.parse("me").ordinal
    ('binary', False)
    """

    task: str
    low: int | None = None
    high: int | None = None

    def __post_init__(self) -> None:
        if self.task not in TASKS:
            raise DataError(f"unknown rating task {self.task!r}",
                            fix=f"use one of {list(TASKS)} (a Likert scale as 'likert:1-7')")
        if self.task == "likert" and (self.low is None or self.high is None
                                      or not self.low < self.high):
            raise DataError(f"a Likert scale needs a range low < high, got {self.low}-{self.high}",
                            fix="declare it as 'likert:1-7' (or RatingScale('likert', 1, 7))")

    @classmethod
    def parse(cls, text: str | RatingScale) -> RatingScale:
        """A scale from its text form: ``"likert:1-7"``, ``"me"``, ``"binary"``."""
        if isinstance(text, RatingScale):
            return text
        task, _, span = str(text).strip().lower().partition(":")
        if task != "likert":
            if span:
                raise DataError(f"scale {text!r}: only a Likert scale takes a range",
                                fix="write 'me' or 'binary' alone")
            return cls(task)
        low, _, high = span.partition("-")
        if not (low.strip().isdigit() and high.strip().isdigit()):
            raise DataError(f"scale {text!r} has no range low-high",
                            fix="declare a Likert scale as 'likert:1-7'")
        return cls("likert", int(low), int(high))

    def __str__(self) -> str:
        return f"likert:{self.low}-{self.high}" if self.task == "likert" else self.task

    @property
    def ordinal(self) -> bool:
        """Whether the responses are ordered categories (Likert or binary)."""
        return self.task != "me"

    def outside(self, response: pd.Series) -> np.ndarray:
        """Which responses the scale does not allow."""
        r = response.to_numpy(float)
        if self.task == "me":
            return ~(r > 0)
        low, high = (0, 1) if self.task == "binary" else (self.low, self.high)
        return (r < low) | (r > high) | (r != np.round(r))

    def allowed(self) -> str:
        """The allowed responses, in words."""
        if self.task == "me":
            return "a positive number (magnitude estimation)"
        if self.task == "binary":
            return "0 or 1"
        return f"a whole number from {self.low} to {self.high}"


def rating_scale(ratings: pd.DataFrame) -> RatingScale:
    """The scale a validated ratings table declares (``ratings.attrs["scale"]``).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import rating_scale, validate_ratings
    >>> table = validate_ratings(pd.DataFrame({"sentence_id": ["a", "b"], "response": [1, 0]}),
    ...                          scale="binary")
    >>> rating_scale(table).task, bool(table["participant"].isna().all())
    ('binary', True)
    """
    scale = ratings.attrs.get("scale")
    if scale is None:
        raise DataError("the ratings table declares no scale",
                        fix="validate it with data.validate_ratings(ratings, scale='likert:1-7')")
    return RatingScale.parse(scale)


def check_rater_column(ratings: pd.DataFrame, source: str = "ratings") -> None:
    """Refuse a ratings table without ``participant`` that holds a column of another name
    (``subject``, ``worker``, ...): it may name the raters, and reading it as a table
    without them would silently norm by the mean, split halves within sentences and fit
    no participant term. The fix maps the column (``columns=`` / ``--column``); a table
    whose ratings name no rater has an empty ``participant`` column or no further column.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.ratings import check_rater_column
    >>> check_rater_column(pd.DataFrame({"subject": ["P1"], "sentence_id": ["s"],
    ...                                  "response": [3]}))
    Traceback (most recent call last):
    ...
    acceptability.data.errors.DataError: ratings: the ratings name no participant column and hold column(s) ['subject']: ... Fix: if 'subject' names the raters, map it: columns={'subject': 'participant'} (command line --column subject=participant...
    """
    if "participant" in ratings.columns:
        return
    other = [str(c) for c in ratings.columns if c not in RATING_COLUMNS]
    if other:
        raise DataError(
            f"the ratings name no participant column and hold column(s) {other}: without "
            "participants the norming falls back to the mean, split-half reliability splits "
            "within sentences and trial models have no participant term", source=source,
            fix=f"if {other[0]!r} names the raters, map it: columns={{{other[0]!r}: "
                f"'participant'}} (command line --column {other[0]}=participant; experiment "
                "file [data] columns); if the ratings name no raters, drop the other columns "
                "or add an empty participant column")


def _check_responses(out: pd.DataFrame, scale: RatingScale, source: str,
                     line_offset: LineOffset) -> None:
    """A missing response, or one the scale does not allow, is an error naming its row."""
    missing = out["response"].isna().to_numpy()
    if missing.any():
        raise DataError(f"missing response ({int(missing.sum())} rows)", source=source,
                        row=_where(out, missing, line_offset), column="response",
                        fix="drop unanswered trials before validating (loaders count them)")
    bad = scale.outside(out["response"])
    if bad.any():
        raise DataError(f"response {out['response'][bad].iloc[0]:g} is outside the scale "
                        f"{scale} ({int(bad.sum())} such rows)", source=source,
                        row=_where(out, bad, line_offset), column="response",
                        fix=f"a response must be {scale.allowed()}; declare the scale the "
                            "ratings were collected on, or drop the row")


def check_repeated_trials(ratings: pd.DataFrame, source: str = "ratings",
                          line_offset: LineOffset = None) -> None:
    """Refuse a trial entered twice: two rows with the same participant (named) and equal
    in every column, which would count one judgment twice (it raised ICC(k) and shrank
    the norms' SE by sqrt 2). The error names both rows (`data.tables.refuse_repeats`).
    Ratings repeated by design need a column that tells the trials apart (trial number,
    presentation order); equal rows without a participant (Lau et al. 2020 publish
    ratings without raters) are different raters' equal ratings and are kept."""
    refuse_repeats(ratings, list(ratings.columns), source, line_offset,
                   lambda row: f"a trial entered twice: participant {row['participant']!r}"
                               f", sentence {row['sentence_id']!r}, two rows equal in every "
                               "column", "participant", REPEATED_TRIAL_FIX,
                   among=ratings["participant"].notna().to_numpy())


def validate_ratings(df: pd.DataFrame, scale: str | RatingScale | None = None,
                     sentences: pd.DataFrame | None = None, source: str = "ratings",
                     line_offset: LineOffset = None, columns: ColumnMap = None) -> pd.DataFrame:
    """Check a trial-level ratings table against its declared scale.

    The one check of ratings: loaders, [read_dataset][acceptability.data.read_dataset] and
    every statistic of ratings use it.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per rating: ``sentence_id``, ``response``, optionally ``participant``
        (missing when the data name no raters) and further columns.
    scale : str or RatingScale, optional
        ``"likert:1-7"``, ``"me"`` or ``"binary"``; None: the one ``df.attrs["scale"]``
        declares.
    sentences : pandas.DataFrame, optional
        The sentences table; a rating of a sentence it lacks is an error.
    source : str, default "ratings"
        The name errors give the table.
    line_offset : int, optional
        Added to row positions (a CSV file's header line makes it 2).
    columns : dict of str to str, optional
        The table's own column names -> the package's, e.g. ``{"subject": "participant"}``
        (`data.tables.rename_columns`).

    Returns
    -------
    pandas.DataFrame
        A copy with ids as strings, ``response`` as float and ``attrs["scale"]`` set.

    Raises
    ------
    DataError
        For a missing column or response, a response the scale does not allow, an
        unknown sentence, or a trial entered twice (`check_repeated_trials`); the message
        names the row. A table without ``participant``
        that holds a column of another name is refused (`check_rater_column`): it may
        name the raters under another name, and without them the norming, the
        reliability's split and the trial models would fall back silently.

    Examples
    --------
    A sentence rated 4 and 2 on a 1-4 scale by two participants:

    >>> from pandas import DataFrame
    >>> from acceptability.data import validate_ratings
    >>> ratings = DataFrame({"participant": ["w1", "w2"], "sentence_id": ["s1", "s1"],
    ...                      "response": [4, 2]})
    >>> out = validate_ratings(ratings, scale="likert:1-4")
    >>> out["response"].tolist(), out.attrs["scale"]
    ([4.0, 2.0], 'likert:1-4')
    >>> validate_ratings(ratings, scale="likert:1-3")
    Traceback (most recent call last):
    ...
    acceptability.data.errors.DataError: ratings, row 0, column 'response': response 4 is outside the scale likert:1-3 (1 such rows). Fix: a response must be a whole number from 1 to 3; declare the scale the ratings were collected on, or drop the row
    """
    scale = RatingScale.parse(scale if scale is not None else rating_scale(df))
    require_columns(df, [], source)  # a DataFrame with rows
    out = rename_columns(df, columns, source).copy()
    require_columns(out, ["sentence_id", "response"], source)
    check_rater_column(out, source)
    if "participant" not in out.columns:
        out.insert(0, "participant", pd.Series(pd.NA, index=out.index, dtype=object))
    out["participant"] = id_column(out, "participant", source, line_offset, required=False)
    out["sentence_id"] = id_column(out, "sentence_id", source, line_offset)
    out["response"] = numeric_column(out, "response", source, line_offset)
    _check_responses(out, scale, source, line_offset)
    check_repeated_trials(out, source, line_offset)
    if sentences is not None:
        unknown = ~member(out["sentence_id"], sentences["sentence_id"])
        if unknown.any():
            raise DataError(f"rating of unknown sentence {out['sentence_id'][unknown].iloc[0]!r} "
                            f"({int(unknown.sum())} rows)", source=source,
                            row=_where(out, unknown, line_offset), column="sentence_id",
                            fix="rate sentences of the sentences table, or add them to it")
    out.attrs["scale"] = str(scale)
    return out
