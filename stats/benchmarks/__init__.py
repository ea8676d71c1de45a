"""The analyses of the benchmarks the package reproduces: BLiMP and Zorro accuracies and
their pair outcomes (Warstadt et al. 2020), Marvin & Linzen's Table 1 (2018), SyntaxGym
accuracy and Hu et al.'s SG scores (2020), shallow
predictors, forced-choice human data, and training curves. The reliability of human
responses (`split_half`, `spearman_brown`, `rater_reliability`) lives in ``stats.ratings``
and is exported here too.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.stats.benchmarks.forced_choice import (
        elo_ratings,
        fc_accuracy,
        fc_elo,
        pair_preferences,
    )
    from acceptability.stats.benchmarks.marvin_linzen import ml_table1
    from acceptability.stats.benchmarks.outcomes import (
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
    from acceptability.stats.benchmarks.shallow import shallow_predictors
    from acceptability.stats.benchmarks.syntaxgym import (
        sg_scores,
        syntaxgym_accuracy,
        syntaxgym_outcomes,
    )
    from acceptability.stats.benchmarks.training import (
        acrobatic_sentences,
        degenerate,
        feature_mcc,
        flip_curve,
        learning_slopes,
        restart_summary,
    )
    from acceptability.stats.benchmarks.zorro import zorro_accuracy
    from acceptability.stats.ratings.raters import rater_reliability
    from acceptability.stats.ratings.reliability import spearman_brown, split_half

__all__ = ["accuracy", "accuracy_correlations", "accuracy_table", "acrobatic_sentences",
           "adjective_effect", "attractor_effect", "degenerate", "elo_ratings", "fc_accuracy",
           "fc_elo", "feature_mcc", "flip_curve", "human_outcomes", "irregular_effect",
           "learning_slopes", "method_comparison", "ml_table1", "oracle_outcomes",
           "pair_outcomes", "pair_preferences", "prefix_outcomes", "rater_reliability",
           "reference_table",
           "restart_summary", "sg_scores", "shallow_predictors", "spearman_brown", "split_half",
           "syntaxgym_accuracy", "syntaxgym_outcomes",
           "zorro_accuracy"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
