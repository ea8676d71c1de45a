"""Parametric bootstrap of an :func:`stats.lmer` fit, like lme4's ``bootMer`` and
``confint(method="boot")`` (Bates et al. 2015, J. Stat. Softw. 67(1), section 5.2).
By hand: statsmodels MixedLM has no simulate/bootstrap method."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from .lmer import LmerResult

__all__ = ["parametric_bootstrap", "simulate"]


def simulate(m: LmerResult, rng: np.random.Generator) -> np.ndarray:
    """One response vector drawn from the fitted model (new random effects and noise)."""
    y = np.empty(m.nobs)
    for _, g, x, z, d, _, _ in m._groups():
        b = rng.multivariate_normal(np.zeros(len(d)), d, method="eigh")
        mu = x @ m.result.fe_params.to_numpy() + z @ b
        y[m.result.model.row_indices[g]] = mu + rng.normal(0, m.sigma, len(mu))
    return y


def parametric_bootstrap(m: LmerResult, nsim: int, seed: int = 0) -> pd.DataFrame:
    """``nsim`` refits to simulated responses; one row of ``m.params()`` per refit."""
    from .lmer import LmerResult, _build, _fit

    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(nsim):
        frame = m.frame.assign(_ystar=simulate(m, rng))
        res, notes = _fit(_build(m.spec, frame, "_ystar"), m.REML, start=m.result.params_object)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # boundary fits are common among bootstrap refits
            rows.append(LmerResult(m.spec, frame, m.REML, m.n_dropped, res, notes).params())
    return pd.DataFrame(rows).reset_index(drop=True)
