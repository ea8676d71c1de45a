"""Encoder-decoder scores (seq2seq, seq2seq_pll) against loops written here on tiny T5 and
BART models built from configs: seq2seq against the models' own shifting of `labels` (what
training computes), seq2seq_pll against the BabyLM 2025 pipeline's `enc_dec_mask` recipe
spelled out token by token; batching, the CPU passes, contexts, the cache, bfloat16, Dask
and the command line."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from acceptability import scoring
from acceptability.scoring.backends import seq2seq

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-4
MODELS = ("t5_dir", "bart_dir")
METHODS = ("seq2seq", "seq2seq_pll")
CONTEXTS = ["The cat sat on the mat.", "", "Who did Mary see yesterday?\n", "Dogs chase cats.", "", "",
            "She thinks."]


def _score(texts, model, method, **kw):
    return scoring.score(texts, model, method, cache=False, progress=False, **kw)


def _tokens(texts, model, method, **kw):
    return scoring.token_scores(texts, model, method, cache=False, progress=False, **kw)


@functools.cache
def _lm(path: str, dtype: str = "float32"):
    """The tiny model loaded for scoring once per test session and dtype."""
    return scoring.load_model(path, "seq2seq", dtype=dtype)


@functools.cache
def _loaded(path: str):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    return AutoTokenizer.from_pretrained(path), AutoModelForSeq2SeqLM.from_pretrained(path).eval()


def _by_labels(path: str, text: str, context: str = "") -> list[float]:
    """log P of each of `text`'s tokens as the decoder's `labels`, the encoder reading
    `context` (the empty text: the tokenizer's special tokens alone): the model shifts the
    labels right after its decoder start token itself, as in training."""
    import torch

    tok, model = _loaded(path)
    labels = tok(text)
    with torch.no_grad():
        logits = model(input_ids=torch.tensor([tok(context)["input_ids"]]),
                       labels=torch.tensor([labels["input_ids"]])).logits[0]
    table = logits.log_softmax(-1)
    special = tok.get_special_tokens_mask(labels["input_ids"], already_has_special_tokens=True)
    return [table[p, t].item() for p, (t, s) in enumerate(zip(labels["input_ids"], special, strict=True))
            if not s]


def _babylm_enc_dec_mask(path: str, text: str, context: str = "") -> list[float]:
    """The BabyLM 2025 pipeline's enc_dec_mask score of `text` after `context`, written out:
    each token whose span ends after the context's characters replaced in the encoder input
    by `<mask>` (T5: `<extra_id_0>`), the decoder reading [BOS, mask] (T5: [`<extra_id_0>`]),
    the log-softmax of the decoder's last position at the replaced token."""
    import torch

    tok, model = _loaded(path)
    sentinel = tok.convert_tokens_to_ids("<extra_id_0>") if tok.mask_token_id is None else None
    mask = tok.mask_token_id if sentinel is None else sentinel
    decoder = [tok.bos_token_id, mask] if tok.bos_token_id is not None else [sentinel]
    enc = tok(context + text, return_offsets_mapping=True)
    out = []
    for i, (_start, end) in enumerate(enc["offset_mapping"]):
        if end > len(context):
            ids = list(enc["input_ids"])
            ids[i] = mask
            with torch.no_grad():
                logits = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([decoder])).logits
            out.append(logits[0, -1].log_softmax(-1)[enc["input_ids"][i]].item())
    return out


REFERENCE = {"seq2seq": _by_labels, "seq2seq_pll": _babylm_enc_dec_mask}


def _joined(context: str, text: str) -> str:
    return text if not context or context[-1].isspace() else f" {text}"


@pytest.mark.parametrize("fixture", MODELS)
@pytest.mark.parametrize("method", METHODS)
def test_scores_and_token_scores_equal_the_loops(request, fixture, method, sentences):
    path = request.getfixturevalue(fixture)
    expected = [REFERENCE[method](path, s) for s in sentences]
    got = _score(sentences, _lm(path), method, batch_size=3)
    np.testing.assert_allclose(got["score"], [sum(e) for e in expected], atol=TOL)
    assert list(got["n_tokens"]) == [len(e) for e in expected]
    np.testing.assert_allclose(got["perplexity"], np.exp(-got["score"] / got["n_tokens"]), rtol=1e-6)
    tokens = _tokens(sentences, _lm(path), method, batch_size=2)
    np.testing.assert_allclose(tokens["logprob"], sum(expected, []), atol=TOL)
    words = _tokens(sentences, _lm(path), method, level="word")
    assert list(words.groupby("sentence_id", sort=False)["word"].apply(list)) == [s.split() for s in sentences]


@pytest.mark.parametrize("fixture", MODELS)
@pytest.mark.parametrize("method", METHODS)
def test_sentences_in_context_equal_the_loops(request, fixture, method, sentences):
    """seq2seq: the encoder reads the context, the decoder the sentence; seq2seq_pll: the
    context and sentence as one encoder text, only the sentence's tokens masked."""
    path = request.getfixturevalue(fixture)
    sentences, contexts = sentences[:4] + sentences[6:], CONTEXTS[:4] + CONTEXTS[6:]  # the short ones
    table = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(sentences))],
                          "text": sentences, "context": contexts})
    if method == "seq2seq":
        expected = [_by_labels(path, s, c) for s, c in zip(sentences, contexts, strict=True)]
    else:
        expected = [_babylm_enc_dec_mask(path, _joined(c, s), c) for s, c in zip(sentences, contexts, strict=True)]
    got = _score(table, _lm(path), method, batch_size=3)
    np.testing.assert_allclose(got["score"], [sum(e) for e in expected], atol=TOL)
    words = _tokens(table, _lm(path), method, level="word")
    assert list(words.groupby("sentence_id", sort=False)["word"].apply(list)) == [s.split() for s in sentences]
    alone = _score(sentences, _lm(path), method)["score"].to_numpy()
    none = [c == "" for c in contexts]
    np.testing.assert_allclose(got["score"].to_numpy()[none], alone[none], atol=TOL)
    assert (np.abs(got["score"].to_numpy() - alone) > 1e-4)[[c != "" for c in contexts]].all()


@pytest.mark.parametrize("fixture", MODELS)
@pytest.mark.parametrize("method", METHODS)
def test_padded_batches_score_what_one_sentence_at_a_time_does(request, fixture, method, sentences,
                                                               monkeypatch):
    lm = _lm(request.getfixturevalue(fixture))
    frame = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(sentences))], "text": sentences})
    one = _score(frame, lm, method, batch_size=1).set_index("sentence_id")["score"]
    shuffled = frame.sample(frac=1, random_state=1)
    for batch_size in (2, 5, 64):
        got = _score(shuffled, lm, method, batch_size=batch_size).set_index("sentence_id")["score"]
        np.testing.assert_allclose(got.loc[one.index], one, atol=TOL)
    for budget in (20, 600):  # float32: 10 tokens (one copy) and 300 tokens a CPU pass
        monkeypatch.setattr(scoring.backends.masked, "CPU_TOKENS_PER_PASS", budget)
        np.testing.assert_allclose(_score(frame, lm, method)["score"], one, atol=TOL)


def test_seq2seq_pll_batches_fill_cpu_passes_and_seq2seq_batches_by_size(bart_dir, sentences):
    lm = _lm(bart_dir)
    items = [seq2seq.encode_pll(lm, s) for s in sentences]
    per_pass = scoring.backends.masked.tokens_per_pass(lm)
    batches = seq2seq.batches(lm, items, 2, True, per_pass)
    assert len(batches) < len(sentences) / 2  # float32 passes of 2048 tokens hold several sentences
    for batch in batches:
        if len(batch) > 1:
            assert len(items[batch[0]].ids) * sum(len(items[i].positions) for i in batch) <= per_pass
    plain = seq2seq.batches(lm, [seq2seq.encode(lm, s) for s in sentences], 2, False, None)
    assert [len(b) for b in plain] == [2, 2, 2, 1]


@pytest.mark.parametrize("method", METHODS)
def test_cached_scores_are_read_back_without_running_the_model(t5_dir, tmp_path, method, sentences):
    lm = scoring.load_model(t5_dir, "seq2seq")
    kw = {"cache": tmp_path, "progress": False, "batch_size": 2}
    first = scoring.score(sentences, lm, method, **kw)
    calls = []
    handle = lm.model.register_forward_pre_hook(lambda _m, _a: calls.append(1))
    again = scoring.score(sentences, lm, method, **kw)
    tokens = scoring.token_scores(sentences, lm, method, **kw)
    assert calls == []
    other = "seq2seq_pll" if method == "seq2seq" else "seq2seq"
    scoring.score(sentences[:1], lm, other, **kw)  # another method: computed, not read back
    scoring.score(sentences[:1], lm, method, context=["The cat sat."], **kw)  # and a context
    handle.remove()
    assert len(calls) == 2
    pd.testing.assert_frame_equal(first, again)
    np.testing.assert_allclose(tokens.groupby("sentence_id", sort=False)["logprob"].sum(), first["score"],
                               atol=1e-6)


@pytest.mark.parametrize("fixture", MODELS)
def test_bfloat16_scores_are_float32_scores_to_bfloat16_precision(request, fixture, sentences):
    """8 significant bits: each token's log-probability within ~2^-8 of float32. BART's
    `final_logits_bias` (random in the fixture) is part of the exact float32 logits."""
    path = request.getfixturevalue(fixture)
    for method in METHODS:
        fp32 = _score(sentences, _lm(path), method)["score"]
        bf16 = _score(sentences, _lm(path, "bfloat16"), method)["score"]
        assert ((bf16 - fp32).abs() <= 2**-8 * fp32.abs()).all()
        assert (bf16 != fp32).any()  # bfloat16 ran, not float32


def test_barts_final_logits_bias_enters_the_exact_bfloat16_head(bart_dir):
    import torch

    lm = scoring.load_model(bart_dir, "seq2seq", dtype="bfloat16", device="cpu")  # the CPU keeps it
    weight, bias = seq2seq._exact_head(lm)
    assert weight.dtype == torch.float32 and lm.head_fp32[1] is None
    torch.testing.assert_close(bias, lm.model.final_logits_bias.float()[0])
    assert seq2seq._exact_head(_lm(bart_dir)) is None


def test_scores_on_a_dask_worker_equal_one_process(t5_dir, sentences, tmp_path):
    from distributed import Client, LocalCluster

    with (LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
          as cluster, Client(cluster) as client):
        for method in METHODS:
            split = scoring.score(sentences, t5_dir, method, cache=tmp_path, progress=False, client=client)
            np.testing.assert_allclose(split["score"], _score(sentences, _lm(t5_dir), method)["score"],
                                       atol=1e-6)


@pytest.mark.parametrize("method", METHODS)
def test_the_command_line_scores_with_an_encoder_decoder(bart_dir, tmp_path, method, monkeypatch):
    from acceptability import data
    from acceptability.reports.cli import commands as cli

    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "bart.parquet"
    assert cli.main(["score", "--dataset", "example", "--model", bart_dir, "--method", method,
                     "--out", str(out)]) == 0
    ds, _ = data.load_example()
    got = data.read_scores(out, ds).set_index("sentence_id")
    assert set(got["method"]) == {method} and len(got) == len(ds.sentences)
    ids = list(ds.sentences["sentence_id"][:3])
    np.testing.assert_allclose(got.loc[ids, "score"], _score(ds.sentences[:3], _lm(bart_dir), method)["score"],
                               atol=1e-5)


def test_a_model_of_another_kind_is_refused(gpt2_dir, t5_dir):
    with pytest.raises(scoring.ScoringError, match="not a seq2seq model.*use method 'logprob'"):
        _score(["A cat sat."], gpt2_dir, "seq2seq")
    with pytest.raises(scoring.ScoringError, match="use method 'seq2seq' or 'seq2seq_pll'"):
        _score(["A cat sat."], t5_dir, "pll")  # refused from the config, before loading
    with pytest.raises(scoring.ScoringError, match="needs a seq2seq model"):
        _score(["A cat sat."], scoring.load_model(gpt2_dir, "causal"), "seq2seq_pll")


def test_model_kind_of_encoder_decoder_configs():
    """t5-small's config still names T5WithLMHeadModel; a decoder-only XForConditionalGeneration
    (a vision-language model) is no seq2seq model; a BART classifier stays a classifier."""
    from acceptability.scoring.models import model_kind

    def config(arch, encoder_decoder):
        return SimpleNamespace(architectures=[arch], is_encoder_decoder=encoder_decoder)

    assert model_kind(config("T5WithLMHeadModel", True)) == "seq2seq"
    assert model_kind(config("MarianMTModel", True)) == "seq2seq"
    assert model_kind(config("LlavaForConditionalGeneration", False)) is None
    assert model_kind(config("BartForSequenceClassification", True)) == "classifier"
    assert model_kind(config("BartForCausalLM", False)) == "causal"


def test_too_long_sentences_and_missing_tokens_are_errors(bart_dir):
    long = " ".join(["cats"] * 80)
    for method in METHODS:
        with pytest.raises(scoring.ScoringError, match="more than the 64 .*never truncates"):
            _score([long], _lm(bart_dir), method)
    with pytest.raises(scoring.ScoringError, match="shorten the context"):
        _score(["Dogs chase cats."], _lm(bart_dir), "seq2seq", context=[long])
    lm = SimpleNamespace(name="toy", model=SimpleNamespace(config=SimpleNamespace()),
                         tokenizer=SimpleNamespace(mask_token_id=None, bos_token_id=None))
    with pytest.raises(scoring.ScoringError, match="neither a mask token nor a sentinel"):
        seq2seq.babylm_mask_tokens(lm)
    with pytest.raises(scoring.ScoringError, match="no decoder_start_token_id"):
        seq2seq.decoder_start(lm)


def test_an_experiment_file_names_the_encoder_decoder_methods(bart_dir, t5_dir, tmp_path):
    from acceptability.reports import from_toml

    path = tmp_path / "experiment.toml"
    path.write_text(f'[data]\ndataset = "example"\n[scores]\nsource = "score"\n'
                    f'models = ["{bart_dir}:seq2seq_pll", "{t5_dir}"]\nmethod = "seq2seq"\n')
    assert from_toml(path).scoring_plan() == [(bart_dir, "seq2seq_pll"), (t5_dir, "seq2seq")]
