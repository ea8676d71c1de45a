"""Parametric bootstrap of an :func:`stats.lmer` / :func:`stats.glmer` fit, like lme4's
``bootMer`` and ``confint(method="boot")`` (Bates et al. 2015, J. Stat. Softw. 67(1),
section 5.2): simulate new random effects and responses from the fitted model, refit with
the same engine started at the fit's estimates, and collect the parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .pls import one_blas_thread

if TYPE_CHECKING:
    from .lmer import LmerResult

__all__ = ["parametric_bootstrap", "simulate"]


def simulate(m: LmerResult, rng: np.random.Generator) -> np.ndarray:
    """One response vector drawn from the fitted model: b = Lambda u with u ~ N(0, sigma^2 I),
    then y ~ N(X beta + Z b, sigma^2) (lmer), or Binomial / Poisson of the inverse link
    (glmer; a cbind() response as the proportion of its trials)."""
    d = m.design
    u = rng.standard_normal(d.q) * m.sigma
    eta = d.X @ m.fixef.to_numpy() + d.Z @ (d.lambdat(m.theta).T @ u)
    if m._kind == "lmer":
        return eta + rng.normal(0.0, m.sigma, d.n)
    mu = m._inverse_link(eta)
    if m.family == "poisson":
        return rng.poisson(mu).astype(float)
    trials = d.trials if d.trials is not None else np.ones(d.n)
    return rng.binomial(trials.astype(np.int64), mu) / trials


@one_blas_thread
def parametric_bootstrap(m: LmerResult, nsim: int, seed: int = 0) -> pd.DataFrame:
    """``nsim`` refits to simulated responses; one row of ``m.params()`` per refit."""
    from .lmer import _glmer_fit, _lmer_fit

    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(nsim):
        design = m.design.with_response(simulate(m, rng))
        if m._kind == "lmer":
            refit = _lmer_fit(design, m.REML, m.n_dropped, start=m.theta, quiet=True)
        else:
            warm = {"beta": list(m.fixef), "theta": list(m.theta)}
            refit = _glmer_fit(design, m.family, m.nagq, m.n_dropped, warm=warm, quiet=True)
        rows.append(refit.params())
    return pd.DataFrame(rows).reset_index(drop=True)
