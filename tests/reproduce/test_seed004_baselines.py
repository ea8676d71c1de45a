"""Seed 004's Table 1 baselines trained on the partial AO-CHILDES corpus here: the
5-gram word and tag models, their oracle and the linear rules on Zorro and BLiMP, the
numbers docs/papers.md shows beside the paper's (benchmarks/seed004_baselines.py prints
them). About three minutes: the tagger (reports.cli.seed004.TAGGER) and the scoring of
226,000 benchmark sentences by two models."""

from __future__ import annotations

import pytest

from acceptability import data
from tests.conftest import need_data, need_module

need_module("pycrfsuite")

from acceptability.reports.cli.seed004 import quick_baselines, seed004_table  # noqa: E402


@pytest.fixture(scope="module")
def baselines():
    need_data("aochildes")
    from acceptability.data.loaders.childes import load_childes

    return quick_baselines(load_childes())


@pytest.mark.slow  # trains the tagger and two 5-gram models: over a minute
@pytest.mark.parametrize("name, averages, fractions", [
    ("zorro", {"5-word": 58.16, "5-tag": 58.02, "oracle": 72.33, "rules": 94.01},
     {"5-word": "5/23", "5-tag": "3/23", "oracle": "11/23", "rules": "21/23",
      "either": "6/23"}),
    ("blimp", {"5-word": 52.20, "5-tag": 52.06, "oracle": 62.53, "rules": 82.83},
     {"5-word": "22/65", "5-tag": "21/65", "oracle": "34/65", "rules": "57/65",
      "either": "29/65"}),
])
def test_table_1_on_the_partial_corpus(baselines, name, averages, fractions):
    need_data(name)
    ds = data.load_zorro() if name == "zorro" else data.load_blimp()
    table = seed004_table(ds, baselines)
    got = {k: float(table.loc["average", k]) for k in averages}
    assert got == averages
    frac = table.loc["fraction >= BabyBERTa (seed 004)"]
    assert {k: frac[k] for k in fractions} == fractions
