"""Timing rows of emmeans beside R's emmeans 1.8.4-1 (issue 44, item 7): the marginal means
and pairs of tests/stats/mixed/test_emmeans.py on fits made once (R:
benchmarks/model_rows/emmeans.R, the same calls, each summarised as R computes its tests
only then). Each row's work returns the fit it worked on; benchmarks/bench_models.py times
the rows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from acceptability.stats.mixed import clm, clmm, emmeans, glmer, lmer

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


def _fits() -> dict[str, object]:
    oats = pd.read_csv(FIXTURES / "emmeans_oats.csv", dtype={"B": str, "V": str, "N": str})
    cbpp = pd.read_csv(FIXTURES / "lme4" / "cbpp.csv.gz", dtype={"herd": str, "period": str})
    wine = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"judge": str, "bottle": str})
    wine["rating"] = pd.Categorical(wine["rating"], categories=[1, 2, 3, 4, 5], ordered=True)
    return {"oats": lmer("Y ~ N * V + (1 | B/V)", oats),
            "cbpp": glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)", cbpp),
            "clm": clm("rating ~ temp * contact", wine),
            "clmm": clmm("rating ~ temp * contact + (1 | judge)", wine)}


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> ("emmeans", a function computing the tables once and returning the fit)."""
    f = _fits()

    def work(name: str, *calls: dict) -> Callable[[], object]:
        def run() -> object:
            for kwargs in calls:
                emmeans(f[name], **kwargs)
            return f[name]
        return run

    by = {"specs": "N", "by": "V"}
    rows = {
        "emmeans_oats_kr_by": work("oats", by, {**by, "pairwise": True}),
        "emmeans_oats_satterthwaite_by": work("oats", {**by, "lmer_df": "satterthwaite"},
                                              {**by, "lmer_df": "satterthwaite", "pairwise": True}),
        "emmeans_oats_asymptotic_mvt": work("oats", {**by, "lmer_df": "asymptotic", "pairwise": True,
                                                     "adjust": "mvt"}),
        "emmeans_cbpp_response": work("cbpp", {"specs": "period", "type": "response"},
                                      {"specs": "period", "type": "response", "pairwise": True}),
        "emmeans_clm_latent_prob": work("clm", {"specs": "temp", "by": "contact", "pairwise": True},
                                        {"specs": "rating", "by": "temp", "mode": "prob"}),
        "emmeans_clmm_latent_prob": work("clmm", {"specs": "temp", "by": "contact", "pairwise": True},
                                         {"specs": "rating", "by": "temp", "mode": "prob"}),
    }
    return {name: ("emmeans", fn) for name, fn in rows.items()}

