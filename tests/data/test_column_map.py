"""Issue 42 item 3: one way to map a user's column names for every table (Python
``columns=``, the command line's ``--column NAME=COLUMN``, an experiment file's ``[data]
columns``), and ratings that name no participant column while holding another column are
refused, the fix in the message (before, a ``subject`` column was silently ignored)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pandas as pd
import pytest

from acceptability import data
from acceptability.data.errors import DataError

SENTENCES = pd.DataFrame({"sentence_id": ["g1", "b1", "g2", "b2"],
                          "text": ["The cat sleeps.", "The cat sleep.", "Dogs bark.",
                                   "Dogs barks."]})
PAIRS = pd.DataFrame({"pair_id": ["p1", "p2"], "good_id": ["g1", "g2"], "bad_id": ["b1", "b2"]})
# a made-up toy table of the shape only: no test below reads its numbers as judgments
RATINGS = pd.DataFrame({"subject": ["w1", "w1", "w2", "w2", "w1", "w2"],
                        "sentence_id": ["g1", "b1", "g1", "b1", "g2", "b2"],
                        "response": [7, 2, 6, 3, 5, 1]})


def test_a_rater_column_of_another_name_is_refused_with_the_fix():
    with pytest.raises(DataError) as err:
        data.from_frames(SENTENCES, PAIRS, ratings=RATINGS, scale="likert:1-7")
    text = str(err.value)
    assert "no participant column" in text and "['subject']" in text
    assert "columns={'subject': 'participant'}" in text
    assert "--column subject=participant" in text
    with pytest.raises(DataError, match="subject"):
        data.validate_ratings(RATINGS, scale="likert:1-7")


def test_python_maps_the_column_in_from_frames_and_validate_ratings():
    ds = data.from_frames(SENTENCES, PAIRS, ratings=RATINGS, scale="likert:1-7",
                          columns={"subject": "participant"})
    assert ds.ratings["participant"].tolist() == RATINGS["subject"].tolist()
    table = data.validate_ratings(RATINGS, scale="likert:1-7", columns={"subject": "participant"})
    assert "subject" not in table and table["participant"].notna().all()


def test_one_map_serves_every_table(tmp_path):
    s = SENTENCES.rename(columns={"sentence_id": "id"})
    p = PAIRS.rename(columns={"good_id": "ok", "bad_id": "bad"})
    r = RATINGS.rename(columns={"sentence_id": "id", "response": "rating"})
    for frame, name in ((s, "s.csv"), (p, "p.csv"), (r, "r.csv")):
        frame.to_csv(tmp_path / name, index=False)
    columns = {"id": "sentence_id", "ok": "good_id", "bad": "bad_id", "rating": "response",
               "subject": "participant"}
    ds = data.read_dataset(tmp_path / "s.csv", tmp_path / "p.csv", ratings=tmp_path / "r.csv",
                           scale="likert:1-7", columns=columns)
    assert ds.pairs["good_id"].tolist() == ["g1", "g2"]
    assert ds.ratings[["participant", "sentence_id", "response"]].values.tolist()[0] == [
        "w1", "g1", 7.0]
    framed = data.from_frames(s, p, ratings=r, scale="likert:1-7", columns=columns)
    pd.testing.assert_frame_equal(framed.ratings, ds.ratings)


def test_a_map_of_a_column_no_table_has_and_a_clash_are_errors(tmp_path):
    with pytest.raises(DataError, match="no table has"):
        data.from_frames(SENTENCES, ratings=RATINGS, scale="likert:1-7",
                         columns={"worker": "participant"})
    clash = RATINGS.assign(participant=RATINGS["subject"])
    with pytest.raises(DataError, match="already has"):
        data.from_frames(SENTENCES, ratings=clash, scale="likert:1-7",
                         columns={"subject": "participant"})


def _cli(*args: str) -> tuple[int, str, str]:
    from acceptability.reports.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path) -> dict[str, Path]:
    paths = {k: tmp_path / f"{k}.csv" for k in ("sentences", "pairs", "ratings", "scores")}
    SENTENCES.to_csv(paths["sentences"], index=False)
    PAIRS.to_csv(paths["pairs"], index=False)
    RATINGS.to_csv(paths["ratings"], index=False)
    pd.DataFrame({"sentence_id": SENTENCES["sentence_id"], "model": "toy",
                  "score": [-10.0, -14.0, -8.0, -9.5]}).to_csv(paths["scores"], index=False)
    return paths


def _data_flags(files: dict[str, Path]) -> list[str]:
    return ["--sentences", str(files["sentences"]), "--pairs", str(files["pairs"]),
            "--ratings", str(files["ratings"]), "--scale", "likert:1-7"]


def test_the_command_line_refuses_then_maps_with_column(files):
    flags = [*_data_flags(files), "--scores", str(files["scores"]), "--n-boot", "0"]
    code, _, err = _cli("evaluate", *flags)
    assert code == 2 and "--column subject=participant" in err
    code, out, err = _cli("evaluate", *flags, "--column", "subject=participant")
    assert code == 0, err
    assert "human = z: each rating z-scored within its participant" in err
    code, _, err = _cli("evaluate", *flags, "--column", "subject")
    assert code == 2 and "is not NAME=COLUMN" in err


@pytest.mark.parametrize("command", ["score", "evaluate", "fit", "report", "run"])
def test_every_command_that_reads_data_takes_column(command):
    from acceptability.reports.cli import parser

    args = parser().parse_args([command, "--sentences", "s.csv", "--model", "m",
                                "--column", "subject=participant", "--column", "a=b"])
    assert args.column == ["subject=participant", "a=b"]


def test_an_experiment_file_maps_columns(files, tmp_path):
    from acceptability.reports import from_toml
    from acceptability.reports.cli.experiment import load_dataset

    toml = tmp_path / "experiment.toml"
    toml.write_text(f'name = "toy study"\n[data]\nsentences = "{files["sentences"].name}"\n'
                    f'pairs = "{files["pairs"].name}"\nratings = "{files["ratings"].name}"\n'
                    'scale = "likert:1-7"\ncolumns = {subject = "participant"}\n'
                    f'[scores]\nsource = "{files["scores"].name}"\n')
    exp = from_toml(toml)
    assert exp.columns == {"subject": "participant"} and exp.title() == \
        "acceptability report: toy study"
    ds = load_dataset(exp)
    assert ds.sentences.attrs["norming"] == "z" and ds.ratings["participant"].notna().all()
    from acceptability.reports.cli.experiment import Experiment

    with pytest.raises(DataError, match="your own files"):
        Experiment(dataset="example", columns={"a": "participant"})
