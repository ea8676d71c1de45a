"""Scores comparable across scripts (issue 46, item 5): log-probability per character and per
UTF-8 byte of the sentence (lm-evaluation-harness's ``acc_norm`` and ``acc_bytes``), and its
``target_delimiter`` (the text scored before each sentence), against a token loop written here
on the tiny GPT-2."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import scoring

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

# one sentence in each of four scripts: Latin with Turkish letters, Cyrillic, Han, Latin ASCII
TEXTS = ["Kedi bahçede uyudu.", "Кошка спала в саду.", "猫在花园里睡觉。", "The cat slept."]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(TEXTS))], "text": TEXTS})


def _score(frame, model, **kw):
    return scoring.score(frame, model, "logprob", cache=False, progress=False, **kw)


def _by_hand(path: str, text: str) -> float:
    """log P(text | BOS): one forward pass, the log-softmax at each token's previous position."""
    import torch
    import transformers

    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForCausalLM.from_pretrained(path).eval()
    ids = [tok.bos_token_id, *tok(text)["input_ids"]]
    with torch.no_grad():
        logp = model(torch.tensor([ids])).logits[0].log_softmax(-1)
    return sum(logp[k - 1, ids[k]].item() for k in range(1, len(ids)))


def test_chars_and_bytes_divide_by_the_sentences_length(gpt2_dir, table):
    raw = _score(table, gpt2_dir)["score"].to_numpy()
    chars = np.array([len(t) for t in TEXTS])  # code points
    size = np.array([len(t.encode("utf-8")) for t in TEXTS])
    assert chars.tolist() == [19, 19, 8, 14] and size.tolist() == [20, 34, 24, 14]
    for how, length in (("chars", chars), ("bytes", size)):
        got = _score(table, gpt2_dir, normalise=how)
        np.testing.assert_allclose(got["score"], raw / length, rtol=1e-12)
        assert set(got["method"]) == {f"logprob_{how}"}


def test_the_target_delimiter_is_scored_and_never_counted(gpt2_dir, table):
    """lm-eval's BLiMP request (context "", continuation " " + s): log P(" " + s | BOS), by
    hand; acc_norm still divides by len(s), the choice string without its delimiter."""
    plain = _score(table, gpt2_dir)["score"].to_numpy()
    spaced = _score(table, gpt2_dir, target_delimiter=" ")["score"].to_numpy()
    np.testing.assert_allclose(spaced, [_by_hand(gpt2_dir, " " + t) for t in TEXTS], atol=1e-4)
    np.testing.assert_allclose(plain, [_by_hand(gpt2_dir, t) for t in TEXTS], atol=1e-4)
    assert np.all(np.abs(spaced - plain) > 1e-3)  # the delimiter moves every score
    per_char = _score(table, gpt2_dir, target_delimiter=" ", normalise="chars")["score"]
    np.testing.assert_allclose(per_char, spaced / [len(t) for t in TEXTS], rtol=1e-12)


def test_token_and_word_scores_refuse_a_delimiter(gpt2_dir, table):
    for scores in (scoring.token_scores, scoring.word_scores):
        with pytest.raises(scoring.ScoringError, match="does not take target_delimiter"):
            scores(table, gpt2_dir, "logprob", target_delimiter=" ", cache=False, progress=False)
