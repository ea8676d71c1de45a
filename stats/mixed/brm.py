"""Bayesian (generalised) linear mixed models with lme4 syntax, like R's ``brms::brm``.

The same stages as ``lmer``: a design (the formula parsed and checked against the data),
the bambi engine ([BambiEngine][acceptability.stats.mixed.engines.bambi_engine.BambiEngine]:
bambi on PyMC, Capretto et al. 2022, J. Stat. Softw. 103(15); nutpie's NUTS sampler when
installed) and a result sharing the mixed models' base. Diagnostics, LOO and posterior
densities come from arviz (Kumar et al. 2019); PSIS-LOO after Vehtari, Gelman & Gabry
(2017); the Savage–Dickey density ratio after Wagenmakers et al. (2010). Crossed random
effects are allowed. bambi, pymc and arviz are imported inside the functions so that
``import acceptability.stats`` is fast.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from acceptability.stats.arguments import (
    check_ci,
    check_count,
    check_number,
    check_probability,
    check_seed,
)
from acceptability.stats.mixed.checks import prepare_frame
from acceptability.stats.mixed.design import MixedDesign, mixed_design
from acceptability.stats.mixed.engines.bambi_engine import (
    FAMILIES,
    arviz_label,
    default_sampler,
    draw_chunks,
)
from acceptability.stats.mixed.formula import Formula, parse_formula
from acceptability.stats.mixed.glmm.families import family as glm_family
from acceptability.stats.mixed.results import MixedResult, Summary
from acceptability.stats.mixed.stages import fit

__all__ = ["BrmResult", "brm", "loo_compare", "memory_estimate"]


def _check_response(formula: Formula, frame: pd.DataFrame, family: str) -> None:
    if family not in FAMILIES:
        raise ValueError(f"family={family!r}: use one of {FAMILIES}")
    if formula.response not in frame:
        return  # an expression such as log(y): the formula engine checks it
    y = frame[formula.response]
    binary = glm_family(family).binary  # bernoulli: R's binomial with the logit link
    if binary and not (
        pd.api.types.is_bool_dtype(y) or set(pd.unique(y)) <= {0, 1}
    ):
        seen = sorted(pd.unique(y))[:5]
        raise ValueError(
            f"family='bernoulli' needs a 0/1 response, but {formula.response!r} has values "
            f"{seen}...; recode it to 0/1 or use family='gaussian'"
        )
    if not binary and not pd.api.types.is_numeric_dtype(y):
        raise ValueError(f"family='gaussian' needs a numeric response; {formula.response!r} is {y.dtype}")


def _design(formula: Formula, frame: pd.DataFrame, family: str, n_dropped: int) -> MixedDesign:
    """The design of a Bayesian fit: response and random-effects terms; bambi builds the
    fixed-effects matrix itself (formulae), so ``X`` has no columns here."""
    y = (frame[formula.response].to_numpy(dtype=float) if formula.response in frame
         else np.full(len(frame), np.nan))  # an expression such as log(y): bambi evaluates it
    return mixed_design(formula, frame, np.empty((len(frame), 0)), [], y, None, family, n_dropped)


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

    Before anything is built, `memory_estimate` is compared with the available
    memory and a model that would not fit is refused (``ValueError``) with the numbers
    and what to change; ``check_memory=False`` skips that check. The wall-clock time of
    building, sampling and the pointwise log-likelihood is ``result.fit_seconds``.

    Examples
    --------
    Sampling takes a while (a minute or more with the default settings), so
    this is not run as a test (tests/stats/mixed/test_brm.py fits these models):

    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> frame = stats.sentence_model_frame(ds, scores, model="bert-large-cased_mlm")
    >>> b = stats.brm("human ~ score + (1 | phenomenon)", frame, draws=300, tune=300,
    ...               chains=2)  # doctest: +SKIP
    >>> print(b.summary())  # doctest: +SKIP
    """
    draws, tune, chains, thin, seed, target_accept = _check_sampling(
        draws, tune, chains, thin, seed, target_accept)
    parsed = parse_formula(formula)
    _check_plain(parsed)
    frame, n_dropped = prepare_frame(parsed, data)
    _check_response(parsed, frame, family)
    sampler = sampler or default_sampler()
    if sampler not in ("nutpie", "pymc"):
        raise ValueError(f"sampler={sampler!r}: use 'nutpie' or 'pymc'")
    if check_memory:
        _refuse_if_too_large(_estimate(parsed, frame, family, draws, chains, thin), draws,
                             chains, thin)
    options = {"priors": priors, "draws": draws, "tune": tune, "chains": chains, "seed": seed,
               "sampler": sampler, "target_accept": target_accept, "thin": thin}
    design = _design(parsed, frame, family, n_dropped)
    return BrmResult(design, fit(design, engine="bambi", options=options))


def _check_sampling(draws: Any, tune: Any, chains: Any, thin: Any, seed: Any,
                    target_accept: Any) -> tuple[int, int, int, int, int, float]:
    """brm's sampling settings checked before any work (``stats.arguments``): counts of
    draws, chains and thin from 1 (tune from 0) to ``MAX_COUNT``, a whole-number seed,
    ``target_accept`` strictly between 0 and 1."""
    counts = (check_count(name, n, low) for name, n, low in (
        ("draws", draws, 1), ("tune", tune, 0), ("chains", chains, 1), ("thin", thin, 1)))
    return (*counts, check_seed(seed, whole=True),
            check_probability("target_accept", target_accept,
                              "0.9 (the default; nearer 1 after divergent transitions)"))


# the working memory of the pointwise log-likelihood's blocks (bambi_engine.draw_chunks)
_CHUNK_WORK = 400 * 2**20
_OVERHEAD = 200 * 2**20  # compiling the model, the sampler's working memory
_BYTES = 8  # float64 draws; formulae's design matrices are float64 / int64


def _check_plain(parsed: Formula) -> None:
    """bambi reads the formula with its own parser, which knows R's transforms in its own
    way or not at all (``log``, ``factor``, ``^``): brm takes plain columns only."""
    calls = re.findall(r"[A-Za-z_][\w.]*\s*\(", f"{parsed.fixed} {parsed.response}")
    if calls or parsed.offsets:
        what = sorted({c.rstrip("( ") + "()" for c in calls} | ({"offset()"} if parsed.offsets else set()))
        raise ValueError(f"brm fits plain columns; {parsed.text!r} uses {', '.join(what)}: create "
                         "the transformed variables as columns of the data first (lmer and "
                         "glmer take them in the formula)")


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
    _check_plain(parsed)
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
    per_draw = p + 2 * (group_coefs + sds + (family in FAMILIES and glm_family(family).scaled))
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


def _posterior_table(table: pd.DataFrame) -> pd.DataFrame:
    """arviz's summary columns under brms' names."""
    hdi = [c for c in table.columns if c.startswith("hdi_")]
    cols = {"mean": "Estimate", "sd": "Est.Error", hdi[0]: f"l-{hdi[0][4:]} HDI",
            hdi[1]: f"u-{hdi[1][4:]} HDI", "r_hat": "Rhat", "ess_bulk": "Bulk_ESS",
            "ess_tail": "Tail_ESS"}
    return table[list(cols)].rename(columns=cols)


def _brms_text(m: BrmResult, table: pd.DataFrame) -> str:
    """The fit printed in the layout of brms' ``summary.brmsfit``."""
    s = m.settings
    fam = glm_family(m.family)  # brms' links: mu's, and sigma's for a family with a scale
    link = f"mu = {fam.link.name}" + ("; sigma = identity" if fam.scaled else "")
    out = [f" Family: {m.family} ", f"  Links: {link} ", f"Formula: {m.formula.text} ",
           f"   Data: (Number of observations: {m.nobs}) ",
           f"  Draws: {s.get('chains')} chains, each with iter = {s.get('draws', 0) * s.get('thin', 1)}"
           f"; warmup = {s.get('tune')}; thin = {s.get('thin', 1)};",
           f"         total post-warmup draws = {s.get('chains', 0) * s.get('draws', 0)}",
           f"Engine: {m.engine}"]
    fmt = {c: (lambda v: f"{v:.0f}") if c.endswith("ESS") else (lambda v: f"{v:.2f}")
           for c in table.columns}
    blocks = (("Multilevel Hyperparameters:", table.index.str.endswith("_sigma")),
              ("Regression Coefficients:", table.index.isin(m.fixed_names)),
              ("Further Distributional Parameters:", table.index == "sigma"))
    for title, rows in blocks:
        if rows.any():
            out += ["", title, table[rows].to_string(formatters=fmt)]
    if m.divergences:
        out += ["", f"Warning: {m.divergences} divergent transitions after warmup"]
    return "\n".join(out)


@dataclass(repr=False)
class BrmResult(MixedResult):
    """A fitted [brm][acceptability.stats.mixed.brm.brm] model: the mixed models' base
    (``fixef``: posterior means, ``vcov``: posterior covariance), bambi's model, its
    InferenceData and the settings."""

    @property
    def family(self) -> str:
        return self.design.family

    @property
    def model(self) -> Any:
        """bambi's model."""
        return self.parameters.state["model"]

    @property
    def idata(self) -> Any:
        """The thinned posterior with its pointwise log-likelihood (arviz InferenceData)."""
        return self.parameters.state["idata"]

    @property
    def settings(self) -> dict[str, Any]:
        """The sampler's settings, the bambi formula, the fit time, versions."""
        return self.parameters.state["settings"]

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
        return self.parameters.state["fixed"]

    def _arviz_summary(self, var_names: list[str] | None, hdi_prob: float) -> pd.DataFrame:
        import arviz as az

        if var_names is None:
            post = self.idata.posterior
            var_names = list(dict.fromkeys(v for v, _ in self._fixed.values())) + [
                v for v in post.data_vars if v.endswith("_sigma") or v == "sigma"
            ]
        table = az.summary(self.idata, var_names=var_names, hdi_prob=hdi_prob)
        labels = {arviz_label(v, sel): name for name, (v, sel) in self._fixed.items()}
        table = table.rename(index=labels)
        table.attrs["fit_seconds"] = self.fit_seconds
        table.attrs["divergences"] = self.divergences
        return table

    def summary(self, var_names: list[str] | None = None, hdi_prob: float = 0.95) -> Summary:
        """The fit printed as brms prints it, with its tables: ``posterior`` (arviz's
        summary: posterior mean, SD, HDI, ESS and R-hat; by default the fixed effects, one
        row per contrast with lme4 names, group-level SDs and the residual SD; its
        ``attrs`` hold ``fit_seconds`` and ``divergences``), ``coefficients`` (its fixed
        effects) and ``random`` (its group-level SDs)."""
        check_ci(hdi_prob, "hdi_prob")
        table = self._arviz_summary(var_names, hdi_prob)
        brms = _posterior_table(table)
        tables = {"posterior": table, "coefficients": table[table.index.isin(self.fixed_names)],
                  "random": table[table.index.str.endswith("_sigma")]}
        return Summary(_brms_text(self, brms), tables)

    def confint(self, level: float = 0.95, method: str = "hdi") -> pd.DataFrame:
        """Credible intervals of the fixed effects: ``"hdi"`` (highest density, arviz),
        ``"eti"`` (equal-tailed quantiles, as brms) or ``"Wald"`` (normal, from ``vcov``)."""
        check_ci(level, "level")
        if method == "Wald":
            return self._wald(level)
        lo, hi = (1 - level) / 2, (1 + level) / 2
        cols = [f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"]
        if method == "eti":
            rows = [np.quantile(self.draws(n), [lo, hi]) for n in self.fixed_names]
        elif method == "hdi":
            import arviz as az

            rows = [az.hdi(self.draws(n), hdi_prob=level) for n in self.fixed_names]
        else:
            raise ValueError(f"confint method {method!r}: use 'hdi', 'eti' or 'Wald'")
        return pd.DataFrame(rows, index=self.fixed_names, columns=cols)

    def predict(self, newdata: pd.DataFrame | None = None, **kwargs: Any) -> pd.Series:
        """Posterior mean of the expected response (bambi ``predict``, ``response_params``)
        for the fitted rows or ``newdata``; ``kwargs`` go to bambi
        (``sample_new_groups=True`` for unseen levels)."""
        data = self.model.data if newdata is None else newdata
        pred = self.model.predict(self.idata, kind="response_params", data=newdata,
                                  inplace=False, **kwargs)
        name = self.model.family.likelihood.parent
        mu = pred.posterior[name].mean(dim=("chain", "draw")).to_numpy()
        return pd.Series(mu, index=data.index)

    def anova(self, *others: BrmResult, **kwargs: Any) -> pd.DataFrame:
        """PSIS-LOO comparison with ``others`` ([loo_compare][acceptability.stats.mixed.brm.loo_compare]),
        models named ``m0``, ``m1``, ..."""
        return loo_compare(**{f"m{i}": m for i, m in enumerate((self, *others))})

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

        seed = check_seed(seed, whole=True)
        name = self.model.response_component.response.name
        y = self.frame[self.formula.response].to_numpy(dtype=float)
        means, sds = [], []
        for i, sl in enumerate(draw_chunks(self.idata, len(y))):
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
        check_ci(hdi_prob, "hdi_prob")
        low, high = (check_number(f"bounds[{i}]", b) for i, b in enumerate(bounds))
        if low > high:
            raise ValueError(f"bounds={bounds!r}: the region's lower end is above its upper. "
                             f"Fix: bounds=({high!r}, {low!r})")
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
        check_number("ref_val", ref_val)
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
    """Rank models by PSIS-LOO expected log predictive density (``arviz.compare``).

    Examples
    --------
    Sampling takes a minute or more, so this is not run as a test:

    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> frame = stats.sentence_model_frame(ds, scores, model="bert-large-cased_mlm")
    >>> with_score = stats.brm("human ~ score + (1 | phenomenon)", frame)  # doctest: +SKIP
    >>> without = stats.brm("human ~ 1 + (1 | phenomenon)", frame)  # doctest: +SKIP
    >>> loo_compare(with_score=with_score, without=without)  # doctest: +SKIP
    """
    import arviz as az

    return az.compare({k: m.idata for k, m in models.items()}, ic="loo")
