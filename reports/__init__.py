"""Reports: tables, figures, HTML/Markdown/LaTeX reports and the ``acceptability`` command.

``results = reports.analyse(dataset, scores)`` runs the statistics; ``reports.build(results,
out="report/")`` writes the report. ``reports.run(reports.from_toml("experiment.toml"))``
runs score -> evaluate -> fit -> report, resumable. Figure functions: ``reports.figures``.
"""

from acceptability._moved import package_getattr
from acceptability.reports import figures, tables
from acceptability.reports.analysis import Fits, Results, analyse, fit_models
from acceptability.reports.cli.experiment import Experiment, from_toml
from acceptability.reports.cli.pipeline import run
from acceptability.reports.render import Report, build

__getattr__ = package_getattr(__name__)  # 0.1's reports.training is scoring.training

__all__ = ["Experiment", "Fits", "Report", "Results", "analyse", "build", "figures",
           "fit_models", "from_toml", "run", "tables"]
