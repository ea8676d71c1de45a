"""Bad input gives one clear ScoringError: what, where, how to fix."""

from __future__ import annotations

import pytest

from acceptability import scoring

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


def test_unknown_model_id_gives_one_clear_error(monkeypatch):
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)  # no network retries
    with pytest.raises(scoring.ScoringError, match="cannot load model 'no-such-org/no-model'") as err:
        scoring.score(["A sentence."], "no-such-org/no-model", "logprob", cache=False)
    assert err.value.__cause__ is None and err.value.__suppress_context__


@pytest.mark.parametrize("where", ["./no-such-model", "~/no/such/model", "a/b/c", "{tmp}/gpt2-tny",
                                   "{gpt2}/config.json"])
def test_misspelt_local_path_fails_fast_without_the_hub(where, tmp_path, gpt2_dir, monkeypatch):
    """A path that is no folder is an error at once, not a hub request retried for ~30 s."""
    import time

    import transformers

    def no_hub(*args, **kwargs):
        raise AssertionError("a local path was sent to the Hugging Face hub")

    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", no_hub)
    name = where.format(tmp=tmp_path, gpt2=gpt2_dir)
    start = time.perf_counter()
    with pytest.raises(scoring.ScoringError, match=r"model folder .*(does not exist|is a file)"):
        scoring.score(["A sentence."], name, "logprob", cache=False)
    assert time.perf_counter() - start < 1.0


def test_empty_sentence_names_its_id(gpt2_dir):
    with pytest.raises(scoring.ScoringError, match="empty or missing 'text'.*sentence_id 1"):
        scoring.score(["Fine.", "  "], gpt2_dir, "logprob", cache=False)


def test_over_long_sentence_is_an_error_not_truncated(gpt2_dir, bert_dir):
    long = " ".join(["cat"] * 80)
    with pytest.raises(scoring.ScoringError, match="sentence '1'.*tokens, more than the 64"):
        scoring.score(["Fine.", long], gpt2_dir, "logprob", cache=False)
    with pytest.raises(scoring.ScoringError, match="never truncates"):
        scoring.score([long], bert_dir, "pll", cache=False)


def test_roberta_limit_counts_its_position_offset(roberta_dir):
    """RoBERTa numbers positions from padding_idx + 1: 66 positions hold 65 tokens, not 66."""
    fits = " ".join(["cat"] * 63)  # + <s> and </s> = 65 tokens
    assert len(scoring.score([fits], roberta_dir, "pll", cache=False, progress=False)) == 1
    with pytest.raises(scoring.ScoringError, match="66 tokens, more than the 65"):
        scoring.score([fits + " cat"], roberta_dir, "pll", cache=False, progress=False)


def test_method_the_model_cannot_do(gpt2_dir, bert_dir, sentences):
    with pytest.raises(scoring.ScoringError, match="not a causal model.*use method 'pll'"):
        scoring.score(sentences, bert_dir, "logprob", cache=False)
    with pytest.raises(scoring.ScoringError, match="not a masked model.*'logprob'"):
        scoring.score(sentences, gpt2_dir, "pll", cache=False)
    with pytest.raises(scoring.ScoringError, match="not a classifier"):
        scoring.score(sentences, gpt2_dir, "classifier", cache=False)
    with pytest.raises(scoring.ScoringError, match="unknown scoring method 'bogus'"):
        scoring.score(sentences, gpt2_dir, "bogus", cache=False)
    with pytest.raises(scoring.ScoringError, match="no token scores"):
        scoring.token_scores(sentences, gpt2_dir, "classifier", cache=False)


def test_bad_tables(gpt2_dir, sentences):
    import pandas as pd

    with pytest.raises(scoring.ScoringError, match="lacks column"):
        scoring.score(pd.DataFrame({"text": ["A."]}), gpt2_dir, cache=False)
    with pytest.raises(scoring.ScoringError, match="duplicated sentence_id"):
        scoring.score(pd.DataFrame({"sentence_id": ["a", "a"], "text": ["A.", "B."]}), gpt2_dir, cache=False)
    with pytest.raises(scoring.ScoringError, match="not one string"):
        scoring.score("A sentence.", gpt2_dir, cache=False)
    with pytest.raises(scoring.ScoringError, match="needs a unigram model"):
        scoring.score(sentences, gpt2_dir, normalise="slor", cache=False)
