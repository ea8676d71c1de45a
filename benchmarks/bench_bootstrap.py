"""Benchmark: 10,000 cluster-bootstrap resamples of every ``evaluate`` metric for the
8 published models on LI-Adger, against a straightforward loop that builds each
resampled dataset and calls ``evaluate`` (timed on --loop-n resamples, extrapolated).

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_bootstrap.py
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from acceptability import data, stats
from acceptability.stats.inference.bootstrap import bootstrap
from acceptability.stats.inference.resample import (
    counts_from_indices,
    resample_dataset,
    resampling_units,
)


def timed(fn) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10_000, help="bootstrap resamples")
    ap.add_argument("--loop-n", type=int, default=20, help="resamples timed for the loop")
    ap.add_argument("--cluster", default="type_id")
    args = ap.parse_args()
    ds, sc = data.load_li_adger(), data.load_li_adger_scores()
    stats.evaluate(ds, sc)  # warm imports and caches

    for method in ("percentile", "bca"):
        wall, cpu, table = timed(lambda m=method: bootstrap(
            stats.evaluate, ds, sc, n_boot=args.n, cluster=args.cluster, method=m, seed=0))
        print(f"vectorised {method:10s}: {args.n} resamples x {len(table)} (model, metric) "
              f"cells, {table.attrs['n_units']} units: {wall:.2f} s wall, {cpu:.2f} s CPU")
        if method == "percentile":
            fast_wall, fast_cpu = wall, cpu

    units = resampling_units(ds, args.cluster)
    idx = np.random.default_rng(0).integers(0, units.n, (args.loop_n, units.n))

    def loop():
        for counts in counts_from_indices(idx, units.n):
            stats.evaluate(*resample_dataset(ds, sc, units, counts))

    wall, cpu, _ = timed(loop)
    scale = args.n / args.loop_n
    print(f"loop over evaluate: {args.loop_n} resamples {wall:.2f} s wall, {cpu:.2f} s CPU; "
          f"extrapolated to {args.n}: {wall * scale:.0f} s wall, {cpu * scale:.0f} s CPU")
    print(f"speed-up (percentile): {wall * scale / fast_wall:.0f}x wall, "
          f"{cpu * scale / fast_cpu:.0f}x CPU")


if __name__ == "__main__":
    main()
