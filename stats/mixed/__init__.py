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
"""

from acceptability.stats.mixed.brm import BrmResult, brm, loo_compare
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
    lmer,
    make_result,
)
from acceptability.stats.mixed.protocol import Engine, EngineRefused, FitSettings, FittedParameters
from acceptability.stats.mixed.results import MixedResult, Summary
from acceptability.stats.mixed.stages import fit, model_design

__all__ = ["ENGINES", "FC_FORMULA", "PAIR_FORMULA", "SENTENCE_FORMULA", "BrmResult", "Engine",
           "EngineRefused", "FitSettings", "FittedParameters", "GlmerResult", "LmerResult",
           "MixedDesign", "MixedResult", "SingularFitWarning", "Summary", "anova", "brm",
           "choose_engine", "fc_model", "fc_model_frame", "fit", "glmer", "lmer", "loo_compare",
           "make_result", "model_design", "pair_model", "pair_model_frame", "parse_formula",
           "sentence_model", "sentence_model_frame"]
