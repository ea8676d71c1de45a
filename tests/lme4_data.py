"""lme4's canonical data sets (sleepstudy, Penicillin, Pastes, cbpp, InstEval), exported
from R's lme4 package by benchmarks/lme4_reference.R into tests/fixtures/lme4/."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent / "fixtures" / "lme4"
FACTORS = {  # columns that are factors in R: read as strings
    "sleepstudy": ["Subject"], "penicillin": ["plate", "sample"],
    "pastes": ["batch", "cask", "sample"], "cbpp": ["herd", "period"],
    "insteval": ["s", "d", "service", "dept"],
}


def lme4_data(name: str) -> pd.DataFrame:
    return pd.read_csv(HERE / f"{name}.csv.gz", dtype=dict.fromkeys(FACTORS[name], str))
