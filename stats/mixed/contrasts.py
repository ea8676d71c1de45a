"""Contrast matrices of factors, as R's ``contr.treatment``, ``contr.sum``, ``contr.helmert``
and ``contr.poly`` build them, and the coding a fit keeps for each factor (R's
``attr(model.matrix(...), "contrasts")``).

A factor with k levels enters a term of the model matrix through a k x m matrix C: its
columns are ``C[level of the row, j]`` (Chambers & Hastie 1992, *Statistical Models in S*,
section 2.3.2; R's ``model.matrix``). R's defaults (``options("contrasts")``) are
``contr.treatment`` for factors and ``contr.poly`` for ordered factors (a pandas Categorical
with ``ordered=True``); ``contrasts={"A": "sum"}`` on a fit chooses another. Column names
follow R: the factor's name followed by the level (treatment), ``1, 2, ...`` (sum, Helmert, a
matrix without column names), ``.L, .Q, .C, ^4, ...`` (poly) or a matrix's column names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Contrast", "check_contrasts", "contrast", "contr_helmert", "contr_poly",
           "contr_sum", "contr_treatment", "default_contrast"]

_KINDS = ("treatment", "sum", "helmert", "poly")


@dataclass(frozen=True)
class Contrast:
    """The coding of one factor: R's name of it (``contr.sum``; ``matrix`` for a matrix
    given), the k x m matrix and the suffix of each of its columns' names."""

    kind: str
    matrix: np.ndarray
    names: tuple[str, ...]

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Contrast) and self.kind == other.kind
                and self.names == other.names and np.array_equal(self.matrix, other.matrix))

    __hash__ = None  # type: ignore[assignment]


def contr_treatment(levels: list[str]) -> Contrast:
    """R's ``contr.treatment``: an indicator of each level after the first.

    Examples
    --------
    >>> from acceptability.stats.mixed.contrasts import contr_treatment
    >>> c = contr_treatment(["a", "b", "c"])
    >>> c.matrix.tolist(), c.names
    ([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], ('b', 'c'))
    """
    return Contrast("contr.treatment", np.eye(len(levels))[:, 1:], tuple(levels[1:]))


def contr_sum(k: int) -> Contrast:
    """R's ``contr.sum``: level j against the last (-1 in every column of the last row).

    Examples
    --------
    >>> from acceptability.stats.mixed.contrasts import contr_sum
    >>> contr_sum(3).matrix.tolist()
    [[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]
    """
    return Contrast("contr.sum", np.vstack([np.eye(k - 1), -np.ones((1, k - 1))]),
                    tuple(str(j) for j in range(1, k)))


def contr_helmert(k: int) -> Contrast:
    """R's ``contr.helmert``: column j contrasts level j + 1 with the mean of those before.

    Examples
    --------
    >>> from acceptability.stats.mixed.contrasts import contr_helmert
    >>> contr_helmert(3).matrix.tolist()
    [[-1.0, -1.0], [1.0, -1.0], [0.0, 2.0]]
    """
    m = np.zeros((k, k - 1))
    for j in range(k - 1):
        m[: j + 1, j] = -1.0
        m[j + 1, j] = j + 1.0
    return Contrast("contr.helmert", m, tuple(str(j) for j in range(1, k)))


def contr_poly(k: int) -> Contrast:
    """R's ``contr.poly`` at scores 1..k: the orthonormal polynomials of degree 1..k-1 (R's
    ``make.poly``: QR of the centred Vandermonde matrix, each column's sign that of a
    positive leading coefficient), named ``.L``, ``.Q``, ``.C``, ``^4``, ...

    Examples
    --------
    >>> from acceptability.stats.mixed.contrasts import contr_poly
    >>> c = contr_poly(4)
    >>> c.names, c.matrix[:, 0].round(4).tolist()
    (('.L', '.Q', '.C'), [-0.6708, -0.2236, 0.2236, 0.6708])
    """
    x = np.arange(1.0, k + 1) - (k + 1) / 2
    q, r = np.linalg.qr(np.vander(x, k, increasing=True))
    z = q * np.sign(np.diag(r))
    names = [".L", ".Q", ".C", *(f"^{d}" for d in range(4, k))][: k - 1]
    return Contrast("contr.poly", z[:, 1:], tuple(names))


def default_contrast(levels: list[str], ordered: bool) -> Contrast:
    """R's default coding (``options(contrasts = c("contr.treatment", "contr.poly"))``)."""
    return contr_poly(len(levels)) if ordered else contr_treatment(levels)


def contrast(spec: object, levels: list[str], name: str) -> Contrast:
    """The coding ``spec`` of factor ``name`` with ``levels``: ``"treatment"``, ``"sum"``,
    ``"helmert"``, ``"poly"`` (or R's ``"contr.sum"``, ...), or a matrix with one row per
    level (a DataFrame's columns name its columns; otherwise they are ``1, 2, ...`` as in R).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.mixed.contrasts import contrast
    >>> contrast(np.array([[-1.0], [0.0], [1.0]]), ["lo", "mid", "hi"], "dose").names
    ('1',)
    >>> contrast("contr.helmert", ["a", "b"], "f").matrix.tolist()
    [[-1.0], [1.0]]
    """
    k = len(levels)
    if isinstance(spec, str):
        kind = spec.removeprefix("contr.")
        if kind not in _KINDS:
            raise ValueError(f"contrasts[{name!r}] = {spec!r}: use one of {', '.join(_KINDS)} "
                             "(or R's contr.sum, ...), or a matrix with a row per level")
        return {"treatment": lambda: contr_treatment(levels), "sum": lambda: contr_sum(k),
                "helmert": lambda: contr_helmert(k), "poly": lambda: contr_poly(k)}[kind]()
    names = [str(c) for c in spec.columns] if isinstance(spec, pd.DataFrame) else None
    try:
        m = np.asarray(spec, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"contrasts[{name!r}]: {type(spec).__name__} is neither a name of a "
                         "coding nor a numeric matrix") from None
    m = m.reshape(-1, 1) if m.ndim == 1 else m
    if m.ndim != 2 or m.shape[0] != k or not 1 <= m.shape[1] <= k - 1:
        raise ValueError(f"contrasts[{name!r}]: a matrix of shape {m.shape} for {k} levels "
                         f"{levels[:10]}: it needs {k} rows (one per level) and 1 to {k - 1} columns")
    if not np.all(np.isfinite(m)) or np.linalg.matrix_rank(np.column_stack([np.ones(k), m])) < m.shape[1] + 1:
        raise ValueError(f"contrasts[{name!r}]: the matrix is singular, or one of its columns is "
                         "constant (a contrast must not be confounded with the intercept)")
    return Contrast("matrix", m, tuple(names or (str(j) for j in range(1, m.shape[1] + 1))))


def check_contrasts(contrasts: object) -> dict[str, object]:
    """``contrasts=`` of a fit: None, or a dict from factor names to codings."""
    if contrasts is None:
        return {}
    if not isinstance(contrasts, dict) or not all(isinstance(k, str) for k in contrasts):
        raise ValueError(f"contrasts={contrasts!r}: give a dict from factor names to codings, "
                         "e.g. contrasts={'A': 'sum'}")
    return dict(contrasts)
