"""Mixed-effects and Bayesian judgment models in lme4 formula syntax: formula -> design ->
engine -> result, as lme4's ``lFormula``/``mkLmerDevfun``/``optimizeLmer``/``mkMerMod``
(Bates et al. 2015, JSS 67(1)).

- stages: [model_design][acceptability.stats.mixed.stages.model_design] (``lFormula``),
  [fit][acceptability.stats.mixed.stages.fit] (an engine's optimisation),
  [make_result][acceptability.stats.mixed.lmm.lmer.make_result] (``mkMerMod``); ``lmer``,
  ``glmer`` and ``brm`` run them in a row;
- engines: the [Engine][acceptability.stats.mixed.engines.protocol.Engine] protocol, adapters for
  glmm, the own penalised least squares and bambi, and
  [choose_engine][acceptability.stats.mixed.engines.registry.choose_engine];
- results: ``LmerResult``, ``GlmerResult`` and ``BrmResult`` share
  [MixedResult][acceptability.stats.mixed.results.MixedResult]; ``LmerResult`` and
  ``GlmerResult`` are siblings under [MerResult][acceptability.stats.mixed.mer.MerResult]
  (lme4's ``merMod``); each ``summary()`` is a
  [Summary][acceptability.stats.mixed.results.Summary].
- ordinal ratings: [clm][acceptability.stats.mixed.ordinal.cumulative.clm] and
  [clmm][acceptability.stats.mixed.ordinal.cumulative_mixed.clmm], ordinal's cumulative link (mixed)
  models for Likert judgments (Christensen 2019).
- tests of an lmer fit: ``anova(m)`` alone gives lmerTest's F test of each fixed term
  (``ftests.anova_table``; Satterthwaite or Kenward-Roger), [ls_means][acceptability.stats.mixed.fitted.lsmeans.ls_means] and
  [emmeans][acceptability.stats.mixed.fitted.lsmeans.emmeans] the least-squares and marginal means.

Rooms: the top holds what every model shares (formula, contrasts, slopes, transforms, weights,
design, checks, stages, results, summary), ``mer`` (what lmer and glmer fits share) and ``brm``;
``lmm`` the penalised least squares, ``lmer``/``glmer`` and ``LmerResult``; ``glmm`` the
families, the Laplace approximation and ``GlmerResult``; ``engines`` the engine
protocol and adapters; ``ordinal`` ``clm``/``clmm``; ``fitted`` what comes after a fit (F and
Wald tests, means, selection, refits, simulation, bootstrap, profiles). The judgment models over
the package's tables (``sentence_model``, ...) live in ``stats.ratings.judgment``.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.stats.mixed.brm import BrmResult, brm, loo_compare
    from acceptability.stats.mixed.design import MixedDesign
    from acceptability.stats.mixed.engines.protocol import (
        Engine,
        EngineRefused,
        FitSettings,
        FittedParameters,
    )
    from acceptability.stats.mixed.engines.registry import ENGINES, choose_engine
    from acceptability.stats.mixed.fitted.allfit import AllFit, all_fit
    from acceptability.stats.mixed.fitted.bootmer import BootMer, bootMer
    from acceptability.stats.mixed.fitted.lsmeans import emmeans, ls_means
    from acceptability.stats.mixed.fitted.profile import MixedProfile
    from acceptability.stats.mixed.fitted.selection import StepResult, drop1, ranova, step
    from acceptability.stats.mixed.fitted.simulation import simulate
    from acceptability.stats.mixed.fitted.wald import wald_anova
    from acceptability.stats.mixed.formula import parse_formula
    from acceptability.stats.mixed.glmm.result import GlmerResult
    from acceptability.stats.mixed.lmm.lmer import glmer, glmer_nb, lmer, make_result
    from acceptability.stats.mixed.lmm.result import LmerResult
    from acceptability.stats.mixed.mer import MerResult, SingularFitWarning, anova
    from acceptability.stats.mixed.ordinal.cumulative import (
        ClmResult,
        OrdinalResult,
        anova_clm,
        clm,
    )
    from acceptability.stats.mixed.ordinal.cumulative_mixed import ClmmResult, clmm
    from acceptability.stats.mixed.results import MixedResult, Summary
    from acceptability.stats.mixed.stages import fit, model_design

__all__ = ["ENGINES", "BrmResult", "Engine",
           "ClmResult", "ClmmResult", "EngineRefused", "FitSettings", "FittedParameters",
           "GlmerResult", "LmerResult", "OrdinalResult", "anova_clm", "clm", "clmm",
           "MerResult", "MixedDesign", "MixedResult", "SingularFitWarning", "Summary", "anova", "brm",
           "choose_engine", "emmeans", "fit", "glmer", "glmer_nb", "lmer",
           "loo_compare", "ls_means",
           "make_result", "model_design", "parse_formula",

           "AllFit", "StepResult", "all_fit", "drop1", "ranova", "step", "wald_anova",
           "BootMer", "MixedProfile", "bootMer", "simulate"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
