"""Write the frame that benchmarks/latin_square_models.R fits with lme4 and ordinal.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/latin_square_frame.py
    Rscript benchmarks/latin_square_models.R

Writes tests/fixtures/rating_models/latin_square.csv.gz: the rows of
``stats.rating_model_frame`` (participant, sentence_id, pair_id, condition, response,
response_z, lm_z; numbers with 17 significant digits, exact in R) of TurBLiMP's human study
as a user brings it (tests/latin_square.py: 30 participants, 216 pairs in two Latin-square
lists, 6,480 Likert 1-7 ratings) and the log-probabilities of the tiny GPT-2 of
tests/scoring_fixtures.py (a seeded random model: ``lm_z`` is a predictor here, not a
finding). tests/stats/ratings/test_latin_square_model.py builds the frame again
(``latin_square``) and checks it equal before comparing fits.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "rating_models" / "latin_square.csv.gz"
COLUMNS = ["participant", "sentence_id", "pair_id", "condition", "response", "response_z",
           "lm_z"]


def main() -> None:
    sys.path.insert(0, str(REPO))
    from acceptability import stats
    from tests.stats.ratings.test_latin_square_model import latin_square

    with tempfile.TemporaryDirectory() as folder:
        ds, scores = latin_square(Path(folder))
        frame = stats.rating_model_frame(ds, scores)
    frame[COLUMNS].to_csv(OUT, index=False, float_format="%.17g",
                          compression={"method": "gzip", "mtime": 0})
    print(f"wrote {OUT}: {len(frame)} rows")


if __name__ == "__main__":
    main()
