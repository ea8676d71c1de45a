"""Refit a mixed model with every optimiser the package has: lme4's ``allFit``.

lme4's ``allFit`` (Bates et al. 2015, J. Stat. Softw. 67(1); ``?convergence``) refits a model
with each optimiser lme4 can call, so that a convergence warning can be judged: if they
reach the same log-likelihood and estimates, the fit is trustworthy. The optimisers here are
those of the package's engines, and two derivative-free ones of scipy on the same objective:

- ``glmm``: the glmm engine (linear models, and the GLMMs of its families and links);
- ``pls.L-BFGS-B``: the own penalised least squares, bounded quasi-Newton on the profiled
  (REML) deviance with its analytic gradient (linear models);
- ``laplace.L-BFGS-B``: the own Laplace likelihood, quasi-Newton (GLMMs, nAGQ = 1);
- ``Nelder-Mead`` and ``Powell``: scipy's, bounded, on the profiled deviance (linear models)
  or on the Laplace / adaptive Gauss-Hermite deviance in (theta, beta, log phi) (GLMMs).
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize

from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.laplace_engine import _start, _vcov, fit_laplace
from acceptability.stats.mixed.engines.pls_engine import lmm_parameters
from acceptability.stats.mixed.engines.protocol import EngineRefused, FitSettings, FittedParameters
from acceptability.stats.mixed.engines.registry import ENGINES
from acceptability.stats.mixed.glmm.laplace import LaplaceLikelihood
from acceptability.stats.mixed.lmm import pls

__all__ = ["AllFit", "all_fit", "available_optimizers"]

_SCIPY = ("Nelder-Mead", "Powell")


def available_optimizers(model) -> list[str]:
    """The optimisers ``all_fit`` tries on ``model``: glmm's where it takes the design, the
    own PLS (linear) or Laplace (GLMM) quasi-Newton, scipy's Nelder-Mead and Powell."""
    d = model.design
    linear = d.glm_family.linear
    glmm_ok = ENGINES["glmm"].refusal(d, FitSettings(nAGQ=model._nagq)) is None
    own = "pls.L-BFGS-B" if linear else "laplace.L-BFGS-B"
    return (["glmm"] if glmm_ok else []) + [own, *_SCIPY]


def _scipy_lmm(d: MixedDesign, reml: bool, method: str) -> FittedParameters:
    """scipy's ``method`` on the profiled (REML) deviance over theta, from lme4's start."""
    lower = d.theta_lower()
    bounds = [(lo if np.isfinite(lo) else None, None) for lo in lower]
    cap = 1000 * len(lower)  # lme4's Nelder_Mead stops at 10,000; a large model's step is costly
    opts = ({"xtol": 1e-7, "ftol": 1e-12, "maxfev": cap} if method == "Powell"
            else {"xatol": 1e-7, "fatol": 1e-8, "maxfev": cap, "adaptive": True})
    res = optimize.minimize(lambda th: pls.pls(d, th, reml).deviance, d.theta_start(), method=method,
                            bounds=bounds, options=opts)
    theta = np.maximum(res.x, lower)
    return lmm_parameters(d, theta, reml, f"scipy {method} (profiled deviance)", bool(res.success),
                          [] if res.success else [str(res.message)])


def _scipy_glmm(d: MixedDesign, nagq: int, method: str) -> FittedParameters:
    """scipy's ``method`` on the Laplace (nAGQ > 1: adaptive Gauss-Hermite) deviance in
    (theta, beta, log phi), scaled and started as the Laplace engine does."""
    f = LaplaceLikelihood(d, "observed", nagq)
    x0, scale = _start(d, f, {})
    lower = np.concatenate([d.theta_lower(), np.full(len(x0) - d.ntheta, -np.inf)])
    bounds = [(lo / s if np.isfinite(lo) else None, None) for lo, s in zip(lower, scale, strict=True)]

    def dev(z: np.ndarray) -> float:
        v = -2 * f.loglik(z * scale)
        return v if np.isfinite(v) else 1e300

    opts = ({"xtol": 1e-9, "ftol": 1e-13, "maxfev": 40000} if method == "Powell"
            else {"xatol": 1e-7, "fatol": 1e-9, "maxfev": 200 * len(x0) ** 2, "adaptive": True})
    res = optimize.minimize(dev, x0 / scale, method=method, bounds=bounds, options=opts)
    x = np.maximum(res.x * scale, lower)
    theta, beta, disp = f.unpack(x)
    mode = f.mode(theta, beta, disp)
    vcov = _vcov(f, x, scale, d, mode.u if f.warm else None)
    sigma = float(np.sqrt(disp)) if f.family.scaled else 1.0
    return FittedParameters(
        engine=f"scipy {method} (Laplace deviance)", theta=theta / sigma, beta=beta, vcov=vcov,
        b=np.asarray(d.lambdat(theta).T @ mode.u).ravel(), sigma=sigma, loglik=f.loglik(x),
        converged=bool(res.success), notes=[] if res.success else [str(res.message)],
        state=mode, dispersion=disp)


def _run(model, name: str) -> FittedParameters:
    """One optimiser's fit of the model's design."""
    d, reml, nagq = model.design, model.REML, model._nagq
    linear = d.glm_family.linear
    if name in _SCIPY:
        return _scipy_lmm(d, reml, name) if linear else _scipy_glmm(d, nagq, name)
    if name == "laplace.L-BFGS-B":
        return fit_laplace(d, FitSettings(REML=False, nAGQ=nagq))
    engine = ENGINES["glmm" if name == "glmm" else "pls"]
    return engine.fit(d, FitSettings(REML=reml, nAGQ=nagq))


def _r_name(name: str) -> str:
    """lme4's ``summary(allFit)`` name of a variance parameter: ``Subject.(Intercept)``,
    ``Subject.Days.(Intercept)`` (a correlation), ``sigma``."""
    if name == "sigma":
        return name
    what, group = name.split("|", 1)
    return f"{group}.{what.split('_', 1)[1]}"


@dataclass
class AllFit:
    """Each optimiser's fit (lme4's ``allFit``) and the tables of ``summary(allFit(m))``:
    ``llik``, ``fixef``, ``sdcor``, ``theta``, ``times``, ``which_OK``, ``msgs``."""

    fits: dict[str, object]
    msgs: dict[str, str | None]
    times: pd.Series

    @property
    def which_OK(self) -> pd.Series:
        """Whether each optimiser gave a fit (lme4's ``which.OK``)."""
        return pd.Series({n: n in self.fits for n in self.times.index}, dtype=bool)

    @property
    def llik(self) -> pd.Series:
        """The log-likelihood (REML fits: minus half the REML criterion) of each fit."""
        return pd.Series({n: m.logLik for n, m in self.fits.items()}, dtype=float)

    @property
    def fixef(self) -> pd.DataFrame:
        """The fixed effects of each fit, one row per optimiser."""
        return pd.DataFrame({n: m.fixef for n, m in self.fits.items()}).T

    @property
    def sdcor(self) -> pd.DataFrame:
        """SDs, correlations (and sigma) of each fit, with lme4's names."""
        return pd.DataFrame({n: m._varpars().rename(_r_name) for n, m in self.fits.items()}).T

    @property
    def theta(self) -> pd.DataFrame:
        """lme4's ``theta`` of each fit."""
        return pd.DataFrame({n: pd.Series(m.theta) for n, m in self.fits.items()}).T

    def __str__(self) -> str:
        parts = [("$which.OK", self.which_OK), ("$llik", self.llik), ("$fixef", self.fixef),
                 ("$sdcor", self.sdcor), ("$times", self.times)]
        msgs = {n: m for n, m in self.msgs.items() if m}
        body = "\n\n".join(f"{title}\n{table.to_string()}" for title, table in parts)
        return body + ("\n\n$msgs\n" + "\n".join(f"{n}: {m}" for n, m in msgs.items()) if msgs else "")


def all_fit(model, optimizers: list[str] | None = None) -> AllFit:
    """lme4's ``allFit(m)``: the model refitted with every optimiser of
    [available_optimizers][acceptability.stats.mixed.fitted.allfit.available_optimizers] (or those named, lme4's
    ``meth.tab``); one that fails is recorded in ``msgs`` (lme4's ``catch.errs``), as is
    one that reports no convergence. Nelder-Mead and Powell evaluate the deviance without
    its gradient, up to 1,000 times per covariance parameter: seconds on lme4's data sets,
    minutes on a model with thousands of random effects (LI-Adger's sentence model: ~4 min
    each on 2 shared cores), where naming the others saves the time.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import lmer
    >>> from acceptability.stats.mixed.fitted.allfit import all_fit
    >>> y = [3.1, 4.0, 5.2, 5.9, 7.1, 8.2, 8.8, 10.1, 6.0, 7.2, 4.4, 5.1]
    >>> df = pd.DataFrame({"y": y, "x": range(12), "g": list("aabbccddeeff")})
    >>> a = all_fit(lmer("y ~ x + (1 | g)", df))
    >>> list(a.llik.index), bool(a.llik.max() - a.llik.min() < 1e-6)
    (['glmm', 'pls.L-BFGS-B', 'Nelder-Mead', 'Powell'], True)
    """
    available = available_optimizers(model)
    chosen = available if optimizers is None else list(optimizers)
    unknown = [o for o in chosen if o not in available]
    if unknown:
        raise ValueError(f"optimizers={chosen!r}: {unknown} cannot fit this model; use some of {available}")
    fits, msgs, times = {}, {}, {}
    for name in chosen:
        start = time.perf_counter()
        try:
            params = _run(model, name)
        except (EngineRefused, ValueError, np.linalg.LinAlgError) as err:
            msgs[name] = f"{type(err).__name__}: {err}"
        else:
            fits[name] = dataclasses.replace(model, parameters=params, quiet=True, notes=[])
            msgs[name] = None if params.converged else "; ".join(params.notes) or "not converged"
        times[name] = time.perf_counter() - start
    return AllFit(fits, msgs, pd.Series(times, dtype=float))
