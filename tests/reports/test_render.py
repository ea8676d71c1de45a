"""reports.analyse / reports.build on the bundled example (offline, fast), the figure
functions, the table renderers, and the optional sections plugging in."""

from __future__ import annotations

import base64
import io
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.container import BarContainer
from PIL import Image

from acceptability import reports, stats
from acceptability.reports import figures, tables
from tests.reports.recompute.independent import components

EXPECTED_FIGURES = {"adc_curve", "corr_sentence", "corr_pair", "scatter_sentence",
                    "scatter_pair", "type_mean_sd", "type_correlations"}


def assert_valid_png(blob: bytes) -> None:
    with Image.open(io.BytesIO(blob)) as im:
        im.verify()
    with Image.open(io.BytesIO(blob)) as im:
        assert im.format == "PNG" and im.width > 50 and im.height > 50
        gray = np.asarray(im.convert("L"))
    # not blank: many grey levels (text, markers, colour maps), ink on over 1% of pixels;
    # what each figure draws is checked in tests/reports/test_figures.py
    assert len(np.unique(gray)) > 20 and (gray < 250).mean() > 0.01


@pytest.fixture(scope="module")
def example_results(example):
    ds, sc = example
    return reports.analyse(ds, sc, n_boot=0, formula=None)


def test_build_writes_html_markdown_latex_and_figures(example_results, tmp_path):
    report = reports.build(example_results, tmp_path / "rep")
    assert set(report.figures) >= EXPECTED_FIGURES
    for path in report.figures.values():
        assert_valid_png(path.read_bytes())
    html = report.html.read_text()
    srcs = re.findall(r'<img src="([^"]+)"', html)
    assert len(srcs) == len(report.figures)
    for src in srcs:  # self-contained: every figure embedded
        assert src.startswith("data:image/png;base64,")
        assert_valid_png(base64.b64decode(src.split(",", 1)[1]))
    md = report.markdown.read_text()
    for name in report.figures:
        assert f"(figures/{name}.png)" in md
    for key in ("table_3_1", "correlations", "mcc", "variability", "data_summary", "exclusions"):
        tex = (tmp_path / "rep" / "tables" / f"{key}.tex").read_text()
        assert r"\toprule" in tex and r"\bottomrule" in tex
        assert f'href="tables/{key}.tex"' in html
    for title in ("Data summary", "BLiMP criterion and ADC", "MCC",
                  "Correlations with human judgments", "Within-type variability",
                  "Reproducibility"):
        assert f"<h2>{title}</h2>" in html and f"## {title}" in md
    # sections without content are left out, and the data summary says why
    for title in ("Mixed-effects judgment models", "Model comparisons"):
        assert f"<h2>{title}</h2>" not in html and f"## {title}" not in md
    assert "Mixed models were not requested" in html
    assert "Model comparisons need at least two models, bootstrap resamples" in html


def test_provenance_block(example_results, tmp_path):
    prov = example_results.provenance
    assert prov["seed"] == 0 and prov["dependencies"]["pandas"] == pd.__version__
    assert {m["model"] for m in prov["models"]} == set(example_results.models)
    assert prov["scores_checksum"].startswith("sha256:")
    report = reports.build(example_results, tmp_path)
    assert '"scores_checksum"' in report.provenance.read_text()
    assert "scores_checksum" in report.html.read_text()


def test_subtitle_counts_models_in_the_singular_too(example, tmp_path):
    ds, sc = example
    for models, said in ((["bert-large-cased_acc"], "1 model on"),
                         (["bert-large-cased_acc", "trigram_slor"], "2 models on")):
        results = reports.analyse(ds, sc[sc["model"].isin(models)], n_boot=0, formula=None)
        assert said in reports.build(results, tmp_path / said).html.read_text()


def test_scatter_jitter_alpha_and_fit_line(example):
    fig = figures.human_vs_model(stats.sentence_frame(*example))
    ax = fig.axes[0]
    assert ax.collections[0].get_alpha() == pytest.approx(0.3)
    assert ax.lines[0].get_color() == "red"
    plt.close(fig)


def test_formatted_folds_ci_and_latex_escapes():
    t = pd.DataFrame({"model": ["bert_x", "bert_y"], "blimp": [0.8712, 0.5],
                      "blimp_lower": [0.85, 0.4], "blimp_upper": [0.89, 0.6],
                      "pearson_p": [1.2e-5, 0.0]})
    shown = tables.formatted(t)
    assert list(shown.columns) == ["model", "blimp", "pearson_p"]
    assert shown.loc[0, "blimp"] == "0.871 [0.850, 0.890]"
    assert shown.loc[0, "pearson_p"] == "1.2e-05"
    assert shown.loc[1, "pearson_p"] == "< 1e-300"  # scipy's p underflowed (r = 0.63, n = 4176)
    tex = tables.to_latex(t, "caption", "x")
    assert r"bert\_x" in tex and r"\label{tab:x}" in tex


def test_real_bootstrap_and_comparisons(example, tmp_path):
    """The package's stats.bootstrap / compare_all reach the report."""
    r = reports.analyse(*example, n_boot=200, formula=None)
    assert r.bootstrap is not None and {"lower", "upper"} <= set(r.bootstrap.columns)
    assert r.comparisons is not None and len(r.comparisons) == 3
    report = reports.build(r, tmp_path)
    assert "comparisons_forest" in report.figures


def test_mixed_models_section(example, tmp_path):
    ds, sc = example
    fits = reports.fit_models(ds, sc, "human ~ score + (1 | phenomenon)")
    assert set(fits.table["term"]) == {"(Intercept)", "score"}
    r = reports.analyse(ds, sc, n_boot=0, formula="human ~ score + (1 | phenomenon)")
    html = reports.build(r, tmp_path).html.read_text()
    assert "Linear mixed model fit by REML" in html


def test_pair_level_mixed_model(example):
    fits = reports.fit_models(*example, formula="dh ~ dlm + (1 | phenomenon)")
    assert set(fits.table["term"]) == {"(Intercept)", "dlm"}
    assert fits.table["n"].max() <= len(example[0].pairs)


@pytest.fixture(scope="module")
def li_adger_results(li_adger, li_adger_scores):
    return reports.analyse(li_adger, li_adger_scores, n_boot=1000, by="dataset", formula=None)


def test_report_comparisons_can_be_significant_after_correction(li_adger_results, li_adger):
    """With 1,000 resamples and 28 Holm comparisons no corrected p could fall below 0.056,
    not even for a difference of 0.23 [0.16, 0.30]; the report now draws as many resamples
    as the 28 comparisons need (stats.resamples_for) and says how p was obtained."""
    from acceptability.reports import render

    r = li_adger_results
    c = tables.comparisons(r)
    assert len(c) == 28 and r.comparisons.attrs["n_boot"] == stats.resamples_for(28) == 55_999
    assert (c["p_min"] == 2 / 56_000).all()
    row = c[(c["model_a"] == "bert-large-cased_acc") & (c["model_b"] == "trigram_logprob")]
    assert row["difference_lower"].iloc[0] > 0 and row["p_boot_adj"].iloc[0] < 0.05
    text = render.comparison_method(r.comparisons)
    for said in ("n = 55,999 resamples", "none can be below 3.6e-05", "28 comparisons (holm)",
                 "none below 0.001", "exact McNemar"):
        assert said in text
    assert "55,999" in tables.all_tables(r)["comparisons"][0]
    fig = figures.forest(r.comparisons)
    s, p = li_adger.sentences, li_adger.pairs  # the title names the clusters resampled
    rows = pd.Index(s["sentence_id"])
    k = len(np.unique(components(s["type_id"].to_numpy(), rows.get_indexer(p["good_id"]),
                                 rows.get_indexer(p["bad_id"]))))
    assert (f"holm-adjusted paired cluster bootstrap, 55,999 resamples of {k} type_id "
            "clusters") in fig.axes[0].get_title()
    plt.close(fig)


def _bars(container) -> np.ndarray:
    """(lower, upper) ends of the error bars of a bar or errorbar container."""
    bars = getattr(container, "errorbar", container)
    return np.array([[seg[0][1], seg[1][1]] for seg in bars.lines[2][0].get_segments()])


def test_figures_draw_the_tables_intervals(li_adger_results):
    """No Wilson bands: the per-group bars and the ADC curve carry the cluster-bootstrap
    intervals of the tables (evaluation_by_dataset.csv and Table 3.1)."""
    r = li_adger_results
    by = r.by_group
    assert {"blimp_lower", "adc_1_upper", "ci_unit"} <= set(by.columns)
    fig = figures.accuracy_bars(by, "dataset")
    for ax, metric in zip(fig.axes, ("blimp", "adc_1"), strict=True):
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        for container, model in zip(bars, dict.fromkeys(by["model"]), strict=True):
            rows = by[by["model"] == model]
            np.testing.assert_allclose(_bars(container), rows[[f"{metric}_lower",
                                                               f"{metric}_upper"]].to_numpy())
    plt.close(fig)
    fig = figures.adc_curve(r.adc_curve, r.bootstrap, marks=r.deltas)
    ax = fig.axes[0]
    boot = r.bootstrap.set_index(["model", "metric"])
    models = [m for m in dict.fromkeys(r.adc_curve["model"])]
    for container, model in zip(ax.containers, models, strict=True):
        keys = [(model, f"adc_{d:g}") for d in r.deltas]
        np.testing.assert_allclose(_bars(container), boot.loc[keys, ["lower", "upper"]].to_numpy())
    assert "Wilson" not in ax.get_title()
    plt.close(fig)

