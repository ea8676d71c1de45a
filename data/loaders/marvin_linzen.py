"""Marvin & Linzen (2018), "Targeted Syntactic Evaluation of Language Models" (EMNLP):
template-generated minimal pairs for subject-verb agreement, reflexive anaphora and
negative polarity items (NPIs), MIT licence.

The release (GitHub BeckyMarvin/LM_syneval, commit edb7378, ``EMNLP2018/templates/``) is
22 pickles, one per construction (file stem, e.g. ``obj_rel_across_anim``), each a dict
from a condition (``sing_MS_MV_plur_ES_EV``: main subject/verb singular, embedded
subject/verb plural) to a list of tuples. They are read with
`data.io.safe_pickle.load_restricted` after their sha256 matched the registry.

Tuples and pairs
    Agreement and reflexive tuples are ``(grammatical, ungrammatical)``: one pair each.
    NPI tuples are triples ``(grammatical, intrusive, ungrammatical)``, the order of the
    authors' scoring script (``src/analyze_results.py``); each gives two pairs, told apart
    by the pairs column ``contrast``: ``"ungrammatical"`` (slot 0 vs slot 2, *most* in
    place of the licensor *no*) and ``"intrusive"`` (slot 0 vs slot 1). In the
    across-a-relative-clause files slot 1 has the intrusive licensor (*the authors that no
    guards like have ever...*); in the simple NPI files it has *the* and no licensor at
    all (*the authors have ever...*), which the script still calls "intrusive".

Table 1
    Each pair carries its ``phenomenon`` (agreement, reflexives, npi), Table 1's
    ``section`` (its heading: "Subject-verb agreement", "Reflexive anaphora", "Negative
    polarity items") and the row it counts towards (``table1_row``, exactly as printed;
    the mapping is `ML_CONDITIONS`, the order `ML_TABLE1_ROWS`). Table 1
    pools the animate and inanimate files (its "# sents" column is their sum: 44,800 for
    "Across a prepositional phrase" = 2 x (16,800 + 5,600)). Its NPI rows use one
    contrast each, read from the paper: Simple is *no/\\*most* (supplement A.2 3(a), whose
    past/future accuracies average to Table 1's; section 6 explains the n-gram's 0.06 by
    the bigrams *no students*/*most students*), Across a relative clause is grammatical
    vs intrusive (A.2 3(b); section 6: the bigrams *that no*, *no chef*). ``in_table1``
    marks those pairs (and all agreement and reflexive pairs). ``paradigm`` is
    ``"<phenomenon>: <table1_row>"`` (unique, since row names repeat across sections),
    with `` [<contrast>]`` appended for the NPI pairs Table 1 does not report.

Prediction setting (section 2.1)
    An agreement or reflexive pair whose sentences differ in exactly one word (after a
    shared left context) also gets BLiMP's one-prefix fields: ``one_prefix_prefix`` (the
    words before it), ``one_prefix_word_good``/``_bad`` and ``one_prefix_method`` True, so
    ``scoring.prefix_scores(ds, model, method="one_prefix")`` compares P(word | prefix).
    The paper says the setting does not apply to NPIs (the licensor and the NPI are two
    words, and the first word differs); NPI pairs have ``one_prefix_method`` False.

Other pair columns: ``construction`` (file stem), ``condition`` (pickle key), ``item``
(index in the condition's list), ``animacy`` (``inanimate`` for the ``*_inanim`` files).
Sentences have ``label`` 1 (grammatical) or 0, no ``human`` values (no human trial data
are public), and ``type_id`` ``<construction>:<condition>:<role>``.

Sentence ids are ``<construction>:<condition>:<index>:<role>`` (role ``grammatical``,
``ungrammatical``, ``intrusive``; index = position in the condition's list); pair ids are
``<construction>:<condition>:<index>``, plus ``:<contrast>`` for NPI pairs. Sentences are
kept as released: lower case, no final punctuation, one row per occurrence. The same text
recurs inside a construction (reflexives: *the author hurt themselves* is the bad member
of both the *himself* and the *herself* pair) and across constructions (the grammatical
sentences of ``obj_rel_*_across_*`` and ``obj_rel_*_within_*`` are the same); ids stay
unique per occurrence, which is all the sentences table requires.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError, select_names
from acceptability.data.io.safe_pickle import load_restricted
from acceptability.data.io.sources import fetch, registered_names, registry, source_folder
from acceptability.data.loaders.published import paper_table
from acceptability.data.tables import validate_pairs, validate_sentences

NAME = "marvin-linzen"
PHENOMENA = {"agreement": "Subject-verb agreement", "reflexives": "Reflexive anaphora",
             "npi": "Negative polarity items"}
_AGR, _REFL, _NPIS = PHENOMENA.values()
PREFIX_FIELDS = ["one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad"]
PAIR_ORDER = ["pair_id", "good_id", "bad_id", "phenomenon", "paradigm", "section", "table1_row",
              "in_table1", "contrast", "construction", "condition", "item", "animacy",
              *PREFIX_FIELDS, "one_prefix_method"]

# Table 1's rows in the paper's order: (section, row name as printed; "(no *that*)" is
# printed with *that* in italics). Sections are Table 1's headings in sentence case.
ML_TABLE1_ROWS: tuple[tuple[str, str], ...] = (
    (_AGR, "Simple"),
    (_AGR, "In a sentential complement"),
    (_AGR, "Short VP coordination"),
    (_AGR, "Long VP coordination"),
    (_AGR, "Across a prepositional phrase"),
    (_AGR, "Across a subject relative clause"),
    (_AGR, "Across an object relative clause"),
    (_AGR, "Across an object relative (no that)"),
    (_AGR, "In an object relative clause"),
    (_AGR, "In an object relative (no that)"),
    (_REFL, "Simple"),
    (_REFL, "In a sentential complement"),
    (_REFL, "Across a relative clause"),
    (_NPIS, "Simple"),
    (_NPIS, "Across a relative clause"),
)

_AGR_4 = ("sing_MS_MV_sing_ES", "sing_MS_MV_plur_ES", "plur_MS_MV_sing_ES", "plur_MS_MV_plur_ES")
_OBJ_ACROSS_ANIM = ("sing_MS_MV_sing_ES_EV", "sing_MS_MV_plur_ES_EV", "plur_MS_MV_sing_ES_EV",
                    "plur_MS_MV_plur_ES_EV")
_OBJ_ACROSS_INANIM = tuple(c.replace("MS_MV", "IS_IV") for c in _OBJ_ACROSS_ANIM)
_OBJ_WITHIN_ANIM = ("sing_ES_EV_sing_MS_MV", "plur_ES_EV_sing_MS_MV", "sing_ES_EV_plur_MS_MV",
                    "plur_ES_EV_plur_MS_MV")
_OBJ_WITHIN_INANIM = tuple(c.replace("MS_MV", "IS_IV") for c in _OBJ_WITHIN_ANIM)
_NPI = ("past", "future")

# construction (file stem) -> (phenomenon, Table 1 row, the file's conditions). The
# condition codes (LM_syneval's): MS/MV main subject/verb, ES/EV embedded subject/verb,
# IS/IV inanimate main subject/verb, BS subject of the sentential complement, ANPHR the
# reflexive, LMV a long VP; sing/plur the number of what follows. NPI files: past (have
# ever) and future (will ever).
_CONSTRUCTIONS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "simple_agrmt": ("agreement", "Simple", ("sing_MS_MV", "plur_MS_MV")),
    "sent_comp": ("agreement", "In a sentential complement",
                  ("sing_MS_MV_sing_BS", "sing_MS_MV_plur_BS", "plur_MS_MV_sing_BS",
                   "plur_MS_MV_plur_BS")),
    "vp_coord": ("agreement", "Short VP coordination", ("sing_MS_MV_MV", "plur_MS_MV_MV")),
    "long_vp_coord": ("agreement", "Long VP coordination",
                      ("sing_MS_LMV_LMV", "plur_MS_LMV_LMV")),
    "prep_anim": ("agreement", "Across a prepositional phrase", _AGR_4),
    "prep_inanim": ("agreement", "Across a prepositional phrase",
                    tuple(c.replace("MS_MV", "IS_IV") for c in _AGR_4)),
    "subj_rel": ("agreement", "Across a subject relative clause",
                 ("sing_MS_EV_MV_sing_ES", "sing_MS_EV_MV_plur_ES", "plur_MS_EV_MV_sing_ES",
                  "plur_MS_EV_MV_plur_ES")),
    "obj_rel_across_anim": ("agreement", "Across an object relative clause", _OBJ_ACROSS_ANIM),
    "obj_rel_across_inanim": ("agreement", "Across an object relative clause",
                              _OBJ_ACROSS_INANIM),
    "obj_rel_no_comp_across_anim": ("agreement", "Across an object relative (no that)",
                                    _OBJ_ACROSS_ANIM),
    "obj_rel_no_comp_across_inanim": ("agreement", "Across an object relative (no that)",
                                      _OBJ_ACROSS_INANIM),
    "obj_rel_within_anim": ("agreement", "In an object relative clause", _OBJ_WITHIN_ANIM),
    "obj_rel_within_inanim": ("agreement", "In an object relative clause", _OBJ_WITHIN_INANIM),
    "obj_rel_no_comp_within_anim": ("agreement", "In an object relative (no that)",
                                    _OBJ_WITHIN_ANIM),
    "obj_rel_no_comp_within_inanim": ("agreement", "In an object relative (no that)",
                                      _OBJ_WITHIN_INANIM),
    "simple_reflexives": ("reflexives", "Simple", ("sing_MS_ANPHR", "plur_MS_ANPHR")),
    "reflexive_sent_comp": ("reflexives", "In a sentential complement",
                            ("sing_MS_ANPHR_sing_BS", "sing_MS_ANPHR_plur_BS",
                             "plur_MS_ANPHR_sing_BS", "plur_MS_ANPHR_plur_BS")),
    "reflexives_across": ("reflexives", "Across a relative clause",
                          ("sing_MS_ANPHR_sing_ES_EV", "sing_MS_ANPHR_plur_ES_EV",
                           "plur_MS_ANPHR_sing_ES_EV", "plur_MS_ANPHR_plur_ES_EV")),
    "simple_npi_anim": ("npi", "Simple", _NPI),
    "simple_npi_inanim": ("npi", "Simple", _NPI),
    "npi_across_anim": ("npi", "Across a relative clause", _NPI),
    "npi_across_inanim": ("npi", "Across a relative clause", _NPI),
}

# (construction, condition) -> (phenomenon, Table 1 row): every condition of every file.
ML_CONDITIONS: dict[tuple[str, str], tuple[str, str]] = {
    (stem, cond): (phen, row)
    for stem, (phen, row, conds) in _CONSTRUCTIONS.items() for cond in conds
}

# The NPI contrast each Table 1 row reports (see the module docstring).
NPI_TABLE1_CONTRAST = {"Simple": "ungrammatical", "Across a relative clause": "intrusive"}
# Tuple slots: agreement/reflexives (grammatical, ungrammatical); NPIs (grammatical,
# intrusive, ungrammatical), as in LM_syneval's analyze_results.py.
ROLES = {2: ("grammatical", "ungrammatical"), 3: ("grammatical", "intrusive", "ungrammatical")}

# The paper's Table 1 as printed (transcribed by hand: data/paper_tables): accuracy per row
# of the single-task LSTM ("RNN"), the multi-task LSTM, the 5-gram model and the humans, and
# the printed "# sents" (sentences: 2 per pair, 3 per NPI triple).
ML_TABLE1_PUBLISHED = paper_table("marvin_linzen_table1.csv")


def marvin_linzen_table1_rows() -> list[tuple[str, str]]:
    """Table 1's rows in the paper's order: ``(section, row name as printed)``, section
    being ``"Subject-verb agreement"``, ``"Reflexive anaphora"`` or ``"Negative polarity
    items"``."""
    return list(ML_TABLE1_ROWS)


def marvin_linzen_constructions() -> list[str]:
    """The 22 constructions (file stems) of Marvin & Linzen's release, sorted.

    Returns
    -------
    list of str
        The stems, e.g. ``"obj_rel_across_anim"``.

    Examples
    --------
    >>> from acceptability.data import marvin_linzen_constructions
    >>> names = marvin_linzen_constructions()
    >>> len(names), names[:2]
    (22, ['long_vp_coord', 'npi_across_anim'])
    """
    return registered_names(NAME, "templates", ".pickle")


def check_constructions(names: Iterable[str] | str | None) -> list[str]:
    """The constructions to load, in Table 1 order (all 22 for None); an unknown name is
    an error that lists the closest ones."""
    wanted = select_names(
        names, marvin_linzen_constructions(), "Marvin & Linzen construction", NAME,
        fix_empty="pass construction names, or constructions=None for all 22",
        fix_unknown="use the file stems of marvin_linzen_constructions() (22 names such as "
                    "'obj_rel_across_anim')")
    order = list(_CONSTRUCTIONS)
    return sorted(wanted, key=order.index)


def _read_construction(stem: str, path) -> tuple[dict[str, list[tuple[str, ...]]], str, Path]:
    """The checked dict of one pickle, its registered checksum and its path."""
    rel = f"templates/{stem}.pickle"
    checksum, url = registry(NAME)[rel]
    f = fetch(NAME, rel, path)
    raw = load_restricted(f, checksum, fix=f"replace it with the published file ({url}), or "
                                           "point path/ACCEPTABILITY_DATA_DIR at an unmodified copy")
    src = str(f)
    if not isinstance(raw, dict):
        raise DataError(f"expected a dict of conditions, got {type(raw).__name__}", source=src)
    phen, _, conds = _CONSTRUCTIONS[stem]
    unmapped = sorted(set(raw) - set(conds))
    absent = sorted(set(conds) - set(raw))
    if unmapped or absent:
        raise DataError(f"conditions {unmapped} are not mapped to Table 1, {absent} are missing",
                        source=src, fix="use the published file")
    width = 3 if phen == "npi" else 2
    for cond in conds:
        tuples = raw[cond]
        if not isinstance(tuples, list) or not tuples:
            raise DataError("expected a non-empty list of tuples", source=src, row=cond)
        # fast path: set-level checks; find the offending tuple only when one fails
        shapes = {(type(t), len(t)) for t in tuples}
        kinds = {type(s) for t in tuples for s in t} if shapes == {(tuple, width)} else None
        if kinds != {str} or not all(s.strip() for t in tuples for s in t):
            i, t = next((i, t) for i, t in enumerate(tuples)
                        if not isinstance(t, tuple) or len(t) != width
                        or not all(isinstance(s, str) and s.strip() for s in t))
            raise DataError(f"expected a tuple of {width} non-empty sentences, got {t!r}",
                            source=src, row=f"{cond}[{i}]", fix="use the published file")
    return raw, checksum, f


def _one_prefix(good: str, bad: str) -> tuple[str, str, str] | None:
    """(prefix, good word, bad word) when the sentences differ in exactly one word."""
    g, b = good.split(), bad.split()
    if len(g) != len(b) or g == b:
        return None
    i = next(i for i, (x, y) in enumerate(zip(g, b, strict=True)) if x != y)
    if g[i + 1:] != b[i + 1:]:
        return None
    return " ".join(g[:i]), g[i], b[i]


def load_marvin_linzen(path: str | os.PathLike | None = None,
                       constructions: Iterable[str] | str | None = None) -> Dataset:
    """Marvin & Linzen (2018) as sentences + pairs: all 22 constructions, or some.

    Every file's sha256 is checked against the registry before it is unpickled. The
    module docstring describes the columns; `stats.ml_table1` scores Table 1.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``templates/<construction>.pickle``; default
        ``$ACCEPTABILITY_DATA_DIR/marvin-linzen``, else a checksummed download from
        github.com/BeckyMarvin/LM_syneval.
    constructions : str or iterable of str, optional
        File stems (see [marvin_linzen_constructions][acceptability.data.marvin_linzen_constructions]).

    Returns
    -------
    Dataset
        Sentences and pairs, with Table 1's ``section`` and ``table1_row``.

    Raises
    ------
    DataError
        For an unknown construction, or a file other than the published one.

    Examples
    --------
    Needs the data (the LM_syneval pickles, or a download):

    >>> from acceptability.data import load_marvin_linzen
    >>> ds = load_marvin_linzen(constructions="simple_agrmt")  # doctest: +SKIP
    >>> ds.pairs["table1_row"].unique().tolist()  # doctest: +SKIP
    ['Simple']
    """
    sent_blocks: list[pd.DataFrame] = []
    pair_blocks: list[pd.DataFrame] = []
    sums, folder = {}, None
    for stem in check_constructions(constructions):
        raw, checksum, f = _read_construction(stem, path)
        sums[f"templates/{stem}.pickle"], folder = checksum, f.parent
        phen, row, conds = _CONSTRUCTIONS[stem]
        animacy = "inanimate" if stem.endswith("_inanim") else "animate"
        for cond in conds:
            tuples = raw[cond]
            items = np.arange(len(tuples))
            base = [f"{stem}:{cond}:{i}" for i in items]
            roles = ROLES[3 if phen == "npi" else 2]
            ids = {r: [f"{b}:{r}" for b in base] for r in roles}
            for k, role in enumerate(roles):
                sent_blocks.append(pd.DataFrame({
                    "sentence_id": ids[role], "text": [t[k] for t in tuples],
                    "dataset": NAME, "type_id": f"{stem}:{cond}:{role}", "item": items,
                    "phenomenon": phen, "label": float(role == "grammatical"),
                    "human": np.nan,  # no human trial data are public
                    "construction": stem, "condition": cond, "role": role}))
            common = {"phenomenon": phen, "section": PHENOMENA[phen], "table1_row": row,
                      "construction": stem, "condition": cond, "item": items,
                      "animacy": animacy}
            if phen == "npi":
                for contrast in ("ungrammatical", "intrusive"):
                    table1 = NPI_TABLE1_CONTRAST[row] == contrast
                    pair_blocks.append(pd.DataFrame({
                        "pair_id": [f"{b}:{contrast}" for b in base],
                        "good_id": ids["grammatical"], "bad_id": ids[contrast],
                        "paradigm": f"npi: {row}" + ("" if table1 else f" [{contrast}]"),
                        "in_table1": table1, "contrast": contrast, **common,
                        **dict.fromkeys(PREFIX_FIELDS, np.nan), "one_prefix_method": False}))
            else:
                one = [_one_prefix(t[0], t[1]) or (np.nan,) * 3 for t in tuples]
                fields = dict(zip(PREFIX_FIELDS, zip(*one, strict=True), strict=True))
                pair_blocks.append(pd.DataFrame({
                    "pair_id": base, "good_id": ids["grammatical"], "bad_id": ids["ungrammatical"],
                    "paradigm": f"{phen}: {row}", "in_table1": True, "contrast": "ungrammatical",
                    **common, **{c: list(v) for c, v in fields.items()},
                    "one_prefix_method": [isinstance(o[1], str) for o in one]}))
    sentences = validate_sentences(pd.concat(sent_blocks, ignore_index=True), source=NAME)
    pairs = pd.concat(pair_blocks, ignore_index=True)[PAIR_ORDER]
    pairs = validate_pairs(pairs, sentences, source=NAME)
    return Dataset(name=NAME, sentences=sentences, pairs=pairs, source=source_folder(NAME, path, folder), checksums=sums)
