"""BLiMP criterion, ADC and the ADC curve as tidy tables (thesis 1.2, 1.3.3)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats import metrics
from acceptability.stats.deltas import pair_deltas


def _per_model(deltas: pd.DataFrame, fn, name: str) -> pd.DataFrame:
    rows = []
    for model, g in deltas.groupby("model", sort=False):
        dh, dlm = g["dh"].to_numpy(float), g["dlm"].to_numpy(float)
        used = ~(np.isnan(dlm) if name == "blimp" else np.isnan(dh) | np.isnan(dlm))
        rows.append({"model": model, name: float(fn(dh, dlm)), "n_pairs": int(used.sum()),
                     "n_excluded": int((~used).sum())})
    return pd.DataFrame(rows)


def blimp_criterion(dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """Share of pairs whose acceptable sentence outscores the unacceptable one, per model.

    Pairs with a missing model score are excluded and counted (``n_excluded``).
    """
    return _per_model(pair_deltas(dataset, scores), lambda dh, dlm: metrics.blimp_rate(dlm),
                      "blimp")


def adc(dataset, scores: pd.DataFrame, delta: float = 0.5, sign: str = "strict") -> pd.DataFrame:
    """ADC pass rate at ``delta`` per model (thesis eq. 1.1-1.2), over pairs with both
    a human and a model delta; the others are excluded and counted. ``sign``: the sign
    convention, ``"strict"`` or ``"thesis"`` (``stats.metrics.sign_agree``)."""
    if not delta > 0:
        raise ValueError(f"delta must be positive, got {delta}")
    metrics.check_sign(sign)
    return _per_model(pair_deltas(dataset, scores),
                      lambda dh, dlm: metrics.adc_rate(dh, dlm, delta, sign), f"adc_{delta:g}")


def adc_curve(dataset, scores: pd.DataFrame, deltas=None, max_delta: float = 5.0,
              sign: str = "strict") -> pd.DataFrame:
    """ADC pass rate over a grid of deltas (default 0 to ``max_delta`` by 0.05), long format
    ``model, delta, pass_rate``; ``.attrs['area']`` holds each model's normalised area
    (:func:`stats.metrics.adc_area`), a delta-free summary. ``sign``: as in :func:`adc`."""
    metrics.check_sign(sign)
    grid = np.round(np.arange(0, max_delta + 1e-9, 0.05), 10) if deltas is None else np.asarray(deltas)
    d = pair_deltas(dataset, scores)
    rows, area = [], {}
    for model, g in d.groupby("model", sort=False):
        dh, dlm = g["dh"].to_numpy(float), g["dlm"].to_numpy(float)
        rates = (metrics.adc_rate(dh[None, :], dlm[None, :], grid[:, None], sign)
                 if len(grid) else [])
        rows.append(pd.DataFrame({"model": model, "delta": grid, "pass_rate": rates}))
        area[model] = float(metrics.adc_area(dh, dlm, max_delta, sign))
    out = pd.concat(rows, ignore_index=True)
    out.attrs["area"] = area
    return out
