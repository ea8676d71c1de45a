"""The application layer: the ``acceptability`` command (:mod:`.commands`), TOML experiments
(:mod:`.experiment`), the resumable score -> evaluate -> fit -> report pipeline
(:mod:`.pipeline`) and the training commands (:mod:`.training`)."""

from acceptability.reports.cli.commands import main, parser

__all__ = ["main", "parser"]
