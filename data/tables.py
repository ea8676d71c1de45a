"""The tables that flow between packages (docs/tables.md), and their validation.

Every check raises [DataError][acceptability.data.DataError] naming the table (or file), the row
and the column, and saying how to fix it. ``line_offset`` turns a row position into a
file line number (2 for a CSV with a header line); without it rows are index labels.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from acceptability.data.errors import DataError

SENTENCE_COLUMNS = ["sentence_id", "text", "dataset", "type_id", "item", "phenomenon",
                    "label", "human"]
PAIR_COLUMNS = ["pair_id", "good_id", "bad_id", "phenomenon"]
SCORE_COLUMNS = ["sentence_id", "model", "score"]
#: The one scoring method whose score is not a sum of token log-probabilities (natural
#: logs) but a classifier's signed confidence (thesis eq. 2.3); every other method's score
#: has a perplexity exp(-score / n_tokens) (pseudo-perplexity for PLL; BLiMP sec. 5.2).
#: scoring.registry is the list of methods; tests/scoring/test_registry.py asserts that
#: this is its only method without log-probabilities.
SIGNED_CONFIDENCE_METHOD = "classifier"
TRIAL_COLUMNS = ["participant", "pair_id", "chose_good", "paradigm"]
#: The outcomes table: one row per (system, pair), whether the system prefers the acceptable
#: sentence (stats.benchmarks.outcomes computes it for models and humans, the rule baselines
#: of scoring.baselines.rules for their rules; BLiMP, Warstadt et al. 2020, sec. 5)
OUTCOME_COLUMNS = ["system", "pair_id", "paradigm", "phenomenon", "n", "correct", "tie"]


#: Where a row is in its file: ``None`` (rows named by their index labels), an offset added
#: to a row's position (2 for a CSV with a header line), or a function from a row's
#: position to the file line where its record starts (`data.io.files.read_table` gives one
#: for CSV/TSV: a quoted newline makes a record span several lines).
LineOffset = int | Callable[[int], int] | None
#: Control characters (C0, DEL, C1: NUL, tab, newline, escape, ...), refused in ids
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: Zero-width characters, refused in ids: invisible, they make an id that looks like
#: another a different id (ZERO WIDTH SPACE, NON-JOINER, JOINER, WORD JOINER, and
#: ZERO WIDTH NO-BREAK SPACE, the byte-order mark, met inside a cell)
ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
#: Human judgments on the z scale are z-scores: a participant's z-score (population SD)
#: lies within sqrt(m - 1) of 0 for m ratings, so |z| > 1000 needs a million ratings of one
#: participant and is no z-score (an overflow, a raw score, a typo); refused.
HUMAN_Z_LIMIT = 1000.0


def _where(df: pd.DataFrame, mask: pd.Series | np.ndarray, line_offset: LineOffset) -> object:
    pos = int(np.flatnonzero(np.asarray(mask))[0])
    if line_offset is None:
        return df.index[pos]
    return f"{line_offset(pos) if callable(line_offset) else pos + line_offset} (line)"


def id_column(df: pd.DataFrame, column: str, source: str, line_offset: LineOffset = None,
              required: bool = True) -> pd.Series:
    """``df[column]`` as ids, by the one rule of every table: strings with surrounding
    whitespace stripped (``"s0g "`` is ``"s0g"``) and in Unicode NFC (``"café"`` with a
    composed é and with e + a combining accent are one id, written composed: files from
    different editors join); a missing id (unless not ``required``: then it stays
    missing), an empty one, or one holding a control character (NUL, tab, newline, ...)
    or a zero-width character (`ZERO_WIDTH`) is a DataError naming the row.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.tables import id_column
    >>> id_column(pd.DataFrame({"sentence_id": [" s0g", 2]}), "sentence_id", "mine").tolist()
    ['s0g', '2']
    """
    values = df[column]
    missing = values.isna().to_numpy()
    ids = values.astype(str).str.strip()
    blank = (missing & required) | (~missing & (ids == "").to_numpy())
    if blank.any():
        raise DataError(f"missing {column} ({int(blank.sum())} rows): an empty id or one of "
                        "only whitespace", source=source, row=_where(df, blank, line_offset),
                        column=column,
                        fix=f"give every row a {column}, or drop the rows without one")
    raw = _utf8_bytes(ids)
    bad = _control_rows(ids, raw)
    if bad.any():
        raise DataError(
            f"{column} {ids[bad].iloc[0]!r} holds a control character ({int(bad.sum())} rows)",
            source=source, row=_where(df, bad, line_offset), column=column,
            fix="remove tabs, newlines and other control characters from the ids")
    if not any((chunk >= 0x80).any() for chunk in raw):
        return ids  # ASCII: no zero-width character, and already NFC
    bad = ids.str.contains(ZERO_WIDTH.pattern, regex=True).fillna(False).to_numpy(bool)
    if bad.any():
        char = ZERO_WIDTH.search(ids[bad].iloc[0]).group()
        raise DataError(
            f"{column} {ids[bad].iloc[0]!r} holds the invisible character U+{ord(char):04X} "
            f"{unicodedata.name(char)} ({int(bad.sum())} rows)", source=source,
            row=_where(df, bad, line_offset), column=column,
            fix=f"delete it (in Python: text.replace({char!r}, '')): it makes an id that "
                "looks like another a different id")
    return ids.str.normalize("NFC")


def arrow_strings(values) -> pa.Array:
    """``values`` (any list-like; ids) as one Arrow string array, missing values null.

    Examples
    --------
    >>> from acceptability.data.tables import arrow_strings
    >>> arrow_strings(["s1", None]).to_pylist()
    ['s1', None]
    """
    return pa.array(pd.Series(values, dtype="str").array)


def _control_rows(ids: pd.Series, utf8: list[np.ndarray] | None = None) -> np.ndarray:
    """Which of ``ids`` (strings, maybe missing) hold a `CONTROL` character. Their UTF-8
    bytes (``utf8``, else `_utf8_bytes`) are scanned first: without a C0 or DEL byte or a
    C1 character (0xC2 then 0x80-0x9F) anywhere, no id holds one, and the regex need not
    run on every id."""
    for raw in _utf8_bytes(ids) if utf8 is None else utf8:
        if ((raw < 0x20) | (raw == 0x7F)).any() or ((raw[:-1] == 0xC2) & (raw[1:] < 0xA0)).any():
            return ids.str.contains(CONTROL.pattern, regex=True).fillna(False).to_numpy(bool)
    return np.zeros(len(ids), dtype=bool)


def _utf8_bytes(ids: pd.Series) -> list[np.ndarray]:
    """The UTF-8 bytes of ``ids`` (strings, maybe missing), one array per Arrow chunk."""
    data = arrow_strings(ids)
    return [np.frombuffer(chunk.buffers()[2] or b"", np.uint8)
            for chunk in (data.chunks if isinstance(data, pa.ChunkedArray) else [data])]


def member(values: pd.Series, ids) -> np.ndarray:
    """``values.isin(ids)`` as a boolean array, by a hash lookup in Arrow: pandas 3's
    ``isin`` on string columns builds one Python object per value (9 s against 0.5 s for
    the 337,000 Marvin & Linzen sentence ids), and ``Index.get_indexer`` grows
    superlinearly (1.5 s for 3.3 million score rows, against 0.1 s)."""
    found = pc.is_in(arrow_strings(values), value_set=arrow_strings(ids))
    return np.asarray(found.to_numpy(zero_copy_only=False), dtype=bool)


def signed_confidence(method: pd.Series | np.ndarray) -> np.ndarray:
    """Which entries of a scores table's ``method`` column (a Series or array of any shape)
    name a signed-confidence score (`SIGNED_CONFIDENCE_METHOD`; thesis eq. 2.3), whose sign
    is the predicted label, rather than log-probabilities.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.tables import signed_confidence
    >>> signed_confidence(pd.Series(["classifier", "pll"])).tolist()
    [True, False]
    """
    return np.asarray(method, dtype=object) == SIGNED_CONFIDENCE_METHOD


def pair_groups(pairs: pd.DataFrame) -> pd.DataFrame:
    """pair_id, paradigm, phenomenon of each pair (the outcomes table's groups); a dataset
    without paradigms uses its phenomena.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.data.tables import pair_groups
    >>> ds, _ = data.load_example()
    >>> pair_groups(ds.pairs).iloc[0].tolist()
    ['pair01', '32.3.Culicover.7a.g', '32.3.Culicover.7a.g']
    """
    out = pairs[["pair_id", "phenomenon"]].copy()
    paradigm = pairs["paradigm"] if "paradigm" in pairs else pd.Series(np.nan, pairs.index)
    out["paradigm"] = paradigm.where(paradigm.notna(), pairs["phenomenon"]).astype(str)
    out["phenomenon"] = out["phenomenon"].astype(str)
    return out


def require_columns(df: pd.DataFrame, columns: list[str], source: str) -> None:
    """Raise if any of ``columns`` is missing, suggesting near matches."""
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(df).__name__}", source=source)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(
            f"missing column(s) {missing}; found {list(df.columns)}",
            source=source,
            fix="rename the columns to the names above, or map yours to them: columns="
                "{'yours': 'sentence_id'} (command line --column yours=sentence_id; the "
                "tables are defined in docs/tables.md)",
        )
    if df.empty:
        raise DataError("the table is empty", source=source, fix="pass at least one row")


#: A user's column names -> the package's (``{"subject": "participant"}``), for every table
ColumnMap = Mapping[str, str] | None


def parse_column_map(specs: Iterable[str]) -> dict[str, str]:
    """``--column NAME=PACKAGE_NAME`` flags as a column map; a malformed one is an error.

    Examples
    --------
    >>> from acceptability.data.tables import parse_column_map
    >>> parse_column_map(["subject=participant", "rating = response"])
    {'subject': 'participant', 'rating': 'response'}
    """
    out = {}
    for spec in specs:
        name, sep, target = str(spec).partition("=")
        if not (sep and name.strip() and target.strip()):
            raise DataError(f"--column {spec!r} is not NAME=COLUMN",
                            fix="map a column of your files to the package's name, e.g. "
                                "--column subject=participant")
        out[name.strip()] = target.strip()
    return out


def check_column_map(columns: ColumnMap, tables: dict[str, pd.DataFrame]) -> dict[str, str]:
    """``columns`` checked against the tables it renames (name -> frame): every name it
    maps must be a column of one of them, and no two names may map to one column."""
    columns = dict(columns or {})
    for name, target in columns.items():
        if not (isinstance(name, str) and isinstance(target, str)):
            raise DataError(f"column map {name!r}: {target!r} is not text to text",
                            fix='map column names to column names, e.g. {"subject": '
                                '"participant"}')
        if not any(name in t.columns for t in tables.values() if t is not None):
            found = {k: list(t.columns) for k, t in tables.items() if t is not None}
            raise DataError(f"the column map names column {name!r}, which no table has "
                            f"(found {found})", source=", ".join(found),
                            fix="map a column the files have, e.g. columns={'subject': "
                                "'participant'} (command line --column subject=participant)")
    doubled = pd.Series(list(columns.values())).duplicated()
    if doubled.any():
        raise DataError(f"two columns are mapped to {list(columns.values())[int(np.flatnonzero(doubled)[0])]!r}",
                        fix="map one column of a table to each of the package's names")
    return columns


def rename_columns(df: pd.DataFrame, columns: ColumnMap, source: str) -> pd.DataFrame:
    """``df`` with its columns renamed by ``columns`` (names it lacks are ignored: a map
    serves every table); renaming onto a column the table already has is an error.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.tables import rename_columns
    >>> rename_columns(pd.DataFrame({"subject": ["P1"]}), {"subject": "participant"},
    ...                "ratings").columns.tolist()
    ['participant']
    """
    used = {k: v for k, v in (columns or {}).items() if k in df.columns and k != v}
    clash = [v for v in used.values() if v in df.columns and v not in used]
    if clash:
        raise DataError(f"the column map renames a column to {clash[0]!r}, which the table "
                        "already has", source=source, column=clash[0],
                        fix=f"drop or rename the table's own {clash[0]!r} column, or map "
                            "another one")
    return df.rename(columns=used) if used else df


def numeric_column(df: pd.DataFrame, column: str, source: str,
                   line_offset: LineOffset = None, owner: str | None = None) -> pd.Series:
    """``df[column]`` as float; a non-numeric or non-finite (inf, -inf) entry is an error
    naming the row (and the value of column ``owner``, e.g. the model), an empty one NaN.
    Infinities stop here: one of them would turn a whole model's z-scores into NaN."""
    values = pd.to_numeric(df[column], errors="coerce")
    bad = values.isna() & df[column].notna()
    if bad.any():  # text only for the cells that did not parse: astype(str) of all is slow
        bad[bad] = df[column][bad].astype(str).str.strip() != ""
    if bad.any():
        row = _where(df, bad, line_offset)
        raise DataError(
            f"non-numeric value {df[column][bad].iloc[0]!r}", source=source, row=row,
            column=column, fix="use a number, or leave the cell empty for a missing value",
        )
    values = values.astype(float)
    infinite = np.isinf(values.to_numpy())
    if infinite.any():
        pos = int(np.flatnonzero(infinite)[0])
        whose = f" of {owner} {df[owner].iloc[pos]!r}" if owner else ""
        raise DataError(
            f"non-finite value {float(values.iloc[pos])!r}{whose} "
            f"({int(infinite.sum())} such rows)",
            source=source, row=_where(df, infinite, line_offset), column=column,
            fix="replace it with a finite number, or leave the cell empty: a missing value is "
                "excluded from the metrics and counted",
        )
    return values


def refuse_repeats(df: pd.DataFrame, keys: list[str], source: str, line_offset: LineOffset,
                   what: Callable[[pd.Series], str], column: str, fix: str,
                   among: np.ndarray | None = None) -> None:
    """The one check of repeated rows, for every table: rows (of those ``among`` marks)
    equal on ``keys`` are a DataError saying ``what(first row)``, naming the first two
    such rows (file lines, else index labels), how many rows repeat another, and ``fix``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.tables import refuse_repeats
    >>> refuse_repeats(pd.DataFrame({"id": ["a", "b", "a"]}), ["id"], "mine.csv", 2,
    ...                lambda row: f"id {row['id']!r} twice", "id", "drop one")
    Traceback (most recent call last):
    ...
    acceptability.data.errors.DataError: mine.csv, row 2 (line), column 'id': id 'a' twice (lines 2 and 4; 2 rows repeat another). Fix: drop one
    """
    if among is None:
        dup = df.duplicated(keys, keep=False).to_numpy()
    else:
        dup = np.zeros(len(df), dtype=bool)
        dup[among] = df[among].duplicated(keys, keep=False).to_numpy()
    if not dup.any():
        return
    group = df.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()
    first = int(np.flatnonzero(dup)[0])
    both = np.flatnonzero(dup & (group == group[first]))[:2]
    if line_offset is None:
        place = "rows " + " and ".join(str(df.index[k]) for k in both)
    else:
        line = line_offset if callable(line_offset) else (lambda k: k + line_offset)
        place = "lines " + " and ".join(str(line(int(k))) for k in both)
    raise DataError(f"{what(df.iloc[first])} ({place}; {int(dup.sum())} rows repeat another)",
                    source=source, row=_where(df, dup, line_offset), column=column, fix=fix)


def _unique(df: pd.DataFrame, column: str, source: str, line_offset: LineOffset) -> None:
    refuse_repeats(df, [column], source, line_offset, lambda row: f"duplicate {column} "
                   f"{row[column]!r}", column, f"make {column} unique, e.g. by appending a "
                   "suffix (ids are compared after stripping spaces, in Unicode NFC)")


def validate_sentences(df: pd.DataFrame, source: str = "sentences",
                       line_offset: LineOffset = None) -> pd.DataFrame:
    """Check and normalise a sentences table; optional columns are added as missing.

    Parameters
    ----------
    df : pandas.DataFrame
        At least ``sentence_id`` and ``text``.
    source : str, default "sentences"
        The table's name in error messages.
    line_offset : int or callable, optional
        Added to a row's position to give its file line (2 for a CSV with a header), or a
        function from a row's position to its file line (`LineOffset`).

    Returns
    -------
    pandas.DataFrame
        A copy with string ids and texts, ``label`` and ``human`` numeric, ``type_id``
        defaulting to the sentence id and ``phenomenon`` to the type; the standard columns
        first. Ids are in Unicode NFC (`id_column`); texts are kept as written, not
        normalised: a model scores the characters it is given (GPT-2's byte-level BPE
        tokenises a composed and a decomposed "é" differently), so normalise them
        yourself (``unicodedata.normalize("NFC", text)``) where that is meant.

    Raises
    ------
    DataError
        For a missing column or id, a duplicate id, an empty text or a label not 0/1; ids
        are stripped of surrounding whitespace, and an empty id or one holding a control
        character is an error (`data.tables.id_column`).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_sentences
    >>> out = validate_sentences(pd.DataFrame({"sentence_id": [1, 2], "text": ["a b.", "b a."]}))
    >>> out[["sentence_id", "type_id", "phenomenon"]].to_dict("list")
    {'sentence_id': ['1', '2'], 'type_id': ['1', '2'], 'phenomenon': ['1', '2']}
    """
    require_columns(df, ["sentence_id", "text"], source)
    out = df.copy()
    out["sentence_id"] = id_column(out, "sentence_id", source, line_offset)
    if "type_id" in out.columns:
        out["type_id"] = id_column(out, "type_id", source, line_offset, required=False)
    _unique(out, "sentence_id", source, line_offset)
    empty = out["text"].isna() | (out["text"].astype(str).str.strip() == "")
    if empty.any():
        raise DataError("empty sentence text", source=source, row=_where(out, empty, line_offset),
                        column="text", fix="remove the row or fill in the sentence")
    out["text"] = out["text"].astype(str)
    for col in SENTENCE_COLUMNS:
        if col not in out.columns:
            out[col] = out["sentence_id"] if col == "type_id" else np.nan
    for col in ("label", "human"):
        out[col] = numeric_column(out, col, source, line_offset)
    bad_label = out["label"].notna() & ~out["label"].isin([0.0, 1.0])
    if bad_label.any():
        raise DataError(f"label {out['label'][bad_label].iloc[0]:g} is not 0 or 1",
                        source=source, row=_where(out, bad_label, line_offset), column="label",
                        fix="use 1 (acceptable), 0 (unacceptable) or leave it empty")
    out["type_id"] = out["type_id"].fillna(out["sentence_id"]).astype(str)
    out["phenomenon"] = out["phenomenon"].astype(object).fillna(out["type_id"]).astype(str)
    return out[SENTENCE_COLUMNS + [c for c in out.columns if c not in SENTENCE_COLUMNS]]


HUMAN_SCALES = ("z", "raw")


def power_of_two_exponent(magnitude: np.ndarray | pd.Series | float) -> np.ndarray:
    """The exponent e with ``magnitude`` in [2**(e-1), 2**e) (0 for 0 or NaN): values
    divided by 2**e (``np.ldexp(x, -e)``, exact) lie within [-1, 1], where a mean and an
    SD neither overflow (a score of 1e308) nor lose digits to subnormals (1e-310), and
    come out the same bit for bit as unscaled wherever those did not.

    Examples
    --------
    >>> from acceptability.data.tables import power_of_two_exponent
    >>> power_of_two_exponent([1e308, 3.0, 0.0, float("nan")]).tolist()
    [1024, 2, 0, 0]
    """
    exponent = np.frexp(np.nan_to_num(np.asarray(magnitude, dtype=float), nan=0.0))[1]
    return exponent.astype(np.int64)


def _within_z_limit(sentences: pd.DataFrame, source: str, line_offset: LineOffset) -> None:
    beyond = (sentences["human"].astype(float).abs() > HUMAN_Z_LIMIT).to_numpy()
    if beyond.any():
        raise DataError(
            f"human value {sentences['human'][beyond].iloc[0]:g} is no z-score (beyond "
            f"+-{HUMAN_Z_LIMIT:g}; {int(beyond.sum())} such rows)", source=source,
            row=_where(sentences, beyond, line_offset), column="human",
            fix="correct the value, or declare the values raw ratings (human_scale='raw', "
                "command line --human-scale raw) to have them z-scored over the sentences")


def human_on_z_scale(sentences: pd.DataFrame, human_scale: str = "z",
                     source: str = "sentences", line_offset: LineOffset = None,
                     ) -> tuple[pd.DataFrame, dict | None]:
    """The sentences with ``human`` on the z scale that the ADC needs (thesis 1.3.3: it
    compares good-minus-bad differences of human judgments and of z-scored model scores).

    ``human_scale="z"`` (default): ``human`` already holds z-scores (LI-Adger: each
    participant's ratings z-scored, then averaged per sentence); values that are all of
    one sign (mean ratings on a 1-7 scale, proportions) cannot be, and are an error.
    ``"raw"``: ``human`` holds raw sentence ratings; they are z-scored over the dataset's
    sentences (population SD, as model scores are), and the mean and SD used are returned
    (else None) for the record. Per-participant z-scoring of trial-level ratings, the
    field's standard, is better where the trials exist.

    On the z scale a value beyond +-`HUMAN_Z_LIMIT` (1000) is an error naming its row (a
    participant's z-score lies within sqrt(m - 1) of 0 for m ratings; 1e308 overflowed
    the deltas and counted as an ADC failure); raw ratings of any finite size are
    standardised exactly (in a power-of-two scaled space, `power_of_two_exponent`).
    """
    if human_scale not in HUMAN_SCALES:
        raise DataError(f"human_scale {human_scale!r} is not one of {list(HUMAN_SCALES)}",
                        source=source, fix="'z' for z-scored judgments, 'raw' to standardise")
    human = sentences["human"].astype(float)
    known = human.dropna()
    if human_scale == "z":
        _within_z_limit(sentences, source, line_offset)
    if len(known) < 2:
        return sentences, None
    if human_scale == "raw":
        e = int(power_of_two_exponent(known.abs().max()))  # no overflow at 1e308
        scaled = np.ldexp(known, -e)
        mean, sd = float(scaled.mean()), float(scaled.std(ddof=0))
        if not sd > 0:
            raise DataError(f"every human value is {np.ldexp(mean, e):g}: they cannot be "
                            "standardised", source=source, column="human",
                            fix="check the human column")
        z = (np.ldexp(human, -e) - mean) / sd
        return sentences.assign(human=z), {"mean": float(np.ldexp(mean, e)),
                                           "sd": float(np.ldexp(sd, e))}
    if known.min() >= 0 or known.max() <= 0:
        raise DataError(
            f"human values run from {known.min():g} to {known.max():g}, all of one sign: "
            "they are not z-scores, which the ADC needs (it compares human and z-scored model "
            "differences)", source=source, column="human",
            fix="z-score each participant's ratings and average them per sentence, or "
                "declare the values raw ratings (human_scale='raw', command line "
                "--human-scale raw) to have them z-scored over the dataset's sentences")
    return sentences, None


def validate_pairs(df: pd.DataFrame, sentences: pd.DataFrame, source: str = "pairs",
                   line_offset: LineOffset = None) -> pd.DataFrame:
    """Check a pairs table against its sentences; ``phenomenon`` defaults to the good sentence's.

    Parameters
    ----------
    df : pandas.DataFrame
        ``pair_id``, ``good_id``, ``bad_id`` (and optionally ``phenomenon``).
    sentences : pandas.DataFrame
        The validated sentences table the ids refer to.
    source : str, default "pairs"
        Names the table in errors.
    line_offset : int, optional
        Turns row positions into file lines.

    Returns
    -------
    pandas.DataFrame
        A copy with string ids and a ``phenomenon`` column, the standard columns first.

    Raises
    ------
    DataError
        For a missing column, a duplicate pair id, an id that names no sentence, a pair
        of a sentence with itself, or a pair whose good sentence is labelled unacceptable
        and bad one acceptable; ids follow ``id_column``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_pairs, validate_sentences
    >>> s = validate_sentences(pd.DataFrame({"sentence_id": ["g", "b"], "text": ["Yes.", "No."],
    ...                                      "phenomenon": ["agreement", "agreement"]}))
    >>> validate_pairs(pd.DataFrame({"pair_id": ["p"], "good_id": ["g"], "bad_id": ["b"]}),
    ...                s).to_dict("records")
    [{'pair_id': 'p', 'good_id': 'g', 'bad_id': 'b', 'phenomenon': 'agreement'}]
    """
    require_columns(df, ["pair_id", "good_id", "bad_id"], source)
    out = df.copy()
    for col in ("pair_id", "good_id", "bad_id"):
        out[col] = id_column(out, col, source, line_offset)
    _unique(out, "pair_id", source, line_offset)
    known = pd.Index(sentences["sentence_id"])
    for col in ("good_id", "bad_id"):
        unknown = ~member(out[col], known)
        if unknown.any():
            raise DataError(
                f"{col} {out[col][unknown].iloc[0]!r} names no sentence "
                f"({int(unknown.sum())} such pairs)",
                source=source, row=_where(out, unknown, line_offset), column=col,
                fix="add the sentence to the sentences table or drop the pair",
            )
    same = out["good_id"] == out["bad_id"]
    if same.any():
        raise DataError("a pair compares a sentence with itself", source=source,
                        row=_where(out, same, line_offset), column="bad_id",
                        fix="give the pair two different sentences")
    _labels_agree(out, sentences, source, line_offset)
    phen = out["good_id"].map(sentences.set_index("sentence_id")["phenomenon"])
    out["phenomenon"] = out["phenomenon"].astype(object).fillna(phen) if "phenomenon" in out else phen
    out["phenomenon"] = out["phenomenon"].astype(str)
    return out[PAIR_COLUMNS + [c for c in out.columns if c not in PAIR_COLUMNS]]


def _labels_agree(pairs: pd.DataFrame, sentences: pd.DataFrame, source: str,
                  line_offset: LineOffset) -> None:
    """A pair whose good sentence is labelled unacceptable (0) and bad one acceptable (1)
    contradicts its labels: an error (a missing label contradicts nothing)."""
    if "label" not in sentences.columns:
        return
    label = pd.Series(sentences["label"].to_numpy(float), index=sentences["sentence_id"])
    good, bad = pairs["good_id"].map(label), pairs["bad_id"].map(label)
    wrong = ((good == 0) & (bad == 1)).to_numpy()
    if wrong.any():
        pair = pairs[wrong].iloc[0]
        raise DataError(
            f"pair {pair['pair_id']!r} contradicts the labels: its good sentence "
            f"{pair['good_id']!r} is labelled unacceptable (0) and its bad sentence "
            f"{pair['bad_id']!r} acceptable (1) ({int(wrong.sum())} such pairs)",
            source=source, row=_where(pairs, wrong, line_offset), column="good_id",
            fix="swap good_id and bad_id of the pair, or correct the labels")


def validate_scores(df: pd.DataFrame, sentences: pd.DataFrame | None = None,
                    source: str = "scores", line_offset: LineOffset = None) -> pd.DataFrame:
    """Check a long scores table: numeric scores, one per (sentence, model), known ids.

    NaN scores are kept (metrics exclude and count them); non-numeric ones are errors.

    Parameters
    ----------
    df : pandas.DataFrame
        ``sentence_id``, ``model``, ``score`` (optionally ``method``, ``n_tokens``,
        ``ref_mean``, ``ref_sd``).
    sentences : pandas.DataFrame, optional
        When given, every ``sentence_id`` must be one of its sentences.
    source, line_offset
        As in [validate_sentences][acceptability.data.validate_sentences].

    Returns
    -------
    pandas.DataFrame
        A copy with string ids and numeric scores.

    Raises
    ------
    DataError
        For a missing id, a non-numeric score, two scores of one sentence by one model,
        or a sentence that ``sentences`` lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_scores
    >>> scores = pd.DataFrame({"sentence_id": ["s1", "s2"], "model": "gpt2",
    ...                        "score": ["-12.5", None]})
    >>> validate_scores(scores)["score"].tolist()
    [-12.5, nan]
    """
    require_columns(df, SCORE_COLUMNS, source)
    out = df.copy()
    for col in ("sentence_id", "model"):  # a row without them belongs to no model/sentence
        out[col] = id_column(out, col, source, line_offset)
    out["score"] = numeric_column(out, "score", source, line_offset, owner="model")
    for col in ("ref_mean", "ref_sd"):
        if col in out.columns:
            out[col] = numeric_column(out, col, source, line_offset, owner="model")
    refuse_repeats(out, ["model", "sentence_id"], source, line_offset,
                   lambda row: f"model {row['model']!r} has several scores for sentence "
                               f"{row['sentence_id']!r}", "sentence_id",
                   "keep one score per sentence and model (use distinct model names for methods)")
    if sentences is not None:
        unknown = ~member(out["sentence_id"], sentences["sentence_id"])
        if unknown.any():
            raise DataError(
                f"score for unknown sentence {out['sentence_id'][unknown].iloc[0]!r} "
                f"({int(unknown.sum())} such rows)",
                source=source, row=_where(out, unknown, line_offset), column="sentence_id",
                fix="score the dataset's own sentences, or filter the scores to them",
            )
    return out


def validate_trials(df: pd.DataFrame, source: str = "trials", line_offset: LineOffset = None,
                    columns: tuple[str, ...] = ("participant", "pair_id", "chose_good"),
                    ) -> pd.DataFrame:
    """Check a forced-choice trials table: ``chose_good`` must be 0/1.

    The one check of forced-choice trials: loaders, [from_frames][acceptability.data.from_frames]
    and every statistic of trials use it.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per trial.
    source : str, default "trials"
        The name errors give the table.
    line_offset : int, optional
        Added to row positions (a CSV file's header line makes it 2).
    columns : tuple of str, default ("participant", "pair_id", "chose_good")
        The columns the table must have.

    Returns
    -------
    pandas.DataFrame
        A copy with ``chose_good`` as int.

    Raises
    ------
    DataError
        For a missing column or a ``chose_good`` other than 0 or 1.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_trials
    >>> trials = pd.DataFrame({"participant": ["w1", "w2"], "pair_id": ["p1", "p1"],
    ...                        "chose_good": [1.0, 0.0]})
    >>> validate_trials(trials)["chose_good"].tolist()
    [1, 0]
    """
    require_columns(df, list(columns), source)
    out = df.copy()
    for col in ("participant", "pair_id"):
        if col in out.columns:
            out[col] = id_column(out, col, source, line_offset, required=False)
    out["chose_good"] = numeric_column(out, "chose_good", source, line_offset)
    bad = ~out["chose_good"].isin([0.0, 1.0])
    if bad.any():
        raise DataError(f"chose_good {out['chose_good'][bad].iloc[0]:g} is not 0 or 1",
                        source=source, row=_where(out, bad, line_offset), column="chose_good",
                        fix="code the choice as 1 (acceptable chosen) or 0, and drop "
                            "unanswered trials")
    out["chose_good"] = out["chose_good"].astype(int)
    return out
