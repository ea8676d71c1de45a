"""MNTP scores (masked next-token prediction, the BabyLM pipeline's "mntp" backend) against
a loop written here that follows the pipeline's rules, one forward pass per masked token,
on tiny masked models built from configs (untrained: the arithmetic is what is checked)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from acceptability.scoring.backends import masked

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-4
METHODS = ["mntp", "mntp_word_l2r"]


def _score(texts, model, method, **kw):
    return scoring.score(texts, model, method, cache=False, progress=False, **kw)


def _pipeline_mntp(tok, model, sentence: str, completion: str, word_l2r: bool = False) -> list[float]:
    """Each scored token's log-probability as the BabyLM 2025 pipeline computes it
    (sentence_zero_shot/dataset.py `process_mntp_sentences` at commit d6e6797, and
    compute_results.py `compute_mlm_results`): the sentence tokenized with special tokens;
    the tokens whose character span ends inside `completion` scored, but for the token at
    position 0 when the tokenizer has neither a CLS nor a BOS token; each masked alone and
    read from the logits one position before it. `word_l2r` (not in the pipeline) also
    masks the later scored pieces of the token's word."""
    import torch

    enc = tok(sentence, return_offsets_mapping=True)
    ids, words = enc["input_ids"], enc.word_ids()
    prepend = tok.cls_token_id is not None or tok.bos_token_id is not None
    start_char = len(sentence) - len(completion)
    scored = [i for i, (_, end) in enumerate(enc["offset_mapping"])
              if end > start_char and (i != 0 or prepend)]
    out = []
    for i in scored:
        copy = list(ids)
        copy[i] = tok.mask_token_id
        for j in scored:
            if word_l2r and j > i and words[j] == words[i]:
                copy[j] = tok.mask_token_id
        with torch.no_grad():
            logits = model(torch.tensor([copy])).logits[0, i - 1]
        out.append(logits.log_softmax(-1)[ids[i]].item())
    return out


def _loaded(path):
    from transformers import AutoModelForMaskedLM, AutoTokenizer

    return AutoTokenizer.from_pretrained(path), AutoModelForMaskedLM.from_pretrained(path).eval()


@pytest.mark.parametrize("fixture", ["bert_dir", "roberta_dir", "distilbert_dir"])
@pytest.mark.parametrize("method", METHODS)
def test_mntp_equals_the_pipelines_one_mask_per_forward_pass(request, fixture, method, sentences):
    """BERT and RoBERTa take the first- and last-layer shortcuts, DistilBERT selects rows
    at the head only: every token's score equals the loop's."""
    path = request.getfixturevalue(fixture)
    tok, model = _loaded(path)
    expected = [_pipeline_mntp(tok, model, t, t, method == "mntp_word_l2r") for t in sentences]
    got = _score(sentences, path, method, batch_size=3)
    np.testing.assert_allclose(got["score"], [sum(e) for e in expected], atol=TOL)
    assert list(got["n_tokens"]) == [len(tok.tokenize(t)) for t in sentences]  # [CLS] w1: w1 scored
    assert list(got["model"].unique()) == [f"{path.rstrip('/').split('/')[-1]}_{method}"]
    tokens = scoring.token_scores(sentences, path, method, cache=False, progress=False)
    for sid, e, text in zip(got["sentence_id"], expected, sentences, strict=True):
        mine = tokens[tokens["sentence_id"] == sid]
        assert list(mine["token"]) == tok.tokenize(text)
        np.testing.assert_allclose(mine["logprob"], e, atol=TOL)


def test_mntp_is_neither_pll_nor_its_word_l2r_variant(bert_dir, sentences):
    scores = {m: _score(sentences, bert_dir, m)["score"] for m in ["pll", "mntp", "mntp_word_l2r"]}
    assert (np.abs(scores["mntp"] - scores["pll"]) > 1e-3).all()
    multi_piece = np.abs(scores["mntp"] - scores["mntp_word_l2r"]) > 1e-6
    assert multi_piece.any() and not multi_piece.all()  # "She thinks." splits no word


def test_a_tokenizer_adding_nothing_in_front_leaves_the_first_token_unscored(bert_dir, sentences):
    """Without [CLS] (or BOS) the first token has no position before it: the pipeline's
    `i != 0 or prepend` rule; a one-token text then has nothing to score, an error."""
    from tokenizers import processors

    lm = scoring.load_model(bert_dir, "masked")
    lm.tokenizer._tokenizer.post_processor = processors.TemplateProcessing(single="$A")
    lm.tokenizer.cls_token, lm.tokenizer.sep_token = None, None  # what the pipeline checks
    _, model = _loaded(bert_dir)
    got = _score(sentences, lm, "mntp", batch_size=2)
    expected = [_pipeline_mntp(lm.tokenizer, model, t, t) for t in sentences]
    np.testing.assert_allclose(got["score"], [sum(e) for e in expected], atol=TOL)
    assert list(got["n_tokens"]) == [len(lm.tokenizer.tokenize(t)) - 1 for t in sentences]
    tokens = scoring.token_scores(["the cat"], lm, "mntp", cache=False, progress=False)
    assert list(tokens["token"]) == ["cat"]
    with pytest.raises(scoring.ScoringError, match="sentence '1': 'cat' is one token .* nothing before it"):
        _score(["the cat", "cat"], lm, "mntp")


@pytest.mark.parametrize("method", METHODS)
def test_a_sentence_in_context_is_the_pipelines_completion(bert_dir, method):
    """After a context, the sentence's tokens are masked and scored, each read one position
    earlier (the first from the context's last token), as the pipeline scores a completion."""
    tok, model = _loaded(bert_dir)
    rows = [("The cat sat on the mat.", "Dogs chase cats."),
            ("She thinks.", "An unbelievable tokenization of unexpectedly weird words.")]
    table = pd.DataFrame({"sentence_id": ["a", "b"], "text": [s for _, s in rows],
                          "context": [c for c, _ in rows]})
    got = _score(table, bert_dir, method)
    expected = [_pipeline_mntp(tok, model, f"{c} {s}", f" {s}", method == "mntp_word_l2r")
                for c, s in rows]
    np.testing.assert_allclose(got["score"], [sum(e) for e in expected], atol=TOL)
    assert list(got["n_tokens"]) == [len(tok.tokenize(s)) for _, s in rows]


def test_scores_do_not_depend_on_batch_size_order_or_passes(monkeypatch, bert_dir, sentences):
    lm = scoring.load_model(bert_dir, "masked")
    frame = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(sentences))], "text": sentences})
    reference = _score(frame, lm, "mntp", batch_size=1).set_index("sentence_id")["score"]
    shuffled = frame.sample(frac=1, random_state=5)
    for budget in (20, 600):  # in float32 10 and 300 tokens a pass: one copy; up to 3 sentences
        monkeypatch.setattr(masked, "CPU_TOKENS_PER_PASS", budget)
        got = _score(shuffled, lm, "mntp").set_index("sentence_id")["score"]
        np.testing.assert_allclose(got.loc[reference.index], reference, atol=TOL)
    monkeypatch.setattr(masked, "tokens_per_pass", lambda _lm, _tokens: None)  # batch_size sentences a pass
    for batch_size in (2, 64):
        got = _score(shuffled, lm, "mntp", batch_size=batch_size).set_index("sentence_id")["score"]
        np.testing.assert_allclose(got.loc[reference.index], reference, atol=TOL)


def test_cached_scores_are_read_back_and_kept_apart_from_pll(tmp_path, bert_dir, sentences):
    lm = scoring.load_model(bert_dir, "masked")
    calls = []
    handle = lm.model.register_forward_pre_hook(lambda _m, _a: calls.append(1))
    kw = {"cache": tmp_path, "progress": False}
    try:
        first = scoring.score(sentences, lm, "mntp", **kw)
        assert calls and len(scoring.ScoreCache(tmp_path)) == len(sentences)
        calls.clear()
        again = scoring.score(sentences, lm, "mntp", **kw)
        assert calls == []
        pll = scoring.score(sentences, lm, "pll", **kw)
        assert calls  # another method: computed, not read from mntp's entries
    finally:
        handle.remove()
    pd.testing.assert_frame_equal(first, again)
    assert (np.abs(pll["score"] - first["score"]) > 1e-3).all()
    assert len(scoring.ScoreCache(tmp_path)) == 2 * len(sentences)


@pytest.mark.parametrize("method", METHODS)
def test_bfloat16_token_scores_are_float32_ones_to_bfloat16_precision(bert_dir, sentences, method):
    """bfloat16 keeps 8 significant bits: each sentence's tokens sum to within 2^-8 of float32's."""
    kw = {"cache": False, "progress": False}
    tokens = {d: scoring.token_scores(sentences, bert_dir, method, dtype=d, **kw)
              for d in ("float32", "bfloat16")}
    assert list(tokens["float32"]["token"]) == list(tokens["bfloat16"]["token"])
    sums = {d: t.groupby("sentence_id", sort=False)["logprob"].sum() for d, t in tokens.items()}
    gap = (sums["bfloat16"] - sums["float32"]).abs()
    assert (gap <= 2**-8 * sums["float32"].abs()).all() and (gap > 0).any()  # bfloat16 ran


def test_a_causal_model_is_refused(gpt2_dir):
    with pytest.raises(scoring.ScoringError, match="not a masked model.*use method 'logprob'"):
        _score(["A cat sat."], gpt2_dir, "mntp")
    lm = scoring.load_model(gpt2_dir, "causal")
    with pytest.raises(scoring.ScoringError, match="method 'mntp_word_l2r' needs a masked model"):
        _score(["A cat sat."], lm, "mntp_word_l2r")


def test_score_command_and_experiment_file_take_mntp(bert_dir, tmp_path, monkeypatch):
    from acceptability.reports.cli import commands as cli
    from acceptability.reports.cli import experiment

    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "scores.csv"
    assert cli.main(["score", "--dataset", "example", "--model", bert_dir, "--method", "mntp",
                     "--out", str(out)]) == 0
    written = pd.read_csv(out)
    expected = _score(data.load_example()[0], bert_dir, "mntp")
    assert set(written["method"]) == {"mntp"}
    np.testing.assert_allclose(written.set_index("sentence_id").loc[expected["sentence_id"], "score"],
                               expected["score"], atol=TOL)
    toml = tmp_path / "experiment.toml"
    toml.write_text(f'[data]\ndataset = "example"\n[scores]\nsource = "score"\n'
                    f'models = ["{bert_dir}:mntp", "{bert_dir}"]\nmethod = "mntp_word_l2r"\n')
    assert experiment.from_toml(toml).scoring_plan() == [(bert_dir, "mntp"), (bert_dir, "mntp_word_l2r")]


def test_two_dask_workers_score_what_one_process_does(bert_dir, sentences):
    from distributed import Client, LocalCluster

    alone = _score(sentences, bert_dir, "mntp_word_l2r", batch_size=2)
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        split = _score(sentences, bert_dir, "mntp_word_l2r", batch_size=2, client=client)
    np.testing.assert_allclose(split["score"], alone["score"], atol=TOL)
    assert list(split["n_tokens"]) == list(alone["n_tokens"])
