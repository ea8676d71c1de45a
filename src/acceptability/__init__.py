"""acceptability: does a language model know language the way people do?

One import namespace with four subpackages, loaded on first use so that
``import acceptability`` (and ``import acceptability.stats``) stays light:

- ``acceptability.data``: the tables, loaders and the bundled example;
- ``acceptability.scoring``: sentence scores from language models (torch, lazily);
- ``acceptability.stats``: z-scores, criteria, correlations, inference, judgment models;
- ``acceptability.reports``: tables, figures, HTML/Markdown/LaTeX reports, the CLI.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from types import ModuleType
from typing import TYPE_CHECKING

from acceptability import _moved

try:  # the one source of the version number is pyproject.toml
    __version__ = version("acceptability")
except PackageNotFoundError:  # pragma: no cover - imported from a tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "data", "reports", "scoring", "stats"]

if TYPE_CHECKING:
    from acceptability import data, reports, scoring, stats

_moved.install()  # 0.1 module paths import their new modules, with a DeprecationWarning


def __getattr__(name: str) -> ModuleType:
    """``acceptability.stats`` etc. import their subpackage on first access (PEP 562)."""
    if name in ("data", "reports", "scoring", "stats"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
