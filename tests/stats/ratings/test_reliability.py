"""Split-half reliability with Spearman-Brown correction (noise ceiling) for FC trials."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.metrics import pearson
from acceptability.stats.ratings.reliability import spearman_brown, split_half
from tests.conftest import DATA_DIR

BLIMP = DATA_DIR / "blimp"


def test_spearman_brown() -> None:
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
    assert spearman_brown(0.5, factor=3) == pytest.approx(0.75)
    assert spearman_brown(1.0) == 1.0 and spearman_brown(0.0) == 0.0


def test_rowwise_pearson_matches_pandas() -> None:
    """The split halves are correlated row by row with stats.metrics.pearson."""
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(4, 12)), rng.normal(size=(4, 12))
    x[0, :3] = np.nan
    y[1, 5] = np.nan
    x[2] = 1.0  # no variance: undefined
    r = pearson(x, y)
    want = [pd.Series(a).corr(pd.Series(b)) for a, b in zip(x, y, strict=True)]
    assert np.isnan(r[2]) and np.allclose(np.delete(r, 2), np.delete(want, 2))


def _simulate(p_good: np.ndarray, n_part: int, seed: int) -> pd.DataFrame:
    """Every participant answers every pair of one of two paradigms once."""
    rng = np.random.default_rng(seed)
    n_pairs = len(p_good)
    part = np.repeat(np.arange(n_part), n_pairs)
    pair = np.tile(np.arange(n_pairs), n_part)
    return pd.DataFrame({"participant": part, "pair_id": pair,
                         "paradigm": np.where(pair < n_pairs // 2, "x", "y"),
                         "chose_good": (rng.random(len(pair)) < p_good[pair]).astype(int)})


def test_reliable_and_noise_data() -> None:
    spread = _simulate(np.linspace(0.05, 0.95, 40), n_part=200, seed=1)
    r = split_half(spread, n_splits=200, seed=0).set_index(["scope", "unit"])
    assert r.loc[("all", "pair"), "reliability"] > 0.95
    assert r.loc[("all", "pair"), "ceiling"] == pytest.approx(
        np.sqrt(r.loc[("all", "pair"), "reliability"]))
    assert r.loc[("x", "pair"), "n_units"] == 20 and r.loc[("x", "pair"), "n_participants"] == 200
    noise = _simulate(np.full(40, 0.7), n_part=200, seed=1)
    rn = split_half(noise, n_splits=200, seed=0).set_index(["scope", "unit"])
    assert abs(rn.loc[("all", "pair"), "r_half"]) < 0.1


def test_seeded_and_reported() -> None:
    t = _simulate(np.linspace(0.3, 0.9, 10), n_part=30, seed=2)
    a, b = split_half(t, n_splits=50, seed=7), split_half(t, n_splits=50, seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["r_half"], split_half(t, n_splits=50, seed=8)["r_half"])
    assert (a["n_splits"] == 50).all() and (a["seed"] == 7).all()
    assert list(a["scope"]) == ["x", "y", "all", "all"]


def test_undefined_when_no_variance() -> None:
    t = _simulate(np.ones(10), n_part=10, seed=0)
    r = split_half(t, n_splits=20, seed=0)
    assert (r["n_defined"] == 0).all() and r["reliability"].isna().all()


@pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")
def test_blimp_noise_ceiling() -> None:
    from acceptability.data.loaders.forced_choice import load_blimp_trials

    t = load_blimp_trials(path=BLIMP)
    r = split_half(t[t["in_blimp"]], n_splits=200, seed=0).set_index(["scope", "unit"])
    assert len(r) == 67 + 2
    overall = r.loc[("all", "pair")]
    assert overall["n_units"] == 335 and overall["n_defined"] == 200
    assert 0.65 < overall["reliability"] < 0.85  # 0.75 with 1000 splits
    assert 0.75 < r.loc[("all", "paradigm"), "reliability"] < 0.93  # 0.85
