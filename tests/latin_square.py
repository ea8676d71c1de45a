"""A pairs-with-trial-ratings study as a user brings it: TurBLiMP's human study (Başar et
al. 2025), converted from the authors' Qualtrics exports into three plain CSV files.

The study: 30 native speakers of Turkish rated sentences on a 7-point Likert scale; 216
minimal pairs (36 phenomena x 6 items) in two Latin-square lists, each participant rating
one member of every pair, so 6,480 trials. ``survey_material.xlsx`` has one sheet per list
(``v1``, ``v2``): row ``k`` of both sheets is pair ``k``, one member in each list, with its
``phenomenon`` and ``type`` (good/bad). ``base_judgments.xlsx`` (16 phenomena, 96 pairs) and
``experimental_judgments.xlsx`` (20 word-order and subordination variants, 120 pairs) hold a
row per participant (after a label row) and a column per question: ``Q2.<n>_1`` is row
``n - 2`` of list ``v1``, ``Q3.<n>_1`` of list ``v2``; the label row names the question's
phenomenon and type, which :func:`write_study` checks against the sheet.

The ratings file names its rater column ``subject`` (not the package's ``participant``), as
the user's file did; the tests map it with ``columns={"subject": "participant"}``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

N_PARTICIPANTS = 30
N_PAIRS = 216
N_TRIALS = 6480


def _questions(path: Path) -> pd.DataFrame:
    """One row per (participant, question) with a response: list, row in the list, label."""
    sheet = pd.read_excel(path, dtype=object)
    labels = sheet.iloc[0]
    answers = sheet.iloc[1:].reset_index(drop=True)
    rows = []
    for column in sheet.columns:
        block, number = column.removeprefix("Q").removesuffix("_1").split(".")
        for participant, response in answers[column].items():
            if pd.notna(response):
                rows.append({"participant": int(participant) + 1, "list": {"2": "v1", "3": "v2"}[block],
                             "row": int(number) - 2, "label": labels[column],
                             "response": int(response)})
    return pd.DataFrame(rows)


def write_study(turblimp: Path, out: Path) -> dict[str, Path]:
    """Write ``sentences.csv``, ``pairs.csv`` and ``ratings.csv`` (rater column ``subject``)
    of TurBLiMP's human study into ``out`` and return their paths."""
    folder = turblimp / "data" / "human_judgments"
    lists = pd.read_excel(folder / "survey_material.xlsx", sheet_name=["v1", "v2"])
    trials = pd.concat([_questions(folder / f"{name}_judgments.xlsx")
                        for name in ("base", "experimental")], ignore_index=True)
    sentences, pairs = [], []
    for k in range(N_PAIRS):
        members = {}
        for name in ("v1", "v2"):
            row = lists[name].iloc[k]
            members[row["type"]] = (name, row)
        assert set(members) == {"good", "bad"}, f"pair {k} has no good and bad member"
        for kind, (name, row) in members.items():
            sentences.append({"sentence_id": f"{name}-{k:03d}", "text": row[name].strip(),
                              "phenomenon": row["phenomenon"], "type_id": f"{row['phenomenon']}_{kind}",
                              "item": k, "label": int(kind == "good")})
        pairs.append({"pair_id": f"pair-{k:03d}", "good_id": f"{members['good'][0]}-{k:03d}",
                      "bad_id": f"{members['bad'][0]}-{k:03d}",
                      "phenomenon": members["good"][1]["phenomenon"]})
    sentences = pd.DataFrame(sentences)
    kinds = sentences.set_index("sentence_id")
    trials["sentence_id"] = [f"{lst}-{row:03d}" for lst, row in zip(trials["list"], trials["row"], strict=True)]
    expected = (kinds.loc[trials["sentence_id"], "phenomenon"] + "_"
                + kinds.loc[trials["sentence_id"], "label"].map({1: "good", 0: "bad"}))
    assert (trials["label"].str.lower().to_numpy() == expected.str.lower().to_numpy()).all()
    ratings = pd.DataFrame({"subject": [f"P{p:02d}" for p in trials["participant"]],
                            "sentence_id": trials["sentence_id"], "response": trials["response"]})
    assert len(ratings) == N_TRIALS and ratings["subject"].nunique() == N_PARTICIPANTS
    out.mkdir(parents=True, exist_ok=True)
    paths = {"sentences": out / "sentences.csv", "pairs": out / "pairs.csv",
             "ratings": out / "ratings.csv"}
    sentences.to_csv(paths["sentences"], index=False)
    pd.DataFrame(pairs).to_csv(paths["pairs"], index=False)
    ratings.to_csv(paths["ratings"], index=False)
    return paths
