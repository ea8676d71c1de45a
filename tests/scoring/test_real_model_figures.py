"""The real-model figures the README and the docs state are what
benchmarks/bench_real_models.py wrote in one run (docs/speed/real_models.csv and, with
``--blimp``, real_models_blimp.csv): the speed table of docs/scoring-speed.md, the README's
sentence, and the start token's BLiMP accuracies in docs/scoring.md (issue 42, items 8, 11)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
SPEED = ROOT / "docs" / "speed" / "real_models.csv"
BLIMP = ROOT / "docs" / "speed" / "real_models_blimp.csv"


def speed_table(rows: pd.DataFrame) -> str:
    lines = ["| model | dtype | batch | acceptability (sent/s) | plain loop (sent/s) "
             "| minicons (sent/s) | ours / loop | ours / minicons |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows.itertuples():
        lines.append(f"| {r.model} | {r.dtype} | {r.batch_size} | {r.ours_sent_per_s:.3g} | "
                     f"{r.loop_sent_per_s:.3g} | {r.minicons_sent_per_s:.3g} | "
                     f"{r.ours_vs_loop:.2f}× | {r.ours_vs_minicons:.2f}× |")
    return "\n".join(lines)


def readme_sentence(rows: pd.DataFrame) -> str:
    sizes = sorted(set(rows["batch_size"]))
    return (f"on {rows['sentences'].iloc[0]} distinct BLiMP sentences, SmolLM2-135M-Instruct "
            f"and Gemma-3-270M score {rows['ours_vs_loop'].min():.2f} to "
            f"{rows['ours_vs_loop'].max():.2f} times as fast as a plain transformers loop and "
            f"{rows['ours_vs_minicons'].min():.2f} to {rows['ours_vs_minicons'].max():.2f} times "
            f"as fast as minicons 0.3.39, in float32 and bfloat16 at batch sizes "
            f"{', '.join(map(str, sizes[:-1]))} and {sizes[-1]}")


def blimp_sentence(rows: pd.DataFrame) -> str:
    by = rows.set_index(["model", "start_token"])
    smol, gemma = by.loc["SmolLM2-135M-Instruct"], by.loc["Gemma-3-270M"]
    return (f"SmolLM2-135M-Instruct scores {smol.loc['bos', 'accuracy']:.3f} after its BOS "
            f"`{smol.loc['bos', 'token']}` and {smol.loc['eos', 'accuracy']:.3f} after "
            f"`{smol.loc['eos', 'token']}` (anaphor_gender_agreement "
            f"{smol.loc['bos', 'anaphor_gender_agreement']:.3f} → "
            f"{smol.loc['eos', 'anaphor_gender_agreement']:.3f}, "
            f"regular_plural_subject_verb_agreement_1 "
            f"{smol.loc['bos', 'regular_plural_subject_verb_agreement_1']:.3f} → "
            f"{smol.loc['eos', 'regular_plural_subject_verb_agreement_1']:.3f}); Gemma-3-270M "
            f"{gemma.loc['bos', 'accuracy']:.3f} after `{gemma.loc['bos', 'token']}` and "
            f"{gemma.loc['eos', 'accuracy']:.3f} after `{gemma.loc['eos', 'token']}`")


def test_the_speed_page_and_the_readme_show_the_benchmark_run():
    rows = pd.read_csv(SPEED)
    assert set(rows["model"]) == {"SmolLM2-135M-Instruct", "Gemma-3-270M"}
    assert set(rows["dtype"]) == {"float32", "bfloat16"}
    assert (rows["ours_vs_loop"] >= 1).all(), rows  # never slower than the plain loop
    page = (ROOT / "docs" / "scoring-speed.md").read_text()
    assert speed_table(rows) in page
    bf16 = rows.loc[rows["dtype"] == "bfloat16", "max_abs_diff_loop"].max()
    assert f"from the loop's by up to {bf16:.2f} nats" in " ".join(page.split())
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert readme_sentence(rows) in readme


def test_the_start_token_accuracies_in_the_docs_are_the_runs():
    rows = pd.read_csv(BLIMP)
    assert set(rows["pairs"]) == {1000}  # the first 200 of five paradigms
    page = " ".join((ROOT / "docs" / "scoring.md").read_text().split())
    assert blimp_sentence(rows) in page
