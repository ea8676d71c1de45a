"""Statistics relating z-scored model scores to human acceptability judgments.

The top level holds the array metrics, z-scores, deltas, the criteria and correlations,
``evaluate`` and ``compare``; four rooms hold the rest:

- `acceptability.stats.inference`: the one resampling engine (bootstrap, p-values);
- `acceptability.stats.mixed`: mixed-effects and Bayesian models (lme4 syntax);
- `acceptability.stats.benchmarks`: BLiMP, Zorro, Marvin & Linzen, SyntaxGym, forced choice;
- `acceptability.stats.ratings`: trial-level ratings normed per sentence (z, rank,
  ordinal clmm modes: ``normalize_ratings``) and trial-level judgment models
  (``rating_model``).

Never imports torch or transformers: ``import acceptability.stats`` stays fast.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.stats import benchmarks, inference, metrics, mixed
    from acceptability.stats.benchmarks import (
        accuracy,
        accuracy_correlations,
        accuracy_table,
        acrobatic_sentences,
        adjective_effect,
        attractor_effect,
        degenerate,
        elo_ratings,
        fc_accuracy,
        fc_elo,
        feature_mcc,
        flip_curve,
        human_outcomes,
        irregular_effect,
        learning_slopes,
        method_comparison,
        ml_table1,
        oracle_outcomes,
        pair_outcomes,
        pair_preferences,
        prefix_outcomes,
        rater_reliability,
        reference_table,
        restart_summary,
        sg_scores,
        shallow_predictors,
        spearman_brown,
        split_half,
        syntaxgym_accuracy,
        syntaxgym_outcomes,
        zorro_accuracy,
    )
    from acceptability.stats.compare import (
        compare,
        compare_all,
        mcnemar_exact,
        resamples_for,
        steiger_z,
    )
    from acceptability.stats.correlation import correlation_matrix, correlations
    from acceptability.stats.criteria import adc, adc_curve, blimp_criterion
    from acceptability.stats.defaults import DEFAULT_N_BOOT, DEFAULT_SEED
    from acceptability.stats.deltas import pair_deltas, sentence_frame
    from acceptability.stats.evaluate import evaluate
    from acceptability.stats.inference import bootstrap, resample_dataset, resampling_units
    from acceptability.stats.mixed import (
        BrmResult,
        ClmmResult,
        ClmResult,
        GlmerResult,
        LmerResult,
        SingularFitWarning,
        all_fit,
        anova,
        anova_clm,
        bootMer,
        brm,
        clm,
        clmm,
        drop1,
        emmeans,
        glmer,
        glmer_nb,
        lmer,
        loo_compare,
        ls_means,
        parse_formula,
        ranova,
        simulate,
        step,
        wald_anova,
    )
    from acceptability.stats.overlap import reduced
    from acceptability.stats.ratings import (
        RATING_CLMM_FORMULA,
        RATING_FORMULA,
        RATING_PAIR_CLMM_FORMULA,
        RATING_PAIR_FORMULA,
        normalize_ratings,
        rating_model,
        rating_model_frame,
        with_norming,
    )
    from acceptability.stats.ratings.judgment import (
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
    from acceptability.stats.variability import Variability, variability
    from acceptability.stats.zscore import zscore


__all__ = [
    "DEFAULT_N_BOOT", "DEFAULT_SEED", "BrmResult", "ClmResult", "ClmmResult",
    "FC_FORMULA", "GlmerResult", "LmerResult",
    "PAIR_FORMULA", "RATING_CLMM_FORMULA", "RATING_FORMULA", "RATING_PAIR_CLMM_FORMULA",
    "RATING_PAIR_FORMULA", "SENTENCE_FORMULA",
    "SingularFitWarning", "Variability", "accuracy", "accuracy_correlations", "accuracy_table",
    "acrobatic_sentences",
    "adc", "adc_curve", "adjective_effect", "anova", "anova_clm", "attractor_effect", "benchmarks",
    "blimp_criterion",
    "bootstrap", "brm", "clm", "clmm", "compare", "compare_all", "correlation_matrix", "correlations", "degenerate",
    "elo_ratings", "emmeans", "evaluate", "fc_accuracy", "fc_elo", "feature_mcc", "flip_curve",
    "fc_model", "fc_model_frame", "inference", "learning_slopes",
    "glmer", "glmer_nb", "human_outcomes", "irregular_effect", "lmer", "loo_compare", "ls_means", "mcnemar_exact",
    "method_comparison", "metrics", "mixed", "ml_table1", "normalize_ratings", "oracle_outcomes", "pair_deltas",
    "pair_model",
    "pair_model_frame", "pair_outcomes", "pair_preferences", "parse_formula",
    "rating_model", "rating_model_frame",
    "prefix_outcomes", "rater_reliability", "reduced", "reference_table", "restart_summary",
    "resample_dataset", "resamples_for", "resampling_units", "sentence_frame", "sentence_model",
    "sentence_model_frame", "shallow_predictors", "spearman_brown", "split_half",
    "steiger_z", "variability", "with_norming", "zorro_accuracy", "zscore",
    "sg_scores", "syntaxgym_accuracy", "syntaxgym_outcomes",
    "all_fit", "drop1", "ranova", "step", "wald_anova", "bootMer", "simulate",
]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
