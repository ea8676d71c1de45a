"""Warnings that point at the user's line, not at the package's own.

``warnings.warn(stacklevel=n)`` needs the depth of the call chain inside the package,
which differs by entry point (``stats.lmer`` directly, or through ``stats.sentence_model``
or ``reports.analyse``). `warn` counts it: the warning is attributed to the first
frame whose module is not part of ``acceptability`` (much like Python 3.12's
``skip_file_prefixes``; the package supports 3.11). Frames are told by their module's
name, not their file, so that code generated for the package (a dataclass ``__init__``,
file ``<string>``) counts as the package's.
"""

from __future__ import annotations

import sys
import warnings

PACKAGE = __name__.partition(".")[0]  # "acceptability"


# decorators the package wraps functions in, and the import machinery that runs its aliases
_WRAPPERS = ("contextlib", "threadpoolctl", "importlib", "importlib._bootstrap")


def _inside(frame) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name == PACKAGE or name.startswith(PACKAGE + ".") or name in _WRAPPERS


def caller_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` in the calling function point at
    the first frame outside the package (the outermost frame when all are inside, as
    under the ``acceptability`` command)."""
    frame, level = sys._getframe(1), 1  # the function that will call warnings.warn
    while frame.f_back is not None and _inside(frame):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` attributed to the first caller outside the package."""
    warnings.warn(message, category, stacklevel=caller_stacklevel())
