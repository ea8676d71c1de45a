"""CLAMS, Cross-Linguistic Assessment of Models on Syntax (Mueller, Nicolai,
Petrou-Zeniou, Talmina & Linzen 2020, ACL), Apache-2.0, github.com/aaronmueller/clams at
commit 36b5c9a.

``<lang>_evalset/<construction>.txt`` for English, French, German, Hebrew and Russian:
tab-separated ``True|False<TAB>sentence`` lines, a grammatical sentence followed by its
ungrammatical variants; each grammatical sentence is paired with each of its variants
(as [load_marvin_linzen][acceptability.data.load_marvin_linzen] pairs Marvin & Linzen's
tuples, whose constructions CLAMS translates). At this commit every grammatical line has
exactly one variant: English 157,346 pairs in 22 constructions, French 49,360, German
47,820, Hebrew 40,820, Russian 40,120 in 7 each (the count of ``True`` lines, which
tests/data/test_multilingual_loaders.py takes from the files). No pair has two identical
sentences.

``paradigm`` is ``<lang>:<construction>`` (so that a paradigm's accuracy, and
``--max-pairs``, stay within one language), ``construction`` the file stem (the same in
every language), ``phenomenon`` and ``table1_row`` Marvin & Linzen's (``agreement``, ``reflexives``,
``npi``; `data.loaders.marvin_linzen.ML_CONDITIONS`). Pair ids ``<lang>:<construction>:
<k>:<j>`` (k-th grammatical line of the file, j-th variant), sentence ids
``<lang>:<construction>:<k>:good`` and ``...:<k>:bad<j>``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import registry
from acceptability.data.loaders.marvin_linzen import ML_CONDITIONS
from acceptability.data.loaders.multilingual.pairs import RAW, build, read_registered

NAME = "clams"
LANGUAGES = ("en", "fr", "de", "he", "ru")
EXTRA = ["construction", "table1_row"]
_ROW = {stem: row for (stem, _), row in ML_CONDITIONS.items()}  # stem -> (phenomenon, row)
_LABELS = {"True": True, "False": False}


def _read(f: Path, rel: str) -> pd.DataFrame:
    """One construction file as `pairs.RAW` columns: each grammatical line paired with
    each ungrammatical line after it, up to the next grammatical one."""
    lang, construction = rel.split("_evalset/")[0], Path(rel).stem
    rows, k, good = [], -1, None
    for lineno, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
        label, _, text = line.partition("\t")
        if label not in _LABELS:
            raise DataError(f"line {line[:60]!r} does not start with True or False and a tab",
                            source=str(f), row=f"{lineno} (line)",
                            fix="use CLAMS's evalset files as published")
        if _LABELS[label]:
            k, j, good = k + 1, 0, text
        elif good is None:
            raise DataError("an ungrammatical line before any grammatical one",
                            source=str(f), row=f"{lineno} (line)",
                            fix="use CLAMS's evalset files as published")
        else:
            rows.append((k, j, good, text))
            j += 1
    df = pd.DataFrame(rows, columns=["k", "j", "good", "bad"])
    stem = f"{lang}:{construction}:" + df["k"].astype(str)
    phenomenon, row = _ROW[construction]
    return pd.DataFrame({
        "pair_id": stem + ":" + df["j"].astype(str), "good_id": stem + ":good",
        "bad_id": stem + ":bad" + df["j"].astype(str), "good": df["good"], "bad": df["bad"],
        "language": lang, "phenomenon": phenomenon, "paradigm": f"{lang}:{construction}",
        "construction": construction, "table1_row": row})[RAW + EXTRA]


def load_clams(path: str | os.PathLike | None = None,
               language: Iterable[str] | str | None = None) -> Dataset:
    """CLAMS (Mueller et al. 2020) as sentences + pairs, for one language or several.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``<lang>_evalset/``; default ``$ACCEPTABILITY_DATA_DIR/clams``,
        else a checksummed download from github.com/aaronmueller/clams.
    language : str or iterable of str, optional
        ``"en"``, ``"fr"``, ``"de"``, ``"he"``, ``"ru"``; default all five.

    Returns
    -------
    Dataset
        Pairs with ``language``, ``phenomenon``, ``paradigm`` (``<lang>:<construction>``),
        ``construction`` and ``table1_row`` (module docstring).

    Examples
    --------
    >>> from acceptability.data import load_clams
    >>> ds = load_clams(language="fr")  # doctest: +SKIP
    >>> len(ds.pairs), ds.pairs["paradigm"].nunique()  # doctest: +SKIP
    (49360, 7)
    """
    langs = select_names(language, list(LANGUAGES), "CLAMS language", NAME,
                         fix_empty="pass language codes, or language=None for all five",
                         fix_unknown=f"use one of {list(LANGUAGES)}")
    rels = sorted(r for r in registry(NAME) if r.split("_evalset/")[0] in langs)
    unknown = sorted({Path(r).stem for r in rels} - set(_ROW))
    if unknown:
        raise DataError(f"constructions {unknown} have no Marvin & Linzen phenomenon",
                        source=NAME, fix="map them in data.loaders.marvin_linzen")
    raw, sums, source = read_registered(NAME, rels, path, _read)
    return build(NAME, raw, EXTRA, source, sums)
