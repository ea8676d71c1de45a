"""Write the frames that benchmarks/lme4_reference.R fits with lme4.

    python benchmarks/lme4_frames.py DIR && Rscript benchmarks/lme4_reference.R DIR

DIR/sentence.csv and DIR/pair.csv: LI-Adger human judgments against z-scored
bert-large-cased PLL, built by the package's own frame builders (the reference data are
read from $ACCEPTABILITY_DATA_DIR). DIR/nested.csv: the synthetic nested design of
tests/stats/mixed/test_lmer.py. DIR/fc.csv: BLiMP's human forced-choice trials (after the
validation's exclusions) with a real shallow predictor, built like the ``blimp_fc``
fixture of tests/stats/mixed/test_judgment.py: ``dlm`` is the z-scored pair delta of minus
the sentence length in words; ``good_first`` is 1 when the acceptable sentence was the
first of the two options on screen (the trials table's ``good_position`` is 1). The R
output holds every lme4 constant in tests/stats/mixed/test_lmer.py and tests/stats/mixed/test_judgment.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from acceptability import data
from acceptability.stats.ratings.judgment import pair_model_frame, sentence_model_frame

REPO = Path(__file__).resolve().parents[1]
MODEL = "bert-large-cased_mlm"


def main(out: Path) -> None:
    sys.path.insert(0, str(REPO))
    from tests.blimp_fc import blimp_fc_frame
    from tests.stats.mixed.test_lmer import nested_frame

    out.mkdir(parents=True, exist_ok=True)
    ds, scores = data.load_li_adger(), data.load_li_adger_scores()
    sentences = sentence_model_frame(ds, scores, model=MODEL)
    sentences[["human", "score", "phenomenon", "type_id"]].to_csv(out / "sentence.csv", index=False)
    pairs = pair_model_frame(ds, scores, model=MODEL)
    pairs[["dh", "dlm", "phenomenon"]].to_csv(out / "pair.csv", index=False)
    nested_frame().to_csv(out / "nested.csv", index=False)
    blimp_fc_frame().to_csv(out / "fc.csv", index=False)
    print(f"wrote sentence.csv, pair.csv, nested.csv, fc.csv to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
