"""``run``: score -> evaluate -> fit -> report into one folder, resumable.

Each step writes its outputs into the folder and records a fingerprint of its inputs and
of the source code it runs in ``manifest.json``; a rerun skips a step whose outputs exist
and whose fingerprint matches.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib
import json
import os
import pickle
import secrets
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from acceptability import data
from acceptability.data.atomic import atomic_path, write_text
from acceptability.data.sources import checksum
from acceptability.reports.analysis import (
    Fits,
    Results,
    analyse,
    check_formula,
    fit_models,
    resolve_compare_metric,
    resolve_formula,
)
from acceptability.reports.cli.experiment import Experiment, load_dataset, load_scores
from acceptability.reports.provenance import version
from acceptability.reports.render import Report, build
from acceptability.scoring.cache import default_cache_dir

STEPS = ("score", "evaluate", "fit", "report")


def fingerprint(*parts) -> str:
    """A short hash of JSON-serialisable inputs."""
    text = json.dumps(parts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def code_hash(*packages: str) -> str:
    """A short hash of the Python sources of the subpackages ``packages`` ("data", "stats",
    ...): an edited package (a fix, a development checkout) reruns the steps that use it
    even when its version is unchanged."""
    digest = hashlib.sha256()
    for name in packages:
        root = Path(importlib.import_module(f"acceptability.{name}").__file__).parent
        for file in sorted(root.rglob("*.py")):
            digest.update(f"{name}/{file.relative_to(root).as_posix()}".encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


class Manifest:
    """``manifest.json`` in the output folder: per step its fingerprint and outputs."""

    def __init__(self, out: Path) -> None:
        self.out, self.path = out, out / "manifest.json"
        try:
            self.steps = json.loads(self.path.read_text())["steps"]
        except (FileNotFoundError, json.JSONDecodeError, KeyError, TypeError):
            self.steps = {}

    def done(self, step: str, fp: str) -> bool:
        entry = self.steps.get(step)
        return bool(entry) and entry["fingerprint"] == fp and all(
            (self.out / o).exists() for o in entry["outputs"])

    def record(self, step: str, fp: str, outputs: list[str], seconds: float) -> None:
        self.steps[step] = {"fingerprint": fp, "outputs": outputs, "seconds": round(seconds, 2),
                            "finished": datetime.now(UTC).isoformat(timespec="seconds")}
        write_text(self.path, json.dumps({"steps": self.steps}, indent=2))


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _run_key() -> bytes:
    """This user's secret for signing step outputs: created once, readable by the user only,
    in the cache folder ($ACCEPTABILITY_CACHE_DIR or ~/.cache/acceptability)."""
    path = default_cache_dir() / "run-key"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_hex(32).encode())
        except FileExistsError:  # another run created it first
            pass
    return path.read_bytes()


def _signature(payload: bytes) -> bytes:
    return hmac.new(_run_key(), payload, hashlib.sha256).hexdigest().encode()


def _pickle(obj, path: Path) -> None:
    """Pickle a step's output behind an HMAC of this user's key (see :func:`_unpickle`)."""
    payload = pickle.dumps(obj)
    with atomic_path(path) as tmp:
        tmp.write_bytes(_signature(payload) + b"\n" + payload)


def _authentic(path: Path) -> bytes | None:
    """The pickle's bytes if this user's runs wrote them (the HMAC checks), else None."""
    try:
        signature, _, payload = path.read_bytes().partition(b"\n")
    except OSError:
        return None
    return payload if hmac.compare_digest(signature, _signature(payload)) else None


def _unpickle(path: Path):
    """A step output written by :func:`_pickle`. A pickle can run code when loaded, so one
    that this user's runs did not sign (copied from elsewhere, edited) is never loaded."""
    payload = _authentic(path)
    if payload is None:
        raise data.DataError(f"{path.name} was not written by a run of yours here; not loading "
                             "it (a pickle can run code)", source=str(path),
                             fix="rerun with --force to recompute it")
    return pickle.loads(payload)


def _scores_source(exp: Experiment) -> str | None:
    """The scores setting plus, for a file, its checksum (a changed file reruns the steps)."""
    if exp.scores in (None, "published"):
        return exp.scores
    path = Path(exp.scores)
    return f"{path}:{checksum(path)}" if path.is_file() else str(path)


def with_fits(results: Results, fits: Fits | None, formula: str | None,
              why: str | None = None) -> Results:
    """``results`` with the mixed-model fits (or ``why`` there are none)."""
    notes = {k: v for k, v in results.notes.items() if k != "fits"}
    if fits is None:
        notes["fits"] = why or "Mixed models were not requested."
    settings = results.provenance.get("settings", {}) | {"formula": formula or None}
    if fits is not None and "engine" in fits.table:
        settings["mixed_model_engine"] = sorted(fits.table["engine"].unique())
    return replace(results, fits=fits, notes=notes,
                   provenance=results.provenance | {"settings": settings})


def run(exp: Experiment, command: str | None = None, force: bool = False,
        log: Callable[[str], None] = _stderr) -> Report:
    """Run the four steps of ``exp`` into ``exp.out``, skipping those already done."""
    out = Path(exp.out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(out)
    pkg = version("acceptability")
    ds = load_dataset(exp)
    formula, why = resolve_formula(ds, exp.formula)
    if formula:
        check_formula(ds, formula)  # a typo fails now, not after scoring
    resolve_compare_metric(ds, exp.compare_metric)  # so does a metric the data lack

    def step(i: int, name: str, fp: str, outputs: list[str], work: Callable[[], None],
             what: str) -> bool:
        signed = all(_authentic(out / o) is not None for o in outputs if o.endswith(".pkl"))
        if not force and manifest.done(name, fp) and signed:
            log(f"[{i}/{len(STEPS)}] {name}: up to date ({', '.join(outputs)}), skipped")
            return False
        log(f"[{i}/{len(STEPS)}] {name}: {what} ...")
        t0 = time.perf_counter()
        work()
        manifest.record(name, fp, outputs, time.perf_counter() - t0)
        log(f"[{i}/{len(STEPS)}] {name}: done in {time.perf_counter() - t0:.1f} s")
        return True

    scores_file = out / "scores.parquet"
    fp_score = fingerprint(exp.dataset, ds.checksums, exp.paradigms, exp.max_pairs,
                           _scores_source(exp), exp.scores_settings(), pkg,
                           code_hash("data", "scoring"))  # the selected pairs, too
    step(1, "score", fp_score, ["scores.parquet"],
         lambda: data.write_scores(load_scores(exp, ds), scores_file),
         f"scores for {ds.name} ({exp.scores or 'scoring ' + ', '.join(exp.models)})")
    scores = data.read_scores(scores_file, ds)

    fp_eval = fingerprint(fp_score, exp.analysis_settings(), pkg, code_hash("stats", "reports"))

    def evaluate() -> None:
        results = analyse(ds, scores, deltas=exp.deltas, n_boot=exp.n_boot, seed=exp.seed,
                          by=exp.by, formula=None, compare_metric=exp.compare_metric,
                          correction=exp.correction, command=command,
                          extra=exp.scores_settings(), sign=exp.sign,
                          data_path=exp.data_path)
        _pickle(results, out / "analysis.pkl")
        results.evaluation.to_csv(out / "evaluation.csv", index=False)

    step(2, "evaluate", fp_eval, ["analysis.pkl", "evaluation.csv"], evaluate,
         f"statistics for {scores['model'].nunique()} models (bootstrap n={exp.n_boot})")

    fp_fit = fingerprint(fp_score, formula, pkg, code_hash("stats"))

    def fit() -> None:
        fits = fit_models(ds, scores, formula) if formula else None
        _pickle(fits, out / "fits.pkl")
        if fits is not None:
            fits.table.to_csv(out / "fits.csv", index=False)

    step(3, "fit", fp_fit, ["fits.pkl"], fit, f"mixed models: {formula or 'none'}")

    fp_report = fingerprint(fp_eval, fp_fit, command, pkg, code_hash("reports"))
    report_files = ["report.html", "report.md", "provenance.json"]

    def report() -> None:
        results = with_fits(_unpickle(out / "analysis.pkl"), _unpickle(out / "fits.pkl"),
                            formula, why)
        if command:
            results.provenance["command"] = command
        build(results, out)

    step(4, "report", fp_report, report_files, report, f"report into {out}")
    figures = {p.stem: p for p in sorted((out / "figures").glob("*.png"))}
    table_files = {p.name: p for p in sorted((out / "tables").glob("*"))}
    return Report(out=out, html=out / "report.html", markdown=out / "report.md",
                  provenance=out / "provenance.json", figures=figures, tables=table_files)
