"""MultiBLiMP 1.0 (Jumelet, Weissweiler & Bisazza 2025, "MultiBLiMP 1.0: A Massively
Multilingual Benchmark of Linguistic Minimal Pairs"): 101 languages, 6 agreement
phenomena, from a folder the user downloaded (its home is the Hugging Face hub,
``jumelet/multiblimp``; no copy is registered here, so nothing is downloaded).

Expected layout, the hub's: one folder per language named by its ISO 639-3 code, holding
``data.tsv``, tab-separated with a header, the grammatical sentence in ``sen`` and its
minimal violation in ``wrong_sen`` (the fields lm-evaluation-harness's ``multiblimp_<lang>``
tasks compare); a ``phenomenon`` column (e.g. ``SV-#``, subject-verb number agreement) is
used when present, every other column is kept on the pairs. ``language`` is the folder
name, ``paradigm`` ``<lang>:<phenomenon>`` (a paradigm stays within one language); pair ids ``<lang>_<k>`` (k = 0-based data row).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import DATA_DIR_ENV, checksum, dataset_dir
from acceptability.data.loaders.multilingual.pairs import RAW, build

NAME = "multiblimp"
FILE = "data.tsv"
UNKNOWN = "unknown"  # the phenomenon of a file without a phenomenon column
LAYOUT = (f"MultiBLiMP's layout is <folder>/<ISO 639-3 code>/{FILE} (e.g. nld/{FILE}), "
          "tab-separated with columns 'sen' (grammatical) and 'wrong_sen', as on the "
          "Hugging Face hub (jumelet/multiblimp)")


def _root(path: str | os.PathLike | None) -> Path:
    """The MultiBLiMP folder: ``path``, else ``$ACCEPTABILITY_DATA_DIR/multiblimp``."""
    root = dataset_dir(NAME, path) if path is not None else dataset_dir(NAME)
    if root is None:
        raise DataError("no MultiBLiMP folder given", source=NAME,
                        fix=f"pass path= (or --data-path), or put it in "
                            f"${DATA_DIR_ENV}/multiblimp; {LAYOUT}")
    return root


def multiblimp_languages(path: str | os.PathLike | None = None) -> list[str]:
    """The languages (folder names) of a MultiBLiMP folder that hold a ``data.tsv``, sorted
    (``path`` as for [load_multiblimp][acceptability.data.load_multiblimp]).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data import multiblimp_languages
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for lang in ("tur", "nld"):
    ...     (folder / lang).mkdir()
    ...     _ = (folder / lang / "data.tsv").write_text("sen\\twrong_sen\\n")
    >>> multiblimp_languages(folder)
    ['nld', 'tur']
    """
    root = Path(path).expanduser() if path is not None else _root(None)
    if not root.is_dir():
        raise DataError(f"MultiBLiMP folder {str(root)!r} does not exist", source=NAME,
                        fix=f"download MultiBLiMP and pass its folder; {LAYOUT}")
    langs = sorted(d.name for d in root.iterdir() if (d / FILE).is_file())
    if not langs:
        raise DataError(f"no <language>/{FILE} in {str(root)!r}", source=NAME, fix=LAYOUT)
    return langs


def _read(f: Path, lang: str) -> pd.DataFrame:
    """One language's file as `pairs.RAW` columns plus its own."""
    df = pd.read_csv(f, sep="\t", dtype=str, keep_default_na=False)
    df = df.drop(columns=[c for c in df.columns if c.startswith("Unnamed:")])
    missing = [c for c in ("sen", "wrong_sen") if c not in df.columns]
    if missing:
        raise DataError(f"missing columns {missing} (it has {list(df.columns)[:8]})",
                        source=str(f), column=missing[0], fix=LAYOUT)
    pair_id = lang + "_" + pd.Series(range(len(df)), dtype=str)
    phenomenon = df.get("phenomenon", UNKNOWN)
    own = df.drop(columns=["sen", "wrong_sen", "phenomenon", *RAW], errors="ignore")
    return pd.concat([pd.DataFrame({
        "pair_id": pair_id, "good_id": pair_id + "_good", "bad_id": pair_id + "_bad",
        "good": df["sen"], "bad": df["wrong_sen"], "language": lang,
        "phenomenon": phenomenon, "paradigm": lang + ":" + phenomenon}), own], axis=1)


def load_multiblimp(path: str | os.PathLike | None = None,
                    languages: Iterable[str] | str | None = None) -> Dataset:
    """MultiBLiMP 1.0 (Jumelet et al. 2025) from the user's folder, some languages or all.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The folder holding ``<ISO 639-3 code>/data.tsv`` per language (module docstring);
        default ``$ACCEPTABILITY_DATA_DIR/multiblimp`` (there is no download).
    languages : str or iterable of str, optional
        ISO 639-3 codes (``"nld"``, ``"tur"``); default every language in the folder.

    Returns
    -------
    Dataset
        Pairs with ``language``, ``phenomenon``, ``paradigm`` and the files' other columns;
        a pair with an empty sentence is set aside and counted in ``exclusions``.

    Raises
    ------
    DataError
        For a folder without that layout, an unknown language, or a file without ``sen``
        and ``wrong_sen``; the message names the expected layout.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data import load_multiblimp
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "nld").mkdir()
    >>> _ = (folder / "nld" / "data.tsv").write_text(
    ...     "sen\\twrong_sen\\tphenomenon\\nDe man loopt.\\tDe man lopen.\\tSV-#\\n")
    >>> ds = load_multiblimp(folder)
    >>> ds.pairs[["pair_id", "language", "phenomenon"]].to_dict("records")
    [{'pair_id': 'nld_0', 'language': 'nld', 'phenomenon': 'SV-#'}]
    """
    root = Path(path).expanduser() if path is not None else _root(None)
    known = multiblimp_languages(root)
    langs = select_names(languages, known, "MultiBLiMP language", NAME,
                         fix_empty="pass ISO 639-3 codes, or languages=None for all",
                         fix_unknown=f"use the folders found: {known[:10]}; {LAYOUT}")
    frames, sums = [], {}
    for lang in langs:
        f = root / lang / FILE
        frames.append(_read(f, lang))
        sums[f"{lang}/{FILE}"] = checksum(f)
    raw = pd.concat(frames, ignore_index=True)
    extra = [c for c in raw.columns if c not in RAW]
    return build(NAME, raw, extra, str(root), sums)
