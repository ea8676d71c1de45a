"""BLiMP one- and two-prefix methods (Warstadt et al. 2020, section 6.4) on a tiny causal LM."""

from __future__ import annotations

import pandas as pd
import pytest

from acceptability import scoring

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

PAIRS = pd.DataFrame(
    {
        "pair_id": ["agr_0", "agr_1", "anim_0"],
        "one_prefix_method": [True, True, False],
        "two_prefix_method": [False, True, True],
        "one_prefix_prefix": ["The cat", "The keys to the cabinet", None],
        "one_prefix_word_good": ["sat", "are", None],
        "one_prefix_word_bad": ["sit", "is", None],
        "two_prefix_prefix_good": [None, "The keys", "Mary"],
        "two_prefix_prefix_bad": [None, "The key", "The mat"],
        "two_prefix_word": [None, " are", " saw"],
    }
)


def _logprob(model, text):
    return scoring.score([text], model, "logprob", cache=False, progress=False)["score"][0]


def test_one_prefix_compares_the_critical_word_given_the_shared_prefix(gpt2_dir):
    got = scoring.prefix_scores(PAIRS, gpt2_dir, "one_prefix", cache=False, progress=False)
    assert list(got["pair_id"]) == ["agr_0", "agr_1"]
    expected = _logprob(gpt2_dir, "The cat sat") - _logprob(gpt2_dir, "The cat")
    assert got["good_score"][0] == pytest.approx(expected, abs=1e-4)
    assert (got["prefers_good"] == (got["good_score"] > got["bad_score"])).all()
    assert set(got["method"]) == {"one_prefix"}


def test_two_prefix_compares_the_shared_word_given_two_prefixes(tmp_path, gpt2_dir):
    got = scoring.prefix_scores(PAIRS, gpt2_dir, "two_prefix", cache=tmp_path, progress=False)
    assert list(got["pair_id"]) == ["agr_1", "anim_0"]
    bad = _logprob(gpt2_dir, "The mat saw") - _logprob(gpt2_dir, "The mat")
    assert got["bad_score"][1] == pytest.approx(bad, abs=1e-4)
    again = scoring.prefix_scores(PAIRS, gpt2_dir, "two_prefix", cache=tmp_path, progress=False)
    pd.testing.assert_frame_equal(got, again)


def test_prefix_errors(gpt2_dir, bert_dir):
    with pytest.raises(scoring.ScoringError, match="lacks.*two_prefix_word"):
        scoring.prefix_scores(PAIRS.drop(columns="two_prefix_word"), gpt2_dir, "two_prefix", cache=False)
    with pytest.raises(scoring.ScoringError, match="not a causal model"):
        scoring.prefix_scores(PAIRS, bert_dir, "one_prefix", cache=False)
    with pytest.raises(scoring.ScoringError, match="unknown prefix method"):
        scoring.prefix_scores(PAIRS, gpt2_dir, "three_prefix", cache=False)


@pytest.mark.parametrize("method", ["one_prefix", "two_prefix"])
def test_prefix_methods_in_bfloat16_are_the_float32_ones_to_bfloat16_precision(gpt2_dir, method):
    fp32 = scoring.prefix_scores(PAIRS, gpt2_dir, method, cache=False, progress=False)
    bf16 = scoring.prefix_scores(PAIRS, gpt2_dir, method, dtype="bfloat16", cache=False, progress=False)
    for column in ("good_score", "bad_score"):
        assert ((bf16[column] - fp32[column]).abs() <= 2**-8 * fp32[column].abs()).all()
        assert (bf16[column] != fp32[column]).any()
