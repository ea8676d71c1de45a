"""BLiMP forced-choice loader, per-paradigm human accuracy and Elo ratings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acceptability.data.errors import DataError
from acceptability.data.loaders.forced_choice import load_blimp_human_summary, load_blimp_trials
from acceptability.stats.benchmarks.forced_choice import (
    elo_ratings,
    fc_accuracy,
    fc_elo,
    pair_preferences,
)
from tests.conftest import DATA_DIR

BLIMP = DATA_DIR / "blimp"
needs_data = pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")


# --- a tiny raw MTurk file: 3 assignments, item 3 is the attention check -------------

def _raw_row(aid: str, worker: int, status: str, choices: list[str], english=1.0,
             native=np.nan, navtive=1.0) -> dict:
    row = {"HITId": "H1", "AssignmentId": aid, "AssignmentStatus": status,
           "SubmitTime": f"Tue Oct 08 00:3{worker}:00 PDT 2019", "Input.list": 1,
           "anonCode": worker, "Answer.english": english, "Answer.native": native,
           "Answer.navtive": navtive}
    items = [("para_a", "A good.", "A bad.", 1), ("para_a", "B good.", "B bad.", 2),
             ("attnchk", "Choose me.", "Not me.", 1), ("para_b", "C good.", "C bad.", 1),
             ("para_b", "D good.", "D bad.", 2)]
    for i, (cond, good, bad, pos) in enumerate(items, start=1):
        row[f"Input.item_{i}_condition"] = f"{cond}ans{pos}"
        row[f"Input.field_{i}_1"], row[f"Input.field_{i}_2"] = (
            (good, bad) if pos == 1 else (bad, good))
        row[f"Answer.Choice{i}"] = choices[i - 1]
    return row


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    raw = pd.DataFrame([
        _raw_row("A1", 1, "Approved", ["1. A", "2. B", "1. Choose", "1. C", "2. D"]),
        _raw_row("A2", 2, "Approved", ["2. A", "2. B", "1. Choose", np.nan, "1. D"]),
        _raw_row("A3", 3, "Rejected", ["1. A", "2. B", "2. Not", "1. C", "2. D"]),
    ])
    (tmp_path / "raw_results").mkdir()
    raw.to_csv(tmp_path / "raw_results" / "human_responses.csv", index=False)
    return tmp_path


def test_tiny_loader(tiny_dir: Path) -> None:
    t = load_blimp_trials(path=tiny_dir)
    assert list(t[["participant", "pair_id", "paradigm", "chose_good"]].columns) == [
        "participant", "pair_id", "paradigm", "chose_good"]
    assert len(t) == 7  # A1: 4 trials, A2: 3 answered; A3 failed the attention check
    assert t.groupby("participant")["chose_good"].sum().to_dict() == {"w1": 4, "w2": 1}
    assert set(t["pair_id"]) == {"para_a_fc0", "para_a_fc1", "para_b_fc0", "para_b_fc1"}
    assert not t["in_blimp"].any()
    ex = t.attrs["exclusions"].set_index("reason")["n"]
    assert ex.filter(like="attention_check_failed").item() == 4 and ex.filter(like="unanswered").item() == 1
    full = load_blimp_trials(path=tiny_dir, exclude=False)
    assert len(full) == 12 and full["chose_good"].isna().sum() == 1
    assert set(full.loc[full["assignment"] == "A3", "excluded"]) == {"attention_check_failed"}


def test_missing_column_names_file_and_column(tiny_dir: Path) -> None:
    f = tiny_dir / "raw_results" / "human_responses.csv"
    pd.read_csv(f).drop(columns=["Answer.Choice3"]).to_csv(f, index=False)
    with pytest.raises(DataError, match=r"human_responses\.csv.*Answer\.Choice3"):
        load_blimp_trials(path=tiny_dir)


# --- the real BLiMP validation data ---------------------------------------------------

@pytest.fixture(scope="module")
def trials() -> pd.DataFrame:
    return load_blimp_trials(path=BLIMP)


@needs_data
def test_trials_map_to_blimp_pairs(trials: pd.DataFrame) -> None:
    assert len(trials) == 6931 and trials["chose_good"].isin([0, 1]).all()
    pub = trials[trials["in_blimp"]]
    assert pub["paradigm"].nunique() == 67 and pub["pair_id"].nunique() == 335
    assert set(trials.loc[~trials["in_blimp"], "paradigm"]) == {
        "coordinate_structure_constraint_subject_extraction", "subject_island",
        "wh_questions_object_gap_long_distance"}
    one = pub.iloc[0]
    src = pd.read_json(BLIMP / "data" / f"{one['paradigm']}.jsonl", lines=True,
                       dtype={"pairID": str})
    row = src[one["pair_id"] == src["UID"] + "_" + src["pairID"]].iloc[0]
    assert (row["sentence_good"], row["sentence_bad"]) == (one["good_text"], one["bad_text"])
    n = trials.attrs["exclusions"].set_index("reason")["n"]
    assert n.tolist() == [36, 4, 4, 1]  # 9 + 1 + 1 assignments of 4 trials, 1 empty item


@needs_data
def test_accuracy_reproduces_human_validation_summary(trials: pd.DataFrame) -> None:
    acc = fc_accuracy(trials).merge(load_blimp_human_summary(path=BLIMP), on="paradigm")
    assert len(acc) == 69  # subject_island is not in the summary
    assert np.allclose(acc["accuracy"], acc["total_mean"], atol=1e-9, rtol=0)
    assert (acc["n_trials"] == acc["count"]).all()
    assert (acc["majority"] == acc["accepted"]).all()
    pub = acc[acc["paradigm"].isin(trials.loc[trials["in_blimp"], "paradigm"])]
    assert round(pub["accuracy"].mean(), 3) == 0.886  # section 3: "88.6% overall"
    assert round((pub["majority"] / 5).mean(), 3) == 0.964  # "96.4% overall"


def test_accuracy_hand_example() -> None:
    t = pd.DataFrame({"participant": list("abcab"), "pair_id": ["p1", "p1", "p1", "p2", "p2"],
                      "paradigm": "x", "chose_good": [1, 1, 0, 1, 1]})
    pp = pair_preferences(t).set_index("pair_id")
    assert pp.loc["p1", "prop_good"] == pytest.approx(2 / 3)
    acc = fc_accuracy(t).iloc[0]
    assert acc["accuracy"] == pytest.approx((2 / 3 + 1) / 2)
    assert acc["accuracy_trials"] == pytest.approx(4 / 5)
    assert (acc["n_trials"], acc["majority"]) == (5, 2)


# --- Elo --------------------------------------------------------------------------------

def test_elo_three_trials_by_hand() -> None:
    # K=32, start 1500. A beats B: E=0.5, A 1516, B 1484 (C 1500).
    # B beats C: E_B = 1/(1+10^(16/400)) = 0.476990, gain 16.73631: B 1500.73631, C 1483.26369.
    # C beats A: E_C = 1/(1+10^(32.73631/400)) = 0.453028, gain 17.50312: C 1500.76681,
    # A 1498.49688.
    e = elo_ratings(["A", "B", "C"], ["B", "C", "A"]).set_index("sentence_id")
    assert e["elo"].to_dict() == pytest.approx(
        {"A": 1498.49688, "B": 1500.73631, "C": 1500.76681}, abs=1e-4)
    assert e["n_trials"].tolist() == [2, 2, 2] and e["wins"].tolist() == [1, 1, 1]


matches = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)).filter(lambda m: m[0] != m[1]),
                   min_size=1, max_size=40)


@settings(max_examples=50, deadline=None)
@given(matches, st.integers(0, 3))
def test_elo_properties(ms: list[tuple[int, int]], n_orders: int) -> None:
    w = np.array([f"s{a}" for a, _ in ms])
    lo = np.array([f"s{b}" for _, b in ms])
    e = elo_ratings(w, lo, n_orders=n_orders, seed=1)
    assert e["elo"].sum() == pytest.approx(1500 * len(e))  # ratings are conserved
    flipped = elo_ratings(lo, w, n_orders=n_orders, seed=1)  # every outcome reversed
    assert np.allclose(flipped["elo"] - 1500, -(e["elo"] - 1500))
    renamed = elo_ratings(np.char.add("t", w), np.char.add("t", lo), n_orders=n_orders, seed=1)
    assert np.allclose(renamed["elo"], e["elo"])  # labels do not matter
    assert e["n_trials"].sum() == 2 * len(ms) and e["wins"].sum() == len(ms)


def test_elo_orders_are_seeded_and_averaged() -> None:
    w, lo = ["A", "A", "B", "C", "A"], ["B", "C", "C", "A", "B"]
    given_order = elo_ratings(w, lo)
    a, b = elo_ratings(w, lo, n_orders=50, seed=3), elo_ratings(w, lo, n_orders=50, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert given_order["elo_sd"].isna().all() and (a["elo_sd"] > 0).all()
    assert not np.allclose(a["elo"], given_order["elo"])
    with pytest.raises(ValueError, match="itself"):
        elo_ratings(["A"], ["A"])


def test_fc_elo_ids_and_texts() -> None:
    t = pd.DataFrame({"pair_id": ["p_0", "p_0", "p_0"], "chose_good": [1, 1, 0],
                      "good_text": "Good.", "bad_text": "Bad."})
    e = fc_elo(t).set_index("sentence_id")
    assert e.loc["p_0_good", "text"] == "Good." and e.loc["p_0_good", "wins"] == 2
    assert e.loc["p_0_good", "elo"] > 1500 > e.loc["p_0_bad", "elo"]
    with pytest.raises(ValueError, match="0 or 1"):
        fc_elo(t.assign(chose_good=[1, np.nan, 0]))
