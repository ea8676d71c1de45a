"""The SyntaxGym report (``acceptability run --dataset syntaxgym --suite number_prep --suite
fgd_hierarchy --model <tiny GPT-2>``), every table recomputed here from the raw suite JSON
files, the per-token scores the run wrote (tokens.parquet) and, for the paper's models, Hu
et al.'s raw per-item results (hu2020_results/*.csv).

Written here: each sentence (the regions' contents stripped and joined by single spaces,
empty regions skipped: syntaxgym-core's ``iter_sentences``), each token's region (the
tokenizer's own character offsets; a token belongs to the region holding its first
non-space character, a space-only token to the next one), region surprisal = the sum of
-log2 P of its tokens, the two suites' prediction formulas written out as Python, an item
correct when all its suite's predictions hold, accuracies as means, and intervals from our
own bootstrap of items within suites (``independent.paradigm_draws``). The paper's models:
the exclusions and the n-gram majority vote of the authors' ``notebooks/main.py`` (commit
43f1f86), each model's runs pooled per item."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import need_data
from tests.reports.recompute import independent as ind
from tests.reports.recompute.conftest import (
    MAX_POSITIONS,
    N_BOOT,
    OUR_BOOT,
    OUR_SEED,
    cli,
    once,
    one_thread,
    tiny,
)

pytestmark = pytest.mark.needs_data("syntaxgym")
SUITES = ("number_prep", "fgd_hierarchy")
MODEL = "gpt2_logprob"
PUBLISHED = " (Hu et al. 2020)"
# Hu et al.'s circuits of the two suites (their notebooks/main.py, `circuits`)
CIRCUIT = {"number_prep": "Agreement", "fgd_hierarchy": "Long-Distance Dependencies"}


def equal(a: float, b: float) -> bool:
    """syntaxgym-core's "=": within an absolute 1e-3 plus a relative 1e-5 (np.isclose)."""
    return abs(a - b) <= 1e-3 + 1e-5 * abs(b)


# The suites' predictions as their JSON files write them (a trailing space included), and
# the same formulas in Python:
# s[(condition, region)] is a region's surprisal in bits.
FORMULAS = {
    "number_prep": [(
        "[(6;%match_sing%) < (6;%mismatch_sing%)] & [(6;%match_plural%) < "
        "(6;%mismatch_plural%)]",
        lambda s: s["match_sing", 6] < s["mismatch_sing", 6]
        and s["match_plural", 6] < s["mismatch_plural", 6])],
    "fgd_hierarchy": [
        ("[(6;%what_nogap%) >  (6;%that_nogap%)] & [(6;%what_subjgap%) <  "
         "(6;%that_subjgap%)]",
         lambda s: s["what_nogap", 6] > s["that_nogap", 6]
         and s["what_subjgap", 6] < s["that_subjgap", 6]),
        ("[(9;%what_nogap%) =  (9;%that_nogap%)]& [(6;%what_subjgap%) =  (6;%that_subjgap%)] ",
         lambda s: equal(s["what_nogap", 9], s["that_nogap", 9])
         and equal(s["what_subjgap", 6], s["that_subjgap", 6]))],
}
# notebooks/main.py: the models the paper drops, the word-level models whose BPE runs it
# drops, the model whose runs differ only in tie-breaking, and the paper's model names
DROPPED = ("1gram", "ngram-no-rand")
WORD_LEVEL = ("ngram", "ordered-neurons", "vanilla", "rnng")
NAMES = {"vanilla": "LSTM", "ordered-neurons": "ON-LSTM", "rnng": "RNNG", "ngram": "n-gram",
         "gpt-2": "GPT-2", "gpt-2-pretrained": "GPT-2*", "gpt-2-xl-pretrained": "GPT-2-XL*",
         "transformer-xl": "Transformer-XL*", "grnn": "GRNN*", "jrnn": "JRNN*"}


@pytest.fixture(scope="module")
def gpt2(tmp_path_factory) -> str:
    return tiny(tmp_path_factory, "guard-syntaxgym-model", MAX_POSITIONS, gpt2="gpt2")["gpt2"]


@pytest.fixture(scope="module")
def report(tmp_path_factory, gpt2) -> Path:
    suites = [a for s in SUITES for a in ("--suite", s)]

    def build(out: Path) -> None:
        with one_thread():
            cli("run", "--dataset", "syntaxgym", *suites, "--model", f"{gpt2}:logprob",
                "--n-boot", str(N_BOOT), "--out", str(out))
    return once(tmp_path_factory, "syntaxgym", build)


def suite_rows(suite: str) -> list[dict]:
    """Each item and condition of a raw suite file: its sentence and region spans."""
    raw = json.loads((need_data("syntaxgym") / "suites" / f"{suite}.json").read_text())
    rows = []
    for item in raw["items"]:
        for cond in item["conditions"]:
            text, spans = "", {}
            for region in cond["regions"]:
                piece = region["content"].strip()
                if piece and text:
                    text += " "
                spans[region["region_number"]] = (len(text), len(text) + len(piece))
                text += piece
            rows.append({"suite": suite, "item": item["item_number"],
                         "condition": cond["condition_name"], "text": text, "spans": spans,
                         "sentence_id": f"{suite}:{item['item_number']}:{cond['condition_name']}"})
    assert [p["formula"] for p in raw["predictions"]] == [f for f, _ in FORMULAS[suite]]
    return rows


@pytest.fixture(scope="module")
def sentences() -> pd.DataFrame:
    return pd.DataFrame([r for s in SUITES for r in suite_rows(s)])


def region_of(text: str, start: int, spans: dict[int, tuple[int, int]]) -> int:
    """The region holding the first non-space character at or after ``start``."""
    at = start + len(text[start:]) - len(text[start:].lstrip())
    return next(k for k, (a, b) in spans.items() if a <= at < b)


@pytest.fixture(scope="module")
def regions(report, sentences, gpt2) -> pd.DataFrame:
    """Region surprisals (bits) from tokens.parquet, each token placed by the tokenizer's
    own offsets; its tokens must be the tokenizer's."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(gpt2)
    tokens = pd.read_parquet(report / "tokens.parquet")
    assert set(tokens["model"]) == {MODEL}
    by_sentence = dict(tuple(tokens.groupby("sentence_id", sort=False)))
    assert set(by_sentence) == set(sentences["sentence_id"])
    rows = []
    for s in sentences.itertuples():
        enc = tok(s.text, add_special_tokens=False, return_offsets_mapping=True)
        t = by_sentence[s.sentence_id].sort_values("index")
        assert t["token"].tolist() == tok.convert_ids_to_tokens(enc["input_ids"]), s.sentence_id
        bits = dict.fromkeys(s.spans, 0.0)
        for (start, _), lp in zip(enc["offset_mapping"], t["logprob"], strict=True):
            bits[region_of(s.text, start, s.spans)] += -lp / math.log(2)
        rows += [(s.sentence_id, s.suite, s.item, s.condition, k, v) for k, v in bits.items()]
    return pd.DataFrame(rows, columns=["sentence_id", "suite", "item", "condition", "region",
                                       "bits"])


def test_the_run_s_region_and_sentence_scores_are_the_token_sums(report, regions, sentences):
    got = pd.read_parquet(report / "regions.parquet")
    merged = regions.merge(got, on=["suite", "item", "condition", "region"], how="outer")
    assert len(merged) == len(regions) == len(got)
    ind.assert_close(merged["surprisal"], merged["bits"], "region surprisal", atol=1e-9)
    tokens = pd.read_parquet(report / "tokens.parquet")
    scores = pd.read_parquet(report / "scores.parquet").set_index("sentence_id")
    total = tokens.groupby("sentence_id")["logprob"].sum()
    ind.assert_close(scores.loc[sentences["sentence_id"], "score"],
                     total[sentences["sentence_id"]], "sentence log-probability", atol=1e-9)


@pytest.fixture(scope="module")
def outcomes(regions) -> pd.DataFrame:
    """Per suite, item and prediction whether it holds (our formulas on our regions)."""
    rows = []
    for (suite, item), g in regions.groupby(["suite", "item"]):
        s = {(c, r): b for c, r, b in zip(g["condition"], g["region"], g["bits"], strict=True)}
        rows += [(suite, item, k, bool(f(s))) for k, (_, f) in enumerate(FORMULAS[suite])]
    return pd.DataFrame(rows, columns=["suite", "item", "prediction", "correct"])


def published(suites: tuple[str, ...]) -> dict[str, pd.DataFrame]:
    """Per paper model (its name as the report shows it): suite, item and the share of its
    runs correct, from the raw results as notebooks/main.py keeps them."""
    folder = need_data("syntaxgym") / "hu2020_results"
    df = pd.concat(pd.read_csv(f) for f in sorted(folder.glob("syntaxgym_results_*.csv")))
    df = df[df["suite"].isin(suites)]
    parts = df["model"].str.split("_", expand=True)
    df = df.assign(name=parts[0], corpus=parts[1], seed=parts[2])
    df = df[~df["name"].isin(DROPPED)]
    df = df[~(df["name"].isin(WORD_LEVEL) & df["corpus"].str.endswith("bpe"))]
    df = df[~((df["name"] == "gpt-2") & ~df["corpus"].str.endswith("gptbpe"))]
    ngram = df["name"] == "ngram"  # the 51 tie-breaking runs: a majority per corpus
    voted = (df[ngram].groupby(["name", "corpus", "suite", "item"])["correct"].mean() > 0.5)
    df = pd.concat([df[~ngram], voted.reset_index()])
    pooled = df.groupby(["name", "suite", "item"])["correct"].mean().reset_index()
    return {NAMES[n] + PUBLISHED: g for n, g in pooled.groupby("name")}


@pytest.fixture(scope="module")
def systems(outcomes) -> dict[str, dict[str, np.ndarray]]:
    """Per system (ours first, then the paper's in the report's order) and suite: the item
    outcomes (share correct) whose mean is the suite's accuracy."""
    items = outcomes.groupby(["suite", "item"])["correct"].all().reset_index()
    ours = {MODEL: {s: g["correct"].to_numpy(float) for s, g in items.groupby("suite")}}
    paper = {name: {s: g["correct"].to_numpy(float) for s, g in t.groupby("suite")}
             for name, t in sorted(published(SUITES).items())}
    return ours | paper


@pytest.fixture(scope="module")
def draws(systems) -> dict[str, dict[str, np.ndarray]]:
    return {name: ind.paradigm_draws(rates, OUR_BOOT, OUR_SEED) for name, rates in
            systems.items()}


@pytest.fixture(scope="module")
def tables(report) -> dict[str, pd.DataFrame]:
    return ind.read_tables(report)


def test_the_report_writes_the_tables_this_module_checks(tables, report):
    assert set(tables) == {"data_summary", "exclusions", "counts", "evaluation",
                           "syntaxgym_scores", "syntaxgym_suite", "syntaxgym_circuit",
                           "syntaxgym_prediction"}
    md = (report / "report.md").read_text()
    assert "## SyntaxGym accuracy" in md
    for absent in ("BLiMP criterion", "Correlations with human", "Within-type variability",
                   "Mixed-effects"):
        assert f"## {absent}" not in md


def check_groups(table: pd.DataFrame, key: str, groups: dict[str, list[str]],
                 systems: dict, draws: dict) -> set[str]:
    """Each system's column: per group the mean of its suites' accuracies, and the
    interval against our bootstrap; the columns checked."""
    assert table[key].tolist() == list(groups)
    for name, rates in systems.items():
        suites_of = {g: [s for s in members if s in rates] for g, members in groups.items()}
        acc = [np.mean([rates[s].mean() for s in m]) for m in suites_of.values()]
        ind.assert_close(table[name], acc, f"{key} {name}", atol=1e-12)
        for i, (g, m) in enumerate(suites_of.items()):
            dist = np.mean([draws[name][s] for s in m], axis=0)
            ind.assert_interval(table[f"{name}_lower"].iloc[i], table[f"{name}_upper"].iloc[i],
                                table[name].iloc[i], dist, N_BOOT, f"{key} {g} {name}")
    return {key, *systems, *(f"{n}_{e}" for n in systems for e in ("lower", "upper"))}


def test_accuracy_per_suite(tables, systems, draws):
    t = tables["syntaxgym_suite"]
    suites = sorted(SUITES)
    checked = check_groups(t, "suite", {s: [s] for s in suites}, systems, draws)
    assert t["circuit"].tolist() == [CIRCUIT[s] for s in suites]
    sizes = {s: len(systems[MODEL][s]) for s in suites}
    assert t["n_items"].tolist() == [sizes[s] for s in suites] == [24, 19]
    ind.assert_only(t, checked | {"circuit", "n_items"}, "syntaxgym_suite")


def test_accuracy_per_circuit(tables, systems, draws):
    t = tables["syntaxgym_circuit"]
    groups = {c: [s for s in SUITES if CIRCUIT[s] == c] for c in sorted(set(CIRCUIT.values()))}
    checked = check_groups(t, "circuit", groups, systems, draws)
    assert t["n_suites"].tolist() == [len(m) for m in groups.values()]
    ind.assert_only(t, checked | {"n_suites"}, "syntaxgym_circuit")


def test_sg_score_per_system(tables, systems, draws):
    t = tables["syntaxgym_scores"].set_index("system")
    assert list(t.index) == list(systems)
    circuits = sorted(set(CIRCUIT.values()))
    for name, rates in systems.items():
        row, d = t.loc[name], draws[name]
        assert row["source"] == ("scored" if name == MODEL else "published")
        assert (row["n_suites"], row["n_items"]) == (2, sum(len(r) for r in rates.values()))
        sg = np.mean([r.mean() for r in rates.values()])
        by_circuit = [np.mean([rates[s].mean() for s in SUITES if CIRCUIT[s] == c])
                      for c in circuits]
        for col, value, dist in (
                ("sg_score", sg, np.mean([d[s] for s in SUITES], axis=0)),
                ("circuit_mean", np.mean(by_circuit), np.mean(
                    [np.mean([d[s] for s in SUITES if CIRCUIT[s] == c], axis=0)
                     for c in circuits], axis=0))):
            ind.assert_close(row[col], value, f"{col} {name}", atol=1e-12)
            ind.assert_interval(row[f"{col}_lower"], row[f"{col}_upper"], value, dist, N_BOOT,
                                f"{col} {name}")
    ind.assert_only(t.reset_index(), {"n_suites", "n_items", "sg_score", "sg_score_lower",
                                      "sg_score_upper", "circuit_mean", "circuit_mean_lower",
                                      "circuit_mean_upper"}, "syntaxgym_scores")


def test_accuracy_per_prediction(tables, outcomes):
    t = tables["syntaxgym_prediction"]
    keys = [(s, k) for s in sorted(SUITES) for k in range(len(FORMULAS[s]))]
    assert list(zip(t["suite"], t["prediction"], strict=True)) == keys
    assert t["formula"].tolist() == [FORMULAS[s][k][0] for s, k in keys]
    per = {(s, k): g["correct"].to_numpy(float)
           for (s, k), g in outcomes.groupby(["suite", "prediction"])}
    ind.assert_close(t[MODEL], [per[key].mean() for key in keys], "prediction", atol=1e-12)
    draws = ind.paradigm_draws({f"{s}:{k}": per[s, k] for s, k in keys}, OUR_BOOT, OUR_SEED)
    for i, (s, k) in enumerate(keys):
        ind.assert_interval(t[f"{MODEL}_lower"].iloc[i], t[f"{MODEL}_upper"].iloc[i],
                            t[MODEL].iloc[i], draws[f"{s}:{k}"], N_BOOT, f"prediction {s} {k}")
    ind.assert_only(t, {"suite", "prediction", "formula", MODEL, f"{MODEL}_lower",
                        f"{MODEL}_upper"}, "syntaxgym_prediction")


def test_data_summary_exclusions_and_counts(tables, sentences):
    n = len(sentences)
    expected = {"dataset": "syntaxgym", "sentences": n, "sentences with a human judgment": 0,
                "sentence types": sentences[["suite", "condition"]].drop_duplicates().shape[0],
                "phenomena": len(SUITES), "SyntaxGym suites": len(SUITES),
                "items (all suites)": sentences[["suite", "item"]].drop_duplicates().shape[0],
                "predictions (all suites)": sum(len(FORMULAS[s]) for s in SUITES),
                "minimal pairs": 0, "models": 1, "scores (all models)": n}
    got = tables["data_summary"].set_index("quantity")["value"]
    assert set(got.index) == {*expected, "source"}
    assert got["source"].startswith("local folder syntaxgym")
    for key, value in expected.items():
        assert str(got[key]) == str(value), f"data summary {key!r}: {got[key]} != {value}"
    assert tables["exclusions"]["n"].tolist() == [0]
    counts = tables["counts"]
    assert counts.to_dict("list") == {"model": [MODEL], "n_sentences": [n]}


def test_evaluation(tables, sentences, report):
    """The sentence-level table: no pairs, no judgments; the within-type SD of the
    sentence log-probabilities (types: suite and condition), no intervals."""
    tokens = pd.read_parquet(report / "tokens.parquet")
    x = tokens.groupby("sentence_id")["logprob"].sum()[sentences["sentence_id"]].to_numpy()
    none = np.arange(0)
    data = ind.Data(np.full(len(x), np.nan), np.full(len(x), np.nan),
                    (sentences["suite"] + ":" + sentences["condition"]).to_numpy(), none, none,
                    {MODEL: ind.Model(x)})
    t = tables["evaluation"]
    checked = ind.check_metrics(t, data.evaluate(), {}, "evaluation", N_BOOT)
    ind.assert_only(t, checked, "evaluation")


def test_markdown_prints_the_csv_numbers(tables, report):
    ind.assert_markdown_matches(report, tables)


def test_an_unknown_suite_is_one_clear_line(gpt2, tmp_path, capsys):
    from acceptability.reports.cli import commands as command

    code = command.main(["run", "--dataset", "syntaxgym", "--suite", "number_prepp",
                         "--model", gpt2, "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "unknown SyntaxGym suite 'number_prepp'" in err
    assert not (tmp_path / "run" / "scores.parquet").exists()


def own_suite(path: Path) -> Path:
    """A suite of one's own: 3 items, two conditions, the verb agreeing or not (no
    circuit, no published outcomes)."""
    def condition(name: str, verb: str) -> dict:
        return {"condition_name": name, "regions": [
            {"region_number": 1, "content": "The keys to the cabinet"},
            {"region_number": 2, "content": verb}, {"region_number": 3, "content": "here ."}]}
    verbs = [("are", "is"), ("were", "was"), ("seem", "seems")]
    suite = {"meta": {"name": "my_agreement", "metric": "sum"},
             "region_meta": {"1": "subject", "2": "verb", "3": "end"},
             "predictions": [{"type": "formula", "formula": "(2;%good%) < (2;%bad%)"}],
             "items": [{"item_number": k + 1, "conditions": [condition("good", g),
                                                             condition("bad", b)]}
                       for k, (g, b) in enumerate(verbs)]}
    path.write_text(json.dumps(suite))
    return path


OWN_BOOT = 200  # the package's resamples in the run on one's own suite


def own_items(regions: pd.DataFrame) -> dict[str, np.ndarray]:
    """Per suite of the own-suite run, each item's outcome from the run's regions."""
    out = {}
    for suite, formula in (("my_agreement", lambda s: s["good", 2] < s["bad", 2]),
                           ("number_prep", FORMULAS["number_prep"][0][1])):
        g = regions[regions["suite"] == suite]
        out[suite] = np.array([float(formula({(c, r): b for c, r, b in zip(
            t["condition"], t["region"], t["surprisal"], strict=True)}))
            for _, t in g.groupby("item")])
    return out


def test_an_own_suite_beside_a_paper_suite_from_a_toml_experiment(gpt2, tmp_path,
                                                                  monkeypatch):
    """[data] suites: a file relative to the TOML and a suite of the paper. The SG score
    over both, and on the paper's suite alone beside the paper's models (which have no
    outcomes on the own suite); the own suite has no circuit."""
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    own_suite(tmp_path / "mine.json")
    toml = tmp_path / "experiment.toml"
    toml.write_text('out = "run"\n[data]\ndataset = "syntaxgym"\n'
                    'suites = ["mine.json", "number_prep"]\n'
                    f'[scores]\nsource = "score"\nmodels = ["{gpt2}:logprob"]\n'
                    f'[analysis]\nn_boot = {OWN_BOOT}\n')
    with one_thread():
        cli("run", "--config", str(toml))
    out = tmp_path / "run"
    items = own_items(pd.read_parquet(out / "regions.parquet"))
    acc = {s: v.mean() for s, v in items.items()}
    draws = ind.paradigm_draws(items, OUR_BOOT, OUR_SEED)
    suite = pd.read_csv(out / "tables" / "syntaxgym_suite.csv")
    assert suite["suite"].tolist() == ["my_agreement", "number_prep"]
    assert suite["circuit"].isna().tolist() == [True, False]
    ind.assert_close(suite[MODEL], [acc["my_agreement"], acc["number_prep"]], "suites",
                     atol=1e-12)
    t = pd.read_csv(out / "tables" / "syntaxgym_scores.csv").set_index("system")
    both = np.mean([draws["my_agreement"], draws["number_prep"]], axis=0)
    for col, value, dist in (("sg_score", np.mean(list(acc.values())), both),
                             ("circuit_mean", acc["number_prep"], draws["number_prep"]),
                             ("sg_score_paper", acc["number_prep"], draws["number_prep"]),
                             ("circuit_mean_paper", acc["number_prep"], draws["number_prep"])):
        row = t.loc[MODEL]
        ind.assert_close(row[col], value, col, atol=1e-12)
        ind.assert_interval(row[f"{col}_lower"], row[f"{col}_upper"], value, dist, OWN_BOOT,
                            col)
    paper = {name: g["correct"].mean() for name, g in published(("number_prep",)).items()}
    assert list(t.index[1:]) == sorted(paper)
    for col in ("sg_score", "circuit_mean", "sg_score_paper", "circuit_mean_paper"):
        ind.assert_close(t.loc[list(paper), col], list(paper.values()), col, atol=1e-12)
    assert (t.iloc[1:]["n_suites"] == 1).all()
    assert "on 1 of these suites (not on my_agreement)" in (out / "report.md").read_text()


def test_score_then_evaluate_and_a_suite_syntaxgym_filled_in(gpt2, tmp_path, monkeypatch):
    """``score`` writes the region table, which ``evaluate`` reads (rows of other suites set
    aside); ``evaluate`` also reads a suite SyntaxGym filled in: syntaxgym-core's test suite,
    whose one prediction GRNN fails and Transformer-XL passes on both items."""
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    regions = tmp_path / "regions.csv"
    with one_thread():
        cli("score", "--dataset", "syntaxgym", "--suite", "number_prep", "--suite",
            "center_embed", "--model", f"{gpt2}:logprob", "--out", str(regions))
    err = cli("evaluate", "--dataset", "syntaxgym", "--suite", "number_prep", "--scores",
              str(regions), "--n-boot", "0", "--out", str(tmp_path / "acc.csv"))
    raw = json.loads((need_data("syntaxgym") / "suites" / "center_embed.json").read_text())
    n = sum(len(c["regions"]) for item in raw["items"] for c in item["conditions"])
    assert f"set aside {n} region rows of suites not selected (center_embed)" in err
    acc = pd.read_csv(tmp_path / "acc.csv").set_index("level")
    items = own_items(pd.read_csv(regions))
    assert acc.loc["suite", "accuracy"] == pytest.approx(items["number_prep"].mean(), abs=1e-12)
    core = need_data("syntaxgym", "syntaxgym-core-test/test_in.json") / "syntaxgym-core-test"
    for model, expected in (("grnn", 0.0), ("transformer-xl", 1.0)):
        cli("evaluate", "--dataset", "syntaxgym", "--suite", str(core / "test_in.json"),
            "--scores", str(core / f"test_out_{model}.json"), "--n-boot", "0", "--out",
            str(tmp_path / f"{model}.csv"))
        table = pd.read_csv(tmp_path / f"{model}.csv").set_index("level")
        assert table.loc["overall", "accuracy"] == expected and table.loc["overall", "model"] == model


@pytest.mark.parametrize(("args", "said"), [
    (["evaluate", "--dataset", "syntaxgym"], "SyntaxGym publishes no region surprisals"),
    (["evaluate", "--dataset", "blimp", "--suite", "mvrr"], "suites and boundary apply to "
     "SyntaxGym"),
    (["score", "--dataset", "syntaxgym", "--model", "gpt2", "--normalise", "mean"],
     "normalise applies to sentence scores"),
    (["run", "--dataset", "syntaxgym", "--model", "gpt2", "--max-pairs", "5"],
     "no minimal pairs"),
    (["evaluate", "--dataset", "syntaxgym", "--suite", "{file}", "--scores", "{file}"],
     "no suite file"),
])
def test_settings_syntaxgym_cannot_use_are_one_clear_line(args, said, tmp_path, capsys):
    from acceptability.reports.cli import commands as command

    args = [a.replace("{file}", str(tmp_path / "missing.json")) for a in args]
    assert command.main([*args, "--out", str(tmp_path / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1, err
