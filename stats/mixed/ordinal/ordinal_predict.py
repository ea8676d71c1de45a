"""Predictions of a cumulative link model in the shapes of ordinal's ``predict.clm``
(Christensen 2019, the ordinal package): ``type`` = ``"prob"``, ``"cum.prob"``,
``"linear.predictor"`` or ``"class"``.

Rows that carry the response (the fitted rows, or new rows with the response column) give,
as ordinal does, the values of each row's observed category: ``prob`` a Series
Pr(Y = y_i), ``cum.prob`` a frame with ``cprob1`` = Pr(Y <= y_i) and ``cprob2`` =
Pr(Y <= y_i - 1), ``linear.predictor`` a frame with ``eta1`` = (theta_{y_i} - x'beta -
o) / sigma and ``eta2`` = (theta_{y_i - 1} - x'beta - o) / sigma. New rows without it give
one column per category: ``prob`` a frame (n, K), ``cum.prob`` and ``linear.predictor``
dicts of two such frames (``cprob1``/``cprob2``, ``eta1``/``eta2``). ``class`` is the most
probable category either way. Where ordinal writes +-100000 for the infinite thresholds
beyond the end categories, these are +-inf.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.mixed.ordinal.ordinal_links import probability
from acceptability.stats.mixed.transforms import fixed_part, formula_offset

__all__ = ["PREDICT_TYPES", "clm_predict", "location"]

PREDICT_TYPES = ("prob", "cum.prob", "linear.predictor", "class")


def location(m, newdata: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: the thresholds theta (n, K - 1) (nominal effects make them vary), the
    location x'beta + offset and the scale sigma, on the fitted rows or ``newdata``."""
    d = m.design
    if newdata is None:
        x, offset, data = d.X, d.offset, None
    else:
        part = fixed_part(m.formula, m.frame)
        try:
            x, names = part.matrix(newdata)
        except (KeyError, ValueError) as err:
            raise type(err)(f"newdata: {err.args[0]}") from None
        x = x[:, [names.index(n) for n in d.xnames]]
        off = formula_offset(m.formula, newdata)
        offset, data = (0.0 if off is None else off), newdata
    n = len(x)
    S = np.ones((n, 1)) if d.nominal is None else (d.nominal.M if data is None else d.nominal.new(data))
    nt = d.thresholds.tjac.shape[1]
    alpha = m.par[:d.nalpha].reshape(-1, nt)  # one row of threshold parameters per S column
    theta = S @ (alpha @ d.thresholds.tjac.T)
    eta = x[:, 1:] @ m.par[d.nalpha:d.nloc] + offset
    sigma = np.ones(n)
    if d.scale is not None:
        Z = d.scale.M if data is None else d.scale.new(data)
        sigma = np.exp(Z @ m.par[d.nloc:])
    return theta, np.broadcast_to(eta, (n,)), sigma


def _observed(m, newdata: pd.DataFrame | None) -> np.ndarray | None:
    """Category codes of rows that carry the response; None for new rows without it."""
    if newdata is None:
        return m.design.y
    name = m.formula.response
    if name not in newdata.columns:
        return None
    labels = newdata[name].map(lambda v: str(int(v)) if isinstance(v, float) and v.is_integer() else str(v))
    codes = pd.Index(list(m.levels)).get_indexer(labels)
    if np.any(codes < 0):
        bad = sorted(set(labels[codes < 0]))[:5]
        raise ValueError(f"newdata: response {name!r} has values {bad} that are not categories "
                         f"{list(m.levels)} of the fit; drop the column to predict every category")
    return np.asarray(codes, np.int64)


def clm_predict(m, newdata: pd.DataFrame | None, type: str):
    """ordinal's ``predict.clm(m, newdata, type)`` (shapes in the module docstring)."""
    if type not in PREDICT_TYPES:
        raise ValueError(f"type={type!r}: use one of {list(PREDICT_TYPES)}")
    theta, eta, sigma = location(m, newdata)
    index = m.frame.index if newdata is None else newdata.index
    n = len(eta)
    cuts = np.hstack([np.full((n, 1), -np.inf), theta, np.full((n, 1), np.inf)])
    lin = (cuts - eta[:, None]) / sigma[:, None]  # (n, K + 1): the K + 1 ends
    cum = m.design.link.cdf(lin)
    prob = probability(m.design.link, lin[:, 1:], lin[:, :-1])  # keeps the upper tail's digits
    levels = list(m.levels)
    if type == "class":
        return pd.Series(pd.Categorical.from_codes(np.argmax(prob, axis=1), levels, ordered=True),
                         index=index)
    y = _observed(m, newdata)
    if y is not None:
        rows = np.arange(n)
        if type == "prob":
            return pd.Series(prob[rows, y], index=index)
        first, second = ("cprob1", "cprob2") if type == "cum.prob" else ("eta1", "eta2")
        values = cum if type == "cum.prob" else lin
        return pd.DataFrame({first: values[rows, y + 1], second: values[rows, y]}, index=index)
    if type == "prob":
        return pd.DataFrame(prob, index=index, columns=levels)
    first, second = ("cprob1", "cprob2") if type == "cum.prob" else ("eta1", "eta2")
    values = cum if type == "cum.prob" else lin
    return {first: pd.DataFrame(values[:, 1:], index=index, columns=levels),
            second: pd.DataFrame(values[:, :-1], index=index, columns=levels)}
