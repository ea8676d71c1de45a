"""Outputs are written safely (issue 30, items 5 and 10): a symlink planted where the
report, ``run`` or ``evaluate --out`` writes is replaced, and its target outside the output
folder is left alone; a ``--by`` column becomes a file name inside ``tables/``; a write that
fails (a file-size limit) exits non-zero and leaves the previous file whole."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import resource
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from acceptability.data import load_example
from acceptability.reports import analyse, build
from acceptability.reports.cli import commands as cli

OUTSIDE = b"not yours to overwrite"
# where `run` and `report` write, each planted as a link to a file outside the folder
PLANTED = ["tables/table_3_1.csv", "tables/table_3_1.tex", "tables/evaluation.csv",
           "tables/evaluation_by_phenomenon.csv", "figures/adc_curve.png", "evaluation.csv",
           "report.md", "provenance.json"]


def run_cli(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(args)
    return code, err.getvalue()


def plant(out: Path, outside: Path, names: list[str]) -> dict[str, Path]:
    """A symlink at each of ``names`` in ``out`` to its own file in ``outside``."""
    targets = {}
    for k, name in enumerate(names):
        target = outside / f"target-{k}"
        target.write_bytes(OUTSIDE)
        link = out / name
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)
        targets[name] = target
    return targets


def assert_replaced(out: Path, targets: dict[str, Path]) -> None:
    for name, target in targets.items():
        assert target.read_bytes() == OUTSIDE, f"{name} was written through its link"
        assert (out / name).is_file() and not (out / name).is_symlink(), name


@pytest.mark.parametrize("command", ["run", "report"])
def test_planted_symlinks_are_replaced_not_followed(tmp_path, command):
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    names = PLANTED if command == "run" else [n for n in PLANTED if n != "evaluation.csv"]
    targets = plant(out, outside, names)
    args = [command, "--dataset", "example", "--scores", "published", "--n-boot", "0",
            "--by", "phenomenon", "--out", str(out)]
    if command == "run":  # a folder without its manifest: refused, reused with --force
        assert run_cli(args)[0] == 2
        args.append("--force")
    code, err = run_cli(args)
    assert code == 0, err
    assert_replaced(out, targets)


@pytest.mark.parametrize("folder", ["tables", "figures", "analysis"])
def test_a_planted_folder_link_is_refused_and_nothing_written_through_it(tmp_path, folder):
    """A link at a whole subfolder (``tables`` -> elsewhere) would carry every write in it
    out of the output folder: the run stops naming it, and the folder outside stays empty."""
    out, outside = tmp_path / "out", tmp_path / "outside"
    outside.mkdir()
    out.mkdir()
    (out / folder).symlink_to(outside, target_is_directory=True)
    code, err = run_cli(["run", "--dataset", "example", "--scores", "published",
                         "--n-boot", "0", "--out", str(out), "--force"])
    assert code != 0 and "symbolic link" in err and folder in err, err
    assert list(outside.iterdir()) == []


def test_evaluate_out_replaces_a_planted_symlink(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    targets = plant(tmp_path, outside, ["evaluate.csv"])
    code, err = run_cli(["evaluate", "--dataset", "example", "--scores", "published",
                         "--n-boot", "0", "--out", str(tmp_path / "evaluate.csv")])
    assert code == 0, err
    assert_replaced(tmp_path, targets)
    assert len(pd.read_csv(tmp_path / "evaluate.csv")) > 1


def test_by_column_cannot_name_a_file_outside_tables(tmp_path):
    ds, scores = load_example()
    results = analyse(ds, scores, n_boot=0, by="phenomenon")
    evil = dataclasses.replace(results, by="../evil", by_group=results.by_group.rename(
        columns={"phenomenon": "../evil"}))
    out = tmp_path / "report"
    report = build(evil, out)
    written = report.tables["evaluation_by__evil.csv"]
    assert written.parent == out / "tables" and written.is_file()
    assert sorted(p.name for p in tmp_path.rglob("*evil*")) == ["evaluation_by__evil.csv"]


def _limit_file_size() -> None:
    """A limit below the example's evaluation table (539 bytes)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (256, 256))


def test_evaluate_out_under_a_file_size_limit_keeps_the_previous_file(tmp_path):
    path = tmp_path / "evaluation.csv"
    path.write_text("previous\n")
    done = subprocess.run(
        [sys.executable, "-m", "acceptability.reports.cli", "evaluate", "--dataset", "example",
         "--scores", "published", "--n-boot", "0", "--out", str(path)],
        capture_output=True, text=True, preexec_fn=_limit_file_size, timeout=120)
    assert done.returncode != 0
    assert "error:" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert path.read_text() == "previous\n"
    assert [p.name for p in tmp_path.iterdir()] == ["evaluation.csv"]  # no temp file left
