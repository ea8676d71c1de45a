"""Sentence- and pair-level frames of z-scored model scores beside human judgments."""

from __future__ import annotations

import pandas as pd

from acceptability.stats.zscore import zscore


def sentence_frame(dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, sentence): the sentence columns plus ``score`` and ``z``.

    Every dataset sentence appears for every model (``z`` NaN where unscored).
    """
    z = zscore(scores, dataset)
    s = dataset.sentences
    models = pd.DataFrame({"model": z["model"].unique()})
    full = models.merge(s, how="cross")
    keep = [c for c in ("sentence_id", "model", "score", "z", "method") if c in z.columns]
    return full.merge(z[keep], on=["model", "sentence_id"], how="left")


def pair_deltas(dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, pair): ``dh`` and ``dlm``, the good-minus-bad differences of
    the human judgments and of the z-scored model scores (thesis 1.3.3)."""
    z = zscore(scores, dataset)
    zwide = z.pivot(index="sentence_id", columns="model", values="z")
    human = dataset.sentences.set_index("sentence_id")["human"]
    p = dataset.pairs
    good, bad = p["good_id"], p["bad_id"]
    frames = []
    for model in zwide.columns:
        col = zwide[model]
        frames.append(p.assign(
            model=model,
            human_good=good.map(human).to_numpy(), human_bad=bad.map(human).to_numpy(),
            z_good=good.map(col).to_numpy(), z_bad=bad.map(col).to_numpy(),
        ))
    out = pd.concat(frames, ignore_index=True)
    out["dh"] = out["human_good"] - out["human_bad"]
    out["dlm"] = out["z_good"] - out["z_bad"]
    return out
