"""Bootstrap and benchmark-report seams (issue 28, items 5, 8, 9): each test here failed
on the code before its fix.

A single cluster crashed in scipy; 2 clusters gave intervals without a word of warning,
and a variability sitting on its own lower bound; pair counts read as if every BLiMP pair
were dropped; benchmark tables switched between proportions and percent and printed
``nan``; a full-paradigm scores file was refused under ``--max-pairs``, whose sample size
no caption gave."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import data, reports, stats
from acceptability.reports.cli import commands as cli
from acceptability.reports.tables import formatted, to_markdown
from acceptability.stats import metrics

DET = ["determiner_noun_agreement_1", "determiner_noun_agreement_2",
       "determiner_noun_agreement_irregular_1", "determiner_noun_agreement_irregular_2",
       "determiner_noun_agreement_with_adjective_1", "determiner_noun_agreement_with_adj_2",
       "determiner_noun_agreement_with_adj_irregular_1",
       "determiner_noun_agreement_with_adj_irregular_2"]
NO_RULE = "complex_NP_island"  # seed 004 prints no linear rule for it: missing cells


def clusters(k: int, per: int, shift: float = 4.0, seed: int = 0, human: bool = True):
    """``k`` phenomena of ``per`` independent pairs; the good (bad) sentences of one share
    a type, so each phenomenon is one ``type_id`` cluster. Model scores of phenomenon c
    are shifted by ``shift * c``: most of their variance lies between clusters."""
    rng = np.random.default_rng(seed)
    c = np.repeat(np.arange(k), per)
    n = len(c)
    pid = np.char.add("p", np.arange(n).astype(str))
    good, bad = np.char.add(pid, ".g"), np.char.add(pid, ".b")
    ph = np.char.add("c", c.astype(str))
    score_bad = rng.normal(0, 1, n) + shift * c
    human_bad = rng.normal(-0.4, 0.5, n)
    sentences = pd.DataFrame({
        "sentence_id": np.r_[good, bad], "text": "s",
        "type_id": np.r_[np.char.add(ph, ".g"), np.char.add(ph, ".b")],
        "phenomenon": np.r_[ph, ph], "label": np.repeat([1.0, 0.0], n),
        "human": np.r_[human_bad + rng.normal(0.8, 0.5, n), human_bad] if human else np.nan})
    pairs = pd.DataFrame({"pair_id": pid, "good_id": good, "bad_id": bad})
    scores = pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "m",
                           "score": np.r_[score_bad + rng.normal(0.5, 1, n), score_bad]})
    return data.from_frames(sentences, pairs), scores


def _deltas(ds, sc) -> tuple[np.ndarray, np.ndarray]:
    """Human and model (raw score) deltas per pair."""
    human = ds.sentences.set_index("sentence_id")["human"]
    score = sc.set_index("sentence_id")["score"]
    p = ds.pairs
    return ((human[p["good_id"]].to_numpy() - human[p["bad_id"]].to_numpy()),
            (score[p["good_id"]].to_numpy() - score[p["bad_id"]].to_numpy()))


def test_one_cluster_resamples_its_pairs_instead_of_a_scipy_error():
    """Item 5: one cluster (one BLiMP paradigm, one Zorro paradigm) stopped with scipy's
    "each sample in `data` must contain two or more observations"; now its pairs are
    resampled, which here, the pairs being independent, is scipy's own pair bootstrap."""
    ds, sc = clusters(1, 400)
    with pytest.warns(UserWarning, match=r"1 type_id cluster\(s\), fewer than 10"):
        boot = stats.bootstrap(["blimp", "r_pair"], ds, sc, n_boot=5000, seed=1)
    assert boot.attrs["unit"] == "pair" and boot.attrs["n_units"] == 400
    boot = boot.set_index("metric")
    dh, dlm = _deltas(ds, sc)
    r = sps.bootstrap((dh, dlm), lambda x, y, axis=-1: metrics.pearson(x, y), paired=True,
                      vectorized=True, n_resamples=5000, rng=np.random.default_rng(2))
    assert boot.loc["r_pair", ["lower", "upper"]].tolist() == pytest.approx(
        [r.confidence_interval.low, r.confidence_interval.high], abs=0.012)
    p = np.mean(dlm > 0)  # a proportion of 400 independent pairs: the binomial SE
    assert boot.loc["blimp", "se"] == pytest.approx(np.sqrt(p * (1 - p) / 400), rel=0.06)
    two = pd.concat([sc, sc.assign(model="m2", score=-sc["score"])], ignore_index=True)
    with pytest.warns(UserWarning, match="fewer than 10"):
        c = stats.compare_all(ds, two, "blimp", n_boot=500)
    assert c.attrs["unit"] == "pair" and c["lower"].notna().all()


def test_one_pair_says_there_is_nothing_to_resample():
    ds, sc = clusters(1, 1)
    with pytest.warns(UserWarning, match="single resampling unit"):
        boot = stats.bootstrap(["blimp"], ds, sc, n_boot=100)
    assert boot["estimate"].notna().all() and boot["lower"].isna().all()
    with pytest.raises(ValueError, match="single resampling unit"):
        stats.compare_all(ds, pd.concat([sc, sc.assign(model="m2")]), "blimp", n_boot=100)


def test_two_clusters_resample_pairs_within_each_warn_and_note_it():
    """Item 8: 2 clusters gave cluster-bootstrap intervals without a warning, and the
    variability sat on its lower bound: a resample holds both clusters (the data) or one
    twice, whose z-scores lose the between-cluster variance, so it can only rise (a bias
    of +0.22 here, and a BLiMP-criterion SE of 0.001). Now the pairs are resampled within
    each cluster: the estimate lies inside its interval, the resamples centre on it, the
    BLiMP criterion has the stratified binomial SE, and the fast path is the statistic
    applied to each resampled dataset."""
    ds, sc = clusters(2, 300)
    with pytest.warns(UserWarning, match=r"2 type_id cluster\(s\), fewer than 10.*conditional "
                      "on these clusters"):
        boot, dist = stats.bootstrap(["variability", "blimp"], ds, sc, n_boot=2000,
                                     distribution=True)
    v = boot.set_index("metric").loc["variability"]
    assert v["lower"] < v["estimate"] < v["upper"]
    assert abs(dist[("m", "variability")].mean() - v["estimate"]) < 0.2 * v["se"]
    _, dlm = _deltas(ds, sc)
    p = np.array([np.mean(dlm[:300] > 0), np.mean(dlm[300:] > 0)])
    se = np.sqrt(np.sum(300 * p * (1 - p))) / 600  # pairs within each of the 2 strata
    assert boot.set_index("metric").loc["blimp", "se"] == pytest.approx(se, rel=0.06)
    with pytest.warns(UserWarning, match="fewer than 10"):  # the fast path is the statistic
        fast = stats.bootstrap(["variability", "blimp"], ds, sc, n_boot=40, seed=9)
        slow = stats.bootstrap(lambda d, s: stats.evaluate(d, s)[["model", "variability",
                                                                    "blimp"]], ds, sc, n_boot=40,
                               seed=9)  # applied to each resampled dataset
    pd.testing.assert_frame_equal(fast, slow, atol=1e-10)
    results = reports.analyse(ds, sc, n_boot=300, formula=None, by=None)
    assert "2 type_id cluster(s), fewer than 10" in results.notes["bootstrap"]


def test_pair_counts_say_what_they_mean():
    """Item 8: BLiMP has no human judgments, and n_pairs_excluded counted all its pairs
    as excluded although the BLiMP criterion used them. Now the counts partition the
    pairs: n_pairs (model delta) + n_pairs_excluded (none: in no metric), and n_pairs =
    n_pairs_human (ADC, r_pair) + n_pairs_no_human (the BLiMP criterion only)."""
    ds, sc = clusters(2, 20, human=False)
    row = stats.evaluate(ds, sc).iloc[0]
    assert (row["n_pairs"], row["n_pairs_human"], row["n_pairs_no_human"],
            row["n_pairs_excluded"]) == (40, 0, 40, 0)
    ds, sc = clusters(2, 20)
    s = ds.sentences.copy()
    s.loc[s["sentence_id"] == "p0.g", "human"] = np.nan
    ds = data.from_frames(s, ds.pairs)
    sc.loc[sc["sentence_id"] == "p1.b", "score"] = np.nan
    row = stats.evaluate(ds, sc).iloc[0]
    assert (row["n_pairs"], row["n_pairs_human"], row["n_pairs_no_human"],
            row["n_pairs_excluded"]) == (39, 38, 1, 1)


def test_missing_values_are_dashes_in_every_column():
    """Item 9: an object column (seed 004's baselines, with their "k/n" row) printed NaN
    as ``nan``; tabulate re-read "0.420" as a number and printed 0.42."""
    table = pd.DataFrame({"paradigm": ["a", "b", "fraction"],
                          "rules": pd.Series([0.42, np.nan, "1/2"], dtype=object),
                          "model": [0.5, np.nan, 0.25]})
    shown = formatted(table)
    assert shown["rules"].tolist() == ["0.420", "–", "1/2"]
    assert shown["model"].tolist() == ["0.500", "–", "0.250"]
    md = to_markdown(table)
    assert "0.420" in md and "nan" not in md


def _blimp_scores(ds) -> pd.DataFrame:
    """A model that prefers the shorter sentence, on every sentence of ``ds``."""
    s = ds.sentences
    return pd.DataFrame({"sentence_id": s["sentence_id"], "model": "short",
                         "score": -s["text"].str.len().astype(float)})


@pytest.mark.needs_data("blimp")
def test_one_blimp_paradigm_evaluates_from_the_command_line(tmp_path, capsys):
    """Item 5, as reported: evaluate --dataset blimp --paradigm adjunct_island exited 2."""
    ds = data.load_blimp(paradigms=["adjunct_island"])
    _blimp_scores(ds).to_csv(tmp_path / "sc.csv", index=False)
    assert cli.main(["evaluate", "--dataset", "blimp", "--paradigm", "adjunct_island",
                     "--scores", str(tmp_path / "sc.csv"), "--n-boot", "200"]) == 0
    out, err = capsys.readouterr()
    assert "n_pairs_no_human" in out and "fewer than 10" in err


@pytest.mark.needs_data("zorro")
def test_one_zorro_paradigm_runs(tmp_path):
    """Item 5, as reported: run --dataset zorro --scores published --paradigm ... exited 2."""
    assert cli.main(["run", "--dataset", "zorro", "--scores", "published", "--paradigm",
                     "agreement_determiner_noun-across_1_adjective", "--n-boot", "200",
                     "--out", str(tmp_path / "z")]) == 0
    assert (tmp_path / "z" / "report.md").is_file()


@pytest.mark.needs_data("blimp")
def test_max_pairs_report_restricts_full_scores_says_its_sample_and_one_unit(tmp_path, capsys):
    """Items 8 and 9: a scores file of the full paradigms was refused under --max-pairs
    ("score for unknown sentence ... (17640 such rows)"); the captions did not say that
    the model's accuracies rest on 20 pairs per paradigm and the published ones on all
    1,000; the contrasts and baselines were in percent beside tables of proportions; the
    baselines printed ``nan`` for a paradigm seed 004 gives no rule."""
    paradigms = [*DET, NO_RULE]
    full = data.load_blimp(paradigms=paradigms)
    _blimp_scores(full).to_csv(tmp_path / "sc.csv", index=False)
    out = tmp_path / "rep"
    assert cli.main(["report", "--dataset", "blimp", *[a for p in paradigms
                                                       for a in ("--paradigm", p)],
                     "--max-pairs", "20", "--scores", str(tmp_path / "sc.csv"), "--n-boot",
                     "100", "--formula", "", "--out", str(out)]) == 0
    set_aside = len(full.sentences) - 9 * 40
    assert f"set aside {set_aside:,} score rows" in capsys.readouterr().err
    summary = pd.read_csv(out / "tables" / "data_summary.csv").set_index("quantity")["value"]
    assert int(summary.filter(like="set aside").iloc[0]) == set_aside
    md = (out / "report.md").read_text()
    assert "pairs per paradigm: short, rules 20; Human 5" in md
    assert "published accuracies rest on all pairs of each paradigm" in md
    assert "not the same pairs" in md
    for name in ("accuracy_paradigm", "accuracy_phenomenon"):
        acc = pd.read_csv(out / "tables" / f"{name}.csv").select_dtypes("number")
        assert ((acc >= 0) & (acc <= 1) | acc.isna()).all().all(), name
    contrasts = pd.read_csv(out / "tables" / "contrasts.csv")
    assert contrasts[["first set", "second set"]].stack().between(0, 1).all()
    assert contrasts["first − second"].between(-1, 1).all()
    base = pd.read_csv(out / "tables" / "baselines.csv").set_index("paradigm")
    numbers = base.drop(index=base.index[-1]).apply(pd.to_numeric)
    assert numbers.stack().dropna().between(0, 1).all()
    assert pd.isna(numbers.loc[NO_RULE, "rules"])  # shown as –
    texts = [md, (out / "report.html").read_text(),
             *(f.read_text() for f in (out / "tables").glob("*.tex"))]
    assert not any(re.search(r"\bnan\b", t) for t in texts)
    assert re.search(rf"\| {NO_RULE} +\| +0\.\d{{3}} \| +– \|", md)


def test_unrestricted_own_data_still_refuses_a_score_of_an_unknown_sentence(tmp_path, capsys):
    """Scores are set aside only where the user restricted the dataset (--paradigm,
    --max-pairs); on their own full data a stray sentence id is still an error."""
    ds, sc = clusters(2, 10)
    ds.sentences.to_csv(tmp_path / "s.csv", index=False)
    ds.pairs.to_csv(tmp_path / "p.csv", index=False)
    pd.concat([sc, pd.DataFrame({"sentence_id": ["typo"], "model": "m", "score": [1.0]})]
              ).to_csv(tmp_path / "sc.csv", index=False)
    assert cli.main(["evaluate", "--sentences", str(tmp_path / "s.csv"), "--pairs",
                     str(tmp_path / "p.csv"), "--scores", str(tmp_path / "sc.csv"),
                     "--n-boot", "0"]) == 2
    assert "score for unknown sentence 'typo'" in capsys.readouterr().err


@pytest.mark.needs_data("blimp")
def test_run_redoes_its_steps_for_other_max_pairs(tmp_path, capsys):
    """A second ``run`` into the same folder with another --max-pairs reused the first
    run's scores and statistics ("score: up to date"): its report showed 20 pairs per
    paradigm for --max-pairs 30."""
    full = data.load_blimp(paradigms=["adjunct_island"])
    _blimp_scores(full).to_csv(tmp_path / "sc.csv", index=False)
    for k in (20, 30):
        assert cli.main(["run", "--dataset", "blimp", "--paradigm", "adjunct_island",
                         "--max-pairs", str(k), "--scores", str(tmp_path / "sc.csv"),
                         "--n-boot", "50", "--formula", "", "--out", str(tmp_path / "r")]) == 0
        assert pd.read_csv(tmp_path / "r" / "evaluation.csv").loc[0, "n_pairs"] == k
    assert "up to date" not in capsys.readouterr().err
