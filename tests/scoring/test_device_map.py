"""Models spread by transformers/accelerate (`load_model(device_map=...)`): on this CPU
machine "auto" keeps a tiny model whole, a tiny CPU budget sends it to the disk (weights on
'meta', moved in by accelerate's hooks at each forward pass, beside scoring's own hooks on
the output layer), and every placement scores what a plain one-device load scores."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from acceptability import scoring
from acceptability.reports import cli
from acceptability.scoring.models import _float32_head, input_device

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-4
CASES = [("gpt2_dir", "causal", "logprob"), ("bert_dir", "masked", "pll")]
# Whole parts on the disk, the rest on the CPU; tied weights (input embeddings and output
# layer) together, as accelerate requires. Explicit maps: infer_auto_device_map of
# transformers 5.24 raises IndexError on some CPU budgets between "all" and "none" for
# models with tied weights (get_module_size_with_ties).
SPLIT_MAPS = {
    "gpt2_dir": {"transformer.wte": "disk", "lm_head": "disk", "transformer.wpe": "cpu",
                 "transformer.drop": "cpu", "transformer.h": "cpu", "transformer.ln_f": "cpu"},
    "bert_dir": {"bert.embeddings": "cpu", "bert.encoder": "disk", "cls": "cpu"},
}


def _scores(texts, model, method, **kw):
    return scoring.score(texts, model, method, cache=False, progress=False, **kw)["score"].to_numpy()


def _packed(lm) -> bool:
    """Whether any layer runs through scoring.run.prepack's oneDNN forward (accelerate's hooks
    replace `forward` too)."""
    forwards = (vars(m).get("forward") for m in lm.model.modules())
    return any(getattr(f, "__qualname__", "").startswith("_packed_forward") for f in forwards)


@pytest.mark.parametrize(("fixture", "kind", "method"), CASES)
def test_device_map_auto_on_the_cpu_scores_as_a_plain_load(request, fixture, kind, method, sentences):
    """Whole on the first device "auto" finds (here the CPU; on a GPU machine the GPU), and
    with a CPU budget alone on the CPU anywhere; never packed, the identity a plain load's."""
    path = request.getfixturevalue(fixture)
    plain = scoring.load_model(path, kind, device="cpu")
    expected = _scores(sentences, plain, method)
    auto = scoring.load_model(path, kind, device_map="auto")
    on_cpu = scoring.load_model(path, kind, device_map="auto", max_memory={"cpu": "1GiB"})
    assert auto.device.startswith(scoring.models.pick_device()) and auto.device_map == {"": auto.device}
    assert (on_cpu.device, on_cpu.device_map, plain.device_map) == ("cpu", {"": "cpu"}, None)
    assert auto.identity == on_cpu.identity == plain.identity  # the cache serves all three
    assert _packed(plain) == scoring.run.prepack.packing_supported(plain.model.dtype)
    for lm in (auto, on_cpu):
        assert not _packed(lm)
        np.testing.assert_allclose(_scores(sentences, lm, method), expected, atol=TOL)


@pytest.mark.parametrize(("fixture", "kind", "method"), CASES)
def test_weights_offloaded_to_the_disk_score_as_a_plain_load(request, fixture, kind, method,
                                                            sentences, tmp_path):
    """All on the disk (a CPU budget smaller than any layer), then a split map: the output
    layer's weight waits on 'meta' until accelerate's hook loads it, after scoring's hook
    picked the rows to read."""
    path = request.getfixturevalue(fixture)
    expected = _scores(sentences, scoring.load_model(path, kind, device="cpu"), method)
    disk = scoring.load_model(path, kind, device_map="auto", max_memory={"cpu": 1000},
                              offload_folder=tmp_path)
    split = scoring.load_model(path, kind, device_map=SPLIT_MAPS[fixture])
    assert disk.device_map == {"": "disk"} and split.device_map == SPLIT_MAPS[fixture]
    for lm in (disk, split):
        assert lm.device == "cpu" and not _packed(lm)
        np.testing.assert_allclose(_scores(sentences, lm, method), expected, atol=TOL)
    assert disk.model.get_input_embeddings().weight.is_meta
    assert disk.model.get_output_embeddings().weight.is_meta
    assert split.model.get_output_embeddings().weight.is_meta == (fixture == "gpt2_dir")


def test_pll_word_l2r_and_token_scores_run_offloaded(bert_dir, sentences):
    lm = scoring.load_model(bert_dir, "masked", device_map="auto", max_memory={"cpu": 1000})
    plain = scoring.load_model(bert_dir, "masked", device="cpu")
    np.testing.assert_allclose(_scores(sentences, lm, "pll_word_l2r"),
                               _scores(sentences, plain, "pll_word_l2r"), atol=TOL)
    tokens = [scoring.token_scores(sentences, m, "pll", cache=False, progress=False)["logprob"]
              for m in (lm, plain)]
    np.testing.assert_allclose(tokens[0], tokens[1], atol=TOL)


def test_bfloat16_offloaded_keeps_the_cpu_output_layer_widened_to_float32(gpt2_dir, sentences):
    """The output layer runs on the CPU, so its float32 copy is kept, read from accelerate's
    store of the offloaded weights (loaded in bfloat16): the scores are a plain bfloat16
    load's with that head, and within bfloat16 precision (2^-8) of float32's."""
    import torch

    lm = scoring.load_model(gpt2_dir, "causal", device_map="auto", max_memory={"cpu": 1000},
                            dtype="bfloat16")
    stored = lm.model.get_output_embeddings()._hf_hook.weights_map["weight"]
    assert stored.dtype == torch.bfloat16 and lm.model.get_output_embeddings().weight.is_meta
    torch.testing.assert_close(lm.head_fp32[0], stored.float(), rtol=0, atol=0)
    plain = scoring.load_model(gpt2_dir, "causal", device="cpu", dtype="bfloat16", prepack=False)
    plain.head_fp32 = (plain.head_fp32[0].bfloat16().float(), plain.head_fp32[1])
    got = _scores(sentences, lm, "logprob")
    np.testing.assert_allclose(got, _scores(sentences, plain, "logprob"), atol=1e-5)
    fp32 = _scores(sentences, gpt2_dir, "logprob", device="cpu")
    assert (np.abs(got - fp32) <= 2**-8 * np.abs(fp32)).all() and (got != fp32).any()


def test_a_float32_head_only_where_the_output_layer_runs_on_the_cpu():
    """On CUDA or MPS a bfloat16 model is plainly bfloat16 (issue 34): no float32 copy of
    the output layer where it runs elsewhere than the CPU, whether it is on 'meta', named
    by `device`, or run on a GPU by an accelerate hook (faked: this machine has none)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(vocab_size=50, n_embd=8, n_layer=1, n_head=2, n_positions=16)
    model = GPT2LMHeadModel(config)
    weight, bias = _float32_head(model)
    assert weight.dtype == torch.float32 and bias is None and torch.equal(weight, model.lm_head.weight)
    assert weight.data_ptr() != model.lm_head.weight.data_ptr()  # a copy, not the layer's weight
    assert _float32_head(model, "cuda") is None and _float32_head(model, "mps") is None
    with torch.device("meta"):
        assert _float32_head(GPT2LMHeadModel(config)) is None
    model.lm_head._hf_hook = SimpleNamespace(execution_device=0)  # accelerate's GPU 0
    assert _float32_head(model) is None
    model.transformer.wte._hf_hook = SimpleNamespace(execution_device=1)
    assert input_device(model) == "cuda:1"
    model.transformer.wte._hf_hook = SimpleNamespace(execution_device="cpu")
    assert input_device(model) == "cpu" and _float32_head(model, "cpu") is not None


def test_device_and_device_map_together_are_refused(gpt2_dir):
    with pytest.raises(scoring.ScoringError, match="device='cuda'.*device_map='auto'.*not both"):
        scoring.load_model(gpt2_dir, "causal", device="cuda", device_map="auto")
    with pytest.raises(scoring.ScoringError, match="not both"):
        scoring.score(["A cat."], gpt2_dir, device="cpu", device_map="auto", cache=False)
    with pytest.raises(scoring.ScoringError, match="give device_map too"):
        scoring.load_model(gpt2_dir, "causal", max_memory={"cpu": "1GiB"})


def test_max_memory_text_and_dicts_become_what_transformers_takes():
    from acceptability.scoring.options import parse_max_memory

    want = {0: "70GiB", 1: "70GiB", "cpu": "200GiB"}
    assert parse_max_memory("0=70GiB,1=70GiB,cpu=200GiB") == want
    assert parse_max_memory({"0": "70GiB", "cuda:1": "70 GiB", "CPU": "200GiB"}) == want
    assert parse_max_memory({"disk": 10**12, "mps": "1.5GB"}) == {"disk": 10**12, "mps": "1.5GB"}
    for bad in ("0=70GiB,cpu", "", "tpu=1GiB", "0=lots", "0=-5", "cpu=1TB", {-1: "1GiB"}, 5):
        with pytest.raises(scoring.ScoringError, match="max_memory"):
            parse_max_memory(bad)


def test_options_carry_device_map_and_max_memory_to_distributed_workers():
    """Workers build the same scorer from the options' JSON (`distributed.worker_spec`):
    the memory map keeps its device names as text there (JSON sorts keys, and GPU indices
    beside "cpu" would not sort); load_model turns them back into ints."""
    from acceptability.scoring.options import SCORER_FIELDS
    from acceptability.scoring.run import distributed

    assert {"device_map", "max_memory"} <= set(SCORER_FIELDS)
    opts = scoring.ScoringOptions(model="m", method="logprob", device_map="auto",
                                  max_memory={0: "70GiB", "cpu": "200GiB"})
    assert opts.max_memory == {"0": "70GiB", "cpu": "200GiB"}
    spec = json.loads(json.dumps(distributed.worker_spec(opts), sort_keys=True))
    assert (spec["device_map"], spec["max_memory"]) == ("auto", {"0": "70GiB", "cpu": "200GiB"})
    assert scoring.ScoringOptions(**spec) == opts
    with pytest.raises(scoring.ScoringError, match="unknown device 'gpu'"):
        scoring.ScoringOptions(max_memory="gpu=1GiB")


def test_the_cli_places_models_and_refuses_bad_memory_text(gpt2_dir, tmp_path, capsys, monkeypatch):
    from acceptability import data
    from acceptability.reports.cli import experiment

    args = cli.parser().parse_args(["score", "--dataset", "example", "--model", "m", "--out", "x.csv",
                                    "--device-map", "auto", "--max-memory", "0=70GiB,cpu=200GiB"])
    exp = cli.commands._experiment(args)
    assert exp.hardware() == {"device_map": "auto", "max_memory": {0: "70GiB", "cpu": "200GiB"}}
    assert "device_map" not in json.dumps(exp.scores_settings())  # not in the scores' fingerprint
    ds, _ = data.load_example()
    out = tmp_path / "spread.csv"
    assert cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--device-map", "auto",
                     "--max-memory", "cpu=1000", "--out", str(out)]) == 0
    plain = scoring.score(ds, gpt2_dir, cache=False, progress=False, device="cpu").set_index("sentence_id")
    spread = data.read_scores(out, ds).set_index("sentence_id")
    np.testing.assert_allclose(spread["score"], plain.loc[spread.index, "score"], atol=TOL)
    monkeypatch.setattr(experiment, "score_models", lambda *a, **k: pytest.fail("scored"))
    capsys.readouterr()
    assert cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--device-map", "auto",
                     "--max-memory", "0:70GiB", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "max_memory '0:70GiB'" in err and "0=70GiB,1=70GiB,cpu=200GiB" in err
    assert len(err.strip().splitlines()) == 1


def test_an_experiment_file_gives_max_memory_as_a_table(tmp_path):
    from acceptability.reports.cli.experiment import from_toml

    config = tmp_path / "x.toml"
    config.write_text('[scores]\nsource = "score"\nmodels = ["gpt2"]\ndevice_map = "auto"\n'
                      '[scores.max_memory]\n0 = "70GiB"\ncpu = "200GiB"\n')
    assert from_toml(config).hardware() == {"device_map": "auto",
                                             "max_memory": {0: "70GiB", "cpu": "200GiB"}}


def test_the_float32_recheck_of_a_placed_model_is_placed_too(monkeypatch, gpt2_dir):
    """The recheck's float32 twin goes where the bfloat16 model runs: spread by "auto" for a
    loaded model with a device map, by the options' map and memory for one given by name,
    on the model's device otherwise."""
    from acceptability.scoring import api
    from acceptability.scoring.options import ScoringOptions

    loads = []
    monkeypatch.setattr(api, "load_model", lambda name, kind, **kw: loads.append(kw))
    placed = scoring.load_model(gpt2_dir, "causal", dtype="bfloat16", device_map="auto")
    plain = scoring.load_model(gpt2_dir, "causal", dtype="bfloat16", device="cpu")
    by_name = ScoringOptions(model=gpt2_dir, method="logprob", dtype="bfloat16",
                             device_map="auto", max_memory={"cpu": "1GiB"})
    for options in (ScoringOptions(model=placed, method="logprob"),
                    ScoringOptions(model=plain, method="logprob"), by_name):
        api._float32_twin(options)
    assert [(kw["device"], kw.get("device_map"), kw.get("max_memory"), kw["dtype"]) for kw in loads] == [
        (None, "auto", None, "float32"), ("cpu", None, None, "float32"),
        (None, "auto", {"cpu": "1GiB"}, "float32")]
