"""The speed and bfloat16 tables of docs/scoring-speed.md (the site's "Scoring speed and
precision" page) are what `benchmarks/bench_scoring.py --out
docs/speed` wrote in one run on this repository's CPU (timings are that run's; the
agreement numbers are deterministic given the models)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "speed"
PAGE = (ROOT / "docs" / "scoring-speed.md").read_text()


def throughput_table(rows: pd.DataFrame) -> str:
    """Sentences per second, ours and minicons', per method and dtype."""
    lines = ["| method | dtype | acceptability (sent/s) | minicons (sent/s) | ratio "
             "| max abs. diff from minicons |", "| --- | --- | --- | --- | --- | --- |"]
    for r in rows.itertuples():
        theirs = ("– | – | –" if pd.isna(r.minicons_sent_per_s)  # minicons has no such method
                  else f"{r.minicons_sent_per_s:.3g} | {r.speedup:.2f}× | {r.max_abs_diff:.2g}")
        lines.append(f"| {r.method} | {r.dtype} | {r.ours_sent_per_s:.3g} | {theirs} |")
    return "\n".join(lines)


def agreement_table(rows: pd.DataFrame) -> str:
    """bfloat16 against float32 scores of the same model: sentences and BLiMP verdicts."""
    lines = ["| model | method | Pearson r | max abs. diff | BLiMP pairs | verdicts changed "
             "| pairs whose float32 difference is below the bfloat16 error |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows.itertuples():
        lines.append(f"| {r.model} | {r.method} | {r.pearson_r:.7f} | {r.max_abs_diff:.3f} | "
                     f"{r.blimp_pairs:,} | {r.verdicts_changed} ({100 * r.changed_share:.2f}%) | "
                     f"{r.pairs_delta_below_bf16_error} |")
    return "\n".join(lines)


def recheck_table(rows: pd.DataFrame) -> str:
    """bfloat16 with the float32 recheck of close pairs: what it rescored, verdicts, time."""
    lines = ["| model | method | pairs rechecked | sentences rescored | margin | verdicts changed "
             "| float32 (s) | bfloat16 (s) | bfloat16 + recheck (s) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows.itertuples():
        lines.append(f"| {r.model} | {r.method} | {r.recheck_pairs:,} "
                     f"({100 * r.recheck_pairs / r.blimp_pairs:.1f}%) | {r.recheck_sentences:,} | "
                     f"{r.recheck_margin:.3f} | {r.verdicts_changed_recheck} | "
                     f"{r.blimp_seconds_fp32:.0f} | {r.blimp_seconds_bf16:.0f} | "
                     f"{r.blimp_seconds_recheck:.0f} |")
    return "\n".join(lines)


def test_the_page_shows_the_benchmark_run():
    rows = pd.read_csv(RESULTS / "throughput.csv")
    first = rows[rows["run"] == 1]
    assert set(first["sentences"]) == {4178}  # all of LI-Adger
    assert throughput_table(first) in PAGE
    agreement = pd.read_csv(RESULTS / "agreement.csv")
    assert agreement_table(agreement) in PAGE
    assert recheck_table(agreement) in PAGE
    for method, part in rows.groupby("method"):
        fp32, bf16 = (part.set_index("dtype").loc[d, "ours_sent_per_s"] for d in ("float32", "bfloat16"))
        assert f"{method} {bf16 / fp32:.2f}×" in PAGE
    pll = rows[rows["method"] == "pll"].set_index("dtype")
    ratio = pll.loc["bfloat16", "ours_sent_per_s"] / pll.loc["float32", "ours_sent_per_s"]
    assert f"bfloat16 PLL is\n{ratio:.2f}× float32 in the run above" in PAGE
    assert f"{pll.loc['bfloat16', 'speedup']:.2f}× minicons in\nbfloat16" in PAGE


def test_the_page_shows_the_issue_33_run():
    """Rows for issue 33's methods, appended by a second run (`--run 2 --append`) on another,
    loaded CPU: a sample of distinct LI-Adger sentences, its CPU named on the page."""
    rows = pd.read_csv(RESULTS / "throughput.csv")
    assert set(rows["run"]) == {1, 2}
    second = rows[rows["run"] == 2]
    assert set(second["method"]) == {"seq2seq", "seq2seq_pll", "mntp", "words_sum", "words_corrected"}
    assert set(second["sentences"]) == {500}
    assert throughput_table(second) in PAGE
    (cpu,) = set(second["cpu"])
    text = " ".join(PAGE.split())
    assert cpu in text
    has_minicons = second["minicons_sent_per_s"].notna()
    assert set(second.loc[has_minicons, "method"]) == {"seq2seq", "words_sum"}  # the rest: none
    for r in second[has_minicons].itertuples():
        assert f"{r.method} {r.dtype} {r.speedup:.2f}×" in text


def test_the_agreement_counts_are_consistent():
    agreement = pd.read_csv(RESULTS / "agreement.csv")
    assert (agreement["verdicts_changed"] <= agreement["pairs_delta_below_bf16_error"]).all()
    changed = (agreement["changed_share"] * agreement["blimp_pairs"]).round().astype(int)
    assert (changed == agreement["verdicts_changed"]).all()
    fragile = agreement["pairs_delta_below_bf16_error"].sum()
    assert f"and {changed.sum()} of the {fragile} such pairs here do" in PAGE
    share = {trained: [f"{100 * v:.2f}%" for v in part["changed_share"]]
             for trained, part in agreement.groupby(agreement["model"].str.startswith("trained"))}
    said = (f"the trained models stay below it ({' and '.join(share[True])}), the random ones do not "
            f"({' and '.join(share[False])})")
    assert said in " ".join(PAGE.split())
    assert (agreement["changed_share"] <= 0.005).tolist() == agreement["model"].str.startswith("trained").tolist()
    rounded = [str(n) for n in agreement["verdicts_changed_rounded_logits"]]
    said = f"the verdicts changed are {', '.join(rounded[:-1])}\nand {rounded[-1]} in the table's order"
    assert said in PAGE
    weights = [str(n) for n in agreement["verdicts_changed_rounded_weights"]]
    said = f"weights rounded to bfloat16 changes {', '.join(weights[:-1])}\nand {weights[-1]} verdicts"
    assert said in PAGE


def test_the_recheck_changes_no_verdict_and_the_page_says_what_it_cost():
    agreement = pd.read_csv(RESULTS / "agreement.csv")
    assert (agreement["verdicts_changed_recheck"] == 0).all()
    assert (agreement["recheck_sentences"] <= 2 * agreement["recheck_pairs"]).all()
    text = " ".join(PAGE.split())
    assert "With the recheck no verdict changed on any of the four models." in text
    random = agreement[~agreement["model"].str.startswith("trained")].set_index("method")
    shares = " and ".join(f"{100 * v:.1f}%" for v in random["recheck_pairs"] / random["blimp_pairs"])
    assert f"It rescored {shares} of the random models' pairs" in text
    faster = random["blimp_seconds_fp32"] / random["blimp_seconds_recheck"]
    assert f"still ran {faster['pll']:.1f}× (PLL) and {faster['logprob']:.1f}× (logprob) faster" in text
    trained = agreement[agreement["model"].str.startswith("trained")]
    assert (trained["blimp_seconds_fp32"] / trained["blimp_seconds_bf16"] < 2).all()  # "little or nothing"


def test_the_page_says_whether_a_gpu_run_was_recorded():
    """docs/speed/gpu.csv comes only from `bench_scoring.py --device cuda` on a GPU (issue
    34): while there is none the page says so, and once there is, it names the card."""
    gpu = RESULTS / "gpu.csv"
    text = " ".join(PAGE.split())
    if not gpu.is_file():
        assert "No GPU run has been recorded yet" in text
        return
    rows = pd.read_csv(gpu)
    assert list(rows.columns) == ["card", "model", "method", "dtype", "batch_tokens", "ours_sent_per_s",
                                  "minicons_sent_per_s", "share_of_peak", "bf16_vs_fp32"]
    assert "No GPU run has been recorded yet" not in text
    assert all(card in text for card in set(rows["card"]))


def test_the_page_explains_bfloat16_pll_from_the_profile_run():
    """Where PLL's time goes: `benchmarks/profile_scoring.py --out docs/speed`."""
    parts = pd.read_csv(RESULTS / "profile.csv").set_index(["dtype", "part"])
    fp32, bf16 = parts.loc["float32"], parts.loc["bfloat16"]
    linear = "linear layers"
    assert f"take {100 * fp32.loc[linear, 'share']:.1f}% of it" in PAGE
    assert f"at {fp32.loc[linear, 'gflops']:.0f} GFLOP/s" in PAGE
    assert f"{fp32.loc[linear, 'seconds'] / bf16.loc[linear, 'seconds']:.1f}× faster, at " \
           f"{round(bf16.loc[linear, 'gflops'], -1):.0f} GFLOP/s" in PAGE
    assert f"({100 * bf16.loc['attention', 'share']:.1f}% of bfloat16's time)" in PAGE
    gains = [fp32.loc[p, "seconds"] / bf16.loc[p, "seconds"] for p in ("attention", "layer norm", "other")]
    assert f"gain only {min(gains):.1f}-{max(gains):.1f}×" in PAGE
    assert max(gains) < fp32.loc[linear, "seconds"] / bf16.loc[linear, "seconds"]


def test_the_readme_scale_numbers_are_the_benchmark_run():
    """The README's `evaluate`-at-scale sentence is docs/speed/scale.csv (written by
    `benchmarks/bench_scale.py --full --out docs/speed/scale.csv`), at its precision."""
    rows = pd.read_csv(RESULTS / "scale.csv").set_index(["scale", "n_boot"])
    big, one = rows.loc[(100, 10000)], rows.loc[(1, 10000)]
    readme = " ".join((ROOT / "README.md").read_text().split())
    said = (f"({big['sentences']:,} sentences, {big['pairs']:,} pairs, 8 models) with 10,000 "
            f"cluster-bootstrap resamples takes {big['now s']:.1f} s ({big['before s']:.1f} s "
            f"before issue 30); the whole job in a fresh process takes "
            f"{big['now process s'] / one['now process s']:.1f} times as long as for LI-Adger "
            f"itself ({big['before process s'] / one['before process s']:.1f} times before), "
            f"the `evaluate` call alone {big['now s'] / one['now s']:.1f} times.")
    assert said in readme
    assert rows["cpu"].iloc[0] in readme
