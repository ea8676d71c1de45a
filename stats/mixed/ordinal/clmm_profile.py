"""Profile-likelihood intervals of the random-intercept SDs of a clmm (ordinal's
``profile.clmm2`` and ``confint.profile.clmm2``; Christensen 2019, "A tutorial on fitting
cumulative link mixed models with clmm2 from the ordinal package", section 2.3). ordinal's
``clmm`` has no profile method and its ``confint`` gives Wald intervals of the fixed
parameters only; ``clmm2`` profiles the SD of its one random intercept.

For the SD of term k the profile refits the model with sigma_k held at v (ordinal's
``sdFixed``); the signed root r(v) = sign(v - sigma^_k) sqrt(2 (-log L(v) + log L^)) is
monotone in v and the interval's ends are where r(v) = -+ z_{(1 + level) / 2}. ordinal
interpolates a spline through r on a grid of fits; here each end is solved by the secant
method in log v to |r - target| < 1e-9, from the Wald guess, each r(v) a fit warm-started
from the last. Where the likelihood at v = 0 is within
the level of the maximum, the lower end is 0.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as sps

from acceptability.stats.arguments import check_ci
from acceptability.stats.mixed.lmm.pls import one_blas_thread
from acceptability.stats.mixed.ordinal.clmm_polish import value_gradient

__all__ = ["profile_sd_confint"]

def _restricted_fit(m, k: int, value: float, start: np.ndarray, warm: dict) -> tuple[float, np.ndarray]:
    """min -log L over all parameters but SD k, held at ``value``: L-BFGS-B over
    (alpha, beta, log of the other SDs), as ``cumulative_mixed._fit``."""
    lik = warm["lik"]
    npar = m.design.npar
    free = np.ones(len(start), bool)
    free[npar + k] = False
    logs = np.arange(len(start)) >= npar

    def x_of(z):
        x = start.copy()
        x[free] = np.where(logs[free], np.exp(z), z)
        x[npar + k] = value
        return x

    def fg(z):
        x = x_of(z)
        f, g = lik.value_grad(x) if m.nAGQ >= 1 else value_gradient(lik.values, x)
        g = np.where(logs, g * x, g)
        return f, g[free]

    z0 = np.where(logs[free], np.log(np.maximum(start[free], 1e-8)), start[free])
    res = optimize.minimize(fg, z0, jac=True, method="L-BFGS-B",
                            options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-9, "maxcor": 20})
    return float(res.fun), x_of(res.x)


def _signed_root(m, k: int, value: float, warm: dict) -> float:
    nll, warm["x"] = _restricted_fit(m, k, value, warm["x"], warm)
    return float(np.sign(value - m.theta[k]) * np.sqrt(max(2 * (nll + m.loglik), 0.0)))


def _end(m, k: int, target: float, guess: float, likelihood) -> float:
    """The SD on the side of ``target``'s sign where r = target: the secant method in
    log SD (r is near linear there) from the estimate (r = 0) and ``guess``; 0 where
    r(0) does not reach a negative target."""
    est = float(m.theta[k])
    warm = {"x": np.concatenate([m.par, m.theta]), "lik": likelihood()}
    if target < 0 and _signed_root(m, k, 0.0, warm) > target:
        return 0.0  # sigma = 0 lies inside the interval
    t0, r0, t1 = np.log(est), 0.0, np.log(guess)
    r1 = _signed_root(m, k, float(np.exp(t1)), warm)
    for _ in range(60):
        if abs(r1 - target) < 1e-9 or r1 == r0:
            break
        t0, r0, t1 = t1, r1, t1 + (target - r1) * (t1 - t0) / (r1 - r0)
        r1 = _signed_root(m, k, float(np.exp(t1)), warm)
    else:
        return float("nan")
    return float(np.exp(t1))


def _log_sd_errors(m) -> np.ndarray:
    """Wald standard errors of each log SD (the first guesses of the ends): ordinal's vcov
    rows ST1, ... (the log SD for one term, the SD otherwise); 0.5 where the SD has none."""
    out = np.full(len(m.theta), 0.5)
    var = np.diag(m.vcov.to_numpy())
    names = list(m.vcov.index)
    for k, sd in enumerate(m.theta):
        if f"ST{k + 1}" in names and np.isfinite(var[names.index(f"ST{k + 1}")]):
            v = var[names.index(f"ST{k + 1}")]
            out[k] = np.sqrt(v) if len(m.theta) == 1 else np.sqrt(v) / sd
    return out


@one_blas_thread
def profile_sd_confint(m, likelihood, level: float = 0.95) -> pd.DataFrame:
    """Profile-likelihood intervals of each random-intercept SD, one row per grouping
    factor (ordinal's ``confint(profile(clmm2 fit))``, row ``stDev``); ``likelihood()``
    makes the fit's likelihood (``cumulative_mixed._Likelihood``)."""
    check_ci(level, "level")
    if m.slopes:
        raise ValueError("profile intervals cover the SDs of random intercepts; this model has "
                         "random slopes (ordinal profiles only clmm2's one random intercept): "
                         "use the Wald intervals of confint()")
    z = sps.norm.ppf((1 + level) / 2)
    lo, hi = (1 - level) / 2, (1 + level) / 2
    se = _log_sd_errors(m)
    rows = [[_end(m, k, -z, sd * np.exp(-z * e), likelihood), _end(m, k, z, sd * np.exp(z * e), likelihood)]
            for k, (sd, e) in enumerate(zip(m.theta, se, strict=True))]
    return pd.DataFrame(rows, index=pd.Index(m.terms.groups, name="SD"),
                        columns=[f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"])
