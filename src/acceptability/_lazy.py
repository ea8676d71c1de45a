"""Packages that import what they export on first use (PEP 562), so that ``from acceptability
import data, stats`` and the ``acceptability`` command's ``--help`` stay light (issue 42):
pandas, scipy, matplotlib and torch load when a function that needs them is first asked for.

A package writes its exports as ordinary imports under ``if TYPE_CHECKING:``, where type
checkers, editors and griffe (the API reference's loader) read them, and ends with
``__getattr__, __dir__ = lazy_exports(__name__, __file__)``, which reads those same import
statements from the file and imports each name when it is first used. One list of names,
no second copy to keep in step.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

_EXPORTS: dict[str, dict[str, tuple[str, str]]] = {}  # package -> name -> (module, attribute)


def exports(package: str, init: str) -> dict[str, tuple[str, str]]:
    """``name -> (module, attribute)`` for each ``from module import attribute [as name]``
    under the ``if TYPE_CHECKING:`` of ``package``'s ``__init__`` file ``init``."""
    out = {}
    for node in ast.parse(Path(init).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"):
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    module = importlib.util.resolve_name(
                        "." * stmt.level + (stmt.module or ""), package)
                    out |= {a.asname or a.name: (module, a.name) for a in stmt.names}
    return out


class _LazyPackage(ModuleType):
    """A package whose lazily exported functions keep their names when their own module is
    imported (``stats.evaluate`` stays the function, not the module ``stats/evaluate.py``):
    the import system binds an imported submodule to its parent's attribute of that name."""

    def __setattr__(self, name: str, value: Any) -> None:
        target = _EXPORTS.get(self.__name__, {}).get(name)
        if isinstance(value, ModuleType) and target not in (None, (self.__name__, name)):
            return
        super().__setattr__(name, value)


def lazy_exports(package: str, init: str) -> tuple[Callable[[str], Any], Callable[[], list]]:
    """The PEP 562 ``__getattr__`` and ``__dir__`` of ``package`` (whose ``__init__`` file is
    ``init``): each export is imported on first access, then kept as a module attribute."""
    module = sys.modules[package]
    module.__class__ = _LazyPackage
    table = _EXPORTS[package] = exports(package, init)

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        source, attr = table[name]
        value = (importlib.import_module(f"{package}.{attr}") if source == package
                 else getattr(importlib.import_module(source), attr))
        setattr(module, name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(module)) | set(table))

    return __getattr__, __dir__
