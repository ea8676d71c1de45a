"""Readable names for the metrics' code names, for table headers and figure labels
(the CSV files keep the code names)."""

from __future__ import annotations

from acceptability.stats.metric_table import label

# Column headers as readers know them (the metrics' own: their `label` in the metrics
# table, stats.metric_table); the CSV files keep the code names.
HEADERS = {
    "model": "Model", "n_pairs": "Pairs", "n_pairs_human": "Pairs with human Δ",
    "n_pairs_no_human": "Pairs without human Δ (BLiMP criterion only)",
    "n_pairs_excluded": "Pairs without model Δ (in no metric)", "n_sentences": "Sentences",
    "n_mcc": "Sentences with a label", "pearson": "Pearson r",
    "spearman": "Spearman ρ", "model_a": "Model a", "model_b": "Model b",
    "estimate_a": "Estimate a", "estimate_b": "Estimate b", "difference": "Difference (a − b)",
    "p_boot": "p (bootstrap)", "p_boot_adj": "p (bootstrap, corrected)",
    "p_min": "Smallest possible p (bootstrap)",
    "p_test": "p (test)", "p_test_adj": "p (test, corrected)", "se": "SE",
    "n_types": "Types", "n_types_excluded": "Types excluded", "seed 004": "Seed 004",
    "sg_score": "SG score (mean over suites)", "circuit_mean": "Mean over circuits",
    "sg_score_paper": "SG score, the paper's suites",
    "circuit_mean_paper": "Mean over circuits, the paper's suites",
    "n_suites": "Suites", "n_items": "Items",
}


def header(column: str) -> str:
    """A readable header for a code column name: ``adc_0.5`` -> "ADC (δ = 0.5)",
    ``blimp (thesis)`` -> "BLiMP accuracy, thesis", ``n_types`` -> "Types"."""
    base, thesis = column.removesuffix(" (thesis)"), column.endswith(" (thesis)")
    if base in HEADERS:
        text = HEADERS[base]
    elif (metric := label(base)) is not None:
        text = metric
    else:
        text = base.replace("_", " ")
        text = text[:1].upper() + text[1:]
    return f"{text}, thesis" if thesis else text


def resampled(attrs: dict, adjective: bool = False) -> str:
    """What a bootstrap resampled, from its ``attrs``: ``"cluster bootstrap"`` (before a
    noun ``"cluster-bootstrap"``), or the pairs within each of too few clusters
    (``stats.resample.MIN_CLUSTERS``)."""
    if attrs.get("unit", attrs.get("cluster")) == attrs.get("cluster"):
        return "cluster-bootstrap" if adjective else "cluster bootstrap"
    return f"bootstrap (the {attrs['unit']}s within each of too few {attrs['cluster']} clusters)"


UNIT_NOUNS = {"sentence_id": "sentence", "pair_id": "pair", "item": "item"}


def _plural(unit: str, n: int | None = None) -> str:
    noun = UNIT_NOUNS.get(unit, unit)
    return f"{noun}s" if n is None else f"{n:,} {noun}{'s' * (n != 1)}"


def resampled_units(attrs: dict) -> str:
    """What a bootstrap resampled, with how many, from the ``attrs`` the inference engine
    returns (``stats.bootstrap``: ``unit``, ``cluster``, ``n_units``; a list of counts for
    several conditions, or groups where ``per`` says so; more than two different counts
    as their range): ``"36 type_id clusters"``, ``"432 sentences"``, or the fallback
    ``"the pairs within each of 3 type_id clusters"`` where there were too few clusters.

    Examples
    --------
    >>> from acceptability.reports.labels import resampled_units
    >>> resampled_units({"unit": "type_id", "cluster": "type_id", "n_units": 72})
    '72 type_id clusters'
    >>> resampled_units({"unit": "sentence_id", "n_units": [250, 250]})
    '250 sentences (in each condition)'
    >>> resampled_units({"unit": "sentence", "n_units": [50, 200, 84, 82], "per": "group"})
    '50 to 200 sentences (in each group)'
    """
    unit, cluster, n = attrs.get("unit"), attrs.get("cluster"), attrs.get("n_units")
    counts = sorted(set(n)) if isinstance(n, list | tuple) else [n]
    each = (f" (in each {attrs.get('per', 'condition')})" if isinstance(n, list | tuple)
            and len(n) > 1 else "")
    shown = counts if len(counts) <= 2 else [counts[0], counts[-1]]
    k = ("/" if len(counts) <= 2 else " to ").join(f"{c:,}" for c in shown if c is not None)
    if cluster and unit not in (None, cluster):
        return f"the {_plural(unit)} within each of {k} {cluster} clusters{each}"
    if cluster:
        return f"{k} {cluster} clusters{each}"
    return (f"{k} {_plural(unit)}" if k else _plural(unit)) + each


def intervals_text(attrs: dict | None) -> str:
    """Caption text on a table's intervals, from the ``attrs`` of the inference engine's
    result (``n_boot``, ``ci``, ``method``, and what ``resampled_units`` reads); "no
    intervals" where none were drawn.

    Examples
    --------
    >>> from acceptability.reports.labels import intervals_text
    >>> intervals_text({"n_boot": 1000, "ci": 0.95, "unit": "type_id", "cluster": "type_id",
    ...                 "n_units": 36})
    '95% percentile intervals from 1,000 bootstrap resamples of 36 type_id clusters'
    """
    if not attrs or not attrs.get("n_boot"):
        return "no intervals (n_boot = 0)"
    return (f"{attrs.get('ci', 0.95):.0%} {attrs.get('method', 'percentile')} intervals from "
            f"{attrs['n_boot']:,} bootstrap resamples of {resampled_units(attrs)}")
