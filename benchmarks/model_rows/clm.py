"""Timing rows of clm beside ordinal's (issue 44, item 8): every clm fit of
tests/stats/mixed/test_ordinal.py and test_clm_full.py on wine and soup (R:
benchmarks/model_rows/clm.R, the same models with ordinal's defaults), and the profile
intervals of the wine fit (ordinal's ``confint``).

benchmarks/bench_models.py times each row beside ``Rscript benchmarks/model_rows/clm.R REPS``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.stats.mixed import clm

FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"
WF = "rating ~ temp + contact"


def _wine() -> pd.DataFrame:
    w = pd.read_csv(FIXTURES / "ordinal" / "wine.csv.gz", dtype={"judge": str, "bottle": str})
    w["rating"] = pd.Categorical(w["rating"], categories=[1, 2, 3, 4, 5], ordered=True)
    w["w"] = np.tile([1, 2, 3], len(w) // 3)
    return w


def _soup() -> pd.DataFrame:
    s = pd.read_csv(FIXTURES / "clm_soup.csv.gz", dtype=str)
    s["SURENESS"] = pd.Categorical(s["SURENESS"].astype(int), categories=range(1, 7), ordered=True)
    return s


def timed() -> dict[str, tuple[str, Callable[[], object]]]:
    """Row name -> ("ordinal", a function fitting once and returning the fit)."""
    wine, soup = _wine(), _soup()
    counts = soup.groupby(["SURENESS", "PROD", "DAY"], observed=True).size().rename("n").reset_index()
    plain = clm(WF, wine)

    def profile():
        plain.confint()
        return plain

    fits: dict[str, Callable[[], object]] = {
        "clm_wine": lambda: clm(WF, wine),
        **{f"clm_wine_{link}": (lambda link=link: clm(WF, wine, link=link))
           for link in ("probit", "cloglog", "loglog", "cauchit")},
        **{f"clm_wine_{t}": (lambda t=t: clm(WF, wine, threshold=t))
           for t in ("equidistant", "symmetric", "symmetric2")},
        "clm_wine_nominal": lambda: clm(WF, wine, nominal="~contact"),
        "clm_wine_scale": lambda: clm(WF, wine, scale="~temp"),
        "clm_wine_nom_scale": lambda: clm("rating ~ temp", wine, nominal="~contact", scale="~temp"),
        "clm_wine_weights": lambda: clm(WF, wine, weights="w"),
        "clm_soup_nominal": lambda: clm("SURENESS ~ PROD", soup, nominal="~DAY"),
        "clm_soup_scale": lambda: clm("SURENESS ~ PRODID", soup, scale="~PROD", link="probit"),
        "clm_soup_symmetric2": lambda: clm("SURENESS ~ PROD + DAY", soup, threshold="symmetric2", link="cloglog"),
        "clm_soup_weights": lambda: clm("SURENESS ~ PROD + DAY", counts, weights="n"),
        "clm_wine_profile": profile,
    }
    return {name: ("ordinal", fn) for name, fn in fits.items()}
