"""Benchmark accuracy from scores the package computes itself: real BLiMP pairs scored
by the tiny GPT-2 and BERT models, then perplexity (``scoring.score``), BLiMP's shallow
predictors (sec. 5.2), its prefix methods beside the full-sentence method (sec. 6.4) and
bootstrap accuracy, each checked against a plain-loop recomputation on the same pairs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from acceptability.data.errors import DataError
from acceptability.stats.benchmarks import outcomes as acc_mod
from acceptability.stats.benchmarks import shallow
from tests.conftest import need_data

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

# two one-prefix and two two-prefix subject-verb agreement paradigms (BLiMP flags a
# whole paradigm for a method or not at all), and one paradigm with neither method
ONE_PREFIX = ["regular_plural_subject_verb_agreement_1", "irregular_plural_subject_verb_agreement_1"]
TWO_PREFIX = ["regular_plural_subject_verb_agreement_2", "irregular_plural_subject_verb_agreement_2"]
NEITHER = ["inchoative"]
PARADIGMS = [*ONE_PREFIX, *TWO_PREFIX, *NEITHER]
PER_PARADIGM = 40  # pairs per paradigm scored by GPT-2
PER_PARADIGM_PLL = 4  # PLL costs one forward pass per token: fewer pairs for BERT
GPT2 = "tiny-gpt2"  # one system name for the full-sentence and the prefix scores
TOL = 1e-4
OPTS = {"cache": False, "progress": False}  # nothing written to the user's score cache


def first_pairs(ds: data.Dataset, n: int) -> data.Dataset:
    """The first ``n`` pairs of each paradigm, with their sentences."""
    return ds.subset(ds.pairs.groupby("paradigm", sort=False).head(n)["pair_id"])


@pytest.fixture(scope="module")
def blimp() -> data.Dataset:
    need_data("blimp")
    return data.load_blimp(paradigms=PARADIGMS)


@pytest.fixture(scope="module")
def ds(blimp) -> data.Dataset:
    return first_pairs(blimp, PER_PARADIGM)


@pytest.fixture(scope="module")
def small(blimp) -> data.Dataset:
    return first_pairs(blimp, PER_PARADIGM_PLL)


@pytest.fixture(scope="module")
def gpt2_scores(ds, gpt2_dir) -> pd.DataFrame:
    return scoring.score(ds, gpt2_dir, "logprob", model_name=GPT2, **OPTS)


@pytest.fixture(scope="module")
def bert_scores(small, bert_dir) -> pd.DataFrame:
    return scoring.score(small, bert_dir, "pll", model_name="tiny-bert", **OPTS)


@pytest.fixture(scope="module")
def prefix(ds, gpt2_dir) -> pd.DataFrame:
    return pd.concat([scoring.prefix_scores(ds, gpt2_dir, m, model_name=GPT2, **OPTS)
                      for m in ("one_prefix", "two_prefix")], ignore_index=True)


def brute_correct(ds: data.Dataset, scores: pd.DataFrame) -> dict[str, float]:
    """pair_id -> 1.0 when score(good) > score(bad), else 0.0, by a plain loop."""
    score = dict(zip(scores["sentence_id"], scores["score"], strict=True))
    return {row.pair_id: float(score[row.good_id] > score[row.bad_id])
            for row in ds.pairs.itertuples()}


def mean_of_paradigm_means(pairs: pd.DataFrame, correct: dict[str, float]) -> float:
    """BLiMP's aggregation: the mean over paradigms of each paradigm's mean, by loops."""
    per: dict[str, list[float]] = {}
    for row in pairs.itertuples():
        per.setdefault(row.paradigm, []).append(correct[row.pair_id])
    return sum(sum(v) / len(v) for v in per.values()) / len(per)


# 1. perplexity in the scores table --------------------------------------------------

def check_perplexity(ds, scores, model_dir, method):
    tokens = scoring.token_scores(ds, model_dir, method, **OPTS)
    by_sentence = tokens.groupby("sentence_id")["logprob"].agg(["sum", "size"])
    got = scores.set_index("sentence_id")
    assert len(got) == len(ds.sentences) and got.index.equals(pd.Index(ds.sentences["sentence_id"]))
    ref = by_sentence.reindex(got.index)
    np.testing.assert_allclose(got["score"], ref["sum"], atol=TOL)
    assert (got["n_tokens"] == ref["size"]).all()
    expected = [math.exp(-total / n) for total, n in zip(ref["sum"], ref["size"], strict=True)]
    np.testing.assert_allclose(got["perplexity"], expected, rtol=TOL)
    assert (got["perplexity"] > 1).all()  # a probability below 1 per token


def test_logprob_perplexity_is_per_token(ds, gpt2_scores, gpt2_dir):
    assert set(gpt2_scores["method"]) == {"logprob"}
    check_perplexity(ds, gpt2_scores, gpt2_dir, "logprob")


def test_pll_pseudo_perplexity_is_per_token(small, bert_scores, bert_dir):
    assert set(bert_scores["method"]) == {"pll"}
    check_perplexity(small, bert_scores, bert_dir, "pll")


def test_classifier_has_no_perplexity_and_no_shallow_predictors(small, classifier_dir):
    sc = scoring.score(small, classifier_dir, "classifier", **OPTS)
    assert set(sc["method"]) == {"classifier"} and "perplexity" not in sc
    with pytest.raises(DataError, match="log-probability scores"):
        shallow.shallow_predictors(small, sc, n_bins=4)


# 2. shallow predictors (sec. 5.2) ---------------------------------------------------

def test_shallow_predictors_against_a_plain_loop(ds, gpt2_scores):
    out = shallow.shallow_predictors(ds, gpt2_scores, n_bins=4)
    assert set(out["model"]) == {GPT2}
    assert set(out["predictor"]) == set(shallow.PREDICTORS)
    correct = brute_correct(ds, gpt2_scores)
    text = dict(zip(ds.sentences["sentence_id"], ds.sentences["text"], strict=True))
    sc = gpt2_scores.set_index("sentence_id")
    value = {"length": {}, "perplexity": {}, "logprob_good": {}, "confidence": {}}
    for row in ds.pairs.itertuples():
        value["length"][row.pair_id] = len(text[row.good_id].split())
        value["perplexity"][row.pair_id] = sc.loc[row.good_id, "perplexity"]
        value["logprob_good"][row.pair_id] = sc.loc[row.good_id, "score"]
        value["confidence"][row.pair_id] = abs(sc.loc[row.good_id, "score"]
                                               - sc.loc[row.bad_id, "score"])
    for name, bins in out.groupby("predictor"):
        assert bins["n_pairs"].sum() == len(ds.pairs), name
        if name != "length":
            assert len(bins) == 4, name  # continuous values: no quantile edges dropped
            assert bins["n_pairs"].max() - bins["n_pairs"].min() <= 1, name
        members_seen = 0
        for b in bins.itertuples():
            # a bin holds the pairs whose value lies between its smallest and largest
            members = [p for p, x in value[name].items() if b.low <= x <= b.high]
            members_seen += len(members)
            assert len(members) == b.n_pairs, (name, b.bin)
            assert b.accuracy == pytest.approx(sum(correct[p] for p in members) / len(members))
        assert members_seen == len(ds.pairs), name  # the bins do not overlap


def test_length_bins_are_word_counts_of_the_good_sentence(ds, gpt2_scores):
    out = shallow.shallow_predictors(ds, gpt2_scores, n_bins=4)
    length = out[out["predictor"] == "length"]
    good_text = ds.pairs["good_id"].map(ds.sentences.set_index("sentence_id")["text"])
    counts: dict[int, int] = {}
    for text in good_text:
        n = len(text.split())
        counts[n] = counts.get(n, 0) + 1
    assert (length["low"] == length["high"]).all()
    assert [float(b) for b in length["bin"]] == length["low"].tolist()
    assert dict(zip(length["low"].astype(int), length["n_pairs"], strict=True)) == counts
    assert len(counts) > 1  # the test sees more than one length


def test_perplexity_predictor_needs_perplexity_or_n_tokens(ds, gpt2_scores):
    full = shallow.shallow_predictors(ds, gpt2_scores, n_bins=4)
    neither = shallow.shallow_predictors(
        ds, gpt2_scores.drop(columns=["perplexity", "n_tokens"]), n_bins=4)
    assert set(neither["predictor"]) == {"length", "logprob_good", "confidence"}
    pd.testing.assert_frame_equal(neither, full[full["predictor"] != "perplexity"]
                                  .reset_index(drop=True))
    # with n_tokens alone, perplexity is exp(-score / n_tokens): the same bins
    derived = shallow.shallow_predictors(ds, gpt2_scores.drop(columns="perplexity"), n_bins=4)
    pd.testing.assert_frame_equal(derived, full, rtol=TOL)


# 3. prefix methods beside the full-sentence method (sec. 6.4) -----------------------

def test_prefix_scores_cover_the_flagged_pairs(ds, prefix):
    for method, paradigms in (("one_prefix", ONE_PREFIX), ("two_prefix", TWO_PREFIX)):
        flagged = ds.pairs.loc[ds.pairs[f"{method}_method"], "pair_id"]
        assert set(ds.pairs.loc[ds.pairs[f"{method}_method"], "paradigm"]) == set(paradigms)
        got = prefix.loc[prefix["method"] == method, "pair_id"]
        assert sorted(got) == sorted(flagged) and len(flagged) == PER_PARADIGM * len(paradigms)


def test_method_comparison_against_a_plain_loop(ds, gpt2_scores, prefix):
    full = acc_mod.pair_outcomes(ds, gpt2_scores)
    outcomes = acc_mod.prefix_outcomes(ds, prefix)
    assert len(outcomes) == len(prefix) and set(outcomes["system"]) == {GPT2}
    comp = acc_mod.method_comparison(full, outcomes)
    assert set(comp["method"]) == {"one_prefix", "two_prefix"}
    assert set(comp["level"]) == {"phenomenon", "overall"}
    correct_full = brute_correct(ds, gpt2_scores)
    for method in ("one_prefix", "two_prefix"):
        p = prefix[prefix["method"] == method]
        correct_prefix = {row.pair_id: float(row.good_score > row.bad_score)
                          for row in p.itertuples()}
        pairs = ds.pairs[ds.pairs[f"{method}_method"]]
        row = comp[(comp["method"] == method) & (comp["level"] == "overall")].iloc[0]
        assert row["n_pairs"] == len(pairs) == int(ds.pairs[f"{method}_method"].sum())
        assert row["accuracy_full"] == pytest.approx(mean_of_paradigm_means(pairs, correct_full))
        assert row["accuracy_prefix"] == pytest.approx(
            mean_of_paradigm_means(pairs, correct_prefix))
        assert row["difference"] == pytest.approx(row["accuracy_prefix"] - row["accuracy_full"])
        phen = comp[(comp["method"] == method) & (comp["level"] == "phenomenon")]
        assert phen["group"].tolist() == ["subject_verb_agreement"]  # inchoative: no method
        assert phen["n_pairs"].tolist() == [len(pairs)]


# 4. bootstrap accuracy --------------------------------------------------------------

@pytest.fixture(scope="module")
def outcomes(ds, small, gpt2_scores, bert_scores) -> pd.DataFrame:
    """Two systems judged on different pair sets (BERT on a subset)."""
    return pd.concat([acc_mod.pair_outcomes(ds, gpt2_scores),
                      acc_mod.pair_outcomes(small, bert_scores)], ignore_index=True)


def test_accuracy_intervals_contain_the_estimate_and_repeat(outcomes):
    a = acc_mod.accuracy(outcomes, n_boot=200, seed=3)
    pd.testing.assert_frame_equal(a, acc_mod.accuracy(outcomes, n_boot=200, seed=3))
    assert a["lower"].notna().all() and a["upper"].notna().all()
    assert ((a["lower"] <= a["accuracy"] + 1e-12) & (a["accuracy"] <= a["upper"] + 1e-12)).all()
    assert a.attrs["n_boot"] == 200 and a.attrs["seed"] == 3
    other = acc_mod.accuracy(outcomes, n_boot=200, seed=4)
    pd.testing.assert_series_equal(other["accuracy"], a["accuracy"])  # only intervals move
    assert not other["lower"].equals(a["lower"])


def test_accuracy_levels_are_means_over_paradigms(ds, small, gpt2_scores, bert_scores,
                                                   outcomes):
    a = acc_mod.accuracy(outcomes, n_boot=200, seed=3)
    for system, d, sc in ((GPT2, ds, gpt2_scores), ("tiny-bert", small, bert_scores)):
        correct = brute_correct(d, sc)
        mine = a[a["system"] == system]
        para = mine[mine["level"] == "paradigm"].set_index("group")
        assert sorted(para.index) == sorted(PARADIGMS)
        for paradigm, g in d.pairs.groupby("paradigm"):
            assert para.loc[paradigm, "accuracy"] == pytest.approx(
                sum(correct[p] for p in g["pair_id"]) / len(g))
            assert para.loc[paradigm, "n_pairs"] == len(g)
        phen = mine[mine["level"] == "phenomenon"].set_index("group")
        assert sorted(phen.index) == ["argument_structure", "subject_verb_agreement"]
        for name, g in para.groupby("phenomenon"):
            assert phen.loc[name, "accuracy"] == pytest.approx(g["accuracy"].mean())
            assert phen.loc[name, "n_pairs"] == g["n_pairs"].sum()
        overall = mine[mine["level"] == "overall"].iloc[0]
        assert overall["accuracy"] == pytest.approx(mean_of_paradigm_means(d.pairs, correct))
