"""BLiMP, Zorro and Marvin & Linzen end to end through the command line: a tiny GPT-2 and
a tiny BERT (tests/scoring_fixtures.py, loaded through ``from_pretrained``) score a
slice of each benchmark, and the report shows the benchmark's sections, not LI-Adger's."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from tests.conftest import need_data, need_module

need_module("torch")
need_module("transformers")
pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

from acceptability.reports.cli import commands as cli  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")  # conftest: a cache per test
BLIMP = ["determiner_noun_agreement_1", "determiner_noun_agreement_with_adjective_1",
         "causative", "anaphor_gender_agreement", "adjunct_island"]
LI_ADGER_SECTIONS = ("Within-type variability", "BLiMP criterion and ADC", "MCC",
                     "Correlations with human judgments")


def titles(out) -> list[str]:
    return re.findall(r"^## (.+)$", (out / "report.md").read_text(), flags=re.M)


def run(*args: str) -> None:
    assert cli.main(["run", *args, "--formula", ""]) == 0


def test_blimp_slice_with_tiny_gpt2_and_bert(gpt2_dir, bert_dir, tmp_path, capsys):
    need_data("blimp")
    out = tmp_path / "blimp"
    run("--dataset", "blimp", *[a for p in BLIMP for a in ("--paradigm", p)], "--max-pairs",
        "20", "--model", f"{gpt2_dir}:logprob", "--model", f"{bert_dir}:pll", "--n-boot", "100",
        "--out", str(out))
    shown = titles(out)
    assert "Accuracy on the benchmark" in shown and "Shallow predictors of accuracy" in shown
    assert not set(LI_ADGER_SECTIONS) & set(shown)
    phen = pd.read_csv(out / "tables" / "accuracy_phenomenon.csv").set_index("phenomenon")
    assert list(phen.columns[:4]) == ["5-gram", "LSTM", "Transformer-XL", "GPT-2"]
    assert "Human" in phen and phen.index[-1] == "overall"
    # the published systems on their full paradigms, the model on its 20 pairs each
    assert phen.loc["anaphor_agreement", "5-gram"] == pytest.approx(0.439)
    model = [c for c in phen.columns if c.endswith(("_logprob", "_pll"))]
    assert len(model) == 2 and {f"{model[0]}_lower", f"{model[0]}_upper"} <= set(phen.columns)
    assert (out / "figures" / "accuracy_correlations.png").is_file()
    assert (out / "figures" / "shallow_predictors.png").is_file()
    md = (out / "report.md").read_text()
    assert model[0] in md and "Gpt20 logprob" not in md  # a model's name is shown as it is


def test_zorro_slice_with_tiny_gpt2_and_bert(gpt2_dir, bert_dir, tmp_path):
    need_data("zorro")
    out = tmp_path / "zorro"
    run("--dataset", "zorro", "--paradigm", "binding-principle_a", "--paradigm",
        "irregular-verb", "--max-pairs", "10", "--model", f"{gpt2_dir}:logprob", "--model",
        f"{bert_dir}:pll", "--n-boot", "50", "--out", str(out))
    para = pd.read_csv(out / "tables" / "accuracy_paradigm.csv")
    assert list(para["paradigm"]) == ["binding-principle_a", "irregular-verb"]
    assert "Human" not in para and len([c for c in para if c.endswith(("_logprob", "_pll"))]) == 2
    assert "Accuracy on the benchmark" in titles(out)
    assert "exact ties at random, Zorro's rule" in (out / "report.md").read_text()


def test_zorro_published_reference_scores(tmp_path):
    """--scores published on Zorro: RoBERTa-base's reference cross-entropies."""
    need_data("zorro")
    out = tmp_path / "zorro-ref"
    run("--dataset", "zorro", "--paradigm", "irregular-verb", "--scores", "published",
        "--n-boot", "0", "--out", str(out))
    para = pd.read_csv(out / "tables" / "accuracy_paradigm.csv")
    assert para.loc[0, "RoBERTa-base"] == pytest.approx(0.999)  # tests/stats/benchmarks/test_zorro.py
    assert para.loc[0, "rules"] == pytest.approx(0.884)  # tests/scoring/baselines/test_rules.py
    assert "Baselines without structure (seed 004)" in titles(out)
    base = pd.read_csv(out / "tables" / "baselines.csv").set_index("paradigm")
    assert float(base.loc["irregular-verb", "rules (seed 004)"]) == pytest.approx(0.884)
    assert base.loc["fraction >= RoBERTa-base", "rules"] == "0/1"


def test_marvin_linzen_slice_with_tiny_gpt2_and_bert(gpt2_dir, bert_dir, tmp_path):
    need_data("marvin-linzen")
    out = tmp_path / "ml"
    run("--dataset", "marvin-linzen", "--paradigm", "simple_agrmt", "--paradigm",
        "simple_reflexives", "--max-pairs", "10", "--model", f"{gpt2_dir}:logprob",
        "--model", f"{bert_dir}:pll", "--n-boot", "0", "--out", str(out))
    shown = titles(out)
    assert "Marvin & Linzen Table 1" in shown and not set(LI_ADGER_SECTIONS) & set(shown)
    table1 = pd.read_csv(out / "tables" / "ml_table1.csv")
    assert {"Simple"} <= set(table1["condition"]) and "humans (paper)" in table1
    assert table1["model"].nunique() == 2
