"""``run``: score -> evaluate -> fit -> report into one folder, resumable.

Each step writes its outputs into the folder and records in ``manifest.json`` a
fingerprint of its inputs (its settings, the source code it runs, the sha256 of the outputs
of the steps it reads) and the sha256 and size of each file it wrote; a rerun skips a step
whose fingerprint matches and whose outputs are the files it wrote, and says why it
recomputes one whose output is missing, cut short or edited. A run holds the folder's lock
([lock][acceptability.reports.cli.lock]) from start to end: one writer per folder. It writes
into a new or empty folder or one with its manifest (any other folder only with ``force``),
and removes only what the manifest recorded it wrote and is still that file
(``Manifest``).

The intermediate results are Parquet tables and JSON (``scores.parquet``; ``analysis.json``
and ``fits.json`` with their tables in ``analysis/`` and ``fits/``:
[store][acceptability.reports.cli.store]), never pickles: a run folder from anywhere can be
resumed without running code from it.
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
from pathlib import Path, PurePosixPath

from acceptability import data
from acceptability.data.errors import DataError
from acceptability.data.io.atomic import write_csv, write_text
from acceptability.data.io.sources import checksum
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
from acceptability.reports.cli.lock import NAME as LOCK
from acceptability.reports.cli.lock import folder_lock
from acceptability.reports.cli.syntaxgym_data import (
    REGIONS,
    TOKENS,
    read_regions,
    write_run_scores,
)
from acceptability.reports.provenance import version
from acceptability.reports.ratings.fits import is_trial_formula
from acceptability.reports.render import Report, build
from acceptability.reports.syntaxgym.analysis import SYNTAXGYM
from acceptability.scoring.run.versions import library_versions

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


MANIFEST = "acceptability run manifest"
MANIFEST_VERSION = 2
# What each step may write, as patterns: a name its manifest records outside these (a
# planted ``chapters/thesis.tex``) is never removed.
WRITES = {"score": ("scores.parquet", REGIONS, TOKENS),
          "evaluate": ("evaluation.csv", "analysis.json", "analysis/*.parquet"),
          "fit": ("fits.csv", "fits.json", "fits/*.parquet"),
          "report": ("report.html", "report.md", "provenance.json", "figures/*", "tables/*")}
FORCE = ("pass --force to reuse it: every step is recomputed, and no file the run did not "
         "write is removed")


def _stamp(path: Path) -> dict:
    """What the manifest records of an output: its sha256 and size."""
    return {"checksum": checksum(path), "bytes": path.stat().st_size}


def _outside(out: Path, name) -> str | None:
    """Why the manifest's output ``name`` is not a file path inside ``out`` (None: it is):
    relative, no ``..``, no link on the way."""
    if not isinstance(name, str) or not name or "\\" in name or "\0" in name:
        return f"{name!r} is not a file name"
    parts = PurePosixPath(name).parts
    if name in ("manifest.json", LOCK):
        return f"{name} is not an output"
    if PurePosixPath(name).is_absolute() or ".." in parts:
        return f"{name} is outside the run folder"
    path = out / name
    if path.resolve() != out.resolve().joinpath(*parts):
        return f"{name} is outside the run folder (a link on the way)"
    return None


def _changed(out: Path, name: str, recorded) -> str | None:
    """Why the output ``name`` is not the file its step wrote (None: it is)."""
    if why := _outside(out, name):
        return why
    path = out / name
    if not path.is_file():
        return f"{name} is missing"
    stamp = _stamp(path)
    if stamp == recorded:
        return None
    if not isinstance(recorded, dict):
        return f"{name} has no recorded sha256"
    if stamp["bytes"] != recorded.get("bytes"):
        diff = f"{recorded.get('bytes')} bytes recorded, {stamp['bytes']} now"
    else:
        diff = (f"sha256 {str(recorded.get('checksum'))[7:19]}... recorded, "
                f"{stamp['checksum'][7:19]}... now")
    return f"{name} changed since this run wrote it ({diff})"


def _writes(step: str, name: str) -> bool:
    """Whether ``step`` may write ``name`` (``WRITES``)."""
    path = PurePosixPath(name)
    return any(len(path.parts) == len(PurePosixPath(p).parts) and path.match(p)
               for p in WRITES[step])


def _contents(out: Path) -> list[str]:
    """What is in ``out`` besides the lock file, for a message: a few names, folders with
    a slash."""
    found = sorted(p.name + "/" * p.is_dir() for p in out.iterdir() if p.name != LOCK)
    return found[:5] + ([f"and {len(found) - 5} more"] if len(found) > 5 else [])


class Manifest:
    """``manifest.json`` in the output folder: per step the fingerprint of its inputs, its
    settings, and its outputs with their sha256 and size. Only this file says what in the
    folder the package wrote, and so what it may remove."""

    def __init__(self, out: Path, log: Callable[[str], None]) -> None:
        self.out, self.path, self.log = out, out / "manifest.json", log
        self.steps: dict = {}
        self.problem: str | None = None  # why manifest.json is not one of this version
        self.foreign = False  # whether it is not this package's at all (no steps)
        try:
            document = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as err:
            self.problem, self.foreign = f"unreadable ({err})", True
            return
        if not isinstance(document, dict) or not isinstance(document.get("steps"), dict):
            self.problem, self.foreign = "not a manifest of this package", True
        elif (document.get("format"), document.get("version")) != (MANIFEST, MANIFEST_VERSION):
            self.problem = "not a manifest of this version (no output hashes to check)"
        else:
            self.steps = document["steps"]

    def claim(self, force: bool) -> None:
        """Make ``out`` this run's: a folder with a manifest of this version, or an empty
        one (its manifest is written now, so a run killed before its first step resumes),
        or with ``force`` one with no manifest or an older one; else a DataError saying
        what is there, as ``git clone`` refuses a non-empty folder. A ``manifest.json`` of
        something else is never overwritten."""
        if self.problem is None and self.path.is_file():
            return
        if self.problem is None and not _contents(self.out):
            self._write()
            return
        what = (f"{self.path.name} is {self.problem}" if self.problem else
                f"it has no {self.path.name} of an acceptability run")
        if self.foreign:
            raise DataError(f"{what}; a run writes its own there", source=str(self.path),
                            fix="move that file away, or choose another folder (--out)")
        if not force:
            raise DataError(f"the output folder is not empty ({', '.join(_contents(self.out))})"
                            f" and {what}", source=str(self.out),
                            fix=f"choose a new or empty folder (--out), or {FORCE}")
        self.log(f"{what}; --force: every step reruns, and no file in {self.out} is removed")
        self._write()

    def stale(self, step: str, fp: str) -> str | None:
        """Why ``step`` must run (None: its inputs and outputs are as recorded)."""
        entry = self.steps.get(step)
        if not isinstance(entry, dict) or not isinstance(entry.get("outputs"), dict):
            return "not run yet"
        if entry.get("fingerprint") != fp:
            return "its inputs, settings or code changed"
        for name, recorded in entry["outputs"].items():
            if why := _changed(self.out, name, recorded):
                return why
        return None

    def written(self, step: str) -> dict[str, str]:
        """The sha256 of each output of ``step`` (for the fingerprints of later steps)."""
        return {name: stamp["checksum"] for name, stamp in self.steps[step]["outputs"].items()}

    def record(self, step: str, fp: str, outputs: list[str], seconds: float,
               settings: dict) -> None:
        """Record a finished step; what it wrote last time and not now is removed (``_drop``)."""
        entry = self.steps.get(step)
        earlier = entry.get("outputs") if isinstance(entry, dict) else None
        for name, recorded in (earlier.items() if isinstance(earlier, dict) else ()):
            if name not in outputs:
                self._drop(step, name, recorded)
        self.steps[step] = {"fingerprint": fp, "settings": settings,
                            "outputs": {o: _stamp(self.out / o) for o in outputs},
                            "seconds": round(seconds, 2),
                            "finished": datetime.now(UTC).isoformat(timespec="seconds")}
        self._write()

    def _drop(self, step: str, name, recorded) -> None:
        """Remove the earlier output ``name`` of ``step`` if it is one ``step`` writes
        (``WRITES``), inside the folder, and still the file it wrote (its recorded sha256
        and size); else leave it and say why, unless it is gone."""
        why = _changed(self.out, name, recorded)
        if why is None and _writes(step, name):
            (self.out / name).unlink()
        elif why is None or not why.endswith("is missing"):
            self.log(f"{step}: {why or name + ' is not a file this step writes'}: "
                     f"left in place, not removed")

    def _write(self) -> None:
        document = {"format": MANIFEST, "version": MANIFEST_VERSION, "steps": self.steps}
        write_text(self.path, json.dumps(document, indent=2, default=str))


class Steps:
    """Runs the pipeline's steps into ``out``, skipping a step whose fingerprint and
    outputs (each file's sha256) are as the manifest records them (and whose store
    document this version reads)."""

    def __init__(self, out: Path, force: bool, log: Callable[[str], None]) -> None:
        self.out, self.force, self.log = out, force, log
        self.manifest = Manifest(out, log)
        self.manifest.claim(force)

    def __call__(self, i: int, name: str, fp: str, work: Callable[[], list[str]], what: str,
                 settings: dict, document: str | None = None) -> None:
        """Step ``i``: ``work()`` writes its outputs and returns their names."""
        why = "--force" if self.force else self.manifest.stale(name, fp)
        if why is None and document and (problem := store.unreadable(self.out / document)):
            why = f"{document} is not a run store this version reads ({problem})"
        if why is None:
            shown = [o for o in self.manifest.steps[name]["outputs"] if "/" not in o]
            self.log(f"[{i}/{len(STEPS)}] {name}: up to date ({', '.join(shown)}), skipped")
            return
        if why not in ("--force", "not run yet"):
            self.log(f"[{i}/{len(STEPS)}] {name}: {why}, recomputing")
        self.log(f"[{i}/{len(STEPS)}] {name}: {what} ...")
        t0 = time.perf_counter()
        outputs = work()
        self.manifest.record(name, fp, outputs, time.perf_counter() - t0, settings)
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
    """Step 2: the statistics (``analyse``, without the mixed models), stored; SyntaxGym's
    from the region surprisals of step 1."""
    regions = read_regions(out / REGIONS, ds) if ds.name == SYNTAXGYM else None
    results = analyse(ds, scores, deltas=exp.deltas, n_boot=exp.n_boot, seed=exp.seed,
                      by=exp.by, formula=None, compare_metric=exp.compare_metric,
                      correction=exp.correction, command=command,
                      extra=exp.scores_settings(), sign=exp.sign, data_path=exp.data_path,
                      norming=exp.norming, regions=regions)
    write_csv(results.evaluation, out / "evaluation.csv", index=False)
    return ["evaluation.csv", *store.save(results, out / "analysis.json")]


def _fit(ds, scores, formula: str | None, out: Path) -> list[str]:
    """Step 3: the mixed models (their tables and summaries), stored."""
    fits = fit_models(ds, scores, formula) if formula else None
    if fits is None:
        return store.save(fits, out / "fits.json")
    write_csv(fits.table, out / "fits.csv", index=False)
    return ["fits.csv", *store.save(fits, out / "fits.json")]


def _report(ds, formula: str | None, why: str | None, command: str | None,
            out: Path, title: str | None = None) -> list[str]:
    """Step 4: the report, from what steps 2 and 3 stored."""
    results = with_fits(store.load(out / "analysis.json", dataset=ds),
                        store.load(out / "fits.json"), formula, why)
    if command:
        results.provenance["command"] = command
    report = build(results, out, title=title)
    files = [*report.figures.values(), *report.tables.values()]
    return ["report.html", "report.md", "provenance.json",
            *sorted(p.relative_to(out).as_posix() for p in files)]


def _steps(exp: Experiment, ds, formula: str | None, why: str | None,
           command: str | None, step: Steps) -> None:
    """The four steps, each fingerprinted by its inputs: its settings, the code it runs and
    the sha256 of the outputs of the steps it reads."""
    out, pkg = step.out, version("acceptability")
    scores_file = out / "scores.parquet"
    source = {"dataset": exp.dataset, "checksums": ds.checksums, "paradigms": exp.paradigms,
              "max_pairs": exp.max_pairs, "max_sentences": exp.max_sentences,
              "source": _scores_source(exp),
              **({"columns": exp.columns} if exp.columns else {})}  # as before without one
    gym = ds.name == SYNTAXGYM  # region surprisals (reports.cli.syntaxgym_data)
    fp_score = fingerprint(source, exp.scores_settings(), pkg,
                           code_hash("data", "scoring", *(["reports"] if gym else [])),
                           *(library_versions() if exp.models else []))
    step(1, "score", fp_score,
         (lambda: write_run_scores(exp, ds, out)) if gym else
         (lambda: [data.write_scores(load_scores(exp, ds), scores_file).name]),
         f"scores for {ds.name} ({exp.scores or 'scoring ' + ', '.join(exp.models)})",
         settings=source | exp.scores_settings())
    scores = data.read_scores(scores_file, ds)
    scored = step.manifest.written("score")
    fp_eval = fingerprint(fp_score, scored, exp.analysis_settings(), pkg,
                          code_hash("stats", "reports"))
    step(2, "evaluate", fp_eval, lambda: _evaluate(exp, ds, scores, command, out),
         f"statistics for {scores['model'].nunique()} models (bootstrap n={exp.n_boot})",
         settings=exp.analysis_settings() | {"command": command}, document="analysis.json")
    fitted = ("stats", "reports") if is_trial_formula(formula) else ("stats",)  # rating_fits
    fp_fit = fingerprint(fp_score, scored, formula, pkg, code_hash(*fitted))
    step(3, "fit", fp_fit, lambda: _fit(ds, scores, formula, out),
         f"mixed models: {formula or 'none'}", settings={"formula": formula},
         document="fits.json")
    fp_report = fingerprint(fp_eval, fp_fit, step.manifest.written("evaluate"),
                            step.manifest.written("fit"), command, pkg, code_hash("reports"),
                            *([exp.name] if exp.name else []))
    step(4, "report", fp_report, lambda: _report(ds, formula, why, command, out, exp.title()),
         f"report into {out}", settings={"command": command})


def run(exp: Experiment, command: str | None = None, force: bool = False,
        log: Callable[[str], None] = _stderr) -> Report:
    """Run score -> evaluate -> fit -> report for ``exp`` into ``exp.out``, skipping the
    steps already done (same inputs, same code, outputs unchanged since: ``manifest.json``
    records each output's sha256). One run at a time writes into a folder (its lock file
    ``.lock``): another one there stops with a `DataError` naming the holder.

    Parameters
    ----------
    exp : Experiment
        The settings ([from_toml][acceptability.reports.from_toml], or ``Experiment(...)``).
    command : str, optional
        The command line, for the reproducibility block.
    force : bool
        Rerun every step, also in a folder that is not empty and has no manifest of this
        version (refused without it: a `DataError`); no file the run did not write is
        removed either way.
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
    with folder_lock(out):  # a second run into `out` stops here
        ds = load_dataset(exp)
        formula, why = resolve_formula(ds, exp.formula)
        if formula:
            check_formula(ds, formula)  # a typo fails now, not after scoring
        resolve_compare_metric(ds, exp.compare_metric)  # so does a metric the data lack
        _steps(exp, ds, formula, why, command, Steps(out, force, log))
    figures = {p.stem: p for p in sorted((out / "figures").glob("*.png"))}
    table_files = {p.name: p for p in sorted((out / "tables").glob("*"))}
    return Report(out=out, html=out / "report.html", markdown=out / "report.md",
                  provenance=out / "provenance.json", figures=figures, tables=table_files)
