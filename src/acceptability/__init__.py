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
from typing import TYPE_CHECKING, Any

__all__ = ["__version__", "data", "reports", "scoring", "stats"]

if TYPE_CHECKING:
    from acceptability import data, reports, scoring, stats


def _version() -> str:
    """The installed version: its one source is pyproject.toml (importlib.metadata, read on
    first use: it costs a command's start-up a tenth of a second)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("acceptability")
    except PackageNotFoundError:  # pragma: no cover - imported from a tree never installed
        return "0+unknown"


def __getattr__(name: str) -> Any:
    """``acceptability.stats`` etc. import their subpackage on first access (PEP 562), and
    ``__version__`` is read then."""
    if name in ("data", "reports", "scoring", "stats"):
        return importlib.import_module(f"{__name__}.{name}")
    if name == "__version__":
        globals()["__version__"] = _version()
        return globals()["__version__"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
