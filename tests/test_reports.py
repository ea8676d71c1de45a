"""reports.analyse / reports.build on the bundled example (offline, fast), the figure
functions, the table renderers, and the optional sections plugging in."""

from __future__ import annotations

import base64
import io
import re

import matplotlib.pyplot as plt
import pandas as pd
import pytest
from acceptability.reports import figures, tables
from matplotlib.figure import Figure
from PIL import Image

from acceptability import reports, stats

EXPECTED_FIGURES = {"adc_curve", "corr_sentence", "corr_pair", "scatter_sentence",
                    "scatter_pair", "type_mean_sd", "type_correlations"}


def assert_valid_png(blob: bytes) -> None:
    with Image.open(io.BytesIO(blob)) as im:
        im.verify()
    with Image.open(io.BytesIO(blob)) as im:
        assert im.format == "PNG" and im.width > 50 and im.height > 50


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
                  "Mixed-effects judgment models", "Model comparisons", "Reproducibility"):
        assert f"<h2>{title}</h2>" in html and f"## {title}" in md
    assert "not requested" in html  # an omitted section says why


def test_provenance_block(example_results, tmp_path):
    prov = example_results.provenance
    assert prov["seed"] == 0 and prov["dependencies"]["pandas"] == pd.__version__
    assert {m["model"] for m in prov["models"]} == set(example_results.models)
    assert prov["scores_checksum"].startswith("sha256:")
    report = reports.build(example_results, tmp_path)
    assert '"scores_checksum"' in report.provenance.read_text()
    assert "scores_checksum" in report.html.read_text()


def test_figure_functions_return_figures(example, example_results):
    r = example_results
    made = [
        figures.correlation_heatmap(r.corr_sentence),
        figures.human_vs_model(stats.sentence_frame(*example)),
        figures.delta_scatter(stats.pair_deltas(*example)),
        figures.adc_curve(stats.adc_curve(*example), dict(zip(r.evaluation["model"],
                                                              r.evaluation["n_pairs_human"],
                                                              strict=True))),
        figures.accuracy_bars(stats.evaluate(*example, by="dataset"), "dataset"),
        figures.type_mean_sd(r.variability.types),
        figures.type_correlations(r.variability.mean_corr, r.variability.sd_corr),
        figures.forest(pd.DataFrame({"model_a": ["a"], "model_b": ["b"], "difference": [0.1],
                                     "lower": [0.0], "upper": [0.2], "p_boot_adj": [0.04]})),
    ]
    for fig in made:
        assert isinstance(fig, Figure)
        plt.close(fig)


def test_scatter_jitter_alpha_and_fit_line(example):
    fig = figures.human_vs_model(stats.sentence_frame(*example))
    ax = fig.axes[0]
    assert ax.collections[0].get_alpha() == pytest.approx(0.3)
    assert ax.lines[0].get_color() == "red"
    plt.close(fig)


def test_formatted_folds_ci_and_latex_escapes():
    t = pd.DataFrame({"model": ["bert_x"], "blimp": [0.8712], "blimp_lower": [0.85],
                      "blimp_upper": [0.89], "pearson_p": [1.2e-5]})
    shown = tables.formatted(t)
    assert list(shown.columns) == ["model", "blimp", "pearson_p"]
    assert shown.loc[0, "blimp"] == "0.871 [0.850, 0.890]"
    assert shown.loc[0, "pearson_p"] == "1.2e-05"
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
