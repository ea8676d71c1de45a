"""Experiment files (issue 43, items 1, 2 and 12): a file cannot switch remote code on by
itself (the person running it passes ``--trust-remote-code``); every path in it, models
included, resolves against the file's folder, and a model that looks like a path but is not
there is refused rather than read as a hub id; one schema checks every value before anything
runs, each message naming the key, the type expected and the file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from acceptability.data.errors import DataError
from acceptability.reports import cli
from acceptability.reports.cli.experiment import from_toml, model_method
from tests.conftest import need_module

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

ROOT = Path(__file__).resolve().parents[3]


def _remote_model(folder: Path, marker: Path) -> Path:
    """A model folder whose config needs its own code (auto_map); that code, when it runs,
    writes ``marker``."""
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({
        "model_type": "acceptability_marker_test", "architectures": ["MarkerForCausalLM"],
        "auto_map": {"AutoConfig": "configuration_marker.MarkerConfig",
                     "AutoModelForCausalLM": "modeling_marker.MarkerForCausalLM"}}))
    code = (f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
            "raise RuntimeError('remote code ran')\n")
    for module in ("configuration_marker", "modeling_marker"):
        (folder / f"{module}.py").write_text(code)
    return folder


def _cli(args: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess:
    """``acceptability ARGS`` in a fresh process run from ``cwd``, transformers' module
    cache (where it copies a model's own code) and the score cache under ``home``."""
    env = dict(os.environ, HF_MODULES_CACHE=str(home / "modules"),
               ACCEPTABILITY_CACHE_DIR=str(home / "cache"), HOME=str(home))
    return subprocess.run([sys.executable, "-m", "acceptability.reports.cli", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)


def test_a_file_cannot_switch_remote_code_on_without_the_flag(tmp_path):
    need_module("transformers")
    marker = tmp_path / "remote-code-ran"
    model = _remote_model(tmp_path / "exp" / "custom-model", marker)
    toml = tmp_path / "exp" / "experiment.toml"
    toml.write_text('out = "out"\n[data]\ndataset = "example"\n[scores]\nsource = "score"\n'
                    f'models = [{str(model) + ":logprob"!r}]\ntrust_remote_code = true\n'
                    '[analysis]\nn_boot = 0\nformula = ""\n')
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    refused = _cli(["run", "--config", str(toml)], elsewhere, tmp_path)
    assert refused.returncode != 0 and not marker.exists()
    assert str(toml) in refused.stderr and "--trust-remote-code" in refused.stderr
    assert "Traceback" not in refused.stderr and "unexpected" not in refused.stderr
    assert not (tmp_path / "exp" / "out").exists()  # stopped before anything ran
    _cli(["run", "--config", str(toml), "--trust-remote-code"], elsewhere, tmp_path)
    assert marker.read_text() == "ran"  # the person running it asked: the code runs


def test_python_asks_for_remote_code_with_the_argument(tmp_path):
    toml = tmp_path / "experiment.toml"
    toml.write_text('[scores]\nsource = "score"\nmodels = ["gpt2"]\ntrust_remote_code = true\n')
    with pytest.raises(DataError, match="trust_remote_code=True") as caught:
        from_toml(toml)
    assert str(toml) in str(caught.value)
    assert from_toml(toml, trust_remote_code=True).trust_remote_code
    toml.write_text('[scores]\nsource = "score"\nmodels = ["gpt2"]\n')
    assert not from_toml(toml).trust_remote_code
    assert from_toml(toml, trust_remote_code=True).trust_remote_code


def test_every_path_resolves_against_the_files_folder(tmp_path, monkeypatch):
    folder = tmp_path / "exp"
    (folder / "models" / "tiny").mkdir(parents=True)
    (folder / "lm.gguf").write_bytes(b"")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    toml = folder / "experiment.toml"
    toml.write_text('out = "~/reports/x"\n[data]\nsentences = "s.csv"\npairs = "../p.csv"\n'
                    'ratings = "./r.csv"\nscale = "likert:1-7"\n[scores]\nsource = "score"\n'
                    'models = ["models/tiny:logprob", "./models/tiny", "lm.gguf", "gpt2", '
                    '"hub:openai-community/gpt2:pll"]\n')
    exp = from_toml(toml)
    assert exp.out == str(tmp_path / "home" / "reports" / "x")  # ~ is the home, not a folder
    assert (exp.sentences, exp.pairs, exp.ratings) == (
        str(folder / "s.csv"), str(tmp_path / "p.csv"), str(folder / "r.csv"))
    tiny = str(folder / "models" / "tiny")
    assert exp.scoring_plan() == [(tiny, "logprob"), (tiny, "logprob"),
                                  (str(folder / "lm.gguf"), "logprob"), ("gpt2", "logprob"),
                                  ("openai-community/gpt2", "pll")]
    toml.write_text('[data]\ndataset = "example"\n[scores]\nsource = "scores.csv"\n'
                    '[analysis]\nn_boot = 0\n')
    assert from_toml(toml).scores == str(folder / "scores.csv")
    assert model_method("hub:org/m:pll", "logprob") == ("org/m", "pll")  # --model too
    assert model_method("hub:gpt2", "logprob") == ("gpt2", "logprob")


@pytest.mark.parametrize("model", ["models/gpt2", "./gpt2", "../gpt2", "~/gpt2",
                                   "/no/such/gpt2", "gpt2.gguf"])
def test_a_model_that_looks_like_a_path_and_is_not_there_is_refused(model, tmp_path,
                                                                    monkeypatch, capsys):
    folder = tmp_path / "exp"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)
    if model == "models/gpt2":
        (tmp_path / "models" / "gpt2").mkdir(parents=True)  # beside the cwd, not the file
    toml = folder / "experiment.toml"
    toml.write_text(f'[data]\ndataset = "example"\n[scores]\nsource = "score"\n'
                    f'models = ["{model}:logprob"]\n[analysis]\nn_boot = 0\n')
    assert cli.main(["run", "--config", str(toml)]) != 0
    err = capsys.readouterr().err
    assert str(toml) in err and f"hub:{model}" in err and "unexpected" not in err
    assert "not a folder or file next to the experiment file" in err


def test_a_local_model_runs_from_another_working_folder(tmp_path, gpt2_dir):
    folder = tmp_path / "exp"
    shutil.copytree(gpt2_dir, folder / "models" / "gpt2")
    toml = folder / "experiment.toml"
    toml.write_text('out = "out"\n[data]\ndataset = "example"\n[scores]\nsource = "score"\n'
                    'models = ["models/gpt2:logprob"]\n[analysis]\nn_boot = 0\nformula = ""\n')
    (tmp_path / "elsewhere").mkdir()
    done = _cli(["run", "--config", str(toml)], tmp_path / "elsewhere", tmp_path)
    assert done.returncode == 0, done.stderr
    import pandas as pd

    scores = pd.read_parquet(folder / "out" / "scores.parquet")
    assert set(scores["model"]) == {"gpt2_logprob"}
    assert set(scores["model_source"].str[:4]) == {"dir:"}  # the folder, not the hub


DEEP = "[" * 5000 + "]" * 5000
# (the file's text, the key the message names, the type it names)
BAD = [
    ("[analysis]\nn_boot = 1.5", "n_boot", "an integer"),
    ('[analysis]\nn_boot = "many"', "n_boot", "an integer"),
    ("[analysis]\nn_boot = 9223372036854775807", "n_boot", "1,000,000"),
    ("[analysis]\nn_boot = -1", "n_boot", "from 20 to 1,000,000, or 0 (no intervals)"),
    # fewer than stats' MIN_N_BOOT: refused by the file, not by stats after scoring
    ('[data]\ndataset = "example"\n[analysis]\nn_boot = 5', "n_boot", "from 20 to 1,000,000"),
    ('[data]\ndataset = "example"\n[analysis]\nn_boot = 19', "n_boot", "from 20 to 1,000,000"),
    ('[analysis]\nseed = "x"', "seed", "an integer"),
    ("[analysis]\nseed = -1", "seed", "seed must be an integer from 0 to 2**32-1"),
    ("[analysis]\nseed = 4294967296", "seed", "2**32-1"),
    ("[analysis]\nseed = true", "seed", "an integer"),
    ('[analysis]\nby = ["a", "b"]', "by", "a string"),
    ("[analysis]\nformula = 5", "formula", "a string"),
    ('[analysis]\ndeltas = ["a"]', "deltas", "a list of numbers"),
    ("[analysis]\ndeltas = 0.5", "deltas", "a list of numbers"),
    ("[analysis]\ndeltas = [0]", "deltas", "in (0, 100]"),
    (f"[analysis]\nby = {DEEP}", "by", "nested"),
    ("[analysis]\nby = " + "[" * 100 + "]" * 100, "by", "a string"),
    ('[scores]\nsource = "score"\nmodels = "/path/gpt2"', "models",
     'a list of strings, got \'/path/gpt2\'. Fix: e.g. models = ["/path/gpt2"]'),
    ('[scores]\nsource = "score"\nmodels = ["gpt2", 2]', "models", "a list of strings"),
    ('[scores]\nsource = "score"\nmodels = ["gpt2"]\nrecheck = "yes"', "recheck", "true or false"),
    ('[scores]\nsource = "score"\nmodels = ["gpt2"]\nbatch_tokens = 0', "batch_tokens",
     "an integer >= 1"),
    ('[scores]\nsource = "score"\nmodels = ["gpt2"]\nmax_memory = 5', "max_memory",
     "a string or a table"),
    ('[data]\ndataset = "example"\nmax_pairs = true', "max_pairs", "an integer >= 1"),
    ('[data]\ndataset = "example"\nmax_sentences = 0', "max_sentences", "an integer >= 1"),
    ('[data]\ndataset = "blimp"\nparadigms = "wh_island"', "paradigms", "a list of strings"),
    ('[data]\nsentences = "s.csv"\ncolumns = {a = 1}', "columns", "a table of strings"),
    ("[data]\ndataset = 3", "dataset", "a string"),
    ("out = 5", "out", "a string"),
    ("data = 5", "data", "a table"),
    ("[analysis]\nnboot = 5", "nboot", "unknown key"),
]


@pytest.mark.parametrize(("text", "key", "expected"), BAD, ids=[b[1] + str(i) for i, b in
                                                                 enumerate(BAD)])
def test_a_bad_value_is_refused_before_anything_runs(text, key, expected, tmp_path, capsys):
    toml = tmp_path / "experiment.toml"
    toml.write_text(f'out = "out"\n{text}\n' if not text.startswith("out") else text + "\n")
    assert cli.main(["run", "--config", str(toml)]) != 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unexpected" not in err
    assert str(toml) in err and key in err and expected in err, err
    assert len(err) < 1000 and not (tmp_path / "out").exists()


def test_the_files_bounds_are_the_statistics_bounds():
    """One implementation of the limits: the schema's are stats.arguments' (issue 43)."""
    from acceptability.reports.cli import experiment_schema as schema
    from acceptability.stats import arguments

    key = schema.SCHEMA["analysis"]["n_boot"]
    assert (key.low, key.high) == (arguments.MIN_N_BOOT, arguments.MAX_N_BOOT)
    assert key.fits(0) and not key.fits(arguments.MIN_N_BOOT - 1)
    assert schema.SCHEMA["analysis"]["seed"].high == arguments.MAX_SEED
    assert schema.SCHEMA["analysis"]["deltas"].high == arguments.MAX_DELTA


def test_the_schema_is_one_table_the_docs_list():
    """docs/cli.md lists every key of the schema with its type and bounds."""
    from acceptability.reports.cli import experiment_schema as schema

    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for row in schema.rows():
        assert "| " + " | ".join(row) + " |" in page, row
    for table in schema.SCHEMA.values():  # each example is TOML the schema takes
        for key in table.values():
            assert key.fits(tomllib.loads(f"x = {key.example}")["x"]), key
    fields = {key.field for table in schema.SCHEMA.values() for key in table.values()}
    from dataclasses import fields as dataclass_fields

    from acceptability.reports.cli.experiment import Experiment

    assert fields <= {f.name for f in dataclass_fields(Experiment)}


@pytest.mark.parametrize("flags, said", [
    (["--n-boot", str(2**63 - 1)], "n_boot must be an integer from 20 to 1,000,000, or 0"),
    (["--n-boot", "5"], "n_boot must be an integer from 20 to 1,000,000, or 0"),
    (["--max-pairs", "0"], "max_pairs must be an integer >= 1"),
])
def test_the_flags_share_the_files_bounds(flags, said, tmp_path, capsys):
    """The bounds on work hold for flags too (2**63-1 resamples ran until killed)."""
    assert cli.main(["run", "--dataset", "example", "--out", str(tmp_path / "out"),
                     *flags]) != 0
    assert said in capsys.readouterr().err and not (tmp_path / "out").exists()
