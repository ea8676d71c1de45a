"""Write the frames that benchmarks/rating_models.R fits with lme4 and ordinal.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/rating_models_frames.py \
        [--full /tmp/mega_full.csv.gz]
    Rscript benchmarks/rating_models.R [/tmp/mega_full.csv.gz]

Writes tests/fixtures/rating_models/lau2020_none.csv.gz and mega_40verbs.csv.gz, the rows
of ``stats.rating_model_frame`` (columns participant, item, response, response_z, lm_z;
numbers with 17 significant digits, exact in R) that tests/stats/ratings/test_rating_model.py
builds again and fits:

- lau2020_none: Lau et al. (2020)'s ratings without context, all 4,107 (no participant
  ids: response_z z-scored over all ratings);
- mega_40verbs: MegaAcceptability v1's ratings of the 40 verbs first by name (Python's
  sorted, R's radix order), all their 50 frames, normed within participant over these
  ratings alone (``rating_model_frame(..., ratings=subset)``).

``lm_z`` is the z-scored SLOR of a Kneser-Ney trigram model of the AO-CHILDES utterances
(``scoring.train_ngram``, unigram from the same model): a real model score built without
the hub (test_rating_model.childes_trigram / slor_scores). ``--full PATH`` also writes the
frame of all 249,990 MegaAcceptability ratings (normed within participant over all of
them), outside the repository: R keeps only its fingerprint.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "tests" / "fixtures" / "rating_models"
COLUMNS = ["participant", "item", "response", "response_z", "lm_z"]


def write(frame, path: Path) -> None:
    frame[COLUMNS].to_csv(path, index=False, float_format="%.17g",
                          compression={"method": "gzip", "mtime": 0})
    print(f"wrote {path}: {len(frame)} rows")


def main(full: Path | None) -> None:
    sys.path.insert(0, str(REPO))
    from acceptability import stats
    from tests.stats.ratings.test_rating_model import fixture_datasets

    OUT.mkdir(parents=True, exist_ok=True)
    for name, (ds, scores, ratings) in fixture_datasets().items():
        write(stats.rating_model_frame(ds, scores, ratings=ratings), OUT / f"{name}.csv.gz")
        if full is not None and ratings is not None:
            write(stats.rating_model_frame(ds, scores), full)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", type=Path, help="also write the full MegaAcceptability frame")
    main(parser.parse_args().full)
