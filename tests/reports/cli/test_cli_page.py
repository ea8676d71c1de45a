"""docs/cli.md's section on column names, the report's title and the norming (issue 42):
every command that reads data takes ``--column``, ``report`` and ``run`` take ``--name``,
and the page's experiment file, beside TurBLiMP's Latin-square study as a user's files
(tests/latin_square.py), loads the data Python's ``read_dataset`` with the same column map
and ``stats.with_norming``'s default give, under the page's title."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability import data, stats
from acceptability.reports.cli.commands import parser
from acceptability.reports.cli.experiment import from_toml, load_dataset

PAGE = Path(__file__).resolve().parents[3] / "docs" / "cli.md"
READERS = ("score", "evaluate", "fit", "report", "run")  # the commands that read data


def _help(command: str) -> str:
    sub = next(a for a in parser()._actions if a.dest == "command")
    return sub.choices[command].format_help()


def test_every_command_that_reads_data_maps_columns_and_reports_take_a_name():
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "(`score`, `evaluate`, `fit`, `report`, `run`) takes `--column NAME=COLUMN`" in text
    for command in READERS:
        flags = set(re.findall(r"--[a-z-]+", _help(command)))
        assert {"--column", "--norming"} <= flags, command
        assert ("--name" in flags) == (command in ("report", "run")), command


def test_the_pages_experiment_file_reads_the_study_as_python_does(latin_square_files,
                                                                  tmp_path):
    toml = re.search(r"```toml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S).group(1)
    (tmp_path / "turblimp-study").mkdir()
    for path in latin_square_files.values():
        shutil.copy(path, tmp_path / "turblimp-study" / path.name)
    s = pd.read_csv(latin_square_files["sentences"], dtype=str)
    pd.DataFrame({"sentence_id": s["sentence_id"], "model": "length",
                  "score": -s["text"].str.len()}).to_csv(tmp_path / "length.csv", index=False)
    (tmp_path / "experiment.toml").write_text(toml, encoding="utf-8")
    exp = from_toml(tmp_path / "experiment.toml")
    assert exp.columns == {"subject": "participant"} and exp.norming == "auto"
    assert exp.title() == "acceptability report: TurBLiMP"
    loaded = load_dataset(exp)
    python = stats.with_norming(data.read_dataset(
        latin_square_files["sentences"], pairs=latin_square_files["pairs"],
        ratings=latin_square_files["ratings"], scale="likert:1-7",
        columns={"subject": "participant"}), "auto")
    assert loaded.ratings["participant"].nunique() == 30  # the 30 raters, mapped
    np.testing.assert_array_equal(loaded.sentences["human"].to_numpy(float),
                                  python.sentences["human"].to_numpy(float))
    # auto = z within participant (sample SD), averaged per sentence: recomputed here
    r = pd.read_csv(latin_square_files["ratings"], dtype={"subject": str})
    z = r.groupby("subject")["response"].transform(lambda x: (x - x.mean()) / x.std(ddof=1))
    human = z.groupby(r["sentence_id"]).mean().reindex(loaded.sentences["sentence_id"])
    np.testing.assert_allclose(loaded.sentences["human"].to_numpy(float), human.to_numpy(),
                               rtol=0, atol=1e-12)
