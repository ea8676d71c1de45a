"""The model columns of a random-effects term whose slopes may be factors, as lme4 builds
them: R's ``model.matrix`` of the term's left-hand side (lme4's ``mkReTrms`` calls
``model.matrix(~ expr, frame)``; Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw.
67(1), section 2.3), through glmm's ``model_matrix``, the parser of the fixed part.

``(0 + f | g)`` has one indicator column per level of ``f`` (``fa``, ``fb``, ...), ``(f | g)``
an intercept and the treatment contrasts of the levels after the first (``fb``, ...), and
in ``(0 + x + f | g)`` the first factor gets the full indicator coding, as in R. An ordered
factor's contrasts are R's default for it, ``contr.poly`` (``f.L``, ``f.Q``, ...); lme4's
``contrasts=`` applies to the fixed part only, and so does the ``contrasts=`` of a fit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.mixed.contrasts import contr_poly
from acceptability.stats.mixed.formula import RandomTerm

__all__ = ["OrderedLevels", "as_factor", "factor_columns", "factor_levels", "is_factor", "term_columns"]


class OrderedLevels(list):
    """The levels of an ordered factor (a pandas Categorical with ``ordered=True``): coded by
    ``contr.poly`` where a term codes it by contrasts, as R's default for ordered factors."""


def is_factor(col: pd.Series) -> bool:
    """Whether R treats the column as a factor: not numeric, or logical."""
    return not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)


def _labels(col: pd.Series) -> pd.Series:
    """Level labels as R prints them: strings, ``FALSE``/``TRUE`` for a logical column."""
    if pd.api.types.is_bool_dtype(col):
        return col.map({False: "FALSE", True: "TRUE"})
    return col.astype(str)


def factor_levels(col: pd.Series) -> list[str]:
    """The levels of a factor column in the rows given, in R's order: a categorical's
    categories (unused ones dropped, as lme4's model frame drops them), else sorted."""
    used = set(_labels(col).unique())
    if isinstance(col.dtype, pd.CategoricalDtype):
        return [c for c in map(str, col.cat.categories) if c in used]
    return sorted(used)


def as_factor(col: pd.Series, levels: list[str] | None = None) -> pd.Categorical:
    """The column as an R factor with ``levels`` (default: its own, :func:`factor_levels`);
    a value outside ``levels`` is an error naming it."""
    labels = _labels(col)
    levels = factor_levels(col) if levels is None else levels
    unknown = sorted(set(labels) - set(levels))
    if unknown:
        raise ValueError(f"level(s) {unknown[:5]} of {col.name!r} were not in the fitted data "
                         f"(levels {levels[:10]})")
    return pd.Categorical(labels, categories=levels)


def factor_columns(s: str, levels: list[str]) -> set[str]:
    """The names a term's columns of factor slope ``s`` can have: ``s`` followed by a level
    (indicators, treatment contrasts) or, for an ordered factor, by ``contr.poly``'s suffixes
    (``s.L``, ``s.Q``, ...)."""
    suffixes = list(levels) + (list(contr_poly(len(levels)).names) if isinstance(levels, OrderedLevels) else [])
    return {s + suffix for suffix in suffixes}


def term_columns(term: RandomTerm, frame: pd.DataFrame,
                 levels: dict[str, list[str]] | None = None) -> tuple[np.ndarray, tuple[str, ...], dict[str, list[str]]]:
    """The term's model columns on ``frame``, their names (lme4's, e.g. ``(Intercept)``,
    ``Product2``) and the levels of each factor slope.

    ``levels`` (those of a fit) codes new rows with the fit's levels; a value that is not
    among them is an error naming it.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import parse_formula
    >>> from acceptability.stats.mixed.slopes import term_columns
    >>> df = pd.DataFrame({"f": list("abca"), "x": [1.0, 2, 3, 4], "g": list("ppqq")})
    >>> term = parse_formula("y ~ 1 + (0 + x + f | g)").random[0]
    >>> cols, names, levels = term_columns(term, df)
    >>> names, levels, cols[1].tolist()
    (('x', 'fa', 'fb', 'fc'), {'f': ['a', 'b', 'c']}, [2.0, 0.0, 1.0, 0.0])
    """
    if not term.slopes:
        return np.ones((len(frame), 1)), term.names, {}
    import glmm

    data, found = {}, {}
    for s in term.slopes:
        col = frame[s]
        if not is_factor(col):
            data[s] = col.to_numpy(dtype=float)
            continue
        try:
            data[s] = as_factor(col, None if levels is None else levels[s])
        except ValueError as err:
            raise ValueError(f"random slope factor in {term}: {err}") from None
        ordered = isinstance(levels[s], OrderedLevels) if levels is not None else \
            isinstance(col.dtype, pd.CategoricalDtype) and col.dtype.ordered
        found[s] = (OrderedLevels if ordered else list)(data[s].categories)
    cols, names = glmm.model_matrix(pd.DataFrame(data, index=frame.index), f"~ {term.expr}")
    cols, names = np.asarray(cols, float), list(names)
    for s, lv in found.items():
        if isinstance(lv, OrderedLevels) and f"{s}{lv[0]}" not in names:  # by its contrasts
            cols, names = _poly_columns(cols, names, s, lv)
    return cols, tuple(names), found


def _poly_columns(cols: np.ndarray, names: list[str], s: str, levels: list[str]) -> tuple[np.ndarray, list[str]]:
    """Replace the treatment columns ``s<level>`` (levels after the first) by ``contr.poly``'s:
    the indicators of all k levels times R's k x (k - 1) matrix."""
    at = [names.index(f"{s}{lv}") for lv in levels[1:]]
    indicators = np.column_stack([1.0 - cols[:, at].sum(axis=1), cols[:, at]])
    c = contr_poly(len(levels))
    out = cols.copy()
    out[:, at] = indicators @ c.matrix
    for j, suffix in zip(at, c.names, strict=True):
        names[j] = f"{s}{suffix}"
    return out, names
