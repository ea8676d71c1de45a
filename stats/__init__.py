"""Statistics relating z-scored model scores to human acceptability judgments.

Never imports torch or transformers: ``import stats`` stays fast.
"""

from stats import metrics
from stats.correlation import correlation_matrix, correlations
from stats.criteria import adc, adc_curve, blimp_criterion
from stats.deltas import pair_deltas, sentence_frame
from stats.evaluate import evaluate
from stats.forced_choice import elo_ratings, fc_accuracy, fc_elo, pair_preferences
from stats.overlap import reduced
from stats.reliability import spearman_brown, split_half
from stats.variability import Variability, variability
from stats.zscore import zscore

__all__ = [
    "Variability", "adc", "adc_curve", "blimp_criterion", "correlation_matrix", "correlations",
    "elo_ratings", "evaluate", "fc_accuracy", "fc_elo", "metrics", "pair_deltas",
    "pair_preferences", "reduced", "sentence_frame", "spearman_brown", "split_half",
    "variability", "zscore",
]
