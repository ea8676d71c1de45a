"""Lau, Armendariz, Lappin, Purver & Shu (2020, TACL), "How furiously can colorless green
ideas sleep? Sentence acceptability in context": crowd-sourced ratings on a 4-point scale
(1 bad ... 4 good) of English Wikipedia sentences, 200 of the 250 round-trip machine
translated, judged without context, after a random paragraph, or after the sentence's real
preceding paragraph. Each sentence's individual ratings are published, without the ids of
the raters who gave them.
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pandas as pd

from acceptability.data.dataset import CONDITION, Dataset, from_frames
from acceptability.data.errors import DataError
from acceptability.data.io.files import read_table
from acceptability.data.io.sources import checksum, fetch
from acceptability.data.ratings import validate_ratings
from acceptability.data.tables import (
    LineOffset,
    human_on_z_scale,
    numeric_column,
    require_columns,
    validate_sentences,
)

NAME = "lau2020"
CONTEXTS = ("none", "random", "real")
ALL = "all"  # the three conditions as one dataset
SCALE = "likert:1-4"
COLUMNS = ["ID", "translated", "source-language", "sentence", "context", "full-ratings",
           "mean-ratings"]
# the crowd-sourcing input of each condition (HIT ids); the repository's
# code/human-ratings/context-real-sentences.csv is the same file (git blob c451b2ac) as
# context-none-sentences.csv, the real paragraphs being the ones the none condition omits
HIT_FILES = {"none": "context-none-sentences.csv", "random": "context-random-sentences.csv",
             "real": "context-none-sentences.csv"}
# the published means are float64 means of at most a few dozen ratings of 1-4
MEAN_TOLERANCE = 1e-9


def _line(offset: LineOffset, pos: int) -> int:
    return offset(pos) if callable(offset) else pos + 2


def _individual(raw: pd.DataFrame, source: str,
                offset: LineOffset) -> tuple[pd.DataFrame, np.ndarray]:
    """One row per individual rating of ``full-ratings`` ("4,2,2,3"; a few written "3.0"),
    validated on the 1-4 scale (an error names the file line of the sentence), and the
    row of ``raw`` each rating belongs to."""
    parts = raw["full-ratings"].astype("string").str.split(",")
    owner = np.repeat(np.arange(len(raw)), parts.str.len().fillna(1).astype(int))
    long = pd.DataFrame({"sentence_id": raw["ID"].to_numpy()[owner],
                         "response": parts.explode().to_numpy()})
    ratings = validate_ratings(long, SCALE, source=source,
                               line_offset=lambda k: _line(offset, int(owner[k])))
    return ratings, owner


def _checked_means(raw: pd.DataFrame, ratings: pd.DataFrame, owner: np.ndarray,
                   source: str, offset: LineOffset) -> tuple[pd.Series, np.ndarray]:
    """The published ``mean-ratings``, checked equal to the mean of each row's individual
    ratings, and the number of ratings of each row."""
    published = numeric_column(raw, "mean-ratings", source, offset)
    n = np.bincount(owner, minlength=len(raw))
    recomputed = np.bincount(owner, weights=ratings["response"].to_numpy(), minlength=len(raw))
    recomputed = recomputed / n
    off = ~np.isclose(published.to_numpy(), recomputed, rtol=0, atol=MEAN_TOLERANCE)
    if off.any():
        pos = int(np.flatnonzero(off)[0])
        raise DataError(f"mean-ratings {published.iloc[pos]:.10g} is not the mean "
                        f"{recomputed[pos]:.10g} of the sentence's full-ratings",
                        source=source, row=f"{_line(offset, pos)} (line)",
                        column="mean-ratings", fix="correct the mean or the ratings")
    return published, n


def _sentences(raw: pd.DataFrame, context: str, source: str, offset: LineOffset,
               mean: pd.Series, n: np.ndarray, hit: pd.Series) -> pd.DataFrame:
    """The validated sentences table of one condition (``human`` still the mean rating)."""
    translated = numeric_column(raw, "translated", source, offset)
    bad = ~translated.isin([0, 1])
    if bad.any():
        raise DataError(f"translated {raw['translated'][bad].iloc[0]!r} is not 0 or 1",
                        source=source, row=f"{_line(offset, int(np.flatnonzero(bad)[0]))} "
                        "(line)", column="translated", fix="use the published files")
    sentences = pd.DataFrame({
        "sentence_id": raw["ID"], "text": raw["sentence"], "dataset": NAME,
        "condition": context, "translated": translated.astype(int),
        "source_language": raw["source-language"].astype(str),
        # the file separates the paragraph's sentences by tabs; joined by a space, as the
        # authors' scoring code joins them
        "context": raw["context"].astype("string").fillna("").astype(str)
                                 .str.replace("\t", " ", regex=False), "hit": hit,
        "mean_rating": mean, "n_ratings": n, "human": mean,
    })
    return validate_sentences(sentences, source=source, line_offset=offset)


def _hits(context: str, ids: pd.Series, texts: pd.Series,
          path: str | os.PathLike | None) -> tuple[pd.Series, str, str]:
    """Each sentence's HIT (``"<context>:<HIT_ID>"``) from the condition's crowd-sourcing
    input, whose sentences must be the ratings file's; also the file's name and checksum."""
    f = fetch(NAME, HIT_FILES[context], path)
    hits, _ = read_table(f, "sentences")
    require_columns(hits, ["ID", "HIT_ID", "SENTENCE"], str(f))
    by_id = hits.assign(ID=hits["ID"].astype(str)).set_index("ID")
    if by_id.index.duplicated().any():
        raise DataError(f"sentence {by_id.index[by_id.index.duplicated()][0]!r} is listed "
                        "twice", source=str(f), column="ID", fix="use the published files")
    unknown = ~ids.isin(by_id.index)
    if unknown.any():
        raise DataError(f"sentence {ids[unknown].iloc[0]!r} is not in {f.name}",
                        source=str(f), column="ID", fix="use the published files (registry)")
    differs = texts.to_numpy() != by_id.loc[ids, "SENTENCE"].to_numpy()
    if differs.any():
        raise DataError(f"sentence {ids[differs].iloc[0]!r} has another text in {f.name}",
                        source=str(f), column="SENTENCE", fix="use the published files")
    hit = context + ":" + by_id.loc[ids, "HIT_ID"].astype(str)
    return pd.Series(hit.to_numpy(), index=ids.index), f.name, checksum(f)


def load_lau2020(path: str | os.PathLike | None = None, context: str = "none") -> Dataset:
    """The sentences of Lau et al. (2020) with their individual 1-4 ratings in one context condition.

    Without context (``"none"``, 4,107 ratings), after a random paragraph (``"random"``,
    3,821) or after the sentence's real preceding paragraph (``"real"``, 4,458); 250
    sentences each, the same ids in all three. The published mean of each sentence's
    ratings is checked against its individual ratings; ``human`` is that mean z-scored
    over the 250 sentences (``Dataset.human_standardised`` holds the mean and SD used).
    The ratings carry no participant ids; ``hit`` names the crowd-sourcing task (HIT) of
    10 sentences they were given in, so the ratings of one HIT's sentences come from the
    workers who took that HIT (a grouping for mixed models; the number of ratings varies
    by a few within a HIT). From ``context-*-sentences.csv``, which lists 500 sentences
    in 50 HITs; the published ratings cover HITs 0-24. A few ratings are written with a
    decimal point, "3.0" (10 in none, 26 in real): read as whole numbers.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder with the files; default ``$ACCEPTABILITY_DATA_DIR/lau2020``, else a
        checksummed download from github.com/jhlau/acceptability-prediction-in-context
        (pinned commit).
    context : {"none", "random", "real", "all"}, default "none"
        The condition; ``"all"``: the three as one dataset of 750 sentence-condition rows
        (``data.loaders.lau2020.combine_conditions``:
        ``sentence_id`` "real/10037", ``type_id`` the sentence, so that a sentence's
        conditions are resampled together), as ``acceptability run --dataset lau2020``
        analyses them.

    Returns
    -------
    Dataset
        Named ``"lau2020:<context>"`` (``"lau2020"`` for all three). Sentences: ``sentence_id`` (the ID), ``text``,
        ``dataset`` ("lau2020"), ``condition``, ``translated`` (0/1), ``source_language``
        (``en`` for the originals), ``context`` (the paragraph shown, its sentences joined by a
        space as in the authors' code; "" for none),
        ``hit``, ``mean_rating``, ``n_ratings``, ``human``. Ratings (scale likert:1-4):
        ``participant`` (missing), ``sentence_id``, ``response``, ``hit``. No pairs.

    Raises
    ------
    DataError
        For an unknown condition, a missing file or column, a rating off the 1-4 scale, or
        a published mean that is not the mean of the ratings; errors name the file line.

    Examples
    --------
    Needs the data (the lau2020 CSVs, or a download):

    >>> from acceptability.data import load_lau2020
    >>> ds = load_lau2020(context="real")  # doctest: +SKIP
    >>> len(ds.sentences), len(ds.ratings), ds.ratings.attrs["scale"]  # doctest: +SKIP
    (250, 4458, 'likert:1-4')
    >>> len(load_lau2020(context="all").sentences)  # doctest: +SKIP
    750
    """
    if context == ALL:
        return combine_conditions({c: load_lau2020(path, context=c) for c in CONTEXTS}, NAME)
    if context not in CONTEXTS:
        raise DataError(f"unknown context condition {context!r}", source=NAME,
                        fix=f"use one of {[*CONTEXTS, ALL]}")
    f = fetch(NAME, f"context-{context}-ratings.csv", path)
    raw, offset = read_table(f, "ratings")
    require_columns(raw, COLUMNS, str(f))
    raw["ID"] = raw["ID"].astype(str)
    ratings, owner = _individual(raw, str(f), offset)
    mean, n = _checked_means(raw, ratings, owner, str(f), offset)
    hit, hit_file, hit_sum = _hits(context, raw["ID"], raw["sentence"], path)
    sentences = _sentences(raw, context, str(f), offset, mean, n, hit)
    sentences, standardised = human_on_z_scale(sentences, "raw", source=str(f))
    ratings["hit"] = hit.to_numpy()[owner]
    return Dataset(
        name=f"{NAME}:{context}", sentences=sentences,
        pairs=pd.DataFrame(columns=["pair_id", "good_id", "bad_id", "phenomenon"]),
        ratings=ratings, source=str(f.parent),
        checksums={f.name: checksum(f), hit_file: hit_sum}, human_standardised=standardised,
    )


def combine_conditions(datasets: dict[str, Dataset], name: str) -> Dataset:
    """One dataset of the sentence-condition rows of ``datasets`` (condition -> dataset):
    ``sentence_id`` "<condition>/<id>", ``condition``, and ``type_id`` the sentence's own id,
    so that a sentence's conditions share a type (a cluster of the bootstrap); ratings and
    exclusions follow their sentences.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.data.loaders.lau2020 import combine_conditions
    >>> one = data.from_frames(pd.DataFrame({"sentence_id": ["s1", "s2"],
    ...                                      "text": ["A cat sleeps.", "Cat a sleeps."]}),
    ...                        ratings=pd.DataFrame({"sentence_id": ["s1", "s2"],
    ...                                              "response": [4, 1]}), scale="likert:1-4")
    >>> both = combine_conditions({"none": one, "real": one}, "mine")
    >>> both.sentences[["sentence_id", "type_id", "condition"]].values.tolist()[1:3]
    [['none/s2', 's2', 'none'], ['real/s1', 's1', 'real']]
    >>> both.ratings["sentence_id"].tolist()
    ['none/s1', 'none/s2', 'real/s1', 'real/s2']
    """
    sentences, ratings, exclusions, checksums = [], [], [], {}
    for condition, ds in datasets.items():
        s = ds.sentences.copy()
        s["type_id"] = s["sentence_id"]
        s["sentence_id"] = f"{condition}/" + s["sentence_id"]
        s[CONDITION] = condition
        sentences.append(s.drop(columns=["phenomenon"]))  # from_frames: one per type
        r = ds.ratings.copy()
        r["sentence_id"] = f"{condition}/" + r["sentence_id"]
        ratings.append(r)
        ex = ds.exclusions.copy()
        ex["reason"] = f"{condition}: " + ex["reason"].astype(str)
        if "ids" in ex:
            ex["ids"] = [tuple(f"{condition}/{i}" for i in ids) if isinstance(ids, tuple | list)
                         else ids for ids in ex["ids"]]
        exclusions.append(ex)
        checksums |= ds.checksums
    first = next(iter(datasets.values()))
    out = from_frames(pd.concat(sentences, ignore_index=True), name=name,
                      ratings=pd.concat(ratings, ignore_index=True),
                      scale=first.ratings.attrs["scale"])
    ex = pd.concat([e for e in exclusions if len(e)], ignore_index=True) \
        if any(len(e) for e in exclusions) else out.exclusions
    return replace(out, source=first.source, checksums=checksums, exclusions=ex)
