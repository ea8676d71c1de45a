"""SyntaxGym's prediction formulas and accuracy, and Hu et al.'s (2020) SG scores.

The formula evaluator is checked on syntaxgym-core's suite filled in with two real models'
region surprisals (``data/test/test_out_{grnn,transformer-xl}.json``): every prediction, and
formulas using every operator, each outcome written here from the region values. The SG
scores are recomputed here from the raw CSVs as the authors' ``notebooks/main.py`` does.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from acceptability.data import (
    DataError,
    load_syntaxgym,
    load_syntaxgym_results,
    read_syntaxgym_surprisals,
)
from acceptability.data.loaders.syntaxgym_formula import FormulaError, parse_prediction
from acceptability.data.loaders.syntaxgym_results import HU2020_MODELS
from acceptability.stats import sg_scores, syntaxgym_accuracy, syntaxgym_outcomes
from tests.conftest import need_data

# syntaxgym-core's data/test/test_out_*.json: region 1..6 sums (bits), per item and condition
GRNN = {1: {"that": [8.630147, 22.759336, 18.362463, 13.195077, 14.058306, 26.949431],
            "what": [10.83909, 24.770555, 19.563911, 10.547517, 13.538138, 25.690093]},
        2: {"that": [26.966221, 12.992633, 10.155564, 24.575346, 15.24019, 15.741962],
            "what": [31.682794, 14.574103, 11.379337, 25.628383, 15.360477, 16.287372]}}
TXL = {1: {"that": [17.498206, 22.271368, 18.601279, 16.7245, 12.162466, 23.24352],
           "what": [20.370965, 27.140326, 16.767409, 14.963176, 13.074503, 24.162402]},
       2: {"that": [35.785925, 13.469567, 12.215142, 29.109783, 12.623041, 10.175235],
           "what": [41.570946, 14.987665, 11.373839, 26.290432, 15.02625, 11.481194]}}

# formula -> outcomes (grnn item 1, grnn item 2, txl item 1, txl item 2), worked by hand
FORMULAS = {
    # test_in.json's one prediction (relation greaterthan, region 3, that vs what): region 3
    # that/what 18.362 < 19.564, 10.156 < 11.379; 18.601 > 16.767, 12.215 > 11.374
    "(3;%that%) > (3;%what%)": [False, False, True, True],
    # what - that in region 1 vs that - what in region 4: 2.209 < 2.648; 4.717 > -1.053;
    # 2.873 > 1.761; 5.785 > 2.819
    "[(1;%what%) - (1;%that%)] > [(4;%that%) - (4;%what%)]": [False, True, True, True],
    # region 6 that > what: 26.949 > 25.690 yes; 15.742 < 16.287 and region 3 no (above);
    # 23.244 < 24.162 but region 3 yes; 10.175 < 11.481 but region 3 yes
    "(6;%that%) > (6;%what%) | (3;%that%) > (3;%what%)": [True, False, True, True],
    # |diff| 0.00122 <= 1e-3 + 1e-5 * region 6 that: 26.949 -> 0.0012695 yes; 15.742 ->
    # 0.0011574 no; 23.244 -> 0.0012324 yes; 10.175 -> 0.0011018 no
    "(6;%that%) + 0.00122 = (6;%that%)": [True, False, True, False],
    # region 3 what - that: 1.201, 1.224, -1.834, -0.841 against -1.5
    "(3;%what%) - (3;%that%) > -1.5": [True, True, False, True],
    # & and | left to right: (A & region 1 > 100) | region 4 what > that, the first part
    # never true; region 4 what/that 10.548 < 13.195, 25.628 > 24.575, 14.963 < 16.725,
    # 26.290 < 29.110 (read as A & (... | ...), grnn item 2 would be False)
    "(3;%that%) > (3;%what%) & (1;%that%) > 100 | (4;%what%) > (4;%that%)":
        [False, True, False, False],
    # all six regions summed: that/what 103.955 < 104.949, 105.672 < 114.912,
    # 110.501 < 116.479, 113.379 < 120.730
    "(*;%what%) > (*;%that%)": [True, True, True, True],
    # nested brackets, both kinds: 2 + (3 - 4) = 1
    "[(5 - 3) + ((2 + 1) - [2 + 2])] = 1": [True, True, True, True],
}


@pytest.fixture(scope="module")
def core_test():
    return need_data("syntaxgym", "syntaxgym-core-test/test_in.json") / "syntaxgym-core-test"


@pytest.fixture(scope="module")
def filled_in(core_test):
    frames = [read_syntaxgym_surprisals(core_test / f"test_out_{m}.json")
              for m in ("grnn", "transformer-xl")]
    return pd.concat(frames, ignore_index=True)


def test_the_filled_in_values_are_those_written_here(filled_in):
    for model, values in (("grnn", GRNN), ("transformer-xl", TXL)):
        part = filled_in[filled_in["model"] == model]
        for item, conds in values.items():
            for cond, sums in conds.items():
                got = part[(part["item"] == item) & (part["condition"] == cond)]
                np.testing.assert_allclose(got["surprisal"], sums, atol=5e-7)


def test_the_suite_s_prediction_on_both_models(core_test, filled_in):
    ds = load_syntaxgym(suites=[core_test / "test_in.json"])
    out = syntaxgym_outcomes(filled_in, ds)
    assert out["formula"].unique().tolist() == ["(3;%that%) > (3;%what%)"]
    assert out["correct"].tolist() == FORMULAS["(3;%that%) > (3;%what%)"]
    acc = syntaxgym_accuracy(filled_in, ds, n_boot=0)
    suite = acc[acc["level"] == "suite"].set_index("model")["accuracy"]
    assert suite.to_dict() == {"grnn": 0.0, "transformer-xl": 1.0}


def test_every_operator_on_the_filled_in_values(core_test, filled_in):
    ds = load_syntaxgym(suites=[core_test / "test_in.json"])
    sentences = ds.sentences.assign(predictions=json.dumps(list(FORMULAS)))
    out = syntaxgym_outcomes(filled_in, sentences)
    for k, (formula, expected) in enumerate(FORMULAS.items()):
        got = out[out["prediction"] == k]
        assert got["formula"].iloc[0] == formula
        assert got["correct"].tolist() == expected, formula
    # an item is correct when all its predictions hold: none of grnn's and txl's
    acc = syntaxgym_accuracy(filled_in, sentences, n_boot=0)
    assert acc.loc[acc["level"] == "suite", "accuracy"].tolist() == [0.0, 0.0]
    per_prediction = acc[acc["level"] == "prediction"].sort_values(["prediction", "model"])
    expected = [np.mean(v[:2]) for v in FORMULAS.values() for v in (v, v[2:])]
    assert per_prediction["accuracy"].tolist() == expected


def test_syntaxgym_core_s_arithmetic_cases():
    """The formulas of syntaxgym-core's test_prediction.py, worked by hand; a formula
    printed back (fully bracketed) parses to the same truth."""
    cases = {"5 - 4 - 3 < 0": True,  # (5 - 4) - 3 = -2; read right to left it would be 4
             "5+4=9-1+1": True, "5-(3+2)=0": True, "(5-3)+2=4": True,
             "(5-3)+((2+1)-(2+2))=1": True, "1 < 2 | 2 < 1 & 1 < 0": False}
    for text, truth in cases.items():
        f = parse_prediction(text)
        assert bool(f.evaluate({})) is truth, text
        assert bool(parse_prediction(str(f)).evaluate({})) is truth


@pytest.mark.parametrize(("text", "message"), [
    ("(1;%a%) * 2 > 1", r"unexpected '\*' at character 9"),
    ("[(1;%a%) > 2)", r"'\]' expected to close '\['"),
    ("(1;%a%) < (1;%b%) < 3", "a chained comparison"),
    ("((1;%a%) > 1) + 1 > 0", r"'\+' adds numbers, not comparisons at character 15"),
    ("(1;%a%) > 1 & 2", r"'&' joins comparisons, not numbers"),
    ("(1;%a%) + 2", "is a number, not a prediction"),
    ("(1;%a%) >", "the formula ends where a term was expected"),
    ("(1;%a%) > 1 )", r"unexpected '\)' after a complete formula"),
])
def test_formulas_outside_the_language(text, message):
    with pytest.raises(FormulaError, match=message):
        parse_prediction(text)


def test_a_missing_region_is_an_error_naming_suite_and_prediction(core_test, filled_in):
    ds = load_syntaxgym(suites=[core_test / "test_in.json"])
    no_what = filled_in[filled_in["condition"] != "what"]
    with pytest.raises(DataError, match=r"suite 'test', prediction 0: no value of region 3 "
                                        r"in condition 'what'"):
        syntaxgym_outcomes(no_what, ds)
    holes = filled_in.assign(surprisal=filled_in["surprisal"].where(
        ~((filled_in["item"] == 2) & (filled_in["region"] == 6))))
    out = syntaxgym_outcomes(holes, ds)  # item 2 lacks region 6: left out, counted
    assert out["item"].tolist() == [1, 1]
    assert out.attrs["excluded"] == {("grnn", "test"): 1, ("transformer-xl", "test"): 1}
    with pytest.raises(DataError, match="not a finite number"):
        syntaxgym_outcomes(filled_in.assign(surprisal=np.inf), ds)
    with pytest.raises(DataError, match=r"scored by metric \['mean'\], but its predictions"):
        syntaxgym_outcomes(filled_in.assign(metric="mean"), ds)
    more = pd.concat([filled_in, filled_in.assign(suite="other")], ignore_index=True)
    assert syntaxgym_outcomes(more, ds).attrs["unknown_suites"] == {
        ("grnn", "other"): 24, ("transformer-xl", "other"): 24}


# ---- Hu et al. 2020's SG scores ----------------------------------------------------------

NOTEBOOK_CIRCUITS = {"Licensing": ["npi", "reflexive"],
                     "Long-Distance Dependencies": ["fgd", "cleft"], "Agreement": ["number"],
                     "Garden-Path Effects": ["npz", "mvrr"],
                     "Gross Syntactic State": ["subordination"], "Center Embedding": ["center"]}


def _notebook_suites(folder) -> pd.DataFrame:
    """suites_df of notebooks/main.py (commit 43f1f86), recomputed from the raw CSVs."""
    frames = [pd.read_csv(f) for f in sorted((folder / "hu2020_results").glob("syntaxgym_*.csv"))]
    df = pd.concat(frames)
    ids = df["model"].str.split("_", expand=True).rename(columns={0: "model_name", 1: "corpus",
                                                                   2: "seed"})
    df = pd.concat([df.drop(columns="model"), ids], axis=1)
    tag_circuit = {t: c for c, tags in NOTEBOOK_CIRCUITS.items() for t in tags}
    df["circuit"] = df["suite"].map(lambda s: tag_circuit.get(re.split(r"[-_0-9]", s)[0]))
    df = df[~df["suite"].str.contains(r"^fgd-embed[34]|^gardenpath|^nn-nv")]
    df = df[~df["model_name"].isin(["1gram", "ngram-no-rand"])]
    df = df[~(df["model_name"].isin(["ngram", "ordered-neurons", "vanilla", "rnng"])
              & df["corpus"].str.endswith("bpe"))]
    df = df[~((df["model_name"] == "gpt-2") & ~df["corpus"].str.endswith("gptbpe"))]
    ngram = df["model_name"] == "ngram"  # majority of the tie-breaking runs
    voted = (df[ngram].groupby(["model_name", "corpus", "suite", "item", "circuit"])["correct"]
             .mean() > 0.5).reset_index().assign(seed="0")
    df = pd.concat([df[~ngram], voted])
    return (df.groupby(["model_name", "corpus", "seed", "suite", "circuit"])["correct"].mean()
            .reset_index())


@pytest.fixture(scope="module")
def results():
    return load_syntaxgym_results(need_data("syntaxgym", "hu2020_results/perplexity.csv"))


def test_sg_scores_reproduce_the_authors_analysis(results):
    notebook = _notebook_suites(need_data("syntaxgym"))
    by_model = notebook.groupby("model_name")["correct"].mean()  # Fig. 1's bars
    ours = sg_scores(results, n_boot=0)
    overall = ours[ours["level"] == "overall"].set_index("system")["accuracy"]
    assert set(overall.index) == set(HU2020_MODELS.values())
    for model, label in HU2020_MODELS.items():
        assert overall[label] == pytest.approx(by_model[model], abs=1e-12), label
    runs = sg_scores(results, by="run", n_boot=0)
    per_run = notebook.groupby(["model_name", "corpus", "seed"])["correct"].mean()
    got = runs.loc[runs["level"] == "overall", "accuracy"].to_numpy()
    assert len(got) == len(per_run) == 46
    assert sorted(got) == pytest.approx(sorted(per_run), abs=1e-12)
    circuits = notebook.groupby(["model_name", "circuit"])["correct"].mean()
    ours_c = ours[ours["level"] == "circuit"].set_index(["system", "group"])["accuracy"]
    for (model, circuit), value in circuits.items():
        assert ours_c[HU2020_MODELS[model], circuit] == pytest.approx(value, abs=1e-12)


# The SG scores (mean over the paper's 31 suites) these data give, Fig. 1's order; the
# paper prints them only as bars (GPT-2-XL* highest, n-gram lowest).
SG = {"GPT-2-XL*": 0.842, "GPT-2*": 0.784, "Transformer-XL*": 0.596, "JRNN*": 0.563,
      "GPT-2": 0.554, "GRNN*": 0.551, "RNNG": 0.540, "ON-LSTM": 0.480, "LSTM": 0.354,
      "n-gram": 0.233}


def test_sg_scores_with_intervals(results):
    table = sg_scores(results, n_boot=2000, seed=1)
    overall = table[table["level"] == "overall"].set_index("system")
    assert overall["accuracy"].round(3).to_dict() == SG
    assert (overall["n_suites"] == 31).all() and (overall["n_items"] == 799).all()
    assert ((overall["lower"] < overall["accuracy"]) & (overall["accuracy"] < overall["upper"])).all()
    # the interval of a mean of 31 independent suite means: 1.96 * sqrt(sum p(1-p)/n) / 31,
    # computed here for GPT-2* (one run) from its suite accuracies
    suites = table[(table["level"] == "suite") & (table["system"] == "GPT-2*")]
    p, n = suites["accuracy"].to_numpy(), suites["n_items"].to_numpy()
    half = 1.96 * np.sqrt(np.sum(p * (1 - p) / n)) / len(p)
    width = (overall.loc["GPT-2*", "upper"] - overall.loc["GPT-2*", "lower"]) / 2
    assert width == pytest.approx(half, rel=0.1)
    circuits = table[table["level"] == "circuits"].set_index("system")["accuracy"]
    per_circuit = table[table["level"] == "circuit"].groupby("system")["accuracy"].mean()
    pd.testing.assert_series_equal(circuits, per_circuit.loc[circuits.index], check_names=False)


def test_sg_scores_refuse_an_unknown_grouping(results):
    with pytest.raises(DataError, match="by='seed'"):
        sg_scores(results, by="seed", n_boot=0)


def test_the_published_fgd_hierarchy_outcomes_count_the_first_prediction():
    """GPT-2 holds 15 of fgd_hierarchy's 24 items in Hu et al.'s outcomes; its second
    prediction asks equal surprisals of different words in region 9 and 6, which a neural
    model does not give, so the published outcomes are of the first prediction
    (``syntaxgym_accuracy(..., combine="first")``)."""
    results = load_syntaxgym_results(need_data("syntaxgym", "hu2020_results/perplexity.csv"))
    gpt2 = results[(results["suite"] == "fgd_hierarchy")
                   & results["model"].str.startswith("gpt-2-pretrained")]
    assert (len(gpt2), int(gpt2["correct"].sum())) == (24, 15)
    ds = load_syntaxgym(need_data("syntaxgym", "suites/fgd_hierarchy.json"), suites=["fgd_hierarchy"])
    formulas = ds.sentences["predictions"].iloc[0]
    assert "=" in formulas.split('", "')[1] and "<" not in formulas.split('", "')[1]
