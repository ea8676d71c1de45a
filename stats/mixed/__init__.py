"""Mixed-effects and Bayesian judgment models in lme4 formula syntax: formula -> design ->
engine -> result, as lme4's ``lFormula``/``mkLmerDevfun``/``optimizeLmer``/``mkMerMod``
(Bates et al. 2015, JSS 67(1)).

- stages: [model_design][acceptability.stats.mixed.stages.model_design] (``lFormula``),
  [fit][acceptability.stats.mixed.stages.fit] (an engine's optimisation),
  [make_result][acceptability.stats.mixed.lmer.make_result] (``mkMerMod``); ``lmer``,
  ``glmer`` and ``brm`` run them in a row;
- engines: the [Engine][acceptability.stats.mixed.protocol.Engine] protocol, adapters for
  glmm, the own penalised least squares and bambi, and
  [choose_engine][acceptability.stats.mixed.engines.choose_engine];
- results: ``LmerResult``, ``GlmerResult`` and ``BrmResult`` share
  [MixedResult][acceptability.stats.mixed.results.MixedResult]; each ``summary()`` is a
  [Summary][acceptability.stats.mixed.results.Summary].
- ordinal ratings: [clm][acceptability.stats.mixed.cumulative.clm] and
  [clmm][acceptability.stats.mixed.cumulative_mixed.clmm], ordinal's cumulative link (mixed)
  models for Likert judgments (Christensen 2019).
- tests of an lmer fit: ``anova(m)`` alone gives lmerTest's F test of each fixed term
  (``ftests.anova_table``; Satterthwaite or Kenward-Roger), [ls_means][acceptability.stats.mixed.lsmeans.ls_means] and
  [emmeans][acceptability.stats.mixed.lsmeans.emmeans] the least-squares and marginal means.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.stats.mixed.allfit import AllFit, all_fit
    from acceptability.stats.mixed.bootmer import BootMer, bootMer
    from acceptability.stats.mixed.brm import BrmResult, brm, loo_compare
    from acceptability.stats.mixed.cumulative import ClmResult, OrdinalResult, anova_clm, clm
    from acceptability.stats.mixed.cumulative_mixed import ClmmResult, clmm
    from acceptability.stats.mixed.design import MixedDesign
    from acceptability.stats.mixed.engines import ENGINES, choose_engine
    from acceptability.stats.mixed.formula import parse_formula
    from acceptability.stats.mixed.judgment import (
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
    from acceptability.stats.mixed.lmer import (
        GlmerResult,
        LmerResult,
        SingularFitWarning,
        anova,
        glmer,
        glmer_nb,
        lmer,
        make_result,
    )
    from acceptability.stats.mixed.lsmeans import emmeans, ls_means
    from acceptability.stats.mixed.profile import MixedProfile
    from acceptability.stats.mixed.protocol import (
        Engine,
        EngineRefused,
        FitSettings,
        FittedParameters,
    )
    from acceptability.stats.mixed.results import MixedResult, Summary
    from acceptability.stats.mixed.selection import StepResult, drop1, ranova, step
    from acceptability.stats.mixed.simulation import simulate
    from acceptability.stats.mixed.stages import fit, model_design
    from acceptability.stats.mixed.wald import wald_anova

__all__ = ["ENGINES", "FC_FORMULA", "PAIR_FORMULA", "SENTENCE_FORMULA", "BrmResult", "Engine",
           "ClmResult", "ClmmResult", "EngineRefused", "FitSettings", "FittedParameters",
           "GlmerResult", "LmerResult", "OrdinalResult", "anova_clm", "clm", "clmm",
           "MixedDesign", "MixedResult", "SingularFitWarning", "Summary", "anova", "brm",
           "choose_engine", "emmeans", "fc_model", "fc_model_frame", "fit", "glmer", "glmer_nb", "lmer",
           "loo_compare", "ls_means",
           "make_result", "model_design", "pair_model", "pair_model_frame", "parse_formula",
           "sentence_model", "sentence_model_frame",
           "AllFit", "StepResult", "all_fit", "drop1", "ranova", "step", "wald_anova",
           "BootMer", "MixedProfile", "bootMer", "simulate"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
