"""Trial-level ratings as the sentences' ``human`` value: the one norming step that
``stats.evaluate``, ``reports.analyse`` and every command of the command line take
(``with_norming``), so that Python and the command line give the same numbers from the
same files. The method is recorded in ``sentences.attrs["norming"]``."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.stats.ratings.normalize import METHODS as NORMINGS
from acceptability.stats.ratings.normalize import normalize_ratings

AUTO = "auto"
NORMING_TEXT = {
    "z": "each rating z-scored within its participant (sample SD), averaged per sentence "
         "(Sprouse, Schütze & Almeida 2013)",
    "rank": "each rating's rank within its participant as a normal score (Blom 1958), "
            "averaged per sentence",
    "ordinal": "each sentence's mode under an ordinal (cumulative link) mixed model with "
               "participant thresholds (White & Rawlins 2020)",
    "mean": "the mean rating per sentence, on the rating scale",
}


def default_norming(dataset: Dataset) -> str:
    """``"z"`` (per participant, Sprouse et al. 2013) where every rating names its
    participant, else ``"mean"`` (the plain mean rating: Lau et al. 2020 name no raters).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.stats.ratings.human import default_norming
    >>> s = pd.DataFrame({"sentence_id": ["a"], "text": ["A cat sleeps."]})
    >>> r = pd.DataFrame({"sentence_id": ["a", "a"], "response": [3, 4]})
    >>> default_norming(data.from_frames(s, ratings=r, scale="likert:1-4"))
    'mean'
    """
    named = dataset.ratings["participant"].notna()
    return "z" if len(named) and named.all() else "mean"


def resolve_norming(dataset: Dataset, method: str | None) -> str:
    """``method``; for ``"auto"``/None the norming ``dataset`` records, else its default
    (``default_norming``)."""
    if method in (None, AUTO):
        method = dataset.sentences.attrs.get("norming") or default_norming(dataset)
    if method not in NORMINGS:
        raise DataError(f"unknown norming {method!r}", fix=f"use one of {[AUTO, *NORMINGS]}")
    return method


def with_norming(dataset: Dataset, method: str | None = AUTO) -> Dataset:
    """``dataset`` with ``human`` = its trial-level ratings normed per sentence
    (``stats.normalize_ratings``: ``"z"``, ``"rank"``, ``"ordinal"`` or ``"mean"``;
    ``"auto"``: the norming the dataset records, else ``default_norming``); as it is
    without ratings or when it records that norming already. With ratings, ``human`` is
    theirs: a ``human`` column of the sentences is replaced. The ratings the norming sets aside, and sentences left without a
    value, are added to ``exclusions``; the method is kept in
    ``sentences.attrs["norming"]``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data, stats
    >>> s = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["A cat sleeps.", "Cat a."]})
    >>> r = pd.DataFrame({"sentence_id": ["a", "a", "b"], "response": [3, 4, 1]})
    >>> ds = stats.with_norming(data.from_frames(s, ratings=r, scale="likert:1-4"))
    >>> ds.sentences["human"].tolist(), ds.sentences.attrs["norming"]
    ([3.5, 1.0], 'mean')
    """
    if dataset.ratings is None:
        return dataset
    method = resolve_norming(dataset, method)
    if dataset.sentences.attrs.get("norming") == method:
        return dataset
    normed = normalize_ratings(dataset.ratings, method=method)
    s = dataset.sentences.copy()
    s["human"] = s["sentence_id"].map(normed.set_index("sentence_id")["human"]).astype(float)
    s.attrs["norming"] = method
    rows = [{"table": row["table"], "reason": f"norming {method!r}: {row['reason']}",
             "n": int(row["n"])}
            for row in normed.attrs.get("exclusions", pd.DataFrame()).to_dict("records")
            if row["n"]]
    missing = s.loc[s["human"].isna(), "sentence_id"]
    if len(missing):
        rows.append({"table": "sentences", "reason": f"no normed rating (norming {method!r})",
                     "n": len(missing), "ids": tuple(missing)})
    exclusions = dataset.exclusions
    if rows:
        exclusions = pd.concat([exclusions, pd.DataFrame(rows)], ignore_index=True)
    return replace(dataset, sentences=s, exclusions=exclusions)


def norming_note(dataset: Dataset) -> str:
    """What ``human`` is, for a table's reader: the norming the dataset records, in words
    (``""`` without trial-level ratings)."""
    method = dataset.sentences.attrs.get("norming") if dataset.ratings is not None else None
    return f"human = {method}: {NORMING_TEXT[method]}" if method else ""
