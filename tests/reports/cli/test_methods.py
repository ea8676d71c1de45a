"""The scoring methods the command line and the example experiment name are the registry's
(``scoring.registry.METHODS``): a method added there shows in ``acceptability score --help``
without an edit here, and the example file cannot fall behind it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from acceptability.reports.cli import parser
from acceptability.scoring.registry import METHODS

REPO = Path(__file__).resolve().parents[3]
NEW = ("seq2seq", "seq2seq_pll", "mntp", "mntp_word_l2r")  # issue 33's methods


@pytest.mark.parametrize("command", ["score", "run"])
def test_the_method_help_lists_every_registered_method(command, capsys):
    with pytest.raises(SystemExit):
        parser().parse_args([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps the help
    assert ", ".join(METHODS) in text
    assert set(NEW) <= set(METHODS)


def test_the_example_experiment_lists_every_registered_method():
    lines = (REPO / "examples" / "experiment.toml").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("# method ="))
    comment = [lines[start].split("#", 2)[2]]
    comment += [line.split("#", 1)[1] for line in lines[start + 1:]
                if line.startswith(" ") and line.lstrip().startswith("#")][:2]
    named = re.findall(r"[a-z][a-z0-9_]+", " ".join(comment))
    assert [m for m in named if m in METHODS] == list(METHODS)
