"""One resampling engine: cluster, stratified and paired bootstrap of a dataset's pairs and
sentences, percentile and BCa intervals, bootstrap p-values (Efron & Tibshirani 1993).

``evaluate(ci=True)``, ``compare``, the benchmark accuracies and the mixed models'
parametric bootstrap all draw their resamples here.
"""

from acceptability.stats.inference.bootstrap import bootstrap
from acceptability.stats.inference.resample import resample_dataset, resampling_units

__all__ = ["bootstrap", "resample_dataset", "resampling_units"]
