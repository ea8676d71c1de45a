"""The metrics as array functions: the single implementation used by ``evaluate``,
the breakdowns and the bootstrap.

Every function reduces over the last axis, so a (resamples x pairs) matrix gives one
value per resample. NaN entries are left out of each reduction.
"""

from __future__ import annotations

import numpy as np


def _nanmean(x: np.ndarray, valid: np.ndarray) -> np.ndarray:
    n = valid.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, np.where(valid, x, 0).sum(axis=-1) / n, np.nan)


def blimp_rate(dlm: np.ndarray) -> np.ndarray:
    """BLiMP criterion (Warstadt et al. 2020): share of pairs with score(good) > score(bad)."""
    valid = ~np.isnan(dlm)
    return _nanmean(dlm > 0, valid)


def adc_pass(dh: np.ndarray, dlm: np.ndarray, delta: float) -> np.ndarray:
    """Acceptability Delta Criterion per pair (thesis eq. 1.1-1.2):
    sign(dh) == sign(dlm) and |dh - dlm| < delta."""
    return (np.sign(dh) == np.sign(dlm)) & (np.abs(dh - dlm) < delta)


def adc_rate(dh: np.ndarray, dlm: np.ndarray, delta: float) -> np.ndarray:
    """Share of pairs meeting the ADC at ``delta`` (pairs with a NaN delta left out)."""
    valid = ~(np.isnan(dh) | np.isnan(dlm))
    return _nanmean(adc_pass(dh, dlm, delta), valid)


def adc_area(dh: np.ndarray, dlm: np.ndarray, max_delta: float = 5.0) -> np.ndarray:
    """Normalised area under the ADC curve on [0, max_delta]: a delta-free summary.

    The pass rate at delta is the share of sign-agreeing pairs with |dh - dlm| < delta,
    so its mean over delta in [0, D] is, exactly, mean(agree * max(0, 1 - |dh - dlm|/D)).
    1 = perfect agreement; at a huge D it tends to the sign agreement.
    """
    valid = ~(np.isnan(dh) | np.isnan(dlm))
    credit = (np.sign(dh) == np.sign(dlm)) * np.clip(1 - np.abs(dh - dlm) / max_delta, 0, None)
    return _nanmean(credit, valid)


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r over the last axis, leaving out positions where either is NaN."""
    valid = ~(np.isnan(x) | np.isnan(y))
    n = valid.sum(axis=-1)
    xm = _nanmean(x, valid)[..., None]
    ym = _nanmean(y, valid)[..., None]
    dx = np.where(valid, x - xm, 0)
    dy = np.where(valid, y - ym, 0)
    sxx, syy = (dx**2).sum(-1), (dy**2).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (dx * dy).sum(-1) / np.sqrt(sxx * syy)
    # a variance that is only rounding residue (all values equal) has no correlation
    flat = (sxx <= 1e-20 * np.where(valid, x * x, 0).sum(-1)) | (
        syy <= 1e-20 * np.where(valid, y * y, 0).sum(-1))
    return np.where((n > 2) & ~flat, r, np.nan)


def mcc(pred: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Matthews correlation of 0/1 predictions with 0/1 labels (NaN labels left out).

    For binary variables MCC equals the Pearson correlation (the phi coefficient),
    which is what makes it vectorisable; checked against scikit-learn in the tests.
    """
    pred = np.where(np.isnan(label), np.nan, pred.astype(float))
    r = pearson(pred, label)
    return np.where(np.isnan(r) & ~np.isnan(pearson(label, label)), 0.0, r)


def type_sd_mean(values: np.ndarray, type_codes: np.ndarray, n_types: int) -> np.ndarray:
    """Within-type variability (seed 004): SD (ddof=1) of the values of each sentence
    type, averaged over types with at least two values. Reduces the last axis."""
    valid = ~np.isnan(values)
    v = np.where(valid, values, 0.0)
    flat = v.reshape(int(np.prod(v.shape[:-1])), v.shape[-1])  # -1 is ambiguous for 0 values
    fvalid = valid.reshape(flat.shape)
    out = np.empty(flat.shape[0])
    for i in range(flat.shape[0]):
        n = np.bincount(type_codes, weights=fvalid[i], minlength=n_types)
        s = np.bincount(type_codes, weights=flat[i], minlength=n_types)
        ss = np.bincount(type_codes, weights=flat[i] ** 2, minlength=n_types)
        with np.errstate(invalid="ignore", divide="ignore"):
            var = (ss - s**2 / n) / (n - 1)
        ok = n >= 2
        out[i] = np.sqrt(np.clip(var[ok], 0, None)).mean() if ok.any() else np.nan
    return out.reshape(values.shape[:-1])


def pearson_from_sums(n, sx, sy, sxx, syy, sxy) -> np.ndarray:
    """Pearson r from (frequency-weighted) sums: n = sum w, sx = sum w x, ..., sxy =
    sum w x y. The bootstrap's weighted form of :func:`pearson` (equal to it at unit
    weights); NaN unless n > 2."""
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = sxy - sx * sy / n
        r = cov / np.sqrt((sxx - sx**2 / n) * (syy - sy**2 / n))
    return np.where(n > 2, r, np.nan)


def mcc_from_counts(n, n_pred, n_label, n_both) -> np.ndarray:
    """:func:`mcc` from (weighted) counts of labelled items, predicted 1, labelled 1
    and both: the phi coefficient, 0 where the predictions are constant."""
    r = pearson_from_sums(n, n_pred, n_label, n_pred, n_label, n_both)
    label_varies = (n > 2) & (n_label > 0) & (n_label < n)
    return np.where(np.isnan(r) & label_varies, 0.0, r)


def sd_from_sums(n, s, ss, ddof: int = 0) -> np.ndarray:
    """Standard deviation from (weighted) sums n, sum x, sum x^2; NaN where n <= ddof."""
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (ss - s**2 / n) / (n - ddof)
    return np.where(n > ddof, np.sqrt(np.clip(var, 0, None)), np.nan)
