"""Fit times of the LI-Adger sentence-level judgment model: stats.lmer, stats.brm, lme4.

    human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)
    (human ME judgments vs z-scored bert-large-cased PLL; 4176 sentences)

Runs lme4 through ``Rscript benchmarks/lme4_reference.R`` when R and lme4 are installed
(Debian: r-base-core r-cran-lme4) and prints estimates and times side by side.
Usage: python benchmarks/bench_models.py [--draws N] [--repeats K]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability import data
from acceptability.stats.brm import brm
from acceptability.stats.judgment_models import SENTENCE_FORMULA, sentence_model_frame
from acceptability.stats.lmer import lmer

R_SCRIPT = Path(__file__).with_name("lme4_reference.R")


def run_lme4(frame: pd.DataFrame) -> pd.Series | None:
    """lme4's estimates and median REML fit time (s), or None without R/lme4."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lme4.csv"
        frame[["human", "score", "phenomenon", "type_id"]].to_csv(Path(tmp) / "sentence.csv",
                                                                   index=False)
        proc = subprocess.run(["Rscript", str(R_SCRIPT), tmp, str(out)],
                              capture_output=True, text=True, check=False)
        if proc.returncode:
            print(f"lme4 reference failed:\n{proc.stderr[-2000:]}")
            return None
        values = pd.read_csv(out).set_index("name")["value"]
        return values[values.index.str.startswith("sentence|")].rename(lambda n: n[9:])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=1000, help="brm draws (and tuning steps) per chain")
    ap.add_argument("--repeats", type=int, default=3, help="lmer fits to time (median)")
    args = ap.parse_args()

    frame = sentence_model_frame(data.load_li_adger(), data.load_li_adger_scores(),
                                 model="bert-large-cased_mlm")
    times = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit is singular, as in lme4; reported below
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            m = lmer(SENTENCE_FORMULA, frame)
            times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b = brm(SENTENCE_FORMULA, frame, draws=args.draws, tune=args.draws)
        t_brm = time.perf_counter() - t0
        ml_loglik = m.refit_ml().logLik
    r = run_lme4(frame)

    vc = m.VarCorr
    rows = {
        "fixef (Intercept)": (m.fixef["(Intercept)"], "REML|fixef|(Intercept)"),
        "fixef score": (m.fixef["score"], "REML|fixef|score"),
        "SE (Intercept)": (m.se["(Intercept)"], "REML|se|(Intercept)"),
        "SE score": (m.se["score"], "REML|se|score"),
        "var type (Intercept)": (vc.vcov.iloc[0], "REML|vcov|phenomenon:type_id|(Intercept)|"),
        "var phenomenon (Intercept)": (vc.vcov.iloc[1], "REML|vcov|phenomenon|(Intercept)|"),
        "var phenomenon score": (vc.vcov.iloc[2], "REML|vcov|phenomenon|score|"),
        "cov phenomenon (Intercept),score": (vc.vcov.iloc[3], "REML|vcov|phenomenon|(Intercept)|score"),
        "residual variance": (vc.vcov.iloc[4], "REML|vcov|Residual||"),
        "logLik (REML)": (m.logLik, "REML|logLik"),
        "logLik (ML)": (ml_loglik, "ML|logLik"),
    }
    table = pd.DataFrame({
        "stats.lmer": {k: v for k, (v, _) in rows.items()},
        "lme4": {k: (r[key] if r is not None else np.nan) for k, (_, key) in rows.items()},
    })
    table["abs diff"] = (table["stats.lmer"] - table["lme4"]).abs()
    print(f"LI-Adger sentence model: {SENTENCE_FORMULA}  (n = {m.nobs})\n")
    print(table.to_string(float_format=lambda v: f"{v:.6g}"))
    post = b.draws("score")
    summ = b.summary()
    s = b.settings
    print(f"\nstats.brm ({s['sampler']}, {s['chains']} chains x {s['draws']} draws, "
          f"{s['tune']} tuning, seed {s['seed']}): slope {post.mean():.4f} (SD {post.std():.4f}), "
          f"R-hat max {summ['r_hat'].max():.3f} (fixed effects and sigma "
          f"{summ.loc[['Intercept', 'score', 'sigma'], 'r_hat'].max():.3f}), "
          f"ESS bulk min {summ['ess_bulk'].min():.0f}")
    fit_times = pd.Series({
        "lme4::lmer (R, REML)": r["fit_seconds"] if r is not None else np.nan,
        "stats.lmer (statsmodels MixedLM, REML)": float(np.median(times)),
        f"stats.brm ({s['sampler']}, {s['chains']}x{s['draws']}, incl. compile)": t_brm,
    }, name="fit seconds")
    print("\n" + fit_times.to_frame().to_string(float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
