"""Fit times of stats.lmer / glmer / glmer_nb / clmm beside R's, model by model, in one run.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_models.py \
        [--repeats N] [--nsim 0] [--out docs/speed/models.csv]

Models: lme4's sleepstudy (correlated and ``||``), Penicillin (crossed), Pastes (nested),
cbpp (binomial GLMM, Laplace and nAGQ=9), InstEval (73k rows, crossed), the LI-Adger
sentence and pair models, BLiMP's forced-choice trials (crossed participant, pair and
paradigm) and lmerTest's ham with a factor-valued random slope: ``(0 + Product | Consumer)``,
``(Product | Consumer)`` and the first with Product's indicators as numeric columns. Then
(issue 31, ``MORE``) the GLMM families and links of tests/stats/mixed/test_glmer_families.py
(cbpp probit and cloglog, a poisson with an offset, Gamma, inverse Gaussian and gaussian with
log links on sleepstudy, the negative binomial on grouseticks, the aggregated VerbAgg and
grouseticks with observation-level random effects, a weighted lmer), all beside lme4 (which
fits each of them); ordinal's wine ``clmm`` (Laplace and nAGQ = 10) and the crossed
MegaAcceptability ``clmm`` of tests/stats/mixed/test_ordinal.py beside ordinal; and two
things users wait for that are not fits: lmerTest's ``anova`` with Satterthwaite's and
Kenward-Roger's df on ham's 3-way model (the fit plus the table, both sides: lmerTest's fit
computes what Satterthwaite needs) and the profile intervals of the cbpp GLMM
(``confint(m, method = "profile")`` on a fitted model, lme4's spline of its profile).

R runs through ``Rscript benchmarks/lmm_engines.R`` with each package's default settings
(Debian: r-base-core r-cran-lme4, lmerTest, pbkrtest, ordinal); ours run in this process
after it. Both sides time alike: the median of ``--repeats`` timings (InstEval: at most 3),
each the mean of k runs, k chosen so that one timing lasts about 0.2 s. Prints the median
times, the ratio ours / R and the logLik difference (0 up to each optimiser's tolerance),
then the time of ``confint(method="boot", nsim=500)`` on the LI-Adger sentence model (goal:
under 60 s). ``--out`` writes the table (model, rows, reference, reference_s, ours_s, ratio,
cpu) that docs/mixed-models.md's "Fit times" shows (tests/reproduce/test_model_speed.py).

The rows of what R users do after the fit (issue 44: contrasts, emmeans, ordinal models in
full, model selection, simulation) come from ``benchmarks/model_rows/``: each ``<topic>.py``
there has ``timed()`` (row name -> the R package and the work, returning the model worked on)
and its ``<topic>.R`` prints R's side (``model,seconds,logLik``), timed as lmm_engines.R does.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability import stats
from acceptability.data.io.atomic import write_csv

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from tests.lme4_data import lme4_data  # noqa: E402
from tests.stats.mixed.test_glmer_families import CF, RF, TF, cbpp, sleep  # noqa: E402
from tests.stats.mixed.test_ordinal import MEGA_FORMULA, WINE_FORMULA, mega_frame, wine  # noqa: E402

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
HAM3 = "Informed.liking ~ Product*Information*Gender + (1 | Consumer) + (1 | Product:Consumer)"


@dataclass
class Timed:
    """What one row times (``run``: returns the fitted model) and the R package timed beside it."""

    reference: str
    run: Callable[[], object]


def _anova(ham: pd.DataFrame, ddf: str):
    m = stats.lmer(HAM3, ham)
    m.anova(ddf=ddf)
    return m


def _profile(m):
    m.confint(method="profile")
    return m


def more_models(mega: pd.DataFrame) -> dict[str, Timed]:
    """The rows added with issue 31, each beside the R fit of the same name in lmm_engines.R
    (the data as tests/stats/mixed/test_glmer_families.py and test_ordinal.py build them)."""
    c, s, g, va, w, ham = cbpp(), sleep(), lme4_data("grouseticks"), lme4_data("verbagg_agg"), wine(), \
        lme4_data("ham")
    fitted = stats.glmer(CF, c)
    return {
        "cbpp_probit": Timed("lme4", lambda: stats.glmer(CF, c, link="probit")),
        "cbpp_cloglog": Timed("lme4", lambda: stats.glmer(CF, c, link="cloglog")),
        "cbpp_poisson_offset": Timed("lme4", lambda: stats.glmer("incidence ~ period + (1 | herd)", c, "poisson",
                                                                 offset=np.log(c["size"]))),
        "sleepstudy_gamma_log": Timed("lme4", lambda: stats.glmer(RF, s, "Gamma", link="log")),
        "sleepstudy_inverse_gaussian_log": Timed("lme4", lambda: stats.glmer(RF, s, "inverse.gaussian",
                                                                             link="log")),
        "sleepstudy_gaussian_log": Timed("lme4", lambda: stats.glmer(RF, s, "gaussian", link="log")),
        "grouseticks_nb": Timed("lme4", lambda: stats.glmer_nb(TF, g)),
        "verbagg_obs": Timed("lme4", lambda: stats.glmer(
            "cbind(yes, no) ~ Anger + Gender + btype + situ + (1 | id) + (1 | obs)", va)),
        "grouseticks_obs": Timed("lme4", lambda: stats.glmer(
            "TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | INDEX) + (1 | LOCATION)", g, "poisson")),
        "sleepstudy_weights": Timed("lme4", lambda: stats.lmer("Reaction ~ Days + (Days | Subject)", s,
                                                               weights="w")),
        "wine_clmm": Timed("ordinal", lambda: stats.clmm(WINE_FORMULA + " + (1 | judge)", w)),
        "wine_clmm_agq10": Timed("ordinal", lambda: stats.clmm(WINE_FORMULA + " + (1 | judge)", w, nAGQ=10)),
        "mega_clmm": Timed("ordinal", lambda: stats.clmm(MEGA_FORMULA, mega)),
        "ham_anova_satterthwaite": Timed("lmerTest", lambda: _anova(ham, "Satterthwaite")),
        "ham_anova_kenward_roger": Timed("lmerTest", lambda: _anova(ham, "Kenward-Roger")),
        "cbpp_profile": Timed("lme4", lambda: _profile(fitted)),
    }


ROWS = HERE / "model_rows"


def topic_rows() -> dict[str, Timed]:
    """The rows of each ``model_rows/<topic>.py``, in the order of the topics' names (files
    starting with "_", as ``__init__.py``, hold what the topics share)."""
    out = {}
    for path in sorted(ROWS.glob("[!_]*.py")):
        spec = importlib.util.spec_from_file_location(f"model_rows.{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        out |= {name: Timed(reference, run) for name, (reference, run) in module.timed().items()}
    return out


def run_topic_r(reps: int) -> pd.DataFrame:
    """R's side of the topic rows: each ``model_rows/<topic>.R``'s CSV, one table."""
    tables = [pd.read_csv(StringIO(subprocess.run(["Rscript", str(path), str(reps)], capture_output=True,
                                                  text=True, check=True).stdout))
              for path in sorted(ROWS.glob("[!_]*.R"))]
    return pd.concat(tables).set_index("model")


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


def median_time(run: Callable[[], object], reps: int) -> tuple[float, object]:
    """The median of ``reps`` timings, each the mean of k runs (k: one timing about 0.2 s),
    as lmm_engines.R times R's."""
    t0 = time.perf_counter()
    m = run()
    k = max(1, math.ceil(0.2 / max(time.perf_counter() - t0, 1e-3)))
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(k):
            run()
        times.append((time.perf_counter() - t0) / k)
    return float(np.median(times)), m


def cpu() -> str:
    """The CPU's model name and its number of cores (``lscpu``)."""
    out = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    info = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    return f"{info.get('Model name', '?').strip()}, {info.get('CPU(s)', '?').strip()} cores"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5, help="fits to time per model (median)")
    ap.add_argument("--nsim", type=int, default=500, help="bootstrap refits (0: skip)")
    ap.add_argument("--out", type=Path, help="write the table as CSV here (e.g. docs/speed/models.csv)")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp())
    data = frames(tmp)
    mega = mega_frame()
    mega[["rating", "passive", "participant", "item"]].to_csv(tmp / "mega.csv", index=False)
    lme4 = run_lme4(tmp, args.repeats)
    if lme4 is not None:
        lme4 = pd.concat([lme4, run_topic_r(args.repeats)])
    timed = {name: Timed("lme4", lambda name=name, frame=frame: fit(name, frame))
             for name, frame in data.items()} | more_models(mega) | topic_rows()
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # singular fits are reported by both; not timed here
        for name, job in timed.items():
            reps = min(args.repeats, 3) if name == "insteval" else args.repeats
            t, m = median_time(job.run, reps)
            row = {"model": name, "rows": m.nobs, "reference": job.reference, "ours_s": t}
            if lme4 is not None:
                ref = lme4.loc[name]
                row |= {"reference_s": ref["seconds"], "ratio": t / ref["seconds"],
                        "logLik - R": m.logLik - ref["logLik"]}
            rows.append(row)
        table = pd.DataFrame(rows)
        pd.set_option("display.width", 200)
        print(table.to_string(index=False, float_format="{:.3g}".format))
        if args.out:
            if lme4 is None:
                raise SystemExit("--out needs Rscript (the R side of every row)")
            out = table[["model", "rows", "reference", "reference_s", "ours_s", "ratio"]].assign(cpu=cpu())
            out = out.assign(reference_s=out.reference_s.map("{:.3g}".format),
                             ours_s=out.ours_s.map("{:.3g}".format), ratio=out.ratio.map("{:.2f}".format))
            print(f"wrote {write_csv(out, args.out, index=False)}")
        if args.nsim:
            m = fit("li_adger_sentence", data["li_adger_sentence"])
            t0 = time.perf_counter()
            m.confint(method="boot", nsim=args.nsim)
            print(f"\nconfint(method='boot', nsim={args.nsim}) on the LI-Adger sentence model: "
                  f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
