"""Reports: tables, figures, HTML/Markdown/LaTeX reports and the ``acceptability`` command.

``results = reports.analyse(dataset, scores)`` runs the statistics; ``reports.build(results,
out="report/")`` writes the report. ``reports.run(reports.from_toml("experiment.toml"))``
runs score -> evaluate -> fit -> report, resumable. Figure functions: ``reports.figures``.
"""

from reports import figures, tables
from reports.analysis import Fits, Results, analyse, fit_models
from reports.experiment import Experiment, from_toml
from reports.pipeline import run
from reports.render import Report, build

__all__ = ["Experiment", "Fits", "Report", "Results", "analyse", "build", "figures",
           "fit_models", "from_toml", "run", "tables"]
