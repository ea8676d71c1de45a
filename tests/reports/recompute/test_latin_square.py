"""A pairs-with-trial-ratings study (TurBLiMP's human study, Başar et al. 2025, as a user's
three CSV files with a ``subject`` rater column: tests/latin_square.py) through ``run``
(issue 42 items 1-4): one report holds the pair sections and the rating sections, the
numbers of its tables are recomputed here from the raw CSVs (human = each rating z-scored
within its participant, sample SD, averaged per sentence), and Python's
``read_dataset`` + ``stats.evaluate`` / ``reports.analyse`` give the command line's numbers."""

from __future__ import annotations

import shlex
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.reports.recompute import independent as ind
from tests.reports.recompute import ratings as rat
from tests.reports.recompute.conftest import cli, once, one_thread

pytestmark = pytest.mark.needs_data("turblimp", "data/human_judgments/base_judgments.xlsx")
N_BOOT = 200  # the package's resamples here (the intervals' wording is what is checked)
COLUMNS = ("--column", "subject=participant")
PAGE = Path(__file__).resolve().parents[3] / "docs" / "ratings.md"
SECTION = "## A pairs-with-ratings study, end to end"


@pytest.fixture(scope="module")
def study(tmp_path_factory, tiny_models, latin_square_files) -> dict:
    """``run`` on the three files with the tiny GPT-2, and the files."""
    f = latin_square_files

    def build(out):
        with one_thread():
            cli("run", "--sentences", str(f["sentences"]), "--pairs", str(f["pairs"]),
                "--ratings", str(f["ratings"]), "--scale", "likert:1-7", *COLUMNS,
                "--model", f"{tiny_models['gpt2']}:logprob", "--n-boot", str(N_BOOT),
                "--name", "TurBLiMP", "--out", str(out))
    return {"out": once(tmp_path_factory, "latin-square", build), **f}


@pytest.fixture(scope="module")
def raw(study) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return (pd.read_csv(study["sentences"], dtype=str), pd.read_csv(study["pairs"], dtype=str),
            pd.read_csv(study["ratings"], dtype={"subject": str, "sentence_id": str}))


def recomputed(raw, scores: pd.DataFrame) -> ind.Data:
    """The study and ``scores`` as the recompute layer reads them; human: the mean per
    sentence of the ratings z-scored within participant."""
    s, p, r = raw
    z = rat.z_within(r.rename(columns={"subject": "participant"}))
    human = z.groupby(r["sentence_id"]).mean().reindex(s["sentence_id"]).to_numpy(float)
    rows = pd.Index(s["sentence_id"])
    return ind.Data(human, s["label"].astype(float).to_numpy(), s["type_id"].to_numpy(),
                    rows.get_indexer(p["good_id"]), rows.get_indexer(p["bad_id"]),
                    ind.models_of(scores, s["sentence_id"]))


@pytest.fixture(scope="module")
def data(study, raw) -> ind.Data:
    return recomputed(raw, pd.read_parquet(study["out"] / "scores.parquet"))


def test_one_report_holds_the_pair_and_the_rating_sections(study):
    md = (study["out"] / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# acceptability report: TurBLiMP")
    for title in ("## BLiMP criterion and ADC", "## Human ratings: norming and reliability",
                  "## Correlations with human ratings, beside the human ceiling", "## MCC",
                  "## Within-type variability", "## Mixed-effects judgment models"):
        assert title in md, title
    tables = set(ind.read_tables(study["out"]))
    assert {"table_3_1", "correlations", "reliability", "rating_correlations", "variability",
            "fits", "evaluation", "mcc"} <= tables


def test_the_evaluation_is_recomputed_from_the_raw_files(study, data):
    got = pd.read_csv(study["out"] / "evaluation.csv").set_index("model")
    ours = data.evaluate()
    for model in ours.index:
        for col in ours.columns.drop("excluded_because"):
            ind.assert_close(got.loc[model, col], ours.loc[model, col],
                             f"evaluation {model} {col}", atol=1e-9)
        said = got.loc[model, "excluded_because"]
        assert ("" if pd.isna(said) else said) == ours.loc[model, "excluded_because"]
    assert (got["n_pairs_human"] == 216).all()
    assert (got["r_ceiling"].round(3) == 0.984).all()  # docs/ratings.md: "0.984 raw"


def test_the_correlation_tables_are_recomputed(study, data):
    tables = ind.read_tables(study["out"])
    corr = tables["correlations"].set_index(["model", "level"])
    rc = tables["rating_correlations"].set_index("model")
    for name, m in data.models.items():
        z = m.z()
        dh = data.human[data.good] - data.human[data.bad]
        dlm = z[data.good] - z[data.bad]
        for level, (x, y) in {"sentence": (data.human, z), "pair": (dh, dlm)}.items():
            ok = np.isfinite(x) & np.isfinite(y)
            ind.assert_close(corr.loc[(name, level), "pearson"], ind.pearson(x, y), level)
            ind.assert_close(corr.loc[(name, level), "spearman"],
                             sps.spearmanr(x[ok], y[ok]).statistic, level)
        ind.assert_close(rc.loc[name, "pearson"], ind.pearson(data.human, z), "rating r")
        ok = np.isfinite(z)
        ind.assert_close(rc.loc[name, "spearman"],
                         sps.spearmanr(data.human[ok], z[ok]).statistic, "rating rho")


def test_captions_name_the_units_the_bootstrap_resampled(study, data):
    """Item 4: the rating correlations' interval came from type_id clusters (merged
    through the pairs), and the caption says so with their number, as Table 4's does."""
    md = (study["out"] / "report.md").read_text(encoding="utf-8")
    k = len(np.unique(ind.components(data.types, data.good, data.bad)))
    caption = next(line for line in md.splitlines() if "Correlation of each model" in line)
    assert f"r: 95% percentile intervals from {N_BOOT} bootstrap resamples of {k} type_id " \
           "clusters" in caption
    assert "resamples of the sentences" not in md
    assert f"resamples of {len(data.human)} sentences" in caption  # the ceiling's
    table4 = next(line for line in md.splitlines() if "BLiMP accuracy, ADC" in line)
    assert f"({N_BOOT} resamples of {k} type_id clusters)" in table4
    figure = next(line for line in md.splitlines() if line.startswith("*Figure")
                  and "ADC pass rate" in line)
    assert f"intervals at them ({N_BOOT} resamples of {k} type_id clusters)" in figure


def test_evaluate_says_what_its_intervals_resampled(study, data):
    """``acceptability evaluate`` names the clusters and their number, as the engine drew
    them, beside its intervals."""
    k = len(np.unique(ind.components(data.types, data.good, data.bad)))
    said = cli("evaluate", "--sentences", str(study["sentences"]), "--pairs",
               str(study["pairs"]), "--ratings", str(study["ratings"]), "--scale",
               "likert:1-7", *COLUMNS, "--scores", str(study["out"] / "scores.parquet"),
               "--n-boot", str(N_BOOT))
    assert f"95% intervals from {N_BOOT} bootstrap resamples of {k} type_id clusters" in said


def test_python_gives_the_command_lines_numbers(study):
    """Item 2: read_dataset + stats.evaluate (and reports.analyse) with the defaults give
    the numbers of the command line's evaluation."""
    from acceptability import data as acc_data
    from acceptability import reports, stats

    ds = acc_data.read_dataset(study["sentences"], pairs=study["pairs"],
                               ratings=study["ratings"], scale="likert:1-7",
                               columns={"subject": "participant"})
    scores = acc_data.read_scores(study["out"] / "scores.parquet")
    cli_table = pd.read_csv(study["out"] / "evaluation.csv")
    python = stats.evaluate(ds, scores)
    assert python.attrs["norming"].startswith("human = z")
    numbers = [c for c in cli_table.columns if c not in ("model", "excluded_because")]
    np.testing.assert_allclose(python[numbers].to_numpy(float),
                               cli_table[numbers].to_numpy(float), rtol=0, atol=1e-12)
    analysed = reports.analyse(ds, scores, n_boot=0, formula=None)
    np.testing.assert_allclose(analysed.evaluation[numbers].to_numpy(float),
                               cli_table[numbers].to_numpy(float), rtol=0, atol=1e-12)
    assert analysed.ratings is not None and analysed.corr_pair is not None


def documented_commands() -> list[list[str]]:
    """The command lines of docs/ratings.md's end-to-end section (its indented block,
    continuation lines joined)."""
    text = PAGE.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    block = "\n".join(line[4:] for line in text.splitlines() if line.startswith("    "))
    return [shlex.split(line) for line in block.replace("\\\n", " ").splitlines()
            if line.startswith("acceptability ")]


def test_the_pages_command_lines_give_the_numbers_recomputed_here(latin_square_files, raw,
                                                                  tmp_path, monkeypatch,
                                                                  capsys):
    """docs/ratings.md's end-to-end study as the page runs it: its command lines, in a
    folder with the three files in turblimp-study/ and the page's length.csv (each
    sentence's length in characters, negated), print and write the evaluation recomputed
    here from the raw files; the report is titled by --name and its captions name the
    clusters the bootstrap resampled."""
    (tmp_path / "turblimp-study").mkdir()
    for path in latin_square_files.values():
        shutil.copy(path, tmp_path / "turblimp-study" / path.name)
    s = raw[0]
    length = pd.DataFrame({"sentence_id": s["sentence_id"], "model": "length",
                           "score": -s["text"].str.len()})
    length.to_csv(tmp_path / "length.csv", index=False)
    monkeypatch.chdir(tmp_path)
    commands = documented_commands()
    assert [c[:2] for c in commands] == [["acceptability", "evaluate"], ["acceptability", "run"]]
    capsys.readouterr()
    with one_thread():
        cli(*commands[0][1:])
        printed = capsys.readouterr().out.splitlines()
        cli(*commands[1][1:])
    study = recomputed(raw, length)
    ours = study.evaluate().loc["length"]
    out = tmp_path / "report" / "turblimp"
    got = pd.read_csv(out / "evaluation.csv").set_index("model").loc["length"]
    header, row = printed[0].split(), printed[1].split()
    for col in ours.index.drop("excluded_because"):
        ind.assert_close(got[col], ours[col], f"run's evaluation {col}", atol=1e-9)
        ind.assert_close(float(row[header.index(col)]), ours[col], f"evaluate {col}",
                         atol=5e-4 + 1e-12)
    assert (round(ours["blimp"], 3), round(ours["r_pair"], 3)) == (0.181, -0.204)  # the page's
    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# acceptability report: TurBLiMP")
    k = len(np.unique(ind.components(study.types, study.good, study.bad)))
    assert k == 36 and f"10,000 resamples of {k} type_id clusters" in md  # as the page says
    assert f"10,000 bootstrap resamples of {len(s)} sentences" in md
