"""SLING (Song, Krishna, Bhatt & Iyyer 2022, "SLING: Sino Linguistic Evaluation of Large
Language Models", EMNLP), MIT licence, github.com/Yixiao-Song/SLING_Data_Code at commit
5a7f791.

``SLING_Data/<phenomenon>/[<group>/]<paradigm>.jsonl``: 54 paradigm files in 8 phenomena,
40,560 pairs (fields ``sentence_good``, ``sentence_bad``, ``phenomenon``, ``paradigm``,
``pair_ID``, ``field``). 40 files hold 1,000 pairs and the 14 files of
``Anaphor/reflexive_auto`` and ``Anaphor/reflexive_natural`` 40 each: 40 x 1,000 + 14 x 40
= 40,560. ``phenomenon`` is the top folder (the paper's 8: AlternativeQuestion, Anaphor,
Aspect, Classifier-Noun, DefinitenessEffect, PolarityItem, RelativeClause, WhFronting),
``paradigm`` the file's path below ``SLING_Data`` without ``.jsonl``
(``Anaphor/Plural/cl_self_male``): the files' own ``paradigm`` field is not unique (the 12
``Anaphor/Plural`` files all say ``Plural``) and the 14 reflexive files spell their fields
``Phenomenon``/``Paradigm`` or give phenomena such as ``Reflexive_auto``; those values
are kept as ``sling_phenomenon``/``sling_paradigm``.

The paper's abstract (arXiv 2210.11689) speaks of "38K minimal sentence pairs ...
grouped into 9 high-level linguistic phenomena": 38 of the full files hold 1,000 pairs
besides the two ``Classifier-Noun/*_v2`` files (38,000), and the 14 reflexive files come
on top; the release does not say which files the paper counted nor how its 9 phenomena
map onto the 8 folders, so all 54 are loaded and the tests assert the folder's counts.

Pair ids ``<paradigm>:<pair_ID>``. As published, 24 pairs have two identical sentences
(16 in ``Aspect/zai_le``, 4 each in ``Classifier-Noun/cl_adj_simple_noun`` and
``cl_simple_noun``): kept and flagged ``identical_text``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.io.sources import registry
from acceptability.data.loaders.multilingual.pairs import RAW, build, read_registered

NAME = "sling"
LANGUAGE = "zh"
ROOT = "SLING_Data/"
EXTRA = ["field", "sling_phenomenon", "sling_paradigm"]


def _field(df: pd.DataFrame, name: str) -> pd.Series:
    """A field spelled ``name`` or ``Name`` (SLING's reflexive files capitalise theirs)."""
    low = df[name] if name in df else pd.Series(None, index=df.index, dtype=object)
    return low.fillna(df[name.capitalize()]) if name.capitalize() in df else low


def _read(f: Path, rel: str) -> pd.DataFrame:
    """One paradigm file as `pairs.RAW` columns plus SLING's own."""
    rows = []
    for lineno, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise DataError(f"invalid JSON ({err.msg})", source=str(f),
                                row=f"{lineno} (line)", fix="use SLING's files as published") from None
    df = pd.DataFrame(rows)
    for col in ("sentence_good", "sentence_bad", "pair_ID"):
        if col not in df:
            raise DataError(f"missing field {col!r}", source=str(f), column=col,
                            fix="use SLING's SLING_Data/*.jsonl files as published")
    paradigm = rel.removeprefix(ROOT).removesuffix(".jsonl")
    pair_id = paradigm + ":" + df["pair_ID"].astype(str)
    return pd.DataFrame({
        "pair_id": pair_id, "good_id": pair_id + "_good", "bad_id": pair_id + "_bad",
        "good": df["sentence_good"], "bad": df["sentence_bad"], "language": LANGUAGE,
        "phenomenon": paradigm.split("/")[0], "paradigm": paradigm,
        "field": df.get("field"), "sling_phenomenon": _field(df, "phenomenon"),
        "sling_paradigm": _field(df, "paradigm")})[RAW + EXTRA]


def load_sling(path: str | os.PathLike | None = None) -> Dataset:
    """SLING (Song et al. 2022) as sentences + pairs: 54 paradigms in 8 phenomena, 40,560
    pairs.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``SLING_Data/``; default ``$ACCEPTABILITY_DATA_DIR/sling``, else a
        checksummed download from github.com/Yixiao-Song/SLING_Data_Code.

    Returns
    -------
    Dataset
        Pairs with ``language`` ``"zh"``, ``phenomenon`` (top folder), ``paradigm`` (path
        below ``SLING_Data``), ``field`` and the files' own labels (module docstring).

    Examples
    --------
    >>> from acceptability.data import load_sling
    >>> load_sling().pairs.groupby("phenomenon").size()["Anaphor"]  # doctest: +SKIP
    18560
    """
    rels = sorted(r for r in registry(NAME) if r.startswith(ROOT))
    raw, sums, source = read_registered(NAME, rels, path, _read)
    return build(NAME, raw, EXTRA, source, sums)
