"""The application layer: the ``acceptability`` command (``commands``), TOML experiments
(``experiment``), the resumable score -> evaluate -> fit -> report pipeline (``pipeline``)
and its store of Parquet tables and JSON (``store``), the lock that gives each output
folder one writer (``lock``), SyntaxGym's region surprisals as scores
(``syntaxgym_data``), the training commands (``training``)
and seed 004's baseline tables, which train their n-gram models (``seed004``)."""

from acceptability.reports.cli.commands import main, parser

__all__ = ["main", "parser"]
