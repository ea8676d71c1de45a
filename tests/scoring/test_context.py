"""Sentences scored after a preceding context (Lau et al. 2020) against token loops written here,
on the tiny GPT-2 and BERT models, and the normalisations of the conditional score by hand."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from tests.conftest import need_data

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-4
# (context, sentence): a context ending in a full stop (joined with a space), one ending in a
# newline (joined as it is), the same sentence in two contexts, and no context at all
ROWS = [
    ("The cat sat on the mat.", "Dogs chase cats."),
    ("Who did Mary see yesterday?\n", "She thinks that the children have eaten."),
    ("Colorless green ideas sleep.", "Dogs chase cats."),
    ("", "The keys to the cabinet is on the table."),
    ("She thinks.", "An unbelievable tokenization of unexpectedly weird words."),
]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(ROWS))],
                         "text": [s for _, s in ROWS], "context": [c for c, _ in ROWS]})


def _joined(context: str) -> str:
    """What separates the sentence from its context: a space, unless the context ends in one."""
    return "" if not context or context[-1].isspace() else " "


@functools.cache
def _loaded(path: str, head: str):
    """The tokenizer and the model (`AutoModelFor<head>`) of a tiny model's folder, as saved."""
    import transformers

    model = getattr(transformers, f"AutoModelFor{head}").from_pretrained(path).eval()
    return transformers.AutoTokenizer.from_pretrained(path), model


def _causal_by_hand(path: str, context: str, text: str) -> tuple[float, int]:
    """log P(text | BOS, context): one forward pass over BOS + context + sentence, the log-softmax
    at each sentence token's previous position."""
    import torch

    tok, model = _loaded(path, "CausalLM")
    before = [tok.bos_token_id, *(tok(context)["input_ids"] if context else [])]
    sentence = tok(_joined(context) + text)["input_ids"]
    ids = torch.tensor([before + sentence])
    with torch.no_grad():
        table = model(ids).logits[0].log_softmax(-1)
    total = sum(table[len(before) + k - 1, token].item() for k, token in enumerate(sentence))
    return total, len(sentence)


def _pll_by_hand(path: str, context: str, text: str, word_l2r: bool) -> tuple[float, int]:
    """[CLS] context sentence [SEP], tokenized apart as Lau et al.'s code does: each sentence
    token masked in turn (word_l2r: with its word's later pieces), one forward pass each."""
    import torch

    tok, model = _loaded(path, "MaskedLM")
    prefix = [tok.cls_token_id, *tok(context, add_special_tokens=False)["input_ids"]]
    enc = tok(text, add_special_tokens=False)
    sentence, word_of = enc["input_ids"], enc.word_ids()
    total = 0.0
    for k, target in enumerate(sentence):
        hidden = [j for j in range(k, len(sentence)) if j == k or (word_l2r and word_of[j] == word_of[k])]
        piece = [tok.mask_token_id if j in hidden else t for j, t in enumerate(sentence)]
        with torch.no_grad():
            out = model(torch.tensor([[*prefix, *piece, tok.sep_token_id]])).logits[0]
        total += out[len(prefix) + k].log_softmax(-1)[target].item()
    return total, len(sentence)


def _score(frame, model, method, **kw):
    return scoring.score(frame, model, method, cache=False, progress=False, **kw)


def test_causal_context_score_is_log_p_of_the_sentence_given_bos_and_context(gpt2_dir, table):
    got = _score(table, gpt2_dir, "logprob", batch_size=2)
    expected = [_causal_by_hand(gpt2_dir, c, s) for c, s in ROWS]
    np.testing.assert_allclose(got["score"], [e for e, _ in expected], atol=TOL)
    assert list(got["n_tokens"]) == [n for _, n in expected]  # the sentence's tokens only
    alone = _score(table.drop(columns="context"), gpt2_dir, "logprob")
    assert got["score"][3] == pytest.approx(alone["score"][3], abs=TOL)  # "" = no context
    assert (np.abs(got["score"] - alone["score"]).drop(3) > 1e-3).all()
    assert got["score"][0] != pytest.approx(got["score"][2], abs=1e-3)  # same sentence, other context


@pytest.mark.parametrize("method", ["pll", "pll_word_l2r"])
def test_masked_context_score_masks_and_scores_only_the_sentence(bert_dir, table, method):
    got = _score(table, bert_dir, method, batch_size=2)
    expected = [_pll_by_hand(bert_dir, c, s, method == "pll_word_l2r") for c, s in ROWS]
    np.testing.assert_allclose(got["score"], [e for e, _ in expected], atol=TOL)
    assert list(got["n_tokens"]) == [n for _, n in expected]
    alone = _score(table, bert_dir, method, context=False)
    assert (np.abs(got["score"] - alone["score"]).drop(3) > 1e-3).all()


@pytest.mark.parametrize(("fixture", "method"), [("gpt2_dir", "logprob"), ("bert_dir", "pll_word_l2r")])
def test_token_and_word_scores_cover_the_sentence_only(request, table, fixture, method):
    from transformers import AutoTokenizer

    path = request.getfixturevalue(fixture)
    tok = AutoTokenizer.from_pretrained(path)
    kw = {"cache": False, "progress": False}
    tokens = scoring.token_scores(table, path, method, **kw)
    words = scoring.token_scores(table, path, method, level="word", **kw)
    sentences = _score(table, path, method).set_index("sentence_id")["score"]
    for (context, text), sid in zip(ROWS, table["sentence_id"], strict=True):
        mine = tokens[tokens["sentence_id"] == sid]
        spelled = _joined(context) + text if method == "logprob" else text
        assert list(mine["token"]) == tok.tokenize(spelled)
        assert list(words[words["sentence_id"] == sid]["word"]) == text.split()
        assert mine["logprob"].sum() == pytest.approx(sentences[sid], abs=TOL)
    np.testing.assert_allclose(words.groupby("sentence_id")["logprob"].sum().loc[sentences.index],
                               sentences, atol=TOL)


def test_contexts_given_as_a_column_name_or_a_list(gpt2_dir, table):
    reference = _score(table, gpt2_dir, "logprob")["score"]
    renamed = table.rename(columns={"context": "paragraph"})
    np.testing.assert_allclose(_score(renamed, gpt2_dir, "logprob", context="paragraph")["score"],
                               reference, atol=TOL)
    listed = _score(list(table["text"]), gpt2_dir, "logprob", context=list(table["context"]))
    np.testing.assert_allclose(listed["score"], reference, atol=TOL)
    missing = table.assign(context=[*table["context"][:3], None, table["context"][4]])
    np.testing.assert_allclose(_score(missing, gpt2_dir, "logprob")["score"], reference, atol=TOL)
    with pytest.raises(scoring.ScoringError, match="no context column 'paragraph'"):
        _score(table, gpt2_dir, "logprob", context="paragraph")
    with pytest.raises(scoring.ScoringError, match="2 contexts for 5 sentences"):
        _score(table, gpt2_dir, "logprob", context=["a", "b"])


def _count_forwards(lm) -> tuple[list, object]:
    calls: list = []
    return calls, lm.model.register_forward_pre_hook(lambda _m, _a: calls.append(1))


def test_cache_is_keyed_on_the_context_and_computes_each_pair_once(tmp_path, gpt2_dir, table):
    lm = scoring.load_model(gpt2_dir, "causal", device="cpu")  # batch_size 1: one pass a sentence
    kw = {"cache": tmp_path, "progress": False, "batch_size": 1}
    twice = pd.concat([table, table.assign(sentence_id=table["sentence_id"] + "_again")])
    calls, handle = _count_forwards(lm)
    first = scoring.score(twice, lm, "logprob", **kw)
    assert len(calls) == len(ROWS)  # each (context, sentence) once; s0 and s2 apart
    assert len(scoring.ScoreCache(tmp_path)) == len(ROWS)
    np.testing.assert_array_equal(first["score"][: len(ROWS)], first["score"][len(ROWS):])
    calls.clear()
    cached = scoring.score(table, lm, "logprob", **kw)
    plain = scoring.score([ROWS[3][1]], lm, "logprob", **kw)  # no context: the same entry as s3
    handle.remove()
    assert calls == []
    pd.testing.assert_frame_equal(cached, first[: len(ROWS)])
    assert plain["score"][0] == cached["score"][3]
    fresh = _score(table, lm, "logprob")
    np.testing.assert_allclose(cached["score"], fresh["score"], atol=1e-6)


def test_contexts_scored_on_a_dask_worker_equal_one_process(gpt2_dir, bert_dir, table, tmp_path):
    from distributed import Client, LocalCluster

    with (LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None)
          as cluster, Client(cluster) as client):
        for path, method in ((gpt2_dir, "logprob"), (bert_dir, "pll")):
            split = scoring.score(table, path, method, cache=tmp_path, progress=False, client=client)
            np.testing.assert_allclose(split["score"], _score(table, path, method)["score"], atol=1e-6)


def test_normalisations_of_the_conditional_score_by_hand(gpt2_dir, table):
    counts = {"Dogs": 3, "chase": 1, "cats.": 2, "The": 7, "the": 9, "is": 4, "on": 5}
    unigram = scoring.unigram_from_frequencies(counts, tokenize=str.split)
    total, types = sum(counts.values()), len(counts)
    raw = _score(table, gpt2_dir, "logprob")
    lp, n = raw["score"].to_numpy(), raw["n_tokens"].to_numpy()
    words = table["text"].str.split()  # the sentence's words, never the context's
    uni = np.array([sum(math.log((counts.get(w, 0) + 1) / (total + types + 1)) for w in ws) for ws in words])
    expected = {
        "mean": lp / n,
        "penlp": lp / ((5 + n) / (5 + 1)) ** 0.8,  # Lau et al. 2020, table 2
        "normlp": -lp / uni,
        "slor": (lp - uni) / words.str.len().to_numpy(),
    }
    for how, values in expected.items():
        got = _score(table, gpt2_dir, "logprob", normalise=how, unigram=unigram if how in ("normlp", "slor") else None)
        np.testing.assert_allclose(got["score"], values, rtol=1e-10)
        assert set(got["method"]) == {f"logprob_{how}"}


def test_a_context_too_long_for_the_model_is_refused(gpt2_dir, bert_dir):
    long = " ".join(["cat"] * 70)  # over 64 positions with the sentence
    frame = pd.DataFrame({"sentence_id": ["ok", "long"], "text": ["Dogs chase cats."] * 2,
                          "context": ["The cat sat.", long]})
    for path, method in ((gpt2_dir, "logprob"), (bert_dir, "pll")):
        with pytest.raises(scoring.ScoringError,
                           match="sentence 'long'.*more than the 64.*with its context; shorten the "
                                 r"context \(scoring never truncates\)"):
            _score(frame, path, method)


def test_methods_without_context_refuse_one(classifier_dir, table):
    with pytest.raises(scoring.ScoringError, match="'classifier' scores sentences alone"):
        _score(table, classifier_dir, "classifier")
    assert len(_score(table, classifier_dir, "classifier", context=False)) == len(ROWS)


def test_the_command_line_scores_a_sentences_file_in_context(gpt2_dir, table, tmp_path, capsys):
    from acceptability.reports.cli import commands as cli

    path = tmp_path / "sentences.csv"
    table.to_csv(path, index=False)
    for extra in ([], ["--normalise", "penlp"]):
        out = tmp_path / f"scores{len(extra)}.csv"
        assert cli.main(["score", "--sentences", str(path), "--model", f"{gpt2_dir}:logprob",
                         *extra, "--out", str(out)]) == 0, capsys.readouterr().err
        got = data.read_scores(out)
        expected = _score(table, gpt2_dir, "logprob", normalise=extra[-1] if extra else None)
        np.testing.assert_allclose(got["score"], expected["score"], rtol=1e-9)


@pytest.fixture(scope="module")
def lau_in_context() -> pd.DataFrame:
    """The four rows of Lau et al.'s (2020) real-context condition with the shortest paragraphs
    (PLL on 2 cores is slow). `context` holds the preceding paragraph's sentences separated by
    tabs; they are joined with a space, giving back the running paragraph as Lau et al.'s code
    feeds it to the models (tab replaced by space)."""
    raw = pd.read_csv(need_data("lau2020", "context-real-ratings.csv") / "context-real-ratings.csv")
    raw = raw.loc[raw["context"].str.len().nsmallest(4).index]
    return pd.DataFrame({"sentence_id": raw["ID"].astype(str), "text": raw["sentence"],
                         "context": raw["context"].str.replace("\t", " ", regex=False)})


@pytest.mark.needs_data("lau2020", "context-real-ratings.csv")
def test_lau_2020_real_contexts_score_end_to_end(tmp_path_factory, lau_in_context):
    """Paragraphs of three sentences (~30 words): the tiny models get room for them (1024 positions)."""
    from tests.scoring_fixtures import make_bert, make_gpt2

    gpt2 = make_gpt2(tmp_path_factory.mktemp("gpt2_long"), positions=1024)
    bert = make_bert(tmp_path_factory.mktemp("bert_long"), positions=1024)
    rows = list(zip(lau_in_context["context"], lau_in_context["text"], strict=True))
    for path, method in ((gpt2, "logprob"), (bert, "pll")):
        got = _score(lau_in_context, path, method, batch_size=2)
        by_hand = [_causal_by_hand(path, c, s) if method == "logprob" else _pll_by_hand(path, c, s, False)
                   for c, s in rows]
        np.testing.assert_allclose(got["score"], [lp for lp, _ in by_hand], atol=TOL)
        assert list(got["n_tokens"]) == [n for _, n in by_hand]
        alone = _score(lau_in_context, path, method, context=False)
        assert (got["score"] != alone["score"]).all()
