"""The training commands end to end with tiny models: settings from a TOML file and flags,
the files each writes, and one clear error for bad settings."""

from __future__ import annotations

import pandas as pd
import pytest

from acceptability import data
from acceptability.reports.cli.commands import main
from acceptability.scoring.training.lm import train_lm
from tests.conftest import need_data

TINY = ["--hidden-size", "32", "--layers", "2", "--heads", "2", "--intermediate-size", "64",
        "--max-length", "64", "--vocab-size", "400"]


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> str:
    need_data("aochildes")
    out = tmp_path_factory.mktemp("cli") / "masked"
    return str(train_lm(list(data.load_childes()["text"][:2000]), out, kind="masked",
                        vocab_size=1000, epochs=1, progress=False,
                        size={"hidden_size": 32, "layers": 2, "heads": 2,
                              "intermediate_size": 64, "max_length": 128}))


def test_learning_curve_command_from_toml(tmp_path, capsys):
    need_data("aochildes")
    need_data("zorro")
    config = tmp_path / "curve.toml"
    config.write_text('sizes = [1000, 1500, 2000]\nbenchmark = ["zorro"]\nmax_pairs = 5\n'
                      'epochs = 1\n')
    out = tmp_path / "curve"
    assert main(["learning-curve", "--config", str(config), "--out", str(out), *TINY]) == 0
    slopes = pd.read_csv(out / "slopes.csv")
    assert set(slopes["phenomenon"]) == {*data.load_zorro().pairs["phenomenon"], "overall"}
    assert (out / "learning_curve.png").stat().st_size > 10_000
    assert "overall" in capsys.readouterr().out
    curve = pd.read_csv(out / "curve.csv")
    assert sorted(curve["n_words"].unique()) == [1000, 1500, 2000]


def _sentences_file(ds, n: int, path) -> str:
    """The first `n` sentences of a real dataset as a sentences file (docs/tables.md)."""
    ds.sentences.iloc[:n][["sentence_id", "text", "label"]].to_csv(path, index=False)
    return str(path)


def test_finetune_and_training_order_commands(tmp_path, base, capsys):
    need_data("cola")
    need_data("li-adger")
    train = _sentences_file(data.load_cola(split="in_domain_train"), 300, tmp_path / "train.csv")
    dev = _sentences_file(data.load_cola(split="out_of_domain_dev"), 100, tmp_path / "dev.csv")
    out = tmp_path / "ft"
    # selected on the training sentences, which a tiny model can learn in a few epochs
    assert main(["finetune", "--model", base, "--train", train, "--eval", train, "--eval", dev,
                 "--select-on", "train", "--restarts", "2", "--epochs", "8",
                 "--learning-rate", "3e-3", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "dev" in printed and "selected:" in printed
    summary = pd.read_csv(out / "summary.csv")
    assert summary["split"].tolist() == ["train", "dev"]
    assert (summary["n_runs"] + summary["n_degenerate"] == 2).all()

    test = _sentences_file(data.load_li_adger(), 200, tmp_path / "li.csv")
    order = tmp_path / "order"
    assert main(["training-order", "--model", base, "--train", train, "--test", test,
                 "--shuffles", "2", "--epochs", "1", "--learning-rate", "1e-3",
                 "--out", str(order)]) == 0
    flips = pd.read_csv(order / "flips.csv")
    assert flips["n_shuffles"].tolist() == [1, 2] and flips["acrobatic"][0] == 0
    assert len(pd.read_csv(order / "sentences.csv")) == 200
    assert (order / "flips.png").is_file()


def test_bad_training_settings(tmp_path, capsys):
    config = tmp_path / "bad.toml"
    config.write_text("shuffels = 3\n")
    assert main(["training-order", "--config", str(config), "--model", "m",
                 "--out", str(tmp_path)]) == 2
    assert "unknown key 'shuffels' in the top level" in capsys.readouterr().err
    assert main(["training-order", "--out", str(tmp_path)]) == 2
    assert "training-order needs --model" in capsys.readouterr().err
    assert main(["learning-curve", "--out", str(tmp_path)]) == 2
    assert "learning-curve needs --sizes" in capsys.readouterr().err
