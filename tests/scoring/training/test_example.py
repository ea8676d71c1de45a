"""The training example of docs/training.md (the site's "Training" page): its tables and
numbers are what the example's results (docs/training/, written by `acceptability
learning-curve --config examples/learning_curve.toml` and `acceptability training-order
--config examples/training_order.toml` on this repository's CPU) give, and those results
are consistent with the package's statistics recomputed from their raw rows."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from acceptability.reports.cli.training_experiments import curve_slopes
from acceptability.stats.benchmarks.training import acrobatic_sentences, flip_curve

ROOT = Path(__file__).resolve().parents[3]
RESULTS = ROOT / "docs" / "training"
PAGE = (ROOT / "docs" / "training.md").read_text()


def _curve() -> pd.DataFrame:
    return pd.read_csv(RESULTS / "curve.csv")


def _predictions() -> pd.DataFrame:
    return pd.read_csv(RESULTS / "predictions.csv.gz", dtype={"sentence_id": str})


def learning_curve_table(curve: pd.DataFrame, slopes: pd.DataFrame) -> str:
    """The page's table: mean accuracy over phenomena (percent) per training size and
    the overall slope per doubling (points) with its 95% interval."""
    final = curve[curve["final"]]
    means = final.groupby(["benchmark", "n_words"])["accuracy"].mean().unstack()
    sizes = [f"{n / 1000:g}k words" for n in means.columns]
    lines = ["| benchmark | " + " | ".join(sizes) + " | slope per doubling [95% CI] |",
             "| --- |" + " --- |" * (len(sizes) + 1)]
    overall = slopes[slopes["phenomenon"] == "overall"].set_index("benchmark")
    for name in dict.fromkeys(final["benchmark"]):
        s = overall.loc[name]
        cells = [f"{100 * v:.1f}" for v in means.loc[name]]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {100 * s['slope']:+.2f} "
                     f"[{100 * s['lower']:+.2f}, {100 * s['upper']:+.2f}] |")
    return "\n".join(lines)


def extremes(slopes: pd.DataFrame) -> str:
    """The page's sentence on the steepest and shallowest phenomena per benchmark."""
    parts = []
    for name, part in slopes[slopes["phenomenon"] != "overall"].groupby("benchmark", sort=False):
        part = part.sort_values("slope", ascending=False)
        top, low = part.iloc[0], part.iloc[-1]
        parts.append(f"{name}: steepest {top['phenomenon']} ({100 * top['slope']:+.2f}), "
                     f"shallowest {low['phenomenon']} ({100 * low['slope']:+.2f})")
    return "; ".join(parts)


def flips_table(curve: pd.DataFrame, n_sentences: int) -> str:
    """The page's table: flipped sentences and MCC after each training order."""
    head = "| training orders | " + " | ".join(map(str, curve["n_shuffles"])) + " |"
    rows = [head, "| --- |" + " --- |" * len(curve),
            "| sentences flipped so far | " + " | ".join(map(str, curve["acrobatic"])) + " |",
            "| percent of the " + f"{n_sentences:,}" + " | "
            + " | ".join(f"{v:.1f}" for v in curve["acrobatic_pct"]) + " |",
            "| MCC of this order | " + " | ".join(f"{v:.3f}" for v in curve["mcc"]) + " |"]
    return "\n".join(rows)


def test_the_slopes_are_recomputed_from_the_curve():
    curve = _curve()
    pd.testing.assert_frame_equal(curve_slopes(curve), pd.read_csv(RESULTS / "slopes.csv"),
                                  check_exact=False, rtol=0, atol=1e-12)


def test_the_flips_are_recomputed_from_the_predictions():
    pred = _predictions()
    pd.testing.assert_frame_equal(flip_curve(pred), pd.read_csv(RESULTS / "flips.csv"),
                                  check_exact=False, rtol=0, atol=1e-12)
    sentences = acrobatic_sentences(pred)
    assert sentences["acrobatic"].sum() == flip_curve(pred)["acrobatic"].iloc[-1]
    assert pred.groupby("shuffle").size().tolist() == [4178] * 10


def test_the_page_shows_these_results():
    curve = _curve()
    slopes = pd.read_csv(RESULTS / "slopes.csv")
    assert learning_curve_table(curve, slopes) in PAGE
    assert extremes(slopes) in PAGE
    each = slopes[slopes["phenomenon"] != "overall"]
    away = each[(each["lower"] > 0) | (each["upper"] < 0)]
    assert away.groupby("benchmark")["phenomenon"].apply(sorted).to_dict() == {
        "blimp": ["irregular_forms"],
        "zorro": ["agreement_determiner_noun", "anaphor_agreement", "local_attractor"]}
    assert (away.set_index("phenomenon")["slope"] < 0).to_dict()["anaphor_agreement"]
    flips = pd.read_csv(RESULTS / "flips.csv")
    assert flips_table(flips, 4178) in PAGE
    pred = _predictions()
    assert pred.groupby("shuffle")["prediction"].mean().min() >= 0.995
    assert f"{100 * flips['majority_accuracy'].iloc[0]:.1f}%" == "51.4%"
    assert (flips["accuracy"].round(3) <= 0.516).all()
    assert "only 39 sentences (0.9%) flip" in PAGE


def test_the_example_models_are_what_the_page_says():
    from transformers import AutoModelForCausalLM, GPT2Config

    records = sorted(RESULTS.glob("lm-*.json"))
    assert [json.loads(p.read_text())["n_words"] for p in records] == sorted(
        json.loads(p.read_text())["n_words"] for p in records)
    record = json.loads(records[0].read_text())
    assert record["dtype"] == "bfloat16" and record["epochs"] == 5
    model = AutoModelForCausalLM.from_config(GPT2Config(**record["config"]))
    assert sum(p.numel() for p in model.parameters()) / 1e6 == pytest.approx(1.3, abs=0.05)
