"""TurBLiMP (Başar, Padovani, Jumelet & Bisazza 2025, "TurBLiMP: A Turkish Benchmark of
Linguistic Minimal Pairs"), CC BY 4.0, github.com/ezgibasar/TurBLiMP at commit 297de13.

Base set: ``data/base/augmented_<phenomenon>.csv``, 16 phenomena x 1,000 pairs (README:
"16 core grammatical phenomena in Turkish, with 1,000 minimal pairs per phenomenon"),
semicolon-separated ``good_sentence;bad_sentence;good_cue;bad_cue;critical_region;
phenomenon`` (the argument-structure files add ``subtype``). ``phenomenon`` and
``paradigm`` are the file's phenomenon (``argument_structure_transitive`` and
``_ditransitive`` are two of the 16; the files' own ``phenomenon`` cell calls both
``argument_structure`` and carries stray whitespace, so the file name is used).

Experimental set (``experimental=True``): ``data/experimental/argument_structure_<subtype>_
<variant>.csv``, 22 files x 100 pairs, comma-separated with ``subtype``: for the transitive
and ditransitive paradigms, a ``baseline`` and the README's 20 experimental paradigms, six
word orders (SOV, SVO, OSV, OVS, VSO, VOS) and four subordination strategies (finite,
-DIK ``dik``, -(y)IncA ``inca``, -(y)ken ``ken``). ``paradigm`` is the file stem,
``phenomenon`` ``argument_structure_<subtype> (experimental)`` (apart from the base set's),
``variant`` the last part of the stem.

Pair columns kept for region surprisal: ``good_cue`` and ``bad_cue`` (the word that
differs) and ``critical_region`` (where the violation shows), as published: the region is
``-`` in all of ellipsis, scrambling and irregular_forms (there the cues are the region), a
cue ``∅`` marks a word absent from that member (the bad cue of determiners, the good cue of
passives and quantifiers and of 680 npi_licensing pairs), and cues are lower case, so a
sentence-initial cue differs from the sentence in case. Pair ids are
``<paradigm>_<k>`` (k = 0-based row in the file), sentence ids ``<pair id>_good``/``_bad``.

As published (tests/data/test_multilingual_loaders.py counts them): 20 base pairs
(10 in anaphor_agreement, 10 in quantifiers) and 10 experimental pairs have two identical
sentences; they are kept and flagged ``identical_text`` (a tie for every model; the
authors' ``evaluation.py`` counts them as errors, good > bad being false). 831 base
and 75 experimental pairs repeat an earlier pair of their file; each keeps its own id.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import registered_names
from acceptability.data.loaders.multilingual.pairs import RAW, build, read_registered

NAME = "turblimp"
LANGUAGE = "tr"
BASE, EXPERIMENTAL = "data/base", "data/experimental"
_PREFIX = "augmented_"
FIELDS = ["good_sentence", "bad_sentence", "good_cue", "bad_cue", "critical_region"]
EXPERIMENTAL_TAG = " (experimental)"  # an experimental paradigm's phenomenon ends so
EXTRA = ["good_cue", "bad_cue", "critical_region", "subtype", "variant", "experimental"]


def turblimp_paradigms(experimental: bool = False) -> list[str]:
    """TurBLiMP's 16 phenomena (sorted), then, with ``experimental``, its 22 experimental
    paradigms (file stems such as ``argument_structure_transitive_OSV``).

    Examples
    --------
    >>> from acceptability.data import turblimp_paradigms
    >>> len(turblimp_paradigms()), len(turblimp_paradigms(experimental=True))
    (16, 38)
    """
    base = [n.removeprefix(_PREFIX) for n in registered_names(NAME, BASE, ".csv")]
    return base + (registered_names(NAME, EXPERIMENTAL, ".csv") if experimental else [])


def is_experimental(paradigm: str) -> bool:
    """Whether a paradigm name is one of the 22 experimental ones."""
    return paradigm in registered_names(NAME, EXPERIMENTAL, ".csv")


def check_paradigms(names: Iterable[str] | str | None,
                    experimental: bool = True) -> list[str]:
    """The paradigms to load, in the order given (all for None); an unknown name is an
    error that lists the closest ones."""
    return select_names(names, turblimp_paradigms(experimental), "TurBLiMP paradigm", NAME,
                        fix_empty="pass paradigm names, or paradigms=None for all",
                        fix_unknown="use the names of turblimp_paradigms(experimental=True); "
                                    "the experimental ones need experimental=True")


def _file(paradigm: str, base: set[str]) -> str:
    """The registered path of a paradigm's file."""
    return f"{BASE}/{_PREFIX}{paradigm}.csv" if paradigm in base else f"{EXPERIMENTAL}/{paradigm}.csv"


def _read(f: Path, sep: str) -> pd.DataFrame:
    """A TurBLiMP file's cells as text, its required columns checked."""
    df = pd.read_csv(f, sep=sep, dtype=str, keep_default_na=False)
    missing = [c for c in FIELDS if c not in df.columns]
    if missing:
        raise DataError(f"missing columns {missing}", source=str(f), column=missing[0],
                        fix="use TurBLiMP's files as published (base: ';'-separated, "
                            "experimental: ','-separated)")
    return df


def load_turblimp(path: str | os.PathLike | None = None,
                  paradigms: Iterable[str] | str | None = None,
                  experimental: bool = False) -> Dataset:
    """TurBLiMP (Başar et al. 2025) as sentences + pairs: the 16 phenomena x 1,000 pairs,
    and with ``experimental`` the 22 word-order and subordination paradigms x 100.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``data/base/`` and ``data/experimental/``; default
        ``$ACCEPTABILITY_DATA_DIR/turblimp``, else a checksummed download from
        github.com/ezgibasar/TurBLiMP.
    paradigms : str or iterable of str, optional
        Names from [turblimp_paradigms][acceptability.data.turblimp_paradigms]; default
        all (the base set's 16, plus the 22 experimental ones with ``experimental``).
    experimental : bool, default False
        Also offer (and by default load) the experimental paradigms.

    Returns
    -------
    Dataset
        Pairs with ``language`` ``"tr"``, ``phenomenon``, ``paradigm``, ``good_cue``,
        ``bad_cue``, ``critical_region``, ``subtype``, ``variant``, ``experimental`` and
        ``identical_text`` (module docstring).

    Examples
    --------
    >>> from acceptability.data import load_turblimp
    >>> ds = load_turblimp(paradigms="binding")  # doctest: +SKIP
    >>> len(ds.pairs), ds.pairs["language"].iloc[0]  # doctest: +SKIP
    (1000, 'tr')
    """
    wanted = check_paradigms(paradigms, experimental)
    base = set(turblimp_paradigms())
    files = {_file(p, base): p for p in wanted}

    def read(f: Path, rel: str) -> pd.DataFrame:
        paradigm = files[rel]
        return _raw(_read(f, ";" if paradigm in base else ","), paradigm, paradigm in base)

    raw, sums, source = read_registered(NAME, list(files), path, read)
    return build(NAME, raw, EXTRA, source, sums)


def _raw(df: pd.DataFrame, paradigm: str, is_base: bool) -> pd.DataFrame:
    """One file's rows as `pairs.RAW` columns plus TurBLiMP's own."""
    pair_id = paradigm + "_" + pd.Series(range(len(df)), dtype=str)
    subtype = df["subtype"].str.strip() if "subtype" in df else pd.Series("", index=df.index)
    phenomenon = paradigm if is_base else "argument_structure_" + subtype + EXPERIMENTAL_TAG
    out = pd.DataFrame({
        "pair_id": pair_id, "good_id": pair_id + "_good", "bad_id": pair_id + "_bad",
        "good": df["good_sentence"], "bad": df["bad_sentence"], "language": LANGUAGE,
        "phenomenon": phenomenon, "paradigm": paradigm, "good_cue": df["good_cue"],
        "bad_cue": df["bad_cue"], "critical_region": df["critical_region"],
        "subtype": subtype, "variant": "" if is_base else paradigm.rsplit("_", 1)[1],
        "experimental": not is_base})
    return out[RAW + EXTRA]
