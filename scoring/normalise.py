"""Length and frequency normalisations of sentence log-probabilities (Lau et al. 2017, table 2;
Lau et al. 2020, table 2, with the definitions checked against both).

log P_lm(s) is the model's sentence log-probability (in context: log P_lm(s | context), the
sentence's tokens only), log P_u(s) its unigram log-probability, |s| its length: in words of
the unigram model's tokenizer for SLOR, in the model's tokens of the sentence for MeanLP and
PenLP (`scoring.score`); in characters or UTF-8 bytes of the sentence's text for "chars"
and "bytes", lm-evaluation-harness's ``acc_norm`` and ``acc_bytes`` (`text_length`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.io.files import SEPARATORS, check_separator
from acceptability.data.tables import numeric_column, require_columns
from acceptability.scoring.baselines.ngram import (
    UnigramModel,
    train_unigram,
    unigram_from_frequencies,
)
from acceptability.scoring.registry import NORMALISATIONS as NORMALISATIONS  # re-exported

PENLP_ALPHA = 0.8  # Lau et al. (2020), table 2 (as in Wu et al. 2016's length penalty)
UNIGRAM = ("slor", "normlp")  # the normalisations that need a unigram model
TEXT_UNITS = ("chars", "bytes")  # the normalisations by the length of the text itself
UNIGRAM_FIX = ("give a corpus as .txt (one sentence per line) or word frequencies as .csv or "
               ".tsv (columns word and count)")


def mean_logprob(logprob: np.ndarray, length: np.ndarray) -> np.ndarray:
    """MeanLP = log P_lm(s) / |s| (Lau et al. 2017, table 2).

    Parameters
    ----------
    logprob, length : array-like
        log P_lm(s) and |s| per sentence.

    Returns
    -------
    ndarray
        MeanLP per sentence.

    Examples
    --------
    >>> from acceptability import scoring
    >>> scoring.mean_logprob([-12.0, -9.0], [4, 3])
    array([-3., -3.])
    """
    return np.asarray(logprob, dtype=float) / np.asarray(length, dtype=float)


def text_length(texts: list[str], unit: str) -> np.ndarray:
    """|s| of lm-evaluation-harness's ``acc_norm`` (``unit="chars"``: ``len(s)``, Unicode
    code points) and ``acc_bytes`` (``"bytes"``: ``len(s.encode("utf-8"))``), counted on the
    sentence as given, never its target delimiter or context (lm-eval's
    ``ConfigurableTask.process_results`` counts the choice string). LP / |s| then compares
    sentences across scripts and tokenizers (lm-eval PRs 3271/3272).

    Parameters
    ----------
    texts : list of str
        The sentences.
    unit : {"chars", "bytes"}

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from acceptability.scoring.normalise import text_length
    >>> text_length(["Kedi uyudu.", "Кот спал."], "chars"), text_length(["Kedi uyudu.", "Кот спал."], "bytes")
    (array([11.,  9.]), array([11., 16.]))
    """
    if unit == "chars":
        return np.array([len(t) for t in texts], dtype=float)
    return np.array([len(t.encode("utf-8")) for t in texts], dtype=float)


def pen_logprob(logprob: np.ndarray, length: np.ndarray, alpha: float = PENLP_ALPHA) -> np.ndarray:
    """PenLP = log P_lm(s) / ((5 + |s|) / (5 + 1))^alpha, alpha = 0.8 (Lau et al. 2020,
    table 2): a length penalty gentler than MeanLP's division by |s|.

    Parameters
    ----------
    logprob, length : array-like
        log P_lm(s) and |s| per sentence.
    alpha : float
        The penalty's exponent.

    Returns
    -------
    ndarray

    Examples
    --------
    One sentence of 1 token is not penalised; 27 tokens divide by (32 / 6)^0.8:

    >>> from acceptability.scoring import pen_logprob
    >>> pen_logprob([-4.0, -32.0], [1, 27]).round(4)
    array([-4.    , -8.3859])
    """
    penalty = ((5 + np.asarray(length, dtype=float)) / (5 + 1)) ** alpha
    return np.asarray(logprob, dtype=float) / penalty


def slor(logprob: np.ndarray, unigram_logprob: np.ndarray, length: np.ndarray) -> np.ndarray:
    """SLOR = (log P_lm(s) - log P_u(s)) / |s| (Lau et al. 2017, table 2): the LM's
    log-probability above the sentence's word frequencies, per word.

    Parameters
    ----------
    logprob, unigram_logprob, length : array-like
        log P_lm(s), log P_u(s) and |s| per sentence.

    Returns
    -------
    ndarray

    Examples
    --------
    A sentence 8 nats likelier under the LM than under its unigram model, over 4 words:

    >>> from acceptability.scoring import slor
    >>> slor([-12.0], [-20.0], [4])
    array([2.])
    """
    diff = np.asarray(logprob, dtype=float) - np.asarray(unigram_logprob, dtype=float)
    return diff / np.asarray(length, dtype=float)


def norm_lp(logprob: np.ndarray, unigram_logprob: np.ndarray) -> np.ndarray:
    """NormLP (Div) = -log P_lm(s) / log P_u(s) (Lau et al. 2017, table 2); higher is
    more acceptable.

    Parameters
    ----------
    logprob, unigram_logprob : array-like
        log P_lm(s) and log P_u(s) per sentence.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.scoring import norm_lp
    >>> norm_lp(np.array([-12.0, -4.0]), np.array([-20.0, -20.0]))
    array([-0.6, -0.2])
    """
    return -np.asarray(logprob, dtype=float) / np.asarray(unigram_logprob, dtype=float)


def check_unigram_file(path: str | os.PathLike) -> Path:
    """``path`` if it is a file `read_unigram` reads (by its suffix), else a DataError."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise DataError("no such unigram file", source=str(p), fix=UNIGRAM_FIX)
    if p.suffix.lower() not in (".txt", *SEPARATORS):
        raise DataError(f"unknown unigram file type {p.suffix or '(no suffix)'!r}",
                        source=str(p), fix=UNIGRAM_FIX)
    return p


def read_unigram(path: str | os.PathLike) -> UnigramModel:
    """The unigram model of SLOR and NormLP from a file, add-one smoothed, in Penn Treebank
    words: a corpus (``.txt``, UTF-8, one sentence per line; `scoring.train_unigram`)
    or word frequencies (``.csv``/``.tsv``, columns ``word`` and ``count``;
    `scoring.unigram_from_frequencies`). Lau et al. (2017) count the corpus the
    language model was trained on."""
    p = check_unigram_file(path)
    suffix = p.suffix.lower()
    if suffix == ".txt":
        with p.open(encoding="utf-8") as fh:
            return train_unigram([line for line in map(str.strip, fh) if line])
    check_separator(p, SEPARATORS[suffix], "unigram")
    table = pd.read_csv(p, sep=SEPARATORS[suffix], dtype=str, keep_default_na=False)
    require_columns(table, ["word", "count"], str(p))  # "NA" and "null" stay words
    counts = numeric_column(table, "count", str(p), line_offset=2)
    bad = counts.isna() | (counts < 0) | table["word"].duplicated()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"word {table['word'].iloc[row]!r}: a missing or negative count, or a "
                        "repeated word", source=str(p), row=f"{row + 2} (line)",
                        fix="give each word once, with a count >= 0")
    return unigram_from_frequencies(dict(zip(table["word"], counts, strict=True)))
