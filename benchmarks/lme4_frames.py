"""Write the frames that benchmarks/lme4_reference.R fits with lme4.

    python benchmarks/lme4_frames.py DIR && Rscript benchmarks/lme4_reference.R DIR

DIR/sentence.csv and DIR/pair.csv: LI-Adger human judgments against z-scored
bert-large-cased PLL, built by the package's own frame builders (the reference data are
read from $ACCEPTABILITY_DATA_DIR). DIR/nested.csv: the synthetic nested design of
tests/test_lmer.py. DIR/fc.csv: BLiMP's human forced-choice trials (after the
validation's exclusions) with a real shallow predictor, built like the ``blimp_fc``
fixture of tests/test_judgment_models.py: ``dlm`` is the z-scored pair delta of minus
the sentence length in words; ``good_first`` is 1 when the acceptable sentence was the
first of the two options on screen (the trials table's ``good_position`` is 1). The R
output holds every lme4 constant in tests/test_lmer.py and tests/test_judgment_models.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from acceptability import data
from acceptability.data.forced_choice import load_blimp_trials
from acceptability.stats.judgment_models import (
    fc_model_frame,
    pair_model_frame,
    sentence_model_frame,
)

REPO = Path(__file__).resolve().parents[1]
MODEL = "bert-large-cased_mlm"


def fc_frame() -> pd.DataFrame:
    """BLiMP FC trials: participant, pair_id, paradigm, chose_good, dlm, good_first."""
    trials = load_blimp_trials()
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
    fr = fc_model_frame(ds, scores)
    # fc_model_frame keeps the trials' row order, so good_position lines up row by row
    fr["good_first"] = (trials["good_position"].to_numpy() == 1).astype(int)
    fr["chose_good"] = fr["chose_good"].astype(int)
    return fr[["participant", "pair_id", "paradigm", "chose_good", "dlm", "good_first"]]


def main(out: Path) -> None:
    sys.path.insert(0, str(REPO))
    from tests.test_lmer import nested_frame

    out.mkdir(parents=True, exist_ok=True)
    ds, scores = data.load_li_adger(), data.load_li_adger_scores()
    sentences = sentence_model_frame(ds, scores, model=MODEL)
    sentences[["human", "score", "phenomenon", "type_id"]].to_csv(out / "sentence.csv", index=False)
    pairs = pair_model_frame(ds, scores, model=MODEL)
    pairs[["dh", "dlm", "phenomenon"]].to_csv(out / "pair.csv", index=False)
    nested_frame().to_csv(out / "nested.csv", index=False)
    fc_frame().to_csv(out / "fc.csv", index=False)
    print(f"wrote sentence.csv, pair.csv, nested.csv, fc.csv to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
