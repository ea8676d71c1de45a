"""The fit-times table of docs/mixed-models.md (section "Fit times") and the README's sentence
on it are docs/speed/models.csv, which ``benchmarks/bench_models.py --repeats 9 --nsim 0 --out
docs/speed/models.csv`` wrote in one run (R's time and ours for each model, at the CSV's
precision); and every row but the two the page names takes at most R's time."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
ROWS = pd.read_csv(ROOT / "docs" / "speed" / "models.csv",
                   dtype={"reference_s": str, "ours_s": str, "ratio": str})
PAGE = (ROOT / "docs" / "mixed-models.md").read_text()
HEADER = ["| model | rows | R package | R (s) | ours (s) | ours / R |", "|---|---|---|---|---|---|"]



def table_rows(rows: pd.DataFrame) -> list[str]:
    return [f"| `{r.model}` | {r.rows:,} | {r.reference} | {r.reference_s} | {r.ours_s} | {r.ratio} |"
            for r in rows.itertuples()]


def page_table() -> list[str]:
    section = PAGE.split("\nFit times", 1)[1]
    start = section.index(HEADER[0])
    lines = section[start:].split("\n\n", 1)[0].splitlines()
    assert lines[:2] == HEADER
    return lines[2:]


def test_the_page_shows_every_row_of_the_run():
    assert page_table() == table_rows(ROWS)
    assert ROWS["cpu"].nunique() == 1 and ROWS["cpu"].iloc[0] in PAGE


# The rows slower than R's, each named on the page (drop1 with Satterthwaite's df, a profile).
SLOWER = ["drop1_ham_satterthwaite", "profile_sleepstudy"]


def test_every_row_but_the_named_ones_takes_at_most_r_time():
    ratios = ROWS.set_index("model")["ratio"].astype(float)
    assert sorted(ratios.index[ratios > 1]) == sorted(SLOWER)
    text = " ".join(PAGE.split())
    slower = ratios[SLOWER]
    assert (f"{len(ROWS) - len(SLOWER)} of the {len(ROWS)} rows take at most R's time. Two take "
            f"{slower.min():.2f}-{slower.max():.2f} times R's") in text
    clmm = ratios[ratios.index.str.startswith("clmm_")]
    clm = ratios[ratios.index.str.startswith("clm_")]
    assert clm.max() <= 1 and clmm.max() <= 1  # issue 44: ordinal's time beaten on every clm and clmm
    assert (f"Every `clmm` row takes {clmm.min():.2f}-{clmm.max():.2f} of ordinal's time, every "
            f"`clm` row {clm.min():.2f}-{clm.max():.2f}.") in text


def test_the_readme_states_the_range_of_ratios():
    ratios = ROWS["ratio"].astype(float)
    low, high = ROWS["ratio"][ratios.idxmin()], ROWS["ratio"][ratios.idxmax()]
    readme = " ".join((ROOT / "README.md").read_text().split())
    said = (f"each of its {len(ROWS)} fits, tests, tables and simulations takes {low} to {high} times "
            f"R's time, {len(ROWS) - len(SLOWER)} of them at most R's (one run on an {ROWS['cpu'].iloc[0]}")
    assert said in readme
