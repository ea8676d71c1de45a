"""The glmm engine: the Rust optimiser package ``glmm`` (PyPI) behind the engine protocol.

Chosen by measurement (``benchmarks/bench_lmm_engines.py``): its optima equal lme4's to
1e-4 at a fraction of lme4's time. The design is translated to glmm's formula and columns
here (a transformed fixed part, ``scale(x)``, ``poly(x, 2)``, as one column per column of X,
the design's formula and rows staying the user's); glmm refuses a term without intercept, a
grouping factor in several terms and a random slope that is not also a fixed term. A
linear model's estimates are then lme4's formulas at glmm's optimum (the PLS solution there,
[lmm_parameters][acceptability.stats.mixed.engines.pls_engine.lmm_parameters]); a GLMM's estimates,
standard errors and Laplace / adaptive Gauss-Hermite likelihood are glmm's, with prior
weights and an offset. glmm refuses the families and links it lacks and a ``cbind()``
response with prior weights: the Laplace engine
([LaplaceEngine][acceptability.stats.mixed.engines.laplace_engine.LaplaceEngine]) fits those,
and [choose_engine][acceptability.stats.mixed.engines.registry.choose_engine] names it.
"""

from __future__ import annotations

import warnings
from importlib.metadata import version
from typing import Any

import numpy as np
import pandas as pd

from acceptability.stats.mixed.design import MixedDesign, group_key
from acceptability.stats.mixed.engines.pls_engine import lmm_parameters
from acceptability.stats.mixed.engines.protocol import EngineRefused, FitSettings, FittedParameters
from acceptability.stats.mixed.formula import Formula
from acceptability.stats.mixed.slopes import as_factor, is_factor
from acceptability.stats.mixed.transforms import FixedPart, _safe_name, fixed_part

__all__ = ["FAMILIES", "GlmmEngine", "engine_version"]

# R's (family, link) -> glmm's: glmm fits these GLMMs (and gaussian-identity LMMs); it has
# no inverse Gaussian GLMM and no sqrt / identity / log-binomial links
FAMILIES = {("gaussian", "identity"): ("gaussian", "identity"),
            ("binomial", "logit"): ("binomial", "logit"), ("binomial", "probit"): ("binomial", "probit"),
            ("binomial", "cloglog"): ("binomial", "cloglog"), ("poisson", "log"): ("poisson", "log"),
            ("Gamma", "log"): ("gamma", "log"), ("Gamma", "inverse"): ("gamma", "inverse"),
            ("negative.binomial", "log"): ("negativebinomial", "log")}


def engine_version() -> str:
    """``"glmm <version>"``, as the fits' ``engine`` names it."""
    return f"glmm {version('glmm')}"


def _glmm_groups(formula: Formula) -> dict[str, str]:
    """glmm's name of each grouping factor: an interaction ``g:h`` becomes a column of its
    own (glmm accepts slopes only on a plain column)."""
    groups = dict.fromkeys(t.group for t in formula.random)
    return {g: (g if ":" not in g else f"_grp{i}_") for i, g in enumerate(groups)}


def _part(d: MixedDesign) -> FixedPart:
    return d.fixed_part or fixed_part(d.formula, d.frame)


def _own_columns(d: MixedDesign) -> dict[int, str]:
    """The columns of ``X`` that are a plain numeric variable of the rows, by index."""
    return {j: name for j, name in enumerate(d.xnames)
            if name in d.frame.columns and not is_factor(d.frame[name])
            and np.array_equal(d.frame[name].to_numpy(dtype=float), d.X[:, j])}


def _fixed_labels(d: MixedDesign) -> set[str]:
    """The fixed terms glmm sees (those a random slope must be one of): R's term labels;
    with transformed variables, the plain numeric variables of :func:`_fixed_view`."""
    part = _part(d)
    return set(_own_columns(d).values()) if part.transformed else set(part.labels)


def _fixed_view(d: MixedDesign) -> tuple[str, pd.DataFrame]:
    """The fixed part as glmm reads it, and the rows with the columns it reads: the formula's
    own without transformed variables; otherwise (glmm cannot parse ``scale(x)``,
    ``poly(x, 2)``, ...) each column of ``X`` is a numeric column of its own (a plain numeric
    variable under its own name, so that a random slope on it is one of glmm's fixed terms),
    so that glmm's coefficients are ``X``'s, in order. The design's formula and rows stay
    the user's."""
    if not _part(d).transformed:
        return d.formula.fixed, d.frame
    own = _own_columns(d)
    out, cols = d.frame.copy(), []
    for j, name in enumerate(d.xnames):
        if name == "(Intercept)":
            continue
        if j not in own:
            name = _safe_name(f"_X{j}_", out.columns)
            out[name] = d.X[:, j]
        cols.append(name)
    return " + ".join(["1" if "(Intercept)" in d.xnames else "0", *cols]), out


def _glmm_formula(formula: Formula, fixed: str, response: str) -> str:
    """The formula as glmm writes it, with the fixed part ``fixed`` of :func:`_fixed_view`
    (the caller has checked that glmm takes it)."""
    names = _glmm_groups(formula)
    terms = [f"({t.expr} | {names[t.group]})" for t in formula.random]
    return " + ".join([f"{response} ~ {fixed}", *terms])


def _glmm_data(frame: pd.DataFrame, formula: Formula, extra: dict[str, np.ndarray]) -> pd.DataFrame:
    """Columns as glmm reads them: grouping factors as strings (R's factor()), slope
    factors with the design's levels."""
    out = frame.copy()
    for term in formula.random:
        for f in term.factors:
            if not isinstance(out[f].dtype, pd.CategoricalDtype):
                out[f] = out[f].astype(str)
        for s in term.slopes:
            if is_factor(frame[s]):
                out[s] = as_factor(frame[s])
    for group, name in _glmm_groups(formula).items():
        if name != group:
            out[name] = group_key(frame, tuple(group.split(":")))
    for k, v in extra.items():
        out[k] = v
    return out


def _theta(d: MixedDesign, g: Any, sigma: float) -> np.ndarray:
    """lme4's theta from glmm's covariance matrices (NaN where glmm reports none)."""
    if len(g.varcorr) != len(g.re_groups):  # glmm reports no covariances when it failed
        return np.full(d.ntheta, np.nan)
    ours = {v: k for k, v in _glmm_groups(d.formula).items()}
    by_group = {}
    for (name, terms), packed in zip(g.re_groups, g.varcorr, strict=True):
        k = len(terms)
        cov = np.zeros((k, k))
        rows, cols = np.tril_indices(k)
        order = np.lexsort((rows, cols))  # glmm packs column-major lower triangles
        cov[rows[order], cols[order]] = packed
        by_group[ours.get(name, name)] = cov + np.tril(cov, -1).T
    return d.theta_from_covariances([by_group[t.group] for t in d.terms], sigma)


def _b(d: MixedDesign, g: Any) -> np.ndarray:
    """glmm's conditional modes in the design's order (term by term, level-major); NaN
    where glmm reports none (a failed fit)."""
    ours = {v: k for k, v in _glmm_groups(d.formula).items()}
    blocks = {ours.get(b["group"], b["group"]): b for b in g.ranef_blocks}
    if any(t.group not in blocks for t in d.terms):
        return np.full(d.q, np.nan)
    out = []
    for t in d.terms:
        blk = blocks[t.group]
        frame = pd.DataFrame(np.asarray(blk["values"], float), index=list(blk["levels"]),
                             columns=list(blk["terms"]))
        out.append(frame.loc[list(t.levels), list(t.names)].to_numpy().ravel())
    return np.concatenate(out)


def _standardised(d: MixedDesign) -> np.ndarray:
    """A linear model's response less its offset and least-squares fit on X
    (``MixedDesign.centred``), in units of its root mean square: the same theta as y's
    wherever y sits and whatever its unit (glmm's optimum drifted with y's location: on
    LI-Adger's sentence model at y + 1e6 it gave a theta with no positive definite PLS
    solution; issue 43, item 7)."""
    c, _ = d.centred_response
    rms = float(np.sqrt(np.mean(c * c)))
    return c / rms if rms > 0 else c


def _key(d: MixedDesign) -> tuple[str, str]:
    return d.family, d.glm_family.link.name


def _scaled(d: MixedDesign) -> bool:
    """Whether a GLMM's family has a scale: lme4's sigma is sqrt(phi), theta relative to it."""
    return d.glm_family.scaled and not d.glm_family.linear


class GlmmEngine:
    """glmm's optimiser: linear (``gaussian``) models and the GLMMs of ``FAMILIES``, with
    prior weights or binomial trials and an offset, for the random-effects structures glmm
    takes; not lme4's fast fit (nAGQ = 0), which glmm has not."""

    name = "glmm"

    def refusal(self, design: MixedDesign, settings: FitSettings | None = None) -> str | None:
        """Why glmm cannot fit ``design`` with ``settings`` (a family or link it lacks,
        trials with prior weights, its random effects, a GLMM's nAGQ = 0), or None."""
        if settings is not None and settings.nAGQ == 0 and not design.glm_family.linear:
            return "nAGQ=0 (lme4's fast fit: the fixed effects inside PIRLS) is not glmm's"
        if _key(design) not in FAMILIES:
            return (f"glmm has no {design.family} model with the {design.glm_family.link.name!r} link "
                    f"(it fits {', '.join(f'{f}({k})' for f, k in FAMILIES)})")
        if design.trials is not None and design.weights is not None:
            return ("a cbind() response with prior weights: glmm takes trials or weights, not "
                    "both (lme4 multiplies them)")
        return self.structure_refusal(design)

    def structure_refusal(self, design: MixedDesign) -> str | None:
        """Why glmm cannot fit ``design``'s random effects, or None."""
        formula = design.formula
        groups = [t.group for t in formula.random]
        if len(set(groups)) < len(groups):
            return "a grouping factor in more than one term"
        if not all(t.intercept for t in formula.random):
            return "a random-effects term without intercept"
        fixed = _fixed_labels(design)
        missing = list(dict.fromkeys(s for t in formula.random for s in t.slopes if s not in fixed))
        if missing:
            seen = ("each column of X as a variable of its own (transformed fixed effects), "
                    "a plain numeric variable under its name" if _part(design).transformed
                    else "the terms of the fixed part")
            return (f"random slope(s) {missing} not also a fixed-effect term (glmm reads {seen}: "
                    f"{sorted(fixed)})")
        return None

    def _run(self, d: MixedDesign, settings: FitSettings) -> tuple[Any, list[str]]:
        """glmm's fit of the design's rows and the warnings it gave (singular fits aside)."""
        import glmm

        if (why := self.refusal(d, settings)) is not None:
            raise EngineRefused(f"glmm refuses {d.formula.text!r}: {why}")
        binomial = d.trials is not None
        extra = {"_s_": d.y * d.trials, "_f_": (1 - d.y) * d.trials} if binomial else {"_y_": d.y}
        offset = d.offset
        if d.glm_family.linear:  # theta is that of (y - offset - X gamma) / s
            extra, offset = {"_y_": _standardised(d)}, None
        fixed, frame = _fixed_view(d)
        text = _glmm_formula(d.formula, fixed, "cbind(_s_, _f_)" if binomial else "_y_")
        family, link = FAMILIES[_key(d)]
        # an LMM's SEs are computed from the PLS solution, so glmm's Hessian would be wasted
        kwargs = ({"reml": settings.REML, "wald_se": "rx"} if d.glm_family.linear
                  else {"nagq": settings.nAGQ})
        warm = settings.start
        if warm and "theta" in warm:  # glmm takes theta in formula order, ours is lme4's
            scale = np.sqrt(warm.get("dispersion", 1.0)) if _scaled(d) else 1.0
            pieces = dict(zip((t.term for t in d.terms), d.split_theta(warm["theta"]), strict=True))
            warm = warm | {"theta": [float(v) * scale for t in d.formula.random for v in pieces[t]]}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            g = glmm.fit(_glmm_data(frame, d.formula, extra), text, family, link=link,
                         weights=d.weights, offset=offset, satterthwaite=False,
                         warm_start=warm, **kwargs)
        notes = [str(w.message) for w in caught if not issubclass(w.category, glmm.SingularFitWarning)]
        return g, notes

    def fit(self, design: MixedDesign, settings: FitSettings) -> FittedParameters:
        """Optimise with glmm; a linear model's estimates from the PLS solution at its theta."""
        g, notes = self._run(design, settings)
        if design.glm_family.linear:
            theta = _theta(design, g, float(np.sqrt(g.dispersion)))
            return lmm_parameters(design, theta, settings.REML, engine_version(),
                                  bool(g.converged), notes)
        # glmm's covariances are of b itself; lme4's theta is relative to sigma = sqrt(phi)
        sigma = float(np.sqrt(g.dispersion)) if _scaled(design) else 1.0
        vcov = np.asarray(g.vcov, float)
        ok = bool(np.all(np.isfinite(vcov))) and np.linalg.eigvalsh((vcov + vcov.T) / 2).min() > 0
        if not ok:  # no standard errors without saying so (issue 44, item 2)
            notes = [*notes, "Hessian is numerically singular: the fixed effects' covariance "
                             "(glmm's inverse Hessian) is not positive definite"]
        return FittedParameters(
            engine=engine_version(), theta=_theta(design, g, sigma),
            beta=np.asarray(g.beta, float), vcov=vcov,
            b=_b(design, g), sigma=sigma, loglik=float(g.loglik), converged=bool(g.converged) and ok,
            notes=notes, state=g, dispersion=float(g.dispersion))
