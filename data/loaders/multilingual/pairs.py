"""One Dataset shape for every multilingual minimal-pair set: a table of raw pairs (good
text, bad text, ids, ``language``, ``phenomenon``, ``paradigm`` and the set's own columns)
becomes sentences + pairs, with what was set aside counted.

Rules (docs/tables.md): a pair with an empty or missing sentence is set aside and counted
(``exclusions``, reason `EMPTY`); a pair whose two texts are identical is kept and flagged
(``identical_text``, as LI-Adger's: every model ties on it); a pair or sentence that recurs
keeps one row per occurrence, each with its own id (as Marvin & Linzen's).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.io.sources import checksum, fetch, source_folder
from acceptability.data.tables import validate_pairs, validate_sentences

EMPTY = "a sentence of the pair is empty or missing"
#: the columns every raw pairs table passes to `build`
RAW = ["pair_id", "good_id", "bad_id", "good", "bad", "language", "phenomenon", "paradigm"]


def is_empty(texts: pd.Series) -> pd.Series:
    """True where a text is missing or only whitespace."""
    return texts.isna() | texts.astype(str).str.strip().eq("")


def build(name: str, raw: pd.DataFrame, extra: list[str], source: str,
          checksums: dict[str, str]) -> Dataset:
    """The Dataset of ``raw`` (columns `RAW` plus ``extra``, kept on the pairs).

    A good sentence shared by several pairs (CLAMS: one grammatical sentence, its
    ungrammatical variants) appears once in the sentences table when the pairs give it the
    same ``good_id``.
    """
    empty = is_empty(raw["good"]) | is_empty(raw["bad"])
    kept = raw[~empty].reset_index(drop=True)
    common = ["language", "phenomenon", "paradigm"]
    good = pd.DataFrame({"sentence_id": kept["good_id"], "text": kept["good"], "label": 1.0,
                         "type_id": kept["paradigm"] + "_good", **{c: kept[c] for c in common}})
    bad = pd.DataFrame({"sentence_id": kept["bad_id"], "text": kept["bad"], "label": 0.0,
                        "type_id": kept["paradigm"] + "_bad", **{c: kept[c] for c in common}})
    sentences = pd.concat([good, bad], ignore_index=True).drop_duplicates("sentence_id")
    sentences = sentences.assign(dataset=name, human=np.nan)
    sentences = validate_sentences(sentences.reset_index(drop=True), source=name)
    pairs = kept[["pair_id", "good_id", "bad_id", *common, *extra]].copy()
    pairs["identical_text"] = (kept["good"] == kept["bad"]).to_numpy()
    pairs = validate_pairs(pairs, sentences, source=name)
    ids = tuple(raw.loc[empty, "pair_id"])
    exclusions = pd.DataFrame([{"table": "pairs", "reason": EMPTY, "n": len(ids), "ids": ids}])
    return Dataset(name=name, sentences=sentences, pairs=pairs, source=source,
                   checksums=checksums, exclusions=exclusions)


def read_registered(name: str, rels: list[str], path: str | os.PathLike | None,
                    read: Callable[[Path, str], pd.DataFrame]
                    ) -> tuple[pd.DataFrame, dict[str, str], str]:
    """``read(file, relative path)`` of each registered file of ``name`` (local, else
    downloaded and checked), concatenated; with each file's sha256 and where they were read."""
    frames, sums, folder = [], {}, None
    for rel in rels:
        f = fetch(name, rel, path)
        frames.append(read(f, rel))
        sums[rel], folder = checksum(f), f.parent
    return pd.concat(frames, ignore_index=True), sums, source_folder(name, path, folder)
