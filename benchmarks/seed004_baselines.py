"""Seed 004's Table 1 on the partial AO-CHILDES corpus: 5-gram word and tag models, their
oracle and the linear rules on Zorro and BLiMP, beside the paper's printed numbers.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/seed004_baselines.py

Prints, per benchmark, the average accuracy over paradigms of each system, ours beside
seed 004's (its Tables 1, 3 and 5), and the number of paradigms where each is at least as
accurate as BabyBERTa (the paper's printed per-paradigm values), with the time each step
took. The tagger is ``reports.cli.seed004.TAGGER``'s, as in tests/reproduce/test_seed004_baselines.py.
"""

from __future__ import annotations

import time

from acceptability import data
from acceptability.data.loaders.childes import load_childes
from acceptability.data.loaders.published import SEED_004_AVERAGES
from acceptability.reports.cli.seed004 import quick_baselines, seed004_table


def main() -> None:
    t0 = time.perf_counter()
    corpus = load_childes()
    print(f"corpus: {len(corpus):,} utterances, {corpus['text'].str.split().str.len().sum():,}"
          f" tokens ({time.perf_counter() - t0:.1f} s)")
    t0 = time.perf_counter()
    baselines = quick_baselines(corpus)
    print(f"tagger and 5-gram models: {time.perf_counter() - t0:.1f} s")
    for name, load in (("zorro", data.load_zorro), ("blimp", data.load_blimp)):
        t0 = time.perf_counter()
        table = seed004_table(load(), baselines)
        print(f"\n{name}: {time.perf_counter() - t0:.1f} s")
        paper = SEED_004_AVERAGES[name]
        rows = [("5-word", "word"), ("5-tag", "tag"), ("oracle", "oracle"), ("rules", "rule")]
        frac = table.index[-1]
        print(f"{'system':8} {'ours':>7} {'seed 004':>9} {'>= BabyBERTa':>13}")
        for ours, key in rows:
            print(f"{ours:8} {table.loc['average', ours]:7.2f} {paper[key]:9.2f} "
                  f"{table.loc[frac, ours]:>13}")
        print(f"{'either':8} {'':7} {'':9} {table.loc[frac, 'either']:>13}")


if __name__ == "__main__":
    main()
