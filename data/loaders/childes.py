"""AO-CHILDES (Huebner & Willits 2021): American-English child-directed speech from CHILDES
(MacWhinney 2000), one row per adult utterance, ordered by the target child's age, with the
CHILDES MOR part-of-speech tag of every word.

The files are AO-CHILDES's ``original_transcripts/<corpus>.csv``: exports of CHILDES corpora
made with the R package childesr (``get_utterances(corpus=..., role_exclude="Target_Child")``),
one row per utterance with its ``gloss`` (the words as transcribed), ``part_of_speech`` (the
MOR tags), ``speaker_role``, ``target_child_age`` (days), ``transcript_id``,
``utterance_order``, ``type`` (the utterance terminator, e.g. ``question``) and
``collection_name``. The registry ``data/registry/aochildes.txt`` lists 21 of the 38
corpora of AO-CHILDES's repository (commit e253481); a folder with a full export is read
whole.

Rows set aside, each counted under the first reason that applies, in this order (sources:
AO-CHILDES's ``aochildes/params.py`` defaults and ``aochildes/pipeline.py`` at that commit):

1. ``speaker_role`` is ``Target_Child`` or ``Child``: AO-CHILDES keeps only speech to
   children (``bad_speaker_roles``).
2. ``collection_name`` is not ``Eng-NA``: AO-CHILDES is North-American English
   (``collection_names``); the Clinical-MOR collection is dropped.
3. ``target_child_age`` missing: AO-CHILDES orders utterances by grouping on the age, and
   pandas' ``groupby`` leaves out missing keys, so these never reach its corpus.
4. ``target_child_age`` over 6 years (2,190 days): ``max_days = 365 * 6``.
5. empty gloss: ``min_utterance_length = 1`` (``num_tokens`` < 1).
6. untranscribed: the gloss contains ``xxx``, ``yyy``, ``www`` or U+FFFD (AO-CHILDES's
   ``exclude_unknown_utterances``, the regular expression ``(U+FFFD|www|xxx|yyy)``).
7. no part-of-speech tags: the utterance has words but MOR analysed none (this package's
   rule: the rows have no tags to train a tagger or a tag n-gram model on).
8. words and tags not aligned (this package's rule). childes-db lists one
   ``part_of_speech`` entry per word it analysed, the tag of the word's host: a clitic
   contraction keeps one tag (``what's`` is ``pro:int``, ``they're`` is ``pro:sub``), so
   the gloss words and tags align one to one when their numbers are equal. They are not
   equal when MOR left words unanalysed (fillers such as ``uh``, word fragments,
   words missing from its lexicon such as ``butterfly``) or gave one word two tags
   (``wanta`` is ``v inf``); such utterances are set aside. A ``+`` compound
   (``kitty+cat``) is never analysed in these exports, so an utterance holding one is set
   aside even when the numbers happen to agree (then the tags are shifted: all 15 such
   utterances in the registered files are). Shifts remain possible where an unanalysed
   word and a two-tag word meet in one utterance (``we're gonna put your pj bottoms``:
   ``pj`` untagged, ``gonna`` tagged ``part inf``). Compared with the ``stem`` column,
   181 kept utterances (0.1%) pair a word with a stem of another first letter in a
   pairing seen fewer than 3 times; 4 of a sample of 25 were such shifts, the rest
   CHILDES replacements (``k`` [: okay]), so a few dozen shifted utterances remain.

The words of a kept utterance are cleaned as AO-CHILDES's ``Pipeline.process`` does:
lower-cased, and compounds split at ``_`` and ``+`` (``have_to`` -> ``have to``,
``Big_Bird`` -> ``big bird``); each part keeps the compound's tag (this package's rule,
as treebanks tag the parts of a multi-word name ``NNP NNP``). An utterance-final
punctuation token is added by AO-CHILDES's rule (``Pipeline.load_age_ordered_transcripts``):
``?`` when the gloss starts with ``what`` (but not ``what a ``), ``where``, ``how``,
``who``, ``when``, ``you wanna``, ``do you`` or ``can you`` (a plain prefix test on the
gloss as written, so ``whole`` counts, as there), else by the utterance type: ``!`` for
imperatives and ``question exclamation``, ``?`` for the other question types, ``.``
otherwise (AO-CHILDES's ``punctuation_dict``; types it does not list get ``?`` when they
name a question and ``.`` otherwise). The mark's tag is the mark itself, as in the
CHILDES %mor tier. AO-CHILDES pairs each gloss with the type of a row of the same *age*
rather than the same transcript (``zip(rows2['gloss'], rows['type'])``); here each
utterance takes its own type.

Not applied: AO-CHILDES's spelling table (``aochildes/spelling.py``: ``lets`` ->
``let us``, ``gimme`` -> ``give me``, ``doggy`` -> ``doggie``, ...), its merges
(``coca cola`` -> ``cocacola``) and its speaker-code words (``mot`` -> ``mother``): they
rewrite the transcribed words, often into more or fewer words, and the MOR tags describe
the words as transcribed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError, select_names
from acceptability.data.io.sources import checksum, dataset_dir, fetch, registry

NAME = "aochildes"
SUBDIR = "original_transcripts"
MAX_DAYS = 365 * 6
COLLECTION = "Eng-NA"
CHILD_ROLES = ("Target_Child", "Child")
COLUMNS = ("transcript_id", "utterance_order", "speaker_role", "target_child_age", "type",
           "collection_name", "gloss", "part_of_speech")
OUTPUT = ["corpus", "transcript_id", "utterance_order", "target_child_age", "speaker_role",
          "utterance_type", "text", "tags"]

#: Why an utterance is set aside, in the order the reasons are checked (module docstring).
EXCLUSION_REASONS = {
    "target_child": "spoken by the target child (speaker_role Target_Child)",
    "child": "spoken by another child (speaker_role Child)",
    "collection": f"not in the {COLLECTION} collection",
    "age_missing": "target child's age missing",
    "age_over_6": f"target child older than 6 years ({MAX_DAYS} days)",
    "empty": "empty gloss",
    "untranscribed": "untranscribed words (xxx, yyy, www or U+FFFD in the gloss)",
    "no_tags": "no part-of-speech tags",
    "misaligned": "words and part-of-speech tags not aligned (numbers differ, or a + compound)",
}

_UNTRANSCRIBED = re.compile("\ufffd|www|xxx|yyy")
_QUESTION_STARTS = ("what", "where", "how", "who", "when", "you wanna", "do you", "can you")
_EXCLAIM_TYPES = frozenset({"imperative", "imperative_emphatic", "question exclamation"})
_COMPOUND = re.compile(r"[_+]")
_TOKEN = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*'?|'[^\W_]+|[^\w\s]")


def final_mark(gloss: str, utterance_type: str) -> str:
    """The punctuation token AO-CHILDES appends to an utterance (module docstring)."""
    if gloss.startswith(_QUESTION_STARTS) and not gloss.startswith("what a "):
        return "?"
    if utterance_type in _EXCLAIM_TYPES:
        return "!"
    return "?" if "question" in utterance_type else "."


def childes_tokenize(text: str) -> list[str]:
    """Split text into tokens as the loaded corpus has them.

    Lower-cased, compounds split at ``_`` and ``+``, contractions and hyphenated words
    kept whole (``aren't``, ``t-shirt``), every other punctuation mark a token of its own.

    Parameters
    ----------
    text : str
        A sentence or utterance.

    Returns
    -------
    list of str
        Its tokens.

    Examples
    --------
    >>> from acceptability.data import childes_tokenize
    >>> childes_tokenize("Aren't you wearing the T-shirt, Big_Bird?")
    ["aren't", 'you', 'wearing', 'the', 't-shirt', ',', 'big', 'bird', '?']
    """
    text = _COMPOUND.sub(" ", text.lower().replace("\u2019", "'"))
    return _TOKEN.findall(text)


def _csv_files(path, corpora) -> list[tuple[str, Path]]:
    """(corpus, file) for the corpora to read: all CSVs of the local folder (or the
    registered ones when downloading), or those named in ``corpora``."""
    local = dataset_dir(NAME, path)
    if local is not None:
        folder = local / SUBDIR if (local / SUBDIR).is_dir() else local
        available = {f.stem: f for f in sorted(folder.glob("*.csv"))}
        if not available:
            raise DataError(f"no CSV files in {str(folder)!r}", source=NAME,
                            fix=f"pass the folder holding {SUBDIR}/<corpus>.csv (childesr "
                                "exports, see data/registry/aochildes.txt)")
    else:
        available = {Path(rel).stem: rel for rel in registry(NAME)}
    wanted = select_names(corpora, list(available), "corpus", NAME,
                          fix_empty="pass corpus names, or corpora=None for all",
                          fix_unknown=f"use the names of the CSV files: {sorted(available)}")
    if local is not None:
        return [(name, available[name]) for name in wanted]
    return [(name, fetch(NAME, available[name], None)) for name in wanted]


def _numbers(raw: pd.DataFrame, column: str, f: Path, missing_ok: bool = False) -> pd.Series:
    text = raw[column].str.strip()
    missing = text.isin(["", "NA"])
    values = pd.to_numeric(text.mask(missing), errors="coerce")
    bad = values.isna() & ~missing if missing_ok else values.isna()
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise DataError(f"{raw[column].iloc[i]!r} is not a number", source=str(f),
                        row=f"{i + 2} (line)", column=column,
                        fix="pass childesr exports: numbers, or NA where unknown")
    return values


def _read_corpus(corpus: str, f: Path) -> pd.DataFrame:
    try:
        raw = pd.read_csv(f, dtype=str, keep_default_na=False,
                          usecols=lambda c: c in COLUMNS)
    except pd.errors.EmptyDataError:
        raise DataError("empty file (no header, no utterances)", source=str(f),
                        fix="pass a childesr get_utterances() export as CSV") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise DataError(f"not a readable CSV file ({type(err).__name__}: {err})",
                        source=str(f), fix="pass a childesr get_utterances() export as CSV"
                        ) from None
    missing = [c for c in COLUMNS if c not in raw.columns]
    if missing:
        raise DataError(f"missing column(s) {missing}", source=str(f), column=missing[0],
                        fix="pass childesr get_utterances() exports, which have the columns "
                            f"{list(COLUMNS)}")
    out = pd.DataFrame({
        "corpus": corpus,
        "transcript_id": _numbers(raw, "transcript_id", f),
        "utterance_order": _numbers(raw, "utterance_order", f),
        "target_child_age": _numbers(raw, "target_child_age", f, missing_ok=True),
        **{c: raw[c] for c in ("speaker_role", "type", "collection_name", "gloss",
                               "part_of_speech")},
    })
    return out


def _reasons(raw: pd.DataFrame) -> np.ndarray:
    """The first exclusion reason of each row ("" when kept)."""
    n_words = pd.Series([len(g.split()) for g in raw["gloss"].tolist()], index=raw.index)
    n_tags = pd.Series([len(t.split()) for t in raw["part_of_speech"].tolist()], index=raw.index)
    age = raw["target_child_age"]
    checks = {
        "target_child": raw["speaker_role"] == "Target_Child",
        "child": raw["speaker_role"] == "Child",
        "collection": raw["collection_name"] != COLLECTION,
        "age_missing": age.isna(),
        "age_over_6": age > MAX_DAYS,
        "empty": n_words == 0,
        "untranscribed": raw["gloss"].str.contains(_UNTRANSCRIBED),
        "no_tags": n_tags == 0,
        "misaligned": (n_words != n_tags) | raw["gloss"].str.contains("+", regex=False),
    }
    reason = np.full(len(raw), "", dtype=object)
    for name, mask in checks.items():
        reason[mask.to_numpy(dtype=bool) & (reason == "")] = name
    return reason


def _clean(gloss: str, tags: str, utterance_type: str) -> tuple[str, str]:
    mark = final_mark(gloss, utterance_type)
    low = gloss.lower()
    if "_" not in low and "+" not in low:
        return f"{' '.join(low.split())} {mark}", f"{' '.join(tags.split())} {mark}"
    words, out_tags = [], []
    for word, tag in zip(low.split(), tags.split(), strict=True):
        for part in _COMPOUND.split(word):
            if part:
                words.append(part)
                out_tags.append(tag)
    return " ".join([*words, mark]), " ".join([*out_tags, mark])


def load_childes(path: str | os.PathLike | None = None,
                 corpora: Iterable[str] | str | None = None) -> pd.DataFrame:
    """AO-CHILDES's adult utterances (Huebner & Willits 2021), cleaned and ordered by the target child's age.

    The cleaning and exclusion rules and their sources are in this module's docstring.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding ``original_transcripts/<corpus>.csv`` (or the CSV files
        themselves); default ``$ACCEPTABILITY_DATA_DIR/aochildes``, else a checksummed
        download of the 21 registered corpora from AO-CHILDES's GitHub repository.
    corpora : str or iterable of str, optional
        The corpora to read (file names without ``.csv``); every CSV of a local folder,
        or the 21 registered ones, for None.

    Returns
    -------
    pandas.DataFrame
        One row per kept utterance: ``corpus`` (file name), ``transcript_id``,
        ``utterance_order``, ``target_child_age`` (days), ``speaker_role``,
        ``utterance_type``, ``text`` (cleaned words and the utterance-final mark,
        space-separated) and ``tags`` (one CHILDES MOR tag per token of ``text``; the mark
        is its own tag), ordered by age, then transcript, then utterance order, as
        AO-CHILDES orders its corpus. ``df.attrs`` holds ``exclusions`` (the rows set
        aside: ``table``, ``reason``, ``n``), ``n_read`` (utterances read), ``checksums``
        (sha256 per file) and ``source`` (the folder read).

    Raises
    ------
    DataError
        For an unknown corpus, a missing file or column, or when no utterance is kept.

    Examples
    --------
    Needs the data (AO-CHILDES's CSV files, or a download):

    >>> from acceptability.data import load_childes
    >>> corpus = load_childes(corpora="Bates")  # doctest: +SKIP
    >>> corpus[["text", "tags"]].iloc[0].tolist()  # doctest: +SKIP
    ['want to stack them for me ?', 'v inf v pro:obj prep pro:obj ?']
    """
    files = _csv_files(path, corpora)
    raw = pd.concat([_read_corpus(name, f) for name, f in files], ignore_index=True)
    if raw.empty:
        raise DataError("the CSV files hold no utterances",
                        source=", ".join(str(f) for _, f in files),
                        fix="pass childesr exports with one row per utterance")
    reason = _reasons(raw)
    kept = raw[reason == ""]
    if kept.empty:
        raise DataError(f"no utterance is kept from {len(raw)} read "
                        f"({_summary(reason)})",
                        source=", ".join(str(f) for _, f in files),
                        fix="pass exports of adult speech with MOR part-of-speech tags "
                            "(the part_of_speech column), as AO-CHILDES's CSV files have")
    cleaned = [_clean(g, t, u) for g, t, u in
               zip(kept["gloss"].tolist(), kept["part_of_speech"].tolist(),
                   kept["type"].tolist(), strict=True)]
    out = kept.assign(text=[c[0] for c in cleaned], tags=[c[1] for c in cleaned])
    out = (out.rename(columns={"type": "utterance_type"})
           .astype({"transcript_id": "int64", "utterance_order": "int64"})
           .sort_values(["target_child_age", "transcript_id", "utterance_order"],
                        kind="stable", ignore_index=True)[OUTPUT])
    counts = [("utterances", text, int((reason == name).sum()))
              for name, text in EXCLUSION_REASONS.items()]
    out.attrs = {
        "exclusions": pd.DataFrame(counts, columns=["table", "reason", "n"]),
        "n_read": len(raw),
        "checksums": {f"{SUBDIR}/{name}.csv": checksum(f) for name, f in files},
        "source": str(files[0][1].parent),
    }
    return out


def _summary(reason: np.ndarray) -> str:
    names, counts = np.unique(reason, return_counts=True)
    return "; ".join(f"{EXCLUSION_REASONS[k]}: {n}" for k, n in zip(names, counts, strict=True))


def childes_corpus_text(df: pd.DataFrame) -> tuple[list[list[str]], list[list[str]]]:
    """The word sequences and the tag sequences of a [load_childes][acceptability.data.load_childes] table.

    What `scoring.train_ngram` (a word and a tag model) and
    `scoring.baselines.tagger.train_tagger` train on.

    Parameters
    ----------
    df : pandas.DataFrame
        A table with ``text`` and ``tags`` (space-separated, one tag per word).

    Returns
    -------
    words : list of list of str
        Each row's words, in row order.
    tags : list of list of str
        Each row's tags.

    Raises
    ------
    DataError
        For a missing column, an empty row, or a row whose words and tags differ in number.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import childes_corpus_text
    >>> table = pd.DataFrame({"text": ["what is that ?"], "tags": ["pro:int cop pro:dem ?"]})
    >>> childes_corpus_text(table)
    ([['what', 'is', 'that', '?']], [['pro:int', 'cop', 'pro:dem', '?']])
    """
    missing = [c for c in ("text", "tags") if c not in df.columns]
    if missing:
        raise DataError(f"missing column(s) {missing}", source="CHILDES table",
                        column=missing[0], fix="pass a table made by load_childes")
    words = [t.split() for t in df["text"]]
    tags = [t.split() for t in df["tags"]]
    for i, (w, t) in enumerate(zip(words, tags, strict=True)):
        if len(w) != len(t) or not w:
            raise DataError(f"{len(w)} words but {len(t)} tags", source="CHILDES table",
                            row=df.index[i], column="tags",
                            fix="give one tag per word (a table made by load_childes)")
    return words, tags
