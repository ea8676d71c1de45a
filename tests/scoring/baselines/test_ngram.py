"""Kneser-Ney n-grams (trained here or read from ARPA via KenLM), unigram models, SLOR and NormLP."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acceptability import scoring
from acceptability.scoring.baselines.ngram import BOS, EOS, UNK
from tests.conftest import need_module

CORPUS = [
    "the cat sat on the mat",
    "the dog sat on the log",
    "a cat saw the dog",
    "the dog saw a cat on the mat",
    "who did the cat see",
] * 3 + ["a bird sang"]
TEXTS = ["the cat sat on the log", "the bird saw a zebra", "who did the dog see"]


@pytest.fixture(scope="module")
def trigram():
    return scoring.train_ngram(CORPUS, order=3, tokenize=str.split, name="3-gram")


@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_probabilities_sum_to_one_over_the_vocabulary(order):
    model = scoring.train_ngram(CORPUS, order=order, tokenize=str.split)
    contexts = [(), (BOS,), ("the",), ("the", "cat"), ("on", "the", "mat"), ("zebra", "the"), ("a", "bird")]
    for context in contexts:
        total = sum(model.prob(w, context) for w in model.vocab)
        assert total == pytest.approx(1.0, abs=1e-9), context
    assert model.prob("zebra", ("the",)) == model.prob(UNK, ("the",)) > 0


def test_sentence_score_is_the_chain_rule_product(trigram):
    got = scoring.score(TEXTS, trigram, "ngram", progress=False)
    words = TEXTS[0].split()
    history = [BOS, *words]
    expected = sum(
        math.log(trigram.prob(w, tuple(history[max(0, i - 1) : i + 1])))
        for i, w in enumerate([*words, EOS])
    )
    assert got["score"][0] == pytest.approx(expected)
    assert list(got["n_tokens"]) == [len(t.split()) + 1 for t in TEXTS]
    assert set(got["model"]) == {"3-gram_ngram"} and set(got["method"]) == {"ngram"}


def test_arpa_file_read_through_kenlm_gives_the_same_scores(tmp_path, trigram):
    need_module("kenlm")
    path = tmp_path / "tri.arpa"
    trigram.write_arpa(path)
    arpa = scoring.load_arpa(path, tokenize=str.split)
    ours = scoring.score(TEXTS, trigram, "ngram", progress=False)
    theirs = scoring.score(TEXTS, str(path), "ngram", progress=False)
    np.testing.assert_allclose(theirs["score"], ours["score"], atol=1e-5)
    np.testing.assert_allclose(
        arpa.word_logprobs(["the", "cat"]), trigram.word_logprobs(["the", "cat"]), atol=1e-6
    )
    assert arpa.unigram().logprob("cat") == pytest.approx(math.log(trigram.prob("cat", ())), abs=1e-6)


def test_slor_and_normlp_match_a_hand_computation(trigram):
    counts = {"the": 10, "cat": 3, "sat": 2, "on": 2, "log": 1}
    unigram = scoring.unigram_from_frequencies(counts, alpha=1.0, tokenize=str.split)
    text = "the cat sat on the log"
    total = sum(counts.values()) + 1.0 * (len(counts) + 1)  # add-one, one extra unknown type
    unigram_lp = sum(math.log((counts[w] + 1) / total) for w in text.split())
    lm_lp = scoring.score([text], trigram, "ngram", progress=False)["score"][0]
    slor = scoring.score([text], trigram, "ngram", normalise="slor", unigram=unigram, progress=False)
    assert slor["score"][0] == pytest.approx((lm_lp - unigram_lp) / 6)
    assert set(slor["method"]) == {"ngram_slor"}
    normlp = scoring.score([text], trigram, "ngram", normalise="normlp", unigram=unigram, progress=False)
    assert normlp["score"][0] == pytest.approx(-lm_lp / unigram_lp)
    assert scoring.slor(np.array([-10.0]), np.array([-14.0]), np.array([2]))[0] == pytest.approx(2.0)


def test_unigram_from_corpus_and_from_the_ngram_counts(trigram):
    from_corpus = scoring.train_unigram(CORPUS, tokenize=str.split)
    assert from_corpus.logprobs == trigram.unigram().logprobs
    n_words = sum(len(s.split()) for s in CORPUS)
    n_types = len({w for s in CORPUS for w in s.split()})
    assert from_corpus.logprob("the") == pytest.approx(
        math.log((sum(s.split().count("the") for s in CORPUS) + 1) / (n_words + n_types + 1))
    )
    assert from_corpus.logprob("zebra") == from_corpus.unk_logprob


def test_pos_tag_model_from_supplied_tags_or_a_tagger():
    tags = {"the": "DT", "a": "DT", "cat": "NN", "dog": "NN", "mat": "NN", "log": "NN", "bird": "NN",
            "sat": "VBD", "saw": "VBD", "sang": "VBD", "on": "IN", "who": "WP", "did": "VBD", "see": "VB"}

    def tagger(text: str) -> list[str]:
        return [tags.get(w, "NN") for w in text.split()]

    tagged = [" ".join(tagger(s)) for s in CORPUS]
    by_tags = scoring.train_ngram(tagged, order=5, tokenize=str.split, name="5-tag")
    by_tagger = scoring.train_ngram(CORPUS, order=5, tokenize=tagger, name="5-tag")
    import pandas as pd

    sentences = pd.DataFrame({"sentence_id": ["a", "b"], "text": TEXTS[:2], "pos": [" ".join(tagger(t)) for t in TEXTS[:2]]})
    a = scoring.score(sentences, by_tags, "ngram", text_column="pos", progress=False)
    b = scoring.score(sentences, by_tagger, "ngram", progress=False)
    np.testing.assert_allclose(a["score"], b["score"])


def test_ngram_errors(tmp_path):
    with pytest.raises(scoring.ScoringError, match="does not exist"):
        scoring.load_arpa(tmp_path / "missing.arpa")
    with pytest.raises(scoring.ScoringError, match="needs a model from scoring.train_ngram"):
        scoring.score(TEXTS, 3, "ngram")
    with pytest.raises(scoring.ScoringError, match="empty"):
        scoring.train_ngram([], order=3)


def test_default_tokenizer_needs_no_download():
    model = scoring.train_ngram(["The cat didn't sit.", "Who saw it?"], order=2)
    assert "n't" in model.vocab and "?" in model.vocab
