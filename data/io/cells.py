"""Spreadsheet formula injection (CWE-1236): a text cell that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return is a formula to Excel, LibreOffice and Google
Sheets (``=HYPERLINK(...)``, ``=cmd|' /C calc'!A0``). Every CSV the package writes
(`data.io.atomic.write_csv`) prefixes such cells with ``'`` (OWASP's "CSV Injection" rule),
and the package's readers (`data.io.files.read_table`) take the prefix off again.

Rule: a text cell gets one more leading ``'`` when, after its leading ``'``s, it starts
with ``= + - @``, tab or CR, unless it is a negative number (``-0.25``, ``-3e-05``) or ``-``;
reading removes one, so every text comes back exactly as written. Numbers in numeric
columns are written as numbers.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
QUOTE = "'"
# a negative number as a spreadsheet reads it (a value, no formula), or a lone "-" (a
# placeholder, text to a spreadsheet): left as it is
NEGATIVE = re.compile(r"-|-(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _formula_like(text: str) -> bool:
    """Whether ``text``, its leading quotes aside, starts like a formula."""
    bare = text.lstrip(QUOTE)
    return bare.startswith(TRIGGERS) and not NEGATIVE.fullmatch(bare)


def escape_cell(value: Any) -> Any:
    """``value`` as a CSV cell: text starting like a formula gets a leading ``'``.

    Examples
    --------
    >>> from acceptability.data.io.cells import escape_cell
    >>> escape_cell("=HYPERLINK(\\"http://x\\")"), escape_cell("'+1"), escape_cell("-0.5")
    ('\\'=HYPERLINK("http://x")', "''+1", '-0.5')
    >>> escape_cell("it's"), escape_cell(-2.5)
    ("it's", -2.5)
    """
    return QUOTE + value if isinstance(value, str) and _formula_like(value) else value


def unescape_cell(value: Any) -> Any:
    """The text `escape_cell` was given: one leading ``'`` off where it added one.

    Examples
    --------
    >>> from acceptability.data.io.cells import escape_cell, unescape_cell
    >>> unescape_cell("'=1+1"), unescape_cell("''+1"), unescape_cell("'tis")
    ('=1+1', "'+1", "'tis")
    """
    if isinstance(value, str) and value.startswith(QUOTE) and _formula_like(value[1:]):
        return value[1:]
    return value


def _may_start_formula(values: pd.Series) -> np.ndarray:
    """Where a cell, its leading quotes aside, starts with a trigger: the vectorised first
    pass (the rule itself is `_formula_like`)."""
    try:
        starts = values.str.lstrip(QUOTE).str.startswith(TRIGGERS)
    except AttributeError:  # no text in the column
        return np.zeros(len(values), dtype=bool)
    return starts.eq(True).to_numpy(dtype=bool)


def _labels(index: pd.Index, cell: Any) -> pd.Index:
    """Column or row labels, and their names, through ``cell`` (each level of a MultiIndex)."""
    if isinstance(index, pd.MultiIndex):
        index = index.set_levels([_labels(level, cell) for level in index.levels])
    elif not pd.api.types.is_numeric_dtype(index.dtype):
        index = index.map(cell)
    return index.set_names([cell(name) for name in index.names])


def _cells(frame: pd.DataFrame, cell: Any) -> pd.DataFrame:
    """``frame`` with ``cell`` applied to its text values and labels; the frame itself
    (not a copy) where no value changes, as is usual."""
    changed = {}
    for i in range(frame.shape[1]):
        values = frame.iloc[:, i]
        if isinstance(values.dtype, pd.CategoricalDtype):
            categories = values.cat.categories
            mapped = _labels(categories, cell)
            if not mapped.equals(categories):
                changed[i] = values.cat.rename_categories(mapped)
        elif not pd.api.types.is_numeric_dtype(values.dtype):
            found = {v: cell(v) for v in pd.unique(values[_may_start_formula(values)])
                     if isinstance(v, str)}
            found = {v: new for v, new in found.items() if new != v}
            if found:
                changed[i] = values.map(lambda v, f=found: f.get(v, v) if isinstance(v, str) else v)
    columns, index = _labels(frame.columns, cell), _labels(frame.index, cell)
    if not changed and all(new.equals(old) and new.names == old.names for new, old in
                           ((columns, frame.columns), (index, frame.index))):
        return frame
    out = frame.copy(deep=False)
    for i, values in changed.items():
        out.isetitem(i, values)
    out.columns, out.index = columns, index
    return out


def carriage_return(frame: pd.DataFrame) -> bool:
    """Whether a text cell or label holds a carriage return: pandas (and Python 3.11's csv
    module) write such a cell unquoted, and every reader then ends the row there; the
    caller quotes the text cells (``csv.QUOTE_NONNUMERIC``).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.io.cells import carriage_return
    >>> carriage_return(pd.DataFrame({"a": ["x\\ry"]})), carriage_return(pd.DataFrame({"a": [1]}))
    (True, False)
    """
    labels = [frame.columns, frame.index]
    names = [n for index in labels for n in index.names]
    columns = [frame.iloc[:, i] for i in range(frame.shape[1])]
    return any(_holds_cr(pd.Series(values)) for values in (*labels, *columns, names))


def _holds_cr(values: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(values.dtype):
        return False
    try:
        return bool(values.str.contains("\r", regex=False).eq(True).any())
    except AttributeError:  # no text
        return False


def escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with `escape_cell` applied to every text cell and label (columns, index).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.io.cells import escape_frame
    >>> escape_frame(pd.DataFrame({"model": ["=1+1", "gpt2"], "score": [-1.5, 2.0]})).to_dict("list")
    {'model': ["'=1+1", 'gpt2'], 'score': [-1.5, 2.0]}
    """
    return _cells(frame, escape_cell)


def unescape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with `unescape_cell` applied to every text cell and label: a CSV the
    package wrote, read back as it was before writing.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data.io.cells import unescape_frame
    >>> unescape_frame(pd.DataFrame({"'@x": ["'=1+1", "'tis"]})).to_dict("list")
    {'@x': ['=1+1', "'tis"]}
    """
    return _cells(frame, unescape_cell)
