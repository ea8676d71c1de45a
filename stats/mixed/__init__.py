"""Mixed-effects and Bayesian judgment models in lme4 formula syntax: formula -> design ->
engine -> result, as lme4's ``lFormula``/``mkLmerDevfun``/``optimizeLmer``/``mkMerMod``
(Bates et al. 2015, JSS 67(1)).
"""

from acceptability.stats.mixed.brm import BrmResult, brm, loo_compare
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
)

__all__ = ["FC_FORMULA", "PAIR_FORMULA", "SENTENCE_FORMULA", "BrmResult", "GlmerResult",
           "LmerResult", "SingularFitWarning", "anova", "brm", "fc_model", "fc_model_frame",
           "glmer", "lmer", "loo_compare", "pair_model", "pair_model_frame", "parse_formula",
           "sentence_model", "sentence_model_frame"]
