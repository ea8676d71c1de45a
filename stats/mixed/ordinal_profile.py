"""Profile-likelihood confidence intervals of a cumulative link model (ordinal's
``confint.clm``, ``type = "profile"``, its default; Christensen 2019, "Cumulative link models
for ordinal regression with the R package ordinal", section 4.5; Venables & Ripley 2002,
MASS, section 8.4).

For a regression or scale coefficient b_k the profile refits the model with b_k held at v;
the signed root r(v) = sign(v - b^_k) sqrt(2 (nll(v) - nll^)) is monotone in v and the
interval's ends are where r(v) = -+ z_{(1 + level) / 2}. ordinal computes r on a grid of
steps and interpolates a spline through it; here each end is solved with Brent's method to
1e-8, each r(v) a Newton refit warm-started from the last.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as sps

from acceptability.stats.arguments import check_ci

__all__ = ["profile_confint", "signed_root"]

_XTOL = 1e-8


def signed_root(m, k: int, value: float, start: np.ndarray | None = None) -> tuple[float, np.ndarray]:
    """r(value) of parameter ``k`` and the profile's fitted parameters."""
    from acceptability.stats.mixed.clm_newton import newton_clm

    par = np.array(m.par if start is None else start, float)
    par[k] = value
    free = np.ones(len(par), bool)
    free[k] = False
    fit = newton_clm(m.design, start=par, free=free)
    lr = max(2 * (fit.nll + m.loglik), 0.0)
    return float(np.sign(value - m.par[k]) * np.sqrt(lr)), fit.par


def _end(m, k: int, target: float, se: float) -> float:
    """The v on the side of ``target``'s sign where r(v) = target: steps of half a standard
    error outwards until r passes it, then Brent's method between the last two."""
    direction = np.sign(target)
    est = float(m.par[k])
    inner, warm = est, {"par": m.par}
    for step in range(1, 200):
        outer = est + direction * 0.5 * step * se
        r, warm["par"] = signed_root(m, k, outer, warm["par"])
        if abs(r) >= abs(target):
            break
        inner = outer
    else:
        return float("nan")  # the likelihood never falls far enough: an unbounded end

    def gap(v: float) -> float:
        value, warm["par"] = signed_root(m, k, v, warm["par"])
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
