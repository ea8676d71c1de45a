"""Parametric bootstrap of an :func:`stats.lmer` / :func:`stats.glmer` fit, like lme4's
``bootMer`` and ``confint(method="boot")`` (Bates et al. 2015, J. Stat. Softw. 67(1),
section 5.2): simulate new random effects and responses from the fitted model, refit with
the same engine started at the fit's estimates, and collect the parameters."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd

from acceptability.stats.arguments import check_ci, check_count, check_n_boot, check_seed
from acceptability.stats.defaults import DEFAULT_SEED
from acceptability.stats.inference.intervals import percentile_interval
from acceptability.stats.mixed.fitted.simulation import Simulator
from acceptability.stats.mixed.lmm.pls import one_blas_thread
from acceptability.stats.mixed.results import MixedResult as LmerResult

__all__ = ["parametric_bootstrap", "parametric_confint"]


_MODEL = None  # the fit a forked worker refits (set by _set_model before the fork's first task)
_FUN: Callable[[LmerResult], object] | None = None  # and the statistic of each refit


def _set_model(m: LmerResult, fun: Callable[[LmerResult], object] | None = None) -> None:
    global _MODEL, _FUN
    _MODEL, _FUN = m, fun


@one_blas_thread
def _refit(y: np.ndarray, m: LmerResult | None = None,
           fun: Callable[[LmerResult], object] | None = None) -> pd.Series:
    """``fun`` (default: the parameters) of ``m`` (or the worker's fit) refitted to response
    ``y``, started at ``m``'s estimates (lme4's ``refit``)."""
    m, fun = (_MODEL, _FUN) if m is None else (m, fun)
    refitted = m.refit(y)
    return refitted.params() if fun is None else pd.Series(fun(refitted), dtype=float)


def parametric_bootstrap(m: LmerResult, nsim: int, seed: int | None = DEFAULT_SEED,
                         n_jobs: int | None = None, fun: Callable[[LmerResult], object] | None = None,
                         use_u: bool = False) -> pd.DataFrame:
    """``nsim`` refits to simulated responses (``use_u``: given the random effects' modes);
    one row of ``fun(refit)`` per refit (default: ``m.params()``).

    The responses are drawn here, in order, from ``seed``; the refits run in ``n_jobs``
    forked processes (default: one per core; lme4's ``bootMer(parallel="multicore")``),
    so the result does not depend on ``n_jobs``."""
    nsim = check_count("nsim", nsim)
    seed = check_seed(seed)
    if n_jobs is not None:
        check_count("n_jobs", n_jobs)
    rng = np.random.default_rng(seed)
    sim = Simulator(m, None if use_u else "NA")
    responses = [sim.draw(rng) for _ in range(nsim)]
    jobs = min(n_jobs or os.cpu_count() or 1, max(nsim, 1))
    if jobs == 1 or "fork" not in multiprocessing.get_all_start_methods():
        rows = [_refit(y, m, fun) for y in responses]
    else:
        ctx = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(jobs, mp_context=ctx, initializer=_set_model, initargs=(m, fun)) as ex:
            rows = list(ex.map(_refit, responses, chunksize=max(1, nsim // (4 * jobs))))
    return pd.DataFrame(rows).reset_index(drop=True)


def parametric_confint(m: LmerResult, level: float = 0.95, nsim: int = 500,
                       seed: int | None = DEFAULT_SEED, n_jobs: int | None = None) -> pd.DataFrame:
    """Parametric-bootstrap percentile intervals of every parameter (lme4's
    ``confint(method="boot")``): the quantiles of `parametric_bootstrap`'s refits,
    by the resampling engine's ``percentile_interval`` (a refit without a value is left
    out of its parameter's quantiles).

    Parameters
    ----------
    m
        An ``lmer`` or ``glmer`` fit.
    level
        Confidence level.
    nsim, seed, n_jobs
        As in `parametric_bootstrap`.

    Returns
    -------
    pandas.DataFrame
        Rows as ``m.params()``, columns ``"2.5 %"`` and ``"97.5 %"`` (for level 0.95).

    Examples
    --------
    >>> from acceptability import data, stats
    >>> from acceptability.stats.mixed.fitted.parametric import parametric_confint
    >>> ds, _ = data.load_example()
    >>> fit = stats.lmer("human ~ 1 + (1 | phenomenon)", ds.sentences)
    >>> ci = parametric_confint(fit, nsim=20, n_jobs=1)
    >>> list(ci.columns), bool((ci["2.5 %"] <= ci["97.5 %"]).all())
    (['2.5 %', '97.5 %'], True)
    """
    check_ci(level, "level")
    check_n_boot(nsim, "nsim", default=500)  # an interval's floor; the draws alone need 1
    draws = parametric_bootstrap(m, nsim, seed, n_jobs)
    lower, upper = percentile_interval(draws.to_numpy(float).T, level, nan_policy="omit")
    lo, hi = (1 - level) / 2, (1 + level) / 2
    return pd.DataFrame({f"{100 * lo:.1f} %": lower, f"{100 * hi:.1f} %": upper},
                        index=draws.columns)
