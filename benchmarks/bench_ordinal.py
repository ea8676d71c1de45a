"""Fit time of stats.clmm beside R's ordinal::clmm on the crossed MegaAcceptability design
(3000 ratings, 408 participants x 600 items), in one run.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_ordinal.py [--reps N]

ordinal runs through ``Rscript benchmarks/ordinal_reference.R --timing N`` with its default
settings (the median elapsed time of N fits); ours run in this process on the subset that
tests/stats/mixed/test_ordinal.py's mega_frame() builds, the same as the R script's. Prints
both medians, the ratio ordinal / ours and our logLik. benchmarks/bench_models.py times the same
fit (row mega_clmm) beside lme4's and lmerTest's rows, from the same mega_frame().
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from acceptability.stats import clmm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.stats.mixed.test_ordinal import MEGA_FORMULA, mega_frame  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="fits per side (median reported)")
    reps = parser.parse_args().reps
    frame = mega_frame()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        m = clmm(MEGA_FORMULA, frame)
        times.append(time.perf_counter() - start)
    ours = float(np.median(times))
    out = subprocess.run(["Rscript", str(HERE / "ordinal_reference.R"), "--timing", str(reps)],
                         check=True, capture_output=True, text=True).stdout
    theirs = float(next(line for line in out.splitlines() if line.startswith("seconds,")).split(",")[1])
    print(f"clmm {MEGA_FORMULA!r}: {m.nobs} rows, {m.ngrps.to_dict()}")
    print(f"ordinal::clmm {theirs:.2f} s, stats.clmm {ours:.2f} s (median of {reps}): "
          f"{theirs / ours:.1f}x faster; logLik {m.logLik:.4f}")


if __name__ == "__main__":
    main()
