"""What a mixed-model engine is: the settings it is given, the record it returns and the
protocol every adapter (glmm, the own PLS, bambi) follows.

The stages are lme4's (Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw. 67(1),
section 1): a design (``lFormula``), an optimisation (``optimizeLmer`` /
``optimizeGlmer``) and a result (``mkMerMod``). An engine is the middle stage: it turns a
[MixedDesign][acceptability.stats.mixed.design.MixedDesign] into a
[FittedParameters][acceptability.stats.mixed.engines.protocol.FittedParameters] record, which the
results then read whichever engine wrote it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from acceptability.stats.mixed.design import MixedDesign

__all__ = ["Engine", "EngineRefused", "FitSettings", "FittedParameters"]


class EngineRefused(ValueError):
    """The engine cannot fit this design (a random-effects structure it does not take)."""


@dataclass(frozen=True)
class FitSettings:
    """How to fit: lme4's ``REML`` and ``nAGQ``, a warm start (``theta`` in lme4's order,
    ``beta``), and any engine-specific options (bambi's sampler settings)."""

    REML: bool = True
    nAGQ: int = 1
    start: dict[str, list[float]] | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class FittedParameters:
    """The estimates an engine found, in the design's order and lme4's parametrisation.

    ``theta``: relative covariance factors (lme4 ``getME(m, "theta")``); ``beta`` and
    ``vcov``: fixed effects and their covariance; ``b``: conditional modes of the random
    effects, term by term, level-major (lme4 ``getME(m, "b")``); ``sigma``: residual SD
    (a GLMM: sqrt(phi) for a family with a scale, else 1); ``dispersion``: a GLMM's phi or
    negative binomial size; ``loglik``: the log-likelihood (minus half the REML criterion for a
    REML fit; NaN for a posterior). ``state``: the engine's own state that later
    computations reuse (the PLS solution of a linear model, bambi's model and draws).
    ``xnames``: the names of ``beta`` where the engine names them otherwise than the
    design (bambi's ``Intercept``); None keeps the design's.
    """

    engine: str
    theta: np.ndarray
    beta: np.ndarray
    vcov: np.ndarray
    b: np.ndarray
    sigma: float
    loglik: float
    converged: bool
    notes: list[str] = field(default_factory=list)
    state: Any = None
    xnames: list[str] | None = None
    dispersion: float = 1.0  # a GLMM's phi (Gamma, inverse Gaussian, gaussian: sigma^2) or negative binomial size


@runtime_checkable
class Engine(Protocol):
    """An adapter from a design to one optimiser or sampler.

    ``refusal`` says why the engine cannot fit ``design`` with ``settings`` (None when it
    can; ``settings`` None: with some settings); ``fit``
    returns the record, or raises
    [EngineRefused][acceptability.stats.mixed.engines.protocol.EngineRefused].
    """

    name: str

    def refusal(self, design: MixedDesign, settings: FitSettings | None = None) -> str | None: ...

    def fit(self, design: MixedDesign, settings: FitSettings) -> FittedParameters: ...
