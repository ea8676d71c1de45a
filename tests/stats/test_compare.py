"""stats.compare: McNemar and Steiger against hand computations, corrections against
statsmodels, and the paired bootstrap difference on LI-Adger."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

from acceptability import stats
from acceptability.stats.compare import compare, compare_all, mcnemar_exact, steiger_z


def test_mcnemar_exact_by_hand():
    # 9 pairs pass A only, 2 pass B only: p = 2 P(X <= 2), X ~ Bin(11, 1/2)
    a = np.r_[np.ones(9), np.zeros(2), np.ones(30), np.zeros(5)].astype(bool)
    b = np.r_[np.zeros(9), np.ones(2), np.ones(30), np.zeros(5)].astype(bool)
    stat, p = mcnemar_exact(a, b)
    assert stat == 2
    assert p == pytest.approx(2 * (1 + 11 + 55) / 2**11, abs=1e-12)
    assert mcnemar_exact(b, a)[1] == pytest.approx(p)
    assert mcnemar_exact(a, a)[1] == 1.0


def test_steiger_z_by_hand():
    # r(h,a) = .5, r(h,b) = .3, r(a,b) = .4, n = 100 (Steiger 1980, eq. 15)
    rbar = 0.4
    psi = 0.4 * (1 - 2 * 0.16) - 0.5 * 0.16 * (1 - 2 * 0.16 - 0.16)  # 0.2304
    s = psi / (1 - 0.16) ** 2  # 0.32653
    z = (math.atanh(0.5) - math.atanh(0.3)) * math.sqrt(97 / (2 - 2 * s))
    assert rbar**2 == pytest.approx(0.16) and psi == pytest.approx(0.2304)
    got, p = steiger_z(0.5, 0.3, 0.4, 100)
    assert got == pytest.approx(z, abs=1e-12) and got == pytest.approx(2.0349, abs=1e-4)
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)), abs=1e-12)
    assert steiger_z(0.3, 0.3, 0.5, 50) == (0.0, 1.0)
    assert steiger_z(0.3, 0.5, 0.4, 100)[0] == pytest.approx(-got)


def test_steiger_against_bootstrap_se():
    """Under independence, Steiger's z and the paired pair-bootstrap agree roughly."""
    rng = np.random.default_rng(1)
    h = rng.normal(size=2000)
    a, b = 0.5 * h + rng.normal(size=2000), 0.4 * h + rng.normal(size=2000)
    r = np.corrcoef([h, a, b])
    z, _ = steiger_z(r[0, 1], r[0, 2], r[1, 2], 2000)
    idx = rng.integers(0, 2000, (2000, 2000))
    diffs = [np.corrcoef(h[i], a[i])[0, 1] - np.corrcoef(h[i], b[i])[0, 1] for i in idx[:400]]
    assert (r[0, 1] - r[0, 2]) / np.std(diffs) == pytest.approx(z, rel=0.2)


@pytest.mark.parametrize("correction", ["holm", "fdr_bh"])
def test_compare_all_corrections_match_statsmodels(li_adger, li_adger_scores, correction):
    models = ["bert-large-cased_acc", "bert-base-uncased_mlm", "trigram_slor", "trigram_logprob"]
    table = compare_all(li_adger, li_adger_scores, "adc_1", models=models, n_boot=500, seed=1,
                        correction=correction)
    assert len(table) == 6 and (table["test"] == "mcnemar_exact").all()
    assert np.allclose(table["p_boot_adj"], multipletests(table["p_boot"], method=correction)[1])
    assert np.allclose(table["p_test_adj"], multipletests(table["p_test"], method=correction)[1])


def test_compare_pair_on_li_adger(li_adger, li_adger_scores):
    ev = stats.evaluate(li_adger, li_adger_scores).set_index("model")
    a, b = "bert-large-cased_acc", "trigram_slor"
    for metric, test in [("r_pair", "steiger_z"), ("r_sentence", "steiger_z"),
                         ("blimp", "mcnemar_exact"), ("adc_area", None)]:
        res = compare(li_adger, li_adger_scores, a, b, metric, n_boot=400, seed=2)
        assert res["test"] == test
        assert res["difference"] == pytest.approx(ev.loc[a, metric] - ev.loc[b, metric])
        assert res["lower"] < res["upper"] and 0 < res["p_boot"] <= 1
    ab = compare(li_adger, li_adger_scores, a, b, "r_pair", n_boot=400, seed=2)
    ba = compare(li_adger, li_adger_scores, b, a, "r_pair", n_boot=400, seed=2)
    assert ab["difference"] == pytest.approx(-ba["difference"])
    assert ab["p_test"] == pytest.approx(ba["p_test"]) and ab["p_boot"] == pytest.approx(ba["p_boot"])
    assert ab["lower"] == pytest.approx(-ba["upper"])
    # BLiMP: BERT_CoLA clearly beats the trigram, by every test
    blimp = compare(li_adger, li_adger_scores, a, b, "blimp", n_boot=400, seed=2)
    assert blimp["lower"] > 0 and blimp["p_boot"] < 0.01 and blimp["p_test"] < 1e-6


def test_compare_user_function_and_errors(li_adger, li_adger_scores):
    small = li_adger.subset(li_adger.pairs["pair_id"][:120])
    sentences = small.sentences[small.sentences["sentence_id"].isin(
        pd.concat([small.pairs["good_id"], small.pairs["bad_id"]]))].reset_index(drop=True)
    small = type(small)("small", sentences, small.pairs)
    scores = li_adger_scores[li_adger_scores["sentence_id"].isin(sentences["sentence_id"])]

    def blimp(dataset, scores):
        return stats.evaluate(dataset, scores)[["model", "blimp"]]

    kw = dict(n_boot=30, seed=4, cluster="phenomenon")
    general = compare(small, scores, "trigram_slor", "trigram_logprob", blimp, **kw)
    fast = compare(small, scores, "trigram_slor", "trigram_logprob", "blimp", **kw)
    for col in ("difference", "lower", "upper", "p_boot"):
        assert general[col] == pytest.approx(fast[col])
    assert general["test"] is None
    with pytest.raises(KeyError, match="no model"):
        compare(small, scores, "gpt9", "trigram_slor", "blimp", n_boot=20)
    with pytest.raises(ValueError, match="several metrics"):
        compare(small, scores, "trigram_slor", "trigram_logprob", stats.evaluate, n_boot=20)


def test_p_boot_states_its_resolution(li_adger, li_adger_scores):
    """p_boot = (1 + count beyond 0) / (n + 1), doubled: never below p_min = 2 / (n + 1),
    which every row and the attrs state; a difference no resample crosses sits at it."""
    models = ["bert-large-cased_mlm", "trigram_logprob", "trigram_slor"]
    table = compare_all(li_adger, li_adger_scores, "adc_1", models=models, n_boot=999, seed=1)
    assert table.attrs["p_min"] == pytest.approx(2 / 1000) and (table["p_min"] == 2 / 1000).all()
    assert (table["p_boot"] >= table["p_min"]).all()
    k = np.round(table["p_boot"] / table["p_min"], 9)
    assert (k == np.round(k)).all()  # 1 + a count, in steps of p_min
    clear = table[(table["model_a"] == models[0]) & (table["model_b"] == models[1])].iloc[0]
    assert clear["lower"] > 0 and clear["p_boot"] == pytest.approx(clear["p_min"])


def test_resamples_for_lets_corrected_comparisons_be_significant():
    """8 models, 28 Holm comparisons: with 1,000 resamples the smallest corrected p is
    28 * 2 / 1001 = 0.056 (nothing can be significant); resamples_for gives the n at
    which p at the threshold 0.05 / 28 rests on 50 resampled differences beyond 0."""
    assert 28 * 2 / 1001 > 0.05
    n = stats.resamples_for(28)
    assert n == 55_999 and (n + 1) * 0.05 / (2 * 28) == pytest.approx(50)
    assert 28 * 2 / (n + 1) == pytest.approx(0.001)
    assert (n - 1 + 1) * 0.05 / 56 < 50  # the smallest such n
    assert stats.resamples_for(1) == 1_999 and stats.resamples_for(28, tail=1) == 1_119
    with pytest.raises(ValueError, match="n_comparisons"):
        stats.resamples_for(0)



def test_a_model_without_the_metric_does_not_make_others_significant(example):
    """On the bundled example trigram_slor has no human deltas, so its ADC is NaN. That NaN
    once leaked into every difference (0 * NaN in a contrast product), and NaN
    bootstrap distributions got the smallest p: all comparisons 'significant'."""
    ds, sc = example
    out = stats.compare_all(ds, sc, "adc_1", n_boot=999, seed=0)
    nan_model = out["model_a"].eq("trigram_slor") | out["model_b"].eq("trigram_slor")
    assert nan_model.any() and out.loc[nan_model, "p_boot"].isna().all()
    others = out[~nan_model]
    assert len(others) and others["p_boot"].notna().all()
    assert np.isfinite(others[["lower", "upper"]].to_numpy()).all()
    assert (others["p_boot_adj"] >= others["p_boot"]).all()
