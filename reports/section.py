"""A report section: what [build][acceptability.reports.build] renders alike in HTML and
Markdown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from matplotlib.figure import Figure


@dataclass
class Section:
    """One report section, rendered alike in HTML and Markdown."""

    anchor: str
    title: str
    text: str = ""
    tables: list[str] = field(default_factory=list)  # keys of tables.all_tables
    figures: list[tuple[str, str, Callable[[], Figure]]] = field(default_factory=list)
    pre: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
