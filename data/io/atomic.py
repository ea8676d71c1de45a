"""Atomic file writes, the one implementation every subpackage uses: write to a temporary
file beside the target, flush it to disk (``fsync``), then ``os.replace`` it onto the target
in one step, so that a reader or a resumed run never sees a half-written file, and a
symlink planted at the target is replaced, never written through.

Every kind of file goes through `atomic_path`: text (`write_text`), bytes (`write_bytes`),
a table as CSV (`write_csv`, its text cells safe to open in a spreadsheet: `data.io.cells`) or
Parquet (`write_parquet`), a matplotlib figure (`write_figure`), and the files a library
saves into a folder (`atomic_files`). File names made from user text go through
`safe_name`. A full disk is a `DiskFullError` naming the file, the old file kept.
"""

from __future__ import annotations

import csv
import errno
import os
import re
import shutil
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from acceptability.data.errors import DataError

# ".<stem>.<pid>-<thread>.tmp<suffix>": the temporary name `atomic_path` gives a target
TEMP = r"\.{stem}\.(?P<pid>\d+)-\d+\.tmp{suffix}"
FILES = "files"  # `atomic_files` saves into the temporary folder of this name
MAX_NAME = 100  # characters of a file name made by `safe_name`
# "no space left on device" and "disk quota exceeded": the write cannot finish there
DISK_FULL = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


class DiskFullError(OSError):
    """The disk (or the user's quota) is full while writing ``filename``; the message
    names it and what to do. An ``OSError`` with the original errno (ENOSPC/EDQUOT)."""

    def __str__(self) -> str:
        return (f"{self.filename}: the disk is full ({self.strerror}); the write was undone "
                "and the file there before, if any, is unchanged. Fix: free space on that "
                "disk, or write elsewhere (the command line's --out)")


@contextmanager
def _disk_full_names(path: Path) -> Iterator[None]:
    """An OSError of a full disk inside the block becomes a `DiskFullError` for ``path``."""
    try:
        yield
    except DiskFullError:
        raise
    except OSError as err:
        if err.errno not in DISK_FULL:
            raise
        raise DiskFullError(err.errno, err.strerror or os.strerror(err.errno), str(path)) \
            from err


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.stem}.{os.getpid()}-{threading.get_ident()}.tmp{path.suffix}")


def _temp_pattern(path: Path) -> re.Pattern:
    return re.compile(TEMP.format(stem=re.escape(path.stem), suffix=re.escape(path.suffix)))


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (or may: on Windows, where asking could end it)."""
    if os.name == "nt" or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True


def remove_stale(path: str | os.PathLike) -> list[Path]:
    """Remove the temporary files (or `atomic_files` folders) of ``path`` that a killed
    writer left (its process no longer runs); `atomic_path` calls this before each write.

    Parameters
    ----------
    path : str or os.PathLike
        The target file.

    Returns
    -------
    list of pathlib.Path
        The temporary files removed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.atomic import remove_stale
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / ".t.999999999-1.tmp.csv").write_bytes(b"half")  # no such process
    >>> [p.name for p in remove_stale(folder / "t.csv")]
    ['.t.999999999-1.tmp.csv']
    """
    path = Path(path)
    pattern, removed = _temp_pattern(path), []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if found and not process_alive(int(found["pid"])):
            if entry.is_dir(follow_symlinks=False):  # `atomic_files`' folder
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                Path(entry.path).unlink(missing_ok=True)
            removed.append(Path(entry.path))
    return removed


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


@contextmanager
def _terminate_raises() -> Iterator[None]:
    """SIGTERM raises SystemExit inside the block (main thread, default handler only), so
    that a terminated write still removes its temporary file."""
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _fsync(path: Path) -> None:
    """Flush a file (or, where the OS allows opening one, a folder) to disk; a full disk
    (some file systems say so only here) is an error, a file system that cannot flush is
    not."""
    flags = os.O_RDONLY | (getattr(os, "O_DIRECTORY", 0) if path.is_dir() else 0)
    try:
        fd = os.open(path, flags)
    except OSError:  # a folder on Windows
        return
    try:
        os.fsync(fd)
    except OSError as err:  # a file system that cannot (some network ones)
        if err.errno in DISK_FULL:
            raise
    finally:
        os.close(fd)


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to (its folder is created).

    When the block ends the file is flushed to disk and replaces ``path`` (``os.replace``:
    atomic within a folder; a symlink at ``path`` is replaced, not followed); on any
    exception (KeyboardInterrupt, and SIGTERM in the main thread, included) it is removed
    and ``path`` stays as it was; a full disk is a `DiskFullError` naming ``path``. The temporary name keeps the last suffix (``x.csv.gz``
    -> ``.x.csv.<pid>-<thread>.tmp.gz``), so writers that infer compression or format from
    it (pandas) still do; those a killed writer left are removed first (`remove_stale`).

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.

    Yields
    ------
    pathlib.Path
        The temporary file to write.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.atomic import atomic_path
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "notes.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("whole")
    >>> target.read_text(), [p.name for p in target.parent.iterdir()]
    ('whole', ['notes.txt'])
    """
    path = Path(path)
    with _disk_full_names(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(path)
        tmp = _temp_name(path)
        with _terminate_raises():
            try:
                yield tmp
                _fsync(tmp)
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
        _fsync(path.parent)


def own_folder(folder: str | os.PathLike) -> Path:
    """``folder``, created if missing, refused when it is a symbolic link: a planted link
    (``tables`` -> a folder elsewhere) would carry every write inside it out of the output
    folder, atomic or not.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.atomic import own_folder
    >>> own_folder(pathlib.Path(tempfile.mkdtemp()) / "tables").is_dir()
    True
    """
    folder = Path(folder)
    if folder.is_symlink():
        raise DataError(f"{folder} is a symbolic link (to {os.readlink(folder)}); writing "
                        "into it would write outside the output folder", source=str(folder),
                        fix=f"remove the link ({folder}) or choose another output folder")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through `atomic_path`; returns ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.atomic import write_text
    >>> write_text(pathlib.Path(tempfile.mkdtemp()) / "a" / "b.md", "# B").read_text()
    '# B'
    """
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return Path(path)


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` through `atomic_path`; returns ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.atomic import write_bytes
    >>> write_bytes(pathlib.Path(tempfile.mkdtemp()) / "b.bin", b"\\x00\\x01").read_bytes()
    b'\\x00\\x01'
    """
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return Path(path)


def write_csv(frame: Any, path: str | os.PathLike, **to_csv: Any) -> Path:
    """Write a DataFrame as CSV through `atomic_path`: ``frame.to_csv(tmp, **to_csv)``
    (``index=False``, ``sep="\\t"``, ...; compressed by a suffix such as ``.gz``, as pandas
    infers from the temporary name); returns ``path``. Text cells and labels that a
    spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``, tab, CR) are written
    with a leading ``'`` (`data.io.cells`; the package's readers take it off).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from acceptability.data.io.atomic import write_csv
    >>> path = write_csv(pd.DataFrame({"a": [1]}), pathlib.Path(tempfile.mkdtemp()) / "t.csv",
    ...                  index=False)
    >>> path.read_text()
    'a\\n1\\n'
    >>> write_csv(pd.DataFrame({"model": ["=1+1"]}), path, index=False).read_text()
    "model\\n'=1+1\\n"
    """
    from acceptability.data.io.cells import carriage_return, escape_cell, escape_frame

    for key in ("header", "index_label"):  # names given in place of the frame's own
        given = to_csv.get(key)
        if isinstance(given, str):
            to_csv[key] = escape_cell(given)
        elif isinstance(given, list | tuple):
            to_csv[key] = [escape_cell(name) for name in given]
    if "quoting" not in to_csv and carriage_return(frame):  # else the row would end there
        to_csv["quoting"] = csv.QUOTE_NONNUMERIC
    with atomic_path(path) as tmp:
        escape_frame(frame).to_csv(tmp, **to_csv)
    return Path(path)


def write_parquet(frame: Any, path: str | os.PathLike, **to_parquet: Any) -> Path:
    """Write a DataFrame as Parquet through `atomic_path`: ``frame.to_parquet(tmp,
    **to_parquet)``; returns ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import pandas as pd
    >>> from acceptability.data.io.atomic import write_parquet
    >>> path = write_parquet(pd.DataFrame({"a": [1]}), pathlib.Path(tempfile.mkdtemp()) / "t.parquet")
    >>> pd.read_parquet(path)["a"].tolist()
    [1]
    """
    with atomic_path(path) as tmp:
        frame.to_parquet(tmp, **to_parquet)
    return Path(path)


def write_figure(figure: Any, path: str | os.PathLike, **savefig: Any) -> Path:
    """Save a matplotlib figure through `atomic_path`: ``figure.savefig(tmp, **savefig)``
    in the format ``path``'s suffix names (``.png``, ``.pdf``, ``.svg``; given explicitly,
    so the temporary name cannot change it); the figure is left open. Returns ``path``.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from matplotlib.figure import Figure
    >>> from acceptability.data.io.atomic import write_figure
    >>> path = write_figure(Figure(), pathlib.Path(tempfile.mkdtemp()) / "f.png", dpi=10)
    >>> path.read_bytes()[:4]
    b'\\x89PNG'
    """
    path = Path(path)
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format=path.suffix.lstrip(".").lower() or "png", **savefig)
    return path


@contextmanager
def atomic_files(folder: str | os.PathLike) -> Iterator[Path]:
    """A temporary folder inside ``folder`` for a library that saves several files at
    once (``save_pretrained``); when the block ends each file is flushed to disk and moved
    into ``folder`` by ``os.replace`` (each lands whole; a symlink there is replaced), and
    on any exception the temporary folder is removed.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder to fill (created).

    Yields
    ------
    pathlib.Path
        The temporary folder to save into.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.atomic import atomic_files
    >>> with atomic_files(pathlib.Path(tempfile.mkdtemp()) / "model") as tmp:
    ...     _ = (tmp / "config.json").write_text("{}")
    >>> sorted(p.name for p in tmp.parent.iterdir())  # tmp is gone, its file moved in
    ['config.json']
    """
    folder = Path(folder)
    with _disk_full_names(folder):
        folder.mkdir(parents=True, exist_ok=True)
        remove_stale(folder / FILES)
        tmp = _temp_name(folder / FILES)
        with _terminate_raises():
            try:
                tmp.mkdir()
                yield tmp
                for entry in sorted(tmp.iterdir()):
                    if entry.is_file():
                        _fsync(entry)
                    os.replace(entry, folder / entry.name)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        _fsync(folder)


def safe_name(text: str, default: str = "unnamed") -> str:
    """A file name made from user text: runs of characters other than ASCII letters,
    digits, ``_``, ``.`` and ``-`` become ``_``, leading dots and any name of dots alone
    go (no ``..``, no hidden files), at most `MAX_NAME` characters.

    Parameters
    ----------
    text : str
        A column name, model name, ...
    default : str, default "unnamed"
        The name when nothing is left.

    Returns
    -------
    str
        A name that stays inside the folder it is joined to.

    Examples
    --------
    >>> from acceptability.data.io.atomic import safe_name
    >>> safe_name("../evil"), safe_name("by type/id"), safe_name("..", "table")
    ('_evil', 'by_type_id', 'table')
    """
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(text)).lstrip(".")[:MAX_NAME]
    return name or default
