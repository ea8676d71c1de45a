"""``build``: write a ``Results`` as a self-contained HTML report (figures embedded), a
Markdown report, LaTeX and CSV tables, PNG figures and a provenance JSON."""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import jinja2
import matplotlib.pyplot as plt
import pandas as pd
from markupsafe import Markup
from matplotlib.figure import Figure

from acceptability.data.io.atomic import own_folder, safe_name, write_csv, write_figure, write_text
from acceptability.reports import context, figures, tables
from acceptability.reports.analysis import Results
from acceptability.reports.labels import resampled, resampled_units
from acceptability.reports.ratings.fits import legend
from acceptability.reports.ratings.sections import rating_sections
from acceptability.reports.section import Section
from acceptability.reports.syntaxgym.tables import syntaxgym_sections
from acceptability.reports.templates import HTML, MARKDOWN, markdown_environment
from acceptability.reports.tokenization import tokenization_sections
from acceptability.stats.defaults import DEFAULT_SEED
from acceptability.stats.metric_table import criteria, lookup

DPI = 110


@dataclass
class Report:
    """Paths of what [build][acceptability.reports.build] wrote."""

    out: Path
    html: Path
    markdown: Path
    provenance: Path
    figures: dict[str, Path]
    tables: dict[str, Path]


def _omitted(has: dict[str, bool]) -> str:
    """The data summary's note on the sections this dataset cannot have."""
    parts = []
    if not has["pairs"]:
        parts.append("no minimal pairs, so no BLiMP criterion or ADC")
    if not has["human"]:
        parts.append("no gradient human judgments, so no ADC, correlations with humans or "
                     "judgment models")
    if not has["labels"]:
        parts.append("no expert labels, so no MCC")
    if not has["types"]:
        parts.append("no sentence type with two or more sentences, so no within-type "
                     "variability")
    return f"This dataset has {'; '.join(parts)}." if parts else ""


def _criteria_section(r: Results, has: dict[str, bool]) -> Section:
    """BLiMP criterion and ADC (thesis Table 3.1), the ADC curve and the per-group bars."""
    if has["human"]:
        title = "BLiMP criterion and ADC"
        text = ("Share of minimal pairs whose acceptable sentence outscores the unacceptable one "
                "(BLiMP criterion), and share whose model delta has the human delta's sign and "
                "lies within δ of it (ADC), over pairs with both values.")
    else:
        title, text = "BLiMP criterion", ("Share of minimal pairs whose acceptable sentence "
                                          "outscores the unacceptable one (accuracy).")
    if "table_3_1" in r.reference:
        title += " (thesis Table 3.1)"
    adc = Section("adc", title, text, tables=["table_3_1"],
                  notes=[r.notes[k] for k in ("bootstrap", "by_group", "by_group_ci")
                         if k in r.notes])
    if has["human"] and len(r.adc_curve):
        a = {} if r.bootstrap is None else r.bootstrap.attrs
        bars = ("" if not a.get("n_boot") else f", with the table's 95% "
                f"{resampled(a, adjective=True)} intervals at them ({a['n_boot']:,} resamples "
                f"of {resampled_units(a)})")
        adc.figures.append(("adc_curve", "ADC pass rate against δ; dotted lines at the deltas "
                            f"of the table above{bars}.",
                            lambda: figures.adc_curve(r.adc_curve, r.bootstrap, marks=r.deltas)))
    if r.by_group is not None:
        d = 1.0 if 1.0 in r.deltas else r.deltas[0]
        metrics = criteria((d,), has["human"])
        what = f"BLiMP criterion and ADC (δ = {d:g})" if has["human"] else "BLiMP criterion"
        bars = (", with 95% bootstrap intervals: each group's clusters resampled within "
                "it, a group of fewer than 10 clusters by the pairs within each (the "
                f"interval columns of tables/evaluation_by_{r.by}.csv)"
                if "blimp_lower" in r.by_group else "")
        adc.figures.append(("accuracy_by_group", f"{what} by {r.by}{bars}.",
                            lambda: figures.accuracy_bars(r.by_group, r.by, metrics)))
    return adc


def _correlation_section(r: Results) -> Section:
    """Correlations with humans: the matrices and the scatter plots (thesis ch. 2-3)."""
    seed = r.provenance.get("seed", DEFAULT_SEED)
    corr = Section("correlations", "Correlations with human judgments",
                   "Pearson and Spearman correlations of model z-scores with human judgments "
                   "per sentence, and of model deltas with human deltas per minimal pair.",
                   tables=["correlations"])
    corr.figures.append(("corr_sentence", "Pearson correlation matrix of human judgments and "
                         "model z-scores per sentence (thesis figs 2-4, 3-1).",
                         lambda: figures.correlation_heatmap(r.corr_sentence,
                                                             "Pearson r, sentence level")))
    if r.corr_pair is not None:
        corr.figures.append(("corr_pair", "Pearson correlation matrix of human and model deltas "
                             "per minimal pair (thesis figs 2-6, 3-3).",
                             lambda: figures.correlation_heatmap(r.corr_pair,
                                                                 "Pearson r, pair level")))
    corr.figures.append(("scatter_sentence", "Human judgment against model z-score per sentence, "
                         "x-jitter 0.05, alpha 0.3, least-squares line in red (thesis figs 2-5, "
                         "3-2).", lambda: figures.human_vs_model(r.sentence_frame, seed)))
    if r.pair_deltas is not None:
        corr.figures.append(("scatter_pair", "Human delta against model delta per minimal pair, "
                             "as above (thesis figs 2-7, 3-4).",
                             lambda: figures.delta_scatter(r.pair_deltas, seed)))
    return corr


def _variability_section(r: Results) -> Section:
    """Within-type variability (seed 004 section 4 and fig. 2)."""
    return Section("variability", "Within-type variability",
                   "SD of the (z-)scores of the lexical variants of each sentence type, averaged "
                   "over types (seed 004: humans 0.288 on LI-Adger).", tables=["variability"],
                   figures=[
                       ("type_mean_sd", "Type mean against type SD, per source (seed 004 "
                        "section 4).", lambda: figures.type_mean_sd(r.variability.types)),
                       ("type_correlations", "Correlations of type means (top) and type SDs "
                        "(bottom) across humans and models (seed 004 fig. 2).",
                        lambda: figures.type_correlations(r.variability.mean_corr,
                                                          r.variability.sd_corr)),
                   ])


def _model_sections(r: Results) -> tuple[Section, Section]:
    """The mixed-effects judgment models and the model comparisons."""
    notes = r.notes
    fit = Section("fits", "Mixed-effects judgment models",
                  tables=["fits"], notes=[notes["fits"]] if "fits" in notes and r.fits is None
                  else [])
    if r.fits is not None and "fit" in r.fits.table:  # trial level (reports.ratings.fits)
        fit.text = (f"Trial-level models, one row per rating, per language model: "
                    f"{r.fits.formula} ({legend(r.fits.formula)}). lmer fitted by "
                    "REML, clmm (cumulative logit, Laplace) on the raw responses; Wald 95% "
                    "intervals; clmm's thresholds 1|2, 2|3, ... on the logit scale.")
    elif r.fits is not None:
        fit.text = (f"One linear mixed model per language model, fitted by REML: "
                    f"{r.fits.formula} (score = the model's z-score; dh, dlm = human and "
                    f"model deltas of a minimal pair).")
    if r.fits is not None:
        fit.notes += r.fits.notes
        fit.pre = [(f"summary: {m}", str(text)) for m, text in r.fits.summaries.items()]
    comp = Section("comparisons", "Model comparisons", tables=["comparisons"],
                   notes=[notes["comparisons"]] if "comparisons" in notes else [])
    if r.comparisons is not None:
        comp.text = comparison_method(r.comparisons)
        if len(r.comparisons):
            comp.figures.append(("comparisons_forest", "Model differences with 95% bootstrap "
                                 "intervals and corrected bootstrap p-values (forest plot).",
                                 lambda: figures.forest(r.comparisons)))
    return fit, comp


def sections(r: Results) -> list[Section]:
    """The report's sections in order, with the figures each shows; a section the
    dataset cannot support ([supports][acceptability.reports.tables.supports]) is left out.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.reports import analyse
    >>> from acceptability.reports.render import sections
    >>> results = analyse(*load_example(), n_boot=0)
    >>> [s.anchor for s in sections(results)]
    ['data', 'adc', 'correlations', 'mcc', 'variability', 'reproducibility']
    """
    notes = r.notes
    has = tables.supports(r)
    fit, comp = _model_sections(r)
    repro = Section("reproducibility", "Reproducibility",
                    "Versions, models, seeds, data checksums and the command that made this "
                    "report (also in provenance.json).",
                    pre=[("provenance", json.dumps(r.provenance, indent=2, default=str))])
    mcc = Section("mcc", "MCC", "Predicted label (classifier: sign of the signed "
                  "confidence; other scores: z above 0) against the expert label.",
                  tables=["mcc"])
    # a benchmark's (SyntaxGym's) sections replace the judgment ones
    bench = r.benchmark is not None or r.syntaxgym is not None
    in_context = context.has_conditions(r.dataset)  # a type: one sentence in its contexts
    shown = {"adc": has["pairs"] and not bench, "correlations": has["human"],
             "mcc": has["labels"] and not bench,
             "variability": has["types"] and not bench and not in_context,
             "fits": bool(r.fits and r.fits.summaries), "comparisons": r.comparisons is not None}
    # why a section the reader may look for is missing: said once, in the data summary
    absent = [notes[k] for k in ("fits", "comparisons")
              if not shown[k] and k in notes and (has["human"] or has["pairs"])]
    data = Section("data", "Data summary", _omitted(has),
                   tables=["data_summary", "exclusions", "counts"], notes=absent)
    corr = _correlation_section(r)
    parts = (data, *benchmark_sections(r), *syntaxgym_sections(r), _criteria_section(r, has),
             *(rating_sections(r, corr) or [corr]), mcc, _variability_section(r), fit, comp,
             *tokenization_sections(r), repro)
    return [s for s in parts if shown.get(s.anchor, True)]


# Benchmark sections that show one table (its key is the anchor): the Benchmark field that
# holds it, the anchor, the title and the text.
TABLE_SECTIONS = (
    ("contrasts", "contrasts", "Intervening material and irregular forms",
     "BLiMP section 6: agreement with and without an intervening adjective or attractor, "
     "and regular against irregular plurals."),
    ("baselines", "baselines", "Baselines without structure (seed 004)",
     "Seed 004's hand-written linear rules (Tables 4, 6-7), which pick the acceptable "
     "sentence from surface patterns (0.5 where a rule cannot decide), and the paper's "
     "printed BabyBERTa, 5-gram and oracle accuracies, beside your first model: how much of "
     "each paradigm a model can pass without structure."),
    ("table1", "ml_table1", "Marvin & Linzen Table 1",
     "Accuracy per condition of the paper's Table 1, beside its published values."),
)


def benchmark_sections(r: Results) -> list[Section]:
    """Accuracy tables (with BLiMP's humans and published models), the correlation of
    per-paradigm accuracies, BLiMP's sec. 6 contrasts, Marvin & Linzen's Table 1 and the
    shallow predictors, for the parts the data support."""
    b = r.benchmark
    if b is None:
        return []
    acc = Section("accuracy", "Accuracy on the benchmark",
                  "Share of minimal pairs on which each system prefers the acceptable "
                  "sentence: score(good) > score(bad) for a model"
                  + (" (exact ties at random, Zorro's rule)" if b.name == "zorro" else "")
                  + "; a phenomenon's accuracy is the mean of its paradigms' (BLiMP Table 3).",
                  tables=["accuracy_phenomenon", "accuracy_paradigm"], notes=list(b.notes))
    if b.correlations is not None:
        acc.figures.append(("accuracy_correlations", "Pearson correlations between systems of "
                            "their per-paradigm accuracies (BLiMP Fig. 1).",
                            lambda: figures.correlation_heatmap(
                                b.correlations, "Pearson r of per-paradigm accuracy")))
    out = [acc] + [Section(anchor, title, text, tables=[anchor])
                   for field_name, anchor, title, text in TABLE_SECTIONS
                   if getattr(b, field_name) is not None]
    if b.shallow is not None:
        out.append(Section("shallow", "Shallow predictors of accuracy",
                           "BLiMP section 5.2: accuracy on pairs binned by sentence length, "
                           "perplexity and log-probability of the acceptable sentence, and "
                           "confidence |log P(s1) − log P(s2)| (quantile bins).",
                           figures=[("shallow_predictors", "Accuracy against shallow "
                                     "predictors, a line per model (BLiMP Fig. 2).",
                                     lambda: figures.shallow_predictors(b.shallow))]))
    return out


def comparison_method(c: pd.DataFrame) -> str:
    """How the comparisons' intervals and p-values were obtained, from ``compare_all``'s
    table and attrs: method, resamples, resolution, tests, correction."""
    a, m = c.attrs, len(c)
    metric = c["metric"].iloc[0] if m else "the metric"
    names = {"mcnemar_exact": "the exact McNemar test", "steiger_z": "Steiger's z"}
    test = ", ".join(names.get(t, t) for t in c["test"].dropna().unique()) if m else ""
    corrected = bool(a.get("correction")) and m > 1
    text = (f"Pairwise differences (model a − model b) in {metric} with {a['ci']:.0%} paired "
            f"bootstrap intervals ({a['method']}; the {a['n_units']} {a['unit']} units "
            + ("resampled" if a["unit"] == a["cluster"] else
               f"resampled within each of too few {a['cluster']} clusters")
            + ", every model in the same resamples). p (bootstrap) is two-sided: "
            "(1 + the number of resampled differences beyond 0) / (n + 1), doubled, from "
            f"n = {a['n_boot']:,} resamples, so none can be below {a['p_min']:.2g}")
    if corrected:
        text += (f"; corrected for {m} comparisons ({a['correction']}), none below "
                 f"{min(1.0, m * a['p_min']):.2g}, which is why n grows with the number of "
                 "comparisons (stats.resamples_for)")
    if test:
        found = lookup(metric)
        unit = "sentences" if found is not None and found[0].level == "sentence" else "pairs"
        text += (f". p (test): {test} on the full data, which treats {unit} as independent "
                 f"(clustered {unit} make it too small)" + (", corrected the same way"
                                                            if corrected else ""))
    return text + "."


def _rated(ds) -> str:
    """The subtitle's count of trial-level ratings, or of SyntaxGym suites, where there are
    any."""
    if "suite" in ds.sentences and not len(ds.pairs):
        return f", {ds.sentences['suite'].nunique()} SyntaxGym suites"
    return "" if ds.ratings is None else f", {len(ds.ratings):,} ratings"


def _write_figure(fig: Figure, path: Path) -> str:
    try:
        write_figure(fig, path, dpi=DPI)
    finally:
        plt.close(fig)
    return base64.b64encode(path.read_bytes()).decode("ascii")


# A cell read as a number: a value, an interval after it, "< 1e-300" or the missing dash
# (tables.formatted); a column with any other cell is text, left-aligned like the first.
NUMBER = re.compile(r"(< )?[-−]?(\d+(\.\d+)?(e[-+]?\d+)?|inf)( \[[^\]]*\])?|–", re.IGNORECASE)


def _text_columns(table: pd.DataFrame) -> list[int]:
    """The 1-based positions, after the first, of ``table``'s columns that hold text as
    the report shows them (tables.display_table)."""
    shown = tables.display_table(table)
    return [i for i, c in enumerate(shown.columns, 1)
            if i > 1 and not shown.iloc[:, i - 1].str.fullmatch(NUMBER).all()]


def _alignment_css(rendered: list[dict]) -> Markup:
    """CSS that left-aligns the text columns of each table (numbers stay right-aligned)."""
    cells = [f"#table-{t['number']} + .scroll :is(td, th):nth-child({k})"
             for s in rendered for t in s["tables"] for k in t["text_columns"]]
    return Markup(",\n".join(cells) + " { text-align: left; }" if cells else "")


def _render(parts: list[Section], all_tables: dict, out: Path) -> tuple[list[dict], dict]:
    """Each section's tables (CSV and LaTeX files) and figures (PNG files) written into
    ``out``, numbered through the report; the sections as the templates take them, and
    the table files by name."""
    table_files: dict[str, Path] = {}
    rendered = []
    n_tables = n_figures = 0
    for s in parts:
        ts = []
        for key in s.tables:
            caption, table = all_tables[key]
            if table is None:
                continue
            n_tables += 1
            csv, tex = out / "tables" / f"{key}.csv", out / "tables" / f"{key}.tex"
            write_csv(table, csv, index=False)
            write_text(tex, f"% Table {n_tables} of report.html\n"
                            + tables.to_latex(table, caption, key))
            table_files[f"{key}.csv"], table_files[f"{key}.tex"] = csv, tex
            ts.append({"number": n_tables, "caption": caption,
                       "html": Markup(tables.to_html(table)),  # escaped
                       "markdown": tables.to_markdown(table),
                       "text_columns": _text_columns(table),
                       "files": {"csv": f"tables/{key}.csv", "tex": f"tables/{key}.tex"}})
        fs = []
        for name, caption, make in s.figures:
            n_figures += 1
            path = out / "figures" / f"{name}.png"
            fs.append({"number": n_figures, "caption": caption, "file": f"figures/{name}.png",
                       "base64": _write_figure(make(), path)})
        rendered.append({"anchor": s.anchor, "title": s.title, "text": s.text, "notes": s.notes,
                         "tables": ts, "figures": fs,
                         # provenance wraps (its command can be long); fit summaries,
                         # columns of text, scroll in their box
                         "pre": [{"title": t, "text": x, "wrap": t == "provenance"}
                                 for t, x in s.pre]})
    return rendered, table_files


def build(results: Results, out: str | os.PathLike = "report",
          title: str | None = None) -> Report:
    """Write the report for ``results`` into ``out``.

    Parameters
    ----------
    results : Results
        What [analyse][acceptability.reports.analyse] computed.
    out : str or os.PathLike
        The report folder (created): ``report.html`` (self-contained, figures embedded),
        ``report.md``, ``figures/*.png``, ``tables/*.csv`` and ``*.tex`` (booktabs) and
        ``provenance.json``.
    title : str, optional
        The report's title (default: "acceptability report: <dataset>").

    Returns
    -------
    Report
        The paths written.

    Examples
    --------
    >>> import tempfile
    >>> from acceptability.data import load_example
    >>> from acceptability.reports import analyse, build
    >>> results = analyse(*load_example(), n_boot=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     report = build(results, tmp)
    ...     html = report.html.read_text(encoding="utf-8")
    >>> report.html.name, sorted(report.figures)[:2]
    ('report.html', ['adc_curve', 'corr_pair'])
    >>> "Within-type variability" in html
    True
    """
    out = Path(out)
    own_folder(out / "figures")
    own_folder(out / "tables")
    rendered, table_files = _render(sections(results), tables.all_tables(results), out)
    extra = {"evaluation": tables.evaluation_with_ci(results.evaluation, results.bootstrap)}
    if results.by_group is not None:
        extra[f"evaluation_by_{safe_name(results.by)}"] = results.by_group
    for key, table in extra.items():
        table_files[f"{key}.csv"] = out / "tables" / f"{key}.csv"
        write_csv(table, table_files[f"{key}.csv"], index=False)
    figure_files = {f["file"].removeprefix("figures/").removesuffix(".png"): out / f["file"]
                    for s in rendered for f in s["figures"]}
    ds, n = results.dataset, len(results.models)
    context = {
        "title": title or f"acceptability report: {ds.name}",
        "subtitle": (f"{n} model{'s' * (n != 1)} on {ds.name} ({len(ds.sentences)} sentences, "
                     f"{len(ds.pairs)} minimal pairs{_rated(ds)}); made "
                     f"{results.provenance.get('created')} "
                     f"by acceptability {results.provenance.get('acceptability')}."),
        "sections": rendered,
        "table_css": _alignment_css(rendered),
    }
    env = jinja2.Environment(autoescape=jinja2.select_autoescape(default=True),
                             undefined=jinja2.StrictUndefined)
    html = env.from_string(HTML).render(context)
    md_env = markdown_environment()  # every value escaped for Markdown
    markdown = re.sub(r"\n{3,}", "\n\n", md_env.from_string(MARKDOWN).render(context))
    html_path, md_path = out / "report.html", out / "report.md"
    write_text(html_path, html)
    write_text(md_path, markdown)
    prov = out / "provenance.json"
    write_text(prov, json.dumps(results.provenance, indent=2, default=str))
    return Report(out=out, html=html_path, markdown=md_path, provenance=prov,
                  figures=figure_files, tables=table_files)
