"""Folders and files the package trusts or writes: private ones (a cache, a key) must be the
user's own and writable by no one else; an output must be writable before work starts."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from acceptability.data.errors import DataError

POSIX = os.name == "posix"  # owners and modes exist (not on Windows)


def check_private(path: str | os.PathLike, what: str) -> Path:
    """Refuse ``path`` (a file or folder) when another user owns it or when its group or
    everyone may write it: whoever can write a cache or a key can plant what the package
    then trusts. A no-op off POSIX (Windows) and for a path that does not exist.

    Parameters
    ----------
    path : str or os.PathLike
        The file or folder (links followed).
    what : str
        What it is, for the message ("score cache folder").

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    DataError
        Naming the path, its owner or mode, and how to fix it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.folders import check_private
    >>> folder = pathlib.Path(tempfile.mkdtemp())  # mode 0o700
    >>> check_private(folder, "cache folder") == folder
    True
    >>> folder.chmod(0o777)
    >>> check_private(folder, "cache folder")
    Traceback (most recent call last):
    ...
    acceptability.data.errors.DataError: cache folder ... is writable by other users (mode 0o777)...
    """
    path = Path(path)
    if not POSIX or not path.exists():
        return path
    st = os.stat(path)
    if st.st_uid != os.getuid():
        raise DataError(
            f"{what} {path} is owned by another user (uid {st.st_uid}, not {os.getuid()})",
            fix=f"use a {'folder' if path.is_dir() else 'file'} of your own",
        )
    mode = stat.S_IMODE(st.st_mode)
    if mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise DataError(
            f"{what} {path} is writable by other users (mode {mode:#o}), who could plant "
            "what the package then trusts",
            fix=f"run `chmod go-w {path}`, or use a {'folder' if path.is_dir() else 'file'} "
            "of your own that only you can write",
        )
    return path


def private_folder(path: str | os.PathLike, what: str) -> Path:
    """The folder ``path``, created with mode 0o700 when missing (its missing parents with
    the usual mode), after `check_private`.

    Examples
    --------
    >>> import pathlib, stat, tempfile
    >>> from acceptability.data.io.folders import private_folder
    >>> folder = private_folder(pathlib.Path(tempfile.mkdtemp()) / "a" / "cache", "cache folder")
    >>> oct(stat.S_IMODE(folder.stat().st_mode))
    '0o700'
    """
    path = Path(path)
    if not path.is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            if not path.is_dir():
                raise DataError(f"{what} {path} is a file, not a folder",
                                fix="move the file away, or use another folder") from None
        else:
            os.chmod(path, 0o700)  # whatever the umask
    return check_private(path, what)


def check_writable(path: str | os.PathLike, what: str = "output") -> Path:
    """Fail before any work when ``path`` could not be written: an existing folder at its
    place, a read-only file, or a first existing ancestor that is not a folder or cannot be
    written (missing folders below it would be created).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data.io.folders import check_writable
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "new" / "scores.csv"
    >>> check_writable(out) == out
    True
    >>> check_writable(out.parent.parent)
    Traceback (most recent call last):
    ...
    acceptability.data.errors.DataError: output ... is a folder. Fix: give a file name
    """
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{what} {path} is a folder", fix="give a file name")
    if path.exists() and not os.access(path, os.W_OK):
        raise DataError(f"{what} {path} is read-only",
                        fix=f"make it writable (chmod u+w {path}) or choose another file")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise DataError(f"cannot write {what} {path}: {folder} is not a folder",
                        fix="choose another path")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise DataError(f"cannot write in folder {folder} (for {what} {path})",
                        fix="choose a folder you can write, or change its permissions")
    return path
