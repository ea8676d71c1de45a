"""BLiMP's published results (Warstadt et al. 2020) reproduced from its released files:
Table 3, Table 4, Fig. 1, sections 3.4, 6.1 and 6.2. Where the printed paper and the
files disagree, the test states the cell and the cause found in the data rows."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from acceptability import data
from acceptability.data.loaders.blimp_results import (
    HUMAN,
    PHENOMENON_LABELS,
    TABLE_3_PRINTED,
    load_blimp_results,
)
from acceptability.stats.benchmarks import outcomes as acc_mod
from acceptability.stats.benchmarks.forced_choice import fc_accuracy
from tests.conftest import REPO, need_data

MODELS = ["5-gram", "LSTM", "Transformer-XL"]
S_SELECTION = ["animate_subject_passive", "animate_subject_trans"]


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    need_data("blimp")
    return load_blimp_results()


@pytest.fixture(scope="module")
def published_acc(results) -> pd.DataFrame:
    return acc_mod.accuracy(None, published=results)


def exact_percent(values) -> Fraction:
    """Exact mean of the file's three-decimal accuracies, in percent (no float rounding)."""
    fracs = [Fraction(round(v * 1000), 1000) for v in values]  # the file has 3 decimals
    return sum(fracs, Fraction(0)) / len(fracs) * 100


def test_results_table_shape(results):
    assert results.groupby("system").size().to_dict() == dict.fromkeys(
        ["5-gram", "LSTM", "Transformer-XL", "GPT-2", HUMAN], 67)
    assert set(results["phenomenon"]) == set(PHENOMENON_LABELS)
    assert results.groupby("phenomenon")["paradigm"].nunique().sum() == 67
    # the paradigms the loader gets its phenomena from agree with the results file
    ds = data.load_blimp(paradigms=S_SELECTION + ["causative"])
    got = ds.pairs.drop_duplicates("paradigm").set_index("paradigm")["phenomenon"]
    assert (got == "argument_structure").all()


def test_table3_human_row_exact(results, published_acc):
    table = acc_mod.accuracy_table(published_acc)
    printed = TABLE_3_PRINTED.loc[HUMAN]
    assert (table[HUMAN].round(1) == printed.reindex(table.index)).all()


def test_table3_human_row_from_raw_trials():
    """The same row from the raw MTurk responses, with the exclusions of the trials loader."""
    need_data("blimp")
    ds = data.load_blimp()
    outcomes = acc_mod.human_outcomes(data.load_blimp_trials(), ds)
    assert outcomes.attrs["excluded"] == {HUMAN: 13}  # pairs of the 2 paradigms left out
    table = acc_mod.accuracy_table(acc_mod.accuracy(outcomes, n_boot=0))
    printed = TABLE_3_PRINTED.loc[HUMAN]
    assert (table[HUMAN].round(1) == printed.reindex(table.index)).all()


def test_table3_model_rows_from_the_file(results):
    """Every 5-gram, LSTM and TXL cell of Table 3 is the file's paradigm mean rounded
    half to even, except: LSTM Irregular, an exact tie (89.05) the paper rounds up while
    it rounds the 5-gram's D-n agr 70.05 down; TXL Island (file 48.3375, printed 48.4);
    and TXL Arg. str (see the next test)."""
    rows = results[results["system"].isin(MODELS)]
    odd = {}
    for (system, phen), g in rows.groupby(["system", "phenomenon"]):
        mean = exact_percent(g["accuracy"])
        if round(mean, 1) != Fraction(str(TABLE_3_PRINTED.loc[system, phen])):
            odd[(system, phen)] = (mean, TABLE_3_PRINTED.loc[system, phen])
    assert odd == {
        ("LSTM", "irregular_forms"): (Fraction("89.05"), 89.1),
        ("Transformer-XL", "island_effects"): (Fraction("48.3375"), 48.4),
        ("Transformer-XL", "argument_structure"): (Fraction(3247, 45), 69.5),  # 72.1555...,
    }
    # Overall = the mean over the 67 paradigms (the file's own summary row)
    for system in MODELS:
        overall = exact_percent(rows.loc[rows["system"] == system, "accuracy"])
        assert round(overall, 1) == Fraction(str(TABLE_3_PRINTED.loc[system, "overall"]))
        summary = results.attrs["summary_rows"].set_index("phenomenon")
        assert float(overall) == pytest.approx(summary.loc["overall", system] * 100, abs=1e-4)


def test_txl_argument_structure_inconsistency(results):
    """The paper's own inconsistency: Table 3 prints TXL Arg. str 69.5, but its Table 4
    and the file give 72.2 over the 9 paradigms. 69.5 is the mean over the 7 paradigms
    left when the two the data files label s-selection are dropped: that one cell was
    computed before s-selection was merged into argument structure."""
    txl = results[(results["system"] == "Transformer-XL")
                  & (results["phenomenon"] == "argument_structure")]
    assert round(exact_percent(txl["accuracy"]), 1) == Fraction("72.2")
    seven = txl[~txl["paradigm"].isin(S_SELECTION)]
    assert round(exact_percent(seven["accuracy"]), 1) == Fraction("69.5")
    printed = pd.read_csv(REPO / "tests/fixtures/blimp_table4_printed.csv", comment="#")
    arg = printed[printed["paradigm"].isin(txl["paradigm"])]
    assert round(arg["Transformer-XL"].mean(), 1) == 72.2  # Table 4's own TXL rows


def test_gpt2_column_is_not_the_papers():
    """The file's GPT-2 accuracies are not Table 3's GPT-2-large: overall 83.0 vs 81.5,
    and only 10 of Table 4's 67 GPT-2 cells agree. Reported as the file has them."""
    need_data("blimp")
    res = load_blimp_results()
    gpt2 = res[res["system"] == "GPT-2"].set_index("paradigm")["accuracy"]
    assert round(exact_percent(gpt2), 1) == Fraction("83.0")
    gpt2 = gpt2 * 100
    assert TABLE_3_PRINTED.loc["GPT-2", "overall"] == 81.5
    printed = pd.read_csv(REPO / "tests/fixtures/blimp_table4_printed.csv", comment="#")
    same = printed["GPT-2"] == np.floor(gpt2.reindex(printed["paradigm"]).to_numpy() + 0.5)
    assert int(same.sum()) == 10


def test_table4_against_the_file(results):
    """Table 4's 5-gram, LSTM, TXL and human columns are the file's values rounded, row
    by row, except three misprints found by matching rows: the argument-structure
    numbers are listed with the two s-selection paradigms last under alphabetical
    labels (shifted by two rows), the four det.-noun agreement with-adjective rows are
    in the files' alphabetical order (with_adjective_1 sorts last) under labels that
    put it first, and the two irregular-plural subject-verb rows swap their human cells."""
    printed = pd.read_csv(REPO / "tests/fixtures/blimp_table4_printed.csv", comment="#")
    assert len(printed) == 67
    cols = [*MODELS, HUMAN]
    wide = acc_mod.accuracy_table(acc_mod.accuracy(None, published=results), "paradigm")
    file = np.floor(wide[cols] + 0.5)
    matches = {}
    for _, row in printed.dropna(subset=cols).iterrows():
        hit = file.index[(file == row[cols].to_numpy(float)).all(axis=1)].tolist()
        if hit != [row["paradigm"]]:
            matches[row["paradigm"]] = hit
    arg = ["causative", "drop_argument", "inchoative", "intransitive", "passive_1",
           "passive_2", "transitive", *S_SELECTION]
    adj = ["determiner_noun_agreement_with_adj_2", "determiner_noun_agreement_with_adj_irregular_1",
           "determiner_noun_agreement_with_adj_irregular_2",
           "determiner_noun_agreement_with_adjective_1"]
    expected = {p: [q] for p, q in zip(sorted(arg), arg, strict=True)}
    expected |= {p: [q] for p, q in zip([adj[-1], *adj[:-1]], adj, strict=True)}
    expected |= {"irregular_plural_subject_verb_agreement_1": [],
                 "irregular_plural_subject_verb_agreement_2": []}
    assert matches == expected


def test_fig1_correlations(published_acc):
    r = acc_mod.accuracy_correlations(published_acc)
    assert round(r.loc["Transformer-XL", "LSTM"], 2) == 0.90
    with_humans = r[HUMAN].drop(HUMAN)
    assert with_humans.idxmax() == "GPT-2" and with_humans.idxmin() == "5-gram"
    assert with_humans.round(3).to_dict() == {"5-gram": 0.340, "LSTM": 0.487,
                                              "Transformer-XL": 0.482, "GPT-2": 0.654}


def test_section_6_1_adjective(published_acc):
    """5-gram 35 points worse with an intervening adjective; LSTM and TXL 'between 5 and
    3 points' (TXL's 5.33 rounds to 5)."""
    drop = acc_mod.adjective_effect(published_acc).set_index("system")["drop_with_adjective"]
    assert round(drop["5-gram"], 2) == 35.10
    assert round(drop["LSTM"], 2) == 4.80 and round(drop["Transformer-XL"], 2) == 5.33



def test_section_6_1_attractors(published_acc):
    """LSTM 20 and TXL 5 points worse with an attractor (GPT-2 22 in the paper; the
    file's GPT-2 is another model), against the no-attractor paradigm whose pairs differ
    in the verb, as the attractor paradigms' do."""
    att = acc_mod.attractor_effect(published_acc)
    either = att[att["attractor"] == "either"].set_index("system")["drop_with_attractor"]
    assert round(either["LSTM"], 1) == 19.7 and round(either["Transformer-XL"], 1) == 4.6
    assert round(either["GPT-2"], 1) == 24.1
    assert set(att["attractor"]) == {"relative clause", "relational noun", "either"}


def test_section_6_2_irregular(published_acc):
    drop = acc_mod.irregular_effect(published_acc).set_index("system")["drop_on_irregular"]
    assert round(drop["LSTM"], 1) == 5.2
    assert 0 < drop["Transformer-XL"] < 1.3


def test_inclusion_rule_4_of_5():
    """Section 3.4: a paradigm enters BLiMP when the majority of validators agree with
    its label on at least 4 of its 5 pairs; all 67 public paradigms pass, two fail."""
    need_data("blimp")
    fc = fc_accuracy(data.load_blimp_trials()).set_index("paradigm")
    summary = data.load_blimp_human_summary().set_index("paradigm")
    assert (fc.loc[summary.index, "majority"] == summary["accepted"]).all()
    public = set(data.blimp_paradigms())
    passed = set(fc.index[(fc["majority"] >= 4) & (fc["n_pairs"] == 5)])
    assert public <= passed
    failed = sorted(set(summary.index) - public)
    assert failed == ["coordinate_structure_constraint_subject_extraction",
                      "wh_questions_object_gap_long_distance"]
    assert fc.loc[failed, "majority"].tolist() == [1, 2]
    assert (fc.loc[sorted(public), "majority"].value_counts().to_dict()) == {5: 55, 4: 12}


def test_intervals_cover_and_repeat():
    """Cluster-bootstrap intervals over pairs: the human pair carries its ~20 trials."""
    need_data("blimp")
    ds = data.load_blimp(paradigms=["anaphor_gender_agreement", "causative"])
    sc = pd.DataFrame({"sentence_id": ds.sentences["sentence_id"], "model": "length",
                       "score": -ds.sentences["text"].str.len()})
    out = pd.concat([acc_mod.pair_outcomes(ds, sc, ties="half"),
                     acc_mod.human_outcomes(data.load_blimp_trials(), ds)])
    a = acc_mod.accuracy(out, n_boot=500, seed=1)
    b = acc_mod.accuracy(out, n_boot=500, seed=1)
    pd.testing.assert_frame_equal(a, b)
    assert ((a["lower"] <= a["accuracy"]) & (a["accuracy"] <= a["upper"])).all()
    hum = a[(a["system"] == HUMAN) & (a["level"] == "paradigm")]
    assert hum["n_pairs"].tolist() == [5, 5] and (hum["n_judgments"] > 90).all()
    model = a[(a["system"] == "length") & (a["level"] == "paradigm")]
    assert ((hum["upper"] - hum["lower"]).min() > (model["upper"] - model["lower"]).max())
