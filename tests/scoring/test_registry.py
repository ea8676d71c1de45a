"""The method registry is the one list of scoring methods: every other name list derives
from it, each method's backend exists and computes what the registry says."""

from __future__ import annotations

import importlib

import pytest

from acceptability import scoring
from acceptability.data import tables
from acceptability.scoring import registry
from acceptability.scoring.models import HEAD_SUFFIXES

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


def test_public_methods_are_the_registrys_sentence_methods():
    assert scoring.METHODS == registry.METHODS
    assert scoring.METHODS == ("logprob", "pll", "pll_word_l2r", "mntp", "mntp_word_l2r",
                               "seq2seq", "seq2seq_pll", "classifier", "ngram")
    assert registry.PREFIX_METHODS == ("one_prefix", "two_prefix")
    assert set(registry.REGISTRY) == {*registry.METHODS, *registry.PREFIX_METHODS}


def test_the_data_layers_signed_confidence_method_is_the_registrys_only_non_logprob():
    """stats (which may not import scoring) tells log-probability scores by the one method
    that is not one (data.tables.SIGNED_CONFIDENCE_METHOD): the registry must agree."""
    not_logprob = [name for name, m in registry.REGISTRY.items()
                   if not m.logprob and not m.prefix]  # prefix scores are another table
    assert not_logprob == [tables.SIGNED_CONFIDENCE_METHOD]


@pytest.mark.parametrize("name", list(registry.REGISTRY))
def test_every_method_names_a_backend_and_a_kind(name):
    method = registry.REGISTRY[name]
    assert method.name == name
    assert method.kind in registry.KINDS
    assert method.kind == "ngram" or method.kind in HEAD_SUFFIXES
    importlib.import_module(method.backend)
    assert method.description and "\n" not in method.description
    assert not (method.prefix and method.logprob)  # prefix methods score words, not sentences


def test_methods_of_kind_partition_the_registry():
    by_kind = [registry.methods_of_kind(k) for k in registry.KINDS]
    assert sorted(sum(by_kind, ())) == sorted(registry.REGISTRY)


def test_a_prefix_method_is_refused_by_score(gpt2_dir):
    with pytest.raises(scoring.ScoringError, match="prefix_scores"):
        scoring.score(["A cat sat."], gpt2_dir, "one_prefix", cache=False)


def test_a_wrong_kind_of_model_names_the_methods_it_serves(bert_dir):
    with pytest.raises(scoring.ScoringError, match="use method 'pll' or 'pll_word_l2r'"):
        scoring.score(["A cat sat."], bert_dir, "logprob", cache=False)
