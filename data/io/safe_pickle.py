"""Reading published pickles without letting them run code.

A pickle is a program: its GLOBAL/STACK_GLOBAL/INST/OBJ/EXT opcodes import any callable
(``os.system``, ``subprocess.Popen``) and REDUCE calls it. The standard library's defence
is to override `pickle.Unpickler.find_class`, through which every such import
passes (Python docs, "Restricting Globals"); `RestrictedUnpickler` refuses every
global not in an explicit allow-list, and the allow-list is empty by default.

Why empty: the Marvin & Linzen (2018) template pickles hold only dicts, lists, tuples and
strings, which pickle builds with opcodes of their own (DICT, LIST, TUPLE, STRING,
BINUNICODE...), never through a global. Checked with ``pickletools.genops`` on all 22
files: 12 are protocol 0 (Python 2 ``str``, read with ``encoding="latin1"``), 10 are
protocol 3, and none has a GLOBAL, STACK_GLOBAL, INST, OBJ, REDUCE, BUILD, NEWOBJ, EXT or
PERSID opcode. So nothing, not even ``copy_reg._reconstructor``, needs to be allowed.

`load_restricted` also checks the file's sha256 against the registered one first
and unpickles the very bytes it hashed, so a file swapped after the check is never read.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
from pathlib import Path
from typing import Any

from acceptability.data.errors import DataError

# (module, name) pairs a pickle may import. Empty: the data sets read here need none.
ALLOWED_GLOBALS: frozenset[tuple[str, str]] = frozenset()


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that builds builtin containers and strings only.

    Any global outside ``allowed`` (default `ALLOWED_GLOBALS`, empty) and any
    persistent id raise [DataError][acceptability.data.DataError] naming ``source`` and the refused global,
    before anything is imported or called.
    """

    def __init__(self, file: io.BufferedIOBase, *, source: str,
                 allowed: frozenset[tuple[str, str]] = ALLOWED_GLOBALS,
                 encoding: str = "latin1") -> None:
        super().__init__(file, encoding=encoding)
        self.source, self.allowed = source, allowed

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self.allowed:
            return super().find_class(module, name)
        raise DataError(
            f"refused global {module}.{name}: the pickle tries to import it, and only "
            "builtin containers and strings are allowed (a pickle can run code); "
            "nothing was imported or run",
            source=self.source,
            fix="use the file as published (its sha256 is in the registry); never unpickle "
                "an untrusted file with pickle.load",
        )

    def persistent_load(self, pid: Any) -> Any:
        raise DataError(f"refused persistent id {pid!r}: the file is not a plain data pickle",
                        source=self.source, fix="use the file as published")


def sha256_of(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``, in the registry's notation."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def load_restricted(path: str | os.PathLike, expected_sha256: str, *,
                    allowed: frozenset[tuple[str, str]] = ALLOWED_GLOBALS,
                    encoding: str = "latin1", fix: str | None = None) -> Any:
    """Unpickle ``path`` if, and only if, its sha256 is ``expected_sha256``
    (``sha256:<hex>`` or bare hex), with `RestrictedUnpickler`.

    A different hash raises [DataError][acceptability.data.DataError] (``fix`` says where to get the right
    file) and the file is not unpickled; so does a truncated or malformed pickle, and any
    global the pickle tries to import outside ``allowed``.
    """
    f = Path(path)
    source = str(f)
    try:
        data = f.read_bytes()
    except OSError as err:
        raise DataError(f"cannot read the file ({err.strerror})", source=source,
                        fix=fix or "check the path") from None
    want = expected_sha256.lower()
    want = want if want.startswith("sha256:") else f"sha256:{want}"
    got = sha256_of(data)
    if got != want:
        raise DataError(
            f"sha256 mismatch: expected {want}, got {got}; the file was not unpickled",
            source=source,
            fix=fix or "replace the file with the published one (a pickle of unknown "
                       "content can run code when read)",
        )
    try:
        return RestrictedUnpickler(io.BytesIO(data), source=source, allowed=allowed,
                                   encoding=encoding).load()
    except DataError:
        raise
    except Exception as err:  # UnpicklingError, EOFError, ValueError...: one clear line
        raise DataError(f"not a readable pickle ({type(err).__name__}: {err})", source=source,
                        fix=fix or "replace the file with the published one") from None
