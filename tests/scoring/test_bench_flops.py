"""The GPU table of benchmarks/bench_scoring.py (issue 34): its minimal-FLOPs count
(benchmarks/flops.py) equals torch's own FlopCounterMode exactly, in integer FLOPs, on
unpadded forwards of tiny BERT, GPT-2 and Llama (grouped-query) configs with the head read
where a score is read; its token lengths are the scorer's; and the table's code path runs on
the CPU with tiny models, writing gpu.csv's columns with the share of peak from that count."""

from __future__ import annotations

import importlib
import math

import pandas as pd
import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from acceptability import scoring
from tests.conftest import REPO, need_data

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

LENGTHS = [5, 9]  # two sentences of different lengths, counted in one FlopCounterMode


@pytest.fixture(scope="module")
def bench():
    """benchmarks/bench_scoring.py and flops.py (scripts beside each other, not a package)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(REPO / "benchmarks"))
        yield importlib.import_module("bench_scoring"), importlib.import_module("flops")


def eager(model_class, config):
    """A random model whose attention is plain matrix products, which FlopCounterMode
    counts (on the CPU it does not see inside SDPA's fused kernel)."""
    config._attn_implementation = "eager"
    torch.manual_seed(0)
    return model_class(config).eval()


def tiny_bert():
    from transformers import BertConfig, BertForMaskedLM

    return eager(BertForMaskedLM, BertConfig(vocab_size=101, hidden_size=32, num_hidden_layers=2,
                                             num_attention_heads=4, intermediate_size=48))


def tiny_causal(name: str):
    from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

    if name == "gpt2":
        return eager(GPT2LMHeadModel, GPT2Config(vocab_size=103, n_embd=32, n_layer=2, n_head=4,
                                                 bos_token_id=0, eos_token_id=0))
    return eager(LlamaForCausalLM, LlamaConfig(vocab_size=107, hidden_size=48, intermediate_size=40,
                                               num_hidden_layers=2, num_attention_heads=4,
                                               num_key_value_heads=2, head_dim=16))


def test_pll_flops_equal_the_flop_counter(bench):
    """PLL: L - 2 masked copies of each L-token sentence through the body, the head (BERT's
    transform and output layer) at the one masked row of each copy."""
    _, flops = bench
    model = tiny_bert()
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        for n in LENGTHS:
            copies = torch.randint(5, 100, (1, n)).repeat(n - 2, 1)
            masked = torch.arange(1, n - 1)
            copies[torch.arange(n - 2), masked] = 4
            hidden = model.bert(copies).last_hidden_state
            model.cls(hidden[torch.arange(n - 2), masked])
    shape = flops.model_shape(model)
    assert counter.get_total_flops() == flops.minimal_flops(shape, "pll", LENGTHS)
    # the head's count is a real part of it: without the head rows the totals differ
    assert flops.minimal_flops(shape, "pll", LENGTHS) - 2 * shape.head_weights * sum(n - 2 for n in LENGTHS) \
        < counter.get_total_flops()


@pytest.mark.parametrize("name", ["gpt2", "llama"])
def test_logprob_flops_equal_the_flop_counter(bench, name):
    """logprob: one forward of BOS + tokens, the output layer at the L - 1 scored rows."""
    _, flops = bench
    model = tiny_causal(name)
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        for n in LENGTHS:
            logits = model(torch.randint(5, 100, (1, n)), logits_to_keep=torch.arange(n - 1)).logits
            assert logits.shape[1] == n - 1
    assert counter.get_total_flops() == flops.minimal_flops(flops.model_shape(model), "logprob", LENGTHS)


def test_grouped_query_attention_counts_the_query_heads(bench):
    """Llama with 4 query heads of 16 (64 wide) over a hidden size of 48 and 2 key-value heads."""
    _, flops = bench
    shape = flops.model_shape(tiny_causal("llama"))
    assert shape.attention_width == 4 * 16 and shape.layers == 2
    # per layer q 48x64, k and v 48x32, o 64x48, gate and up 48x40, down 40x48
    assert shape.body_weights == 2 * (48 * 64 + 2 * 48 * 32 + 64 * 48 + 3 * 48 * 40)
    assert shape.head_weights == 107 * 48


@pytest.mark.parametrize(("build", "kind"), [(tiny_bert, "masked"), (lambda: tiny_causal("gpt2"), "causal"),
                                             (lambda: tiny_causal("llama"), "causal")])
def test_the_meta_device_shape_is_the_model_shape(bench, build, kind):
    _, flops = bench
    model = build()
    assert flops.config_shape(model.config, kind) == flops.model_shape(model)


@pytest.mark.parametrize(("fixture", "method", "specials"), [("bert_dir", "pll", 2), ("gpt2_dir", "logprob", 1)])
def test_token_lengths_are_the_scorers_inputs(bench, request, sentences, fixture, method, specials):
    """L of the count is what the scorer runs: its scored tokens plus [CLS]/[SEP] (PLL) or BOS."""
    _, flops = bench
    lm = scoring.load_model(request.getfixturevalue(fixture), "masked" if method == "pll" else "causal")
    scored = scoring.score(sentences, lm, method, cache=False, progress=False)["n_tokens"]
    assert [n - specials for n in flops.token_lengths(lm.tokenizer, method, sentences)] == list(scored)


@pytest.mark.needs_data
def test_the_gpu_table_runs_on_the_cpu(bench, tmp_path, monkeypatch):
    """`--models` on `--device cpu` with tiny models: gpu.csv has the issue's columns and a
    row per dtype and budget, the share of peak is the FLOPs count over our time and the
    (here fixed) peak, bf16_vs_fp32 is our bf16 over our best fp32 speed, and
    gpu_agreement.csv has the verdicts with the recheck."""
    bench_scoring, flops = bench
    need_data("blimp")
    inputs, out, n = tmp_path / "inputs", tmp_path / "out", 12
    bench_scoring.main(["--write-inputs", str(inputs), "--n", "200"])
    assert len(set(bench_scoring.read_sentences(inputs / "sentences.txt"))) == 200
    monkeypatch.setattr(bench_scoring, "DATA_DIR", tmp_path / "none")  # tokenizers: the sentences
    monkeypatch.setattr(bench_scoring, "matmul_peak", lambda device, size, repeats: 1e9)
    monkeypatch.setenv("TOKENIZERS_PARALLELISM", "false")
    threads = torch.get_num_threads()
    try:  # one thread: two spin-wait for each other on a loaded 2-core machine
        bench_scoring.main(["--device", "cpu", "--models", "tiny-bert", "tiny-llama", "--n", str(n),
                            "--sentences", str(inputs / "sentences.txt"), "--blimp-dir", str(inputs / "blimp"),
                            "--blimp-pairs", "2", "--batch-tokens", "128", "256", "--fp32-batch-tokens", "256",
                            "--threads", "1",
                            "--models-dir", str(tmp_path / "m"), "--minicons-python", str(tmp_path / "none"),
                            "--out", str(out)])
    finally:
        torch.set_num_threads(threads)
    table = pd.read_csv(out / "gpu.csv")
    assert list(table.columns) == ["card", "model", "method", "dtype", "batch_tokens", "ours_sent_per_s",
                                   "minicons_sent_per_s", "share_of_peak", "bf16_vs_fp32"]
    assert table["minicons_sent_per_s"].isna().all()
    assert list(zip(table["dtype"], table["batch_tokens"], strict=True)) == 2 * [
        ("float32", 256), ("bfloat16", 128), ("bfloat16", 256)]
    texts = bench_scoring.read_sentences(inputs / "sentences.txt")[:n]
    for (model, method), rows in table.groupby(["model", "method"]):
        lm = scoring.load_model(str(tmp_path / "m" / model), "masked" if method == "pll" else "causal")
        needed = flops.minimal_flops(flops.config_shape(lm.model.config, "masked" if method == "pll" else "causal"),
                                     method, flops.token_lengths(lm.tokenizer, method, texts))
        for row in rows.itertuples():
            assert math.isclose(row.share_of_peak, needed / (n / row.ours_sent_per_s) / 1e9, rel_tol=1e-12)
        fp32, bf16 = (rows[rows["dtype"] == d] for d in ("float32", "bfloat16"))
        for row in bf16.itertuples():  # over our best float32 speed
            assert math.isclose(row.bf16_vs_fp32, row.ours_sent_per_s / fp32["ours_sent_per_s"].max(),
                                rel_tol=1e-12)
        assert fp32["bf16_vs_fp32"].isna().all()
    agreement = pd.read_csv(out / "gpu_agreement.csv")
    assert list(agreement["model"]) == ["tiny-bert", "tiny-llama"]
    assert (agreement["blimp_pairs"] == 10).all() and "verdicts_changed_recheck" in agreement
    assert (agreement["pearson_r"] > 0.99).all()
