"""Settings files of the training commands (issue 43, items 2 and 12): ``learning-curve``,
``finetune`` and ``training-order --config FILE.toml`` take the experiment files' rules.
Every key is checked for its type and bounds before anything trains, each message naming
the file, the key and the type expected; every path in the file resolves against the
file's folder (``~`` the home), and a model that looks like a path but is not there is
refused rather than read as a hub id. Nothing here trains a model."""

from __future__ import annotations

from pathlib import Path

import pytest

from acceptability.reports.cli import parser
from acceptability.reports.cli.commands import main
from acceptability.reports.cli.training import settings

NEEDS = {"learning-curve": ["--sizes", "1000"], "finetune": ["--model", "gpt2"],
         "training-order": ["--model", "gpt2"]}  # what each command needs besides the file
DEEP = "[" * 5000 + "]" * 5000
# (command, the file's text, the key the message names, the type it names)
BAD = [
    ("learning-curve", 'sizes = "1000 2000"', "sizes",
     "a list of integers from 1 to 1,000,000,000, got '1000 2000'"),
    ("learning-curve", "sizes = [1000, 1.5]", "sizes", "a list of integers"),
    ("learning-curve", "sizes = [true]", "sizes", "a list of integers"),
    ("learning-curve", "sizes = [0]", "sizes", "from 1 to 1,000,000,000"),
    ("learning-curve", f"sizes = {DEEP}", "sizes", "nested"),
    ("learning-curve", 'epochs = "5"', "epochs", "a number in (0, 1,000]"),
    ("learning-curve", "epochs = true", "epochs", "a number"),
    ("learning-curve", "epochs = 1e9", "epochs", "a number in (0, 1,000]"),
    ("learning-curve", "epochs = nan", "epochs", "a number in (0, 1,000]"),
    ("learning-curve", "batch_size = 0", "batch_size", "an integer from 1 to 65,536"),
    ("learning-curve", "batch_size = true", "batch_size", "an integer"),
    ("learning-curve", "replicates = 9223372036854775807", "replicates", "from 1 to 1,000"),
    ("learning-curve", "max_pairs = true", "max_pairs", "an integer >= 1"),
    ("learning-curve", "hidden_size = 1.5", "hidden_size", "an integer"),
    ("learning-curve", 'benchmark = "zorro"', "benchmark",
     'a list of strings, got \'zorro\'. Fix: e.g. benchmark = ["zorro"]'),
    ("learning-curve", "corpus = 5", "corpus", "a string"),
    ("learning-curve", 'learning_rate = "fast"', "learning_rate", "a number"),
    ("learning-curve", "out = 5", "out", "a string"),
    ("learning-curve", "[out]\nx = 1", "out", "a string"),
    ("learning-curve", "shuffles = 3", "shuffles", "unknown key"),
    ("finetune", "restarts = 0", "restarts", "an integer from 1 to 1,000"),
    ("finetune", "until_kept = 1", "until_kept", "true or false"),
    ("finetune", 'eval = "dev.csv"', "eval", "a list of strings"),
    ("finetune", "model = 5", "model", "a string"),
    ("finetune", 'model = "./missing-model"', "missing-model", "not a folder or file"),
    ("finetune", 'model = "runs/words-600000"', "runs/words-600000", "hub:"),
    ("training-order", "shuffles = 9223372036854775807", "shuffles", "from 1 to 1,000"),
    ("training-order", "seed = -1", "seed", "an integer from 0 to 2**32-1"),
    ("training-order", 'seed = "x"', "seed", "an integer"),
    ("training-order", 'test = ["a.csv"]', "test", "a string"),
    ("training-order", "dtype = 16", "dtype", "a string"),
]


@pytest.mark.parametrize(("command", "text", "key", "expected"), BAD,
                         ids=[f"{b[0]}-{b[2]}{i}" for i, b in enumerate(BAD)])
def test_a_bad_value_is_refused_before_anything_trains(command, text, key, expected, tmp_path,
                                                        capsys):
    toml = tmp_path / "settings.toml"
    toml.write_text(text + "\n")
    out = tmp_path / "out"
    assert main([command, "--config", str(toml), "--out", str(out), *NEEDS[command]]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unexpected" not in err
    assert str(toml) in err and key in err and expected in err, err
    assert len(err) < 1000 and not out.exists()


@pytest.mark.parametrize(("argv", "said"), [
    (["learning-curve", "--sizes", "0"], "--sizes must be a list of integers from 1"),
    (["learning-curve", "--sizes", "1000", "--epochs", "0"], "--epochs must be a number in"),
    (["finetune", "--model", "gpt2", "--restarts", "100000"], "--restarts must be an integer"),
    (["training-order", "--model", "gpt2", "--shuffles", "0"], "--shuffles must be an integer"),
])
def test_the_flags_share_the_files_bounds(argv, said, tmp_path, capsys):
    out = tmp_path / "out"
    assert main([*argv, "--out", str(out)]) != 0
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and not out.exists(), err


def test_every_path_resolves_against_the_files_folder(tmp_path, monkeypatch):
    """Run from another working folder: the file's out, corpus, model, train, test and eval
    are beside the file (``~`` the home); a flag's path stays the working folder's, and
    flags win over the file."""
    folder, home, elsewhere = tmp_path / "study", tmp_path / "home", tmp_path / "elsewhere"
    for made in (folder / "base", home, elsewhere):
        made.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(elsewhere)
    toml = folder / "order.toml"
    toml.write_text('out = "~/runs/order"\nmodel = "base"\ntrain = "train.csv"\n'
                    'test = "li-adger"\nshuffles = 3\n')
    args = parser().parse_args(["training-order", "--config", str(toml)])
    s = settings(args)
    assert s["out"] == str(home / "runs" / "order")
    assert s["model"] == str(folder / "base") and s["train"] == str(folder / "train.csv")
    assert s["test"] == "li-adger" and s["shuffles"] == 3  # a named dataset stays a name
    args = parser().parse_args(["training-order", "--config", str(toml), "--out", "here",
                                "--shuffles", "2"])
    assert (settings(args)["out"], settings(args)["shuffles"]) == ("here", 2)

    toml = folder / "ft.toml"
    toml.write_text('out = "ft"\nmodel = "bert-base-uncased"\ntrain = "cola"\n'
                    'eval = ["dev.csv", "../test.csv"]\n')
    s = settings(parser().parse_args(["finetune", "--config", str(toml)]))
    assert s["model"] == "bert-base-uncased" and s["train"] == "cola"  # a hub id, a name
    assert s["eval"] == [str(folder / "dev.csv"), str(tmp_path / "test.csv")]
    assert s["out"] == str(folder / "ft")
    toml.write_text('out = "ft"\nmodel = "hub:owner/words-600000"\n')  # the hub, said so
    s = settings(parser().parse_args(["finetune", "--config", str(toml)]))
    assert s["model"] == "owner/words-600000"

    toml = folder / "curve.toml"
    toml.write_text('out = "curve"\ncorpus = "utterances.txt"\nsizes = [1000, 2000]\n')
    s = settings(parser().parse_args(["learning-curve", "--config", str(toml)]))
    assert s["corpus"] == str(folder / "utterances.txt") and s["sizes"] == [1000, 2000]


def test_the_examples_read_as_the_docs_say(monkeypatch, tmp_path, capsys):
    """examples/learning_curve.toml writes its models where examples/training_order.toml
    reads one (both relative to examples/), from any working folder; before the learning
    curve has run, training-order stops naming the missing model, never the hub."""
    examples = Path(__file__).resolve().parents[3] / "examples"
    monkeypatch.chdir(tmp_path)
    curve = settings(parser().parse_args(
        ["learning-curve", "--config", str(examples / "learning_curve.toml")]))
    assert curve["out"] == str(examples.parent / "runs" / "learning-curve")
    model = Path(curve["out"]) / "replicate-0" / "words-600000"
    if model.exists():  # the example has run here: the model is that folder
        order = settings(parser().parse_args(
            ["training-order", "--config", str(examples / "training_order.toml")]))
        assert order["model"] == str(model)
    else:
        assert main(["training-order", "--config", str(examples / "training_order.toml")]) != 0
        err = capsys.readouterr().err
        assert str(model) in err and "not a folder or file" in err, err


def test_the_table_and_message_the_docs_show(tmp_path, capsys):
    """docs/training.md lists every key of ``TRAINING`` with its type and bounds, and its
    example message is what the command prints."""
    from acceptability.reports.cli import experiment_schema as schema

    page = (Path(__file__).resolve().parents[3] / "docs" / "training.md").read_text()
    for row in schema.rows(schema.TRAINING):
        assert "| " + " | ".join(row) + " |" in page, row
    toml = tmp_path / "order.toml"
    toml.write_text("shuffles = -1\n")
    assert main(["training-order", "--config", str(toml), "--model", "gpt2",
                 "--out", str(tmp_path / "out")]) != 0
    said = capsys.readouterr().err.split(f"{tmp_path}/")[1].strip()
    shown = ("order.toml: shuffles must be an integer from 1 to 1,000, got -1. Fix: e.g.\n"
             "shuffles = 10")
    assert " ".join(shown.split()) in " ".join(page.split()) and said == " ".join(shown.split())
