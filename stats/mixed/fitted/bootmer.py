"""lme4's ``bootMer`` with a user's statistic, and boot's ``boot.ci`` intervals of it
(Bates et al. 2015, J. Stat. Softw. 67(1), section 5.2; Davison & Hinkley 1997, Bootstrap
Methods and their Application, ch. 5): ``nsim`` responses simulated from the fit (new
random effects, or given their modes with ``use_u``), each refitted by
[parametric_bootstrap][acceptability.stats.mixed.fitted.parametric.parametric_bootstrap] and
passed to ``fun``. The result holds ``t0 = fun(m)`` and the matrix ``t`` (one row per
refit), as boot's ``"boot"`` object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.arguments import check_ci
from acceptability.stats.defaults import DEFAULT_SEED
from acceptability.stats.mixed.fitted.parametric import parametric_bootstrap
from acceptability.stats.mixed.results import MixedResult

__all__ = ["BootMer", "bootMer"]

_TYPES = {"perc": "percent", "norm": "normal", "basic": "basic"}


def _as_series(value: object) -> pd.Series:
    """``fun``'s value as a named vector (unnamed: t1, t2, ... as boot numbers them)."""
    out = pd.Series(value, dtype=float) if not np.isscalar(value) else pd.Series([value], dtype=float)
    if isinstance(value, pd.Series | dict):
        return out
    return out.set_axis([f"t{i + 1}" for i in range(len(out))])


def norm_inter(t: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """boot's ``norm.inter``: the alpha quantiles of the finite ``t`` from the order
    statistics at (R + 1) alpha, interpolated on the normal quantile scale between
    neighbours (Davison & Hinkley 1997, eq. 5.8)."""
    t = np.sort(t[np.isfinite(t)])
    r = len(t)
    rk = (r + 1) * np.asarray(alpha, float)
    k = np.trunc(rk).astype(int)
    out = np.empty(len(rk))
    for i, (ki, rki, a) in enumerate(zip(k, rk, alpha, strict=True)):
        if ki == rki or ki <= 0 or ki >= r:
            out[i] = t[min(max(ki, 1), r) - 1]
            continue
        lo, hi = sps.norm.ppf(ki / (r + 1)), sps.norm.ppf((ki + 1) / (r + 1))
        out[i] = t[ki - 1] + (sps.norm.ppf(a) - lo) / (hi - lo) * (t[ki] - t[ki - 1])
    return out


@dataclass
class BootMer:
    """A parametric bootstrap (boot's ``"boot"`` object): ``t0`` the statistic of the fit,
    ``t`` one row per refit (columns as ``t0``'s names)."""

    t0: pd.Series
    t: pd.DataFrame

    @property
    def nsim(self) -> int:
        return len(self.t)

    def ci(self, index: int | str = 0, level: float = 0.95,
           type: tuple[str, ...] | str = ("norm", "basic", "perc")) -> pd.DataFrame:
        """boot's ``boot.ci(b, conf = level, index, type)`` for the statistic ``index``
        (a position or name): ``"norm"`` t0 - bias -/+ z sd(t) (bias = mean(t) - t0),
        ``"basic"`` 2 t0 - the quantiles of t, ``"perc"`` the quantiles of t (both by
        `norm_inter`). Rows ``normal``, ``basic``, ``percent``; columns lower, upper."""
        check_ci(level, "level")
        types = (type,) if isinstance(type, str) else tuple(type)
        bad = [x for x in types if x not in _TYPES]
        if bad:
            raise ValueError(f"type {bad}: use 'norm', 'basic' or 'perc' (boot.ci's; stud and bca are not offered)")
        col = self.t.columns[index] if isinstance(index, int) else index
        if col not in self.t.columns:
            raise ValueError(f"index {index!r}: the statistics are {list(self.t.columns)}")
        t0, t = float(self.t0[col]), self.t[col].to_numpy(float)
        t = t[np.isfinite(t)]
        rows = {}
        for x in types:
            if x == "norm":
                half = sps.norm.ppf((1 + level) / 2) * np.std(t, ddof=1)
                centre = 2 * t0 - t.mean()  # t0 - bias
                rows[_TYPES[x]] = (centre - half, centre + half)
            elif x == "basic":
                rows[_TYPES[x]] = tuple(2 * t0 - norm_inter(t, np.array([(1 + level) / 2, (1 - level) / 2])))
            else:
                rows[_TYPES[x]] = tuple(norm_inter(t, np.array([(1 - level) / 2, (1 + level) / 2])))
        out = pd.DataFrame.from_dict(rows, orient="index", columns=["lower", "upper"])
        out.attrs |= {"level": level, "statistic": col, "R": len(t)}
        return out


def bootMer(m: MixedResult, fun: Callable[[MixedResult], object] | None = None, nsim: int = 100,
            seed: int | None = DEFAULT_SEED, type: str = "parametric", use_u: bool = False,
            n_jobs: int | None = None) -> BootMer:
    """lme4's ``bootMer(m, FUN, nsim, seed, use.u, type = "parametric")``.

    Parameters
    ----------
    m
        An lmer or glmer fit.
    fun
        The statistic of a fitted model: a number, a sequence, a dict or a Series (its
        names become the columns of ``t``); default ``m.params()`` (SDs, correlations,
        sigma and fixed effects).
    nsim, seed, n_jobs
        Refits, the seed of the simulated responses, and forked worker processes (default
        one per core; the result does not depend on it).
    type
        ``"parametric"`` (lme4's only type for every model).
    use_u
        Simulate given the random effects' conditional modes (lme4's ``use.u = TRUE``)
        instead of drawing them anew.

    Returns
    -------
    BootMer
        ``t0``, ``t`` and ``ci()`` (boot.ci's normal, basic and percentile intervals).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from acceptability.stats import lmer
    >>> from acceptability.stats.mixed.fitted.bootmer import bootMer
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"x": np.tile([1.0, 2, 3, 4], 5), "g": np.repeat(list("abcde"), 4)})
    >>> df["y"] = 2 * df["x"] + rng.normal(size=20) + np.repeat(rng.normal(size=5), 4)
    >>> b = bootMer(lmer("y ~ x + (1 | g)", df), lambda fit: fit.fixef, nsim=20, seed=1, n_jobs=1)
    >>> b.t.shape, list(b.ci("x").index)
    ((20, 2), ['normal', 'basic', 'percent'])
    """
    if type != "parametric":
        raise ValueError(f"type={type!r}: only 'parametric' is offered (lme4's semiparametric "
                         "bootstrap is for linear models without weights only)")
    stat = (lambda fit: fit.params()) if fun is None else fun
    t0 = _as_series(stat(m))
    t = parametric_bootstrap(m, nsim, seed, n_jobs, fun=lambda fit: _as_series(stat(fit)), use_u=use_u)
    return BootMer(t0, t.reindex(columns=t0.index))
