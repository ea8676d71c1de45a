"""The training experiments' statistics on constructed cases, against hand counts,
scikit-learn's MCC and a hand computation of OLS with its t interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from sklearn.metrics import matthews_corrcoef

from acceptability.data.errors import DataError
from acceptability.stats.benchmarks.training import (
    acrobatic_sentences,
    degenerate,
    feature_mcc,
    flip_curve,
    learning_slopes,
    restart_summary,
)

LABELS = [1, 1, 0, 1, 0, 0]
RUNS = {"r0": [1, 1, 0, 0, 0, 1], "r1": [1, 1, 1, 1, 1, 1], "r2": [1, 0, 0, 1, 0, 0],
        "r3": [1, 1, 0, 1, 1, 1]}


def _predictions(splits=("dev", "test")) -> pd.DataFrame:
    rows = []
    for split in splits:
        for run, pred in RUNS.items():
            # the test split reverses each run's predictions, so its MCCs differ from dev's
            pred = pred if split == "dev" else pred[::-1]
            rows += [{"run": run, "split": split, "sentence_id": f"s{i}", "label": y,
                      "prediction": p} for i, (y, p) in enumerate(zip(LABELS, pred, strict=True))]
    return pd.DataFrame(rows)


def test_restart_summary_drops_the_constant_run():
    pred = _predictions()
    assert degenerate(pred, "dev").to_dict() == {"r0": False, "r1": True, "r2": False,
                                                 "r3": False}
    summary = restart_summary(pred, select_on="dev").set_index("split")
    assert summary.attrs["degenerate_runs"] == ["r1"]
    kept = ["r0", "r2", "r3"]
    for split in ("dev", "test"):
        runs = {r: RUNS[r] if split == "dev" else RUNS[r][::-1] for r in kept}
        mccs = np.array([matthews_corrcoef(LABELS, runs[r]) for r in kept])
        votes = (np.mean([runs[r] for r in kept], axis=0) >= 0.5).astype(int)
        row = summary.loc[split]
        assert (row["n_runs"], row["n_degenerate"]) == (3, 1)
        assert row["mean"] == pytest.approx(mccs.mean())
        assert row["sd"] == pytest.approx(mccs.std(ddof=1))
        assert row["max"] == pytest.approx(mccs.max())
        assert row["ensemble"] == pytest.approx(matthews_corrcoef(LABELS, votes))
    # r2 is best on dev (MCC 1), and "selected" is r2's MCC on each split
    assert summary.attrs["selected_run"] == "r2"
    assert summary.loc["test", "selected"] == pytest.approx(
        matthews_corrcoef(LABELS, RUNS["r2"][::-1]))


def test_all_degenerate_is_an_error():
    pred = _predictions()
    pred = pred[pred["run"] == "r1"]
    with pytest.raises(DataError, match="all 1 runs are degenerate"):
        restart_summary(pred, select_on="dev")


def test_feature_mcc_against_sklearn():
    pred = _predictions(("dev",)).assign(split="major")
    features = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(6)],
                             "text": list("abcdef"), "label": LABELS,
                             "Binding": [1, 1, 0, 1, 1, 0], "Question": [0, 1, 1, 1, 1, 1]})
    got = feature_mcc(pred, features).set_index(["run", "feature"])
    assert set(got.index.get_level_values("feature")) == {"Binding", "Question"}
    for run in RUNS:
        for feature in ("Binding", "Question"):
            on = features[feature].to_numpy() == 1
            want = matthews_corrcoef(np.array(LABELS)[on], np.array(RUNS[run])[on])
            assert got.loc[(run, feature), "n"] == on.sum()
            assert got.loc[(run, feature), "mcc"] == pytest.approx(want)


# Five sentences over four training orders; the flips, counted by hand:
#   a: 1 0 0 0 -> flips at order 2            b: 1 1 1 1 -> never
#   c: 0 0 1 0 -> flips at orders 3 and 4     d: 0 0 0 1 -> flips at order 4
#   e: 1 1 1 1 -> never (unlabelled)
ORDERS = {"a": [1, 0, 0, 0], "b": [1, 1, 1, 1], "c": [0, 0, 1, 0], "d": [0, 0, 0, 1],
          "e": [1, 1, 1, 1]}
GOLD = {"a": 1, "b": 1, "c": 0, "d": 0, "e": np.nan}


def _orders() -> pd.DataFrame:
    return pd.DataFrame([{"shuffle": k + 1, "sentence_id": s, "label": GOLD[s], "prediction": p[k]}
                         for s, p in ORDERS.items() for k in range(4)])


def test_flip_curve_counts_flips_by_hand():
    curve = flip_curve(_orders())
    assert curve["acrobatic"].tolist() == [0, 1, 2, 3]  # a at 2; c at 3; d at 4
    assert curve["acrobatic_pct"].tolist() == [0.0, 20.0, 40.0, 60.0]
    assert curve["unathletic_pct"].tolist() == [100.0, 80.0, 60.0, 40.0]
    labelled = ["a", "b", "c", "d"]
    for k in range(4):
        pred = [ORDERS[s][k] for s in labelled]
        want = matthews_corrcoef([GOLD[s] for s in labelled], pred)
        assert curve["mcc"][k] == pytest.approx(want)
    assert (curve["majority_accuracy"] == 0.5).all()
    sentences = acrobatic_sentences(_orders()).set_index("sentence_id")
    assert sentences["n_flips"].to_dict() == {"a": 1, "b": 0, "c": 2, "d": 1, "e": 0}
    assert sentences["acrobatic"].sum() == 3


def test_shuffles_must_cover_the_same_sentences():
    orders = _orders()
    orders = orders[~((orders["shuffle"] == 3) & (orders["sentence_id"] == "e"))]
    with pytest.raises(DataError, match="shuffle 3 predicts 4 of the 5 sentences"):
        flip_curve(orders)


def test_learning_slopes_by_hand():
    sizes = [2 ** k for k in (13, 14, 15, 16, 17)]
    acc = {"anaphor": [0.50, 0.58, 0.61, 0.70, 0.77], "island": [0.52, 0.50, 0.55, 0.53, 0.56]}
    curve = pd.DataFrame([{"n_tokens": n, "phenomenon": p, "accuracy": a}
                          for p, ys in acc.items() for n, a in zip(sizes, ys, strict=True)])
    got = learning_slopes(curve).set_index("phenomenon")
    x = np.log2(np.array(sizes, float))
    acc["overall"] = list(np.mean([acc["anaphor"], acc["island"]], axis=0))
    for phen, ys in acc.items():
        y = np.array(ys)
        sxx = ((x - x.mean()) ** 2).sum()
        slope = ((x - x.mean()) * (y - y.mean())).sum() / sxx
        resid = y - y.mean() - slope * (x - x.mean())
        se = np.sqrt((resid ** 2).sum() / 3 / sxx)
        half = sps.t.ppf(0.975, 3) * se
        row = got.loc[phen]
        assert row["slope"] == pytest.approx(slope, abs=1e-12)
        assert row["se"] == pytest.approx(se, abs=1e-12)
        assert (row["lower"], row["upper"]) == pytest.approx((slope - half, slope + half),
                                                             abs=1e-12)
    assert got.loc["anaphor", "slope"] == pytest.approx(0.066, abs=1e-12)  # 0.66 / 10
    with pytest.raises(DataError, match="needs 3 or more sizes"):
        learning_slopes(curve[curve["n_tokens"] <= 2 ** 14])
