"""A pairs-with-trial-ratings study as a user brings it: TurBLiMP's human study (Başar et
al. 2025), read by ``data.load_turblimp_ratings`` and written out as three plain CSV files.

The study: 30 native speakers of Turkish rated sentences on a 7-point Likert scale; 216
minimal pairs (36 phenomena x 6 items) in two Latin-square lists, each participant rating
one member of every pair, so 6,480 trials (the loader's docstring: how the Qualtrics
exports map to the sentences of ``survey_material.xlsx``).

The ratings file names its rater column ``subject`` (not the package's ``participant``), as
the user's file did; the tests map it with ``columns={"subject": "participant"}``.
"""

from __future__ import annotations

from pathlib import Path

from acceptability.data import load_turblimp_ratings

N_PARTICIPANTS = 30
N_PAIRS = 216
N_TRIALS = 6480


def write_study(turblimp: Path, out: Path) -> dict[str, Path]:
    """Write ``sentences.csv``, ``pairs.csv`` and ``ratings.csv`` (rater column ``subject``)
    of TurBLiMP's human study into ``out`` and return their paths."""
    ds = load_turblimp_ratings(turblimp)
    assert len(ds.ratings) == N_TRIALS and ds.ratings["participant"].nunique() == N_PARTICIPANTS
    out.mkdir(parents=True, exist_ok=True)
    paths = {"sentences": out / "sentences.csv", "pairs": out / "pairs.csv",
             "ratings": out / "ratings.csv"}
    sentences = ds.sentences[["sentence_id", "text", "phenomenon", "type_id", "item", "label"]]
    sentences.astype({"label": int}).to_csv(paths["sentences"], index=False)
    ds.pairs[["pair_id", "good_id", "bad_id", "phenomenon"]].to_csv(paths["pairs"], index=False)
    ratings = ds.ratings[["participant", "sentence_id", "response"]].astype({"response": int})
    ratings.rename(columns={"participant": "subject"}).to_csv(paths["ratings"], index=False)
    return paths
