"""BLiMP (Warstadt et al. 2020): 67 paradigms x 1000 minimal pairs, CC BY 4.0.

Sentence ids ``<UID>_<pairID>_good``/``_bad``; pair ids ``<UID>_<pairID>``. A sentence
type is a paradigm's good or bad condition (``<UID>_good``); ``paradigm`` is the UID and
``phenomenon`` one of the paper's 12 phenomena (Table 2): the files' ``linguistics_term``,
kept on the pairs, except ``s-selection``, which the paper counts as argument structure
(``data.loaders.blimp_results``). The one- and two-prefix fields of section 6.4 are kept on the
pairs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import checksum, fetch, registered_names, source_folder
from acceptability.data.loaders.blimp_results import blimp_phenomenon
from acceptability.data.tables import validate_pairs, validate_sentences

NAME = "blimp"
PREFIX_FIELDS = ["one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad",
                 "two_prefix_prefix_good", "two_prefix_prefix_bad", "two_prefix_word"]
PAIR_FIELDS = ["field", "simple_LM_method", "one_prefix_method", "two_prefix_method",
               "lexically_identical", *PREFIX_FIELDS]


def blimp_paradigms() -> list[str]:
    """The 67 BLiMP paradigm UIDs, sorted (``adjunct_island``, ``anaphor_gender_agreement``, ...).

    Returns
    -------
    list of str
        The UIDs, as the registry lists BLiMP's ``data/<UID>.jsonl`` files.

    Examples
    --------
    >>> from acceptability.data import blimp_paradigms
    >>> len(blimp_paradigms()), blimp_paradigms()[0]
    (67, 'adjunct_island')
    """
    return registered_names(NAME, "data", ".jsonl")


def check_paradigms(names: Iterable[str] | str | None) -> list[str]:
    """The paradigm UIDs to load, in the order given (all 67 for None); an unknown name
    is an error that lists the closest UIDs."""
    return select_names(names, blimp_paradigms(), "BLiMP paradigm", NAME,
                        fix_empty="pass paradigm UIDs, or paradigms=None for all 67",
                        fix_unknown="use the UIDs of data.blimp_paradigms() (67 names such as "
                                    "'adjunct_island')")


def _read_paradigm(uid: str, path) -> tuple[pd.DataFrame, Path]:
    f = fetch(NAME, f"data/{uid}.jsonl", path)
    rows = []
    with open(f, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise DataError(f"invalid JSON ({err.msg})", source=str(f),
                                row=f"{lineno} (line)") from None
    df = pd.DataFrame(rows)
    for col in ("sentence_good", "sentence_bad", "UID", "pairID", "linguistics_term"):
        if col not in df.columns:
            raise DataError(f"missing field {col!r}", source=str(f), column=col,
                            fix="use the BLiMP jsonl files as published")
    return df, f


def load_blimp(path: str | os.PathLike | None = None,
               paradigms: Iterable[str] | str | None = None) -> Dataset:
    """BLiMP (Warstadt et al. 2020) as sentences + pairs: all 67 paradigms, or some.

    Only the files of the paradigms asked for are read.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``data/<UID>.jsonl``; default ``$ACCEPTABILITY_DATA_DIR/blimp``,
        else a checksummed download from github.com/alexwarstadt/blimp.
    paradigms : str or iterable of str, optional
        The UIDs to load ([blimp_paradigms][acceptability.data.blimp_paradigms] lists them);
        all 67 for None.

    Returns
    -------
    Dataset
        Sentences ``<UID>_<pairID>_good``/``_bad`` (label 1/0) and pairs
        ``<UID>_<pairID>`` with ``paradigm``, ``phenomenon`` (one of the paper's 12),
        ``linguistics_term`` and the one- and two-prefix fields of section 6.4.

    Raises
    ------
    DataError
        For an unknown paradigm (naming the closest UIDs), a missing file or field, or a
        line that is not JSON.

    Examples
    --------
    A folder with one paradigm file of one pair (the published files hold 1000 each):

    >>> import json, pathlib, tempfile
    >>> from acceptability.data import load_blimp
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "data").mkdir()
    >>> pair = {"sentence_good": "Who should Derek hug after shocking Richard?",
    ...         "sentence_bad": "Who should Derek hug Richard after shocking?",
    ...         "UID": "adjunct_island", "pairID": "0", "linguistics_term": "island_effects"}
    >>> _ = (folder / "data" / "adjunct_island.jsonl").write_text(json.dumps(pair) + "\\n")
    >>> ds = load_blimp(folder, paradigms="adjunct_island")
    >>> ds.pairs.loc[0, ["pair_id", "good_id", "phenomenon"]].tolist()
    ['adjunct_island_0', 'adjunct_island_0_good', 'island_effects']
    """
    wanted = check_paradigms(paradigms)
    frames, sums, folder = [], {}, None
    for uid in wanted:
        df, f = _read_paradigm(uid, path)
        sums[f"data/{uid}.jsonl"], folder = checksum(f), f.parent
        frames.append(df)
    raw = pd.concat(frames, ignore_index=True)
    for col in PAIR_FIELDS:
        if col not in raw.columns:
            raw[col] = np.nan
    pair_id = raw["UID"] + "_" + raw["pairID"].astype(str)
    phenomenon = raw["linguistics_term"].map(blimp_phenomenon)
    common = {"dataset": NAME, "item": pd.to_numeric(raw["pairID"]),
              "phenomenon": phenomenon, "human": np.nan, "paradigm": raw["UID"]}
    good = pd.DataFrame({"sentence_id": pair_id + "_good", "text": raw["sentence_good"],
                         "type_id": raw["UID"] + "_good", "label": 1.0, **common})
    bad = pd.DataFrame({"sentence_id": pair_id + "_bad", "text": raw["sentence_bad"],
                        "type_id": raw["UID"] + "_bad", "label": 0.0, **common})
    sentences = validate_sentences(pd.concat([good, bad], ignore_index=True), source=NAME)
    pairs = pd.DataFrame({"pair_id": pair_id, "good_id": pair_id + "_good",
                          "bad_id": pair_id + "_bad", "phenomenon": phenomenon,
                          "paradigm": raw["UID"], "linguistics_term": raw["linguistics_term"], **{c: raw[c] for c in PAIR_FIELDS}})
    pairs = validate_pairs(pairs, sentences, source=NAME)
    return Dataset(name=NAME, sentences=sentences, pairs=pairs, source=source_folder(NAME, path, folder), checksums=sums)
