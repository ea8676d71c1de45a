"""The ``acceptability`` command line: help, the offline commands on the bundled example,
and bad input (one clear line, non-zero exit, no traceback)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pandas as pd
import pytest

from acceptability import data
from acceptability.data.errors import DataError
from acceptability.reports.cli import commands as cli
from acceptability.reports.cli.experiment import from_toml
from tests.conftest import REPO


def run_cli(args: list[str]) -> int:
    try:
        return cli.main(args)
    except SystemExit as exit_:  # argparse usage errors and --help
        return int(exit_.code or 0)


def test_help_lists_every_command(capsys):
    assert run_cli(["--help"]) == 0
    out = capsys.readouterr().out
    for command in ("score", "evaluate", "fit", "report", "run", "demo"):
        assert f"\n    {command} " in out
    assert "examples:" in out


def test_evaluate_example(capsys):
    assert run_cli(["evaluate", "--dataset", "example", "--scores", "published"]) == 0
    out = capsys.readouterr().out
    assert "bert-large-cased_mlm" in out and "adc_0.5" in out


def test_evaluate_selects_models(tmp_path):
    out = tmp_path / "ev.csv"
    assert run_cli(["evaluate", "--dataset", "example", "--scores", "published", "--model",
                    "trigram_slor", "--delta", "0.25", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(table["model"]) == ["trigram_slor"] and "adc_0.25" in table


def test_report_example(tmp_path, capsys):
    out = tmp_path / "rep"
    assert run_cli(["report", "--dataset", "example", "--scores", "published", "--n-boot", "0",
                    "--formula", "", "--out", str(out)]) == 0
    assert (out / "report.html").is_file() and (out / "tables" / "table_3_1.tex").is_file()
    assert "wrote" in capsys.readouterr().out


def test_demo_falls_back_to_the_example_offline(tmp_path, monkeypatch, capsys):
    def unavailable(*args, **kwargs):
        raise DataError("no local copy and offline")

    monkeypatch.setattr(data, "load_li_adger", unavailable)
    assert run_cli(["demo", "--out", str(tmp_path / "demo"), "--n-boot", "0"]) == 0
    out = capsys.readouterr().out
    assert "bundled example" in out and "Full report:" in out
    assert (tmp_path / "demo" / "report.html").is_file()


def test_example_experiment_file_is_valid():
    exp = from_toml(os.path.join(REPO, "examples", "experiment.toml"))
    assert exp.dataset == "li-adger" and exp.scores == "published"
    assert exp.deltas == (0.5, 1.0, 5.0)


BAD_INPUT = {
    "unknown dataset": ["evaluate", "--dataset", "nope"],
    "unknown model": ["evaluate", "--dataset", "example", "--scores", "published",
                      "--model", "gpt-17"],
    "delta zero": ["evaluate", "--dataset", "example", "--delta", "0"],
    "delta too large": ["run", "--dataset", "example", "--delta", "500"],
    "delta not a number": ["report", "--dataset", "example", "--delta", "big"],
    "missing scores file": ["evaluate", "--dataset", "example", "--scores", "/no/such.csv"],
    "unreadable scores file": ["evaluate", "--dataset", "example", "--scores", "{garbage}"],
    "scores without the columns": ["evaluate", "--dataset", "example", "--scores", "{nocols}"],
    "negative bootstrap": ["report", "--dataset", "example", "--n-boot", "-1"],
    "unknown sign convention": ["evaluate", "--dataset", "example", "--sign", "np.sign"],
    "missing experiment file": ["run", "--config", "/no/such.toml"],
    "bad experiment file": ["run", "--config", "{badtoml}"],
    "unknown experiment key": ["run", "--config", "{unknownkey}"],
    "no published scores": ["evaluate", "--dataset", "cola"],
    "formula typo (fit)": ["fit", "--dataset", "example", "--formula",
                           "human ~ scor + (1 | phenomenon)"],
    "formula typo (report)": ["report", "--dataset", "example", "--n-boot", "0", "--formula",
                              "human ~ score + (1 | phenomenom)", "--out", "{tmp}/rep"],
    "formula typo (run)": ["run", "--dataset", "example", "--n-boot", "0", "--formula",
                           "dh ~ dml + (1 | phenomenon)", "--out", "{tmp}/run"],
    "formula syntax": ["fit", "--dataset", "example", "--formula", "human ~ (1 | phenomenon"],
    "formula fits no model": ["fit", "--dataset", "example", "--formula", "human ~ score"],
}


@pytest.fixture
def bad_files(tmp_path):
    files = {"garbage": tmp_path / "garbage.parquet", "nocols": tmp_path / "nocols.csv",
             "badtoml": tmp_path / "bad.toml", "unknownkey": tmp_path / "unknown.toml"}
    files["garbage"].write_bytes(b"\x00\x01 not parquet")
    files["nocols"].write_text("a,b\n1,2\n")
    files["badtoml"].write_text("[data\ndataset = ")
    files["unknownkey"].write_text('[analysis]\ndeltas = [0.5]\nbootstraps = 3\n')
    return {k: str(v) for k, v in files.items()} | {"tmp": str(tmp_path)}


@pytest.mark.parametrize("case", list(BAD_INPUT))
def test_bad_input_is_one_line(case, bad_files, capsys):
    args = [a.format(**bad_files) for a in BAD_INPUT[case]]
    assert run_cli(args) != 0
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("acceptability ") and "error" in lines[0]
    assert "Traceback" not in captured.err + captured.out
    if "formula" in case:  # names the problem
        assert re.search(r"'(scor|phenomenom|dml)'|unbalanced|no model could be fitted",
                         lines[0]), lines[0]
        assert not os.path.exists(os.path.join(bad_files["tmp"], "rep", "report.html"))


def test_console_script_bad_input_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "acceptability.reports.cli", "evaluate", "--dataset",
                           "example", "--delta", "-1"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "delta" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_run_resumes_and_reruns_only_what_changed(tmp_path, capsys):
    base = ["run", "--dataset", "example", "--scores", "published", "--n-boot", "0",
            "--formula", "", "--out", str(tmp_path)]
    assert run_cli(base) == 0
    first = capsys.readouterr().err
    assert first.count(": done in") == 4
    html_mtime = (tmp_path / "report.html").stat().st_mtime_ns
    assert run_cli(base) == 0
    assert capsys.readouterr().err.count("up to date") == 4
    assert (tmp_path / "report.html").stat().st_mtime_ns == html_mtime
    assert run_cli([*base, "--delta", "0.5", "2"]) == 0
    err = capsys.readouterr().err
    assert "score: up to date" in err and "fit: up to date" in err
    assert "evaluate: done" in err and "report: done" in err
    assert "adc_2" in pd.read_csv(tmp_path / "evaluation.csv")


def test_evaluate_by_group_prints_intervals_or_says_why(li_adger_dir, tmp_path, capsys):
    """--n-boot with --by used to drop the intervals without a word; each LI-Adger
    phenomenon is one cluster, so its interval now comes from its pairs, and stderr says so."""
    out = tmp_path / "by.csv"
    assert run_cli(["evaluate", "--dataset", "li-adger", "--scores", "published", "--model",
                    "bert-large-cased_mlm", "--n-boot", "200", "--by", "phenomenon",
                    "--out", str(out)]) == 0
    table = pd.read_csv(out)
    paired = table["n_pairs"] > 0
    assert paired.sum() == 230 and table.loc[paired, "adc_1_lower"].notna().all()
    assert (table.loc[paired, "ci_unit"] == "pair").all()
    err = capsys.readouterr().err
    assert "each group resampled within itself: 230 phenomenon group(s) by their pairs" in err
    assert "6 phenomenon group(s) by their sentences (no pairs)" in err

