"""Extreme and non-finite numbers (issue 30, item 6): z-scores that do not overflow, human
judgments beyond any z-score refused, and ``evaluate`` saying why pairs were excluded.
Each test failed on the code before its fix."""

from __future__ import annotations

import decimal
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from acceptability.data import DataError


def _exact_z(values: list[float]) -> list[float]:
    """Population z-scores in exact rational arithmetic, the square root in 60 digits."""
    xs = [Fraction(v) for v in values]
    mean = sum(xs) / len(xs)
    var = sum((x - mean) ** 2 for x in xs) / len(xs)
    with decimal.localcontext(prec=60):
        sd = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
        return [float(Decimal((x - mean).numerator) / Decimal((x - mean).denominator) / sd)
                for x in xs]


def _dataset(n: int = 12, seed: int = 0) -> tuple[data.Dataset, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    ids = [f"s{i}" for i in range(2 * n)]
    sentences = pd.DataFrame({"sentence_id": ids, "text": [f"t{i}." for i in range(2 * n)],
                              "label": [1, 0] * n, "human": rng.normal(0, 1, 2 * n),
                              "type_id": [f"t{i // 4}" for i in range(2 * n)]})
    pairs = pd.DataFrame({"pair_id": [f"p{i}" for i in range(n)], "good_id": ids[::2],
                          "bad_id": ids[1::2]})
    scores = pd.DataFrame({"sentence_id": ids, "model": "lm",
                           "score": rng.normal(-30, 5, 2 * n)})
    return data.from_frames(sentences, pairs), scores


@pytest.mark.parametrize("big", [1e308, -1.7e308, 1e200, 1e155])
def test_z_of_an_extreme_score_matches_exact_arithmetic(big):
    """One 1e308 among normal scores overflowed the SD: every z 0, metrics 0.000."""
    values = [-30.5, -12.25, -47.0, -3.0, big, -29.0]
    scores = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(6)], "model": "m",
                           "score": values})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning on the way either
        z = stats.zscore(scores)["z"].to_numpy()
    np.testing.assert_allclose(z, _exact_z(values), rtol=1e-13, atol=0)


@pytest.mark.parametrize("values", [[1e-310, 3e-310, 2e-310], [5e-324, 1e-323, 0.0]])
def test_z_of_subnormal_scores_matches_exact_arithmetic(values):
    scores = pd.DataFrame({"sentence_id": ["a", "b", "c"], "model": "m", "score": values})
    np.testing.assert_allclose(stats.zscore(scores)["z"], _exact_z(values), rtol=1e-13)


@pytest.mark.parametrize("factor", [2.0**520, 1e160, 1e-300])
def test_metrics_do_not_change_when_scores_are_scaled(factor):
    """z-scores do not depend on the unit of the scores: 1e160 times the scores gave every
    metric 0.000 (overflowing squares), 1e-300 times lost precision in subnormals."""
    ds, scores = _dataset()
    plain = stats.evaluate(ds, scores).drop(columns="model")
    scaled = stats.evaluate(ds, scores.assign(score=scores["score"] * factor))
    pd.testing.assert_frame_equal(scaled.drop(columns="model"), plain, rtol=1e-12)


def test_scaling_by_a_power_of_two_keeps_every_z_bit_for_bit():
    ds, scores = _dataset()
    plain = stats.zscore(scores)["z"].to_numpy()
    assert np.array_equal(stats.zscore(scores.assign(score=scores["score"] * 2.0**600))["z"],
                          plain)


def test_reference_standardisation_of_extreme_scores_does_not_overflow():
    scores = pd.DataFrame({"sentence_id": ["a", "b"], "model": "m", "score": [1.5e308, -1e308],
                           "ref_mean": [-1.5e308, 1.5e308], "ref_sd": [1e308, 1e308]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z = stats.zscore(scores)["z"].tolist()
    assert z == pytest.approx([3.0, -2.5], rel=1e-14)


@pytest.mark.parametrize("human", ["1e308", "-2e4", "1001"])
def test_human_values_beyond_any_z_score_are_refused(tmp_path, human):
    """Human 1e308 was accepted and counted as an ADC failure (dh overflowed)."""
    path = tmp_path / "s.csv"
    path.write_text(f"sentence_id,text,human\na,x.,0.5\nb,y.,-0.5\nc,z.,{human}\n")
    with pytest.raises(DataError, match=r"s\.csv, row 4 \(line\), column 'human': human value "
                                        r".* is no z-score.*human_scale='raw'"):
        data.read_dataset(path)


def test_the_largest_plausible_z_scores_are_kept():
    s = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["x", "y"], "human": [1000.0, -999.5]})
    assert data.from_frames(s).sentences["human"].tolist() == [1000.0, -999.5]


def test_raw_human_ratings_of_any_size_are_standardised_exactly():
    ratings = [1e308, 5e307, -1.7e308, 0.0]
    s = pd.DataFrame({"sentence_id": list("abcd"), "text": list("wxyz"), "human": ratings})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = data.from_frames(s, human_scale="raw")
    np.testing.assert_allclose(ds.sentences["human"], _exact_z(ratings), rtol=1e-13)


def test_constant_scores_say_why_every_pair_is_excluded():
    """All-equal scores excluded every pair without a word."""
    ds, scores = _dataset()
    both = pd.concat([scores, scores.assign(model="flat", score=-7.0)], ignore_index=True)
    table = stats.evaluate(ds, both).set_index("model")
    assert table.loc["flat", "n_pairs_excluded"] == 12
    assert table.loc["flat", "excluded_because"] == "constant scores (SD 0): no z-scores"
    assert table.loc["lm", "excluded_because"] == ""


def test_missing_scores_are_named_as_the_reason():
    ds, scores = _dataset()
    scores.loc[[0, 3, 5], "score"] = np.nan
    scores = scores.drop(index=7)
    row = stats.evaluate(ds, scores).iloc[0]
    assert row["n_pairs_excluded"] == 4 and row["n_sentences"] == 20
    assert row["excluded_because"] == "no score for 4 sentences"


@pytest.mark.filterwarnings("ignore:no bootstrap interval")
def test_exclusion_reasons_per_group_and_with_intervals():
    ds, scores = _dataset()
    scores.loc[0, "score"] = np.nan
    table = stats.evaluate(ds, scores, by="type_id", ci=True, n_boot=50)
    reasons = table.set_index("type_id")["excluded_because"]
    assert reasons["t0"] == "no score for 1 sentence"
    assert (reasons.drop("t0") == "").all()
