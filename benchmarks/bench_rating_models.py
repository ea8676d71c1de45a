"""Fit times of stats.rating_model on all of MegaAcceptability v1: 249,990 ratings, 50,000
items crossed with 729 participants.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_rating_models.py \\
        [--reps N] [--clmm]

Scores: the SLOR of a trigram model of AO-CHILDES (tests/stats/ratings/test_rating_model.py's
childes_trigram / slor_scores). Times, each the median of N runs: building the frame
(``stats.rating_model_frame``: norming within participant, z-scoring the scores), the lmer
fit of the default `RATING_FORMULA` on it (``stats.lmer``) and of the crossed formula that
lme4 was timed on (`CROSSED`, the former default; lme4 1.1.31 takes 14-32 s on the same
frame and 2 cores, and with its default optimiser stops short of the optimum: see
benchmarks/rating_models.R). ``--clmm`` adds one clmm fit of `RATING_CLMM_FORMULA` (Laplace).
Prints the CPU beside the times.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from acceptability import data, stats
from acceptability.stats.mixed import SingularFitWarning
from acceptability.stats.ratings.models import ordinal_ratings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.stats.ratings.test_rating_model import (  # noqa: E402
    CROSSED,
    childes_trigram,
    slor_scores,
)


def cpu() -> str:
    """The CPU's model name (lscpu), else the platform's processor string."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return platform.processor() or "unknown CPU"
    return next((line.split(":", 1)[1].strip() for line in out.splitlines()
                 if line.startswith("Model name")), "unknown CPU")


def median_time(fn, reps: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(reps):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs per timing (median)")
    parser.add_argument("--clmm", action="store_true", help="also time one clmm fit")
    args = parser.parse_args()
    ds = data.load_megaacceptability()
    scores = slor_scores(ds, childes_trigram())
    t_frame, frame = median_time(lambda: stats.rating_model_frame(ds, scores), args.reps)
    print(f"CPU: {cpu()}, {len(frame)} ratings; rating_model_frame {t_frame:.2f} s")
    for formula in (stats.RATING_FORMULA, CROSSED):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SingularFitWarning)  # CROSSED's participant term
            t_lmer, m = median_time(lambda f=formula: stats.lmer(f, frame), args.reps)
        print(f"lmer {formula}: {t_lmer:.2f} s (median of {args.reps}); groups "
              f"{m.ngrps.to_dict()}, REML logLik {m.logLik:.4f}, lm_z {m.fixef['lm_z']:.5f}")
    if args.clmm:
        ordinal = frame.assign(response=ordinal_ratings(frame))
        t_clmm, c = median_time(lambda: stats.clmm(stats.RATING_CLMM_FORMULA, ordinal), 1)
        print(f"clmm {t_clmm:.1f} s (one fit); logLik {c.logLik:.4f}, lm_z "
              f"{c.coef['lm_z']:.5f}, SDs {c.ST.round(4).to_dict()}")


if __name__ == "__main__":
    main()
