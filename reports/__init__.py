"""Reports: tables, figures and HTML/Markdown/LaTeX reports (this package's top level), and
the application that makes them (``reports.cli``: the ``acceptability`` command, TOML
experiments and the resumable pipeline).

``results = reports.analyse(dataset, scores)`` computes what a report shows;
``reports.build(results, out="report/")`` writes it. ``reports.run(reports.from_toml(
"experiment.toml"))`` runs score -> evaluate -> fit -> report, resumable, its intermediate
results stored as Parquet and JSON. Figure functions: ``reports.figures``.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.reports import context, figures, tables
    from acceptability.reports.analysis import Fits, Results, analyse, fit_models
    from acceptability.reports.cli.experiment import Experiment, from_toml
    from acceptability.reports.cli.pipeline import run
    from acceptability.reports.render import Report, build


__all__ = ["Experiment", "Fits", "Report", "Results", "analyse", "build", "context", "figures",
           "fit_models", "from_toml", "run", "tables"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
