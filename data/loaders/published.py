"""Numbers the seed papers publish, for checking reproductions (tests, demo, reports).

Model names are those of ``data.load_li_adger_scores``.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from acceptability.data.errors import DataError

# Thesis (Vázquez Martínez 2021) Table 3.1: BLiMP criterion and ADC over 2365 LI-Adger pairs.
# The thesis' ADC counts a zero delta as negative: reproduce its ADC tables (3.1, 2.6, 3.6,
# 3.7) with sign="thesis" (stats.metrics.sign_agree).
THESIS_TABLE_3_1 = pd.DataFrame(
    [("bert-base-uncased_mlm", 0.852, 0.364, 0.631, 0.849),
     ("bert-large-uncased_mlm", 0.866, 0.378, 0.658, 0.859),
     ("bert-large-cased_mlm", 0.871, 0.376, 0.661, 0.868),
     ("bert-base-uncased_acc", 0.915, 0.286, 0.538, 0.902),
     ("bert-large-uncased_acc", 0.917, 0.311, 0.564, 0.907),
     ("bert-large-cased_acc", 0.936, 0.307, 0.561, 0.925),
     ("trigram_slor", 0.753, 0.301, 0.520, 0.744),
     ("trigram_logprob", 0.671, 0.165, 0.329, 0.668)],
    columns=["model", "blimp", "adc_0.5", "adc_1", "adc_5"],
)

# Thesis Table 2.3: Pearson r with humans at sentence and minimal-pair level.
THESIS_TABLE_2_3 = pd.DataFrame(
    [("bert-base-uncased_acc", 0.608, 0.340), ("bert-large-uncased_acc", 0.632, 0.338),
     ("bert-large-cased_acc", 0.631, 0.335), ("trigram_slor", 0.368, 0.333),
     ("trigram_logprob", 0.131, 0.156)],
    columns=["model", "r_sentence", "r_pair"],
)

# Thesis Table 2.2 (LI-Adger column): MCC of each BERT_CoLA's sign of confidence against the
# thesis' labels (data.load_li_adger_thesis_labels), over all 4178 sentences.
THESIS_TABLE_2_2 = pd.DataFrame(
    [("bert-base-uncased_acc", 0.553), ("bert-large-uncased_acc", 0.576),
     ("bert-large-cased_acc", 0.595)],
    columns=["model", "mcc"],
)

# Thesis Tables 2.6 and 3.6: ADC before/after removing pairs the trigram SLOR passes.
# Overlap is printed as a percentage: 2 decimals, except 1 for BERT_CoLA at delta 1.0.
THESIS_TABLE_2_6_3_6 = pd.DataFrame(
    [("bert-base-uncased_acc", 0.5, 0.286, 0.294, 0.0808), ("bert-large-uncased_acc", 0.5, 0.311, 0.309, 0.0951),
     ("bert-large-cased_acc", 0.5, 0.307, 0.313, 0.0884), ("bert-base-uncased_acc", 1.0, 0.538, 0.546, 0.276),
     ("bert-large-uncased_acc", 1.0, 0.564, 0.557, 0.296), ("bert-large-cased_acc", 1.0, 0.561, 0.560, 0.292),
     ("bert-base-uncased_mlm", 0.5, 0.364, 0.323, 0.1387), ("bert-large-uncased_mlm", 0.5, 0.378, 0.333, 0.1450),
     ("bert-large-cased_mlm", 0.5, 0.376, 0.335, 0.1421), ("bert-base-uncased_mlm", 1.0, 0.631, 0.553, 0.3658),
     ("bert-large-uncased_mlm", 1.0, 0.658, 0.586, 0.3751), ("bert-large-cased_mlm", 1.0, 0.661, 0.589, 0.3780)],
    columns=["model", "delta", "original", "reduced", "overlap"],
)

# Thesis Table 3.7: overlap of each BERT_MLM with the BERT_CoLA of its size (percentages
# printed with 2 decimals); original = the BERT_MLM's ADC, as in Table 3.1.
THESIS_TABLE_3_7 = pd.DataFrame(
    [("bert-base-uncased_mlm", "bert-base-uncased_acc", 0.5, 0.364, 0.0905),
     ("bert-large-uncased_mlm", "bert-large-uncased_acc", 0.5, 0.378, 0.0973),
     ("bert-large-cased_mlm", "bert-large-cased_acc", 0.5, 0.376, 0.0989),
     ("bert-base-uncased_mlm", "bert-base-uncased_acc", 1.0, 0.631, 0.3425),
     ("bert-large-uncased_mlm", "bert-large-uncased_acc", 1.0, 0.658, 0.3729),
     ("bert-large-cased_mlm", "bert-large-cased_acc", 1.0, 0.661, 0.3704)],
    columns=["model", "baseline", "delta", "original", "overlap"],
)

# Seed 004 (Vázquez Martínez et al. 2023): mean within-type SD of z-scores on LI-Adger.
SEED_004_VARIABILITY = {"human": 0.288, "trigram_logprob": 0.331}

# Seed 004 appendix Tables 3 (Zorro) and 5 (BLiMP), as printed: per paradigm, percent
# accuracy of BabyBERTa (ao-childes), the 5-gram word and tag models, their oracle and the
# simple linear rules. Table 5 prints 65 of BLiMP's 67 paradigms (complex_NP_island and
# wh_questions_subject_gap_long_distance are missing) although its fractions are "/67".
SEED_004_SYSTEMS = {"babyberta": "BabyBERTa (seed 004)", "word": "5-word (seed 004)",
                    "tag": "5-tag (seed 004)", "oracle": "oracle (seed 004)",
                    "rule": "rules (seed 004)"}
SEED_004_AVERAGES = {  # the tables' printed "average" rows (percent)
    "zorro": {"babyberta": 78.91, "word": 63.44, "tag": 57.59, "oracle": 83.43, "rule": 93.97},
    "blimp": {"babyberta": 60.72, "word": 50.72, "tag": 37.93, "oracle": 68.32, "rule": 84.35},
}


def paper_table(file: str) -> pd.DataFrame:
    """A table printed in a paper, as transcribed into ``data/paper_tables/<file>`` (a CSV
    whose ``#`` header lines say where it comes from).

    Parameters
    ----------
    file : str
        The file name inside ``paper_tables``, e.g. ``"seed004_tables.csv"``.

    Returns
    -------
    pandas.DataFrame
        The table, one row per printed row.

    Examples
    --------
    >>> from acceptability.data.loaders.published import paper_table
    >>> table = paper_table("marvin_linzen_table1.csv")
    >>> table.loc[0, "condition"], float(table.loc[0, "humans"])
    ('Simple', 0.96)
    """
    text = resources.files("acceptability.data").joinpath("paper_tables", file)
    with text.open(encoding="utf-8") as f:
        return pd.read_csv(f, comment="#")


def seed_004_table(benchmark: str) -> pd.DataFrame:
    """Seed 004's Table 3 (``"zorro"``) or 5 (``"blimp"``) as printed: ``paradigm`` (the
    benchmark's own name), ``printed`` (as the table names it) and one percent column per
    system (``babyberta``, ``word``, ``tag``, ``oracle``, ``rule``)."""
    if benchmark not in SEED_004_AVERAGES:
        raise DataError(f"seed 004 has no table for {benchmark!r}",
                        fix=f"use one of {list(SEED_004_AVERAGES)}")
    table = paper_table("seed004_tables.csv")
    return table[table["benchmark"] == benchmark].drop(columns="benchmark").reset_index(
        drop=True)


def seed_004_published(dataset) -> pd.DataFrame:
    """Seed 004's printed per-paradigm accuracies for the paradigms of ``dataset`` (Zorro
    or BLiMP), tidy for ``stats.accuracy(published=...)``: ``system`` (named "<system>
    (seed 004)"), ``paradigm``, ``phenomenon`` (the dataset's), ``accuracy`` (0-1)."""
    table = seed_004_table(dataset.name)
    phen = dataset.pairs.drop_duplicates("paradigm").set_index("paradigm")["phenomenon"]
    table = table[table["paradigm"].isin(phen.index)]
    long = table.melt(id_vars=["paradigm"], value_vars=list(SEED_004_SYSTEMS),
                      var_name="system", value_name="accuracy")
    return pd.DataFrame({"system": long["system"].map(SEED_004_SYSTEMS),
                         "paradigm": long["paradigm"],
                         "phenomenon": long["paradigm"].map(phen),
                         "accuracy": long["accuracy"] / 100})
