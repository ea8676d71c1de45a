"""Least-squares means (lmerTest's ``ls_means``) and estimated marginal means (emmeans'
``emmeans`` and ``pairs``) of a linear mixed model, with Satterthwaite's or Kenward-Roger's
denominator df.

Both are linear functions of the fixed effects over a reference grid (Searle, Speed &
Milliken 1980, Am. Stat. 34(4); Lenth 2016, J. Stat. Softw. 69(1)): every combination of
the levels of the model's fixed factors, each numeric predictor at its mean over the fitted
rows. The mean of a level (or a combination of levels) of some factors is the equally
weighted mean of the grid's predictions at it, averaged over the other factors; a pairwise
difference is a difference of two such means. Each is tested as lmerTest's ``contest1D``
tests one contrast ([contest_1d][acceptability.stats.mixed.ftests.contest_1d]); emmeans'
pairwise p-values get its default Tukey adjustment: the studentized range distribution of
the family of k means at the contrast's df, P(Q_k > sqrt(2) |t|).
"""

from __future__ import annotations

import itertools
import re
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.arguments import check_ci
from acceptability.stats.mixed.ftests import (
    check_lmm,
    contest_1d,
    ddf_method,
    fixed_part,
    fixed_terms,
)

if TYPE_CHECKING:
    from acceptability.stats.mixed.results import MixedResult

__all__ = ["emmeans", "ls_means", "reference_grid"]

_ADJUST = ("tukey", "none")


def reference_grid(model: MixedResult) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """The reference grid of ``model`` (emmeans' ``ref_grid``, lmerTest's ``get_min_data``):
    every combination of the levels of the fixed factors (data columns), the first varying
    fastest, and each numeric column the fixed part reads at its mean over the fitted rows
    (transformations apply to the mean, as in emmeans); also each factor's levels."""
    part = fixed_part(model)
    levels: dict[str, list[str]] = {}
    means: dict[str, float] = {}
    for name in model.formula.fixed_columns():
        col = model.frame[name]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            means[name] = float(col.mean())
        else:  # the fit's levels, as predict() codes new rows
            levels[name] = part.levels.get(name) or sorted(col.astype(str).unique())
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


def _cell_means(model: MixedResult, factors: list[str]) -> tuple[np.ndarray, list[tuple[str, ...]]]:
    """The contrast of each combination of the levels of ``factors`` (the first varying
    fastest): the mean of the grid's rows of X at it."""
    grid, levels = reference_grid(model)
    ux = model._new_x(grid)
    cells = [c[::-1] for c in itertools.product(*(levels[f] for f in factors[::-1]))]
    keys = list(zip(*(grid[f] for f in factors), strict=True))
    rows = np.array([[k == c for k in keys] for c in cells], float)
    return (rows / rows.sum(axis=1, keepdims=True)) @ ux, cells


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


def _specs(specs: str | list[str], levels: dict[str, list[str]]) -> list[str]:
    names = ([s.strip() for s in re.split(r"[:*+]", specs.replace("~", "")) if s.strip()]
             if isinstance(specs, str) else list(specs))
    unknown = [n for n in names if n not in levels]
    if not names or unknown:
        raise ValueError(f"specs={specs!r}: name fixed factors of the model, e.g. '{next(iter(levels), 'f')}' "
                         f"or 'a:b' (its factors: {list(levels)})")
    return names


def _contrast_labels(cells: list[tuple[str, ...]], factors: list[str],
                     levels: dict[str, list[str]]) -> list[str]:
    """emmeans' labels of the cells in contrasts: a factor whose levels are all numbers gets
    its name in front of them, levels joined by a space, wrapped in parentheses when a
    label holds ``-``, ``+``, ``/`` or ``*``."""
    def numeric(levs: list[str]) -> bool:
        try:
            [float(v) for v in levs]
        except ValueError:
            return False
        return True

    enhance = {f: numeric(levels[f]) for f in factors}
    out = []
    for c in cells:
        label = " ".join(f"{f}{v}" if enhance[f] else v for f, v in zip(factors, c, strict=True))
        out.append(f"({label})" if re.search(r"[-+/*]", label) else label)
    return out


def emmeans(model: MixedResult, specs: str | list[str], lmer_df: str = "kenward-roger",
            level: float = 0.95, pairwise: bool = False, adjust: str = "tukey") -> pd.DataFrame:
    """emmeans' ``emmeans(m, ~ specs, lmer.df = ...)`` or, with ``pairwise=True``, its
    ``pairs(...)``: the estimated marginal means of the combinations of the factors in
    ``specs``, averaged with equal weights over the model's other factors.

    Parameters
    ----------
    model
        A linear mixed model (``lmer``).
    specs
        The factors: ``"Product"``, ``"~ Product"``, ``"Product:Information"`` or a list.
    lmer_df
        ``"kenward-roger"`` (emmeans' default; REML fits; SEs from the adjusted
        covariance, as emmeans) or ``"satterthwaite"``. emmeans turns to Satterthwaite's
        df above 3000 rows (its ``pbkrtest.limit``) and to none above its
        ``lmerTest.limit``; no limit here.
    level
        Confidence level of the means' ``lower.CL``, ``upper.CL``.
    pairwise
        Every pairwise difference (emmeans' ``pairs``) instead of the means.
    adjust
        The pairs' p-value adjustment: ``"tukey"`` (emmeans' default for pairs: the
        studentized range over the family of k means) or ``"none"``.

    Returns
    -------
    pandas.DataFrame
        The means: a column per factor, ``emmean``, ``SE``, ``df``, ``lower.CL``,
        ``upper.CL``; the pairs: ``contrast``, ``estimate``, ``SE``, ``df``, ``t.ratio``,
        ``p.value``. ``attrs["notes"]`` holds emmeans' footnotes.

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
    _check(model, level)
    method = ddf_method(lmer_df)
    if adjust not in _ADJUST:
        raise ValueError(f"adjust={adjust!r}: use 'tukey' (emmeans' default for pairs) or 'none'")
    _, levels = reference_grid(model)
    factors = _specs(specs, levels)
    L, cells = _cell_means(model, factors)
    others = [f for f in levels if f not in factors]
    notes = ([f"Results are averaged over the levels of: {', '.join(others)}"] if others else []) \
        + [f"Degrees-of-freedom method: {method.lower()}"]
    if not pairwise:
        tests = _tests(model, L, method)
        half = sps.t.ppf((1 + level) / 2, tests["df"]) * tests["SE"]
        out = pd.DataFrame(cells, columns=factors)
        out = out.assign(emmean=tests["estimate"], SE=tests["SE"], df=tests["df"],
                         **{"lower.CL": tests["estimate"] - half, "upper.CL": tests["estimate"] + half})
        out.attrs["notes"] = [*notes, f"Confidence level used: {level}"]
        return out
    L, labels = _pairs(L, _contrast_labels(cells, factors, levels))
    tests = _tests(model, L, method)
    k, q = len(cells), np.sqrt(2) * np.abs(tests["t"])
    p = (sps.studentized_range.sf(q, k, tests["df"]) if adjust == "tukey" and k > 2
         else 2 * sps.t.sf(np.abs(tests["t"]), tests["df"]))
    out = pd.DataFrame({"contrast": labels, "estimate": tests["estimate"], "SE": tests["SE"],
                        "df": tests["df"], "t.ratio": tests["t"], "p.value": p})
    out.attrs["notes"] = [*notes, f"P value adjustment: tukey method for comparing a family of {k} estimates"
                          if adjust == "tukey" else "P value adjustment: none"]
    return out
