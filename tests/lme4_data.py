"""lme4's canonical data sets (sleepstudy, Penicillin, Pastes, cbpp, InstEval), exported
from R's lme4 package by benchmarks/lme4_reference.R into tests/fixtures/lme4/, and
lmerTest's ham and carrots, exported by benchmarks/lmertest_reference.R, and grouseticks and
VerbAgg summed to counts of "yes" per id x btype x situ (verbagg_agg), exported by
benchmarks/glmer_families.R (grouseticks also by benchmarks/glmer_profile.R); and MASS's oats
and R's CO2 with R's factor levels (``r_factors``), exported by
benchmarks/contrasts_reference.R."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent / "fixtures" / "lme4"
FACTORS = {  # columns that are factors in R: read as strings
    "sleepstudy": ["Subject"], "penicillin": ["plate", "sample"],
    "pastes": ["batch", "cask", "sample"], "cbpp": ["herd", "period"],
    "insteval": ["s", "d", "service", "dept"],
    "ham": ["Consumer", "Product", "Information", "Gender"],
    "carrots": ["Consumer", "Frequency", "Gender", "Age", "Homesize", "Work", "Income", "Product"],
    "grouseticks": ["INDEX", "BROOD", "YEAR", "LOCATION"],  # benchmarks/glmer_profile.R
    "verbagg_agg": ["id", "Gender", "btype", "situ"],  # benchmarks/glmer_families.R
}


def lme4_data(name: str) -> pd.DataFrame:
    return pd.read_csv(HERE / f"{name}.csv.gz", dtype=dict.fromkeys(FACTORS[name], str))


def r_factors(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """The data set's factors with R's levels and orderedness (tests/fixtures/
    contrasts_levels.csv, rows ``<prefix>.<column>``)."""
    levels = pd.read_csv(HERE.parent / "contrasts_levels.csv")
    for var, rows in levels[levels["variable"].str.startswith(prefix + ".")].groupby("variable"):
        name = var.split(".", 1)[1]
        frame[name] = pd.Categorical(frame[name], categories=list(rows["level"]),
                                     ordered=bool(rows["ordered"].iloc[0]))
    return frame
