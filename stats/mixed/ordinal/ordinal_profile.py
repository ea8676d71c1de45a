"""Profile-likelihood confidence intervals of a cumulative link model (ordinal's
``confint.clm``, ``type = "profile"``, its default; Christensen 2019, "Cumulative link models
for ordinal regression with the R package ordinal", section 4.5; Venables & Ripley 2002,
MASS, section 8.4).

For a regression or scale coefficient b_k the profile refits the model with b_k held at v;
the signed root r(v) = sign(v - b^_k) sqrt(2 (nll(v) - nll^)) is monotone in v and the
interval's ends are where r(v) = -+ z_{(1 + level) / 2}. ordinal computes r on a grid of
steps and interpolates a spline through it; here each end is solved to 1e-8 by Newton's
method on r (dr/dv = g_k / r from the refit's gradient), each r(v) a Newton refit
warm-started from the last.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as sps

from acceptability.stats.arguments import check_ci

__all__ = ["profile_confint", "signed_root"]

_XTOL = 1e-8


def signed_root(m, k: int, value: float, start: np.ndarray | None = None) -> tuple[float, float, np.ndarray]:
    """r(value) of parameter ``k``, its derivative dr/dv = g_k / r (g_k the gradient of the
    negative log-likelihood in b_k at the profile's optimum, where the others' is 0) and the
    profile's fitted parameters."""
    from acceptability.stats.mixed.ordinal.clm_newton import clm_objective, newton_clm

    par = np.array(m.par if start is None else start, float)
    par[k] = value
    free = np.ones(len(par), bool)
    free[k] = False
    fit = newton_clm(m.design, start=par, free=free)
    lr = max(2 * (fit.nll + m.loglik), 0.0)
    r = float(np.sign(value - m.par[k]) * np.sqrt(lr))
    slope = float(clm_objective(m.design, fit.par, order=1)[1][k]) / r if r else np.inf
    return r, slope, fit.par


def _end(m, k: int, target: float, se: float) -> float:
    """The v where r(v) = target: Newton's method on r from the Wald end (r is nearly linear;
    3-4 refits), Brent's method in a bracket where a Newton step leaves it."""
    est = float(m.par[k])
    v, warm = est + target * se, m.par
    inner, outer = est, None
    for _ in range(30):
        r, slope, warm = signed_root(m, k, v, warm)
        if (r - target) * np.sign(target) >= 0:
            outer = v
        else:
            inner = v
        new = v - (r - target) / slope if np.isfinite(slope) and slope > 0 else np.nan
        if outer is not None and not (min(inner, outer) < new < max(inner, outer)):
            break  # leaves the bracket: Brent's method between inner and outer
        if not np.isfinite(new):
            new = v + target * se  # flat: step out
        if abs(new - v) < _XTOL:
            return float(new)
        v = new
    if outer is None:
        return float("nan")  # the likelihood never falls far enough: an unbounded end
    state = {"par": warm}

    def gap(x: float) -> float:
        value, _, state["par"] = signed_root(m, k, x, state["par"])
        return value - target

    return float(optimize.brentq(gap, inner, outer, xtol=_XTOL, rtol=1e-12))


def profile_confint(m, parm: list[str] | None = None, level: float = 0.95) -> pd.DataFrame:
    """Profile-likelihood intervals of the regression and scale coefficients of a clm
    fit (rows named as ordinal's ``confint``: ``tempwarm``, scale effects ``sca.tempwarm``)."""
    check_ci(level, "level")
    d = m.design
    names = [*d.xnames[1:], *(f"sca.{n}" for n in ([] if d.scale is None else d.scale.names))]
    index = dict(zip(names, range(d.nalpha, d.npar), strict=True))
    chosen = names if parm is None else list(parm)
    unknown = [p for p in chosen if p not in index]
    if unknown:
        raise ValueError(f"parm {unknown}: profiles exist for {names} (thresholds are not "
                         "profiled, as in ordinal: use type='Wald' for them)")
    z = sps.norm.ppf((1 + level) / 2)
    se = m.se.to_numpy()
    lo, hi = (1 - level) / 2, (1 + level) / 2
    rows = [[_end(m, index[p], -z, se[index[p]]), _end(m, index[p], z, se[index[p]])] for p in chosen]
    return pd.DataFrame(rows, index=chosen, columns=[f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"])
