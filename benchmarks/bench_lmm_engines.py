"""Mixed-model engines against lme4 on the same data, in one run (issue 12: the engine was
chosen by measurement). Per model: glmm's own median fit time (called directly, without
this package's set-up), its logLik minus lme4's, its largest fixed-effect difference, and
`refused` where glmm cannot fit the structure (stats.lmer then optimises with lme4's
penalised least squares, stats/pls.py).

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_lmm_engines.py

Needs Rscript with lme4 (Debian: r-base-core r-cran-lme4). Measured before the choice
(lme4 1.1-31, 2 cores): glmm 0.6.2 fit 10 of 12 models at 0.02-0.46x lme4's time with LMM
logLik equal to 1e-4 and GLMM optima 0.0001-0.043 above lme4's (lme4 stops early; glmmTMB
agrees with glmm); lme-python 0.2.7 was 9.6x lme4 on InstEval and stopped at a worse
optimum on the LI-Adger sentence model; statsmodels' MixedLM refused crossed factors and
was 4-17x slower than lme4 on nested ones; pymer4 does not import with Debian's R 4.2.
"""

from __future__ import annotations

import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from bench_models import MODELS, frames, run_lme4

from acceptability.stats.mixed.formula import parse_formula


def glmm_row(name: str, frame: pd.DataFrame, ref: pd.Series, reps: int) -> dict:
    import time

    import glmm

    formula, family, _, nagq = MODELS[name]
    text = formula.replace("size - incidence", "failures")
    if "||" in text:
        return {"glmm s": "refused: (x || g)"}
    frame = frame.copy()
    for term in parse_formula(text).random:
        for f in term.factors:
            frame[f] = frame[f].astype(str)
    times, m = [], None
    try:
        for _ in range(reps):
            t0 = time.perf_counter()
            m = glmm.fit(frame, text, family or "gaussian", nagq=nagq)
            times.append(time.perf_counter() - t0)
    except ValueError as err:
        return {"glmm s": f"refused: {str(err)[:40]}"}
    t = float(np.median(times))
    fixef = np.array([float(v) for v in str(ref["fixef"]).split(";")])
    return {"glmm s": t, "glmm / lme4": t / ref["seconds"], "dlogLik": m.loglik - ref["logLik"],
            "max |dfixef|": np.abs(np.asarray(m.beta) - fixef).max()}


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    data = frames(tmp)
    lme4 = run_lme4(tmp, 5)
    if lme4 is None:
        raise SystemExit("needs Rscript with lme4")
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, frame in data.items():
            reps = 3 if name == "insteval" else 5
            row = {"model": name, "rows": len(frame), "lme4 s": lme4.loc[name, "seconds"]}
            rows.append(row | glmm_row(name, frame, lme4.loc[name], reps))
    pd.set_option("display.width", 200)
    print(pd.DataFrame(rows).to_string(index=False, float_format="{:.3g}".format))


if __name__ == "__main__":
    main()
