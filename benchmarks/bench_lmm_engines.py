"""Mixed-model engines against lme4 on the same data, in one run (issue 12: choose the
engine by measurement). Prints per model: each engine's median fit time, its logLik minus
lme4's and its largest fixed-effect difference; `refused` where an engine cannot fit it.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_lmm_engines.py

Needs Rscript with lme4 (Debian: r-base-core r-cran-lme4) and, for the `glmm` column,
`pip install glmm` (PyPI; Rust kernel, numpy only, LGPL-3.0+).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import warnings
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability import data, stats

HERE = Path(__file__).resolve().parent
FORMULAS = {  # (formula, family); cbind(successes, failures) is the binomial response
    "sleepstudy": ("Reaction ~ Days + (Days | Subject)", "gaussian"),
    "penicillin": ("diameter ~ 1 + (1 | plate) + (1 | sample)", "gaussian"),
    "li_adger_sentence": (stats.SENTENCE_FORMULA, "gaussian"),
    "cbpp": ("cbind(incidence, failures) ~ period + (1 | herd)", "binomial"),
    "insteval": ("y ~ service + (1 | s) + (1 | d)", "gaussian"),
}


def median_time(fit, reps: int) -> tuple[float, object]:
    times, m = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        m = fit()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), m


def glmm_fit(frame: pd.DataFrame, formula: str, family: str):
    import glmm

    return glmm.fit(frame, formula, family)


def have_glmm() -> bool:
    import importlib.util

    return importlib.util.find_spec("glmm") is not None


def glmm_row(frame, formula, family, ref, ref_fixef, reps) -> dict:
    try:
        t, m = median_time(lambda: glmm_fit(frame, formula, family), reps)
    except Exception as err:  # record what the engine refuses
        return {"glmm s": f"refused: {type(err).__name__}"}
    return {"glmm s": t, "glmm / lme4": t / ref["seconds"], "glmm dlogLik": m.loglik - ref["logLik"],
            "glmm max |dfixef|": np.abs(np.asarray(m.beta) - ref_fixef).max()}


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    ds, sc = data.load_li_adger(), data.load_li_adger_scores()
    stats.sentence_model_frame(ds, sc, model="bert-large-cased_mlm").dropna(
        subset=["human", "score"]).to_csv(tmp / "li_adger_sentence.csv", index=False)
    r = subprocess.run(["Rscript", str(HERE / "lmm_engines.R"), str(tmp)], check=True,
                       capture_output=True, text=True)
    lme4 = pd.read_csv(StringIO(r.stdout)).set_index("model")
    rows = []
    for name, (formula, family) in FORMULAS.items():
        frame = pd.read_csv(tmp / f"{name}.csv", dtype={"period": str})  # cbpp: a factor
        ref = lme4.loc[name]
        ref_fixef = np.array([float(v) for v in str(ref["fixef"]).split(";")])
        row = {"model": name, "rows": len(frame), "lme4 s": ref["seconds"]}
        reps = 3 if name == "insteval" else 5
        if have_glmm():
            row |= glmm_row(frame, formula, family, ref, ref_fixef, reps)
        else:
            row["glmm s"] = "not installed (pip install glmm)"
        if family == "gaussian":  # stats.lmer has no GLMM; it refuses crossed factors at once
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t, m = median_time(lambda f=frame, fo=formula: stats.lmer(fo, f), 1)
                row |= {"stats.lmer s": t, "stats.lmer dlogLik": m.logLik - ref["logLik"]}
            except Exception as err:
                row["stats.lmer s"] = f"refused: {type(err).__name__}"
        rows.append(row)
    pd.set_option("display.width", 200)
    print(pd.DataFrame(rows).to_string(index=False, float_format="{:.3g}".format))


if __name__ == "__main__":
    sys.exit(main())
