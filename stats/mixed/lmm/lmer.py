"""Mixed models in lme4 syntax: ``lmer`` (linear) and ``glmer`` (binomial, poisson).

``lmer(formula, data, REML=True)`` and ``glmer(formula, data, family, nAGQ=1)`` mirror
lme4 (Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw. 67(1)). Every lme4
random-effects structure is accepted: crossed and nested factors, correlated slopes on any
factor, ``||``, ``(0 + x | g)``, ``g/h``, ``g:h``. Each is lme4's three stages in a row:
[model_design][acceptability.stats.mixed.stages.model_design] (``lFormula``),
[fit][acceptability.stats.mixed.stages.fit] with the engine
[choose_engine][acceptability.stats.mixed.engines.registry.choose_engine] picks (glmm, or lme4's
penalised least squares for the structures glmm refuses) and
[make_result][acceptability.stats.mixed.lmm.lmer.make_result] (``mkMerMod``). For a linear
model every reported quantity is computed from lme4's formulas at the optimum, whichever
engine found it; a GLMM's estimates, standard errors and Laplace / adaptive Gauss-Hermite
likelihood are glmm's.
"""

from __future__ import annotations

import pandas as pd

from acceptability.stats.arguments import check_whole
from acceptability.stats.mixed.checks import check_reml, parse, prepare_frame
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.protocol import FittedParameters
from acceptability.stats.mixed.glmm import families
from acceptability.stats.mixed.glmm.families import Family
from acceptability.stats.mixed.glmm.result import GlmerResult
from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.lmm.result import LmerResult
from acceptability.stats.mixed.stages import fit, model_design

__all__ = ["GlmerResult", "LmerResult", "glmer", "glmer_nb", "lmer", "make_result", "prepare_frame"]


@pls.one_blas_thread
def lmer(formula: str, data: pd.DataFrame, REML: bool = True, weights: object = None,
         offset: object = None, contrasts: dict[str, object] | None = None) -> LmerResult:
    """Fit a linear mixed model written in lme4 syntax (``lme4::lmer``).

    ``y ~ x + (1 + x | g) + (1 | h)``: crossed or nested factors, ``(1 | g/h)`` =
    ``(1 | g) + (1 | g:h)``, ``(0 + x | g)`` without intercept, ``(1 + x || g)``
    uncorrelated. Rows with missing values in used columns (or weights, offset) are dropped
    and counted in ``n_dropped``. The result has lme4's accessors and lmerTest's
    Satterthwaite tests.

    Parameters
    ----------
    formula
        lme4 syntax.
    data
        One row per observation.
    REML
        REML (default) or maximum likelihood (``REML=False``).
    weights
        Prior weights (a column name or one positive value per row): row i has residual
        variance sigma^2 / w_i, as in lme4 (weighted PLS; logLik adds sum(log w) / 2).
    offset
        A known term of the linear predictor (a column name or one value per row), added to
        the formula's ``offset(...)`` terms.
    contrasts
        A coding per factor, R's ``contrasts`` argument: ``{"A": "sum"}``, ``"helmert"``,
        ``"poly"``, ``"treatment"`` or a matrix with a row per level
        ([contrast][acceptability.stats.mixed.contrasts.contrast]). Other factors get R's
        defaults: treatment contrasts, ``contr.poly`` for an ordered Categorical.

    Returns
    -------
    LmerResult

    Examples
    --------
    >>> import warnings
    >>> from acceptability import data
    >>> from acceptability.stats import sentence_model_frame
    >>> from acceptability.stats.mixed import lmer
    >>> ds, scores = data.load_example()
    >>> frame = sentence_model_frame(ds, scores, model=scores["model"].iloc[0])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = lmer("human ~ score + (1 | phenomenon)", frame)
    >>> list(m.fixef.index), m.nobs + m.n_dropped == len(frame)
    (['(Intercept)', 'score'], True)
    """
    reml = check_reml(REML)
    d = model_design(formula, data, weights=weights, offset=offset, contrasts=contrasts)
    return make_result(d, fit(d, REML=reml), REML=reml)


@pls.one_blas_thread
def glmer(formula: str, data: pd.DataFrame, family: str | Family = "binomial", nAGQ: int = 1,
          link: str | None = None, weights: object = None, offset: object = None,
          contrasts: dict[str, object] | None = None) -> GlmerResult:
    """Fit a generalised linear mixed model in lme4 syntax (``lme4::glmer``).

    Any of R's families and links (``families.family``):
    ``"binomial"`` (logit, probit, cloglog, log; response 0/1, TRUE/FALSE, a two-level
    factor whose first level is failure, ``cbind(successes, failures)``, or proportions
    with the trials as ``weights``), ``"poisson"`` (log, sqrt, identity), ``"Gamma"``,
    ``"inverse.gaussian"``, ``"gaussian"`` with a log or inverse link, and
    ``"negative.binomial"`` (its size estimated: [glmer_nb][acceptability.stats.mixed.lmm.lmer.glmer_nb]).
    ``nAGQ=1`` is the Laplace approximation; ``nAGQ > 1`` (odd, at most 25) adaptive
    Gauss-Hermite quadrature, for a single scalar random effect as in lme4; ``nAGQ=0``
    lme4's fast fit (binomial and poisson: the fixed effects estimated inside PIRLS, only
    theta optimised; ``laplace_engine.fit_nagq0``). A grouping
    factor may have a level per row (an observation-level random effect for
    overdispersion): lme4's rule against it holds for linear models only. ``family``
    gaussian with the identity link is a linear model: an error pointing to ``lmer``.

    Parameters
    ----------
    formula
        lme4 syntax; a binomial response is 0/1, TRUE/FALSE or ``cbind(k, n - k)``.
    data
        The observations (trials, or counts of successes), one per row.
    family
        R's family name or a ``families.Family``.
    nAGQ
        1 (Laplace), an odd number of quadrature points up to 25, or 0 (lme4's fast fit).
    link
        The link, by R's name (None: the family's canonical link).
    weights
        Prior weights (a column name or one positive value per row): the binomial trials of
        a proportion, or multiples of each row's log-likelihood.
    offset
        A known term of the linear predictor (e.g. log exposure), added to the formula's
        ``offset(...)`` terms.
    contrasts
        A coding per factor, as in [lmer][acceptability.stats.mixed.lmm.lmer.lmer].

    Returns
    -------
    GlmerResult

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import glmer
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> m = glmer("cbind(k, n - k) ~ x + (1 | g)", df)
    >>> list(m.coefficients.columns)
    ['Estimate', 'Std. Error', 'z value', 'Pr(>|z|)']
    """
    fam = families.family(family, link)
    if fam.linear:
        raise ValueError("glmer: family='gaussian' with the identity link is a linear mixed model: "
                         "fit it with stats.lmer (lme4 deprecates glmer's shortcut to lmer)")
    nAGQ = check_whole("nAGQ", nAGQ, 0, 25, "nAGQ is 0 (lme4's fast fit), 1 (Laplace) or an odd "
                       "number of quadrature points up to 25", "use nAGQ=1 (lme4's default)")
    if nAGQ > 0 and nAGQ % 2 == 0:
        raise ValueError(f"nAGQ={nAGQ!r}: use 0, 1 (Laplace) or an odd number of quadrature points up to 25")
    parsed = parse(formula)
    if nAGQ > 1 and (len(parsed.random) != 1 or len(parsed.random[0].names) != 1):
        raise ValueError(f"nAGQ={nAGQ} needs a single scalar random effect, as in lme4 "
                         f"(the model has {[str(t) for t in parsed.random]}); use nAGQ=1 (Laplace)")
    d = model_design(formula, data, fam, weights=weights, offset=offset, contrasts=contrasts)
    return make_result(d, fit(d, REML=False, nAGQ=nAGQ), nAGQ=nAGQ)


def glmer_nb(formula: str, data: pd.DataFrame, link: str = "log", nAGQ: int = 1,
             weights: object = None, offset: object = None,
             contrasts: dict[str, object] | None = None) -> GlmerResult:
    """Fit a negative binomial GLMM, its size (R's ``theta``) estimated with the other
    parameters (``lme4::glmer.nb``): ``Var(y | b) = mu + mu^2 / size``. The size is the
    result's ``dispersion``; ``npar`` counts it, as lme4 does.

    Parameters
    ----------
    formula, data, nAGQ, weights, offset, contrasts
        As in [glmer][acceptability.stats.mixed.lmm.lmer.glmer]; the response holds counts.
    link
        ``"log"`` (default), ``"sqrt"`` or ``"identity"``.

    Returns
    -------
    GlmerResult
        With ``family == "negative.binomial"`` and the size in ``dispersion``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> counts = {"y": [0, 3, 1, 8, 2, 12, 0, 5, 1, 9, 4, 15], "x": [0, 1] * 6, "g": list("aabbccddeeff")}
    >>> m = stats.glmer_nb("y ~ x + (1 | g)", pd.DataFrame(counts))
    >>> m.family, m.npar, bool(m.dispersion > 0)
    ('negative.binomial', 4, True)
    """
    return glmer(formula, data, "negative.binomial", nAGQ, link, weights, offset, contrasts)


def make_result(design: MixedDesign, fitted: FittedParameters, REML: bool = True,
                nAGQ: int = 1, quiet: bool = False) -> LmerResult:
    """The fitted model from a design and an engine's record (lme4's ``mkMerMod``): an
    [LmerResult][acceptability.stats.mixed.lmm.result.LmerResult] for a linear model, a
    [GlmerResult][acceptability.stats.mixed.glmm.result.GlmerResult] otherwise. Warns of a
    singular or unconverged fit unless ``quiet``.

    Parameters
    ----------
    design
        From [model_design][acceptability.stats.mixed.stages.model_design].
    fitted
        From [fit][acceptability.stats.mixed.stages.fit] on that design.
    REML
        Whether ``fitted`` maximised the REML criterion (linear models).
    nAGQ
        The quadrature points of a GLMM's fit.
    quiet
        No warnings (refits).

    Returns
    -------
    LmerResult
        (a ``GlmerResult`` for a GLMM: any family but gaussian with the identity link).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import fit, make_result, model_design
    >>> df = pd.DataFrame({"y": [1.0, 2.4, 2.9, 4.6, 5.1, 6.5], "x": [1, 2, 3, 4, 5, 6],
    ...                    "g": list("aabbcc")})
    >>> d = model_design("y ~ x + (1 | g)", df)
    >>> m = make_result(d, fit(d, REML=False), REML=False, quiet=True)
    >>> type(m).__name__, m.nobs
    ('LmerResult', 6)
    """
    if design.glm_family.linear:
        return LmerResult(design, fitted, quiet, REML=REML)
    return GlmerResult(design, fitted, quiet, REML=False, nagq=nAGQ)
