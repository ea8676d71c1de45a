"""Word scores: the boundary correction (Pimentel & Meister 2024) against a brute-force
enumeration of every token sequence of a tiny GPT-2, word groupings, regions, masked models."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
import torch

from acceptability import scoring
from acceptability.scoring.backends.causal import word_start_classes

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

TOL = 1e-5
KW = {"cache": False, "progress": False}
# the tiny model's vocabulary: one character a token, the space joined to the letter after it,
# so every text over {a, b, " "} has one token sequence and every token sequence one text
VOCAB = {"<|endoftext|>": 0, "a": 1, "b": 2, "Ġa": 3, "Ġb": 4}


@pytest.fixture(scope="module")
def bow_dir(tmp_path_factory) -> str:
    """A GPT-2 over VOCAB whose weights are large enough (initializer_range 0.5) that its
    next-token distributions are far from uniform."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    path = tmp_path_factory.mktemp("bow_gpt2")
    tok = Tokenizer(models.WordLevel(VOCAB, unk_token="<|endoftext|>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        pre_tokenizers.Split(Regex("Ġ?[^Ġ]"), behavior="isolated"),
    ])
    tok.decoder = decoders.ByteLevel()
    PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                            eos_token="<|endoftext|>").save_pretrained(path)
    torch.manual_seed(7)
    config = GPT2Config(vocab_size=len(VOCAB), n_embd=16, n_layer=2, n_head=2, n_positions=32,
                        bos_token_id=0, eos_token_id=0, initializer_range=0.5)
    GPT2LMHeadModel(config).save_pretrained(path)
    return str(path)


class Enumeration:
    """String probabilities of a causal LM by summing over every token sequence (depth first),
    one full forward pass per visited prefix: nothing of the package is used."""

    def __init__(self, path: str):
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.tok = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForCausalLM.from_pretrained(path).eval()
        self.eos = self.tok.eos_token_id
        self.seen: dict[tuple[int, ...], np.ndarray] = {}

    def next_probs(self, ids: list[int]) -> np.ndarray:
        if tuple(ids) not in self.seen:
            with torch.no_grad():
                logits = self.model(torch.tensor([[self.tok.bos_token_id, *ids]])).logits[0, -1]
            self.seen[tuple(ids)] = logits.double().softmax(-1).numpy()
        return self.seen[tuple(ids)]

    def text(self, ids: list[int]) -> str:
        return self.tok.decode(ids, clean_up_tokenization_spaces=False)

    def prob(self, prefix: str, then_boundary: bool) -> float:
        """P(the text starts with `prefix`), and with `then_boundary` followed by whitespace
        or its end, over all token sequences."""
        total, stack = 0.0, [([], 1.0)]
        while stack:
            ids, p = stack.pop()
            done = self.text(ids) == prefix
            for v, q in enumerate(self.next_probs(ids)):
                if v == self.eos:
                    total += p * q if done else 0.0
                    continue
                s = self.text([*ids, v])
                if len(s) <= len(prefix) and prefix.startswith(s) and not done:
                    stack.append(([*ids, v], p * q))
                elif s.startswith(prefix) and len(s) > len(prefix):
                    total += p * q if s[len(prefix)].isspace() or not then_boundary else 0.0
        return total

    def start(self) -> float:
        """P(the text does not start with whitespace): the first word's condition."""
        probs = self.next_probs([])
        return sum(q for v, q in enumerate(probs) if v == self.eos or not self.text([v])[0].isspace())

    def word_logprobs(self, context: str, text: str) -> list[float]:
        """log P(w_k | the words before it), each word a ratio of brute-force probabilities."""
        words = text.split()
        before = [f"{context} " * bool(context) + " ".join(words[:k]) for k in range(len(words) + 1)]
        ends = [self.prob(b, True) for b in before[1:]]
        first = self.prob(context, True) if context else self.start()
        return [math.log(e / d) for e, d in zip(ends, [first, *ends[:-1]], strict=True)]


@pytest.fixture(scope="module")
def brute(bow_dir) -> Enumeration:
    return Enumeration(bow_dir)


TEXTS = ["a", "ab ba", "b a ab", "ba b bb a"]


def test_corrected_words_equal_the_brute_force_marginal(bow_dir, brute):
    table = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(6)],
                          "text": [*TEXTS, "b ba", "a"], "context": ["", "", "", "", "ab", "b a"]})
    got = scoring.word_scores(table, bow_dir, "logprob", boundary="corrected", batch_size=3, **KW)
    plain = scoring.word_scores(table, bow_dir, "logprob", **KW)
    expected = [lp for c, t in zip(table["context"], table["text"], strict=True)
                for lp in brute.word_logprobs(c, t)]
    np.testing.assert_allclose(got["logprob"], expected, atol=TOL)
    assert np.abs(plain["logprob"] - expected).max() > 0.1  # the plain sum is not the word's probability
    np.testing.assert_allclose(got["surprisal"], -np.array(expected) / math.log(2), atol=TOL)


@pytest.mark.parametrize("context", ["", "ab b"])
def test_corrected_words_form_a_distribution(bow_dir, brute, context):
    """Every word of at most 3 letters, the end of the text, and the words longer than 3
    letters (their first 3 letters and one more) share probability 1; the plain sums do not."""
    words = [""]
    for _ in range(3):
        words = [w + c for w in words for c in "ab"] + [w for w in words if w]
    words = sorted(set(words))
    longest = [w for w in words if len(w) == 3]
    assert len(words) == 14
    before = f"{context} " * bool(context)
    first = brute.prob(context, True) if context else brute.start()
    end = _ends_here(brute, context) / first
    longer = sum(brute.prob(before + w, False) - brute.prob(before + w, True) for w in longest) / first
    table = pd.DataFrame({"sentence_id": words, "text": words, "context": context})
    for boundary, total in (("corrected", 1.0), ("sum", None)):
        got = scoring.word_scores(table, bow_dir, "logprob", boundary=boundary, **KW)
        mass = np.exp(got["logprob"]).sum() + end + longer
        if total:
            assert mass == pytest.approx(total, abs=TOL)
        else:
            assert abs(mass - 1) > 0.05


def _ends_here(brute: Enumeration, context: str) -> float:
    """P(the text is `context` and nothing more)."""
    ids = brute.tok(context, add_special_tokens=False)["input_ids"]
    return float(np.prod([brute.next_probs(ids[:k])[t] for k, t in enumerate(ids)])
                 * brute.next_probs(ids)[brute.eos])


def _by_hand(path: str, text: str) -> list[float]:
    """Pimentel & Meister's recipe written out for one sentence: a word runs from a token whose
    text starts with whitespace to the next such token (their cumsum of is_bow); each boundary
    term a sum of the full softmax over those tokens and EOS (the first word's: over the
    others and EOS)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModelForCausalLM.from_pretrained(path).eval()
    ids = tok(text)["input_ids"]
    with torch.no_grad():
        logp = model(torch.tensor([[tok.bos_token_id, *ids]])).logits[0].double().log_softmax(-1)
    bow = np.array([tok.decode([i])[:1].isspace() for i in range(len(tok))])
    ends, starts = bow.copy(), ~bow
    ends[tok.eos_token_id] = starts[tok.eos_token_id] = True

    def mass(row: int, which: np.ndarray) -> float:
        return torch.logsumexp(logp[row][torch.from_numpy(which)], 0).item()

    firsts = [0] + [j for j in range(1, len(ids)) if bow[ids[j]]]
    out = []
    for k, (a, b) in enumerate(zip(firsts, [*firsts[1:], len(ids)], strict=True)):
        before = mass(0, ends if bow[ids[0]] else starts) if k == 0 else mass(a, ends)
        out.append(sum(logp[j, ids[j]].item() for j in range(a, b)) + mass(b, ends) - before)
    return out


def test_corrected_words_equal_the_recipe_on_a_byte_level_bpe(gpt2_dir, sentences):
    """GPT-2's byte-level BPE (330 tokens: 'Ġ' alone, 'Ċ' for a newline) against `_by_hand`."""
    texts = [*sentences, "The cat\nsat on the mat."]
    got = scoring.word_scores(texts, gpt2_dir, "logprob", boundary="corrected", batch_size=3, **KW)
    expected = [lp for t in texts for lp in _by_hand(gpt2_dir, t)]
    np.testing.assert_allclose(got["logprob"], expected, atol=1e-4)
    assert list(got["word"]) == [w for t in texts for w in t.split()]


def _split_punctuation(text: str) -> list[tuple[int, int]]:
    """A user's word tokenizer: punctuation apart from the word it is written on."""
    return [m.span() for m in re.finditer(r"\w+|[^\w\s]", text)]


@pytest.mark.parametrize("boundary", ["sum", "corrected"])
def test_tokenizer_words_add_up_to_whitespace_words(gpt2_dir, sentences, boundary):
    spaced = scoring.word_scores(sentences, gpt2_dir, boundary=boundary, **KW)
    fine = scoring.word_scores(sentences, gpt2_dir, words=_split_punctuation, boundary=boundary, **KW)
    by_text = scoring.word_scores(sentences, gpt2_dir, boundary=boundary, **KW,
                                  words=lambda t: re.findall(r"\w+|[^\w\s]", t))
    pd.testing.assert_frame_equal(fine, by_text)
    assert len(fine) > len(spaced)
    texts = dict(zip(map(str, range(len(sentences))), sentences, strict=True))
    assert all(texts[r.sentence_id][r.start:r.end] == r.word for r in fine.itertuples())
    # each fine word inside the whitespace word that holds its first character
    owner = [spaced[(spaced["sentence_id"] == r.sentence_id) & (spaced["start"] <= r.start)
                    ].index[-1] for r in fine.itertuples()]
    np.testing.assert_allclose(fine.groupby(owner)["logprob"].sum(), spaced["logprob"], atol=1e-4)
    np.testing.assert_array_equal(fine.groupby(owner)["n_tokens"].sum(), spaced["n_tokens"])


@pytest.mark.parametrize("boundary", ["sum", "corrected"])
def test_regions_score_as_the_sum_of_their_words(gpt2_dir, boundary):
    text = "The keys to the cabinet are on the table."
    regions = [(0, 8), (9, 23), (23, 23), (24, 27), (28, 41)]  # an empty region at 23
    words = scoring.word_scores([text], gpt2_dir, boundary=boundary, **KW)
    got = scoring.word_scores([text], gpt2_dir, words=[regions], boundary=boundary, **KW)
    by_id = scoring.word_scores([text], gpt2_dir, words={"0": regions}, boundary=boundary, **KW)
    pd.testing.assert_frame_equal(got, by_id)
    assert list(got["word"]) == ["The keys", "to the cabinet", "", "are", "on the table."]
    inside = [words[(words["start"] >= a) & (words["end"] <= b)] for a, b in regions]
    np.testing.assert_allclose(got["logprob"], [w["logprob"].sum() for w in inside], atol=1e-4)
    assert list(got["n_tokens"]) == [w["n_tokens"].sum() for w in inside]


def test_token_scores_word_level_is_the_plain_word_score(gpt2_dir, bert_dir, sentences):
    for path, method in ((gpt2_dir, "logprob"), (bert_dir, "pll_word_l2r")):
        old = scoring.token_scores(sentences, path, method, level="word", **KW)
        new = scoring.word_scores(sentences, path, method, **KW)
        pd.testing.assert_frame_equal(old, new[old.columns])
        assert list(new.columns) == ["sentence_id", "model", "method", "boundary", "index", "word",
                                     "start", "end", "logprob", "surprisal", "n_tokens"]


@pytest.mark.parametrize(("fixture", "method"), [("bert_dir", "mntp"), ("t5_dir", "seq2seq"),
                                               ("bart_dir", "seq2seq_pll")])
def test_every_token_method_sums_to_its_sentence_score(request, fixture, method, sentences):
    path = request.getfixturevalue(fixture)
    words = scoring.word_scores(sentences, path, method, **KW)
    total = scoring.score(sentences, path, method, **KW).set_index("sentence_id")["score"]
    np.testing.assert_allclose(words.groupby("sentence_id")["logprob"].sum()[total.index], total,
                               atol=1e-4)
    assert list(words["word"]) == [w for t in sentences for w in t.split()]


def test_masked_words_are_plain_sums_only(bert_dir, sentences):
    fine = scoring.word_scores(sentences, bert_dir, "pll", words=_split_punctuation, **KW)
    total = scoring.score(sentences, bert_dir, "pll", **KW).set_index("sentence_id")["score"]
    np.testing.assert_allclose(fine.groupby("sentence_id")["logprob"].sum()[total.index], total,
                               atol=1e-4)
    with pytest.raises(scoring.ScoringError, match="reads a causal LM's next-token distribution"):
        scoring.word_scores(sentences, bert_dir, "pll", boundary="corrected", **KW)


def test_ngram_words_are_its_tokens():
    lm = scoring.train_ngram(["the cat sat", "the dog sat"], order=2, tokenize=str.split)
    got = scoring.word_scores(["the dog sat"], lm, "ngram", **KW)
    assert got["start"].tolist()[:3] == [0, 4, 8] and got["end"].isna().tolist()[-1]
    for wrong, message in (({"boundary": "corrected"}, "causal LM"),
                           ({"words": str.split}, "its own tokens")):
        with pytest.raises(scoring.ScoringError, match=message):
            scoring.word_scores(["the dog sat"], lm, "ngram", **KW, **wrong)


def test_corrected_scores_alike_across_batches_cache_and_workers(gpt2_dir, sentences, tmp_path):
    from distributed import Client, LocalCluster

    reference = scoring.word_scores(sentences, gpt2_dir, boundary="corrected", batch_size=1, **KW)
    opts = {"boundary": "corrected", "batch_size": 4, "cache": tmp_path, "progress": False}
    first = scoring.word_scores(sentences, gpt2_dir, **opts)
    again = scoring.word_scores(sentences, gpt2_dir, **opts)  # read back from the cache
    with (LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
          Client(cluster) as client):
        split = scoring.word_scores(sentences, gpt2_dir, **{**opts, "cache": False}, client=client)
    for got in (first, again, split):
        np.testing.assert_allclose(got["logprob"], reference["logprob"], atol=1e-5)
    plain = scoring.word_scores(sentences, gpt2_dir, cache=tmp_path, progress=False)
    pd.testing.assert_frame_equal(plain, scoring.word_scores(sentences, gpt2_dir, **KW))
    assert len(scoring.ScoreCache(tmp_path)) == 2 * len(sentences)  # corrected and plain apart


def test_bfloat16_corrected_scores_stay_near_float32(gpt2_dir, sentences):
    exact = scoring.word_scores(sentences, gpt2_dir, boundary="corrected", **KW)
    rounded = scoring.word_scores(sentences, gpt2_dir, boundary="corrected", dtype="bfloat16", **KW)
    np.testing.assert_allclose(rounded["logprob"], exact["logprob"], atol=0.05)


def test_sentencepiece_word_starts_are_its_underscore_pieces():
    """A '▁' piece decodes without its space at the start of a text; decoding after an
    anchor token keeps it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from tests.scoring_fixtures import CORPUS

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(CORPUS, trainers.BpeTrainer(vocab_size=120,
                                                        special_tokens=["<unk>", "</s>"]))
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", eos_token="</s>")
    table = word_start_classes(fast, len(fast) + 3)  # 3 logits past the vocabulary
    pieces = fast.convert_ids_to_tokens(list(range(len(fast))))
    initial = np.array([p.startswith("▁") for p in pieces] + [False] * 3)
    initial[fast.eos_token_id] = True
    np.testing.assert_array_equal(table[1], initial)
    ordinary = np.array([True] * len(fast) + [False] * 3)
    ordinary[fast.unk_token_id] = False  # special tokens in neither class, but EOS in both
    others = ordinary & ~initial
    others[fast.eos_token_id] = True
    np.testing.assert_array_equal(table[0], others)


def test_a_tokenizer_without_leading_spaces_is_refused(bert_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(bert_dir)  # WordPiece marks word-internal pieces
    with pytest.raises(scoring.ScoringError, match="does not start tokens with the whitespace"):
        word_start_classes(tok, len(tok))


@pytest.mark.parametrize(("wrong", "message"), [
    ({"boundary": "bos"}, "boundary must be one of"),
    ({"boundary": "corrected", "start_token": None}, "needs the first word's first token"),
    ({"words": "spacy"}, "give 'whitespace'"),
    ({"words": [["The"]]}, "words for 1 sentences, but there are 2"),
    ({"words": {"0": ["The", "cat", "sat."]}}, "no words given for sentence_id"),
    ({"words": lambda t: t.split()[:-1]}, "is in no word"),
    ({"words": lambda t: ["cat", "cat"]}, "is not in"),
    ({"words": lambda t: [(0, 5), (3, 8)]}, "overlaps"),
    ({"words": lambda t: [1, 2]}, "list of strings or of"),
    ({"words": ["The cat sat.", "Dogs ran."]}, "are one string"),
    ({"word_boundaries": True}, "does not take word_boundaries"),
    ({"normalise": "mean"}, "does not take normalise"),
])
def test_bad_requests_say_what_to_do(gpt2_dir, wrong, message):
    with pytest.raises(scoring.ScoringError, match=message):
        scoring.word_scores(["The cat sat.", "Dogs ran."], gpt2_dir, "logprob", **KW, **wrong)


def test_corrected_refuses_trailing_whitespace(gpt2_dir):
    with pytest.raises(scoring.ScoringError, match=r"end in whitespace.*rstrip"):
        scoring.word_scores(["The cat sat. "], gpt2_dir, boundary="corrected", **KW)
