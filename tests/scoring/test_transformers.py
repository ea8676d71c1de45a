"""logprob, PLL, PLL-word-l2r and classifier scores against brute-force references on tiny models."""

from __future__ import annotations

import math
import random

import numpy as np
import pandas as pd
import pytest

from acceptability import scoring

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-4


def _score(texts, model, method, **kw):
    return scoring.score(texts, model, method, cache=False, progress=False, **kw)


def test_logprob_equals_manual_log_softmax_gather(gpt2_dir, sentences):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(gpt2_dir)
    model = AutoModelForCausalLM.from_pretrained(gpt2_dir).eval()
    expected = []
    for text in sentences:
        ids = torch.tensor([[tok.bos_token_id, *tok(text)["input_ids"]]])
        with torch.no_grad():
            logprobs = model(ids).logits.log_softmax(-1)[0]
        expected.append(sum(logprobs[t - 1, ids[0, t]].item() for t in range(1, ids.shape[1])))
    got = _score(sentences, gpt2_dir, "logprob", batch_size=3)
    np.testing.assert_allclose(got["score"], expected, atol=TOL)
    assert list(got["n_tokens"]) == [len(tok(t)["input_ids"]) for t in sentences]
    assert list(got.columns) == ["sentence_id", "model", "score", "method", "n_tokens",
                                 "perplexity", "model_source", "start_token"]
    np.testing.assert_allclose(got["perplexity"], np.exp(-np.array(expected) / got["n_tokens"]),
                               rtol=1e-5)
    assert got["model_source"].str.fullmatch(r"dir:[0-9a-f]{64}").all()


def test_logprob_without_bos_skips_first_token(gpt2_dir, sentences):
    with_bos = _score(sentences, gpt2_dir, "logprob")
    without = _score(sentences, gpt2_dir, "logprob", start_token=None)
    assert list(without["n_tokens"]) == list(with_bos["n_tokens"] - 1)
    assert (without["score"] > with_bos["score"]).all()


def _brute_force_pll(tok, model, text, word_l2r=False):
    """One forward pass per masked token (thesis eq. 3; Kauf & Ivanova 2023 for word_l2r)."""
    import torch

    enc = tok(text)
    ids, words = enc["input_ids"], enc.word_ids()
    total = 0.0
    for i in range(1, len(ids) - 1):  # skip [CLS] and [SEP]
        masked = list(ids)
        masked[i] = tok.mask_token_id
        if word_l2r:
            for j in range(i + 1, len(ids) - 1):
                if words[j] == words[i]:
                    masked[j] = tok.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([masked])).logits[0, i]
        total += logits.log_softmax(-1)[ids[i]].item()
    return total


@pytest.mark.parametrize("fixture", ["bert_dir", "roberta_dir", "distilbert_dir"])
@pytest.mark.parametrize("method", ["pll", "pll_word_l2r"])
def test_pll_equals_one_mask_per_forward_pass(request, fixture, method, sentences):
    """BERT and RoBERTa take the BERT-family shortcuts (first and last layer), DistilBERT
    selects masked rows only at the head: all equal one forward pass per masked token."""
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    path = request.getfixturevalue(fixture)
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForMaskedLM.from_pretrained(path).eval()
    assert (scoring.run.batches.bert_layers(model) is None) == (fixture == "distilbert_dir")
    expected = [_brute_force_pll(tok, model, t, method == "pll_word_l2r") for t in sentences]
    got = _score(sentences, path, method, batch_size=3)
    np.testing.assert_allclose(got["score"], expected, atol=TOL)


def test_pll_copies_split_into_cpu_passes_give_the_same_scores(monkeypatch, bert_dir, sentences):
    whole = _score(sentences, bert_dir, "pll")["score"]  # 2 passes: the longest sentence, the 6 others
    for budget in (20, 600):  # in float32 10 and 300 tokens: 1 copy a pass; up to 3 sentences a pass
        monkeypatch.setattr(scoring.backends.masked, "CPU_TOKENS_PER_PASS", budget)
        np.testing.assert_allclose(_score(sentences, bert_dir, "pll")["score"], whole, atol=TOL)


def test_cpu_pll_batches_fill_one_pass_of_copies():
    """Sentences in length order, grouped greedily while their copies, padded to the group's
    longest sentence, fit the budget; one over the budget alone stays whole."""
    from acceptability.scoring.run.batches import length_sorted_batches, token_budget_batches

    lengths = [5, 12, 7, 7, 30, 5, 9]
    copies = [n - 2 for n in lengths]  # PLL masks every token but [CLS] and [SEP]
    batches = token_budget_batches(lengths, copies, budget=100)
    assert sum(batches, []) == sum(length_sorted_batches(lengths, 1), [])  # every index once, in order
    # 30*28 and 12*10 are over alone; 9*(7+5) > 100; 7*(5+5+3) = 91, 7*(5+5+3+3) > 100
    assert batches == [[4], [1], [6], [2, 3, 0], [5]]
    for batch, after in zip(batches, batches[1:], strict=False):
        width = lengths[batch[0]]
        assert width * sum(copies[i] for i in batch) <= 100 or len(batch) == 1
        assert width * (sum(copies[i] for i in batch) + copies[after[0]]) > 100  # full: next one did not fit


@pytest.mark.parametrize(("fixture", "kind"), [("gpt2_dir", "causal"), ("bert_dir", "masked")])
def test_prepacked_linear_layers_compute_what_the_plain_ones_do(request, fixture, kind):
    """Every Linear/Conv1D is packed for oneDNN (GELUs fused); logits match, with and without autograd."""
    import torch
    from transformers.pytorch_utils import Conv1D

    path = request.getfixturevalue(fixture)
    plain = scoring.load_model(path, kind, device="cpu", prepack=False).model  # packing is for the CPU
    packed = scoring.load_model(path, kind, device="cpu").model
    linears = [m for m in packed.modules() if isinstance(m, torch.nn.Linear | Conv1D)]
    assert linears and all("forward" in vars(m) for m in linears)
    assert any(isinstance(m, torch.nn.Identity) for m in packed.modules())  # a fused GELU
    ids = torch.randint(5, packed.config.vocab_size, (3, 9))
    with torch.inference_mode():
        expected = plain(input_ids=ids).logits
        np.testing.assert_allclose(packed(input_ids=ids).logits, expected, atol=TOL)
    with torch.enable_grad():  # the plain kernels run where gradients are needed
        np.testing.assert_allclose(packed(input_ids=ids).logits.detach(), expected, atol=TOL)


@pytest.mark.parametrize(("fixture", "kind"), [("gpt2_dir", "causal"), ("bert_dir", "masked")])
def test_bfloat16_models_are_packed_and_compute_what_plain_bfloat16_layers_do(request, fixture, kind):
    """On a CPU that multiplies bfloat16 natively (AMX / AVX512-BF16) the bfloat16 linear
    layers are packed too. A fused GELU rounds once where the plain layers round before and
    after it, so the logits agree to a few bfloat16 units (2^-8 relative), on average closer
    than bfloat16 is to float32 on the same model. On one without (an AVX2-only AMD EPYC, which
    this project's machines can be) nothing is packed and the model is the plain one."""
    import torch

    path = request.getfixturevalue(fixture)
    fp32 = scoring.load_model(path, kind, device="cpu", prepack=False).model
    plain = scoring.load_model(path, kind, device="cpu", dtype="bfloat16", prepack=False).model
    packed = scoring.load_model(path, kind, device="cpu", dtype="bfloat16").model
    native = scoring.run.prepack.packing_supported(torch.bfloat16)
    assert native == torch.ops.mkldnn._is_mkldnn_bf16_supported()
    linears = [m for m in packed.modules() if isinstance(m, torch.nn.Linear)]
    assert all(("forward" in vars(m)) == native for m in linears)
    ids = torch.randint(5, packed.config.vocab_size, (3, 9), generator=torch.Generator().manual_seed(0))
    with torch.inference_mode():
        expected, got = plain(input_ids=ids).logits.float(), packed(input_ids=ids).logits.float()
        exact = fp32(input_ids=ids).logits
    if not native:
        assert torch.equal(got, expected)
        return
    scale = expected.abs().max().item()
    assert (got - expected).abs().max().item() <= 4 * 2**-8 * scale
    # on average: the largest single differences of the two are alike on these tiny random
    # models (the max-based comparison failed for 57 of 200 random inputs; this one for none,
    # at most 0.71 of bfloat16's distance from float32)
    assert (got - expected).abs().mean() < (exact - expected).abs().mean()


def test_bfloat16_scores_are_float32_scores_to_bfloat16_precision(
    gpt2_dir, bert_dir, classifier_dir, sentences
):
    """Every method's bfloat16 path (packed layers, flash attention, float32 log-softmax)
    scores what float32 does up to bfloat16 rounding: 8 significant bits, so ~2^-8 of each
    token's log-probability; a classifier's confidence to 2^-7 (its sign is the
    predicted label, which a near-0.5 probability may flip)."""
    fp32 = _score(sentences, classifier_dir, "classifier")
    bf16 = _score(sentences, classifier_dir, "classifier", dtype="bfloat16")
    assert (np.abs(bf16["score"].abs() - fp32["score"].abs()) <= 2**-7).all()
    for path, method in ((gpt2_dir, "logprob"), (bert_dir, "pll"), (bert_dir, "pll_word_l2r")):
        fp32 = _score(sentences, path, method)
        bf16 = _score(sentences, path, method, dtype="bfloat16")
        bound = 2**-8 * fp32["score"].abs()
        assert ((bf16["score"] - fp32["score"]).abs() <= bound).all()
        assert (bf16["score"] != fp32["score"]).any()  # bfloat16 ran, not float32


def test_word_l2r_differs_from_pll_on_multi_piece_words(bert_dir, sentences):
    pll = _score(sentences, bert_dir, "pll")["score"]
    l2r = _score(sentences, bert_dir, "pll_word_l2r")["score"]
    assert (np.abs(pll - l2r) > 1e-6).any()


@pytest.mark.parametrize(("fixture", "method"), [("gpt2_dir", "logprob"), ("bert_dir", "pll")])
def test_scores_do_not_depend_on_batch_size_or_order(request, fixture, method, sentences):
    model = scoring.load_model(request.getfixturevalue(fixture), scoring.registry.REGISTRY[method].kind)
    frame = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(sentences))], "text": sentences})
    reference = _score(frame, model, method, batch_size=1).set_index("sentence_id")["score"]
    shuffled = frame.sample(frac=1, random_state=3)
    for batch_size in (2, 5, 64):
        got = _score(shuffled, model, method, batch_size=batch_size).set_index("sentence_id")
        np.testing.assert_allclose(got["score"].loc[reference.index], reference, atol=TOL)
    assert list(_score(shuffled, model, method)["sentence_id"]) == list(shuffled["sentence_id"])


def test_classifier_signed_confidence_is_eq_2_3(classifier_dir, sentences):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(classifier_dir)
    model = AutoModelForSequenceClassification.from_pretrained(classifier_dir).eval()
    expected = []
    for text in sentences:
        with torch.no_grad():
            probs = model(**tok(text, return_tensors="pt")).logits.softmax(-1)[0]
        label = int(probs.argmax())
        expected.append((1 if label == 1 else -1) * probs[label].item())
    got = _score(sentences, classifier_dir, "classifier", batch_size=4)
    np.testing.assert_allclose(got["score"], expected, atol=TOL)
    flipped = _score(sentences, classifier_dir, "classifier", acceptable_label=0)
    np.testing.assert_allclose(flipped["score"], -np.asarray(expected), atol=TOL)


def test_token_and_word_scores_add_up_to_the_sentence_score(gpt2_dir, bert_dir, sentences):
    for model, method in ((gpt2_dir, "logprob"), (bert_dir, "pll")):
        total = _score(sentences, model, method).set_index("sentence_id")["score"]
        for level in ("token", "word"):
            parts = scoring.token_scores(
                sentences, model, method, level=level, cache=False, progress=False
            )
            np.testing.assert_allclose(parts.groupby("sentence_id")["logprob"].sum()[total.index], total, atol=TOL)
            np.testing.assert_allclose(parts["surprisal"], -parts["logprob"] / math.log(2))
        words = parts.groupby("sentence_id")["word"].apply(list)
        assert words["0"] == sentences[0].split()


def test_mean_normalisation_divides_by_tokens(gpt2_dir, sentences):
    raw = _score(sentences, gpt2_dir, "logprob")
    mean = _score(sentences, gpt2_dir, "logprob", normalise="mean")
    np.testing.assert_allclose(mean["score"], raw["score"] / raw["n_tokens"])
    assert set(mean["method"]) == {"logprob_mean"}


def test_accepts_a_dataset_like_object_and_a_sentences_frame(gpt2_dir, sentences):
    from types import SimpleNamespace

    table = pd.DataFrame({"sentence_id": ["a", "b"], "text": sentences[:2], "label": [1, 0]})
    got = _score(SimpleNamespace(name="fake", sentences=table), gpt2_dir, "logprob", model_name="tiny-gpt2")
    assert list(got["sentence_id"]) == ["a", "b"]
    assert set(got["model"]) == {"tiny-gpt2"}
    assert list(_score(sentences[:3], gpt2_dir, "logprob")["sentence_id"]) == ["0", "1", "2"]


def test_random_sentences_score_finite(gpt2_dir, sentences):
    rng = random.Random(0)
    words = " ".join(sentences).split()
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 12))) for _ in range(20)]
    got = _score(texts, gpt2_dir, "logprob", batch_size=7)
    assert np.isfinite(got["score"]).all() and (got["score"] < 0).all()


def test_no_packing_when_the_copies_would_not_fit_in_memory(monkeypatch, gpt2_dir, sentences):
    import torch

    expected = _score(sentences, gpt2_dir, "logprob")["score"]
    monkeypatch.setattr(scoring.run.prepack, "_free_memory", lambda: 1000)
    with pytest.warns(UserWarning, match="not packing"):
        lm = scoring.load_model(gpt2_dir, "causal", device="cpu")
    assert not any("forward" in vars(m) for m in lm.model.modules() if isinstance(m, torch.nn.Linear))
    np.testing.assert_allclose(_score(sentences, lm, "logprob")["score"], expected, atol=TOL)


def test_an_untested_torch_version_scores_with_plain_layers(monkeypatch, bert_dir, sentences):
    """The private oneDNN operators are used only on the torch versions tested here."""
    import torch

    expected = _score(sentences, bert_dir, "pll")["score"]
    monkeypatch.setattr(scoring.run.prepack, "TORCH_TESTED", ("2.3", "2.4"))  # as if torch were newer
    lm = scoring.load_model(bert_dir, "masked", device="cpu")
    assert not any("forward" in vars(m) for m in lm.model.modules() if isinstance(m, torch.nn.Linear))
    np.testing.assert_allclose(_score(sentences, lm, "pll")["score"], expected, atol=TOL)


def test_a_bfloat16_head_reads_exact_target_and_top_logits(monkeypatch):
    """bfloat16 logits (here up to ~35 over 5000 words) err by up to |logit| * 2^-8. With the
    head's float32 weights the target's and the TOP_EXACT largest logits are recomputed, so
    a log-probability errs only through the rounded logits outside the top: at most
    (1 - their probability) * max |logit| * 2^-8, against a float64 log-softmax. The rounded
    logits alone miss by ~0.09. A soft-capped head (logits not plain products) is left as is."""
    import torch

    gen = torch.Generator().manual_seed(0)
    weight, bias = torch.randn(5000, 64, generator=gen), torch.randn(5000, generator=gen)
    hidden = torch.randn(40, 64, generator=gen) * 0.8
    targets = torch.randint(0, 5000, (40,), generator=gen)
    targets[:20] = (hidden @ weight.T + bias)[:20].argmax(-1)  # some likely, some unlikely words
    logits = hidden.double() @ weight.double().T + bias.double()
    expected = logits.log_softmax(-1).gather(1, targets[:, None])[:, 0].numpy()
    top_mass = logits.softmax(-1).topk(scoring.run.batches.TOP_EXACT, -1).values.sum(-1)
    bound = ((1 - top_mass) * logits.abs().amax(-1) * 2**-8).numpy() + 2e-5  # + float32 products
    rounded = (hidden @ weight.T + bias).bfloat16()
    plain = scoring.run.batches.target_logprobs(rounded, targets).numpy()
    refined = scoring.run.batches.target_logprobs(rounded, targets, (weight, bias), hidden).numpy()
    assert (np.abs(refined - expected) <= bound).all()
    assert np.abs(plain - expected).max() > 20 * np.abs(refined - expected).max()
    monkeypatch.setattr(scoring.run.batches, "CPU_LOGIT_ROWS", 3)  # rows in other chunks: same values
    np.testing.assert_allclose(
        scoring.run.batches.target_logprobs(rounded, targets, (weight, bias), hidden), refined, atol=1e-6
    )
    capped = (30 * torch.tanh((hidden @ weight.T + bias) / 30)).bfloat16()
    np.testing.assert_array_equal(
        scoring.run.batches.target_logprobs(capped, targets, (weight, bias), hidden),
        scoring.run.batches.target_logprobs(capped, targets),
    )


@pytest.mark.parametrize(("fixture", "method"), [("gpt2_dir", "logprob"), ("bert_dir", "pll")])
def test_bfloat16_models_keep_their_float32_output_layer(request, fixture, method):
    import torch

    lm = scoring.load_model(request.getfixturevalue(fixture), scoring.registry.REGISTRY[method].kind,
                            dtype="bfloat16", device="cpu")  # kept only where the layer runs on the CPU
    weight, _bias = lm.head_fp32
    assert lm.model.dtype == torch.bfloat16 and weight.dtype == torch.float32
    torch.testing.assert_close(weight.bfloat16(), lm.model.get_output_embeddings().weight)
    assert scoring.load_model(request.getfixturevalue(fixture), scoring.registry.REGISTRY[method].kind,
                              device="cpu").head_fp32 is None
