"""``run``: score -> evaluate -> fit -> report into one folder, resumable.

Each step writes its outputs into the folder and records a fingerprint of its inputs and
of the source code it runs in ``manifest.json``; a rerun skips a step whose outputs exist
and whose fingerprint matches. The intermediate results are Parquet tables and JSON
(``scores.parquet``; ``analysis.json`` and ``fits.json`` with their tables in ``analysis/``
and ``fits/``: [store][acceptability.reports.cli.store]), never pickles: a run folder from
anywhere can be resumed without running code from it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from acceptability import data
from acceptability.data.atomic import write_text
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
from acceptability.reports.cli import store
from acceptability.reports.cli.experiment import Experiment, load_dataset, load_scores
from acceptability.reports.provenance import version
from acceptability.reports.render import Report, build

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
        """Record a finished step; files it wrote last time and not now (a table this run
        lacks, the pickles of 0.1) are removed."""
        out = self.out.resolve()
        for old in set(self.steps.get(step, {}).get("outputs", [])) - set(outputs):
            path = (out / old).resolve()
            if path.is_relative_to(out) and path.is_file():
                path.unlink()
        self.steps[step] = {"fingerprint": fp, "outputs": outputs, "seconds": round(seconds, 2),
                            "finished": datetime.now(UTC).isoformat(timespec="seconds")}
        write_text(self.path, json.dumps({"steps": self.steps}, indent=2))


class Steps:
    """Runs the pipeline's steps into ``out``, skipping a step whose fingerprint and
    outputs are recorded in the manifest (and whose store document this version reads)."""

    def __init__(self, out: Path, force: bool, log: Callable[[str], None]) -> None:
        self.out, self.force, self.log = out, force, log
        self.manifest = Manifest(out)

    def __call__(self, i: int, name: str, fp: str, work: Callable[[], list[str]], what: str,
                 document: str | None = None) -> None:
        """Step ``i``: ``work()`` writes its outputs and returns their names."""
        done = self.manifest.done(name, fp) and (document is None
                                                 or store.readable(self.out / document))
        if done and not self.force:
            shown = [o for o in self.manifest.steps[name]["outputs"] if "/" not in o]
            self.log(f"[{i}/{len(STEPS)}] {name}: up to date ({', '.join(shown)}), skipped")
            return
        self.log(f"[{i}/{len(STEPS)}] {name}: {what} ...")
        t0 = time.perf_counter()
        outputs = work()
        self.manifest.record(name, fp, outputs, time.perf_counter() - t0)
        self.log(f"[{i}/{len(STEPS)}] {name}: done in {time.perf_counter() - t0:.1f} s")


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


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


def _evaluate(exp: Experiment, ds, scores, command: str | None, out: Path) -> list[str]:
    """Step 2: the statistics (``analyse``, without the mixed models), stored."""
    results = analyse(ds, scores, deltas=exp.deltas, n_boot=exp.n_boot, seed=exp.seed,
                      by=exp.by, formula=None, compare_metric=exp.compare_metric,
                      correction=exp.correction, command=command,
                      extra=exp.scores_settings(), sign=exp.sign, data_path=exp.data_path)
    results.evaluation.to_csv(out / "evaluation.csv", index=False)
    return ["evaluation.csv", *store.save(results, out / "analysis.json")]


def _fit(ds, scores, formula: str | None, out: Path) -> list[str]:
    """Step 3: the mixed models (their tables and summaries), stored."""
    fits = fit_models(ds, scores, formula) if formula else None
    if fits is None:
        return store.save(fits, out / "fits.json")
    fits.table.to_csv(out / "fits.csv", index=False)
    return ["fits.csv", *store.save(fits, out / "fits.json")]


def _report(ds, formula: str | None, why: str | None, command: str | None,
            out: Path) -> list[str]:
    """Step 4: the report, from what steps 2 and 3 stored."""
    results = with_fits(store.load(out / "analysis.json", dataset=ds),
                        store.load(out / "fits.json"), formula, why)
    if command:
        results.provenance["command"] = command
    build(results, out)
    return ["report.html", "report.md", "provenance.json"]


def run(exp: Experiment, command: str | None = None, force: bool = False,
        log: Callable[[str], None] = _stderr) -> Report:
    """Run score -> evaluate -> fit -> report for ``exp`` into ``exp.out``, skipping the
    steps already done (same inputs, same code: ``manifest.json``).

    Parameters
    ----------
    exp : Experiment
        The settings ([from_toml][acceptability.reports.from_toml], or ``Experiment(...)``).
    command : str, optional
        The command line, for the reproducibility block.
    force : bool
        Rerun every step.
    log : callable
        Where the progress lines go (default: stderr).

    Returns
    -------
    Report
        The paths of the report.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from acceptability.reports import Experiment, run
    >>> with tempfile.TemporaryDirectory() as tmp:  # doctest: +ELLIPSIS
    ...     exp = Experiment(dataset="example", n_boot=0, out=tmp)
    ...     report = run(exp, log=print)
    ...     again = run(exp, log=print)
    ...     stored = sorted(p.name for p in Path(tmp).glob("*.json"))
    [1/4] score: scores for published example (published) ...
    [1/4] score: done in ... s
    [2/4] evaluate: statistics for 3 models (bootstrap n=0) ...
    [2/4] evaluate: done in ... s
    [3/4] fit: mixed models: none ...
    [3/4] fit: done in ... s
    [4/4] report: report into ... ...
    [4/4] report: done in ... s
    [1/4] score: up to date (scores.parquet), skipped
    [2/4] evaluate: up to date (evaluation.csv, analysis.json), skipped
    [3/4] fit: up to date (fits.json), skipped
    [4/4] report: up to date (report.html, report.md, provenance.json), skipped
    >>> stored
    ['analysis.json', 'fits.json', 'manifest.json', 'provenance.json']
    """
    out = Path(exp.out)
    out.mkdir(parents=True, exist_ok=True)
    pkg = version("acceptability")
    ds = load_dataset(exp)
    formula, why = resolve_formula(ds, exp.formula)
    if formula:
        check_formula(ds, formula)  # a typo fails now, not after scoring
    resolve_compare_metric(ds, exp.compare_metric)  # so does a metric the data lack
    step = Steps(out, force, log)
    scores_file = out / "scores.parquet"
    fp_score = fingerprint(exp.dataset, ds.checksums, exp.paradigms, exp.max_pairs,
                           _scores_source(exp), exp.scores_settings(), pkg,
                           code_hash("data", "scoring"))  # the selected pairs, too
    step(1, "score", fp_score,
         lambda: [data.write_scores(load_scores(exp, ds), scores_file).name],
         f"scores for {ds.name} ({exp.scores or 'scoring ' + ', '.join(exp.models)})")
    scores = data.read_scores(scores_file, ds)

    fp_eval = fingerprint(fp_score, exp.analysis_settings(), pkg, code_hash("stats", "reports"))
    step(2, "evaluate", fp_eval, lambda: _evaluate(exp, ds, scores, command, out),
         f"statistics for {scores['model'].nunique()} models (bootstrap n={exp.n_boot})",
         document="analysis.json")
    fp_fit = fingerprint(fp_score, formula, pkg, code_hash("stats"))
    step(3, "fit", fp_fit, lambda: _fit(ds, scores, formula, out),
         f"mixed models: {formula or 'none'}", document="fits.json")
    fp_report = fingerprint(fp_eval, fp_fit, command, pkg, code_hash("reports"))
    step(4, "report", fp_report, lambda: _report(ds, formula, why, command, out),
         f"report into {out}")
    figures = {p.stem: p for p in sorted((out / "figures").glob("*.png"))}
    table_files = {p.name: p for p in sorted((out / "tables").glob("*"))}
    return Report(out=out, html=out / "report.html", markdown=out / "report.md",
                  provenance=out / "provenance.json", figures=figures, tables=table_files)
