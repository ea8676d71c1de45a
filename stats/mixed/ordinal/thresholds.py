"""The ordinal response and the threshold structures of a cumulative link model
(Christensen 2019, "Cumulative link models for ordinal regression with the R package
ordinal", section 3.2; ordinal's ``makeThresholds`` and ``start.threshold``).

The K - 1 thresholds are theta = J alpha for a fixed Jacobian J: ``flexible`` (J = I, one
parameter per threshold, named ``1|2``, ``2|3``, ...), ``equidistant`` (``threshold.1`` and a
common ``spacing``) and ``symmetric`` (thresholds mirrored about the centre: ``central`` or
``central.1``/``central.2``, then ``spacing.1``, ...) and ``symmetric2`` (thresholds mirrored
about 0: only the spacings ``spacing.1``, ..., the location left to the regression part;
ordinal's second symmetric parametrisation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

import numpy as np
import pandas as pd
from scipy import special

__all__ = ["THRESHOLDS", "Thresholds", "make_thresholds", "ordinal_response"]

THRESHOLDS = ("flexible", "equidistant", "symmetric", "symmetric2")


@dataclass(frozen=True)
class Thresholds:
    """A threshold structure: ``tjac`` (K - 1 x nalpha) maps the parameters to the
    thresholds; ``names`` are the parameters' names, as ordinal prints them."""

    kind: str
    levels: tuple[str, ...]
    tjac: np.ndarray
    names: tuple[str, ...]

    @property
    def theta_names(self) -> list[str]:
        """``1|2``, ``2|3``, ...: one per pair of adjacent categories."""
        return [f"{lo}|{hi}" for lo, hi in zip(self.levels[:-1], self.levels[1:], strict=True)]

    def start(self) -> np.ndarray:
        """ordinal's ``start.threshold``: logistic quantiles of 1/K, ..., (K-1)/K mapped to
        this structure's parameters."""
        k = len(self.levels) - 1
        st = special.logit(np.arange(1, k + 1) / (k + 1))
        if self.kind == "equidistant":
            return np.array([st[0], np.mean(np.diff(st))])
        if self.kind == "symmetric":
            centre = (k + 1) // 2 if k % 2 else (k + 2) // 2  # R's 1-based nalpha
            head = st[[centre - 1]] if k % 2 else st[[centre - 2, centre - 1]]
            return np.concatenate([head, np.diff(st[centre - 1:])])
        if self.kind == "symmetric2":  # the upper half: k // 2 values
            return st[k - k // 2:]
        return st


def make_thresholds(levels: tuple[str, ...], kind: str = "flexible") -> Thresholds:
    """The threshold structure ``kind`` for the response categories ``levels`` (ordinal's
    ``makeThresholds``); equidistant and symmetric thresholds need 3 or more categories.

    Examples
    --------
    >>> from acceptability.stats.mixed.ordinal.thresholds import make_thresholds
    >>> t = make_thresholds(("1", "2", "3", "4", "5"), "symmetric")
    >>> t.names, t.tjac.tolist()
    (('central.1', 'central.2', 'spacing.1'), [[1.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 1.0]])
    """
    if kind not in THRESHOLDS:
        raise ValueError(f"threshold={kind!r}: use one of {list(THRESHOLDS)}")
    k = len(levels) - 1
    if kind == "flexible":
        names = tuple(f"{lo}|{hi}" for lo, hi in zip(levels[:-1], levels[1:], strict=True))
        return Thresholds(kind, tuple(levels), np.eye(k), names)
    if k < 2:
        raise ValueError(
            f"threshold={kind!r} needs a response with 3 or more categories; it has {k + 1} "
            f"({list(levels)}): use threshold='flexible'")
    if kind == "equidistant":
        return Thresholds(kind, tuple(levels), np.column_stack([np.ones(k), np.arange(k)]),
                          ("threshold.1", "spacing"))
    half = k // 2
    if kind == "symmetric2":  # theta = (-s_m, ..., -s_1, [0,] s_1, ..., s_m), m = k // 2
        tjac = np.zeros((k, half))
        for s in range(half):
            tjac[half - 1 - s, s], tjac[k - half + s, s] = -1, 1
        return Thresholds(kind, tuple(levels), tjac, tuple(f"spacing.{s}" for s in range(1, half + 1)))
    if k % 2:  # an odd number of thresholds: the middle one is 'central'
        tjac = np.zeros((k, half + 1))
        tjac[:, 0] = 1
        for s in range(1, half + 1):
            tjac[half - s, s], tjac[half + s, s] = -1, 1
        names = ("central", *(f"spacing.{s}" for s in range(1, half + 1)))
    else:  # even: two central thresholds, spacings mirrored below the first and above the second
        tjac = np.zeros((k, half + 1))
        tjac[:half, 0], tjac[half:, 1] = 1, 1
        for s in range(1, half):
            tjac[half - 1 - s, s + 1], tjac[half + s, s + 1] = -1, 1
        names = ("central.1", "central.2", *(f"spacing.{s}" for s in range(1, half)))
    return Thresholds(kind, tuple(levels), tjac, names)


def _label(value: object) -> str:
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


def ordinal_response(column: pd.Series, name: str, n_dropped: int = 0) -> tuple[np.ndarray, tuple[str, ...]]:
    """Category codes 0..K-1 of an ordinal response and the category labels, in order.

    The response is an ordered pandas Categorical (its categories, in their order) or whole
    numbers (their sorted distinct values). A category with no rows is an error naming it:
    ordinal drops such a level silently, which turns thresholds ``2|3`` and ``3|4`` into one
    ``2|4`` and changes what the thresholds mean; a gap in whole-number ratings (no 3 on a
    1-5 scale) is treated the same way.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed.ordinal.thresholds import ordinal_response
    >>> codes, levels = ordinal_response(pd.Series([2, 1, 3, 2]), "rating")
    >>> codes.tolist(), levels
    ([1, 0, 2, 1], ('1', '2', '3'))
    """
    dropped = f" (after dropping {n_dropped} row(s) with missing values)" if n_dropped else ""
    if isinstance(column.dtype, pd.CategoricalDtype):
        if not column.cat.ordered:
            raise ValueError(
                f"response {name!r} is an unordered Categorical: make its order explicit, e.g. "
                f"data[{name!r}] = data[{name!r}].cat.as_ordered() (categories "
                f"{list(column.cat.categories)[:10]})")
        cats = list(column.cat.categories)
        codes = column.cat.codes.to_numpy().astype(np.int64)
        counts = np.bincount(codes[codes >= 0], minlength=len(cats))  # numpy: 10x value_counts
        empty = [c for c, k in zip(cats, counts, strict=True) if k == 0]
        if len(cats) - len(empty) == 1:
            _one_category(name, _label(cats[int(np.argmax(counts))]), len(column), dropped)
        if empty:
            raise ValueError(
                f"response {name!r}: categor{'y' if len(empty) == 1 else 'ies'} {empty} of "
                f"{cats} {'has' if len(empty) == 1 else 'have'} no rows{dropped}. Each threshold "
                "needs rows on both sides; ordinal::clm would drop the level silently and "
                "merge two thresholds. Drop it knowingly: "
                f"data[{name!r}] = data[{name!r}].cat.remove_unused_categories()")
        levels = tuple(_label(c) for c in cats)
    else:
        if pd.api.types.is_bool_dtype(column) or not pd.api.types.is_numeric_dtype(column):
            raise ValueError(
                f"response {name!r} is {column.dtype}: a cumulative link model needs an ordered "
                f"Categorical or whole-number ratings, e.g. data[{name!r}] = "
                f"pd.Categorical(data[{name!r}], categories=[...], ordered=True)")
        values = column.to_numpy(dtype=float)
        if not np.all(values == np.round(values)):
            raise ValueError(
                f"response {name!r} has values that are not whole numbers "
                f"({values[values != np.round(values)][:5].tolist()}): ratings must be "
                "categories; pass an ordered Categorical")
        uniq = np.unique(values)
        gaps = sorted(set(range(int(uniq[0]), int(uniq[-1]) + 1)) - set(uniq.astype(int).tolist()))
        if gaps:
            raise ValueError(
                f"response {name!r}: no row has the rating(s) {gaps} between {int(uniq[0])} and "
                f"{int(uniq[-1])}{dropped}. An empty category leaves its thresholds "
                "unidentified (ordinal::clm drops it silently and merges two thresholds). If "
                "the scale really lacks it, say so: data[col] = pd.Categorical(data[col], "
                f"categories={uniq.astype(int).tolist()}, ordered=True)")
        levels = tuple(_label(v) for v in uniq)
        codes = np.searchsorted(uniq, values).astype(np.int64)
    if len(levels) < 2:
        _one_category(name, levels[0], len(column), dropped)
    return codes, levels


def _one_category(name: str, level: str, n: int, dropped: str) -> NoReturn:
    raise ValueError(
        f"response {name!r} is {level!r} in all {n} rows used{dropped}: with one category "
        "there is no variation and nothing to estimate (no threshold between categories). "
        "Check the column and any filter that kept one rating; a cumulative link model needs "
        "ratings in at least two categories")
