"""Statistics relating z-scored model scores to human acceptability judgments.

Never imports torch or transformers: ``import acceptability.stats`` stays fast.
"""

from . import metrics
from .benchmarks import (
    accuracy,
    accuracy_correlations,
    accuracy_table,
    adjective_effect,
    attractor_effect,
    human_outcomes,
    irregular_effect,
    method_comparison,
    oracle_outcomes,
    pair_outcomes,
    prefix_outcomes,
    reference_table,
)
from .bootstrap import bootstrap
from .brm import BrmResult, brm, loo_compare
from .compare import compare, compare_all, mcnemar_exact, resamples_for, steiger_z
from .correlation import correlation_matrix, correlations
from .criteria import adc, adc_curve, blimp_criterion
from .deltas import pair_deltas, sentence_frame
from .evaluate import DEFAULT_N_BOOT, DEFAULT_SEED, evaluate
from .forced_choice import elo_ratings, fc_accuracy, fc_elo, pair_preferences
from .formula import parse_formula
from .judgment_models import (
    FC_FORMULA,
    PAIR_FORMULA,
    SENTENCE_FORMULA,
    fc_model,
    fc_model_frame,
    pair_model,
    pair_model_frame,
    sentence_model,
    sentence_model_frame,
)
from .lmer import GlmerResult, LmerResult, SingularFitWarning, anova, glmer, lmer
from .marvin_linzen import ml_table1
from .overlap import reduced
from .reliability import spearman_brown, split_half
from .resample import resample_dataset, resampling_units
from .rules import BLIMP_NO_RULE, BLIMP_RULES, ZORRO_RULES, Rule, rule_for, rule_outcomes
from .shallow import shallow_predictors
from .training import (
    acrobatic_sentences,
    degenerate,
    feature_mcc,
    flip_curve,
    learning_slopes,
    restart_summary,
)
from .variability import Variability, variability
from .zorro import zorro_accuracy
from .zscore import zscore

__all__ = [
    "BLIMP_NO_RULE", "BLIMP_RULES", "DEFAULT_N_BOOT", "DEFAULT_SEED", "BrmResult",
    "FC_FORMULA", "GlmerResult", "LmerResult", "Rule", "ZORRO_RULES",
    "PAIR_FORMULA", "SENTENCE_FORMULA",
    "SingularFitWarning", "Variability", "accuracy", "accuracy_correlations", "accuracy_table",
    "acrobatic_sentences",
    "adc", "adc_curve", "adjective_effect", "anova", "attractor_effect", "blimp_criterion",
    "bootstrap", "brm", "compare", "compare_all", "correlation_matrix", "correlations", "degenerate",
    "elo_ratings", "evaluate", "fc_accuracy", "fc_elo", "feature_mcc", "flip_curve",
    "fc_model", "fc_model_frame", "learning_slopes",
    "glmer", "human_outcomes", "irregular_effect", "lmer", "loo_compare", "mcnemar_exact",
    "method_comparison", "metrics", "ml_table1", "oracle_outcomes", "pair_deltas", "pair_model",
    "pair_model_frame", "pair_outcomes", "pair_preferences", "parse_formula",
    "prefix_outcomes", "reduced", "reference_table", "restart_summary", "rule_for", "rule_outcomes",
    "resample_dataset", "resamples_for", "resampling_units", "sentence_frame", "sentence_model",
    "sentence_model_frame", "shallow_predictors", "spearman_brown", "split_half",
    "steiger_z", "variability", "zorro_accuracy", "zscore",
]
