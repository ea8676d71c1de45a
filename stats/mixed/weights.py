"""Prior weights and offsets of a mixed model: lme4's ``weights =`` and ``offset =``.

Each is an array with one value per row of the data or the name of a column, as R's
``model.frame`` takes them (Chambers & Hastie 1992, Statistical Models in S, ch. 3): they
travel with the rows as the columns ``(weights)`` and ``(offset)``, so a row with a missing
weight or offset is dropped and counted with the rows missing a variable (lme4's
``na.action = na.omit``). A weight must be positive and finite (lme4 refuses a negative one;
a weight of 0 gives lmer a log-likelihood of -Inf), an offset finite. ``offset(...)`` terms of
the formula are summed with the argument, as R's ``model.offset`` sums them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.mixed.formula import Formula
from acceptability.stats.mixed.transforms import formula_offset

__all__ = ["OFFSET", "WEIGHTS", "pop_row_values", "total_offset", "with_row_values"]

WEIGHTS, OFFSET = "(weights)", "(offset)"  # R's model.frame names them so


def _row_values(value: object, data: pd.DataFrame, what: str) -> np.ndarray:
    """``value`` (a column name or one number per row) as floats, checked."""
    if isinstance(value, str):
        if value not in data.columns:
            raise KeyError(f"{what}={value!r} is not a column of the data; pass a column name "
                           "or an array with one value per row")
        values, where = data[value], f"column {value!r}"
    else:
        values, where = value, f"{what}="
    arr = np.asarray(values)
    if arr.ndim != 1 or len(arr) != len(data):
        raise ValueError(f"{what}: {where} has {arr.shape[0] if arr.ndim else 'no'} value(s) "
                         f"for {len(data)} rows of data; give one value per row (in the data's "
                         "order), or a column name")
    if arr.dtype.kind in "iuf":
        out = arr.astype(float)
    else:
        kind = pd.api.types.infer_dtype(arr, skipna=True)
        if kind not in ("integer", "floating", "mixed-integer-float", "decimal", "empty"):
            raise ValueError(f"{what}: {where} holds {kind} values; give numbers")
        out = pd.Series(arr).astype(float).to_numpy()  # None and pd.NA become NaN
    known = ~np.isnan(out)
    bad = known & ~np.isfinite(out)
    if what == "weights":
        bad |= known & (out <= 0)
    if bad.any():
        rows = list(data.index[bad][:5])
        rule = ("positive and finite (a row of weight 0 adds nothing: drop it)" if what == "weights"
                else "finite")
        raise ValueError(f"{what}: {where} has {int(bad.sum())} value(s) that are not {rule}, "
                         f"e.g. {list(out[bad][:5])} in rows {rows}; fix or drop those rows "
                         "(a missing value drops its row)")
    return out


def with_row_values(data: pd.DataFrame, weights: object = None,
                    offset: object = None) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """``data`` with the columns ``(weights)`` and ``(offset)`` for the arguments given, and
    the names added; the frame's checks then drop rows where they are missing.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed.weights import with_row_values
    >>> df = pd.DataFrame({"y": [1.0, 2.0, 3.0], "n": [4, 2, 1]})
    >>> out, added = with_row_values(df, weights="n", offset=[0.5, 0.0, None])
    >>> added, out["(offset)"].tolist()
    (('(weights)', '(offset)'), [0.5, 0.0, nan])
    """
    added = {}
    if weights is not None:
        added[WEIGHTS] = _row_values(weights, data, "weights")
    if offset is not None:
        added[OFFSET] = _row_values(offset, data, "offset")
    return (data.assign(**added) if added else data), tuple(added)


def pop_row_values(frame: pd.DataFrame) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Take the ``(weights)`` and ``(offset)`` columns out of a model frame (in place)."""
    w = frame.pop(WEIGHTS).to_numpy(float) if WEIGHTS in frame.columns else None
    off = frame.pop(OFFSET).to_numpy(float) if OFFSET in frame.columns else None
    return w, off


def total_offset(formula: Formula, frame: pd.DataFrame, offset: np.ndarray | None) -> np.ndarray | None:
    """The argument's offset plus the formula's ``offset(...)`` terms (R's ``model.offset``);
    None when there is neither."""
    in_formula = formula_offset(formula, frame)
    if in_formula is None:
        return offset
    in_formula = np.asarray(in_formula, float)
    return in_formula if offset is None else in_formula + offset
