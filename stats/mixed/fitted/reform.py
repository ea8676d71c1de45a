"""Which random effects a prediction or a simulation includes: lme4's ``re.form``
(``predict.merMod``, ``simulate.merMod``; Bates et al. 2015, J. Stat. Softw. 67(1)).

``None`` (R's ``NULL``) is every random term, ``"NA"`` or ``"~0"`` (R's ``NA``, ``~0``) none,
and a formula such as ``"~(1 | plate)"`` or ``"~(1 | Subject)"`` the terms it names: as
lme4's ``mkNewReTrms``, each of its terms is matched to the fit's terms of the same
grouping factor and takes those of their columns it names (``~(1 | Subject)`` on a fit with
``(Days | Subject)`` is the random intercepts alone). A grouping factor or a column the fit
does not have is an error, as in lme4.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from acceptability.stats.mixed.design import ReTerm, group_key
from acceptability.stats.mixed.formula import RandomTerm, parse_formula
from acceptability.stats.mixed.slopes import factor_columns, term_columns

__all__ = ["Selection", "effects_part", "mode_tables", "random_part", "select_terms", "term_rows"]

Selection = list[tuple[int, list[int]]]  # (index of a design term, its columns included)
_NONE = ("NA", "~0", "~ 0", "~-1", "~ -1")


def _is_none(re_form: object) -> bool:
    if isinstance(re_form, float) and math.isnan(re_form):
        return True
    return isinstance(re_form, str) and re_form.strip() in _NONE


def _named(t: ReTerm, rt: RandomTerm) -> list[int]:
    """Columns of ``t`` that ``rt`` names: the intercept, numeric slopes, and the columns
    that ``t`` built for a factor slope ``f`` (``fb``, ``fc``; ``f.L``, ``f.Q`` if ordered)."""
    factors = set().union(*(factor_columns(s, t.slope_levels[s]) for s in rt.slopes if s in t.slope_levels))
    return [j for j, name in enumerate(t.names)
            if (rt.intercept if name == "(Intercept)" else name in rt.slopes or name in factors)]


def select_terms(terms: list[ReTerm], re_form: object) -> Selection:
    """The design terms and columns that ``re_form`` includes (see the module's text)."""
    if re_form is None:
        return [(k, list(range(t.nc))) for k, t in enumerate(terms)]
    if _is_none(re_form):
        return []
    if not isinstance(re_form, str) or not re_form.strip().startswith("~"):
        raise ValueError(f"re_form={re_form!r}: use None (all random effects), 'NA' or '~0' "
                         "(none) or a formula of random terms such as '~(1 | g)'")
    try:
        wanted = parse_formula("y " + re_form.strip()).random
    except ValueError as err:
        raise ValueError(f"re_form={re_form!r}: {err}") from None
    if not wanted:
        raise ValueError(f"re_form={re_form!r} names no random term: write '~(1 | g)', or 'NA' for none")
    chosen: dict[int, set[int]] = {}
    for rt in wanted:
        same = [k for k, t in enumerate(terms) if t.group == rt.group]
        if not same:
            raise ValueError(f"re_form={re_form!r}: grouping factor {rt.group!r} is not in the model "
                             f"(its factors: {sorted({t.group for t in terms})})")
        cols = {k: _named(terms[k], rt) for k in same}
        pieces = ([RandomTerm(True, (), rt.factors)] if rt.intercept else []) + [
            RandomTerm(False, (s,), rt.factors) for s in rt.slopes]
        missing = [p.names[0] for p in pieces if not any(_named(terms[k], p) for k in same)]
        if missing:
            have = [n for k in same for n in terms[k].names]
            raise ValueError(f"re_form={re_form!r}: random effect(s) {missing} of {rt.group!r} "
                             f"are not in the model (it has {have})")
        for k, js in cols.items():
            chosen.setdefault(k, set()).update(js)
    return [(k, sorted(js)) for k, js in sorted(chosen.items()) if js]


def term_rows(t: ReTerm, data: pd.DataFrame, fit_rows: bool, levels: pd.Index,
              allow_new_levels: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's index in ``levels`` (-1 for a level not there, allowed only with
    ``allow_new_levels``) and the term's columns on the rows; the fit's own rows are coded
    by the design when ``levels`` starts with the fit's levels."""
    if fit_rows and len(levels) >= t.nlev and (levels[:t.nlev] == t.levels).all():
        return t.codes, t.cols
    keys = group_key(data, t.term.factors)
    codes = levels.get_indexer(keys)
    if (codes < 0).any() and not allow_new_levels:
        unseen = sorted(set(keys[codes < 0]))
        raise ValueError(f"new level(s) {unseen[:5]} of {t.group!r} in newdata: pass "
                         "allow_new_levels=True to predict them with random effect 0")
    return codes, t.cols if fit_rows else term_columns(t.term, data, t.slope_levels)[0]


def effects_part(b: np.ndarray, codes: np.ndarray, x: np.ndarray, cols: list[int]) -> np.ndarray:
    """sum over ``cols`` of b[row's level, col] x column value (0 for code -1)."""
    b = np.vstack([b[:, cols], np.zeros((1, len(cols)))])
    return np.einsum("ij,ij->i", b[codes], x[:, cols])


def random_part(terms: list[ReTerm], data: pd.DataFrame, fit_rows: bool, tables: list[pd.DataFrame],
                selection: Selection, allow_new_levels: bool) -> np.ndarray:
    """sum over the selected terms and columns of b[level, column] x column value, with
    ``tables[k]`` the effects of term ``k`` (rows: levels, columns: ``terms[k].names``).
    Rows of a level the table lacks raise unless ``allow_new_levels`` (then 0, as lme4)."""
    out = np.zeros(len(data))
    for k, cols in selection:
        codes, x = term_rows(terms[k], data, fit_rows, tables[k].index, allow_new_levels)
        out += effects_part(tables[k].to_numpy(), codes, x, cols)
    return out


def mode_tables(terms: list[ReTerm], b: np.ndarray) -> list[pd.DataFrame]:
    """The conditional modes ``b`` (level-major per term, as lme4's) as one table per term."""
    out, off = [], 0
    for t in terms:
        block = b[off:off + t.nlev * t.nc].reshape(t.nlev, t.nc)
        off += t.nlev * t.nc
        out.append(pd.DataFrame(block, index=pd.Index(t.levels, name=t.group), columns=list(t.names)))
    return out
