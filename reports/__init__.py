"""Reports: tables, figures, HTML/Markdown/LaTeX reports and the ``acceptability`` command.

``results = reports.analyse(dataset, scores)`` runs the statistics; ``reports.build(results,
out="report/")`` writes the report. ``reports.run(reports.from_toml("experiment.toml"))``
runs score -> evaluate -> fit -> report, resumable. Figure functions: ``reports.figures``.
"""

from . import figures, tables
from .analysis import Fits, Results, analyse, fit_models
from .experiment import Experiment, from_toml
from .pipeline import run
from .render import Report, build

__all__ = ["Experiment", "Fits", "Report", "Results", "analyse", "build", "figures",
           "fit_models", "from_toml", "run", "tables"]
