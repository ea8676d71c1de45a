"""The array metrics against independent implementations, and their properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from sklearn.metrics import matthews_corrcoef

from acceptability import stats
from acceptability.data import from_frames
from acceptability.stats import metrics

RNG = np.random.default_rng(0)


def test_pearson_matches_scipy_with_nans():
    x, y = RNG.normal(size=200), RNG.normal(size=200)
    y = 0.5 * x + y
    x[[3, 50]] = np.nan
    ok = ~np.isnan(x)
    assert abs(metrics.pearson(x, y) - sps.pearsonr(x[ok], y[ok]).statistic) < 1e-12


def test_mcc_matches_sklearn():
    label = RNG.integers(0, 2, 300).astype(float)
    pred = np.where(RNG.random(300) < 0.8, label, 1 - label)
    assert abs(metrics.mcc(pred, label) - matthews_corrcoef(label, pred)) < 1e-12
    assert metrics.mcc(np.ones(10), np.r_[np.ones(5), np.zeros(5)]) == 0.0  # as sklearn


def test_type_sd_mean_matches_pandas():
    values = RNG.normal(size=80)
    values[[4, 9]] = np.nan
    types = np.repeat(np.arange(10), 8)
    expected = pd.Series(values).groupby(types).std(ddof=1).mean()
    assert abs(metrics.type_sd_mean(values, types, 10) - expected) < 1e-12


def test_vectorised_rows_equal_single_calls():
    dh, dlm = RNG.normal(size=(5, 100)), RNG.normal(size=(5, 100))
    rates = metrics.adc_rate(dh, dlm, 0.5)
    assert np.allclose(rates, [metrics.adc_rate(dh[i], dlm[i], 0.5) for i in range(5)])


def _pair_dataset(example):
    """The bundled example's pairs restricted to those with human and PLL values."""
    ds, sc = example
    return ds, sc[sc["model"] == "bert-large-cased_mlm"]


@settings(max_examples=40, deadline=None)
@given(a=st.floats(0.01, 100), b=st.floats(-100, 100))
def test_metrics_invariant_to_affine_rescaling(example, a, b):
    """z-scoring makes every metric invariant to a*score + b (a > 0). The one exception
    by design: MCC of a classifier uses the sign of its raw signed confidence (eq. 2.3),
    whose zero is meaningful, so it is invariant to scaling (b = 0) only."""
    ds, sc = example
    raw = sc.drop(columns=["ref_mean", "ref_sd"])  # let zscore standardise over the data
    base = stats.evaluate(ds, raw).set_index("model")
    moved = stats.evaluate(ds, raw.assign(score=a * raw["score"] + b)).set_index("model")
    scaled = stats.evaluate(ds, raw.assign(score=a * raw["score"])).set_index("model")
    cols = ["blimp", "adc_0.5", "adc_1", "adc_5", "adc_area", "r_sentence", "r_pair",
            "variability"]
    pd.testing.assert_frame_equal(base[cols], moved[cols], atol=1e-9)
    classifier = base.index == "bert-large-cased_acc"
    assert np.allclose(base.loc[~classifier, "mcc"], moved.loc[~classifier, "mcc"])
    assert np.allclose(base["mcc"], scaled["mcc"])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_adc_at_huge_delta_is_sign_agreement(li_adger, li_adger_scores, seed):
    """ADC with delta -> infinity reduces to eq. 1.1: sign agreement with humans."""
    rng = np.random.default_rng(seed)
    model = rng.choice(sorted(li_adger_scores["model"].unique()))
    d = stats.pair_deltas(li_adger, li_adger_scores[li_adger_scores["model"] == model])
    d = d.iloc[rng.choice(len(d), size=300, replace=False)]
    dh, dlm = d["dh"].to_numpy(), d["dlm"].to_numpy()
    agree = np.mean(np.sign(dh) == np.sign(dlm))
    assert metrics.adc_rate(dh, dlm, 1e9) == agree


@pytest.mark.slow  # over 30 s on 2 cores
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_swapping_good_and_bad_mirrors_blimp(li_adger, li_adger_scores, seed):
    """Swapped pairs: BLiMP becomes 1 - BLiMP - ties (a tie passes neither way; the
    saturated BERT_CoLA scores do tie); ADC and r_pair are unchanged."""
    rng = np.random.default_rng(seed)
    pairs = li_adger.pairs.iloc[rng.choice(len(li_adger.pairs), 200, replace=False)]
    # without the expert labels, which a swapped pair contradicts (refused, issue 30)
    sentences = li_adger.sentences.assign(label=np.nan)
    ds = from_frames(sentences, pairs)
    swapped = from_frames(sentences, pairs.rename(
        columns={"good_id": "bad_id", "bad_id": "good_id"}))
    a = stats.evaluate(ds, li_adger_scores).set_index("model")
    b = stats.evaluate(swapped, li_adger_scores).set_index("model")
    ties = stats.pair_deltas(ds, li_adger_scores).groupby("model")["dlm"].apply(
        lambda d: (d == 0).mean())
    assert np.allclose(a["blimp"], 1 - b["blimp"] - ties.loc[a.index])
    for col in ("adc_0.5", "adc_1", "adc_5", "r_pair"):
        assert np.allclose(a[col], b[col])


def test_sign_conventions_on_hand_arrays():
    """'strict' is eq. 1.1 as written (np.sign); 'thesis' is (dh > 0) == (dlm > 0): a zero
    delta counts as negative. They differ only where one delta is 0, the other negative."""
    dh = np.array([1.0, -1.0, 1.0, -0.3, 0.0, 0.0, 0.0, -0.3, np.nan])
    dlm = np.array([0.5, -0.5, -0.5, 0.0, 0.0, -0.2, 0.2, -0.1, 0.1])
    strict = [True, True, False, False, True, False, False, True, False]
    thesis = [True, True, False, True, True, True, False, True, False]
    assert metrics.sign_agree(dh, dlm).tolist() == strict  # default: strict
    assert metrics.sign_agree(dh, dlm, "thesis").tolist() == thesis
    # an identical-text pair (dlm = 0, dh = -0.3) passes at delta 0.5 under "thesis" only
    assert metrics.adc_pass(dh, dlm, 0.5, "strict").tolist() == [
        False, False, False, False, True, False, False, True, False]
    assert metrics.adc_pass(dh, dlm, 0.5, "thesis").tolist() == [
        False, False, False, True, True, True, False, True, False]
    assert metrics.adc_pass(dh, dlm, 0.25, "thesis")[3] == np.False_  # |dh - 0| = 0.3
    assert metrics.adc_rate(dh, dlm, 0.5, "thesis") == 4 / 8  # NaN pair left out
    assert metrics.adc_rate(dh, dlm, 0.5) == 2 / 8
    # area credit of the zero-delta pairs: 1 - |dh| / 5 where they agree
    assert metrics.adc_area(dh[3:4], dlm[3:4], 5.0, "thesis") == pytest.approx(1 - 0.3 / 5)
    assert metrics.adc_area(dh[3:4], dlm[3:4], 5.0, "strict") == 0.0
    for fn, args in ((metrics.sign_agree, (dh, dlm)), (metrics.adc_rate, (dh, dlm, 0.5)),
                     (metrics.adc_area, (dh, dlm, 5.0))):
        with pytest.raises(ValueError, match="sign='np.sign'.*'strict'.*'thesis'"):
            fn(*args, sign="np.sign")


deltas_with_zeros = st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 2.0]) | st.floats(-3, 3),
                             min_size=1, max_size=30)


@settings(max_examples=200, deadline=None)
@given(dh=deltas_with_zeros, dlm=deltas_with_zeros, delta=st.floats(0.01, 10))
def test_sign_conventions_differ_only_on_zero_deltas(dh, dlm, delta):
    n = min(len(dh), len(dlm))
    dh, dlm = np.array(dh[:n]), np.array(dlm[:n])
    strict, thesis = metrics.sign_agree(dh, dlm, "strict"), metrics.sign_agree(dh, dlm, "thesis")
    assert (thesis == (strict | ((dh <= 0) & (dlm <= 0)))).all()
    nonzero = (dh != 0) & (dlm != 0)
    assert (strict[nonzero] == thesis[nonzero]).all()
    assert (strict == (np.sign(dh) == np.sign(dlm))).all()
    assert (thesis == ((dh > 0) == (dlm > 0))).all()
    for sign in ("strict", "thesis"):
        passes = metrics.adc_pass(dh, dlm, delta, sign)
        agree = metrics.sign_agree(dh, dlm, sign)
        assert (passes == (agree & (np.abs(dh - dlm) < delta))).all()
        assert metrics.adc_rate(dh, dlm, delta, sign) == pytest.approx(passes.mean())
