"""A user's first hour (issue 11, item 8): one default resample count, warnings that point
at the caller's line, BLiMP paradigm selection, ``Dataset.subset``, the user's own files
through the command line, display names and report sections that fit the dataset."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import data, reports, stats
from acceptability.reports import analysis
from acceptability.reports.cli import commands as cli
from acceptability.reports.cli import experiment


def test_one_default_resample_count():
    n = stats.DEFAULT_N_BOOT
    assert inspect.signature(stats.bootstrap).parameters["n_boot"].default == n
    assert inspect.signature(stats.compare_all).parameters["n_boot"].default == n
    assert inspect.signature(stats.evaluate).parameters["n_boot"].default == n
    assert inspect.signature(analysis.analyse).parameters["n_boot"].default == n
    assert experiment.Experiment().n_boot == n
    for command in ("evaluate", "report", "run"):
        args = cli.parser().parse_args([command, "--dataset", "example"])
        args.argv = []
        assert cli._experiment(args).n_boot == n, command
    assert cli.parser().parse_args(["demo"]).n_boot == n
    assert experiment.from_toml("examples/experiment.toml").n_boot == n


def no_group_effect() -> tuple[object, pd.DataFrame]:
    """60 sentences in 6 phenomena whose human judgments have no phenomenon effect at all
    (residuals centred within each phenomenon): a random intercept fits at the boundary."""
    rng = np.random.default_rng(0)
    group = np.repeat([f"p{i}" for i in range(6)], 10)
    score = rng.normal(size=60)
    noise = rng.normal(size=60)
    noise -= pd.Series(noise).groupby(group).transform("mean").to_numpy()
    ids = [f"s{i}" for i in range(60)]
    z = (score - score.mean()) / score.std(ddof=1)
    sentences = pd.DataFrame({"sentence_id": ids, "text": ids, "phenomenon": group,
                              "human": z + noise})
    ds = data.from_frames(sentences, pd.DataFrame())
    return ds, pd.DataFrame({"sentence_id": ids, "model": "m", "score": score})


def test_warnings_point_at_the_callers_line():
    ds, sc = no_group_effect()
    frame = stats.sentence_model_frame(ds, sc, model="m")
    with pytest.warns(stats.SingularFitWarning) as caught:
        stats.lmer("human ~ score + (1 | phenomenon)", frame)
    assert {w.filename for w in caught} == {__file__}
    with pytest.warns(stats.SingularFitWarning) as caught:  # three calls deeper
        stats.sentence_model(ds, sc, model="m", formula="human ~ score + (1 | phenomenon)")
    assert {w.filename for w in caught} == {__file__}


def run_cli(args: list[str]) -> int:
    try:
        return cli.main([str(a) for a in args])
    except SystemExit as exit_:  # argparse usage errors
        return int(exit_.code or 0)


@pytest.mark.needs_data("blimp")
def test_blimp_paradigms_from_python():
    ds = data.load_blimp(paradigms=["adjunct_island", "wh_island"])
    assert len(ds.pairs) == 2000 and len(ds.sentences) == 4000
    assert set(ds.pairs["paradigm"]) == {"adjunct_island", "wh_island"}
    assert len(data.load_blimp(paradigms="wh_island").pairs) == 1000
    with pytest.raises(data.DataError, match="did you mean 'adjunct_island'"):
        data.load_blimp(paradigms=["adjunct_islands"])
    assert len(data.blimp_paradigms()) == 67


@pytest.mark.needs_data("blimp")
def test_blimp_paradigms_from_the_command_line(tmp_path, capsys):
    ds = data.load_blimp(paradigms=["wh_island"])
    scores = tmp_path / "len.csv"  # shorter is better: a baseline that needs no model
    ds.sentences.assign(model="length", score=-ds.sentences["text"].str.len())[
        ["sentence_id", "model", "score"]].to_csv(scores, index=False)
    out = tmp_path / "ev.csv"
    assert run_cli(["evaluate", "--dataset", "blimp", "--paradigm", "wh_island", "--scores",
                    scores, "--n-boot", "0", "--out", out]) == 0
    assert pd.read_csv(out)["n_pairs"].tolist() == [1000]
    assert run_cli(["evaluate", "--dataset", "blimp", "--paradigm", "wh_islands",
                    "--scores", scores]) == 2
    assert "did you mean 'wh_island'" in capsys.readouterr().err
    assert run_cli(["evaluate", "--dataset", "example", "--paradigm", "wh_island"]) == 2
    assert "BLiMP paradigms" in capsys.readouterr().err


def test_subset_keeps_the_sentences_of_its_pairs(example):
    ds, _ = example
    pairs = ds.pairs["pair_id"][:5]
    sub = ds.subset(pairs)
    used = set(sub.pairs["good_id"]) | set(sub.pairs["bad_id"])
    assert list(sub.pairs["pair_id"]) == list(pairs)
    assert set(sub.sentences["sentence_id"]) == used
    ex = sub.exclusions.set_index(["table", "reason"])["n"]
    assert ex["pairs", "not in the subset (Dataset.subset)"] == len(ds.pairs) - 5
    assert ex["sentences", "not in the subset (Dataset.subset)"] == len(ds.sentences) - len(used)
    by_sentence = ds.subset(sentence_ids=sorted(used))  # the same subset, from its sentences
    assert set(by_sentence.pairs["pair_id"]) == set(pairs)
    with pytest.raises(data.DataError, match="unknown pair id 'nope'"):
        ds.subset(["nope"])


def test_subset_recounts_the_loaders_exclusions(li_adger):
    no_human = li_adger.sentences.loc[li_adger.sentences["human"].isna(), "sentence_id"]
    assert len(no_human) == 2
    pair = li_adger.pairs.iloc[0]
    sub = li_adger.subset([pair["pair_id"]], sentence_ids=[no_human.iloc[0]])  # the union
    assert list(sub.sentences["sentence_id"]) == sorted(
        [pair["good_id"], pair["bad_id"], no_human.iloc[0]],
        key=list(li_adger.sentences["sentence_id"]).index)
    ex = sub.exclusions.set_index("reason")["n"]
    assert ex.filter(like="missing human judgment").item() == 1  # 2 in the whole dataset
    assert ex.filter(like="marginal").item() == int(sub.sentences["marginal"].sum())
    assert ex.filter(like="discard=X").item() == 28  # dropped by the loader, as before
    assert ex.filter(like="Dataset.subset").sum() == (len(li_adger.sentences) - 3
                                                      + len(li_adger.pairs) - 1)
    with pytest.raises(data.DataError, match="keeps no sentences"):
        li_adger.subset([])


def write(frame: pd.DataFrame, path) -> str:
    if str(path).endswith(".parquet"):
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False, sep="\t" if str(path).endswith(".tsv") else ",")
    return str(path)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet"])
def test_own_files_give_the_numbers_of_the_named_dataset(suffix, li_adger, li_adger_scores,
                                                         tmp_path):
    """LI-Adger written to files and read back through --sentences/--pairs/--scores
    evaluates exactly as --dataset li-adger --scores published."""
    files = [write(li_adger.sentences, tmp_path / f"my_sentences{suffix}"),
             write(li_adger.pairs, tmp_path / f"my_pairs{suffix}"),
             write(li_adger_scores, tmp_path / f"my_scores{suffix}")]
    mine, named = tmp_path / "mine.csv", tmp_path / "named.csv"
    assert run_cli(["evaluate", "--sentences", files[0], "--pairs", files[1], "--scores",
                    files[2], "--n-boot", "0", "--out", mine]) == 0
    assert run_cli(["evaluate", "--dataset", "li-adger", "--scores", "published",
                    "--n-boot", "0", "--out", named]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(mine), pd.read_csv(named), check_exact=True)
    ds = data.read_dataset(files[0], files[1])
    assert ds.name == "my_sentences" and set(ds.checksums) == {Path(f).name for f in files[:2]}


def test_own_files_through_run_fit_and_report(example, tmp_path, capsys):
    ds, sc = example
    s, p = write(ds.sentences, tmp_path / "s.csv"), write(ds.pairs, tmp_path / "p.csv")
    scores = write(sc, tmp_path / "sc.csv")
    own = ["--sentences", s, "--pairs", p, "--scores", scores]
    assert run_cli(["run", *own, "--n-boot", "0", "--formula", "", "--out",
                    tmp_path / "run"]) == 0
    assert "sentences" in (tmp_path / "run" / "report.html").read_text()
    assert run_cli(["report", *own, "--n-boot", "0", "--formula", "", "--out",
                    tmp_path / "rep"]) == 0
    assert run_cli(["fit", *own, "--formula", "human ~ score + (1 | phenomenon)"]) == 0
    assert "Linear mixed model fit by REML" in capsys.readouterr().out
    assert run_cli(["evaluate", "--sentences", s, "--pairs", p]) == 2  # no published scores
    assert "your own data" in capsys.readouterr().err
    assert run_cli(["evaluate", "--sentences", s, "--dataset", "example"]) == 2
    assert run_cli(["evaluate", "--pairs", p, "--scores", scores]) == 2
    assert "needs its sentences file" in capsys.readouterr().err


def test_own_file_errors_name_the_file_and_line(tmp_path, capsys):
    bad = tmp_path / "s.csv"
    bad.write_text("sentence_id,text\n01,The cat sat.\n02,\n")
    assert run_cli(["evaluate", "--sentences", bad, "--scores", bad]) == 2
    err = capsys.readouterr().err
    assert f"{bad}, row 3 (line)" in err and "empty sentence text" in err
    odd = tmp_path / "s.xlsx"
    odd.write_text("x")
    assert run_cli(["evaluate", "--sentences", odd, "--scores", odd]) == 2
    assert "unknown file type '.xlsx'" in capsys.readouterr().err
    ids = tmp_path / "ids.csv"  # ids that look like numbers stay text: "1.10" is not "1.1"
    ids.write_text("sentence_id,text\n1.1,A.\n1.10,B.\n")
    assert list(data.read_dataset(ids).sentences["sentence_id"]) == ["1.1", "1.10"]


def test_reports_show_model_folders_by_name(example, tmp_path):
    ds, sc = example
    machine = "/home/someone/runs/checkpoints/"
    sc = sc.assign(model=machine + sc["model"])
    r = reports.analyse(ds, sc, n_boot=0, formula=None)
    assert set(r.models) == {m.removeprefix(machine) for m in sc["model"].unique()}
    report = reports.build(r, tmp_path)
    for path in (report.html, report.markdown, report.provenance,
                 *(tmp_path / "tables").glob("*")):
        assert machine not in path.read_text(), path


@pytest.mark.needs_data("blimp")
@pytest.mark.needs_data("cola")
def test_blimp_report_shows_only_what_blimp_supports(tmp_path):
    """BLiMP has no gradient human judgments: no ADC, correlations or judgment models, and
    no thesis title, but the benchmark's sections (accuracy beside BLiMP's humans and
    published models, shallow predictors); scores from a trigram model trained on CoLA's
    training sentences."""
    from acceptability import scoring

    cola = data.load_cola(split="in_domain_train")
    lm = scoring.train_ngram(list(cola.sentences["text"]), order=3)
    ds = data.load_blimp(paradigms=["adjunct_island", "anaphor_gender_agreement"])
    sc = scoring.score(ds, lm, method="ngram")
    report = reports.build(reports.analyse(ds, sc, n_boot=100), tmp_path)
    html, md = report.html.read_text(), report.markdown.read_text()
    titles = re.findall(r"<h2>(.*?)</h2>", html)
    assert titles == ["Data summary", "Accuracy on the benchmark",
                      "Baselines without structure (seed 004)",
                      "Shallow predictors of accuracy", "Reproducibility"]
    assert "Model comparisons need at least two models" in html  # one model: none
    assert "Table 3.1" not in html + md and "ADC (" not in html + md
    assert not {"adc_curve", "corr_sentence", "scatter_sentence"} & set(report.figures)
    assert "no gradient human judgments" in html
    model = sc["model"].iloc[0]
    for head in ("Phenomenon", "Paradigm", "5-gram", "Human", model):  # models keep names
        assert f"<th>{head}</th>" in html, head
    numbers = [int(n) for n in re.findall(r"\*\*Table (\d+)\.\*\*", md)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 5


def test_li_adger_report_is_numbered_with_readable_headers(li_adger, li_adger_scores, tmp_path):
    r = reports.analyse(li_adger, li_adger_scores, n_boot=0, formula=None)
    report = reports.build(r, tmp_path)
    html, md = report.html.read_text(), report.markdown.read_text()
    assert "<h2>BLiMP criterion and ADC (thesis Table 3.1)</h2>" in html
    for text, bold, italic in ((html, "<b>", "<b>"), (md, r"\*\*", r"\*")):
        tables = [int(n) for n in re.findall(rf"{bold}Table (\d+)\.", text)]
        figures = [int(n) for n in re.findall(rf"{italic}Figure (\d+)\.", text)]
        assert tables == list(range(1, len(tables) + 1)) and len(tables) >= 7
        assert figures == list(range(1, len(figures) + 1)) and len(figures) >= 6
    for name in ("BLiMP accuracy", "ADC (δ = 0.5)", "ADC (δ = 0.5), thesis", "Pearson r",
                 "Spearman ρ", "Within-type SD"):
        assert f"<th>{name}</th>" in html, name
        assert re.search(rf"\|\s*{re.escape(name)}\s*\|", md), name
    tex = (tmp_path / "tables" / "table_3_1.tex").read_text()
    assert r"ADC ($\delta$ = 0.5)" in tex and tex.startswith("% Table 4 of report.html")
    assert "adc_0.5" in (tmp_path / "tables" / "table_3_1.csv").read_text()  # code names


def test_a_report_without_the_thesis_data_has_no_thesis_title(example, tmp_path):
    html = reports.build(reports.analyse(*example, n_boot=0, formula=None), tmp_path) \
        .html.read_text()
    assert "<h2>BLiMP criterion and ADC</h2>" in html and "Table 3.1" not in html


def test_experiment_file_takes_own_files_paradigms_and_a_method_per_model(tmp_path):
    toml = tmp_path / "experiment.toml"
    (tmp_path / "runs" / "my-model").mkdir(parents=True)  # a folder beside the file
    toml.write_text('[data]\nsentences = "s.csv"\npairs = "p.csv"\n[scores]\nsource = "score"\n'
                    'models = ["gpt2:logprob", "bert-base-uncased:pll", "runs/my-model"]\n'
                    'method = "pll_word_l2r"\n')
    exp = experiment.from_toml(toml)
    assert exp.dataset == "user" and exp.sentences == str(tmp_path / "s.csv")
    assert exp.scoring_plan() == [("gpt2", "logprob"), ("bert-base-uncased", "pll"),
                                  (str(tmp_path / "runs" / "my-model"), "pll_word_l2r")]
    assert experiment.model_method("C:\\models\\x", "logprob") == ("C:\\models\\x", "logprob")
    toml.write_text('[data]\ndataset = "blimp"\nparadigms = ["wh_island"]\n')
    assert experiment.from_toml(toml).paradigms == ("wh_island",)
    toml.write_text('[data]\ndataset = "li-adger"\nsentences = "s.csv"\n')
    with pytest.raises(data.DataError, match="both a dataset and sentences"):
        experiment.from_toml(toml)
