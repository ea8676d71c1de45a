"""Atomic file writes, the one implementation every subpackage uses: write to a temporary
file beside the target, then ``os.replace`` it onto the target in one step, so that a
reader or a resumed run never sees a half-written file."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to (its folder is created). When the
    block ends it replaces ``path`` (``os.replace``: atomic within a folder); when the
    block raises it is removed and ``path`` stays as it was. The temporary name keeps
    the last suffix (``x.csv.gz`` -> ``.x.csv.<pid>-<thread>.tmp.gz``), so writers that
    infer compression or format from it (pandas) still do."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}-{threading.get_ident()}.tmp{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (`atomic_path`)."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)
