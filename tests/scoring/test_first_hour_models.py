"""A user's first hour with language models (issue 11, item 8): progress bars that stay out
of logs, warnings at the caller's line, a method per model, display names and the model
identity in provenance. Tiny models from tests/scoring_fixtures.py."""

from __future__ import annotations

import io
import json
import sys

import pytest

from tests.conftest import need_module

need_module("torch")
need_module("transformers")
pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

from acceptability import scoring  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")  # conftest: a cache per test


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_is_quiet_off_a_terminal(gpt2_dir, sentences, capsys, monkeypatch):
    scoring.score(sentences, gpt2_dir, cache=False, batch_size=2)
    assert "\r" not in capsys.readouterr().err  # a log file gets no redraws
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    scoring.score(sentences, gpt2_dir, cache=False, batch_size=2)
    assert "\r" in terminal.getvalue() and "logprob" in terminal.getvalue()


def test_scoring_warnings_point_at_the_callers_line(gpt2_dir, sentences, monkeypatch):
    from acceptability.scoring.run import prepack

    monkeypatch.setattr(prepack, "_free_memory", lambda: 1024)  # too little to pack
    with pytest.warns(UserWarning, match="not packing") as caught:
        scoring.score(sentences, gpt2_dir, cache=False, device="cpu")
    assert [w.filename for w in caught if "not packing" in str(w.message)] == [__file__]


def test_a_model_folder_is_named_by_its_name_with_its_weights_hash(gpt2_dir, sentences):
    from pathlib import Path

    from acceptability.scoring.models import directory_hash

    sc = scoring.score(sentences, gpt2_dir, cache=False)
    assert set(sc["model"]) == {f"{Path(gpt2_dir).name}_logprob"}  # not the absolute path
    assert set(sc["model_source"]) == {f"dir:{directory_hash(Path(gpt2_dir))}"}


@pytest.fixture
def own_files(example, tmp_path):
    ds, _ = example
    s, p = tmp_path / "s.csv", tmp_path / "p.csv"
    ds.sentences.to_csv(s, index=False)
    ds.pairs.to_csv(p, index=False)
    return ["--sentences", str(s), "--pairs", str(p)]


def test_a_method_per_model(gpt2_dir, bert_dir, own_files, tmp_path):
    import pandas as pd

    from acceptability import data
    from acceptability.reports.cli import commands as cli

    gpt2, bert = gpt2_dir.rstrip("/").split("/")[-1], bert_dir.rstrip("/").split("/")[-1]
    expected = {f"{gpt2}_logprob": "logprob", f"{bert}_pll": "pll"}
    for flags in (["--model", f"{gpt2_dir}:logprob", "--model", f"{bert_dir}:pll"],
                  ["--model", gpt2_dir, "--model", bert_dir, "--method", "logprob",
                   "--method", "pll"]):
        out = tmp_path / "scores.csv"
        assert cli.main(["score", *own_files, *flags, "--out", str(out)]) == 0
        sc = data.read_scores(out)
        assert dict(zip(sc["model"], sc["method"], strict=True)) == expected
    toml = tmp_path / "experiment.toml"
    toml.write_text(f'out = "run"\n[data]\nsentences = "s.csv"\npairs = "p.csv"\n'
                    f'[scores]\nsource = "score"\nmodels = ["{gpt2_dir}:logprob", '
                    f'"{bert_dir}:pll"]\n[analysis]\nn_boot = 0\nformula = ""\n')
    assert cli.main(["run", "--config", str(toml)]) == 0
    run = tmp_path / "run"
    assert set(pd.read_csv(run / "evaluation.csv")["model"]) == set(expected)
    models = json.loads((run / "provenance.json").read_text())["models"]
    assert {m["model"]: m["model_source"][:4] for m in models} == dict.fromkeys(expected, "dir:")


def test_an_unknown_method_is_one_clear_line(gpt2_dir, own_files, capsys):
    from acceptability.reports.cli import commands as cli

    assert cli.main(["score", *own_files, "--model", f"{gpt2_dir}:logrpob"]) == 2
    err = capsys.readouterr().err
    assert "unknown scoring method 'logrpob'" in err and err.count("\n") == 1
    assert cli.main(["score", *own_files, "--model", gpt2_dir, "--model", gpt2_dir,
                     "--method", "logprob", "--method", "pll", "--method", "pll"]) == 2
    assert "3 --method for 2 --model" in capsys.readouterr().err
