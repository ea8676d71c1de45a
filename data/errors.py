"""One error type for bad input: it says what, where (file, row, column) and how to fix."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class DataError(ValueError):
    """Malformed or inconsistent input data.

    The message always names the source (file or table), and where known the row and
    column, what was expected, and how to fix it.

    Parameters
    ----------
    what : str
        What is wrong.
    source : str, optional
        The file or table.
    row : object, optional
        The row (or line) where it is wrong.
    column : str, optional
        The column where it is wrong.
    fix : str, optional
        How to fix it.

    Examples
    --------
    >>> from acceptability.data import DataError
    >>> err = DataError("label 2 is not 0 or 1", source="my.csv", row=3, column="label",
    ...                 fix="use 1 or 0")
    >>> str(err)
    "my.csv, row 3, column 'label': label 2 is not 0 or 1. Fix: use 1 or 0"
    >>> isinstance(err, ValueError)
    True
    """

    def __init__(
        self,
        what: str,
        *,
        source: str | None = None,
        row: object | None = None,
        column: str | None = None,
        fix: str | None = None,
    ) -> None:
        where = []
        if source is not None:
            where.append(str(source))
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        msg = (": ".join([", ".join(where), what]) if where else what)
        if fix:
            msg += f". Fix: {fix}"
        super().__init__(msg)
        self.source, self.row, self.column = source, row, column


def select_names(names: Iterable[str] | str | None, known: list[str], what: str,
                 source: str, fix_empty: str, fix_unknown: str) -> list[str]:
    """The ``names`` to load, in the order given without repeats (all ``known`` for None);
    an empty selection, or a name not in ``known``, is a DataError (the latter naming the
    closest known names)."""
    if names is None:
        return list(known)
    wanted = list(dict.fromkeys([names] if isinstance(names, str) else names))
    if not wanted:
        raise DataError(f"no {what} selected", source=source, fix=fix_empty)
    for name in wanted:
        if name not in known:
            close = difflib.get_close_matches(str(name), list(known), n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            raise DataError(f"unknown {what} {name!r}{hint}", source=source, fix=fix_unknown)
    return wanted
