"""MegaAcceptability v1 (White & Rawlins 2016; 2020, Glossa, "Frequency, acceptability, and
selection: A case study of clause-embedding"): ordinal 1-7 acceptability judgments of 1,000
clause-embedding verbs in 50 syntactic frames, five judgments per verb-frame sentence, from
729 participants on Mechanical Turk, with the authors' normalised value of each sentence.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.io.sources import checksum, fetch
from acceptability.data.ratings import validate_ratings
from acceptability.data.tables import (
    human_on_z_scale,
    member,
    require_columns,
    validate_sentences,
)

NAME = "megaacceptability"
ZIP = "mega-acceptability-v1.zip"
TRIALS = "mega-acceptability-v1/mega-acceptability-v1.tsv"
NORMS = "mega-acceptability-v1/mega-acceptability-v1-normalized.tsv"
TRIAL_COLUMNS = ["participant", "list", "presentationorder", "verb", "frame", "response",
                 "nativeenglish", "sentence"]
NORM_COLUMNS = ["verb", "verbform", "frame", "responsenorm", "responsevar"]
SCALE = "likert:1-7"


def _member(archive: zipfile.ZipFile, name: str, columns: list[str], source: str) -> pd.DataFrame:
    """One TSV of the zip archive, its columns checked."""
    try:
        with archive.open(name) as handle:
            frame = pd.read_csv(handle, sep="\t")
    except KeyError:
        raise DataError(f"the archive has no {name!r}", source=source,
                        fix="use the published mega-acceptability-v1.zip (registry)") from None
    require_columns(frame, columns, f"{source}:{name}")
    return frame


def _read(zip_path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The trials and the normalised values, each with its ``sentence_id`` ("verb | frame")."""
    try:
        with zipfile.ZipFile(zip_path) as archive:
            trials = _member(archive, TRIALS, TRIAL_COLUMNS, str(zip_path))
            norms = _member(archive, NORMS, NORM_COLUMNS, str(zip_path))
    except zipfile.BadZipFile:
        raise DataError("not a zip archive", source=str(zip_path),
                        fix="download mega-acceptability-v1.zip again") from None
    for frame in (trials, norms):
        frame.insert(0, "sentence_id", frame["verb"].astype(str) + " | "
                     + frame["frame"].astype(str))
    return trials, norms


def _sentences(trials: pd.DataFrame, norms: pd.DataFrame,
               source: str) -> tuple[pd.DataFrame, dict | None, list[dict]]:
    """One row per verb-frame sentence judged, joined to its normalised value (on the z
    scale: z-scored over the sentences); the exclusions rows for sentences without one and
    normalised values without trials."""
    texts = trials.drop_duplicates(["sentence_id", "sentence"])
    two = texts["sentence_id"].duplicated()
    if two.any():
        raise DataError(f"sentence {texts['sentence_id'][two].iloc[0]!r} has two texts",
                        source=source, column="sentence", fix="use the published archive")
    norm = norms.drop(columns=["verb", "frame", "sentence"], errors="ignore")
    again = norm["sentence_id"].duplicated()
    if again.any():
        raise DataError(f"two normalised values of {norm['sentence_id'][again].iloc[0]!r}",
                        source=f"{source}:{NORMS}", fix="use the published archive")
    s = texts[["sentence_id", "sentence", "verb", "frame"]].merge(norm, how="left")
    s = pd.DataFrame({"sentence_id": s["sentence_id"], "text": s["sentence"],
                      "dataset": NAME, "verb": s["verb"], "verbform": s["verbform"],
                      "frame": s["frame"], "norm_published": s["responsenorm"],
                      "norm_published_var": s["responsevar"], "human": s["responsenorm"]})
    s = validate_sentences(s, source=f"{source}:{TRIALS}")
    s, standardised = human_on_z_scale(s, "raw", source=f"{source}:{NORMS}")
    unnormed = tuple(s.loc[s["norm_published"].isna(), "sentence_id"])
    untried = norm.loc[~member(norm["sentence_id"], s["sentence_id"]), "sentence_id"]
    verbs = sorted(untried.str.partition(" | ")[0].unique())
    rows = [{"table": "sentences", "reason": f"no normalised value in {NORMS}",
             "ids": unnormed, "n": len(unnormed)},
            {"table": "sentences", "reason": f"normalised value without trials in {TRIALS} "
             f"(verbs {', '.join(verbs)}): not loaded", "n": len(untried)}]
    return s.reset_index(drop=True), standardised, [r for r in rows if r["n"]]


def load_megaacceptability(path: str | os.PathLike | None = None) -> Dataset:
    """MegaAcceptability v1 at trial level: 250,000 1-7 judgments of 50,000 verb-frame sentences (White & Rawlins 2016, 2020).

    Sentence ids are ``"<verb> | <frame>"`` (``"think | NP Ved that S"``). ``human`` is
    the authors' normalised value (``responsenorm``: the sentence's acceptability under
    the ordinal model of White & Rawlins 2020, which removes each participant's use of the
    scale), z-scored over the 50,000 sentences: the published values are centred near 0
    but have SD 1.26 (``Dataset.human_standardised`` holds the mean and SD used). The 10
    missing responses (a JavaScript error, says the data's README) are left out and
    counted in ``exclusions``; their 10 sentences keep four judgments, every other
    sentence has five. The normalised file also holds 350 verb-frame values (7 verbs x 50
    frames) without trials in v1: counted, not loaded. Two participants (433, 580) report
    being native English speakers on some of their lists and not on others;
    ``nativeenglish`` is kept per trial as published.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``mega-acceptability-v1.zip``; default
        ``$ACCEPTABILITY_DATA_DIR/megaacceptability``, else a checksummed download from
        github.com/MegaAttitude/megaattitude.github.io (pinned commit).

    Returns
    -------
    Dataset
        Sentences: ``sentence_id``, ``text``, ``verb``, ``verbform``, ``frame``,
        ``norm_published`` (``responsenorm``), ``norm_published_var`` (``responsevar``,
        the published variability of the responses), ``human``. Ratings (scale
        likert:1-7): ``participant`` ("0"-"728"), ``sentence_id``, ``response``, ``list``,
        ``presentationorder``, ``nativeenglish``. No pairs.

    Raises
    ------
    DataError
        For a missing or damaged archive, a missing column, or a response off the scale.

    Examples
    --------
    Needs the data (``mega-acceptability-v1.zip``, or a download):

    >>> from acceptability.data import load_megaacceptability
    >>> ds = load_megaacceptability()  # doctest: +SKIP
    >>> ds.ratings["participant"].nunique(), ds.exclusions["n"].tolist()  # doctest: +SKIP
    (729, [350, 10])
    """
    f = fetch(NAME, ZIP, path)
    trials, norms = _read(f)
    sentences, standardised, exclusions = _sentences(trials, norms, str(f))
    answered = trials["response"].notna().to_numpy()
    kept = np.flatnonzero(answered)
    ratings = trials.loc[answered, ["participant", "sentence_id", "response", "list",
                                    "presentationorder", "nativeenglish"]]
    ratings = validate_ratings(ratings.reset_index(drop=True), SCALE, sentences,
                               source=f"{f}:{TRIALS}", line_offset=lambda k: int(kept[k]) + 2)
    exclusions.append({"table": "ratings", "reason": "missing response (a JavaScript error, "
                       "the data's README says)", "n": int((~answered).sum())})
    return Dataset(
        name=NAME, sentences=sentences,
        pairs=pd.DataFrame(columns=["pair_id", "good_id", "bad_id", "phenomenon"]),
        ratings=ratings, source=str(f.parent), checksums={ZIP: checksum(f)},
        exclusions=pd.DataFrame(exclusions, columns=["table", "reason", "n", "ids"]),
        human_standardised=standardised,
    )
