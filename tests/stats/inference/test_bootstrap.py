"""stats.bootstrap: the fast path against evaluate on resampled datasets, intervals
against scipy, and coverage of the cluster vs the naive pair bootstrap by simulation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import stats
from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.inference.arrays import (
    MetricArrays,
    group_masks,
    metric_names,
)
from acceptability.stats.inference.bootstrap import bootstrap
from acceptability.stats.inference.resample import (
    counts_from_indices,
    resample_dataset,
    resampling_units,
    stratify,
)
from acceptability.stats.metric_sums import StepSums

RNG = np.random.default_rng(0)


def clustered_pairs(rng, n_clusters=20, per_cluster=5, sd_cluster=0.9, sd_pair=0.4,
                    rho_cluster=0.5, rho_pair=0.5):
    """Synthetic pairs clustered by phenomenon: (dh, d score) = 0.8 + cluster effect +
    pair noise, both bivariate normal; each pair has its own good and bad sentence,
    the good (bad) sentences of a cluster share one type. Population r_pair =
    (rho_c sd_c^2 + rho_p sd_p^2) / (sd_c^2 + sd_p^2)."""
    k = np.repeat(np.arange(n_clusters), per_cluster)
    n = len(k)

    def effects(rho, sd, size):
        return rng.multivariate_normal([0, 0], sd**2 * np.array([[1, rho], [rho, 1]]), size)

    d = 0.8 + effects(rho_cluster, sd_cluster, n_clusters)[k] + effects(rho_pair, sd_pair, n)
    human_bad, score_bad = rng.normal(0, 0.5, n), rng.normal(0, 1, n)
    pid = np.char.add("p", np.arange(n).astype(str))
    good, bad = np.char.add(pid, ".g"), np.char.add(pid, ".b")
    ph = np.char.add("c", k.astype(str))
    sentences = pd.DataFrame({
        "sentence_id": np.r_[good, bad], "text": "s", "dataset": "sim",
        "type_id": np.r_[np.char.add(ph, ".g"), np.char.add(ph, ".b")],
        "item": np.r_[np.arange(n), np.arange(n)], "phenomenon": np.r_[ph, ph],
        "label": np.repeat([1.0, 0.0], n), "human": np.r_[human_bad + d[:, 0], human_bad]})
    pairs = pd.DataFrame({"pair_id": pid, "good_id": good, "bad_id": bad, "phenomenon": ph})
    scores = pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "m",
                           "score": np.r_[score_bad + d[:, 1], score_bad]})
    return Dataset("sim", sentences, pairs), scores


def test_weighted_sum_metrics_equal_the_array_metrics():
    x, y = RNG.normal(size=50), RNG.normal(size=50)
    sums = (50, x.sum(), y.sum(), (x * x).sum(), (y * y).sum(), (x * y).sum())
    assert metrics.pearson_from_sums(*sums) == pytest.approx(metrics.pearson(x, y), abs=1e-12)
    pred, label = (RNG.random(50) < 0.5).astype(float), (RNG.random(50) < 0.5).astype(float)
    counts = (50, pred.sum(), label.sum(), (pred * label).sum())
    assert metrics.mcc_from_counts(*counts) == pytest.approx(metrics.mcc(pred, label), abs=1e-12)
    assert metrics.mcc_from_counts(50, 50, label.sum(), label.sum()) == 0.0  # constant prediction
    assert metrics.sd_from_sums(50, x.sum(), (x * x).sum(), 1) == pytest.approx(x.std(ddof=1))


def test_step_sums_brute_force():
    counts = RNG.integers(0, 3, (40, 7)).astype(float)
    units, x, v = RNG.integers(0, 7, 30), RNG.normal(size=30), RNG.normal(size=30)
    x[:3] = [-np.inf, np.inf, -5]
    t = RNG.normal(scale=0.3, size=40)
    brute = ((counts[:, units] * v) * (x[None, :] < t[:, None])).sum(1)
    steps = StepSums(units, x, v, counts.shape[1], float(np.min(t)))
    assert np.allclose(counts @ steps.base + steps.correction(counts, t), brute)


def test_units_merge_clusters_linked_by_pairs(li_adger):
    by_type = resampling_units(li_adger, "type_id")
    by_phen = resampling_units(li_adger, "phenomenon")
    naive = resampling_units(li_adger, None)
    assert by_type.n == by_phen.n == 236 and by_type.types_nested
    assert (pd.factorize(by_type.sentence)[0] == pd.factorize(by_phen.sentence)[0]).all()
    assert naive.n == 1893 and not naive.types_nested
    ids = pd.Index(li_adger.sentences["sentence_id"])
    for u in (by_type, naive):  # a pair's two sentences always share its unit
        assert (u.sentence[ids.get_indexer(li_adger.pairs["bad_id"])] == u.pair).all()
    with pytest.raises(KeyError, match="no such sentence column"):
        resampling_units(li_adger, "nope")


@pytest.mark.parametrize("cluster", ["type_id", None])
def test_fast_path_equals_evaluate_on_resampled_datasets(li_adger, li_adger_scores, cluster):
    """Every metric, every model: the count-matrix path is the statistic applied to the
    resampled dataset (z-scores recomputed, trigram reference z fixed)."""
    units = resampling_units(li_adger, cluster)
    names = metric_names()
    arrays = MetricArrays(li_adger, li_adger_scores, units, names)
    full = arrays(np.ones((1, units.n)))[:, :, 0]
    expected = stats.evaluate(li_adger, li_adger_scores).set_index("model").loc[arrays.models]
    assert np.allclose(full, expected[names].to_numpy(), atol=1e-12)
    counts = counts_from_indices(np.random.default_rng(1).integers(0, units.n, (2, units.n)),
                                 units.n)
    fast = arrays(counts)
    for b in range(2):
        ds, sc = resample_dataset(li_adger, li_adger_scores, units, counts[b])
        slow = stats.evaluate(ds, sc).set_index("model").loc[arrays.models, names]
        assert np.allclose(fast[:, :, b], slow.to_numpy(), atol=1e-10)


def test_fast_path_thesis_sign_convention(li_adger, li_adger_scores):
    """sign="thesis": the 2 identical-text pairs (model delta 0, human delta -0.46 and
    -0.25) agree in sign and pass where |dh| < delta (not at 0.2), in every resample."""
    units = resampling_units(li_adger, "type_id")
    names = ["adc_0.2", "adc_0.5", "adc_area"]
    arrays = MetricArrays(li_adger, li_adger_scores, units, names, sign="thesis")
    counts = np.vstack([np.ones(units.n), counts_from_indices(
        np.random.default_rng(3).integers(0, units.n, (2, units.n)), units.n)])
    fast = arrays(counts)
    for b in range(3):
        ds, sc = resample_dataset(li_adger, li_adger_scores, units, counts[b])
        slow = stats.evaluate(ds, sc, deltas=(0.2, 0.5), sign="thesis")
        slow = slow.set_index("model").loc[arrays.models, names]
        assert np.allclose(fast[:, :, b], slow.to_numpy(), atol=1e-10)
    strict = MetricArrays(li_adger, li_adger_scores, units, names)(counts[:1])[:, :, 0]
    n = len(li_adger.pairs)
    assert np.allclose(fast[:, 1, 0] - strict[:, 1], 2 / n)  # both pass at 0.5
    assert np.allclose(fast[:, 0, 0], strict[:, 0])  # neither passes at 0.2
    with pytest.raises(ValueError, match="sign='sign'"):
        MetricArrays(li_adger, li_adger_scores, units, names, sign="sign")


@pytest.mark.parametrize("by", ["dataset", "discard"])
def test_fast_path_by_group_equals_evaluate_by_group_on_resampled_datasets(li_adger,
                                                                            li_adger_scores, by):
    """Per group (a column of sentences and pairs, or of pairs only: the sentence metrics
    then form one NaN group, as in evaluate), z-scored over the whole resample."""
    units = resampling_units(li_adger, "type_id")
    names = metric_names()
    arrays = MetricArrays(li_adger, li_adger_scores, units, names, by=by)
    counts = np.vstack([np.ones(units.n), counts_from_indices(
        np.random.default_rng(2).integers(0, units.n, (1, units.n)), units.n)])
    fast = arrays(counts)  # (models, groups, metrics, resamples)
    for b in range(2):
        ds, sc = resample_dataset(li_adger, li_adger_scores, units, counts[b])
        slow = stats.evaluate(ds, sc, by=by)
        for g, group in enumerate(arrays.groups):
            rows = slow[slow[by].isna()] if pd.isna(group) else slow[slow[by] == group]
            expected = rows.set_index("model").reindex(arrays.models)[names].to_numpy(float)
            np.testing.assert_allclose(fast[:, g, :, b], expected, atol=1e-10)


def test_bootstrap_table_on_li_adger(li_adger, li_adger_scores):
    table, dist = bootstrap(stats.evaluate, li_adger, li_adger_scores, n_boot=300, seed=3,
                            distribution=True)
    assert list(table.columns) == ["model", "metric", "estimate", "se", "lower", "upper"]
    assert len(table) == 8 * len(metric_names()) and dist.shape == (300, len(table))
    assert (table["lower"] <= table["estimate"]).all() and (table["estimate"] <= table["upper"]).all()
    assert table.attrs["n_units"] == 236
    again = bootstrap(stats.evaluate, li_adger, li_adger_scores, n_boot=300, seed=3)
    pd.testing.assert_frame_equal(table, again)
    bca = bootstrap(["adc_1", "r_pair"], li_adger, li_adger_scores, n_boot=300, seed=3,
                    method="bca")
    assert bca["lower"].notna().all() and (bca["lower"] < bca["upper"]).all()


def test_general_path_equals_fast_path():
    """A user function over resampled datasets gives the same numbers from the same
    resamples (types nested in units, and not: the pair bootstrap; 10 clusters, as fewer
    are resampled by their pairs)."""
    ds, sc = clustered_pairs(np.random.default_rng(4), n_clusters=10, per_cluster=3)
    names = ["blimp", "adc_1", "adc_area", "r_pair", "r_sentence", "variability", "mcc"]

    def user(dataset, scores):
        return stats.evaluate(dataset, scores)[["model", *names]]

    for cluster in ("type_id", None):
        fast = bootstrap(names, ds, sc, n_boot=40, cluster=cluster, seed=9)
        slow = bootstrap(user, ds, sc, n_boot=40, cluster=cluster, seed=9)
        pd.testing.assert_frame_equal(fast, slow, atol=1e-10)
    value = bootstrap(lambda d, s: float(stats.evaluate(d, s)["r_pair"].iloc[0]), ds, sc, n_boot=40,
                      seed=9)
    assert value["estimate"].iloc[0] == pytest.approx(fast.set_index("metric").loc["r_pair",
                                                                                   "estimate"])


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_intervals_agree_with_scipy(method):
    """Independent pairs, the pair bootstrap: our intervals and scipy.stats.bootstrap's
    on the raw pair arrays differ by Monte Carlo error only (different seeds)."""
    ds, sc = clustered_pairs(np.random.default_rng(5), n_clusters=300, per_cluster=1,
                             sd_cluster=0.0, sd_pair=1.0)
    ours = bootstrap(["r_pair", "blimp"], ds, sc, n_boot=5000, cluster=None, method=method,
                     seed=1).set_index("metric")
    score = sc.set_index("sentence_id")["score"]
    human = ds.sentences.set_index("sentence_id")["human"]
    dh = (human[ds.pairs["good_id"]].to_numpy() - human[ds.pairs["bad_id"]].to_numpy())
    dlm = (score[ds.pairs["good_id"]].to_numpy() - score[ds.pairs["bad_id"]].to_numpy())
    kw = dict(n_resamples=5000, method="BCa" if method == "bca" else "percentile",
              rng=np.random.default_rng(2))
    r = sps.bootstrap((dh, dlm), lambda x, y, axis=-1: metrics.pearson(x, y), paired=True,
                      vectorized=True, **kw).confidence_interval
    b = sps.bootstrap(((dlm > 0).astype(float),), np.mean, **kw).confidence_interval
    assert ours.loc["r_pair", ["lower", "upper"]].tolist() == pytest.approx([r.low, r.high],
                                                                            abs=0.012)
    assert ours.loc["blimp", ["lower", "upper"]].tolist() == pytest.approx([b.low, b.high],
                                                                           abs=0.012)


@pytest.mark.slow  # over 30 s on 2 cores
def test_cluster_bootstrap_covers_and_pair_bootstrap_undercovers():
    """200 replications of 100 phenomena x 6 pairs (ICC of the pair deltas 0.84):
    the 95% cluster-bootstrap interval covers the true r_pair and ADC(1) in 92-98% of
    them; the naive pair bootstrap far less (1000 replications: docs/metrics.md figures)."""
    sd_c, sd_p, rho_c, rho_p = 0.9, 0.4, 0.5, 0.5
    var, cov = sd_c**2 + sd_p**2, rho_c * sd_c**2 + rho_p * sd_p**2
    rng = np.random.default_rng(2026)
    # truth: ADC(1) of (dh, d score / population SD of all scores), by Monte Carlo
    big = rng.multivariate_normal([0.8, 0.8], [[var, cov], [cov, var]], 2_000_000)
    sd_scores = np.sqrt((1 + var + 0.8**2 + 1) / 2 - 0.4**2)
    truth = {"r_pair": cov / var,
             "adc_1": float(np.mean(metrics.adc_pass(big[:, 0], big[:, 1] / sd_scores, 1.0)))}
    hits = {c: dict.fromkeys(truth, 0) for c in ("type_id", None)}
    for _ in range(200):
        ds, sc = clustered_pairs(rng, 100, 6, sd_c, sd_p, rho_c, rho_p)
        for cluster in hits:
            b = bootstrap(list(truth), ds, sc, n_boot=1000, cluster=cluster,
                          seed=rng).set_index("metric")
            for m in truth:
                hits[cluster][m] += b.loc[m, "lower"] <= truth[m] <= b.loc[m, "upper"]
    cover = {c: {m: h / 200 for m, h in v.items()} for c, v in hits.items()}
    for m in truth:
        assert 0.92 <= cover["type_id"][m] <= 0.98, cover
        assert cover[None][m] < 0.85, cover


def test_evaluate_ci_puts_intervals_beside_each_metric(li_adger, li_adger_scores):
    plain = stats.evaluate(li_adger, li_adger_scores)
    table = stats.evaluate(li_adger, li_adger_scores, ci=True, n_boot=200, seed=0)
    cols = list(table.columns)
    for m in metric_names():
        assert cols[cols.index(m) + 1: cols.index(m) + 3] == [f"{m}_lower", f"{m}_upper"]
        assert (table[f"{m}_lower"] <= table[m]).all() and (table[m] <= table[f"{m}_upper"]).all()
    pd.testing.assert_frame_equal(table[list(plain.columns)], plain)
    per_dataset = stats.evaluate(li_adger, li_adger_scores, by="dataset", ci=True, n_boot=200,
                                 seed=0)
    pd.testing.assert_frame_equal(per_dataset[list(plain.columns) + ["dataset"]].drop(
        columns=[]), stats.evaluate(li_adger, li_adger_scores, by="dataset")[
            list(plain.columns) + ["dataset"]])
    assert len(per_dataset) == 16
    for m in metric_names():
        lower, value, upper = (per_dataset[f"{m}_lower"], per_dataset[m], per_dataset[f"{m}_upper"])
        assert lower.notna().all() and (lower <= value).all() and (value <= upper).all()
    with pytest.raises(ValueError, match="by= needs"):
        bootstrap(lambda d, s: 0.0, li_adger, li_adger_scores, n_boot=20, by="dataset")


def test_bad_arguments(li_adger, li_adger_scores):
    with pytest.raises(ValueError, match="unknown metric"):
        bootstrap("accuracy", li_adger, li_adger_scores, n_boot=20)
    with pytest.raises(ValueError, match="percentile"):
        bootstrap("blimp", li_adger, li_adger_scores, n_boot=20, method="basic")
    mixed = li_adger_scores.copy()
    mixed.loc[mixed.index[:5], ["ref_mean", "ref_sd"]] = [0.0, 1.0]
    with pytest.raises(ValueError, match="some rows"):
        bootstrap("adc_1", li_adger, mixed, n_boot=20)


def test_default_seed_makes_every_resampling_reproducible(example):
    """bootstrap, compare_all and evaluate(ci=True) draw from stats.DEFAULT_SEED (0) unless
    told otherwise, so two calls agree, and the seed is recorded with the table."""
    ds, sc = example
    assert stats.DEFAULT_SEED == 0
    runs = {
        "bootstrap": lambda **kw: bootstrap(stats.evaluate, ds, sc, n_boot=300, **kw),
        "compare_all": lambda **kw: stats.compare_all(ds, sc, "blimp", n_boot=300, **kw),
        "evaluate": lambda **kw: stats.evaluate(ds, sc, ci=True, n_boot=300, **kw),
    }
    for name, run in runs.items():
        first, again = run(), run()
        pd.testing.assert_frame_equal(first, again, obj=name)
        assert first.attrs["seed"] == 0, name
        fresh = [run(seed=None) for _ in range(2)]  # without a seed: different intervals
        assert not fresh[0].equals(fresh[1]), name
        assert fresh[0].attrs["seed"] is None


def phenomena(li_adger, scores, names) -> tuple[Dataset, pd.DataFrame]:
    """LI-Adger restricted to some phenomena, with their unpaired sentences, and its scores."""
    s, p = li_adger.sentences, li_adger.pairs
    ds = li_adger.subset(p.loc[p["phenomenon"].isin(names), "pair_id"],
                         sentence_ids=s.loc[s["phenomenon"].isin(names), "sentence_id"])
    return ds, scores[scores["sentence_id"].isin(ds.sentences["sentence_id"])]


SOME_PHENOMENA = ["32.1.martin.1a.g", "41.4.Bruening.9b.*", "33.4.neeleman.24d.*"]


def test_single_cluster_groups_resample_their_pairs_exactly(li_adger, li_adger_scores):
    """by="phenomenon": each LI-Adger phenomenon is one type_id unit, so stratify splits it
    into its pairs' units (lexical item sets; unpaired sentences apart), resamples each
    group's units within it, and the fast path on those counts equals evaluate on the
    resampled datasets."""
    ds, sc = phenomena(li_adger, li_adger_scores, SOME_PHENOMENA)
    units = resampling_units(ds, "type_id")
    assert units.n == 3
    groups, s_in, p_in = group_masks(ds, "phenomenon")
    strata = stratify(ds, units, "type_id", s_in, p_in)
    assert strata.unit == ["pair"] * 3 and not strata.units.types_nested
    # 41.4.Bruening.9b.*: 6 pairs' units (its 4 unpaired sentences are resampled apart)
    assert dict(zip(groups, strata.n_units, strict=True)) == {
        "32.1.martin.1a.g": 8, "41.4.Bruening.9b.*": 6, "33.4.neeleman.24d.*": 8}
    rng = np.random.default_rng(4)
    draws = strata.draws(tuple(s[rng.integers(0, len(s), (2, len(s)))] for s in strata.samples))
    counts = counts_from_indices(draws, strata.units.n)
    for sample in strata.samples:  # every resample keeps each stratum's size
        assert (counts[:, sample].sum(axis=1) == len(sample)).all()
    names = metric_names()
    arrays = MetricArrays(ds, sc, strata.units, names, by="phenomenon")
    fast = arrays(counts)
    for b in range(2):
        rds, rsc = resample_dataset(ds, sc, strata.units, counts[b])
        slow = stats.evaluate(rds, rsc, by="phenomenon")
        for g, group in enumerate(arrays.groups):
            expected = slow[slow["phenomenon"] == group].set_index("model")
            np.testing.assert_allclose(fast[:, g, :, b],
                                       expected.reindex(arrays.models)[names].to_numpy(float),
                                       atol=1e-10)


def test_per_phenomenon_intervals_on_li_adger(li_adger, li_adger_scores):
    """evaluate(by="phenomenon", ci=True) used to give only NaN intervals (each phenomenon
    is one cluster); now each comes from the phenomenon's pairs and holds the estimate."""
    sc = li_adger_scores[li_adger_scores["model"] == "bert-large-cased_mlm"]
    table = stats.evaluate(li_adger, sc, by="phenomenon", ci=True, n_boot=300)
    assert len(table) == li_adger.sentences["phenomenon"].nunique()
    paired = table["n_pairs"] > 0  # 6 phenomena have sentences but no pairs
    assert paired.sum() == li_adger.pairs["phenomenon"].nunique() == 230
    assert (table.loc[paired, "ci_unit"] == "pair").all()
    assert (table.loc[~paired, "ci_unit"] == "sentence").all()
    assert (table["ci_n_units"] >= 6).all()
    for metric in ("blimp", "adc_1", "adc_area"):
        t = table[paired]
        lo, est, hi = (t[f"{metric}_lower"], t[metric], t[f"{metric}_upper"])
        assert lo.notna().all() and hi.notna().all(), metric
        assert ((lo <= est + 1e-12) & (est <= hi + 1e-12)).all(), metric
    assert table.loc[~paired, "variability_lower"].notna().all()


@pytest.mark.needs_data("blimp")
def test_per_paradigm_intervals_on_blimp():
    """BLiMP by paradigm: each paradigm is one cluster, so its 1,000 pairs are resampled;
    the BLiMP criterion (a proportion of independent pairs, the z-scoring cannot move
    it) then has the binomial standard error sqrt(p (1 - p) / 1000)."""
    from acceptability import data
    from acceptability.scoring.baselines.ngram import train_unigram

    ds = data.load_blimp(paradigms=["adjunct_island", "anaphor_gender_agreement",
                                    "determiner_noun_agreement_1"])
    unigram = train_unigram(ds.sentences["text"])
    sc = pd.DataFrame({"sentence_id": ds.sentences["sentence_id"], "model": "unigram",
                       "score": [unigram.sentence_logprob(t)[0] for t in ds.sentences["text"]]})
    table = stats.evaluate(ds, sc, by="paradigm", ci=True, n_boot=2000)
    assert (table["ci_unit"] == "pair").all() and (table["ci_n_units"] == 1000).all()
    assert ((table["blimp_lower"] < table["blimp"]) & (table["blimp"] < table["blimp_upper"])).all()
    boot = bootstrap("blimp", ds, sc, n_boot=2000, by="paradigm").set_index("paradigm")
    p = table.set_index("paradigm")["blimp"]
    # Monte Carlo error of a bootstrap SE from 2,000 resamples: ~1.6%; 6% is ~4 of them
    np.testing.assert_allclose(boot["se"], np.sqrt(p * (1 - p) / 1000).loc[boot.index],
                               rtol=0.06)


def test_a_group_of_one_pair_says_why_it_has_no_interval(li_adger, li_adger_scores):
    p = li_adger.pairs
    one_pair = p[p["phenomenon"] == SOME_PHENOMENA[2]].iloc[:1]
    ds = li_adger.subset(pd.concat([p.loc[p["phenomenon"] == SOME_PHENOMENA[0], "pair_id"],
                                    one_pair["pair_id"]]))
    sc = li_adger_scores[li_adger_scores["sentence_id"].isin(ds.sentences["sentence_id"])]
    with pytest.warns(UserWarning, match=r"no bootstrap interval for 1 phenomenon group\(s\) "
                      r"\['33.4.neeleman.24d.\*'\]: each holds a single resampling unit"):
        boot = bootstrap(["blimp", "adc_1"], ds, sc, n_boot=200, by="phenomenon")
    one = boot["phenomenon"] == SOME_PHENOMENA[2]
    assert (boot.loc[one, "unit"] == "none").all() and boot.loc[one, "lower"].isna().all()
    assert boot.loc[one, "estimate"].notna().all()
    assert (boot.loc[~one, "unit"] == "pair").all() and boot.loc[~one, "lower"].notna().all()

