"""Models that need code of their own (issue 30, item 8): refused by default with a message
that names the folder and the opt-in; with ``trust_remote_code`` (``--trust-remote-code``)
transformers is asked to run it, a warning says whose code runs, and the score cache keeps
those scores apart. No remote code runs here: transformers is replaced where it would."""

from __future__ import annotations

import json
import warnings

import pytest

from acceptability import scoring
from acceptability.data.errors import DataError
from acceptability.reports import cli
from acceptability.reports.cli.experiment import Experiment
from tests.conftest import need_module

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

transformers = need_module("transformers")


@pytest.fixture
def remote_dir(tmp_path):
    """A model folder whose config names a model type transformers does not know and the
    classes of its own code (auto_map); the code, were it ever run, raises."""
    folder = tmp_path / "custom-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "model_type": "acceptability_custom_test",
        "architectures": ["CustomForCausalLM"],
        "auto_map": {"AutoConfig": "configuration_custom.CustomConfig",
                     "AutoModelForCausalLM": "modeling_custom.CustomForCausalLM"},
    }))
    for module in ("configuration_custom", "modeling_custom"):
        (folder / f"{module}.py").write_text("raise RuntimeError('remote code ran')\n")
    return folder


def test_a_model_with_code_of_its_own_is_refused_by_default(remote_dir):
    with pytest.raises(scoring.ScoringError) as caught:
        scoring.load_model(str(remote_dir), "causal")
    message = str(caught.value)
    assert str(remote_dir) in message and "trust_remote_code=True" in message
    assert "--trust-remote-code" in message and "hub" not in message


def test_the_command_line_names_the_folder_and_the_flag(remote_dir, tmp_path, capsys,
                                                        monkeypatch):
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    code = cli.main(["score", "--dataset", "example", "--model", f"{remote_dir}:logprob",
                     "--out", str(tmp_path / "scores.parquet")])
    err = capsys.readouterr().err
    assert code != 0 and "error:" in err
    assert str(remote_dir) in err and "--trust-remote-code" in err
    assert not (tmp_path / "scores.parquet").exists()


@pytest.fixture
def asked(monkeypatch, gpt2_dir):
    """Record the ``trust_remote_code`` each from_pretrained the package calls gets (not
    transformers' own calls inside them), and load the tiny GPT-2 in place of whatever was
    asked for (so no remote code can run)."""
    calls: dict[str, list] = {}
    inside: list[str] = []
    for cls in (transformers.AutoConfig, transformers.AutoModelForCausalLM,
                transformers.AutoTokenizer):
        real = cls.from_pretrained

        def fake(name, *args, _real=real, _cls=cls.__name__, **kwargs):
            if not inside:
                calls.setdefault(_cls, []).append(kwargs.get("trust_remote_code"))
            kwargs.pop("trust_remote_code", None)
            inside.append(_cls)
            try:
                return _real(gpt2_dir, *args, **kwargs)
            finally:
                inside.pop()

        monkeypatch.setattr(cls, "from_pretrained", fake)
    return calls


def test_trust_remote_code_is_passed_to_transformers_with_a_warning(remote_dir, asked):
    with pytest.warns(UserWarning, match="trust_remote_code") as caught:
        lm = scoring.load_model(str(remote_dir), "causal", trust_remote_code=True)
    assert str(remote_dir) in str(caught[0].message)
    assert asked == {"AutoConfig": [True], "AutoModelForCausalLM": [True],
                     "AutoTokenizer": [True]}
    assert lm.identity.endswith("|trust_remote_code") and lm.trust_remote_code


def test_off_it_is_passed_as_false(gpt2_dir, asked):
    """Passed explicitly: left out, transformers asks on a terminal whether to run it."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lm = scoring.load_model(gpt2_dir, "causal")
    assert not [w for w in caught if "trust_remote_code" in str(w.message)]
    assert asked == {"AutoConfig": [False], "AutoModelForCausalLM": [False],
                     "AutoTokenizer": [False]}
    assert "trust_remote_code" not in lm.identity  # the cache keys of every cache so far


def test_the_cache_keeps_scores_with_remote_code_apart(gpt2_dir):
    """The same weights with their own code may compute something else."""
    plain = scoring.load_model(gpt2_dir, "causal")
    with pytest.warns(UserWarning, match="trust_remote_code"):
        trusted = scoring.load_model(gpt2_dir, "causal", trust_remote_code=True)
    assert plain.source == trusted.source and plain.identity != trusted.identity


def test_the_flag_reaches_transformers_from_the_command_line(remote_dir, tmp_path, asked,
                                                              capsys, monkeypatch):
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "scores.parquet"
    with pytest.warns(UserWarning, match="trust_remote_code"):
        code = cli.main(["score", "--dataset", "example", "--model", f"{remote_dir}:logprob",
                         "--trust-remote-code", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert set(asked) == {"AutoConfig", "AutoModelForCausalLM", "AutoTokenizer"}
    assert all(asked[name] == [True] for name in asked)
    assert out.is_file()


def test_an_experiment_file_takes_it_as_true_or_false():
    assert Experiment(scores=None, models=("m",), trust_remote_code=True).trust_remote_code
    with pytest.raises(DataError, match="trust_remote_code must be true or false"):
        Experiment(scores=None, models=("m",), trust_remote_code="yes")
    settings = Experiment(scores=None, models=("m",), trust_remote_code=True).scores_settings()
    assert settings["trust_remote_code"] is True  # in provenance and the step's fingerprint
    assert "trust_remote_code" not in Experiment(scores=None, models=("m",)).scores_settings()
