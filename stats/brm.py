"""Bayesian (generalised) linear mixed models with lme4 syntax, like R's ``brms::brm``.

Fitted with bambi on PyMC (Capretto et al. 2022, J. Stat. Softw. 103(15)); nutpie's
NUTS sampler when installed. Diagnostics, LOO and posterior densities come from arviz
(Kumar et al. 2019); PSIS-LOO after Vehtari, Gelman & Gabry (2017); the Savage–Dickey
density ratio after Wagenmakers et al. (2010). Crossed random effects are allowed.
bambi, pymc and arviz are imported inside the functions so that ``import acceptability.stats`` is fast.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

import numpy as np
import pandas as pd

from .formula import Formula, parse_formula
from .lmer import prepare_frame

__all__ = ["BrmResult", "brm", "loo_compare"]

FAMILIES = ("gaussian", "bernoulli")


def _default_sampler() -> str:
    return "nutpie" if _has("nutpie") else "pymc"


def _check_response(formula: Formula, frame: pd.DataFrame, family: str) -> None:
    if family not in FAMILIES:
        raise ValueError(f"family={family!r}: use one of {FAMILIES}")
    if formula.response not in frame:
        return  # an expression such as log(y): the formula engine checks it
    y = frame[formula.response]
    if family == "bernoulli" and not (
        pd.api.types.is_bool_dtype(y) or set(pd.unique(y)) <= {0, 1}
    ):
        seen = sorted(pd.unique(y))[:5]
        raise ValueError(
            f"family='bernoulli' needs a 0/1 response, but {formula.response!r} has values "
            f"{seen}...; recode it to 0/1 or use family='gaussian'"
        )
    if family == "gaussian" and not pd.api.types.is_numeric_dtype(y):
        raise ValueError(f"family='gaussian' needs a numeric response; {formula.response!r} is {y.dtype}")


def _priors(priors: dict[str, Any] | None) -> dict[str, Any] | None:
    """bambi priors; ``("Normal", {"mu": 0, "sigma": 1})`` is turned into ``bmb.Prior``."""
    if priors is None:
        return None
    import bambi as bmb

    return {
        k: bmb.Prior(v[0], **v[1]) if isinstance(v, tuple) else v for k, v in priors.items()
    }


def brm(
    formula: str,
    data: pd.DataFrame,
    family: str = "gaussian",
    priors: dict[str, Any] | None = None,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    seed: int = 0,
    sampler: str | None = None,
    target_accept: float = 0.9,
) -> BrmResult:
    """Fit a Bayesian mixed model written in lme4/brms syntax with bambi (PyMC).

    ``family``: ``"gaussian"`` or ``"bernoulli"`` (logit link). ``priors``: bambi priors
    by term name (``{"score": ("Normal", {"mu": 0, "sigma": 1})}`` or ``bmb.Prior``);
    None uses bambi's weakly informative defaults. Defaults (4 chains x 1000 draws after
    1000 tuning steps) follow brms. ``sampler``: ``"nutpie"`` (default when installed)
    or ``"pymc"``. Rows with missing values are dropped and counted in ``n_dropped``.
    """
    import bambi as bmb

    parsed = parse_formula(formula)
    frame, n_dropped = prepare_frame(parsed, data)
    _check_response(parsed, frame, family)
    sampler = sampler or _default_sampler()
    bambi_formula, frame = _bambi_formula(parsed, frame)
    model = bmb.Model(bambi_formula, frame, family=family, priors=_priors(priors))
    kwargs: dict[str, Any] = {"target_accept": target_accept}
    if sampler == "nutpie":
        kwargs["inference_method"] = "nutpie"
        # low-rank mass matrix: the global intercept and the many group intercepts form a
        # ridge that a diagonal mass matrix crosses slowly (LI-Adger: ESS 100 vs 1250)
        kwargs["nuts_sampler_kwargs"] = {"low_rank_modified_mass_matrix": True}
    elif sampler == "pymc":
        kwargs["cores"] = min(chains, os.cpu_count() or 1)
    else:
        raise ValueError(f"sampler={sampler!r}: use 'nutpie' or 'pymc'")
    idata = model.fit(draws=draws, tune=tune, chains=chains, random_seed=seed, **kwargs)
    model.compute_log_likelihood(idata)  # for PSIS-LOO; nutpie ignores idata_kwargs
    settings = {
        "sampler": sampler, "draws": draws, "tune": tune, "chains": chains, "seed": seed,
        "target_accept": target_accept, "family": family, "formula": bambi_formula,
        "model": str(model), "versions": {p: version(p) for p in _PACKAGES if _has(p)},
    }
    return BrmResult(parsed, family, frame, n_dropped, model, idata, settings)


_PACKAGES = ("bambi", "pymc", "arviz", "nutpie")


def _has(package: str) -> bool:
    return importlib.util.find_spec(package) is not None


def _bambi_formula(formula: Formula, frame: pd.DataFrame) -> tuple[str, pd.DataFrame]:
    """The formula for bambi, with each interaction group ``g:h`` as one column ``g_h``:
    formulae would otherwise build the full crossing of all levels (slow, and for
    LI-Adger 236 x 522 columns)."""
    frame = frame.copy()
    terms = []
    for term in formula.random:
        col = "_".join(term.factors)
        if len(term.factors) > 1:
            if col in frame.columns:
                raise ValueError(f"column {col!r} exists; rename it so {term} can use that name")
            frame[col] = frame[list(term.factors)].astype(str).agg(":".join, axis=1)
        terms.append(f"({term.expr} | {col})")
    return " + ".join([formula.fixed_formula, *dict.fromkeys(terms)]), frame


@dataclass
class BrmResult:
    """A fitted :func:`brm` model: the bambi model, its InferenceData and the settings."""

    formula: Formula
    family: str
    frame: pd.DataFrame
    n_dropped: int
    model: Any
    idata: Any
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def fixed_names(self) -> list[str]:
        """Names of the population-level (fixed) coefficients in the posterior."""
        terms = self.model.components[self.model.family.likelihood.parent].common_terms
        return [n for n in ["Intercept", *terms] if n in self.idata.posterior]

    def summary(self, var_names: list[str] | None = None, hdi_prob: float = 0.95) -> pd.DataFrame:
        """Posterior mean, SD, HDI, ESS and R-hat (``arviz.summary``); by default the
        fixed effects, group-level SDs and the residual SD."""
        import arviz as az

        if var_names is None:
            post = self.idata.posterior
            var_names = self.fixed_names + [
                v for v in post.data_vars if v.endswith("_sigma") or v == "sigma"
            ]
        return az.summary(self.idata, var_names=var_names, hdi_prob=hdi_prob)

    @property
    def fixef(self) -> pd.Series:
        """Posterior means of the fixed effects."""
        post = self.idata.posterior
        return pd.Series({n: float(post[n].mean()) for n in self.fixed_names})

    def draws(self, name: str) -> np.ndarray:
        """All posterior draws of one scalar parameter."""
        if name not in self.idata.posterior:
            raise KeyError(f"no parameter {name!r}; the model has {list(self.idata.posterior.data_vars)}")
        return self.idata.posterior[name].to_numpy().ravel()

    def rhat_max(self) -> float:
        return float(self.summary()["r_hat"].max())

    def ppc(self, seed: int = 0) -> pd.DataFrame:
        """Posterior predictive check: observed mean and SD of the response beside their
        posterior predictive distribution (Bayesian p-value = share of replicates above)."""
        pred = self.model.predict(self.idata, kind="response", inplace=False, random_seed=seed)
        name = self.model.response_component.response.name
        yrep = pred.posterior_predictive[name].stack(s=("chain", "draw")).to_numpy()
        y = self.frame[self.formula.response].to_numpy(dtype=float)
        rows = []
        for stat, fn in (("mean", np.mean), ("sd", np.std)):
            rep = fn(yrep, axis=0)
            rows.append({"statistic": stat, "observed": fn(y), "replicated_mean": rep.mean(),
                         "p_value": float(np.mean(rep >= fn(y)))})
        return pd.DataFrame(rows)

    def rope(self, name: str, bounds: tuple[float, float] = (-0.1, 0.1),
             hdi_prob: float = 0.95) -> dict[str, float]:
        """Share of the posterior of ``name`` inside the region of practical equivalence,
        overall and within the ``hdi_prob`` HDI (Kruschke 2018, AMPPS 1(2))."""
        import arviz as az

        x = self.draws(name)
        lo, hi = az.hdi(x, hdi_prob=hdi_prob)
        inside = (x >= bounds[0]) & (x <= bounds[1])
        in_hdi = (x >= lo) & (x <= hi)
        return {"rope_low": bounds[0], "rope_high": bounds[1], "p_in_rope": float(inside.mean()),
                "p_hdi_in_rope": float(inside[in_hdi].mean()), "hdi_low": float(lo),
                "hdi_high": float(hi)}

    def bayes_factor(self, name: str, ref_val: float = 0.0) -> dict[str, float]:
        """Savage–Dickey Bayes factor for ``name == ref_val`` (Wagenmakers et al. 2010):
        BF01 = posterior density / prior density at ``ref_val``; BF10 = 1 / BF01 > 1
        favours ``name != ref_val``. The prior density is exact (PyMC's log-density of the
        coefficient's prior), the posterior density a KDE of the draws (``arviz.kde``, as
        ``arviz.bayes_factor``). ``inf`` when no posterior draw reaches ``ref_val``, where
        a KDE says nothing."""
        import arviz as az
        import pymc as pm
        from pytensor.graph.traversal import ancestors

        if name not in self.fixed_names:
            raise KeyError(f"{name!r} is not a fixed effect; use one of {self.fixed_names}")
        x = self.draws(name)
        if not x.min() <= ref_val <= x.max():
            return {"BF10": float("inf"), "BF01": 0.0}
        grid, pdf = az.kde(x)
        posterior = float(np.interp(ref_val, grid, pdf))
        model = self.model.backend.model
        logp = pm.logp(model[name], ref_val)
        if set(ancestors([logp])) & set(model.free_RVs):
            raise ValueError(f"the prior of {name!r} depends on other parameters; the "
                             "Savage–Dickey ratio needs a fixed prior for it")
        prior = float(np.exp(logp.eval()))
        return {"BF10": prior / posterior, "BF01": posterior / prior}

    def loo(self):
        """PSIS-LOO (``arviz.loo``)."""
        import arviz as az

        return az.loo(self.idata)

    def __repr__(self) -> str:
        s = self.settings
        return (f"<BrmResult {self.formula.text!r} ({self.family}): n={len(self.frame)}, "
                f"{s.get('chains')} chains x {s.get('draws')} draws, {s.get('sampler')}>")


def loo_compare(**models: BrmResult) -> pd.DataFrame:
    """Rank models by PSIS-LOO expected log predictive density (``arviz.compare``)."""
    import arviz as az

    return az.compare({k: m.idata for k, m in models.items()}, ic="loo")
