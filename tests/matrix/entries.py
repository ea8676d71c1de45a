"""The entry points of the study matrix (issue 42, item 12): Python ``evaluate``, ``fit``
(``reports.fit_models``), ``rating_model`` and ``reports.analyse``; the command line's
``evaluate``, ``fit`` (sentence level, and ``--level trial``: the trial-level model),
``report`` and ``run`` by flags; ``run`` by an experiment file.

Each takes a shape's :class:`~tests.matrix.shapes.Inputs` and a folder and returns an
:class:`Outcome`: the tables it produced, named by kind (``evaluation``: a row per model;
``fixef``: a model's fixed effects; ``syntaxgym``: accuracies), or the message with which it
refused. An internal error (a traceback, or the CLI's "unexpected error") is never an outcome:
it fails the cell. Adding an entry point is adding an entry to ``ENTRIES``.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from acceptability.data.errors import DataError
from tests.matrix.shapes import Inputs

N_BOOT = 0  # the matrix compares point estimates; intervals have their own tests
REFUSED = (DataError, ValueError)  # what the package raises for what it will not do


@dataclass
class Outcome:
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    refusal: str | None = None


def _scores(inputs: Inputs) -> pd.DataFrame:
    from acceptability import data

    given = inputs.python_scores()
    return given if given is not None else data.read_scores(inputs.scores)


def _python(call: Callable[[object, pd.DataFrame], dict[str, pd.DataFrame]]):
    def run(inputs: Inputs, folder: Path) -> Outcome:
        try:
            ds = inputs.dataset()
            return Outcome(tables=call(ds, _scores(inputs)))
        except REFUSED as err:
            return Outcome(refusal=str(err))
    return run


def _evaluate(ds, scores) -> dict[str, pd.DataFrame]:
    from acceptability import stats
    from acceptability.reports.syntaxgym.analysis import is_region_table

    if is_region_table(scores):
        return {"syntaxgym": stats.syntaxgym_accuracy(scores, ds, n_boot=N_BOOT)}
    return {"evaluation": stats.evaluate(ds, scores)}


def _fit(ds, scores) -> dict[str, pd.DataFrame]:
    from acceptability import reports
    from acceptability.reports.analysis import resolve_formula

    formula, why = resolve_formula(ds, "auto")
    if formula is None:
        raise ValueError(why)
    return {"fixef": reports.fit_models(ds, scores, formula).table}


def _rating_model(ds, scores) -> dict[str, pd.DataFrame]:
    from acceptability import stats

    rows = []
    for model in dict.fromkeys(scores["model"]):
        fit = stats.rating_model(ds, scores, model=model)
        rows.append(pd.DataFrame({"model": model, "term": fit.fixef.index,
                                  "estimate": fit.fixef.to_numpy()}))
    return {"rating_fixef": pd.concat(rows, ignore_index=True)}


def _analyse(ds, scores) -> dict[str, pd.DataFrame]:
    from acceptability import reports

    res = reports.analyse(ds, scores, n_boot=N_BOOT)
    tables = {"evaluation": res.evaluation}
    if res.fits is not None:
        tables["fixef"] = res.fits.table
    return tables


def _result_tables(tables: dict) -> dict[str, pd.DataFrame]:
    """The matrix's kinds among a report's tables."""
    kinds = {"evaluation": "evaluation", "fits": "fixef"}
    return {kinds[k]: v for k, v in tables.items() if k in kinds}


def cli(args: list[str]) -> tuple[int, str, str]:
    """``acceptability ARGS`` in this process: exit status, stdout, stderr."""
    from acceptability.reports.cli import commands

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = commands.main(args)
    return code, out.getvalue(), err.getvalue()


def _command(build: Callable[[Inputs, Path], list[str]],
             read: Callable[[Path], dict[str, pd.DataFrame]]):
    def run(inputs: Inputs, folder: Path) -> Outcome:
        code, _, err = cli(build(inputs, folder))
        assert "unexpected error" not in err and "Traceback" not in err, err
        if code != 0:
            assert code == 2, (code, err)
            return Outcome(refusal=err.strip())
        return Outcome(tables=read(folder))
    return run


def _csv(name: str, kind: str) -> Callable[[Path], dict[str, pd.DataFrame]]:
    return lambda folder: {kind: pd.read_csv(folder / name, keep_default_na=False,
                                             na_values=[""])}


def _lmer_rows(folder: Path) -> dict[str, pd.DataFrame]:
    """`fit --level trial`: the lmer fit's rows (the default of ``stats.rating_model``; the
    table also holds the clmm fit of the raw responses)."""
    table = _csv("fixef.csv", "rating_fixef")(folder)["rating_fixef"]
    lmer = table["fit"].str.endswith("(lmer)")
    assert lmer.any() and (~lmer).any(), table["fit"].unique()
    return {"rating_fixef": table[lmer].drop(columns="fit")}


def _report_tables(folder: Path) -> dict[str, pd.DataFrame]:
    tables = {p.stem: pd.read_csv(p, keep_default_na=False, na_values=[""])
              for p in sorted((folder / "out" / "tables").glob("*.csv"))}
    found = _result_tables(tables)
    if "syntaxgym_prediction" in tables:  # a column per model: long, as `evaluate` gives it
        wide = tables["syntaxgym_prediction"].drop(columns=["formula"])
        found = {"syntaxgym": wide.melt(id_vars=["suite", "prediction"], var_name="model",
                                        value_name="accuracy").rename(columns={"suite": "group"})
                 .assign(level="prediction")}
    assert (folder / "out" / "report.html").is_file()
    return found


def _experiment_file(inputs: Inputs, folder: Path) -> list[str]:
    """An experiment file with the shape's [data] table and its scores file."""
    lines = ['out = "out"', "", "[data]"]
    for key, value in inputs.config.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k} = {_toml(v)}" for k, v in value.items())
            lines.append(f"{key} = {{ {inner} }}")
        else:
            lines.append(f"{key} = {_toml(value)}")
    lines += ["", "[scores]", f"source = {_toml(str(inputs.scores))}", "",
              "[analysis]", f"n_boot = {N_BOOT}"]
    path = folder / "experiment.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["run", "--config", str(path)]


def _toml(value) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def _flags(command: str, *extra: str) -> Callable[[Inputs, Path], list[str]]:
    def build(inputs: Inputs, folder: Path) -> list[str]:
        out = {"evaluate": ["--out", str(folder / "evaluation.csv")],
               "fit": ["--out", str(folder / "fixef.csv")]}.get(command,
                                                                 ["--out", str(folder / "out")])
        return [command, *inputs.flags, "--scores", str(inputs.scores),
                *(["--n-boot", str(N_BOOT)] if command != "fit" else []), *extra, *out]
    return build


def _syntaxgym_or(name: str, kind: str) -> Callable[[Path], dict[str, pd.DataFrame]]:
    """`evaluate --out` writes accuracies for SyntaxGym suites, the evaluation otherwise."""
    def read(folder: Path) -> dict[str, pd.DataFrame]:
        table = pd.read_csv(folder / name, keep_default_na=False, na_values=[""])
        return {"syntaxgym" if "suite" in table else kind: table}
    return read


ENTRIES: dict[str, Callable[[Inputs, Path], Outcome]] = {
    "py_evaluate": _python(_evaluate),
    "py_fit": _python(_fit),
    "py_rating_model": _python(_rating_model),
    "py_analyse": _python(_analyse),
    "cli_evaluate": _command(_flags("evaluate"), _syntaxgym_or("evaluation.csv", "evaluation")),
    "cli_fit": _command(_flags("fit"), _csv("fixef.csv", "fixef")),
    "cli_fit_trial": _command(_flags("fit", "--level", "trial"), _lmer_rows),
    "cli_report": _command(_flags("report"), _report_tables),
    "cli_run": _command(_flags("run"), _report_tables),
    "run_config": _command(_experiment_file, _report_tables),
}
