"""Least-squares means (lmerTest's ``ls_means``) of a linear mixed model and estimated
marginal means (emmeans' ``emmeans`` and ``pairs``) of lmer, glmer, clm and clmm fits.

Both are functions of the coefficients over a reference grid (Searle, Speed & Milliken
1980, Am. Stat. 34(4); Lenth 2016, J. Stat. Softw. 69(1)): every combination of the levels
of the model's fixed factors, each numeric predictor at its mean over the fitted rows. The
mean of a level (or a combination of levels) of some factors is the equally weighted mean
of the grid's predictions at it, averaged over the other factors; a pairwise difference is a
difference of two such means. lmerTest's are tested as its ``contest1D`` tests one contrast
([contest_1d][acceptability.stats.mixed.fitted.ftests.contest_1d]); emmeans' scales, df and
covariances per model are in ``marginal``, the pairs' p-value adjustments in ``adjust``.
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.arguments import check_ci
from acceptability.stats.mixed import transforms
from acceptability.stats.mixed.fitted import marginal
from acceptability.stats.mixed.fitted.adjust import ADJUST
from acceptability.stats.mixed.fitted.ftests import check_lmm, contest_1d, ddf_method, fixed_terms

if TYPE_CHECKING:
    from acceptability.stats.mixed.results import MixedResult
    from acceptability.stats.mixed.transforms import FixedPart

__all__ = ["emmeans", "ls_means", "reference_grid"]

def _factor_levels(part: FixedPart, name: str) -> list[str] | None:
    """The fit's levels of a column the fixed part reads as a factor, itself or in
    ``factor(name)``/``as.factor(name)`` (emmeans' grid takes an integer column so)."""
    for key in (name, f"factor({name})", f"as.factor({name})"):
        if key in part.levels:
            return part.levels[key]
    return None


def reference_grid(model: MixedResult) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """The reference grid of ``model`` (emmeans' ``ref_grid``, lmerTest's ``get_min_data``):
    every combination of the levels of the fixed factors (data columns, also a numeric
    column read as ``factor(x)``, its levels as labels), the first varying fastest, and
    each numeric column the fixed part reads at its mean over the fitted rows
    (transformations apply to the mean, as in emmeans); also each factor's levels."""
    part = getattr(model.design, "fixed_part", None) or transforms.fixed_part(model.formula, model.frame)
    levels: dict[str, list[str]] = {}
    means: dict[str, float] = {}
    for name in model.formula.fixed_columns():
        col, fit_levels = model.frame[name], _factor_levels(part, name)
        if fit_levels is None and pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            means[name] = float(col.mean())
        else:  # the fit's levels, as predict() codes new rows
            levels[name] = fit_levels or sorted(col.astype(str).unique())
    names = list(levels)
    cells = [c[::-1] for c in itertools.product(*(levels[n] for n in names[::-1]))]
    grid = pd.DataFrame(cells or [()], columns=names)
    for name, value in means.items():
        grid[name] = value
    return grid, levels


def _grid_factors(variables: tuple[str, ...], levels: dict[str, list[str]]) -> list[str]:
    """The grid column of each factor variable: itself, or ``c`` for ``factor(c)`` of a
    column of labels."""
    out = []
    for v in variables:
        inner = re.fullmatch(r"(?:as\.)?factor\((\w[\w.]*)\)", v)
        col = v if v in levels else inner.group(1) if inner and inner.group(1) in levels else None
        if col is None:
            raise ValueError(f"least-squares means over {v!r}: only a factor column (or factor() of a "
                             "column of labels) can define the means; make it a column of labels")
        out.append(col)
    return out


def _cell_weights(grid: pd.DataFrame, factors: list[str],
                  levels: dict[str, list[str]]) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """Each combination of the levels of ``factors`` (the first varying fastest) as equal
    weights on the grid rows at it (emmeans averages over the other factors so)."""
    cells = [c[::-1] for c in itertools.product(*(levels[f] for f in factors[::-1]))]
    keys = list(zip(*(grid[f].astype(str) for f in factors), strict=True))
    rows = np.array([[k == c for k in keys] for c in cells], float)
    return rows / rows.sum(axis=1, keepdims=True), cells


def _cell_means(model: MixedResult, factors: list[str]) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """The contrast of each combination of the levels of ``factors`` (the first varying
    fastest): the mean of the grid's rows of X at it."""
    grid, levels = reference_grid(model)
    weights, cells = _cell_weights(grid, factors, levels)
    return weights @ marginal.basis(model, grid, "asymptotic").jac, cells


def _pairs(L: np.ndarray, labels: list[str]) -> tuple[np.ndarray, list[str]]:
    """Every difference of two rows, (1, 2), (1, 3), ..., (2, 3), ... (lmerTest's
    ``get_pairs``, emmeans' ``pairwise.emmc``)."""
    idx = list(itertools.combinations(range(len(labels)), 2))
    return (np.array([L[i] - L[j] for i, j in idx]).reshape(len(idx), L.shape[1]),
            [f"{labels[i]} - {labels[j]}" for i, j in idx])


def _tests(model: MixedResult, L: np.ndarray, ddf: str) -> pd.DataFrame:
    """Estimate, SE, df and t of each row of ``L``."""
    rows = [contest_1d(model, row, ddf) for row in L]
    est, se, df = (np.array([r[i] for r in rows], float) for i in range(3))
    return pd.DataFrame({"estimate": est, "SE": se, "df": df, "t": est / se})


def _check(model: MixedResult, level: float) -> None:
    check_lmm(model, "least-squares means")
    check_ci(level, "level")


def ls_means(model: MixedResult, which: str | list[str] | None = None, pairwise: bool = False,
             ddf: str = "Satterthwaite", level: float = 0.95) -> pd.DataFrame:
    """lmerTest's ``ls_means``: the least-squares mean of each level of each factor term
    (a term without numeric variables), or their pairwise differences.

    Parameters
    ----------
    model
        A linear mixed model (``lmer``).
    which
        Factor terms (R's labels, e.g. ``"Product"``, ``"Product:Information"``); default
        all of them.
    pairwise
        The differences of every two means of a term instead of the means.
    ddf
        ``"Satterthwaite"`` (default) or ``"Kenward-Roger"``.
    level
        Confidence level of ``lower`` and ``upper``.

    Returns
    -------
    pandas.DataFrame
        Rows named as lmerTest names them (``Product1``, ``Product1:Information2``,
        ``Product1 - Product2``); columns ``Estimate``, ``Std. Error``, ``df``, ``t value``,
        ``lower``, ``upper``, ``Pr(>|t|)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import lmer, ls_means
    >>> df = pd.DataFrame({"y": [0.4, 1.4, 2.3, 2.3, 1.9, 2.2, 4.1, 5.0, 4.3, 5.0, 5.0, 5.8],
    ...                    "a": list("pqr" * 4), "x": range(1, 13), "g": list("aaabbbcccddd")})
    >>> t = ls_means(lmer("y ~ a + x + (1 | g)", df), pairwise=True)
    >>> list(t.index), list(t.columns)
    (['ap - aq', 'ap - ar', 'aq - ar'], ['Estimate', 'Std. Error', 'df', 't value', 'lower', 'upper', 'Pr(>|t|)'])
    """
    _check(model, level)
    method = ddf_method(ddf)
    terms = fixed_terms(model)
    factor_terms = [t for t in terms.labels if all(v in terms.factors for v in terms.variables[t])]
    chosen = factor_terms if which is None else [which] if isinstance(which, str) else list(which)
    unknown = [t for t in chosen if t not in factor_terms]
    if unknown:
        raise ValueError(f"which={unknown}: ls_means takes the model's factor terms {factor_terms}")
    blocks, names = [], []
    _, levels = reference_grid(model)
    for t in chosen:
        L, cells = _cell_means(model, _grid_factors(terms.variables[t], levels))
        labels = [":".join(f"{v}{lev}" for v, lev in zip(terms.variables[t], c, strict=True)) for c in cells]
        if pairwise:
            L, labels = _pairs(L, labels)
        blocks.append(L)
        names += labels
    L = np.vstack(blocks) if blocks else np.zeros((0, model.design.p))
    tests = _tests(model, L, method)
    half = sps.t.ppf((1 + level) / 2, tests["df"]) * tests["SE"]
    out = pd.DataFrame({"Estimate": tests["estimate"], "Std. Error": tests["SE"], "df": tests["df"],
                        "t value": tests["t"], "lower": tests["estimate"] - half,
                        "upper": tests["estimate"] + half,
                        "Pr(>|t|)": 2 * sps.t.sf(np.abs(tests["t"]), tests["df"])})
    out.index = pd.Index(names, dtype=object)
    out.attrs.update(heading="Least Squares Means table", confidence_level=level, ddf=method)
    return out


def _specs(specs: str | list[str], by: str | list[str] | None,
           levels: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """The grid columns of emmeans' ``specs`` and ``by``: ``"~ A"``, ``"A:B"``, ``"A * B"``,
    ``"~ A | B"`` (B the by factors), a list; ``factor(x)`` names the column x."""
    def names(text: str | list[str]) -> list[str]:
        return ([s.strip() for s in re.split(r"[:*+]", text) if s.strip()]
                if isinstance(text, str) else list(text))

    if isinstance(specs, str) and "|" in specs:
        if by is not None:
            raise ValueError(f"specs={specs!r} has by factors after '|' and by={by!r} names more: use one")
        specs, by = specs.replace("~", "").split("|", 1)
    spec = names(specs.replace("~", "") if isinstance(specs, str) else specs)
    by_vars = [] if by is None else names(by)
    try:
        spec, by_vars = _grid_factors(tuple(spec), levels), _grid_factors(tuple(by_vars), levels)
    except ValueError:
        spec = []
    if not spec or set(spec) & set(by_vars) or len(set(spec)) < len(spec):
        raise ValueError(f"specs={specs!r}, by={by!r}: name fixed factors of the model, e.g. "
                         f"'{next(iter(levels), 'f')}', 'a:b' or '~ a | b' (its factors: {list(levels)})")
    return spec, by_vars


def emmeans(model: MixedResult, specs: str | list[str], lmer_df: str = "kenward-roger",
            level: float = 0.95, pairwise: bool = False, adjust: str = "tukey", *,
            by: str | list[str] | None = None, type: str = "link", mode: str = "latent") -> pd.DataFrame:
    """emmeans' ``emmeans(m, specs, by, lmer.df, type, mode)`` or, with ``pairwise=True``,
    its ``pairs(..., adjust)``: the estimated marginal means of the combinations of the
    factors in ``specs`` within each combination of the ``by`` factors, averaged with
    equal weights over the model's other factors
    (``stats.mixed.fitted.marginal`` has each model's scale).

    Parameters
    ----------
    model
        A fit of ``lmer``, ``glmer``, ``clm`` or ``clmm``.
    specs
        The factors: ``"Product"``, ``"~ Product"``, ``"A:B"``, ``"~ A | B"`` (B the by
        factors) or a list; ``"factor(x)"`` or ``"x"`` for a numeric column the formula
        reads as ``factor(x)``.
    lmer_df
        An lmer fit's df: ``"kenward-roger"`` (emmeans' default; the adjusted covariance),
        ``"satterthwaite"`` or ``"asymptotic"`` (df = Inf; other models' df). No row limit
        (emmeans turns to Satterthwaite's df above its ``pbkrtest.limit``, 3000 rows).
    level
        Confidence level of the means' intervals (``lower.CL``, ``upper.CL``;
        ``asymp.LCL``, ``asymp.UCL`` when df = Inf).
    pairwise
        Every pairwise difference (emmeans' ``pairs``) within each by group instead of the means.
    adjust
        The pairs' p-value adjustment within each by group: ``"tukey"`` (emmeans' default
        for pairs), ``"mvt"``, ``"sidak"``, ``"bonferroni"``, ``"holm"`` or ``"none"``
        (``stats.mixed.fitted.adjust``).
    by
        By factors (emmeans' ``by =``), the same as ``"~ specs | by"``.
    type
        A glmer fit's scale: ``"link"`` (default) or ``"response"`` (means back-transformed,
        delta-method SEs; pairs of a log or logit link as ratios or odds ratios).
    mode
        A clm or clmm fit's scale: ``"latent"`` (default) or ``"prob"`` (the probability of
        each response category, the response a factor of ``specs``/``by``).

    Returns
    -------
    pandas.DataFrame
        The means: a column per factor (specs, then by), ``emmean`` (``prob``, ``rate``,
        ``response``), ``SE``, ``df`` and the interval; the pairs: ``contrast``, the by
        factors, ``estimate`` (``odds.ratio``, ``ratio``), ``SE``, ``df``, (``null``),
        ``t.ratio`` (``z.ratio`` when df = Inf) and ``p.value``. ``attrs["notes"]`` holds
        emmeans' footnotes.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import emmeans, lmer
    >>> rows = {"y": [0.4, 1.4, 2.3, 2.3, 1.9, 2.2, 4.1, 5.0, 4.3, 5.0, 5.0, 5.8],
    ...         "a": list("pqr" * 4), "x": range(1, 13), "g": list("aaabbbcccddd")}
    >>> m = lmer("y ~ a + x + (1 | g)", pd.DataFrame(rows))
    >>> list(emmeans(m, "a")["a"]), list(emmeans(m, "a", pairwise=True)["contrast"])
    (['p', 'q', 'r'], ['p - q', 'p - r', 'q - r'])
    """
    check_ci(level, "level")
    kind = marginal.model_kind(model)
    method = marginal.df_method(kind, lmer_df)
    scale = marginal.response_scale(model, kind, type, mode)
    if adjust not in ADJUST:
        raise ValueError(f"adjust={adjust!r}: use one of {', '.join(ADJUST)} (emmeans' default for pairs: tukey)")
    grid, levels = reference_grid(model)
    if mode == "prob":
        grid, levels = marginal.with_response(model, grid, levels)
    spec, by_vars = _specs(specs, by, levels)
    b = marginal.basis(model, grid, method, mode)
    weights, cells = _cell_weights(grid, spec + by_vars, levels)
    others = ", ".join(f for f in levels if f not in spec + by_vars)
    notes = [f"Results are averaged over the levels of: {others}"] * bool(others) + [f"Degrees-of-freedom method: {b.method}"]
    if not pairwise:
        out = marginal.means_table(weights @ b.est, weights @ b.jac, b, level, scale)
        out = pd.concat([pd.DataFrame(cells, columns=spec + by_vars), out], axis=1)
        out.attrs["notes"] = [*notes, f"Confidence level used: {level}"]
        return out
    out = marginal.pairs_table(weights @ b.est, weights @ b.jac, b, (cells, spec, by_vars, levels), adjust, scale)
    out.attrs["notes"] = [*notes, marginal.adjust_note(adjust, len(cells) // len(set(c[len(spec):] for c in cells)))]
    return out
