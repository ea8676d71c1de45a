"""Report tables built from a ``Results``: numeric DataFrames (written as CSV) and their
display forms (HTML, Markdown, LaTeX with booktabs)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import SUBSET_REASON
from acceptability.data.loaders.published import SEED_004_VARIABILITY
from acceptability.data.names import display_names, is_machine_path
from acceptability.reports.analysis import Results
from acceptability.reports.benchmark import HUMAN, accuracy_display
from acceptability.reports.escape import Markdown, escape_markdown, latex_escape
from acceptability.reports.labels import header, resampled, resampled_units
from acceptability.reports.ratings.tables import all_rating_tables, summary_rows
from acceptability.reports.syntaxgym.tables import syntaxgym_summary, syntaxgym_tables
from acceptability.reports.tokenization import tokenization_tables
from acceptability.stats.inference.bootstrap import with_intervals
from acceptability.stats.metric_table import METRICS, correlation_levels, criteria, has


def supports(results: Results) -> dict[str, bool]:
    """What the dataset allows: minimal pairs (BLiMP criterion), gradient human judgments
    (ADC, correlations, judgment models), expert labels (MCC), sentence types of two or
    more sentences (variability): the metrics table's ``NEEDS``."""
    return has(results.dataset)


def _shown_source(source: str) -> str:
    """A local folder by its name (the full path, a fact of one machine, stays in
    provenance.json); a URL or a description as it is."""
    if not is_machine_path(source):
        return source
    return f"local folder {display_names([source])[source]} (full path in provenance.json)"


def data_summary(results: Results) -> pd.DataFrame:
    """Counts of the dataset and of the scores that enter the analysis."""
    ds, sc = results.dataset, results.scores
    s = ds.sentences
    rows = [
        ("dataset", ds.name), ("source", _shown_source(ds.source)),
        ("sentences", len(s)), ("sentences with a human judgment", int(s["human"].notna().sum())),
        ("sentence types", s["type_id"].nunique() if (s["type_id"] != s["sentence_id"]).any()
         else "none given (each sentence is its own type)"),
        ("phenomena", s["phenomenon"].nunique() if (s["phenomenon"] != s["type_id"]).any()
         else "none given (each sentence type is its own phenomenon)"),
        *summary_rows(results), *syntaxgym_summary(results),
        ("minimal pairs", len(ds.pairs)),
        *([("pairs whose two texts are identical (kept)", int(ds.pairs["identical_text"].sum()))]
          if "identical_text" in ds.pairs else []),
        ("models", sc["model"].nunique()),
        ("scores (all models)", int(sc["score"].notna().sum())),
        *([("scores missing (NaN), left out", int(sc["score"].isna().sum()))]
          if sc["score"].isna().any() else []),
        *([("score rows set aside: their sentences are outside the selected paradigms, pairs or "
            "sentences", sc.attrs["set_aside"])] if sc.attrs.get("set_aside") else []),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"]).astype({"value": str})


def exclusions(results: Results) -> pd.DataFrame:
    """What the loader set aside and why (``Dataset.exclusions``), nothing dropped silently."""
    ex = results.dataset.exclusions
    if not len(ex):
        return pd.DataFrame({"table": ["-"], "reason": ["nothing excluded by the loader"],
                             "n": [0]})
    return ex.drop(columns="ids", errors="ignore").reset_index(drop=True)  # ids: for subset


def counts(results: Results) -> pd.DataFrame:
    """Per model: sentences and pairs used, and pairs left out for a missing value (the
    human-judgment columns only where the dataset has human judgments)."""
    cols = ["model", "n_sentences", "n_pairs", "n_pairs_human", "n_pairs_no_human",
            "n_pairs_excluded", "n_mcc"]
    has = supports(results)
    if not has["human"] or not has["pairs"]:
        cols = [c for c in cols if c not in ("n_pairs_human", "n_pairs_no_human")]
    if not has["pairs"]:
        cols = [c for c in cols if c not in ("n_pairs", "n_pairs_excluded")]
    if not has["labels"]:
        cols.remove("n_mcc")
    return results.evaluation[[c for c in cols if c in results.evaluation]]


def evaluation_with_ci(evaluation: pd.DataFrame, bootstrap: pd.DataFrame | None) -> pd.DataFrame:
    """``stats.evaluate``'s table with ``<metric>_lower``/``_upper`` beside each metric from
    the tidy bootstrap table (``stats.with_intervals``) when there is one."""
    if bootstrap is None or not len(bootstrap):
        return evaluation
    return with_intervals(evaluation, bootstrap)


def criteria_metrics(results: Results) -> list[str]:
    """The pass-rate criteria the dataset supports (the metrics table's ``passes``): BLiMP,
    and the ADC at each delta when there are human judgments."""
    return criteria(results.deltas, supports(results)["human"])


def table_3_1(results: Results) -> pd.DataFrame:
    """Thesis Table 3.1: BLiMP criterion and ADC at each delta per model (with bootstrap
    CI columns when available), each beside the thesis value where one is published;
    without human judgments, the BLiMP criterion alone."""
    ev = evaluation_with_ci(results.evaluation, results.bootstrap)
    ref = results.reference.get("table_3_1")
    thesis = ref.set_index("model") if ref is not None else pd.DataFrame()
    out = ev[["model", "n_pairs"]].copy()
    for metric in criteria_metrics(results):
        for col in (metric, f"{metric}_lower", f"{metric}_upper"):
            if col in ev:
                out[col] = ev[col]
        if metric in thesis:
            out[f"{metric} (thesis)"] = out["model"].map(thesis[metric])
    return out


def correlations(results: Results) -> pd.DataFrame:
    """Pearson and Spearman correlations with humans at sentence and pair level (thesis
    Table 2.3, with the thesis r beside ours when published)."""
    c = results.correlations.copy()
    b = results.bootstrap
    if b is not None:  # the cluster-bootstrap interval of each Pearson r
        levels = correlation_levels()
        r = b[b["metric"].isin(list(levels))].assign(level=lambda t: t["metric"].map(levels))
        r = r.rename(columns={"lower": "pearson_lower", "upper": "pearson_upper"})
        c = c.merge(r[["model", "level", "pearson_lower", "pearson_upper"]],
                    on=["model", "level"], how="left")
        at = list(c.columns).index("pearson") + 1
        c = c[[*c.columns[:at], "pearson_lower", "pearson_upper",
               *[k for k in c.columns[at:] if k not in ("pearson_lower", "pearson_upper")]]]
    ref = results.reference.get("table_2_3")
    if ref is not None:
        thesis = ref.melt(id_vars="model", var_name="level", value_name="pearson (thesis)")
        thesis["level"] = thesis["level"].str.removeprefix("r_")
        c = c.merge(thesis, on=["model", "level"], how="left")
    return c


def mcc(results: Results) -> pd.DataFrame:
    """Matthews correlation of predicted vs expert labels (thesis 2.4): the metrics that
    need expert labels, with their intervals, and the sentences with a label."""
    ev = evaluation_with_ci(results.evaluation, results.bootstrap)
    labelled = [s.name for s in METRICS.values() if "labels" in s.needs]
    cols = ["model", *[c for m in labelled for c in (m, f"{m}_lower", f"{m}_upper")], "n_mcc"]
    return ev[[c for c in cols if c in ev]]


def variability(results: Results) -> pd.DataFrame:
    """Within-type variability (mean SD of z over the 8 lexical variants of each type),
    with seed 004's published values where they exist."""
    s = results.variability.summary.copy()
    if results.dataset.name == "li-adger":
        s["seed 004"] = s["source"].map(SEED_004_VARIABILITY)
    return s


def fits(results: Results) -> pd.DataFrame | None:
    """Fixed effects of the mixed models (Wald 95% intervals)."""
    if results.fits is None:
        return None
    table = results.fits.table.drop(columns="engine", errors="ignore")  # in provenance
    return table.rename(columns={"lower": "estimate_lower", "upper": "estimate_upper"})


COMPARISON_COLUMNS = ("model_a", "model_b", "estimate_a", "estimate_b", "difference",
                      "difference_lower", "difference_upper", "p_boot", "p_boot_adj", "p_min",
                      "test", "p_test", "p_test_adj")


def comparisons(results: Results) -> pd.DataFrame | None:
    """Model comparisons (``stats.compare_all``): the difference a − b with its bootstrap
    interval, bootstrap and classical p-values, raw and corrected."""
    c = results.comparisons
    if c is None:
        return None
    c = c.rename(columns={"lower": "difference_lower", "upper": "difference_upper"})
    return c[[k for k in COMPARISON_COLUMNS if k in c]]


def comparisons_caption(results: Results) -> str:
    """The comparisons table's caption: resamples, resolution and correction of its p."""
    c = results.comparisons
    if c is None or "p_min" not in c.attrs:
        return "Model comparisons"
    a = c.attrs
    corrected = f"; p corrected ({a['correction']}) for {len(c)} comparisons" \
        if a.get("correction") else ""
    return (f"Model comparisons: paired {resampled(a)}, {a['n_boot']:,} resamples of "
            f"{resampled_units(a)} (smallest possible p {a['p_min']:.2g}){corrected}")


def benchmark_accuracy(results: Results, level: str) -> pd.DataFrame | None:
    """Benchmark accuracy (0-1) per group of ``level`` and system, with intervals."""
    b = results.benchmark
    if b is None:
        return None
    table = accuracy_display(b.accuracy, level)
    table.attrs["names"] = list(b.accuracy["system"].unique())
    return table


def benchmark_sample(results: Results) -> str:
    """Caption text on the pairs behind the benchmark accuracies: per paradigm, for each
    system judged here (scored models, rules, humans)."""
    a = results.benchmark.accuracy
    para = a[(a["level"] == "paradigm") & (a["source"] != "published")]
    sizes: dict[str, list[str]] = {}
    for system, n in para.groupby("system", sort=False)["n_pairs"]:
        k = f"{n.min():,.0f}" if n.min() == n.max() else f"{n.min():,.0f}-{n.max():,.0f}"
        sizes.setdefault(k, []).append(str(system))
    return "pairs per paradigm: " + "; ".join(f"{', '.join(s)} {k}" for k, s in sizes.items())


def published_pairs(results: Results) -> str:
    """Caption text on the pairs behind published accuracies: all pairs of each paradigm,
    which a dataset restricted to some of them (``--max-pairs``) does not hold."""
    ex = results.dataset.exclusions
    if ((ex["table"] == "pairs") & (ex["reason"] == SUBSET_REASON)).any():
        return ("published accuracies rest on all pairs of each paradigm, the others only on "
                "the pairs kept here (a subset of each paradigm, e.g. --max-pairs): not the same "
                "pairs")
    return "published accuracies on all pairs of each paradigm"


def benchmark_intervals(results: Results) -> str:
    """Caption text on the intervals of the benchmark accuracy tables."""
    a = results.benchmark.accuracy.attrs if results.benchmark is not None else {}
    if not a.get("n_boot"):
        return "no intervals (n_boot = 0)"
    humans = (results.benchmark.accuracy["system"] == HUMAN).any()
    return (f"{a['ci']:.0%} percentile intervals from {a['n_boot']:,} bootstrap resamples of "
            "the pairs within each paradigm" + (" (a human pair with all its judgments)"
                                                if humans else ""))


def _baselines(results: Results) -> pd.DataFrame | None:
    """Seed 004's Tables 3/5 (``stats.reference_table``, in percent) as proportions."""
    b = results.benchmark
    if b is None or b.baselines is None:
        return None
    table = b.baselines.reset_index()
    names = [c for c in table.columns if c != "paradigm"]
    accuracies = table.index[:-1]  # the last row counts paradigms ("k/n")
    table.loc[accuracies, names] = table.loc[accuracies, names].astype(float) / 100
    table.attrs["names"] = names
    return table


def _contrasts(results: Results) -> pd.DataFrame | None:
    """BLiMP's sec. 6 contrasts (``stats.benchmarks.contrast``, in percent) as proportions."""
    c = results.benchmark.contrasts if results.benchmark is not None else None
    if c is None:
        return None
    c = c.assign(**{k: c[k] / 100 for k in ("first", "second", "difference")})
    return c.rename(columns={"first": "first set", "second": "second set",
                             "difference": "first − second"})


def all_tables(results: Results) -> dict[str, tuple[str, pd.DataFrame | None]]:
    """Every report table by file stem: (caption, table or None when not available)."""
    metrics = criteria_metrics(results)
    names = ", ".join(header(m) for m in metrics)
    thesis = ", with the thesis values (thesis Table 3.1)" if "table_3_1" in results.reference \
        else ""
    sign = f"; ADC sign convention '{results.sign}'" if len(metrics) > 1 else ""
    attrs = results.bootstrap.attrs if results.bootstrap is not None else {}
    boot = resampled(attrs, adjective=True)
    if attrs.get("n_boot"):  # what the engine resampled, not a template's wording
        boot += f" ({attrs['n_boot']:,} resamples of {resampled_units(attrs)})"
    bench = published = shown = ""  # shown: the published accuracies beside ours, if any
    if results.benchmark is not None:
        published = f"; {published_pairs(results)}"
        shown = published if (results.benchmark.accuracy["source"] == "published").any() else ""
        bench = f"{benchmark_intervals(results)}; {benchmark_sample(results)}{shown}"
    return {
        "data_summary": ("Data summary", data_summary(results)),
        "exclusions": ("Rows excluded by the loader, and why", exclusions(results)),
        "counts": ("Sentences and pairs used per model", counts(results)),
        "table_3_1": (f"{names} per model{thesis}; 95% {boot} intervals in brackets when "
                      f"computed{sign}", table_3_1(results)),
        "correlations": ("Correlations with human judgments"
                         + (" (thesis Table 2.3)" if "table_2_3" in results.reference else "")
                         + (f"; Pearson r's 95% {boot} intervals" if attrs.get("n_boot")
                            else ""), correlations(results)),
        "mcc": ("Matthews correlation coefficient against expert labels", mcc(results)),
        "variability": ("Within-type variability (seed 004)", variability(results)),
        "fits": ("Mixed-model fixed effects", fits(results)),
        "comparisons": (comparisons_caption(results), comparisons(results)),
        "accuracy_phenomenon": ("Accuracy (proportion of pairs) per phenomenon (mean of its "
                                "paradigms) and overall; " + bench,
                                benchmark_accuracy(results, "phenomenon")),
        "accuracy_paradigm": ("Accuracy (proportion of pairs) per paradigm; " + bench,
                              benchmark_accuracy(results, "paradigm")),
        "contrasts": ("BLiMP sections 6.1-6.2: mean accuracy (proportion of pairs) of the first "
                      "and the second set of paradigms, and first − second" + shown,
                      _contrasts(results)),
        "baselines": ("Seed 004 Tables 3/5: accuracy (proportion of pairs) per paradigm of the "
                      "first model beside the linear rules (computed here) and seed 004's "
                      "printed systems; the last row counts the paradigms where each is at "
                      "least as accurate as the model" + published, _baselines(results)),
        "ml_table1": ("Marvin & Linzen (2018) Table 1: accuracy (proportion of pairs) per "
                      "condition, beside the paper's" + published,
                      results.benchmark.table1 if results.benchmark else None),
        **all_rating_tables(results),
        **syntaxgym_tables(results),
        **tokenization_tables(results),
    }


def formatted(table: pd.DataFrame) -> pd.DataFrame:
    """Display form: ``<c>_lower``/``<c>_upper`` folded into ``<c>`` as ``v [lo, hi]``;
    floats to 3 decimals (p-values to 3 significant digits; a p that underflowed to 0 as
    "< 1e-300"); a missing value (NaN, None) as a dash in any column."""
    out = table.copy()
    for col in list(out.columns):
        is_p = str(col).startswith("p_") or str(col).endswith(("_p", "pvalue", "p_value"))
        out[col] = out[col].map(lambda v, p=is_p: _cell(v, p))
    for col in [c for c in out.columns if f"{c}_lower" in out and f"{c}_upper" in out]:
        lo, hi = out.pop(f"{col}_lower"), out.pop(f"{col}_upper")
        ci = np.where(lo == "–", "", " [" + lo + ", " + hi + "]")
        out[col] = out[col] + ci
    return out.astype(str)


def _cell(value: object, is_p: bool) -> str:
    """One table cell as ``formatted`` shows it."""
    if value is None or value is pd.NA or (isinstance(value, float | np.floating)
                                            and np.isnan(value)):
        return "–"
    if isinstance(value, float | np.floating):
        return "< 1e-300" if is_p and value == 0 else ("{:.3g}" if is_p else "{:.3f}").format(
            value)
    return str(value)


def display_table(table: pd.DataFrame) -> pd.DataFrame:
    """``formatted`` with readable headers (``header``), except the columns
    named in ``table.attrs["names"]`` (systems, models), which keep their names."""
    keep = set(table.attrs.get("names", ()))
    return formatted(table).rename(columns=lambda c: c if c in keep else header(c))


def to_latex(table: pd.DataFrame, caption: str, label: str) -> str:
    """A booktabs LaTeX table (pandas Styler); cells, headers and caption escaped."""
    shown = display_table(table).map(latex_escape)
    shown.columns = [latex_escape(c) for c in shown.columns]
    return shown.style.hide(axis="index").to_latex(
        column_format="l" + "r" * (shown.shape[1] - 1),
        caption=latex_escape(caption), label=f"tab:{label}", hrules=True, position="htbp",
        position_float="centering")


def to_markdown(table: pd.DataFrame) -> Markdown:
    """A GitHub-flavoured Markdown table, cells as ``formatted`` writes them (tabulate
    would re-read "0.420" as a number and print 0.42), cells and headers escaped
    (``escape.escape_markdown``: a ``|``, a newline or HTML in a name stays in its cell)."""
    shown = display_table(table).map(escape_markdown)
    shown.columns = [escape_markdown(c) for c in shown.columns]
    return Markdown(shown.to_markdown(index=False, disable_numparse=True,
                                      colalign=("left",) + ("right",) * (shown.shape[1] - 1)))


def to_html(table: pd.DataFrame) -> str:
    """An HTML table (escaped)."""
    return display_table(table).to_html(index=False, classes="table", border=0, escape=True)
