"""Parametric bootstrap of an :func:`stats.lmer` / :func:`stats.glmer` fit, like lme4's
``bootMer`` and ``confint(method="boot")`` (Bates et al. 2015, J. Stat. Softw. 67(1),
section 5.2): simulate new random effects and responses from the fitted model, refit with
the same engine started at the fit's estimates, and collect the parameters."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from acceptability.stats.mixed.pls import one_blas_thread

if TYPE_CHECKING:
    from acceptability.stats.mixed.lmer import LmerResult

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


_MODEL = None  # the fit a forked worker refits (set by _set_model before the fork's first task)


def _set_model(m: LmerResult) -> None:
    global _MODEL
    _MODEL = m


@one_blas_thread
def _refit(y: np.ndarray, m: LmerResult | None = None) -> pd.Series:
    """The parameters of ``m`` (or the worker's fit) refitted to response ``y``, started at
    ``m``'s estimates."""
    from acceptability.stats.mixed.lmer import _glmer_fit, _lmer_fit

    m = _MODEL if m is None else m
    design = m.design.with_response(y)
    if m._kind == "lmer":
        return _lmer_fit(design, m.REML, m.n_dropped, start=m.theta, quiet=True).params()
    warm = {"beta": list(m.fixef), "theta": list(m.theta)}
    return _glmer_fit(design, m.family, m.nagq, m.n_dropped, warm=warm, quiet=True).params()


def parametric_bootstrap(m: LmerResult, nsim: int, seed: int = 0, n_jobs: int | None = None) -> pd.DataFrame:
    """``nsim`` refits to simulated responses; one row of ``m.params()`` per refit.

    The responses are drawn here, in order, from ``seed``; the refits run in ``n_jobs``
    forked processes (default: one per core; lme4's ``bootMer(parallel="multicore")``),
    so the result does not depend on ``n_jobs``."""
    rng = np.random.default_rng(seed)
    responses = [simulate(m, rng) for _ in range(nsim)]
    jobs = min(n_jobs or os.cpu_count() or 1, max(nsim, 1))
    if jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
        rows = [_refit(y, m) for y in responses]
    else:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_set_model, initargs=(m,)) as ex:
            rows = list(ex.map(_refit, responses, chunksize=max(1, nsim // (4 * jobs))))
    return pd.DataFrame(rows).reset_index(drop=True)
