"""The user's own data from files: a sentences file and optionally a pairs file (CSV,
TSV or Parquet, by suffix; CSV/TSV may be compressed, e.g. ``.csv.gz``), read through
[from_frames][acceptability.data.from_frames] with its validation. Errors name the file and its line."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import pandas as pd
from pandas.io.common import get_handle

from acceptability.data.dataset import Dataset, from_frames
from acceptability.data.errors import DataError
from acceptability.data.io.cells import unescape_frame
from acceptability.data.io.sources import checksum
from acceptability.data.ratings import RatingScale, validate_ratings
from acceptability.data.tables import (
    ColumnMap,
    LineOffset,
    check_column_map,
    human_on_z_scale,
    rename_columns,
    validate_pairs,
    validate_sentences,
)

SEPARATORS = {".csv": ",", ".tsv": "\t", ".tab": "\t"}
PARQUET = (".parquet", ".pq")
COMPRESSION = (".gz", ".bz2", ".xz", ".zip", ".zst")
# read as text whatever they look like: "01" and "1.10" are ids, not the numbers 1 and 1.1
TEXT_COLUMNS = ("sentence_id", "pair_id", "good_id", "bad_id", "text", "model", "participant")
# pandas' default missing-value strings: missing only in a column of numbers. In the id and
# text columns above, these label columns (docs/tables.md) and any column holding words,
# "NA", "None", "null", ... are text (a phenomenon "NA", a type "None"); an empty cell is
# missing in every column.
NA_STRINGS = ("#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
              "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
LABEL_COLUMNS = ("type_id", "phenomenon", "dataset", "condition", "list", "paradigm", "method",
                 "context", "linguistics_term", "construction", "section", "hit")
NUMERIC_COLUMNS = ("label", "human", "score", "response", "chose_good", "n_tokens",
                   "ref_mean", "ref_sd")
# column separators that a mistaken file uses, as error messages name them
DELIMITERS = {",": "',' (commas)", ";": "';' (semicolons)", "\t": "tabs", "|": "'|' (bars)"}


def table_format(path: Path) -> str:
    """The file's format by its suffix (a compression suffix skipped): ``.csv``, ``.tsv``,
    ``.tab`` or ``.parquet``; anything else is an error."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSION:
        suffixes.pop()
    suffix = suffixes[-1] if suffixes else ""
    if suffix in PARQUET:
        return ".parquet"
    if suffix not in SEPARATORS:
        raise DataError(f"unknown file type {suffix or '(no suffix)'!r}", source=str(path),
                        fix="save the table as .csv, .tsv or .parquet")
    return suffix


def read_table(path: str | os.PathLike, what: str = "table",
               columns: ColumnMap = None) -> tuple[pd.DataFrame, LineOffset]:
    """A CSV/TSV/Parquet file as a DataFrame, and where its rows are in the file: for
    CSV/TSV a function from a row's position to the line where its record starts
    (`record_lines`), None for Parquet.

    CSV/TSV must be UTF-8 (a leading byte-order mark is skipped); other bytes are a
    DataError naming the line and byte (`not_utf8`). An empty cell is missing; pandas'
    missing-value strings (`NA_STRINGS`: "NA", "None", "null", "NaN", "N/A", "nan", ...)
    are missing only in a column of numbers (`NUMERIC_COLUMNS`, or a further column whose
    other cells are all numbers) and are text in the id, text and label columns and in
    any column holding words (`text_cells`). ``columns`` maps the file's column names to
    the package's (as ``read_dataset``'s), to know each column's role."""
    p = Path(path)
    if not p.is_file():
        raise DataError(f"no such {what} file", source=str(p), fix="check the path")
    fmt = table_format(p)
    try:
        if fmt == ".parquet":
            return pd.read_parquet(p), None
        header = check_separator(p, SEPARATORS[fmt], what)
        mapped = columns if isinstance(columns, Mapping) else {}  # checked after reading
        role = {name: mapped.get(name, name) for name in header}
        dtypes = {name: str for name in header if role[name] in TEXT_COLUMNS}
        na = {name: list(NA_STRINGS if role[name] in NUMERIC_COLUMNS else []) + [""]
              for name in header}
        frame = pd.read_csv(p, sep=SEPARATORS[fmt], dtype=dtypes, keep_default_na=False,
                            na_values=na)
        frame = unescape_frame(frame)  # the ' write_csv puts before a formula (data.io.cells)
        kept = [n for n in header if role[n] in (*TEXT_COLUMNS, *LABEL_COLUMNS, *NUMERIC_COLUMNS)]
        return text_cells(frame, kept), record_lines(p, SEPARATORS[fmt], len(frame))
    except DataError:
        raise
    except UnicodeDecodeError:
        raise not_utf8(p, what) from None
    except Exception as err:  # pandas/pyarrow raise many parser error types
        raise DataError(f"unreadable {what} file ({type(err).__name__}: {err})", source=str(p),
                        fix=f"write it as {fmt[1:].upper()} with a header line") from None


def text_cells(frame: pd.DataFrame, kept: list[str]) -> pd.DataFrame:
    """``frame`` (read with only empty cells missing) with each further column of text
    that holds numbers and `NA_STRINGS` alone made numeric, those strings missing (R
    writes a missing number as NA); columns in ``kept``, and any holding a word, as read.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.io.files import text_cells
    >>> frame = pd.DataFrame({"rt": ["512", "NA"], "group": ["a", "NA"], "type_id": ["1", "NA"]})
    >>> text_cells(frame, ["type_id"]).to_dict("list")
    {'rt': [512.0, nan], 'group': ['a', 'NA'], 'type_id': ['1', 'NA']}
    """
    for name in frame.columns:
        values = frame[name]
        if name in kept or pd.api.types.is_numeric_dtype(values.dtype) \
                or pd.api.types.is_bool_dtype(values.dtype):
            continue
        head = values.head(1000).dropna()
        if pd.to_numeric(head[~head.isin(NA_STRINGS)], errors="coerce").isna().any():
            continue  # a word among the first rows: text, without parsing the rest
        missing = values.isin(NA_STRINGS).to_numpy()
        known = values[~missing & values.notna().to_numpy()]
        if len(known) and pd.to_numeric(known, errors="coerce").notna().all():
            frame[name] = pd.to_numeric(values.mask(missing))
    return frame


def not_utf8(path: Path, what: str = "table") -> DataError:
    """The DataError for a CSV/TSV file that is not UTF-8 text: the line and byte of the
    first byte that is not, and how to save it as UTF-8 (UTF-16 named by its byte-order
    mark, as Excel's "Unicode text" writes it)."""
    with get_handle(path, "rb", compression="infer", is_text=False) as handle:
        raw = handle.handle.read()
    bom = " (it starts with a UTF-16 byte-order mark)" * raw.startswith((b"\xff\xfe", b"\xfe\xff"))
    try:
        raw.decode("utf-8")
        where, line = "", None
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        where = f": byte 0x{raw[err.start]:02x} at byte {err.start} (line {line})"
    return DataError(f"the {what} file is not UTF-8 text{where}{bom}", source=str(path),
                     row=None if line is None else f"{line} (line)",
                     fix="save it as UTF-8 (Excel: Save As 'CSV UTF-8'; LibreOffice: character "
                         "set 'Unicode (UTF-8)'; or iconv -f latin1 -t utf-8 old.csv > new.csv)")


def record_lines(path: Path, sep: str, n_rows: int) -> Callable[[int], int]:
    """A function from a row's position to the file line where its record starts, the
    lines counted on first use (only an error needs them): a quoted newline makes a
    record span several lines, and blank lines are skipped as pandas skips them. Where
    the count disagrees with pandas' ``n_rows``, the row's position plus 2.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.files import record_lines
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text('id,text\\na,"two\\nlines"\\n\\nb,one\\n')
    >>> line = record_lines(path, ",", 2)
    >>> line(0), line(1)
    (2, 5)
    """
    lines: list[int] = []

    def line(pos: int) -> int:
        if not lines:
            lines.extend(_count_record_lines(path, sep))
        return lines[pos] if len(lines) == n_rows else pos + 2

    return line


def _count_record_lines(path: Path, sep: str) -> list[int]:
    """The first line of every record after the header (blank lines skipped)."""
    with get_handle(path, "rb", compression="infer", is_text=False) as handle:
        text = handle.handle.read().decode("utf-8", errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    starts, end = [], 0
    try:
        for record in reader:
            if record:
                starts.append(end + 1)
            end = reader.line_num
    except csv.Error:  # a field beyond csv's size limit: no line numbers
        return []
    return starts[1:]


def check_separator(path: Path, sep: str, what: str = "table") -> list[str]:
    """The header's column names (as pandas names them); a DataError when the header line
    is one column that holds another separator: a semicolon-separated ``.csv`` (a
    spreadsheet's export where the decimal mark is a comma), or a comma-separated
    ``.tsv``; naming the separator, not a missing column."""
    header = pd.read_csv(path, sep=sep, nrows=0).columns
    found = next((d for d in DELIMITERS if d != sep and d in str(header[0])), None)
    if len(header) == 1 and found:
        decimal = " (read_csv with decimal=',' where numbers are written 0,5)" * (found == ";")
        raise DataError(f"the {what} file's columns are separated by {DELIMITERS[found]}, "
                        f"not {DELIMITERS[sep]} as its suffix {table_format(path)!r} says",
                        source=str(path),
                        fix=f"save it separated by {DELIMITERS[sep]}, e.g. pd.read_csv(path, "
                            f"sep={found!r}).to_csv(new_path, sep={sep!r}, index=False){decimal}")
    return list(header)


def read_dataset(sentences: str | os.PathLike, pairs: str | os.PathLike | None = None,
                 name: str | None = None, human_scale: str = "z",
                 ratings: str | os.PathLike | None = None,
                 scale: str | RatingScale | None = None, columns: ColumnMap = None) -> Dataset:
    """A Dataset from a sentences file and optionally a pairs file and a ratings file (the columns of docs/tables.md).

    CSV, TSV or Parquet by suffix (CSV/TSV may be compressed, e.g. ``.csv.gz``), validated
    by [from_frames][acceptability.data.from_frames]; errors name the file and its line.

    Parameters
    ----------
    sentences : str or os.PathLike
        The sentences file.
    pairs : str or os.PathLike, optional
        The pairs file.
    name : str, optional
        The dataset's name; default the sentences file's name without its suffixes.
    human_scale : {"z", "raw"}, default "z"
        As in [from_frames][acceptability.data.from_frames].
    ratings : str or os.PathLike, optional
        A trial-level ratings file: ``sentence_id``, ``response``, optionally
        ``participant`` and further columns, one row per rating
        ([validate_ratings][acceptability.data.validate_ratings]).
    scale : str or RatingScale, optional
        The ratings' scale (``"likert:1-7"``, ``"me"``, ``"binary"``); required with
        ``ratings``.
    columns : dict of str to str, optional
        Your column names -> the package's, for every file that has them, e.g.
        ``{"subject": "participant"}`` (command line ``--column subject=participant``); a
        name no file has is an error, as [from_frames][acceptability.data.from_frames].

    Returns
    -------
    Dataset
        The validated tables, with the files' folder as ``source`` and their checksums.

    Raises
    ------
    DataError
        For a missing or unreadable file, an unknown suffix, a wrong column separator,
        invalid tables, or a ratings file without its ``scale``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data import read_dataset
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "mine.csv").write_text("sentence_id,text\\ns1,The cat sleeps.\\ns2,The cat sleep.\\n")
    >>> _ = (folder / "mine_pairs.csv").write_text("pair_id,good_id,bad_id\\np1,s1,s2\\n")
    >>> ds = read_dataset(folder / "mine.csv", folder / "mine_pairs.csv")
    >>> ds.name, len(ds.pairs), sorted(ds.checksums)
    ('mine', 1, ['mine.csv', 'mine_pairs.csv'])

    With a ratings file, an error names its line:

    >>> _ = (folder / "mine_ratings.csv").write_text(
    ...     "participant,sentence_id,response\\nw1,s1,7\\nw1,s2,2\\nw2,s1,9\\n")
    >>> read_dataset(folder / "mine.csv", ratings=folder / "mine_ratings.csv", scale="likert:1-7")
    Traceback (most recent call last):
    ...
    acceptability.data.errors.DataError: .../mine_ratings.csv, row 4 (line), column 'response': response 9 is outside the scale likert:1-7...
    """
    paths = {"sentences": Path(sentences), "pairs": None if pairs is None else Path(pairs),
             "ratings": None if ratings is None else Path(ratings)}
    s_frame, p_frame, r_frame = _read_tables(paths, human_scale, scale, columns)
    s_path = paths["sentences"]
    ds = from_frames(s_frame, p_frame, name=name or s_path.name.split(".")[0],
                     human_scale=human_scale, ratings=r_frame, scale=scale)
    return replace(ds, source=str(s_path.resolve().parent),
                   checksums={p.name: checksum(p) for p in paths.values() if p is not None})


def _read_tables(paths: dict[str, Path | None], human_scale: str,
                 scale: str | RatingScale | None, columns: ColumnMap
                 ) -> tuple[pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None]:
    """``read_dataset``'s files read, their columns mapped (``columns``) and validated,
    errors naming the file and line: sentences, pairs and ratings (None where not given)."""
    if paths["ratings"] is not None and scale is None:
        raise DataError("a ratings file needs the scale its ratings were given on",
                        source=str(paths["ratings"]), fix="pass scale='likert:1-7' (your "
                        "range), 'me' (magnitude estimation) or 'binary'")
    read = {what: read_table(path, what, columns) for what, path in paths.items()
            if path is not None}
    columns = check_column_map(columns, {what: frame for what, (frame, _) in read.items()})
    s_path, (s_frame, s_offset) = paths["sentences"], read["sentences"]
    s_frame = validate_sentences(rename_columns(s_frame, columns, str(s_path)),
                                 source=str(s_path), line_offset=s_offset)
    human_on_z_scale(s_frame, human_scale, source=str(s_path),  # the error names the file
                     line_offset=s_offset)
    p_frame = r_frame = None
    if "pairs" in read:
        frame, offset = read["pairs"]
        p_frame = validate_pairs(rename_columns(frame, columns, str(paths["pairs"])), s_frame,
                                 source=str(paths["pairs"]), line_offset=offset)
    if "ratings" in read:
        frame, offset = read["ratings"]
        r_frame = validate_ratings(frame, scale, s_frame, source=str(paths["ratings"]),
                                   line_offset=offset, columns=columns)
    return s_frame, p_frame, r_frame
