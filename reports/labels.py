"""Readable names for the metrics' code names, for table headers and figure labels
(the CSV files keep the code names)."""

from __future__ import annotations

# Column headers as readers know the metrics; the CSV files keep the code names.
HEADERS = {
    "model": "Model", "n_pairs": "Pairs", "n_pairs_human": "Pairs with human Δ",
    "n_pairs_no_human": "Pairs without human Δ (BLiMP criterion only)",
    "n_pairs_excluded": "Pairs without model Δ (in no metric)", "n_sentences": "Sentences",
    "n_mcc": "Sentences with a label", "blimp": "BLiMP accuracy", "adc_area": "ADC area",
    "r_sentence": "Pearson r (sentences)", "r_pair": "Pearson r (pairs)",
    "variability": "Within-type SD", "mcc": "MCC", "pearson": "Pearson r",
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
    elif base.startswith("adc_"):
        text = f"ADC (δ = {base.removeprefix('adc_')})"
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
