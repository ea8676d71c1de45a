"""lme4's stages as public functions: a design from a formula and data, then a fit by an
engine (Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw. 67(1), section 1: ``lFormula``
/ ``glFormula``, then ``mkLmerDevfun`` + ``optimizeLmer``). The third stage, the result
(``mkMerMod``), is [make_result][acceptability.stats.mixed.lmm.lmer.make_result]; ``lmer`` and
``glmer`` are the three in a row.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from acceptability.stats.mixed.checks import (
    check_separation,
    check_variation,
    glmer_response,
    lmer_response,
    parse,
    prepare_frame,
)
from acceptability.stats.mixed.design import MixedDesign, fixed_design, mixed_design
from acceptability.stats.mixed.engines.protocol import FitSettings, FittedParameters
from acceptability.stats.mixed.engines.registry import choose_engine
from acceptability.stats.mixed.glmm import families
from acceptability.stats.mixed.glmm.families import Family
from acceptability.stats.mixed.weights import pop_row_values, total_offset, with_row_values

__all__ = ["fit", "model_design"]


def model_design(formula: str, data: pd.DataFrame, family: str | Family = "gaussian",
                 link: str | None = None, weights: object = None, offset: object = None,
                 contrasts: dict[str, object] | None = None) -> MixedDesign:
    """The design of a mixed model (lme4's ``lFormula``, ``glFormula`` for a GLMM).

    The formula is parsed and checked against the data, rows with missing values in used
    columns are dropped (counted in ``n_dropped``), and the response, ``X`` (treatment
    contrasts) and the random-effects terms (``Z``, ``Lambda(theta)``) are built in lme4's
    order.

    Parameters
    ----------
    formula
        lme4 syntax, e.g. ``"y ~ x + (1 + x | g)"``; a GLMM's binomial response may be
        ``cbind(successes, failures)``.
    data
        One row per observation.
    family, link
        R's family and link (``families.family``):
        ``"gaussian"`` with the identity link is a linear model (lmer), anything else a GLMM.
    weights, offset
        Prior weights and an offset: a column name or one value per row of ``data``
        (``weights.with_row_values``); the offset adds to the formula's
        ``offset(...)`` terms.
    contrasts
        A coding per factor (``{"A": "sum"}``; [contrasts][acceptability.stats.mixed.contrasts]),
        R's ``contrasts`` argument; R's defaults for the others.

    Returns
    -------
    MixedDesign
        ``y``, ``X``, ``xnames``, ``terms``, ``Z``, ``family``, ``link``, ``weights``,
        ``offset``, ``n_dropped``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import model_design
    >>> df = pd.DataFrame({"y": [1.0, 2.1, 2.9, 4.2, 5.1, None], "x": [1, 2, 3, 4, 5, 6],
    ...                    "g": list("aabbcc")})
    >>> d = model_design("y ~ x + (1 | g)", df)
    >>> d.xnames, d.Z.shape, d.n_dropped
    (['(Intercept)', 'x'], (5, 3), 1)
    """
    fam = families.family(family, link)
    linear = fam.linear
    parsed = parse(formula)
    frame, n_dropped = prepare_frame(parsed, *with_row_values(data, weights, offset), linear=linear)
    w, off = pop_row_values(frame)
    if linear:
        y, trials = lmer_response(parsed, frame), None
    else:
        y, trials = glmer_response(parsed, frame, fam, weighted=w is not None)
    x, fixed = fixed_design(parsed, frame, contrasts=contrasts)
    d = mixed_design(parsed, frame, x, fixed.xnames, y, trials, fam.name, n_dropped, fixed=fixed)
    d.link = None if fam.canonical else fam.link.name
    d.weights, d.offset = w, total_offset(parsed, frame, off)
    check_variation(d)
    if fam.binary:
        check_separation(d)
    return d


def fit(design: MixedDesign, REML: bool = True, nAGQ: int = 1, engine: str | None = None,
        start: dict[str, list[float]] | None = None,
        options: dict[str, Any] | None = None) -> FittedParameters:
    """Fit a design with an engine (lme4's ``optimizeLmer`` / ``optimizeGlmer``).

    Parameters
    ----------
    design
        From [model_design][acceptability.stats.mixed.stages.model_design].
    REML
        Linear models: REML (default) or maximum likelihood.
    nAGQ
        GLMMs: 1 (Laplace) or an odd number of adaptive Gauss-Hermite points.
    engine
        ``"glmm"``, ``"pls"``, ``"laplace"`` (the own Laplace fit) or None to choose
        ([choose_engine][acceptability.stats.mixed.engines.registry.choose_engine]).
    start
        Warm start: ``{"theta": [...]}`` in lme4's order (and ``"beta"`` for a GLMM).
    options
        Engine-specific settings (bambi's sampler settings, see
        [brm][acceptability.stats.mixed.brm.brm]).

    Returns
    -------
    FittedParameters
        theta, beta, vcov, b, sigma, logLik, convergence and the engine's name.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import fit, model_design
    >>> df = pd.DataFrame({"y": [1.0, 2.4, 2.9, 4.6, 5.1, 6.5], "x": [1, 2, 3, 4, 5, 6],
    ...                    "g": list("aabbcc")})
    >>> p = fit(model_design("y ~ x + (1 | g)", df), REML=False, engine="pls")
    >>> p.engine.startswith("acceptability PLS"), round(float(p.beta[1]), 3)
    (True, 1.066)
    """
    settings = FitSettings(REML=REML, nAGQ=nAGQ, start=start, options=dict(options or {}))
    return choose_engine(design, engine, settings).fit(design, settings)
