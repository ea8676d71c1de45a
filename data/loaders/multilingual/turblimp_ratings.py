"""TurBLiMP's human study at trial level (Başar, Padovani, Jumelet & Bisazza 2025,
arXiv:2506.13487, section 3.3 and ``supplementary_materials/human_judgments.pdf``).

30 native speakers of Turkish rated sentences on a 7-point Likert scale in Qualtrics: 216
minimal pairs (16 phenomena and 20 experimental paradigms x 6 pairs) in two Latin-square
lists, each participant rating one member of every pair. ``survey_material.xlsx`` has one
sheet per list (``v1``, ``v2``): row ``k`` of both sheets is pair ``k``, one member in each
list, with its ``phenomenon`` and ``type`` (good/bad). ``base_judgments.xlsx`` (the 16
phenomena, 96 pairs) and ``experimental_judgments.xlsx`` (120 pairs) hold one row per
participant after a label row, and one column per question: ``Q2.<n>_1`` is row ``n - 2``
of list ``v1``, ``Q3.<n>_1`` of list ``v2``. Row ``i`` of both exports is participant
``P<i+1>``: each answers the same list in both (checked).
"""

from __future__ import annotations

import os
import re

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.io.sources import checksum, fetch, source_folder
from acceptability.data.ratings import validate_ratings
from acceptability.data.tables import validate_pairs, validate_sentences

__all__ = ["load_turblimp_ratings"]

NAME = "turblimp"
FOLDER = "data/human_judgments"
SURVEY = f"{FOLDER}/survey_material.xlsx"
EXPORTS = {"base": f"{FOLDER}/base_judgments.xlsx",
           "experimental": f"{FOLDER}/experimental_judgments.xlsx"}
LISTS = {"2": "v1", "3": "v2"}  # Qualtrics block -> survey list
QUESTION = re.compile(r"^Q([23])\.(\d+)_1$")
SCALE = "likert:1-7"


def _question(column: str, source: str) -> tuple[str, int]:
    """(list, row of the survey sheet) of an export's column ``Q<block>.<n>_1``."""
    found = QUESTION.match(str(column))
    if found is None:
        raise DataError(f"column {column!r} is not a question Q2.<n>_1 or Q3.<n>_1",
                        source=source, column=str(column),
                        fix="pass the Qualtrics export as the authors published it")
    return LISTS[found[1]], int(found[2]) - 2


def _trials(path, source: str) -> tuple[pd.DataFrame, int]:
    """One row per answered question of an export: ``row`` (participant's position),
    ``list``, ``item`` (row of the survey sheets), ``label`` (the export's) and ``response``;
    and the number of questions of a participant's own list left blank."""
    sheet = pd.read_excel(path, dtype=object)
    labels, answers = sheet.iloc[0], sheet.iloc[1:].reset_index(drop=True)
    lists = pd.Series([_question(c, source)[0] for c in sheet.columns], index=sheet.columns)
    per_list = answers.notna().T.groupby(lists).sum().T  # participants x lists: answers
    blank = int(((lists.value_counts() - per_list) * (per_list > 0)).to_numpy().sum())
    frames = []
    for column in sheet.columns:
        name, item = _question(column, source)
        given = answers[column].dropna()
        frames.append(pd.DataFrame({"row": given.index, "list": name, "item": item,
                                    "label": str(labels[column]), "response": given.to_numpy()}))
    return pd.concat(frames, ignore_index=True), blank


def _paradigm(name: str) -> str:
    """``data.load_turblimp``'s paradigm of a survey phenomenon: ``Subject_Agreement`` ->
    ``subject_verb_agreement``, ``Ditransitive_SOV`` -> ``argument_structure_ditransitive_SOV``,
    ``Transitive_IncA`` -> ``argument_structure_transitive_inca``, others lower-cased."""
    head, _, tail = name.partition("_")
    if name == "Subject_Agreement":
        return "subject_verb_agreement"
    if head in ("Ditransitive", "Transitive"):
        order = set(tail) <= set("SOV")  # word orders keep their capitals, as the files do
        return f"argument_structure_{head.lower()}_{tail if order else tail.lower()}"
    return name.lower()


def _pairs(survey: dict[str, pd.DataFrame], source: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The sentences (ids ``v1-007``) and pairs (``pair-007``) of the survey's two lists."""
    v1, v2 = survey["v1"], survey["v2"]
    if len(v1) != len(v2) or (v1["phenomenon"] != v2["phenomenon"]).any():
        raise DataError("the survey's sheets v1 and v2 do not list the same pairs row by row",
                        source=source, fix="pass survey_material.xlsx as published")
    rows = [{"sentence_id": f"{name}-{k:03d}", "text": str(sheet.loc[k, name]).strip(),
             "phenomenon": sheet.loc[k, "phenomenon"], "item": k, "list": name,
             "type_id": f"{sheet.loc[k, 'phenomenon']}_{sheet.loc[k, 'type']}",
             "label": int(sheet.loc[k, "type"] == "good")}
            for k in range(len(v1)) for name, sheet in survey.items()]
    sentences = pd.DataFrame(rows)
    sentences["paradigm"] = sentences["phenomenon"].map(_paradigm)
    good = sentences[sentences["label"] == 1].set_index("item")
    bad = sentences[sentences["label"] == 0].set_index("item")
    if len(good) != len(v1) or not good.index.is_unique:
        raise DataError("a survey row has no good and bad member across the lists v1 and v2",
                        source=source, column="type", fix="pass survey_material.xlsx as published")
    good, bad = good.sort_index(), bad.sort_index()
    pairs = pd.DataFrame({"pair_id": [f"pair-{k:03d}" for k in good.index],
                          "good_id": good["sentence_id"].to_numpy(),
                          "bad_id": bad["sentence_id"].to_numpy(),
                          "phenomenon": good["phenomenon"].to_numpy(),
                          "paradigm": good["paradigm"].to_numpy()})
    return sentences, pairs


def _check(trials: pd.DataFrame, sentences: pd.DataFrame, source: str) -> None:
    """Each export's label is its sentence's ``<phenomenon>_<type>``; each participant
    answers one list, the same in both exports."""
    type_id = sentences.set_index("sentence_id")["type_id"].str.lower()
    wrong = trials["label"].str.lower().to_numpy() != type_id.loc[trials["sentence_id"]].to_numpy()
    if wrong.any():
        first = trials[wrong].iloc[0]
        raise DataError(f"{int(wrong.sum())} questions' labels differ from their survey rows, "
                        f"first {first['label']!r} for {first['sentence_id']}", source=source,
                        fix="pass the exports and survey_material.xlsx of one release")
    lists = trials.groupby("participant")["list"].nunique()
    if (lists > 1).any():
        raise DataError(f"participants {list(lists[lists > 1].index)} answer both lists",
                        source=source, fix="pass the exports of one study, rows in one order")


def load_turblimp_ratings(path: str | os.PathLike | None = None,
                          judgments: str = "all") -> Dataset:
    """TurBLiMP's human study: the 30 participants' 7-point ratings as a pairs-with-ratings
    Dataset (module docstring for the files).

    Parameters
    ----------
    path : path-like, optional
        The TurBLiMP folder (the repository's layout); default
        ``$ACCEPTABILITY_DATA_DIR/turblimp``, else a checksummed download at the pinned commit.
    judgments : {"all", "base", "experimental"}, default "all"
        Both exports (216 pairs, 6,480 ratings), the 16 phenomena (96 pairs, 2,880 ratings:
        the paper's human_judgments.pdf z-scores these alone) or the 20 experimental
        paradigms (120 pairs, 3,600 ratings).

    Returns
    -------
    Dataset
        ``sentences``: ``sentence_id`` (``v1-007``: list and survey row), ``text``,
        ``phenomenon`` and ``type_id`` (``<phenomenon>_good|bad``) as the survey names them,
        ``paradigm`` as ``data.load_turblimp`` names it, ``item`` (survey row), ``label``,
        ``list``, ``language`` ("tr"), ``judgments``; ``pairs``: ``pair-007`` of ``v1-007``
        and ``v2-007``, with ``phenomenon`` and ``paradigm``; ``ratings``: ``participant``
        (``P01``-``P30``), ``sentence_id``, ``response`` (scale likert:1-7), one per trial.
        ``human`` is left to the norming (``stats.with_norming``).

    Raises
    ------
    DataError
        For an unknown ``judgments``, a column that is not a question, a label that is not
        its survey row's, a survey row without a good and a bad member, a participant who
        answers both lists, or a rating off the 1-7 scale.

    Examples
    --------
    >>> from acceptability.data import load_turblimp_ratings
    >>> ds = load_turblimp_ratings(judgments="base")  # doctest: +SKIP
    >>> len(ds.pairs), len(ds.ratings), ds.ratings["participant"].nunique()  # doctest: +SKIP
    (96, 2880, 30)
    """
    parts = list(EXPORTS) if judgments == "all" else [judgments]
    if not set(parts) <= set(EXPORTS):
        raise DataError(f"unknown judgments {judgments!r}",
                        fix=f"use one of {['all', *EXPORTS]}")
    survey_file = fetch(NAME, SURVEY, path)
    sentences, pairs = _pairs(pd.read_excel(survey_file, sheet_name=["v1", "v2"]), str(survey_file))
    sums, frames, blank = {SURVEY: checksum(survey_file)}, [], 0
    for part in parts:
        f = fetch(NAME, EXPORTS[part], path)
        sums[EXPORTS[part]] = checksum(f)
        found, unanswered = _trials(f, str(f))
        frames.append(found.assign(judgments=part))
        blank += unanswered
    trials = pd.concat(frames, ignore_index=True)
    trials["participant"] = [f"P{row + 1:02d}" for row in trials["row"]]
    trials["sentence_id"] = trials["list"] + "-" + trials["item"].map("{:03d}".format)
    _check(trials, sentences, str(survey_file.parent))
    part_of = trials.drop_duplicates("item").set_index("item")["judgments"]
    sentences = sentences[sentences["item"].isin(part_of.index)].assign(
        dataset=NAME, language="tr", judgments=lambda s: s["item"].map(part_of))
    sentences = validate_sentences(sentences.reset_index(drop=True), source=NAME)
    pairs = validate_pairs(pairs[pairs["good_id"].isin(sentences["sentence_id"])].reset_index(
        drop=True), sentences, source=NAME)
    ratings = validate_ratings(trials[["participant", "sentence_id", "response"]], SCALE,
                               sentences=sentences, source=str(survey_file.parent))
    exclusions = pd.DataFrame([("ratings", "question of the participant's list left blank",
                                blank)], columns=["table", "reason", "n"])
    return Dataset(name=NAME, sentences=sentences, pairs=pairs, ratings=ratings,
                   source=source_folder(NAME, path, survey_file.parents[2]), checksums=sums,
                   exclusions=exclusions[exclusions["n"] > 0].reset_index(drop=True))
