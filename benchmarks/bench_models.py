"""Fit times of stats.lmer / stats.glmer beside lme4's, model by model, in one run.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_models.py

Models: lme4's sleepstudy (correlated and ``||``), Penicillin (crossed), Pastes (nested),
cbpp (binomial GLMM, Laplace and nAGQ=9), InstEval (73k rows, crossed), the LI-Adger
sentence and pair models, BLiMP's forced-choice trials (crossed participant, pair and
paradigm) and lmerTest's ham with a factor-valued random slope: ``(0 + Product | Consumer)``,
``(Product | Consumer)`` and the first with Product's indicators as numeric columns. lme4 runs through ``Rscript benchmarks/lmm_engines.R`` with its default settings
(Debian: r-base-core r-cran-lme4); ours run in this process. Prints the median times, the
ratio ours / lme4 and the logLik difference, then the time of
``confint(method="boot", nsim=500)`` on the LI-Adger sentence model (goal: under 60 s).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability import stats

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.lme4_data import lme4_data  # noqa: E402

# name: (formula, family or None for lmer, data set or frame file, nAGQ)
MODELS = {
    "sleepstudy": ("Reaction ~ Days + (Days | Subject)", None, "sleepstudy", 1),
    "sleepstudy_uncorr": ("Reaction ~ Days + (Days || Subject)", None, "sleepstudy", 1),
    "penicillin": ("diameter ~ 1 + (1 | plate) + (1 | sample)", None, "penicillin", 1),
    "pastes": ("strength ~ 1 + (1 | batch/cask)", None, "pastes", 1),
    "cbpp": ("cbind(incidence, size - incidence) ~ period + (1 | herd)", "binomial", "cbpp", 1),
    "cbpp_agq9": ("cbind(incidence, size - incidence) ~ period + (1 | herd)", "binomial", "cbpp", 9),
    "li_adger_sentence": (stats.SENTENCE_FORMULA, None, "sentence.csv", 1),
    "li_adger_pair": (stats.PAIR_FORMULA, None, "pair.csv", 1),
    "blimp_fc": (stats.FC_FORMULA, "binomial", "fc.csv", 1),
    "insteval": ("y ~ service + (1 | s) + (1 | d)", None, "insteval", 1),
    "ham_factor": ("Informed.liking ~ Product + (0 + Product | Consumer)", None, "ham", 1),
    "ham_factor_int": ("Informed.liking ~ Product + (Product | Consumer)", None, "ham", 1),
    "ham_dummies": ("Informed.liking ~ Product + (0 + P1 + P2 + P3 + P4 | Consumer)", None, "ham", 1),
}
FACTORS = {"phenomenon": str, "type_id": str, "participant": str, "pair_id": str, "paradigm": str}


def frames(tmp: Path) -> dict[str, pd.DataFrame]:
    subprocess.run([sys.executable, str(HERE / "lme4_frames.py"), str(tmp)], check=True,
                   capture_output=True)
    out = {}
    for name, (_, _, source, _) in MODELS.items():
        if source.endswith(".csv"):
            out[name] = pd.read_csv(tmp / source, dtype=FACTORS)
        else:
            out[name] = lme4_data(source)
        if source == "ham":  # the indicators of Product as numeric columns P1..P4
            out[name] = out[name].assign(**{f"P{k}": (out[name]["Product"] == k).astype(float)
                                            for k in "1234"})
    return out


def run_lme4(tmp: Path, reps: int) -> pd.DataFrame | None:
    if shutil.which("Rscript") is None:
        return None
    r = subprocess.run(["Rscript", str(HERE / "lmm_engines.R"), str(tmp), str(reps)],
                       capture_output=True, text=True, check=True)
    return pd.read_csv(StringIO(r.stdout)).set_index("model")


def fit(name: str, frame: pd.DataFrame):
    formula, family, _, nagq = MODELS[name]
    if family is None:
        return stats.lmer(formula, frame)
    return stats.glmer(formula, frame, family=family, nAGQ=nagq)


def median_time(name: str, frame: pd.DataFrame, reps: int) -> tuple[float, object]:
    times, m = [], None
    for _ in range(reps):
        t0 = time.perf_counter()
        m = fit(name, frame)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="fits to time per model (median)")
    ap.add_argument("--nsim", type=int, default=500, help="bootstrap refits (0: skip)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    data = frames(tmp)
    lme4 = run_lme4(tmp, args.repeats)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # singular fits are reported by both; not timed here
        for name, frame in data.items():
            reps = min(args.repeats, 3) if name == "insteval" else args.repeats
            t, m = median_time(name, frame, reps)
            row = {"model": name, "rows": m.nobs, "engine": m.engine.split(" (")[0], "ours s": t}
            if lme4 is not None:
                ref = lme4.loc[name]
                row |= {"lme4 s": ref["seconds"], "ours / lme4": t / ref["seconds"],
                        "logLik - lme4": m.logLik - ref["logLik"]}
            rows.append(row)
        table = pd.DataFrame(rows)
        pd.set_option("display.width", 200)
        print(table.to_string(index=False, float_format="{:.3g}".format))
        if args.nsim:
            m = fit("li_adger_sentence", data["li_adger_sentence"])
            t0 = time.perf_counter()
            m.confint(method="boot", nsim=args.nsim)
            print(f"\nconfint(method='boot', nsim={args.nsim}) on the LI-Adger sentence model: "
                  f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
