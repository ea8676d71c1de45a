"""BLiMP's human forced-choice trials with a real shallow predictor: minus the sentence
length in words (shorter sentences preferred), z-scored like any model score. Used by the
judgment-model tests and written for lme4 by benchmarks/lme4_frames.py."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def blimp_fc(blimp_dir: Path | None = None):
    """(dataset, scores) of the BLiMP FC trials with the ``neg_length`` predictor."""
    from acceptability import data
    from acceptability.data.loaders.forced_choice import load_blimp_trials

    trials = load_blimp_trials(blimp_dir)
    pairs = trials.drop_duplicates("pair_id")[["pair_id", "paradigm", "good_text", "bad_text"]]
    sentences = pd.concat([
        pd.DataFrame({"sentence_id": pairs["pair_id"] + "_good", "text": pairs["good_text"],
                      "phenomenon": pairs["paradigm"]}),
        pd.DataFrame({"sentence_id": pairs["pair_id"] + "_bad", "text": pairs["bad_text"],
                      "phenomenon": pairs["paradigm"]}),
    ])
    ds = data.from_frames(
        sentences,
        pd.DataFrame({"pair_id": pairs["pair_id"], "good_id": pairs["pair_id"] + "_good",
                      "bad_id": pairs["pair_id"] + "_bad", "phenomenon": pairs["paradigm"]}),
        trials=trials, name="blimp-fc")
    scores = pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "neg_length",
                           "score": -sentences["text"].str.split().str.len().astype(float)})
    return ds, scores


def blimp_fc_frame(blimp_dir: Path | None = None) -> pd.DataFrame:
    """The trials frame the FC models fit: participant, pair_id, paradigm, chose_good (0/1),
    dlm, good_first."""
    from acceptability.stats import fc_model_frame

    fr = fc_model_frame(*blimp_fc(blimp_dir))
    fr["chose_good"] = fr["chose_good"].astype(int)
    return fr[["participant", "pair_id", "paradigm", "chose_good", "dlm", "good_first"]]
