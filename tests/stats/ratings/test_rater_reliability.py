"""Rater reliability (split-half, one-vs-rest, ICC) with bootstrap intervals, on Lau et al.
(2020)'s ratings and BLiMP's forced-choice trials, each figure recomputed here with plain
numpy, pingouin or scipy."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import data, stats
from acceptability.data import DataError, validate_ratings
from acceptability.stats import rater_reliability, spearman_brown
from tests.conftest import need_data, need_module


@pytest.fixture(scope="module")
def lau() -> data.Dataset:
    return data.load_lau2020(need_data("lau2020"), context="none")


@pytest.fixture(scope="module")
def blimp_trials() -> pd.DataFrame:
    return data.load_blimp_trials(need_data("blimp", "raw_results/human_responses.csv"))


def _row_r(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair, written out (no NaN)."""
    a, b = a - a.mean(-1, keepdims=True), b - b.mean(-1, keepdims=True)
    return (a * b).sum(-1) / np.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def _groups(ratings: pd.DataFrame) -> tuple[list[np.ndarray], np.ndarray]:
    """Row positions of each sentence (in order of first appearance) and the ratings."""
    codes = pd.factorize(ratings["sentence_id"])[0]
    return [np.flatnonzero(codes == i) for i in range(codes.max() + 1)], \
        ratings["response"].to_numpy(float)


def _same_seed(ratings: pd.DataFrame, single: bool, n_splits: int, n_boot: int,
               seed: int = 0) -> tuple[float, np.ndarray]:
    """The documented draw order, sentence by sentence: one uniform key per rating and
    split; the lowest key is the single rating (one vs. rest), the floor(k/2) lowest the
    first half; then the bootstrap's item indices from the same generator; the mean over
    splits of r (first part, rest) on the data and its 2.5/97.5 percentiles over resamples."""
    groups, values = _groups(ratings)
    rng = np.random.default_rng(seed)
    keys = rng.random((n_splits, len(values)))
    first, rest = np.empty((n_splits, len(groups))), np.empty((n_splits, len(groups)))
    for i, rows in enumerate(groups):
        rank = np.argsort(np.argsort(keys[:, rows], axis=1), axis=1)
        pick = rank == 0 if single else rank < len(rows) // 2
        v = values[rows]
        first[:, i] = (pick * v).sum(1) / pick.sum(1)
        rest[:, i] = (~pick * v).sum(1) / (~pick).sum(1)
    idx = rng.integers(0, len(groups), (n_boot, len(groups)))
    dist = np.array([_row_r(first[:, i], rest[:, i]).mean() for i in idx])
    return float(_row_r(first, rest).mean()), np.percentile(dist, [2.5, 97.5])


@pytest.mark.needs_data("lau2020")
def test_one_vs_rest_on_lau2020_same_seed(lau) -> None:
    """Lau et al. (2020) no-context ratings: the estimate and its interval recomputed."""
    out = rater_reliability(lau.ratings, "one_vs_rest", n_splits=200, n_boot=500)
    est, (low, high) = _same_seed(lau.ratings, True, 200, 500)
    row = out.iloc[0]
    assert row["quantity"] == "r" and row["split"] == "within_item"
    assert row["estimate"] == pytest.approx(est, abs=1e-12)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-10)
    assert (row["n_items"], row["n_responses"], row["n_items_set_aside"]) == (250, 4107, 0)
    assert pd.isna(row["n_participants"]) and row["unit"] == "sentence_id"
    assert 0.70 < row["ci_low"] < row["estimate"] < row["ci_high"] < 0.80


@pytest.mark.needs_data("lau2020")
def test_split_half_on_lau2020_same_seed(lau) -> None:
    out = rater_reliability(lau, n_splits=200, n_boot=500).set_index("quantity")
    est, (low, high) = _same_seed(lau.ratings, False, 200, 500)
    half = out.loc["r_half"]
    assert half["estimate"] == pytest.approx(est, abs=1e-12)
    assert (half["ci_low"], half["ci_high"]) == pytest.approx((low, high), abs=1e-10)
    rel = out.loc["reliability"]
    assert rel["estimate"] == pytest.approx(spearman_brown(est), abs=1e-12)
    # percentiles of a monotone transform: equal up to the interpolation between order stats
    assert (rel["ci_low"], rel["ci_high"]) == pytest.approx(spearman_brown(np.array([low, high])),
                                                            abs=1e-4)
    assert out.loc["ceiling", "estimate"] == pytest.approx(np.sqrt(rel["estimate"]))
    assert set(out["split"]) == {"within_item"}


def _mc_close(ours: float, per_rep: np.ndarray) -> None:
    """``ours`` (a mean over as many independent repetitions as ``per_rep``) agrees with the
    brute-force mean within 4 Monte Carlo SEs of the difference of two such means."""
    se = per_rep.std(ddof=1) * np.sqrt(2 / len(per_rep))
    assert abs(ours - per_rep.mean()) < 4 * se, (ours, per_rep.mean(), se)


@pytest.mark.needs_data("lau2020")
def test_one_vs_rest_and_split_half_brute_force(lau) -> None:
    """An independent draw (other generator, other sampling code: sentences with the same
    number of ratings at once) agrees within Monte Carlo error (SE ~4e-4 at 3,000 reps)."""
    n_reps = 3000
    groups, values = _groups(lau.ratings)
    rng = np.random.default_rng(2020)
    single, halves = np.zeros((n_reps, len(groups))), np.zeros((2, n_reps, len(groups)))
    rest = np.zeros((n_reps, len(groups)))
    for k in sorted({len(g) for g in groups}):
        cols = [i for i, g in enumerate(groups) if len(g) == k]
        v = values[np.array([groups[i] for i in cols])]  # (sentences, k)
        pick = (rng.random((n_reps, len(cols))) * k).astype(int)
        chosen = np.take_along_axis(v[None].repeat(n_reps, 0), pick[..., None], 2)[..., 0]
        single[:, cols], rest[:, cols] = chosen, (v.sum(1) - chosen) / (k - 1)
        perm = np.argsort(rng.random((n_reps, len(cols), k)), axis=2)
        shuffled = np.take_along_axis(v[None].repeat(n_reps, 0), perm, 2)
        halves[0][:, cols] = shuffled[..., :k // 2].mean(2)
        halves[1][:, cols] = shuffled[..., k // 2:].mean(2)
    ovr = rater_reliability(lau.ratings, "one_vs_rest", n_splits=n_reps, ci=None)
    _mc_close(ovr["estimate"].iloc[0], _row_r(single, rest))
    sh = rater_reliability(lau.ratings, n_splits=n_reps, ci=None)
    _mc_close(sh["estimate"].iloc[0], _row_r(*halves))


def _one_way(groups: list[np.ndarray]) -> tuple[float, float, float]:
    """ICC(1), ICC(k) (k = n0) and n0 from the one-way ANOVA written out (Shrout & Fleiss
    1979; n0 for unequal groups as in Donner 1986)."""
    k = np.array([len(g) for g in groups], float)
    n, total = len(groups), k.sum()
    grand = np.concatenate(groups).mean()
    msb = sum(len(g) * (g.mean() - grand) ** 2 for g in groups) / (n - 1)
    msw = sum(((g - g.mean()) ** 2).sum() for g in groups) / (total - n)
    n0 = (total - (k**2).sum() / total) / (n - 1)
    f = sps.f_oneway(*groups).statistic
    assert f == pytest.approx(msb / msw)  # scipy's one-way ANOVA agrees
    return (msb - msw) / (msb + (n0 - 1) * msw), (msb - msw) / msb, n0


@pytest.mark.needs_data("lau2020")
def test_icc_unbalanced_against_one_way_anova(lau) -> None:
    out = rater_reliability(lau, "icc", n_boot=300).set_index("quantity")
    groups, values = _groups(lau.ratings)
    icc1, icck, n0 = _one_way([values[g] for g in groups])
    assert out.loc["ICC(1)", "estimate"] == pytest.approx(icc1, abs=1e-12)
    assert out.loc["ICC(k)", "estimate"] == pytest.approx(icck, abs=1e-12)
    assert out["n0"].iloc[0] == pytest.approx(n0) and out["split"].isna().all()
    assert out["mean_per_item"].iloc[0] == pytest.approx(4107 / 250)
    for q in ("ICC(1)", "ICC(k)"):
        assert out.loc[q, "ci_low"] < out.loc[q, "estimate"] < out.loc[q, "ci_high"]


@pytest.mark.needs_data("lau2020")
@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside pingouin 0.7 on pandas 3
def test_icc_balanced_against_pingouin(lau) -> None:
    """The first 10 ratings of every sentence (each has 10 to 20): a balanced design."""
    pg = need_module("pingouin")
    r = lau.ratings.assign(position=lau.ratings.groupby("sentence_id").cumcount())
    balanced = validate_ratings(r[r["position"] < 10], scale="likert:1-4")
    want = pg.intraclass_corr(balanced, targets="sentence_id", raters="position",
                              ratings="response").set_index("Type")["ICC"]
    out = rater_reliability(balanced, "icc", ci=None).set_index("quantity")
    assert out.loc["ICC(1)", "estimate"] == pytest.approx(want["ICC(1,1)"], abs=1e-10)
    assert out.loc["ICC(k)", "estimate"] == pytest.approx(want["ICC(1,k)"], abs=1e-10)
    assert out["n0"].iloc[0] == pytest.approx(10.0)
    assert out["se"].isna().all() and (out["n_boot"] == 0).all()


@pytest.mark.needs_data("lau2020")
def test_normed_responses_and_missing_ones(lau) -> None:
    """A ``response_norm`` column (here a linear transform: the ICC is invariant) is used
    when named; responses missing there are set aside and counted."""
    r = lau.ratings.assign(response_norm=(lau.ratings["response"] - 2.5) * 3)
    base = rater_reliability(lau.ratings, "icc", ci=None)["estimate"]
    normed = rater_reliability(r, "icc", ci=None, response="response_norm")
    assert np.allclose(normed["estimate"], base) and normed["response"].iloc[0] == "response_norm"
    r.loc[r.index[:3], "response_norm"] = np.nan
    out = rater_reliability(r, "icc", ci=None, response="response_norm")
    assert out["n_responses_missing"].iloc[0] == 3 and out["n_responses"].iloc[0] == 4104
    r.loc[r.index[5], "response_norm"] = np.inf
    with pytest.raises(DataError, match="non-finite"):
        rater_reliability(r, "icc", response="response_norm")


@pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")
def test_forced_choice_trials_split_by_participants(blimp_trials) -> None:
    """BLiMP's trials: items are pairs, the response chose_good; participants are split
    into halves. Checked against participant halves drawn here (Monte Carlo, 2,000 reps)."""
    n_reps = 2000
    out = rater_reliability(blimp_trials, n_splits=n_reps, ci=None).set_index("quantity")
    assert set(out["split"]) == {"participants"} and set(out["unit"]) == {"pair_id"}
    assert out["response"].iloc[0] == "chose_good"
    part, p = np.unique(blimp_trials["participant"], return_inverse=True)
    pairs, q = np.unique(blimp_trials["pair_id"], return_inverse=True)
    n, k = np.zeros((len(part), len(pairs))), np.zeros((len(part), len(pairs)))
    np.add.at(n, (p, q), 1.0)
    np.add.at(k, (p, q), blimp_trials["chose_good"].to_numpy(float))
    rng = np.random.default_rng(7)
    r = np.empty(n_reps)
    for s in range(n_reps):
        half = rng.permutation(len(part)) < len(part) // 2
        a = k[half].sum(0) / n[half].sum(0)
        b = k[~half].sum(0) / n[~half].sum(0)
        ok = np.isfinite(a) & np.isfinite(b)
        r[s] = np.corrcoef(a[ok], b[ok])[0, 1]
    _mc_close(out.loc["r_half", "estimate"], r)
    assert out.loc["r_half", "n_participants"] == len(part)
    groups = [g["chose_good"].to_numpy(float) for _, g in blimp_trials.groupby("pair_id")]
    icc = rater_reliability(blimp_trials, "icc", ci=None)["estimate"].to_numpy()
    assert icc == pytest.approx(_one_way(groups)[:2], abs=1e-12)


def test_refusals(example) -> None:
    ds, _ = example
    with pytest.raises(DataError, match="neither ratings nor forced-choice trials"):
        rater_reliability(ds)
    once = validate_ratings(pd.DataFrame({"sentence_id": ["a", "b", "c", "c"],
                                          "response": [1, 2, 3, 4]}), scale="likert:1-7")
    with pytest.raises(DataError, match=r"3 or more items .* found 1 \(2 items have one response\)"):
        rater_reliability(once)
    mixed = validate_ratings(pd.DataFrame({
        "participant": ["w1", None] * 6, "sentence_id": np.repeat(["a", "b", "c"], 4),
        "response": [1, 2, 3, 4] * 3}), scale="likert:1-7")
    with pytest.raises(DataError, match="6 of 12 responses have no participant"):
        rater_reliability(mixed)
    nameless = mixed.assign(participant=pd.NA)
    with pytest.raises(DataError, match="needs participant ids"):
        rater_reliability(nameless, split="participants")
    with pytest.raises(DataError, match="missing column"):
        rater_reliability(nameless, response="response_norm")
    with pytest.raises(DataError, match="declares no scale"):
        rater_reliability(pd.DataFrame({"sentence_id": ["a"], "response": [1]}))
    with pytest.raises(DataError, match="expected a ratings or trials table, got list"):
        rater_reliability([1, 2, 3])
    with pytest.raises(ValueError, match="method must be one of"):
        rater_reliability(nameless, method="alpha")
    with pytest.raises(ValueError, match="n_boot=0: an interval needs 20 to 1,000,000"):
        rater_reliability(nameless, n_boot=0)


def test_ratings_items_set_aside_are_counted() -> None:
    table = validate_ratings(pd.DataFrame({
        "sentence_id": ["a", "a", "b", "b", "c", "c", "d", "e"],
        "response": [1, 2, 5, 6, 3, 3, 7, 4]}), scale="likert:1-7")
    out = rater_reliability(table, "icc", ci=None)
    assert (out["n_items"].iloc[0], out["n_items_set_aside"].iloc[0]) == (3, 2)
    assert out["n_responses"].iloc[0] == 6


@pytest.mark.needs_data("lau2020")
def test_evaluate_shows_the_human_ceiling(lau, example) -> None:
    """``evaluate`` adds ``r_ceiling`` (sqrt of the split-half reliability, seed 0) beside
    ``r_sentence`` for a dataset with ratings, and not otherwise. The 'model' is a shallow
    score (minus the sentence length), not a judgment."""
    scores = pd.DataFrame({"sentence_id": lau.sentences["sentence_id"], "model": "neg_length",
                           "score": -lau.sentences["text"].str.len().astype(float)})
    table = stats.evaluate(lau, scores)
    want = rater_reliability(lau.ratings, n_splits=200, seed=0, ci=None)
    cols = list(table.columns)
    assert cols[cols.index("r_sentence") + 1] == "r_ceiling"
    assert table["r_ceiling"].iloc[0] == pytest.approx(want["estimate"].iloc[2], abs=1e-12)
    assert table["r_sentence"].iloc[0] < table["r_ceiling"].iloc[0]
    with_ci = stats.evaluate(lau, scores, ci=True, n_boot=100, seed=3)
    assert with_ci["r_ceiling"].iloc[0] == table["r_ceiling"].iloc[0]  # the seed is fixed
    ds, ex_scores = example
    assert "r_ceiling" not in stats.evaluate(ds, ex_scores).columns
