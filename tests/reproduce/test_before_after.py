"""The README's before/after sentence on issue 45's redesign is docs/speed/before_after.csv,
which ``benchmarks/bench_before_after.py --base aebd182 --repeats 3 --k 3 --out
docs/speed/before_after.csv`` wrote in one run (the ratio of each task's time after to its
time before, at the CSV's precision)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_states_the_range_of_the_runs_ratios():
    rows = pd.read_csv(ROOT / "docs" / "speed" / "before_after.csv")
    assert rows["ratio"].round(2).equals((rows["after_s"] / rows["before_s"]).round(2))
    readme = " ".join((ROOT / "README.md").read_text().split())
    said = (f"`benchmarks/bench_before_after.py --base {rows['base'].iloc[0]} --repeats "
            f"{rows['repeats'].iloc[0]} --k 3`")
    assert said in readme
    assert (f"take {rows['ratio'].min():.2f} to {rows['ratio'].max():.2f} times their earlier "
            f"time (one run on an {rows['cpu'].iloc[0]})") in readme
