"""The fit-times table of docs/mixed-models.md (section "Fit times") and the README's sentence
on it are docs/speed/models.csv, which ``benchmarks/bench_models.py --repeats 9 --nsim 0 --out
docs/speed/models.csv`` wrote in one run (R's time and ours for each model, at the CSV's
precision); and every model takes at most R's time."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

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


@pytest.mark.parametrize("model", list(ROWS["model"]))
def test_ours_takes_at_most_r_time(model):
    assert float(ROWS.set_index("model").loc[model, "ratio"]) <= 1.0


def test_the_readme_states_the_range_of_ratios():
    ratios = ROWS["ratio"].astype(float)
    low, high = ROWS["ratio"][ratios.idxmin()], ROWS["ratio"][ratios.idxmax()]
    readme = " ".join((ROOT / "README.md").read_text().split())
    said = (f"each of its {len(ROWS)} fits, F tests and profiles takes {low} to {high} times R's time "
            f"(one run on an {ROWS['cpu'].iloc[0]}")
    assert said in readme
