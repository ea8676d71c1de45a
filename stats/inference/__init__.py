"""One resampling engine: cluster, stratified and paired bootstrap of a dataset's pairs and
sentences, percentile and BCa intervals, bootstrap p-values and their corrections
(Efron & Tibshirani 1993).

``evaluate(ci=True)``, ``compare``, the benchmark accuracies and the mixed models'
parametric bootstrap all draw their resamples and take their intervals here:
``engine`` draws the indices (block by block) and runs a statistic over them,
``intervals`` turns a bootstrap distribution into intervals, ``pvalues`` into p-values;
``resample`` and ``arrays`` define what a dataset's resample is (units, strata, the fast
metric path) and ``bootstrap`` puts them together for every metric of every model.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.stats.inference.bootstrap import bootstrap
    from acceptability.stats.inference.engine import Resamples, mean_resamples, resample
    from acceptability.stats.inference.intervals import percentile_interval
    from acceptability.stats.inference.pvalues import adjust_p, bootstrap_p
    from acceptability.stats.inference.resample import resample_dataset, resampling_units

__all__ = ["Resamples", "adjust_p", "bootstrap", "bootstrap_p", "mean_resamples",
           "percentile_interval", "resample", "resample_dataset", "resampling_units"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
