"""Token-budget batches, masked copies built on the device, and the overlapped pipeline
(issue 34), on the CPU: each against today's batching, a brute-force loop, or an
uninterrupted run."""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest

from acceptability import scoring
from acceptability.scoring.backends import masked
from acceptability.scoring.run import batches, overlap

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-5  # float32: batches of other shapes change only the order of additions
METHODS = [("gpt2_dir", "causal", "logprob"), ("bert_dir", "masked", "pll"),
           ("bert_dir", "masked", "pll_word_l2r"), ("bert_dir", "masked", "mntp"),
           ("t5_dir", "seq2seq", "seq2seq"), ("bart_dir", "seq2seq", "seq2seq_pll")]


def _scores(frame, lm, method, **kw):
    got = scoring.score(frame, lm, method, cache=False, progress=False, **kw)
    return got.set_index("sentence_id")["score"]


@pytest.fixture
def frame(sentences):
    return pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(sentences))], "text": sentences})


@pytest.fixture
def as_on_a_gpu(monkeypatch):
    """The accelerator paths, run on the CPU: widths padded to multiples of 8, the device's
    token budget, and the pipeline preparing batches in a thread, finishing one behind."""
    monkeypatch.setattr(batches, "on_cpu", lambda _lm: False)
    monkeypatch.setattr(overlap, "on_cpu", lambda _lm: False)


@pytest.mark.parametrize(("fixture", "kind", "method"), METHODS)
def test_token_budget_batches_score_what_sentence_batches_do(request, frame, fixture, kind, method):
    lm = scoring.load_model(request.getfixturevalue(fixture), kind)
    reference = _scores(frame, lm, method, batch_size=1)
    shuffled = frame.sample(frac=1, random_state=1)
    for tokens in (1, 40, 300, 100_000):  # one sentence (or copy) a pass ... all at once
        got = _scores(shuffled, lm, method, batch_tokens=tokens)
        np.testing.assert_allclose(got[reference.index], reference, atol=TOL)


@pytest.mark.parametrize(("fixture", "kind", "method"), METHODS)
def test_the_accelerator_path_scores_what_the_cpu_path_does(request, monkeypatch, frame, fixture,
                                                           kind, method):
    lm = scoring.load_model(request.getfixturevalue(fixture), kind)
    reference = _scores(frame, lm, method)
    threads = set()
    real = overlap.to_host
    monkeypatch.setattr(overlap, "to_host", lambda v: threads.add(threading.current_thread().name) or real(v))
    widths = []
    hook = lm.model.register_forward_pre_hook(lambda _m, args, kw: widths.append(
        (kw.get("input_ids") if kw.get("input_ids") is not None else args[0]).shape[1]), with_kwargs=True)
    monkeypatch.setattr(batches, "on_cpu", lambda _lm: False)
    monkeypatch.setattr(overlap, "on_cpu", lambda _lm: False)
    for tokens in (None, 64):  # DEVICE_TOKENS_PER_PASS (all in one batch here), and small passes
        got = _scores(frame, lm, method, batch_tokens=tokens)
        np.testing.assert_allclose(got[reference.index], reference, atol=TOL)
    hook.remove()
    assert widths and all(w % batches.DEVICE_PAD_MULTIPLE == 0 for w in widths)
    assert threads == {threading.main_thread().name}  # launched from the consumer's thread


def test_batches_are_prepared_in_another_thread(as_on_a_gpu, monkeypatch, gpt2_dir, frame):
    lm = scoring.load_model(gpt2_dir, "causal")
    items = [scoring.backends.causal.encode(lm, t) for t in frame["text"]]
    prepared_in = []

    def pad(*args, **kw):
        prepared_in.append(threading.current_thread().name)
        return batches.pad(*args, **kw)

    monkeypatch.setattr(scoring.backends.causal, "pad", pad)
    out = list(scoring.backends.causal.iter_logprobs(lm, items, [[0, 1], [2], [3, 4], [5, 6]]))
    assert [b for b, _ in out] == [[0, 1], [2], [3, 4], [5, 6]]
    assert len(prepared_in) == 4 and all(n.startswith("acceptability-prepare") for n in prepared_in)


def test_token_budget_batches_round_widths_to_the_padding_multiple():
    lengths, copies = [5, 12, 7, 7, 30, 5, 9], [1] * 7
    # at most 24 tokens a pass: 12 and 9 padded to 16 no longer fit together, 7, 7, 5 to 8 do
    assert batches.token_budget_batches(lengths, copies, 24, multiple=8) == [[4], [1], [6], [2, 3, 0], [5]]
    assert batches.token_budget_batches(lengths, copies, 24) == [[4], [1, 6], [2, 3, 0], [5]]
    with pytest.raises(ValueError, match="batch_tokens must be >= 1"):
        batches.token_budget_batches(lengths, copies, 0)


def test_pad_equals_a_row_by_row_loop():
    import torch

    seqs = [[5, 6, 7], [8], [9, 10, 11, 12, 13], [14, 15]]
    for multiple in (1, 8):
        ids, mask = batches.pad(seqs, pad_id=1, multiple=multiple)
        width = -(-5 // multiple) * multiple
        expected = torch.ones((4, width), dtype=torch.long)
        expected_mask = torch.zeros((4, width), dtype=torch.long)
        for r, s in enumerate(seqs):
            for c, t in enumerate(s):
                expected[r, c], expected_mask[r, c] = t, 1
        assert torch.equal(ids, expected) and torch.equal(mask, expected_mask)


@pytest.mark.parametrize("word_l2r", [False, True])
def test_masked_copies_built_by_indexing_equal_a_copy_loop(bert_dir, sentences, word_l2r):
    """One gather and one masked assignment make exactly the copies, targets and positions a
    per-copy Python loop makes (the pre-issue-34 construction)."""
    import torch

    lm = scoring.load_model(bert_dir, "masked")
    items = [masked.encode(lm, t, word_l2r=word_l2r) for t in sentences]
    assert any(len(m) > 1 for it in items for m in it.masks) == word_l2r
    batch = [3, 0, 5]
    plan = masked.copy_plan(items, batch, [items[i].masks for i in batch], pad_id=0, multiple=8)
    copies, attention, positions, targets = masked.masked_copies(plan, mask_id=99, device="cpu")
    width = copies.shape[1]
    rows, expected_targets, expected_positions = [], [], []
    for i in batch:
        for pos, masked_positions in zip(items[i].positions, items[i].masks, strict=True):
            copy = list(items[i].ids) + [0] * (width - len(items[i].ids))
            for j in masked_positions:
                copy[j] = 99
            rows.append(copy)
            expected_targets.append(items[i].ids[pos])
            expected_positions.append(pos)
    assert torch.equal(copies, torch.tensor(rows))
    assert targets.tolist() == expected_targets and positions.tolist() == expected_positions
    lengths = [len(items[i].ids) for i in batch for _ in items[i].positions]
    assert attention.sum(1).tolist() == lengths


class Killed(Exception):
    """Stands in for Ctrl-C in the middle of a run."""


def _count_launches(monkeypatch, kill_at=None) -> list:
    """Calls of the pipeline's launch step (each followed by `to_host`); the `kill_at`-th
    raises Killed, as a launch interrupted on the device would."""
    calls, real = [], overlap.to_host

    def to_host(values):
        calls.append(1)
        if len(calls) == kill_at:
            raise Killed
        return real(values)

    monkeypatch.setattr(overlap, "to_host", to_host)
    return calls


@pytest.mark.parametrize(("fixture", "kind", "method", "tokens"),
                         [("gpt2_dir", "causal", "logprob", 16), ("bert_dir", "masked", "pll", 300)])
def test_prefetching_loses_no_score_and_resumes_after_a_kill(as_on_a_gpu, monkeypatch, request, tmp_path,
                                                             frame, fixture, kind, method, tokens):
    """Batch k is handed to the cache after batch k + 1 is launched; a run killed while
    launching batch 3 still writes batches 1 and 2, and the rerun computes only the rest."""
    lm = scoring.load_model(request.getfixturevalue(fixture), kind)
    kw = {"cache": tmp_path, "progress": False, "batch_tokens": tokens}
    fresh = _scores(frame, lm, method, batch_tokens=tokens)
    planned = make_batches(lm, frame, method, tokens)
    assert len(planned) >= 5
    _count_launches(monkeypatch, kill_at=3)
    with pytest.raises(Killed):
        scoring.score(frame, lm, method, **kw)
    assert len(scoring.ScoreCache(tmp_path)) == len(planned[0]) + len(planned[1])  # none lost
    calls = _count_launches(monkeypatch)
    resumed = scoring.score(frame, lm, method, **kw).set_index("sentence_id")["score"]
    assert len(calls) == len(planned) - 2
    np.testing.assert_allclose(resumed[fresh.index], fresh, atol=TOL)


def make_batches(lm, frame, method, tokens):
    """The batches a run of `method` with `tokens` a pass makes of `frame`'s sentences."""
    from acceptability.scoring.options import ScoringOptions
    from acceptability.scoring.run.runner import make_scorer

    scorer = make_scorer(ScoringOptions(model=lm, method=method, batch_tokens=tokens))
    return scorer.batches(list(scorer.encode([("", t) for t in frame["text"]])), 2)


def test_batch_tokens_on_the_command_line_and_bad_values(gpt2_dir, tmp_path, capsys, monkeypatch):
    from acceptability import data
    from acceptability.reports.cli import commands, experiment

    out = tmp_path / "scores.csv"
    ds, _ = data.load_example()
    seen = []
    real = scoring.score
    monkeypatch.setattr(scoring, "score", lambda *a, **kw: seen.append(kw.get("batch_tokens")) or real(*a, **kw))
    assert commands.main(["score", "--dataset", "example", "--model", gpt2_dir, "--batch-tokens", "64",
                          "--out", str(out)]) == 0
    assert seen == [64]
    plain = real(ds, gpt2_dir, cache=False, progress=False).set_index("sentence_id")["score"]
    got = data.read_scores(out, ds).set_index("sentence_id")["score"]
    np.testing.assert_allclose(got, plain[got.index], atol=TOL)
    monkeypatch.setattr(experiment, "score_models", lambda *a, **k: pytest.fail("scored"))
    capsys.readouterr()
    assert commands.main(["score", "--dataset", "example", "--model", gpt2_dir, "--batch-tokens", "0",
                          "--out", str(out)]) == 2
    assert "batch_tokens must be a whole number >= 1, got 0" in capsys.readouterr().err
    with pytest.raises(scoring.ScoringError, match="batch_tokens must be a whole number of tokens"):
        real(ds, gpt2_dir, cache=False, progress=False, batch_tokens=-5)


def test_logits_are_reduced_a_gigabyte_at_a_time_off_the_cpu():
    """On an accelerator a pass's float32 logits would not fit at once for a large
    vocabulary: rows go DEVICE_LOGIT_BYTES at a time; on the CPU CPU_LOGIT_ROWS."""
    import torch

    vocab = 128_256
    assert batches.logit_rows(torch.empty(4, vocab, device="meta")) == batches.DEVICE_LOGIT_BYTES // (4 * vocab)
    assert batches.logit_rows(torch.empty(4, vocab)) == batches.CPU_LOGIT_ROWS


def test_inputs_tokenized_in_one_call_equal_a_call_per_text(gpt2_dir, bert_dir, sentences):
    """encode_many (one tokenizer call for all texts) gives what tokenizing each text apart
    gives: ids, tokens and offsets, with and without a context."""
    from acceptability.scoring.backends import causal

    pairs = [("", s) for s in sentences] + [("A dog barked.", " " + s) for s in sentences[:3]]
    gpt2 = scoring.load_model(gpt2_dir, "causal")
    tok = gpt2.tokenizer
    for (context, text), got in zip(pairs, causal.encode_many(gpt2, pairs), strict=True):
        ctx = tok(context, add_special_tokens=False)["input_ids"] if context else []
        enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
        assert got.ids == [tok.bos_token_id, *ctx, *enc["input_ids"]]
        assert got.tokens == tok.convert_ids_to_tokens(enc["input_ids"])
        assert got.offsets == [tuple(o) for o in enc["offset_mapping"]]
    bert = scoring.load_model(bert_dir, "masked")
    tok = bert.tokenizer
    for (context, text), got in zip(pairs, masked.encode_many(bert, pairs, word_l2r=True), strict=True):
        enc = tok(context + text, return_offsets_mapping=True)
        assert got.ids == enc["input_ids"]
        assert got.tokens == [tok.convert_ids_to_tokens(enc["input_ids"][i]) for i in got.positions]
        inside = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if b > len(context) and b > a]
        assert got.positions == inside
    assert list(causal.encode_many(gpt2, [])) == []
