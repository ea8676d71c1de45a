"""ScoringOptions: score, token_scores and prefix_scores build one from their keyword
arguments; an options object gives the same scores as the same keywords."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from acceptability import scoring
from acceptability.scoring.options import resolve

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

CORPUS = ["the cat sat on the mat", "the dog sat", "a cat ran on the mat"]
TEXTS = ["the cat sat", "mat the on sat cat"]


@pytest.fixture(scope="module")
def ngram():
    return scoring.train_ngram(CORPUS, order=2)


def test_options_are_frozen_and_default_like_the_keywords():
    opts = scoring.ScoringOptions()
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.batch_size = 2  # type: ignore[misc]
    assert (opts.batch_size, opts.cache, opts.progress, opts.start_token) == (16, True, True, "auto")


def test_resolve_layers_the_call_over_the_options():
    base = scoring.ScoringOptions(model="m", batch_size=4, cache=False)
    got = resolve(base, None, None, {"batch_size": 8}, default_method="logprob")
    assert (got.model, got.method, got.batch_size, got.cache) == ("m", "logprob", 8, False)
    got = resolve(base, "other", "pll", {}, default_method="logprob")
    assert (got.model, got.method, got.batch_size) == ("other", "pll", 4)
    with pytest.raises(TypeError, match="batchsize"):
        resolve(None, "m", None, {"batchsize": 8}, default_method="logprob")
    with pytest.raises(scoring.ScoringError, match="no model"):
        resolve(None, None, None, {}, default_method="logprob")


def test_options_object_scores_as_the_keywords_do(ngram):
    by_keywords = scoring.score(TEXTS, ngram, "ngram", normalise="mean", cache=False, progress=False)
    opts = scoring.ScoringOptions(model=ngram, method="ngram", normalise="mean", cache=False,
                                  progress=False)
    pd.testing.assert_frame_equal(scoring.score(TEXTS, options=opts), by_keywords)
    pd.testing.assert_frame_equal(
        scoring.score(TEXTS, options=dataclasses.replace(opts, model=None), model=ngram), by_keywords)
    words = scoring.token_scores(TEXTS, ngram, "ngram", level="word", cache=False, progress=False)
    pd.testing.assert_frame_equal(
        scoring.token_scores(TEXTS, level="word", options=dataclasses.replace(opts, normalise=None)),
        words)


def test_settings_a_function_does_not_use_are_refused(ngram):
    opts = scoring.ScoringOptions(model=ngram, method="ngram", normalise="mean", cache=False)
    with pytest.raises(scoring.ScoringError, match="token_scores does not take normalise"):
        scoring.token_scores(TEXTS, options=opts)
    with pytest.raises(scoring.ScoringError, match="prefix_scores does not take client"):
        scoring.prefix_scores(pd.DataFrame(), "gpt2", client=object())
    with pytest.raises(TypeError, match="levle"):
        scoring.score(TEXTS, ngram, "ngram", levle="word")


def test_prefix_scores_take_options(gpt2_dir):
    from tests.scoring.test_prefix import PAIRS

    kw = scoring.prefix_scores(PAIRS, gpt2_dir, "two_prefix", cache=False, progress=False)
    opts = scoring.ScoringOptions(model=gpt2_dir, cache=False, progress=False)
    pd.testing.assert_frame_equal(scoring.prefix_scores(PAIRS, method="two_prefix", options=opts), kw)
    one = scoring.prefix_scores(PAIRS, options=opts)  # the prefix default, not score's
    assert set(one["method"]) == {"one_prefix"}
