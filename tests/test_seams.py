"""Where tested parts join (issue 28): each test here failed on the code before its fix.

Steiger's test fed the real n, non-finite scores stopped at the table boundary, one
validator for forced-choice trials, human judgments on the z scale the ADC needs, and
sentence-only data without a TypeError."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import data, stats
from acceptability.data.errors import DataError
from acceptability.reports.cli import commands as cli


def _steiger_by_hand(h: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Steiger (1980, eq. 15), written out here: Fisher z of r(h, a) and r(h, b), their
    covariance from the pooled r and r(a, b), n - 3 degrees of freedom."""
    r_ha, r_hb, r_ab = (sps.pearsonr(x, y)[0] for x, y in ((h, a), (h, b), (a, b)))
    rbar = (r_ha + r_hb) / 2
    psi = r_ab * (1 - 2 * rbar**2) - 0.5 * rbar**2 * (1 - 2 * rbar**2 - r_ab**2)
    s = psi / (1 - rbar**2) ** 2
    z = (math.atanh(r_ha) - math.atanh(r_hb)) * math.sqrt((len(h) - 3) / (2 - 2 * s))
    return z, math.erfc(abs(z) / math.sqrt(2))


def _raw_pair_deltas(ds, sc, model: str) -> pd.Series:
    """good - bad raw scores of ``model`` per pair: r is the same for z-scored deltas."""
    score = sc[sc["model"] == model].set_index("sentence_id")["score"]
    p = ds.pairs.set_index("pair_id")
    return p["good_id"].map(score) - p["bad_id"].map(score)


@pytest.mark.needs_data("li-adger")
def test_steiger_on_li_adger_uses_every_pair(li_adger, li_adger_scores):
    """Item 1: compare() gave statistic 0, p 1, n_test 3 (the 3 variables, not the pairs)."""
    a, b = "bert-large-cased_mlm", "trigram_slor"
    human = li_adger.sentences.set_index("sentence_id")["human"]
    p = li_adger.pairs.set_index("pair_id")
    frame = pd.DataFrame({"h": p["good_id"].map(human) - p["bad_id"].map(human),
                          "a": _raw_pair_deltas(li_adger, li_adger_scores, a),
                          "b": _raw_pair_deltas(li_adger, li_adger_scores, b)}).dropna()
    z, pval = _steiger_by_hand(*frame.to_numpy().T)
    row = stats.compare(li_adger, li_adger_scores, a, b, "r_pair", n_boot=99)
    assert row["n_test"] == len(frame) == 2365
    assert row["statistic"] == pytest.approx(z, abs=1e-9)
    assert row["p_test"] == pytest.approx(pval, abs=1e-9)
    assert z == pytest.approx(2.2515, abs=1e-4) and pval == pytest.approx(0.0244, abs=1e-4)


@pytest.mark.needs_data("li-adger")
def test_steiger_sentence_level_n(li_adger, li_adger_scores):
    a, b = "bert-base-uncased_mlm", "trigram_logprob"
    s = li_adger.sentences.set_index("sentence_id")
    wide = li_adger_scores.pivot(index="sentence_id", columns="model", values="score")
    frame = pd.DataFrame({"h": s["human"], "a": wide[a].reindex(s.index),
                          "b": wide[b].reindex(s.index)}).dropna()
    z, pval = _steiger_by_hand(*frame.to_numpy().T)
    row = stats.compare(li_adger, li_adger_scores, a, b, "r_sentence", n_boot=99)
    assert row["n_test"] == len(frame) > 4000
    assert row["statistic"] == pytest.approx(z, abs=1e-9)
    assert row["p_test"] == pytest.approx(pval, abs=1e-9)


def _own_files(tmp_path, score: str = "-inf"):
    sentences = pd.DataFrame({"sentence_id": ["a1", "a2", "b1", "b2"],
                              "text": ["The cat sleeps.", "The cat sleep.", "Dogs bark.",
                                       "Dogs barks."],
                              "human": [0.8, -0.6, 0.9, -0.4]})
    pairs = pd.DataFrame({"pair_id": ["p1", "p2"], "good_id": ["a1", "b1"],
                          "bad_id": ["a2", "b2"]})
    scores = pd.DataFrame({"sentence_id": ["a1", "a2", "b1", "b2"] * 2,
                           "model": ["m1"] * 4 + ["m2"] * 4,
                           "score": ["-10", "-12", "-8", score, "-9", "-11", "-7", "-9"]})
    for name, frame in (("s", sentences), ("p", pairs), ("sc", scores)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return [str(tmp_path / f"{n}.csv") for n in ("s", "p", "sc")]


@pytest.mark.parametrize("bad", ["-inf", "inf", "Infinity"])
def test_non_finite_score_is_an_error_naming_file_row_and_model(tmp_path, capsys, bad):
    """Item 2: one -inf removed model m1 (n_sentences 0, every metric '-', exit 0)."""
    s, p, sc = _own_files(tmp_path, bad)
    code = cli.main(["evaluate", "--sentences", s, "--pairs", p, "--scores", sc,
                     "--n-boot", "0"])
    err = capsys.readouterr().err
    assert code == 2
    assert "sc.csv" in err and "row 5 (line)" in err and "'m1'" in err
    assert "non-finite" in err and "column 'score'" in err


def test_non_finite_values_stop_at_every_table():
    s = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["x", "y"], "human": [0.5, -np.inf]})
    with pytest.raises(DataError, match="row 1.*'human'.*non-finite"):
        data.from_frames(s)
    good = s.assign(human=[0.5, -0.5])
    ds = data.from_frames(good)
    scores = pd.DataFrame({"sentence_id": ["a", "b"], "model": ["m", "m"],
                           "score": [1.0, np.inf]})
    with pytest.raises(DataError, match="of model 'm'"):
        stats.evaluate(ds, scores)


@pytest.mark.parametrize("call", [
    lambda t: stats.split_half(t, n_splits=10),
    stats.fc_accuracy,
    stats.pair_preferences,
    stats.fc_elo,
    lambda t: stats.human_outcomes(t),
])
def test_forced_choice_values_checked_by_every_entry_point(call):
    """Item 3: split_half and fc_accuracy took chose_good 1-4 (an 'accuracy' of 2.775)."""
    trials = pd.DataFrame({"participant": ["u1", "u2", "u1", "u2"], "pair_id": ["p1", "p1",
                           "p2", "p2"], "paradigm": ["x"] * 4, "chose_good": [1, 4, 2, 3]})
    with pytest.raises(DataError, match="chose_good 4 is not 0 or 1"):
        call(trials)
    with pytest.raises(DataError, match="chose_good 4 is not 0 or 1"):
        data.from_frames(pd.DataFrame({"sentence_id": ["a"], "text": ["x"]}), trials=trials)


def _lau2020_sentences(folder) -> pd.DataFrame:
    raw = pd.read_csv(folder / "context-none-ratings.csv")
    return pd.DataFrame({"sentence_id": raw["ID"].astype(str), "text": raw["sentence"],
                         "human": raw["mean-ratings"]})


@pytest.mark.needs_data("lau2020")
def test_ratings_on_a_1_to_4_scale_are_not_taken_as_z_scores():
    """Item 3: Lau et al. 2020's mean ratings (1-4) went into the ADC as z-scores."""
    from tests.conftest import need_data

    sentences = _lau2020_sentences(need_data("lau2020", "context-none-ratings.csv"))
    assert sentences["human"].between(1, 4).all()
    with pytest.raises(DataError, match="all of one sign: they are not z-scores"):
        data.from_frames(sentences)
    ds = data.from_frames(sentences, human_scale="raw")
    h = sentences["human"]
    expected = (h - h.mean()) / h.std(ddof=0)
    assert np.allclose(ds.sentences["human"], expected)
    assert ds.human_standardised == pytest.approx({"mean": h.mean(), "sd": h.std(ddof=0)})


@pytest.mark.needs_data("lau2020")
def test_cli_human_scale(tmp_path, capsys):
    from tests.conftest import need_data

    sentences = _lau2020_sentences(need_data("lau2020", "context-none-ratings.csv"))
    path = tmp_path / "lau.csv"
    sentences.to_csv(path, index=False)
    scores = pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "len",
                           "score": -sentences["text"].str.len()})
    scores.to_csv(tmp_path / "scores.csv", index=False)
    args = ["evaluate", "--sentences", str(path), "--scores", str(tmp_path / "scores.csv"),
            "--n-boot", "0"]
    assert cli.main(args) == 2
    assert "lau.csv" in capsys.readouterr().err
    assert cli.main([*args, "--human-scale", "raw"]) == 0
    out = capsys.readouterr().out
    r = sps.pearsonr(sentences["human"], scores["score"])[0]
    assert f"{r:.3f}" in out


def test_sentences_only_dataset_without_pairs_argument():
    """Item 6: from_frames(sentences) raised a TypeError (pairs had no default)."""
    ds = data.from_frames(pd.DataFrame({"sentence_id": ["a", "b"], "text": ["x", "y"]}))
    assert len(ds.pairs) == 0 and len(ds.sentences) == 2


@pytest.mark.needs_data("zorro")
def test_zorro_published_scores_with_max_pairs():
    """Item 6: --max-pairs with --scores published blamed the reference file ("4000 lines,
    but sentences/...txt has 100")."""
    from acceptability.reports.cli.experiment import Experiment, load_dataset, load_scores
    from tests.conftest import need_data

    folder = need_data("zorro")
    exp = Experiment(dataset="zorro", max_pairs=50, paradigms=("binding-principle_a",
                                                               "quantifiers-superlative"))
    ds = load_dataset(exp)
    sc = load_scores(exp, ds)
    assert len(ds.pairs) == 100 and len(sc) == 200
    # line i of the reference file scores line i of the sentences file
    ref = (folder / "reference-roberta-base" /
           "probing_binding-principle_a_results_500000.txt").read_text().split("\n")
    first = sc.set_index("sentence_id")["score"]
    assert first["binding-principle_a_0_bad"] == -float(ref[0].split()[-1])
    assert first["binding-principle_a_49_good"] == -float(ref[99].split()[-1])


def _no_pairs_files(tmp_path) -> tuple[str, str, pd.DataFrame]:
    """Lau et al. 2020's 250 sentences (mean ratings, raw) and two length baselines."""
    from tests.conftest import need_data

    s = _lau2020_sentences(need_data("lau2020", "context-none-ratings.csv"))
    sc = pd.concat([pd.DataFrame({"sentence_id": s["sentence_id"], "model": "neg_chars",
                                  "score": -s["text"].str.len().astype(float)}),
                    pd.DataFrame({"sentence_id": s["sentence_id"], "model": "neg_words",
                                  "score": -s["text"].str.split().str.len().astype(float)})])
    s.to_csv(tmp_path / "s.csv", index=False)
    sc.to_csv(tmp_path / "sc.csv", index=False)
    return str(tmp_path / "s.csv"), str(tmp_path / "sc.csv"), s


@pytest.mark.needs_data("lau2020")
def test_report_without_pairs_shows_only_sections_with_content(tmp_path, capsys):
    """Item 7: an empty comparisons heading, a variability section with every type
    excluded, "not fitted" twice over an empty table, and "phenomena 250"."""
    s, sc, frame = _no_pairs_files(tmp_path)
    out = tmp_path / "rep"
    assert cli.main(["run", "--sentences", s, "--human-scale", "raw", "--scores", sc,
                     "--out", str(out), "--n-boot", "200"]) == 0
    md = (out / "report.md").read_text()
    headings = [line[3:] for line in md.splitlines() if line.startswith("## ")]
    assert headings == ["Data summary", "Correlations with human judgments",
                        "Model comparisons", "Reproducibility"]
    assert "not fitted" not in md and "No mixed model by default" in md
    summary = pd.read_csv(out / "tables" / "data_summary.csv").set_index("quantity")["value"]
    assert summary["phenomena"].startswith("none given")
    assert summary["sentence types"].startswith("none given")
    comp = pd.read_csv(out / "tables" / "comparisons.csv")
    assert len(comp) == 1 and comp.loc[0, "test"] == "steiger_z"
    z = frame["human"]
    a = -frame["text"].str.len().astype(float)
    b = -frame["text"].str.split().str.len().astype(float)
    assert comp.loc[0, "p_test"] == pytest.approx(_steiger_by_hand(z, a, b)[1], abs=1e-9)
    corr = pd.read_csv(out / "tables" / "correlations.csv")
    assert (corr["pearson_lower"] < corr["pearson"]).all()
    assert (corr["pearson"] < corr["pearson_upper"]).all()


@pytest.mark.needs_data("lau2020")
def test_impossible_metric_or_formula_is_one_clear_error(tmp_path, capsys):
    s, sc, _ = _no_pairs_files(tmp_path)
    ds = data.read_dataset(s, human_scale="raw")
    scores = data.read_scores(sc, ds)
    with pytest.raises(ValueError, match="'adc_1' needs minimal pairs.*defines \\['r_sentence'"):
        stats.compare(ds, scores, "neg_chars", "neg_words", "adc_1")
    base = ["--sentences", s, "--human-scale", "raw", "--scores", sc, "--n-boot", "50"]
    assert cli.main(["report", *base, "--compare-metric", "r_pair",
                     "--out", str(tmp_path / "r")]) == 2
    assert "'r_pair' needs minimal pairs" in capsys.readouterr().err
    # a formula that fits no model is a failed step, not a report with an empty table
    assert cli.main(["run", *base, "--formula", "human ~ score + (1 | phenomenon)",
                     "--out", str(tmp_path / "u")]) == 2
    assert "no model could be fitted" in capsys.readouterr().err
    assert cli.main(["fit", *base[:-2]]) == 2
    assert "No mixed model by default" in capsys.readouterr().err


def test_captions_say_what_the_bootstrap_resampled():
    """Few clusters are resampled by their pairs: captions and figure titles say so instead
    of "cluster bootstrap" (item 8)."""
    from acceptability.reports.labels import resampled

    few = {"unit": "pair", "cluster": "type_id"}
    assert resampled(few) == "bootstrap (the pairs within each of too few type_id clusters)"
    assert resampled({"unit": "type_id", "cluster": "type_id"}) == "cluster bootstrap"
    assert resampled({"cluster": "type_id"}, adjective=True) == "cluster-bootstrap"
