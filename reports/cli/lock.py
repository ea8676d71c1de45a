"""One writer per output folder: ``with folder_lock(out):`` holds ``<out>/.lock`` while a
command writes into ``out``; a second command into the same folder stops at once with an
error naming the holder.

The lock is ``fcntl.flock`` on the file (POSIX), which the kernel releases when its holder
ends, however it ends: a lock file left by a killed process does not block. The file holds
the holder's pid, host and start time, for the message. Where ``fcntl`` is missing
(Windows) the file itself is the lock (created with ``O_CREAT | O_EXCL``); one left by a
killed process is then removed by hand, as the message says. The lock file is written
through its locked descriptor, not by the atomic writer (replacing it would swap the file
under the lock), and opened without following a link planted in its place.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from acceptability.data.errors import DataError

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

NAME = ".lock"
OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)


def _holder(path: Path) -> tuple[str, str]:
    """Who holds the lock ``path`` and their pid, from what it wrote there."""
    try:
        info = json.loads(path.read_text(encoding="utf-8"))
        return f"process {info['pid']} on {info['host']}, since {info['started']}", \
            f"process {info['pid']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "another process", "that process"


def _busy(folder: Path, path: Path) -> DataError:
    holder, pid = _holder(path)
    return DataError(f"{holder} is writing into this folder (lock {path.name})",
                     source=str(folder),
                     fix=f"wait for it to finish or write into another folder; if {pid} "
                         f"is gone, remove {path}")


def _stamp(fd: int) -> None:
    """Write who holds the lock into its file ``fd``."""
    info = {"pid": os.getpid(), "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds")}
    os.ftruncate(fd, 0)
    os.write(fd, json.dumps(info).encode())


def _open(path: Path, flags: int) -> int:
    try:
        return os.open(path, flags, 0o644)
    except FileExistsError:
        raise
    except OSError as err:
        raise DataError(f"cannot open the lock file ({err.strerror})", source=str(path),
                        fix="remove it if it is a link or not a file, or check the "
                            "folder's permissions") from None


def _flock(folder: Path, path: Path) -> int:
    """The descriptor of ``path``, locked; the file is the one at ``path`` now (a holder
    that released it may have removed it in between: then try again)."""
    while True:
        fd = _open(path, OPEN_FLAGS)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _busy(folder, path) from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _exclusive(folder: Path, path: Path) -> int:
    """Without ``fcntl``: the file created anew is the lock."""
    try:
        return _open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        raise _busy(folder, path) from None


@contextmanager
def folder_lock(folder: str | os.PathLike) -> Iterator[Path]:
    """Hold the lock of ``folder`` (created) for the block; yields the lock file's path.

    Raises
    ------
    DataError
        When another process holds it: the message names the folder, the holder's pid and
        what to do.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from acceptability.reports.cli.lock import folder_lock
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with folder_lock(tmp) as path:
    ...         try:
    ...             with folder_lock(tmp):
    ...                 pass
    ...         except ValueError as err:
    ...             refused = f"process {os.getpid()} on" in str(err)
    ...     held_after = path.exists()
    >>> refused, held_after
    (True, False)
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / NAME
    fd = _flock(folder, path) if fcntl is not None else _exclusive(folder, path)
    try:
        _stamp(fd)
        yield path
    finally:
        path.unlink(missing_ok=True)  # while still held: a waiter re-checks the file
        os.close(fd)
