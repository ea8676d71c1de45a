"""Numbers the seed papers publish, for checking reproductions (tests, demo, reports).

Model names are those of ``data.load_li_adger_scores``.
"""

from __future__ import annotations

import pandas as pd

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
