"""One error type for bad input: it says what, where (file, row, column) and how to fix."""

from __future__ import annotations


class DataError(ValueError):
    """Malformed or inconsistent input data.

    The message always names the source (file or table), and where known the row and
    column, what was expected, and how to fix it.
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
