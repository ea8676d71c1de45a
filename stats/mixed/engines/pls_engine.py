"""The own engine: lme4's penalised least squares ([pls][acceptability.stats.mixed.lmm.pls])
behind the engine protocol, for linear models only.

It optimises the structures glmm refuses (``(x || g)``, ``(0 + x | g)``, a factor in
several terms, a slope that is not a fixed effect) by minimising the profiled deviance
(Bates et al. 2015, J. Stat. Softw. 67(1), eqs. 34 and 41). Whichever engine found
``theta``, a linear model's record is built here from the PLS solution at it
([lmm_parameters][acceptability.stats.mixed.engines.pls_engine.lmm_parameters]).
"""

from __future__ import annotations

import numpy as np

from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.protocol import EngineRefused, FitSettings, FittedParameters
from acceptability.stats.mixed.lmm import pls

__all__ = ["PLS_ENGINE", "PlsEngine", "lmm_parameters"]

PLS_ENGINE = "acceptability PLS (lme4's algorithm; glmm refuses this structure)"


def lmm_parameters(design: MixedDesign, theta: np.ndarray, reml: bool, engine: str,
                   converged: bool, notes: list[str]) -> FittedParameters:
    """A linear model's record at ``theta``: beta, b, sigma, vcov and the (REML) deviance
    of the PLS solution there (eqs. 25-31, 34, 41); the solution is kept as ``state``."""
    state = pls.pls(design, theta, reml)
    return FittedParameters(engine=engine, theta=state.theta, beta=state.beta,
                            vcov=state.vcov, b=state.b, sigma=state.sigma,
                            loglik=-state.deviance / 2, converged=converged, notes=notes,
                            state=state)


class PlsEngine:
    """lme4's PLS with a bounded quasi-Newton optimiser ([fit_theta][acceptability.stats.mixed.lmm.pls.fit_theta])."""

    name = "pls"

    def refusal(self, design: MixedDesign, settings: FitSettings | None = None) -> str | None:
        """Why the PLS cannot fit ``design`` (a GLMM), or None."""
        if not design.glm_family.linear:
            return (f"penalised least squares fits linear models, not family={design.family!r} "
                    f"with link={design.glm_family.link.name!r}")
        return None

    def fit(self, design: MixedDesign, settings: FitSettings) -> FittedParameters:
        """Minimise the profiled deviance over theta, from ``settings.start`` if given."""
        if (why := self.refusal(design)) is not None:
            raise EngineRefused(why)
        start = None if settings.start is None else np.asarray(settings.start["theta"], float)
        theta, converged = pls.fit_theta(design, settings.REML, start)
        return lmm_parameters(design, theta, settings.REML, PLS_ENGINE, converged, [])
