"""The bambi engine: Bayesian mixed models on PyMC (Capretto et al. 2022, J. Stat. Softw.
103(15)) behind the engine protocol, sampled by nutpie's NUTS when installed.

The design's formula is translated to bambi's here (an interaction group ``g:h`` as one
column); the record holds the posterior means and covariance of the fixed effects, named
as lme4 names them, and the posterior itself (``state``: bambi's model, the thinned
InferenceData with a pointwise log-likelihood, the settings). bambi, pymc and arviz are
imported inside the functions so that ``import acceptability.stats`` is fast.
"""

from __future__ import annotations

import importlib.util
import os
import time
from importlib.metadata import version
from typing import Any

import numpy as np
import pandas as pd

from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.protocol import EngineRefused, FitSettings, FittedParameters
from acceptability.stats.mixed.formula import Formula

__all__ = ["FAMILIES", "BambiEngine", "arviz_label", "default_sampler", "draw_chunks",
           "fixed_coefficients"]

FAMILIES = ("gaussian", "bernoulli")


def default_sampler() -> str:
    """``"nutpie"`` when it is installed, else PyMC's own NUTS."""
    return "nutpie" if _has("nutpie") else "pymc"


def _priors(priors: dict[str, Any] | None) -> dict[str, Any] | None:
    """bambi priors; ``("Normal", {"mu": 0, "sigma": 1})`` is turned into ``bmb.Prior``."""
    if priors is None:
        return None
    import bambi as bmb

    return {
        k: bmb.Prior(v[0], **v[1]) if isinstance(v, tuple) else v for k, v in priors.items()
    }


# values (chains x draws x rows) per call of bambi's prediction: its sparse product needs
# some 300-400 bytes per value (20000 rows x 1000 draws: 6.4 GB more in one call), so
# 2**20 values keep a call's peak near 400 MB however large the model (0.9 GB there, with
# the same log-likelihood to the last bit, and faster)
_CHUNK_VALUES = 2**20


def draw_chunks(idata: Any, n: int) -> list[slice]:
    """Slices of draws whose chains x draws x ``n`` values stay near ``_CHUNK_VALUES``."""
    post = idata.posterior
    step = max(1, _CHUNK_VALUES // (n * post.sizes["chain"]))
    return [slice(i, i + step) for i in range(0, post.sizes["draw"], step)]


def _add_log_likelihood(model: Any, idata: Any) -> None:
    """``model.compute_log_likelihood`` a block of draws at a time (bounded memory), without
    the per-row means it would leave in the posterior."""
    import arviz as az
    import xarray as xr

    pieces = []
    for sl in draw_chunks(idata, len(model.data)):
        part = az.InferenceData(posterior=idata.posterior.isel(draw=sl))
        model.compute_log_likelihood(part)
        pieces.append(part.log_likelihood)
    idata.add_groups({"log_likelihood": xr.concat(pieces, dim="draw")})


def _thin(idata: Any, thin: int) -> None:
    """Keep every ``thin``-th draw (the last of each block) of every per-draw group."""
    if thin == 1:
        return
    for group in ("posterior", "sample_stats"):
        ds = getattr(idata, group, None)
        if ds is not None:
            ds = ds.isel(draw=slice(thin - 1, None, thin)).copy(deep=True)  # frees the rest
            setattr(idata, group, ds.assign_coords(draw=np.arange(ds.sizes["draw"])))


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


def _lme4_name(var: str, term: Any, levels: list[str]) -> str:
    """lme4's name of one design column: each categorical factor of the term followed by
    its level (``period`` level 2 -> ``period2``, ``x:period`` -> ``x:period2``); bambi
    joins the levels of an interaction of factors with ", ". Otherwise ``var[level]``."""
    comps = getattr(getattr(term, "term", None), "components", [])
    parts = var.split(":")
    cats = [i for i, c in enumerate(comps) if getattr(c, "kind", None) == "categoric"]
    flat = [x for lv in levels for x in (lv.split(", ") if len(cats) > 1 else [lv])]
    if len(levels) != 1 or len(parts) != len(comps) or len(flat) != len(cats) or not cats:
        return arviz_label(var, dict(enumerate(levels)))
    for i, level in zip(cats, flat, strict=True):
        parts[i] += level
    return ":".join(parts)


def arviz_label(var: str, sel: dict[Any, Any]) -> str:
    """The row label ``arviz.summary`` gives: ``var`` or ``var[a, b]``."""
    return f"{var}[{', '.join(str(v) for v in sel.values())}]" if sel else var


def fixed_coefficients(model: Any, idata: Any) -> dict[str, tuple[str, dict[str, Any]]]:
    """lme4-style name of each fixed coefficient -> (posterior variable, coordinate
    selection): a categorical term gives one name per contrast (``period2``)."""
    comp = model.components[model.family.likelihood.parent]
    post = idata.posterior
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for var in ["Intercept", *comp.common_terms]:
        if var not in post:
            continue
        extra = [d for d in post[var].dims if d not in ("chain", "draw")]
        if not extra:
            out[var] = (var, {})
            continue
        coords = [post[var][d].values for d in extra]
        for combo in np.array(np.meshgrid(*coords, indexing="ij")).reshape(len(extra), -1).T:
            labels = [str(c) for c in combo]
            name = _lme4_name(var, comp.common_terms.get(var), labels)
            out[name] = (var, dict(zip(extra, combo, strict=True)))
    return out


def _sample(model: Any, options: dict[str, Any]) -> Any:
    """bambi's fit: ``chains`` x (``tune`` + ``draws * thin``) NUTS iterations."""
    kwargs: dict[str, Any] = {"target_accept": options["target_accept"]}
    if options["sampler"] == "nutpie":
        kwargs["inference_method"] = "nutpie"
        kwargs["nuts_sampler_kwargs"] = {"save_warmup": False}
    else:
        kwargs["cores"] = min(options["chains"], os.cpu_count() or 1)
    return model.fit(draws=options["draws"] * options["thin"], tune=options["tune"],
                     chains=options["chains"], random_seed=options["seed"], **kwargs)


class BambiEngine:
    """bambi on PyMC: ``gaussian`` and ``bernoulli`` models, sampled by NUTS.

    ``settings.options``: ``priors``, ``draws``, ``tune``, ``chains``, ``seed``,
    ``sampler``, ``target_accept``, ``thin`` (see
    [brm][acceptability.stats.mixed.brm.brm]).
    """

    name = "bambi"

    def refusal(self, design: MixedDesign, settings: FitSettings | None = None) -> str | None:
        """Why bambi is not used for ``design`` (a family other than its two), or None."""
        if design.family not in FAMILIES:
            return f"family={design.family!r}: use one of {FAMILIES}"
        return None

    def fit(self, design: MixedDesign, settings: FitSettings) -> FittedParameters:
        """Build the bambi model, sample, thin, add the pointwise log-likelihood."""
        import bambi as bmb

        if (why := self.refusal(design)) is not None:
            raise EngineRefused(why)
        options = settings.options
        start = time.perf_counter()
        formula, frame = _bambi_formula(design.formula, design.frame)
        model = bmb.Model(formula, frame, family=design.family, priors=_priors(options["priors"]))
        idata = _sample(model, options)
        stats = idata.sample_stats
        divergences = int(stats["diverging"].sum()) if "diverging" in stats else 0  # before thinning
        _thin(idata, options["thin"])
        _add_log_likelihood(model, idata)  # for PSIS-LOO; nutpie ignores idata_kwargs
        seconds = time.perf_counter() - start
        record = {k: options[k] for k in ("sampler", "draws", "tune", "chains", "thin", "seed",
                                          "target_accept")}
        record |= {"family": design.family, "formula": formula, "model": str(model),
                   "fit_seconds": round(seconds, 2), "divergences": divergences,
                   "versions": {p: version(p) for p in _PACKAGES if _has(p)}}
        fixed = fixed_coefficients(model, idata)
        post = idata.posterior
        draws = np.array([post[v].sel(sel).to_numpy().ravel() for v, sel in fixed.values()])
        sigma = float(post["sigma"].mean()) if "sigma" in post else 1.0
        return FittedParameters(
            engine=f"bambi {record['versions'].get('bambi', '')} ({options['sampler']})",
            theta=np.full(design.ntheta, np.nan), beta=draws.mean(axis=1),
            vcov=np.atleast_2d(np.cov(draws)), b=np.full(design.q, np.nan), sigma=sigma,
            loglik=float("nan"), converged=divergences == 0, notes=[],
            state={"model": model, "idata": idata, "settings": record, "fixed": fixed},
            xnames=list(fixed))
