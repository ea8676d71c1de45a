"""``--dataset NAME`` for the multilingual sets through the command line (issue 46 item 4):
a tiny GPT-2 (tests/scoring_fixtures.py, 256 positions) scores a TurBLiMP and a CLAMS
slice with ``score``, and ``evaluate`` reads those scores back (CLAMS ``--by language``);
the accuracies are recomputed here from the scores."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.conftest import need_data, need_module

need_module("torch")
need_module("transformers")
from acceptability.reports.cli import commands as cli  # noqa: E402
from tests import scoring_fixtures as fx  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")  # conftest: a cache per test


@pytest.fixture(scope="module")
def gpt2_dir(tmp_path_factory) -> str:
    """The tiny GPT-2 with room for Turkish sentences (its English-trained byte-level
    tokenizer spends up to ~100 tokens on one)."""
    return fx.make_gpt2(tmp_path_factory.mktemp("gpt2-long"), positions=256)


def test_score_and_evaluate_dataset_turblimp(gpt2_dir, tmp_path, capsys):
    need_data("turblimp")
    scores = tmp_path / "turblimp.csv"
    picked = ["--dataset", "turblimp", "--paradigm", "binding", "--paradigm",
              "argument_structure_transitive_OSV", "--max-pairs", "3"]
    assert cli.main(["score", *picked, "--model", f"{gpt2_dir}:logprob",
                     "--out", str(scores)]) == 0
    got = pd.read_csv(scores)
    ids = {f"{p}_{k}_{side}" for p in ("binding", "argument_structure_transitive_OSV")
           for k in range(3) for side in ("good", "bad")}
    assert set(got["sentence_id"]) == ids and got["score"].notna().all()
    capsys.readouterr()
    assert cli.main(["evaluate", *picked, "--scores", str(scores), "--n-boot", "0",
                     "--out", str(tmp_path / "eval.csv")]) == 0
    table = pd.read_csv(tmp_path / "eval.csv")
    s = got.set_index("sentence_id")["score"]
    pairs = [(f"{p}_{k}_good", f"{p}_{k}_bad") for p in ("binding",
             "argument_structure_transitive_OSV") for k in range(3)]
    want = sum(s[g] > s[b] for g, b in pairs) / len(pairs)
    assert table.loc[0, "blimp"] == pytest.approx(want) and table.loc[0, "n_pairs"] == 6


def test_accuracy_per_language_of_clams(gpt2_dir, tmp_path, capsys):
    """``--by language``: the BLiMP criterion per language, recomputed from the scores."""
    need_data("clams")
    scores = tmp_path / "clams.csv"
    picked = ["--dataset", "clams", "--max-pairs", "1"]
    assert cli.main(["score", *picked, "--model", f"{gpt2_dir}:logprob",
                     "--out", str(scores)]) == 0
    assert cli.main(["evaluate", *picked, "--scores", str(scores), "--n-boot", "0",
                     "--by", "language", "--out", str(tmp_path / "eval.csv")]) == 0
    table = pd.read_csv(tmp_path / "eval.csv").set_index("language")
    s = pd.read_csv(scores).set_index("sentence_id")["score"]
    good = [i for i in s.index if i.endswith(":good")]  # "<lang>:<construction>:<k>:good"
    won = pd.Series({g: s[g] > s[g.removesuffix("good") + "bad0"] for g in good})
    by_lang = won.groupby(won.index.str.split(":").str[0])
    assert table["n_pairs"].to_dict() == by_lang.size().to_dict() == {
        "de": 7, "en": 22, "fr": 7, "he": 7, "ru": 7}  # one pair per language's paradigm
    assert table["blimp"].to_dict() == pytest.approx(by_lang.mean().to_dict())


def test_run_dataset_turblimp_shows_accuracy_per_paradigm(gpt2_dir, tmp_path):
    """The multilingual sets are benchmarks of the report (reports.benchmark.BENCHMARKS):
    accuracy per paradigm with intervals, recomputed here from the run's scores."""
    need_data("turblimp")
    out = tmp_path / "run"
    assert cli.main(["run", "--dataset", "turblimp", "--paradigm", "binding", "--paradigm",
                     "passives", "--max-pairs", "4", "--model", f"{gpt2_dir}:logprob",
                     "--n-boot", "50", "--formula", "", "--out", str(out)]) == 0
    assert "## Accuracy on the benchmark" in (out / "report.md").read_text()
    para = pd.read_csv(out / "tables" / "accuracy_paradigm.csv").set_index("paradigm")
    s = pd.read_parquet(out / "scores.parquet").set_index("sentence_id")["score"]
    model = next(c for c in para.columns if c.endswith("_logprob"))
    for paradigm in ("binding", "passives"):
        want = sum(s[f"{paradigm}_{k}_good"] > s[f"{paradigm}_{k}_bad"] for k in range(4)) / 4
        assert para.loc[paradigm, model] == pytest.approx(want)
        assert para.loc[paradigm, f"{model}_lower"] <= want <= para.loc[paradigm,
                                                                         f"{model}_upper"]
