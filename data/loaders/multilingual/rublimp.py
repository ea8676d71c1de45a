"""RuBLiMP (Taktasheva et al. 2024, "RuBLiMP: Russian Benchmark of Linguistic Minimal
Pairs", EMNLP), Apache-2.0, github.com/RussianNLP/RuBLiMP at commit 9f0d8df.

``datasets/<paradigm>.csv``: 45 paradigms x 1,000 pairs (the README's "45k minimal
pairs"), columns ``id, source_sentence, target_sentence, source_word, target_word, level,
phenomenon, PID, subtype, domain, tree_depth``. The source sentence is grammatical (a
corpus sentence) and the target its minimal violation: they are the good and bad member.
``paradigm`` is ``PID`` (the file stem), ``phenomenon`` the paper's phenomenon (12, e.g.
"Subject-Predicate Agreement"), and the pairs keep ``level`` (Morphology, Syntax,
Semantics), ``subtype``, ``domain`` (the source corpus: librusec, wikinews, wikipedia),
``tree_depth`` (an integer), ``source_word``/``target_word`` and RuBLiMP's ``id``.

Pair ids are ``<PID>_<id>``: an ``id`` is unique within a paradigm but recurs across
paradigms (a corpus sentence perturbed in several ways). No pair has two identical
sentences; 9 pairs recur in two paradigms (tests/data/test_multilingual_loaders.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.io.sources import registered_names
from acceptability.data.loaders.multilingual.pairs import RAW, build, read_registered

NAME = "rublimp"
LANGUAGE = "ru"
FIELDS = ["id", "source_sentence", "target_sentence", "source_word", "target_word", "level",
          "phenomenon", "PID", "subtype", "domain", "tree_depth"]
EXTRA = ["level", "subtype", "domain", "tree_depth", "source_word", "target_word", "rublimp_id"]


def _read(f: Path, rel: str) -> pd.DataFrame:
    """One paradigm file as `pairs.RAW` columns plus RuBLiMP's own."""
    df = pd.read_csv(f, dtype=str, keep_default_na=False)
    missing = [c for c in FIELDS if c not in df.columns]
    if missing:
        raise DataError(f"missing columns {missing}", source=str(f), column=missing[0],
                        fix="use RuBLiMP's datasets/<paradigm>.csv files as published")
    depth = pd.to_numeric(df["tree_depth"], errors="coerce")
    if depth.isna().any():
        row = int(depth.isna().to_numpy().argmax())
        raise DataError(f"tree_depth {df['tree_depth'].iloc[row]!r} is not a number",
                        source=str(f), row=f"{row + 2} (line)", column="tree_depth",
                        fix="use RuBLiMP's files as published")
    pair_id = df["PID"] + "_" + df["id"]
    return pd.DataFrame({
        "pair_id": pair_id, "good_id": pair_id + "_good", "bad_id": pair_id + "_bad",
        "good": df["source_sentence"], "bad": df["target_sentence"], "language": LANGUAGE,
        "phenomenon": df["phenomenon"], "paradigm": df["PID"], "level": df["level"],
        "subtype": df["subtype"], "domain": df["domain"], "tree_depth": depth.astype(int),
        "source_word": df["source_word"], "target_word": df["target_word"],
        "rublimp_id": df["id"]})[RAW + EXTRA]


def load_rublimp(path: str | os.PathLike | None = None) -> Dataset:
    """RuBLiMP (Taktasheva et al. 2024) as sentences + pairs: 45 paradigms x 1,000.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``datasets/<paradigm>.csv``; default
        ``$ACCEPTABILITY_DATA_DIR/rublimp``, else a checksummed download from
        github.com/RussianNLP/RuBLiMP.

    Returns
    -------
    Dataset
        Pairs with ``language`` ``"ru"``, ``phenomenon``, ``paradigm`` and RuBLiMP's
        metadata (module docstring).

    Examples
    --------
    >>> from acceptability.data import load_rublimp
    >>> ds = load_rublimp()  # doctest: +SKIP
    >>> len(ds.pairs), ds.pairs["paradigm"].nunique()  # doctest: +SKIP
    (45000, 45)
    """
    rels = [f"datasets/{p}.csv" for p in registered_names(NAME, "datasets", ".csv")]
    raw, sums, source = read_registered(NAME, rels, path, _read)
    return build(NAME, raw, EXTRA, source, sums)
