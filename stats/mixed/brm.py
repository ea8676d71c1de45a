"""Bayesian (generalised) linear mixed models with lme4 syntax, like R's ``brms::brm``.

Fitted with bambi on PyMC (Capretto et al. 2022, J. Stat. Softw. 103(15)); nutpie's
NUTS sampler when installed. Diagnostics, LOO and posterior densities come from arviz
(Kumar et al. 2019); PSIS-LOO after Vehtari, Gelman & Gabry (2017); the Savage–Dickey
density ratio after Wagenmakers et al. (2010). Crossed random effects are allowed.
bambi, pymc and arviz are imported inside the functions so that ``import acceptability.stats`` is fast.
"""

from __future__ import annotations

import importlib.util
import math
import os
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any

import numpy as np
import pandas as pd

from acceptability.stats.mixed.formula import Formula, parse_formula
from acceptability.stats.mixed.lmer import prepare_frame

__all__ = ["BrmResult", "brm", "loo_compare", "memory_estimate"]

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
    thin: int = 10,
    check_memory: bool = True,
) -> BrmResult:
    """Fit a Bayesian mixed model written in lme4/brms syntax with bambi (PyMC).

    ``family``: ``"gaussian"`` or ``"bernoulli"`` (logit link; a binomial count such as
    lme4's ``cbind(k, n - k)`` is fitted as ``n`` rows of 0/1). ``priors``: bambi priors
    by term name (``{"score": ("Normal", {"mu": 0, "sigma": 1})}`` or ``bmb.Prior``);
    None uses bambi's weakly informative defaults. Group-level effects are non-centred
    (``offset * sigma``, as in brms). ``sampler``: ``"nutpie"`` (default when installed)
    or ``"pymc"``. Rows with missing values are dropped and counted in ``n_dropped``.

    Sampling: ``chains`` chains of ``tune`` warm-up iterations, then ``draws * thin``
    iterations of which every ``thin``-th is kept (brms's ``thin``): ``draws`` draws per
    chain are kept (4 x 1000, as brms), summarised, and given a pointwise log-likelihood.
    ``thin=10`` because the SD of a weakly identified group-level effect mixes slowly: on
    LI-Adger's sentence model the phenomenon intercept SD (about 0.03, beside an SD of
    0.67 for the type intercepts nested in it; the phenomenon intercepts themselves are
    barely informed by the data) had a bulk ESS of 34-150 per 4 x 1000 iterations and
    R-hat 1.02-1.09 without thinning, whatever the tuning length or ``target_accept``;
    10 x as many iterations give R-hat <= 1.004 for every parameter
    (``benchmarks/bench_brm.py``). nutpie adapts a diagonal mass matrix: its low-rank
    variant was 3 x slower per iteration there and mixed that SD worse.

    Before anything is built, :func:`memory_estimate` is compared with the available
    memory and a model that would not fit is refused (``ValueError``) with the numbers
    and what to change; ``check_memory=False`` skips that check. The wall-clock time of
    building, sampling and the pointwise log-likelihood is ``result.fit_seconds``.
    """
    import bambi as bmb

    parsed = parse_formula(formula)
    frame, n_dropped = prepare_frame(parsed, data)
    _check_response(parsed, frame, family)
    sampler = sampler or _default_sampler()
    if sampler not in ("nutpie", "pymc"):
        raise ValueError(f"sampler={sampler!r}: use 'nutpie' or 'pymc'")
    if thin < 1 or draws < 1 or chains < 1:
        raise ValueError(f"draws={draws}, chains={chains}, thin={thin}: each must be >= 1")
    if check_memory:
        _refuse_if_too_large(_estimate(parsed, frame, family, draws, chains, thin), draws,
                             chains, thin)
    start = time.perf_counter()
    bambi_formula, frame = _bambi_formula(parsed, frame)
    model = bmb.Model(bambi_formula, frame, family=family, priors=_priors(priors))
    kwargs: dict[str, Any] = {"target_accept": target_accept}
    if sampler == "nutpie":
        kwargs["inference_method"] = "nutpie"
        kwargs["nuts_sampler_kwargs"] = {"save_warmup": False}
    else:
        kwargs["cores"] = min(chains, os.cpu_count() or 1)
    idata = model.fit(draws=draws * thin, tune=tune, chains=chains, random_seed=seed, **kwargs)
    stats = idata.sample_stats
    divergences = int(stats["diverging"].sum()) if "diverging" in stats else 0  # before thinning
    _thin(idata, thin)
    _add_log_likelihood(model, idata)  # for PSIS-LOO; nutpie ignores idata_kwargs
    seconds = time.perf_counter() - start
    settings = {
        "sampler": sampler, "draws": draws, "tune": tune, "chains": chains, "thin": thin,
        "seed": seed, "target_accept": target_accept, "family": family, "formula": bambi_formula,
        "model": str(model), "fit_seconds": round(seconds, 2), "divergences": divergences,
        "versions": {p: version(p) for p in _PACKAGES if _has(p)},
    }
    return BrmResult(parsed, family, frame, n_dropped, model, idata, settings)


def _thin(idata: Any, thin: int) -> None:
    """Keep every ``thin``-th draw (the last of each block) of every per-draw group."""
    if thin == 1:
        return
    for group in ("posterior", "sample_stats"):
        ds = getattr(idata, group, None)
        if ds is not None:
            ds = ds.isel(draw=slice(thin - 1, None, thin)).copy(deep=True)  # frees the rest
            setattr(idata, group, ds.assign_coords(draw=np.arange(ds.sizes["draw"])))


# values (chains x draws x rows) per call of bambi's prediction: its sparse product needs
# some 300-400 bytes per value (20000 rows x 1000 draws: 6.4 GB more in one call), so
# 2**20 values keep a call's peak near 400 MB however large the model (0.9 GB there, with
# the same log-likelihood to the last bit, and faster)
_CHUNK_VALUES = 2**20
_CHUNK_WORK = 400 * 2**20
_OVERHEAD = 200 * 2**20  # compiling the model, the sampler's working memory


def _draw_chunks(idata: Any, n: int) -> list[slice]:
    post = idata.posterior
    step = max(1, _CHUNK_VALUES // (n * post.sizes["chain"]))
    return [slice(i, i + step) for i in range(0, post.sizes["draw"], step)]


def _add_log_likelihood(model: Any, idata: Any) -> None:
    """``model.compute_log_likelihood`` a block of draws at a time (bounded memory), without
    the per-row means it would leave in the posterior."""
    import arviz as az
    import xarray as xr

    pieces = []
    for sl in _draw_chunks(idata, len(model.data)):
        part = az.InferenceData(posterior=idata.posterior.isel(draw=sl))
        model.compute_log_likelihood(part)
        pieces.append(part.log_likelihood)
    idata.add_groups({"log_likelihood": xr.concat(pieces, dim="draw")})


_BYTES = 8  # float64 draws; formulae's design matrices are float64 / int64


def memory_estimate(formula: str, data: pd.DataFrame, family: str = "gaussian",
                    draws: int = 1000, chains: int = 4, thin: int = 10) -> dict[str, float]:
    """Bytes a :func:`brm` fit needs, estimated from the formula and the data before any
    model is built (what ``brm`` checks against the available memory).

    With ``n`` rows, ``p`` fixed-effect columns and, for each group-level term ``g``,
    ``L_g`` levels and ``k_g`` coefficients per level (intercept and slopes), and ``s`` = 1
    for gaussian (the residual SD), 0 for bernoulli::

        design     = 8 * n * (p + sum_g (L_g + k_g))
        per_draw   = p + 2 * (sum_g L_g * k_g + sum_g k_g + s)
        trace      = 2 * 8 * chains * draws * thin * per_draw
        loglik     = 2 * 8 * chains * draws * n + 400 MiB
        total      = design + trace + loglik + 200 MiB

    ``design``: formulae's dense fixed-effect matrix and, per group term, a dense 0/1
    indicator matrix of the grouping factor (``n x L_g``) and its expression columns.
    ``per_draw``: the values the sampler stores per iteration: the fixed coefficients,
    each group term's standardised offsets and scaled coefficients, its SDs and the
    residual SD, constrained and unconstrained; every iteration (``draws * thin`` per
    chain) is stored, and the sampler's trace and the InferenceData made from it coexist
    (the factor 2) before thinning. ``loglik``: the pointwise log-likelihood of the kept
    draws, for PSIS-LOO, computed a block of draws at a time (its blocks and their
    concatenation, plus one block's working memory). 200 MiB: compiling the model and the
    sampler's working memory. Against the peak resident memory of fits of
    ``y ~ x + (1 + x | s) + (1 | i)`` (5000-40000 rows, 400-2800 levels) the estimate was
    within 20% (``benchmarks/bench_brm.py memory``).

    Returns ``design``, ``trace``, ``loglik`` and ``total`` (bytes) and the counts
    (``rows``, ``fixed_columns``, ``group_coefficients``, ``per_draw``).
    """
    parsed = parse_formula(formula)
    frame, _ = prepare_frame(parsed, data)
    return _estimate(parsed, frame, family, draws, chains, thin)


def _estimate(formula: Formula, frame: pd.DataFrame, family: str, draws: int,
              chains: int, thin: int) -> dict[str, float]:
    n = len(frame)
    p = _n_fixed_columns(formula, frame)
    design_cols, group_coefs, sds = p, 0, 0
    for term in {str(t): t for t in formula.random}.values():
        levels = len(frame.groupby(list(term.factors), observed=True).size())
        k = len(term.names)  # intercept and (numeric) slopes
        design_cols += levels + k
        group_coefs += levels * k
        sds += k
    per_draw = p + 2 * (group_coefs + sds + (family == "gaussian"))
    design = float(_BYTES * n * design_cols)
    trace = float(2 * _BYTES * chains * draws * thin * per_draw)
    loglik = float(2 * _BYTES * chains * draws * n + _CHUNK_WORK)
    return {"design": design, "trace": trace, "loglik": loglik,
            "total": design + trace + loglik + _OVERHEAD, "rows": n, "fixed_columns": p,
            "group_coefficients": group_coefs, "per_draw": per_draw}


def _n_fixed_columns(formula: Formula, frame: pd.DataFrame) -> int:
    """Columns of the fixed-effect design, from formulae on a few rows that hold every
    level of every categorical column (the columns depend on the levels, not on n)."""
    from formulae import design_matrices

    cols = [c for c in formula.columns() if c in frame and c != formula.response]
    keep = np.zeros(len(frame), dtype=bool)
    keep[:2] = True
    for c in cols:
        if not pd.api.types.is_numeric_dtype(frame[c]) or pd.api.types.is_bool_dtype(frame[c]):
            keep[~frame[c].duplicated().to_numpy()] = True
    dm = design_matrices(formula.fixed_formula, frame.loc[keep], na_action="drop")
    return int(np.asarray(dm.common.design_matrix).shape[1])


def available_memory() -> float:
    """Bytes of memory available to this process: psutil's ``available`` when installed,
    else ``MemAvailable`` from /proc/meminfo; lowered to the cgroup (container) limit
    left over when one is set. ``inf`` when neither can be read."""
    avail = math.inf
    try:
        import psutil

        avail = float(psutil.virtual_memory().available)
    except ImportError:
        try:
            with open("/proc/meminfo") as fh:
                for line in fh:
                    if line.startswith("MemAvailable:"):
                        avail = float(line.split()[1]) * 1024
        except OSError:
            pass
    try:
        with open("/sys/fs/cgroup/memory.max") as fh:
            limit = fh.read().strip()
        with open("/sys/fs/cgroup/memory.current") as fh:
            used = float(fh.read().strip())
        if limit != "max":
            avail = min(avail, float(limit) - used)
    except (OSError, ValueError):
        pass
    return avail


def _refuse_if_too_large(est: dict[str, float], draws: int, chains: int, thin: int) -> None:
    avail = available_memory()
    if est["total"] <= avail:
        return
    gib = 1024.0**3
    per_draw = (est["trace"] + est["loglik"]) / draws  # both proportional to draws
    fits = int((avail - est["design"]) / per_draw) if avail > est["design"] else 0
    fewer = (f"draws={fits} with chains={chains} would fit" if fits >= 100 else
             "the design matrices alone nearly fill it")
    raise ValueError(
        f"brm: this model needs about {est['total'] / gib:.1f} GiB of memory, but only "
        f"{avail / gib:.1f} GiB is available: design matrices {est['design'] / gib:.1f} GiB "
        f"({est['rows']} rows, {est['group_coefficients']} group-level coefficients), "
        f"sampler trace {est['trace'] / gib:.1f} GiB ({chains} chains x {draws * thin} "
        f"iterations x {est['per_draw']} values), pointwise log-likelihood "
        f"{est['loglik'] / gib:.1f} GiB. Reduce it with fewer draws, chains or thin "
        f"(memory grows with each; {fewer}), fewer rows or grouping levels, or fit the "
        "model by maximum likelihood with stats.lmer (no draws). The formula: "
        "acceptability.stats.mixed.brm.memory_estimate; check_memory=False skips this check."
    )


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
        return _arviz_label(var, dict(enumerate(levels)))
    for i, level in zip(cats, flat, strict=True):
        parts[i] += level
    return ":".join(parts)


def _arviz_label(var: str, sel: dict[Any, Any]) -> str:
    """The row label ``arviz.summary`` gives: ``var`` or ``var[a, b]``."""
    return f"{var}[{', '.join(str(v) for v in sel.values())}]" if sel else var


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
    def fit_seconds(self) -> float:
        """Wall-clock seconds of the fit: building the model, tuning, sampling and the
        pointwise log-likelihood (also ``settings["fit_seconds"]``)."""
        return float(self.settings.get("fit_seconds", float("nan")))

    @property
    def divergences(self) -> int:
        """Divergent transitions after warm-up, over all iterations (thinned-out ones too);
        any are a sign that the posterior's geometry defeats the sampler there (raise
        ``target_accept``)."""
        return int(self.settings.get("divergences", 0))

    @property
    def fixed_names(self) -> list[str]:
        """Names of the population-level (fixed) coefficients, one per column of the
        fixed-effect design: a categorical predictor gives one per contrast, named as lme4
        names them (``period2``, ``period3``, ``x:period2``)."""
        return list(self._fixed)

    @property
    def _fixed(self) -> dict[str, tuple[str, dict[str, Any]]]:
        """lme4-style name -> (posterior variable, coordinate selection)."""
        if "_fixed_cache" not in self.__dict__:
            comp = self.model.components[self.model.family.likelihood.parent]
            post = self.idata.posterior
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
            self.__dict__["_fixed_cache"] = out
        return self.__dict__["_fixed_cache"]

    def summary(self, var_names: list[str] | None = None, hdi_prob: float = 0.95) -> pd.DataFrame:
        """Posterior mean, SD, HDI, ESS and R-hat (``arviz.summary``); by default the
        fixed effects (one row per contrast, lme4 names), group-level SDs and the
        residual SD. ``attrs`` of the table hold ``fit_seconds`` (wall-clock time of the
        fit) and ``divergences``."""
        import arviz as az

        if var_names is None:
            post = self.idata.posterior
            var_names = list(dict.fromkeys(v for v, _ in self._fixed.values())) + [
                v for v in post.data_vars if v.endswith("_sigma") or v == "sigma"
            ]
        table = az.summary(self.idata, var_names=var_names, hdi_prob=hdi_prob)
        labels = {_arviz_label(v, sel): name for name, (v, sel) in self._fixed.items()}
        table = table.rename(index=labels)
        table.attrs["fit_seconds"] = self.fit_seconds
        table.attrs["divergences"] = self.divergences
        return table

    @property
    def fixef(self) -> pd.Series:
        """Posterior means of the fixed effects, one per design column (lme4 names)."""
        return pd.Series({n: float(self.draws(n).mean()) for n in self.fixed_names}, dtype=float)

    def draws(self, name: str) -> np.ndarray:
        """All posterior draws of one scalar parameter (a fixed effect by its lme4 name,
        e.g. ``period2``, or a posterior variable such as ``sigma``)."""
        post = self.idata.posterior
        if name in self._fixed:
            var, sel = self._fixed[name]
            return post[var].sel(sel).to_numpy().ravel()
        if name not in post:
            raise KeyError(f"no parameter {name!r}; the model has {self.fixed_names} and "
                           f"{list(post.data_vars)}")
        return post[name].to_numpy().ravel()

    def rhat(self) -> pd.Series:
        """Largest R-hat (rank-normalised split R-hat, ``arviz.rhat``; Vehtari et al. 2021)
        of each posterior variable, over all its elements (each group-level coefficient),
        unrounded."""
        import arviz as az

        r = az.rhat(self.idata)
        return pd.Series({v: float(r[v].max()) for v in r.data_vars}, dtype=float)

    def rhat_max(self) -> float:
        """Largest R-hat over every parameter of the model (see :meth:`rhat`); < 1.01 is
        the usual criterion of convergence."""
        return float(self.rhat().max())

    def ppc(self, seed: int = 0) -> pd.DataFrame:
        """Posterior predictive check: observed mean and SD of the response beside their
        posterior predictive distribution (Bayesian p-value = share of replicates above).
        Replicates are drawn a block of draws at a time and reduced to their mean and SD."""
        import arviz as az

        name = self.model.response_component.response.name
        y = self.frame[self.formula.response].to_numpy(dtype=float)
        means, sds = [], []
        for i, sl in enumerate(_draw_chunks(self.idata, len(y))):
            part = az.InferenceData(posterior=self.idata.posterior.isel(draw=sl))
            pred = self.model.predict(part, kind="response", inplace=False, random_seed=seed + i)
            yrep = pred.posterior_predictive[name].stack(s=("chain", "draw")).to_numpy()
            means.append(yrep.mean(axis=0))
            sds.append(yrep.std(axis=0))
        rows = []
        for stat, rep, obs in (("mean", np.concatenate(means), y.mean()),
                               ("sd", np.concatenate(sds), y.std())):
            rows.append({"statistic": stat, "observed": obs, "replicated_mean": rep.mean(),
                         "p_value": float(np.mean(rep >= obs))})
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
        var, sel = self._fixed[name]
        coef = self.idata.posterior[var].isel(chain=0, draw=0)
        # a categorical term is one vector of independent priors: its element for ``name``
        logp = pm.logp(model[var], np.full(coef.shape, float(ref_val)))
        if set(ancestors([logp])) & set(model.free_RVs):
            raise ValueError(f"the prior of {name!r} depends on other parameters; the "
                             "Savage–Dickey ratio needs a fixed prior for it")
        index = tuple(list(coef[d].values).index(sel[d]) for d in coef.dims)
        prior = float(np.exp(np.asarray(logp.eval())[index]))
        return {"BF10": prior / posterior, "BF01": posterior / prior}

    def loo(self):
        """PSIS-LOO (``arviz.loo``)."""
        import arviz as az

        return az.loo(self.idata)

    def __repr__(self) -> str:
        s = self.settings
        return (f"<BrmResult {self.formula.text!r} ({self.family}): n={len(self.frame)}, "
                f"{s.get('chains')} chains x {s.get('draws')} draws (thin {s.get('thin', 1)}), "
                f"{s.get('sampler')}, fit {self.fit_seconds:.1f} s, "
                f"{self.divergences} divergences>")


def loo_compare(**models: BrmResult) -> pd.DataFrame:
    """Rank models by PSIS-LOO expected log predictive density (``arviz.compare``)."""
    import arviz as az

    return az.compare({k: m.idata for k, m in models.items()}, ic="loo")
