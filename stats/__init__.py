"""Statistics relating z-scored model scores to human acceptability judgments.

Never imports torch or transformers: ``import stats`` stays fast.
"""

from stats import metrics
from stats.correlation import correlation_matrix, correlations
from stats.criteria import adc, adc_curve, blimp_criterion
from stats.deltas import pair_deltas, sentence_frame
from stats.evaluate import evaluate
from stats.overlap import reduced
from stats.variability import Variability, variability
from stats.zscore import zscore

__all__ = [
    "Variability", "adc", "adc_curve", "blimp_criterion", "correlation_matrix", "correlations",
    "evaluate", "metrics", "pair_deltas", "reduced", "sentence_frame", "variability", "zscore",
]
