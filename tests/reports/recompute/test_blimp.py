"""The BLiMP report (``acceptability run --dataset blimp``, three subject-verb agreement
paradigms, their first 200 pairs, scored by a tiny GPT-2 and a tiny classifier), every
table recomputed from BLiMP's files: data/*.jsonl (pairs), raw_results/human_responses.csv
(the raw MTurk forced-choice responses, parsed here), raw_results/models_summary.jsonl
(published accuracies), and the scores the run wrote (scores.parquet: scoring itself is
tested elsewhere)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.conftest import need_data
from tests.reports.recompute import benchmarks as bm
from tests.reports.recompute import independent as ind
from tests.reports.recompute.conftest import BLIMP_PAIRS, BLIMP_PARADIGMS

pytestmark = pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")
PUBLISHED = {"ngram": "5-gram", "lstm": "LSTM", "txl": "Transformer-XL", "gpt2": "GPT-2"}
# Seed 004 Table 5 (../shared/seeds/004_087249730e2e6d66.txt): BabyBERTa, 5-gram word,
# 5-gram tag, oracle, linear rule, in percent.
SEED_004_TABLE_5 = {"distractor_agreement_relational_noun": (29, 26.2, 21.4, 42.1, 50.25),
                    "distractor_agreement_relative_clause": (35.6, 28.3, 30.4, 49.8, 55.85),
                    "regular_plural_subject_verb_agreement_1": (68.8, 39.9, 51.1, 72, 64.35)}
ATTENTION = "attnchk"


def words(text: str) -> list[str]:
    """BLiMP words: whitespace tokens with sentence punctuation stripped."""
    return [w for w in (t.strip(".?!,;:\"") for t in text.split()) if w]


# Seed 004 Table 6: "*Is the shorter/longer of the two sentences" (in characters; equal
# lengths decide nothing) and "The number of words that ends in s is odd".
RULES: dict[str, bm.Rule] = {
    "regular_plural_subject_verb_agreement_1": lambda s, other: len(s) < len(other),
    "distractor_agreement_relational_noun": lambda s, other: len(s) > len(other),
    "distractor_agreement_relative_clause":
        lambda s, other: sum(w.endswith("s") for w in words(s)) % 2 == 1,
}


def human_trials(folder, pairs: pd.DataFrame) -> pd.DataFrame:
    """BLiMP's validation (sec. 3): five items per HIT, one an attention check. An
    assignment is left out when it failed the attention check (or left it unanswered),
    was rejected on MTurk, or answered 0 to both language questions with the third
    empty (not a self-reported native speaker); unanswered items are left out. Per pair
    of ``pairs`` (matched on paradigm and texts): trials ``n`` and ``correct``."""
    raw = pd.read_csv(folder / "raw_results" / "human_responses.csv")
    items = []
    for i in range(1, 6):
        condition = raw[f"Input.item_{i}_condition"].astype(str)
        first_good = condition.str.endswith("ans1")
        text_1, text_2 = raw[f"Input.field_{i}_1"], raw[f"Input.field_{i}_2"]
        choice = raw[f"Answer.Choice{i}"].astype(str).str.extract(r"^\s*([12])\.")[0]
        items.append(pd.DataFrame({
            "assignment": raw["AssignmentId"], "paradigm": condition.str[:-4],
            "good": text_1.where(first_good, text_2), "bad": text_2.where(first_good, text_1),
            "answered": choice.notna(),
            "chose_good": choice.astype(float) == np.where(first_good, 1.0, 2.0)}))
    long = pd.concat(items, ignore_index=True)
    check = long[long["paradigm"] == ATTENTION]
    passed = set(check.groupby("assignment")["chose_good"].all().loc[lambda s: s].index)
    ineligible = raw["Answer.english"].eq(0) & raw["Answer.native"].eq(0) & raw[
        "Answer.navtive"].isna()
    excluded = set(raw.loc[raw["AssignmentStatus"].eq("Rejected") | ineligible,
                           "AssignmentId"]) | (set(raw["AssignmentId"]) - passed)
    trials = long[~long["assignment"].isin(excluded) & long["answered"]
                  & long["paradigm"].isin(BLIMP_PARADIGMS)]
    per = trials.groupby(["paradigm", "good", "bad"])["chose_good"].agg(n="size", correct="sum")
    per = per.reset_index()
    keys = pairs.set_index(["paradigm", "good", "bad"]).index
    assert keys.get_indexer(pd.MultiIndex.from_frame(per[["paradigm", "good", "bad"]])).min() >= 0
    return per


@pytest.fixture(scope="module")
def bench(blimp_report) -> bm.Bench:
    folder = need_data("blimp")
    frames = [pd.read_json(folder / "data" / f"{p}.jsonl", lines=True, dtype={"pairID": str})
              for p in BLIMP_PARADIGMS]
    first = pd.concat([f.head(BLIMP_PAIRS) for f in frames], ignore_index=True)
    pair_id = first["UID"] + "_" + first["pairID"]
    assert set(first["linguistics_term"]) == {"subject_verb_agreement"}  # = the phenomenon
    pairs = pd.DataFrame({"paradigm": first["UID"], "phenomenon": first["linguistics_term"],
                          "good": first["sentence_good"], "bad": first["sentence_bad"],
                          "good_id": pair_id + "_good", "bad_id": pair_id + "_bad"})
    scores = pd.read_parquet(blimp_report / "scores.parquet")
    by_model = {m: s.set_index("sentence_id")["score"] for m, s in
                scores.groupby("model", sort=False)}
    assert list(by_model) == ["gpt2_logprob", "cls_classifier"]
    summary = pd.read_json(folder / "raw_results" / "models_summary.jsonl", lines=True)
    summary = summary[summary["UID"].isin(BLIMP_PARADIGMS)].drop_duplicates("UID")
    published = {name: dict(zip(summary["UID"], summary[key], strict=True))
                 for key, name in PUBLISHED.items()}
    human = human_trials(folder, pairs)
    return bm.Bench(pairs, by_model, {"cls_classifier"}, published, human,
                    sum(len(f) for f in frames))


@pytest.fixture(scope="module")
def tables(blimp_report) -> dict[str, pd.DataFrame]:
    return ind.read_tables(blimp_report)


@pytest.fixture(scope="module")
def rates(bench) -> dict[str, pd.DataFrame]:
    return bm.pair_rates(bench, RULES)


def test_the_report_writes_the_tables_this_module_checks(tables):
    assert set(tables) == {"data_summary", "exclusions", "counts", "accuracy_phenomenon",
                           "accuracy_paradigm", "contrasts", "baselines", "comparisons",
                           "evaluation", "evaluation_by_paradigm"}


def test_our_human_parse_gives_the_published_summary(bench):
    """Our parse of the raw responses gives BLiMP's human_validation_summary.csv: its
    ``count`` (trials per paradigm) and ``total_mean`` (the mean over the paradigm's 5
    pairs of each pair's share of correct trials)."""
    summary = pd.read_csv(need_data("blimp") / "raw_results" / "human_validation_summary.csv")
    summary = summary.set_index("Condition").loc[list(BLIMP_PARADIGMS)]
    h = bench.human.assign(share=bench.human["correct"] / bench.human["n"])
    per = h.groupby("paradigm").agg(n=("n", "sum"), share=("share", "mean"), pairs=("n", "size"))
    per = per.loc[list(BLIMP_PARADIGMS)]
    ind.assert_close(per["n"], summary["count"], "human trials per paradigm")
    ind.assert_close(per["share"], summary["total_mean"], "human accuracy", atol=1e-12)
    assert (per["pairs"] == 5).all()


def test_data_summary(tables, bench):
    bm.check_data_summary(tables["data_summary"], bench, "blimp")


def test_exclusions(tables, bench):
    bm.check_exclusions(tables["exclusions"], bench, bench.pairs_in_files)


def test_counts(tables, bench):
    bm.check_counts(tables, bench)


def test_accuracy_tables(tables, bench, rates):
    bm.check_accuracy_tables(tables, bench, rates)


def test_contrasts(tables, bench, rates):
    """BLiMP sec. 6.1: agreement without an attractor (regular_plural_subject_verb_
    agreement_1) against with one in a relative clause, in a relational noun, and either
    (the mean of the two), per system, in the report's unit (proportions)."""
    acc = bm.accuracies(bench, rates)
    first = acc.loc["regular_plural_subject_verb_agreement_1"]
    second = {"relative clause": acc.loc["distractor_agreement_relative_clause"],
              "relational noun": acc.loc["distractor_agreement_relational_noun"]}
    second["either"] = (second["relative clause"] + second["relational noun"]) / 2
    rows = [{"contrast": f"attractor, {k} (6.1)", "system": s, "first": first[s],
             "second": v[s], "difference": first[s] - v[s]}
            for k, v in second.items() for s in acc.columns]
    expected = pd.DataFrame(rows)
    t = tables["contrasts"]
    assert t[["contrast", "system"]].values.tolist() == expected[["contrast", "system"]
                                                                 ].values.tolist()
    numbers = [c for c in t.columns if c not in ("contrast", "system")]
    assert len(numbers) == 3, f"contrasts: columns {numbers}, expected first, second, difference"
    for col, ours in zip(numbers, ("first", "second", "difference"), strict=True):
        ind.assert_close(t[col], expected[ours], f"contrasts {col}", atol=1e-12)


def test_baselines(tables, bench, rates):
    bm.check_baselines(tables["baselines"], bm.accuracies(bench, rates), "gpt2_logprob",
                       SEED_004_TABLE_5)


def test_comparisons(tables, bench, blimp_report):
    bm.check_comparisons(tables["comparisons"], bench, blimp_report)


def test_evaluation(tables, bench, blimp_report):
    bm.check_evaluation(tables, bench, "paradigm", blimp_report)


def test_markdown_prints_the_csv_numbers(tables, blimp_report):
    ind.assert_markdown_matches(blimp_report, tables)
