"""``acceptability run`` on LI-Adger with the published scores: the report's tables match
thesis Tables 3.1 and 2.3, every figure is a valid image, a rerun resumes, and the same
experiment from a TOML file gives identical numbers."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from acceptability.data.loaders.published import THESIS_TABLE_2_3, THESIS_TABLE_3_1
from acceptability.reports.cli import commands as cli

pytestmark = pytest.mark.needs_data  # li_adger_dir (conftest) skips when the data are absent
FIGURES = {"adc_curve", "accuracy_by_group", "corr_sentence", "corr_pair", "scatter_sentence",
           "scatter_pair", "type_mean_sd", "type_correlations"}
# Thesis values are rounded to 3 decimals; with the thesis' sign convention (--sign thesis)
# every cell of Table 3.1 rounds to them.
TOL = 0.0005


def run(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli.main(args)
    return code, err.getvalue()


@pytest.fixture(scope="module")
def out(tmp_path_factory, li_adger_dir) -> Path:
    out = tmp_path_factory.mktemp("li-adger")
    code, err = run(["run", "--dataset", "li-adger", "--scores", "published", "--n-boot", "200",
                     "--sign", "thesis", "--out", str(out)])
    assert code == 0, err
    return out


def test_table_3_1_matches_the_thesis(out):
    ours = pd.read_csv(out / "tables" / "table_3_1.csv").set_index("model")
    thesis = THESIS_TABLE_3_1.set_index("model")
    assert set(thesis.index) == set(ours.index)
    assert (ours["n_pairs"] == 2365).all()
    for col in thesis.columns:
        diff = (ours.loc[thesis.index, col] - thesis[col]).abs()
        assert diff.max() <= TOL, f"{col}: {diff.to_dict()}"
        assert ours.loc[thesis.index, f"{col} (thesis)"].tolist() == thesis[col].tolist()
    tex = (out / "tables" / "table_3_1.tex").read_text()
    assert r"\toprule" in tex and r"bert-large-cased\_mlm" in tex


def test_correlations_match_thesis_table_2_3(out):
    corr = pd.read_csv(out / "tables" / "correlations.csv")
    pair = corr[corr["level"] == "pair"].set_index("model")["pearson"]
    for row in THESIS_TABLE_2_3.itertuples():
        assert abs(pair[row.model] - row.r_pair) < 0.0015


def test_every_figure_is_a_valid_image(out):
    pngs = {p.stem: p for p in (out / "figures").glob("*.png")}
    assert set(pngs) >= FIGURES
    for path in pngs.values():
        with Image.open(path) as im:
            im.verify()
        with Image.open(path) as im:
            assert im.format == "PNG" and min(im.size) > 100
    html = (out / "report.html").read_text()
    srcs = re.findall(r'<img src="data:image/png;base64,([^"]+)"', html)
    assert len(srcs) == len(pngs) == html.count("<img ")
    for src in srcs:
        with Image.open(io.BytesIO(base64.b64decode(src))) as im:
            im.verify()
    for part in ("report.md", "provenance.json", "evaluation.csv", "scores.parquet",
                 "manifest.json"):
        assert (out / part).is_file()


def test_report_sections_and_provenance(out):
    html = (out / "report.html").read_text()
    for text in ("thesis Table 3.1", "Within-type variability", "Reproducibility",
                 "human_ME_results_li-adger_sentences.csv", "sha256:",
                 "acceptability run --dataset li-adger --scores published --n-boot 200"):
        assert text in html
    assert "Linear mixed model fit by REML" in html
    assert "comparisons_forest.png" in html


def test_data_summary_names_the_data_folder_not_its_path(out, li_adger_dir):
    summary = pd.read_csv(out / "tables" / "data_summary.csv").set_index("quantity")["value"]
    assert summary["source"] == "local folder li-adger (full path in provenance.json)"
    assert json.loads((out / "provenance.json").read_text())["dataset"]["source"] == str(
        li_adger_dir)


def test_bootstrap_intervals_bracket_the_estimates(out):
    table = pd.read_csv(out / "tables" / "table_3_1.csv")
    for metric in ("blimp", "adc_0.5", "adc_1", "adc_5"):
        assert (table[f"{metric}_lower"] <= table[metric]).all()
        assert (table[metric] <= table[f"{metric}_upper"]).all()


def test_rerun_resumes(out):
    before = (out / "report.html").stat().st_mtime_ns
    code, err = run(["run", "--dataset", "li-adger", "--scores", "published", "--n-boot", "200",
                     "--sign", "thesis", "--out", str(out)])
    assert code == 0 and err.count("up to date") == 4, err
    assert (out / "report.html").stat().st_mtime_ns == before


def test_edited_code_reruns_the_steps_that_use_it(out, monkeypatch, tmp_path):
    """A changed `reports` source reruns evaluate (and report), not score or fit."""
    from acceptability.reports.cli import pipeline

    copy = shutil.copytree(out, tmp_path / "copy")
    real = pipeline.code_hash
    monkeypatch.setattr(pipeline, "code_hash",
                        lambda *pkgs: real(*pkgs) + ("-edited" if "reports" in pkgs else ""))
    code, err = run(["run", "--dataset", "li-adger", "--scores", "published", "--n-boot", "200",
                     "--sign", "thesis", "--out", str(copy)])
    assert code == 0, err
    assert "score: up to date" in err and "fit: up to date" in err
    assert "evaluate: statistics" in err and "report: report into" in err


def test_a_store_this_version_cannot_read_is_recomputed_not_loaded(out, tmp_path):
    """A run folder whose stored analysis is edited, foreign or of another version is
    recomputed from the step before."""
    copy = shutil.copytree(out, tmp_path / "copy")
    document = json.loads((copy / "analysis.json").read_text())
    (copy / "analysis.json").write_text(json.dumps(document | {"version": -1}))
    code, err = run(["run", "--dataset", "li-adger", "--scores", "published", "--n-boot", "200",
                     "--sign", "thesis", "--out", str(copy)])
    assert code == 0, err
    assert "score: up to date" in err and "evaluate: statistics" in err
    assert not list(copy.rglob("*.pkl"))


def test_toml_experiment_gives_identical_numbers(out, tmp_path):
    toml = tmp_path / "experiment.toml"
    toml.write_text('out = "again"\n[data]\ndataset = "li-adger"\n[scores]\n'
                    'source = "published"\n[analysis]\nn_boot = 200\ndeltas = [0.5, 1, 5]\n'
                    'sign = "thesis"\n')
    code, err = run(["run", "--config", str(toml)])
    assert code == 0, err
    again = tmp_path / "again"
    names = [p.relative_to(out) for p in [*out.glob("*.csv"), *out.glob("tables/*.csv")]]
    assert len(names) > 8
    for name in names:
        pd.testing.assert_frame_equal(pd.read_csv(again / name), pd.read_csv(out / name),
                                      check_exact=True)
