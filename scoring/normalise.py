"""Length and frequency normalisations of sentence log-probabilities (Lau et al. 2017, table 2).

log P_lm(s) is the model's sentence log-probability, log P_u(s) its unigram log-probability,
|s| its length in words (of the unigram model's tokenizer).
"""

from __future__ import annotations

import numpy as np

NORMALISATIONS = ("mean", "slor", "normlp")


def mean_logprob(logprob: np.ndarray, length: np.ndarray) -> np.ndarray:
    """MeanLP = log P_lm(s) / |s|."""
    return np.asarray(logprob, dtype=float) / np.asarray(length, dtype=float)


def slor(logprob: np.ndarray, unigram_logprob: np.ndarray, length: np.ndarray) -> np.ndarray:
    """SLOR = (log P_lm(s) - log P_u(s)) / |s|."""
    diff = np.asarray(logprob, dtype=float) - np.asarray(unigram_logprob, dtype=float)
    return diff / np.asarray(length, dtype=float)


def norm_lp(logprob: np.ndarray, unigram_logprob: np.ndarray) -> np.ndarray:
    """NormLP (Div) = -log P_lm(s) / log P_u(s)."""
    return -np.asarray(logprob, dtype=float) / np.asarray(unigram_logprob, dtype=float)
