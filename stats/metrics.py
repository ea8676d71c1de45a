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


SIGNS = ("strict", "thesis")


def check_sign(sign: str) -> str:
    """``sign`` if it names a sign convention (:func:`sign_agree`), else a ValueError."""
    if sign not in SIGNS:
        raise ValueError(f"sign={sign!r}: use 'strict' (np.sign(dh) == np.sign(dlm), thesis "
                         "eq. 1.1 as written) or 'thesis' ((dh > 0) == (dlm > 0), the "
                         "thesis' tables)")
    return sign


def sign_agree(dh: np.ndarray, dlm: np.ndarray, sign: str = "strict") -> np.ndarray:
    """Whether human and model deltas have the same sign (thesis eq. 1.1).

    ``"strict"``: ``np.sign(dh) == np.sign(dlm)``, eq. 1.1 as written; a zero delta agrees
    only with a zero delta. ``"thesis"``: ``(dh > 0) == (dlm > 0)``, the convention that
    reproduces the thesis' tables (2.6, 3.1, 3.6, 3.7): zero counts as negative. They
    differ only where a delta is 0, e.g. LI-Adger's 2 pairs with identical texts
    (dlm = 0, dh < 0): they agree under "thesis" only.
    """
    if check_sign(sign) == "thesis":
        return (dh > 0) == (dlm > 0)
    return np.sign(dh) == np.sign(dlm)


def adc_pass(dh: np.ndarray, dlm: np.ndarray, delta: float, sign: str = "strict") -> np.ndarray:
    """Acceptability Delta Criterion per pair (thesis eq. 1.1-1.2): the deltas agree in
    sign (:func:`sign_agree`) and |dh - dlm| < delta. A NaN delta never passes."""
    return sign_agree(dh, dlm, sign) & (np.abs(dh - dlm) < delta)


def adc_rate(dh: np.ndarray, dlm: np.ndarray, delta: float, sign: str = "strict") -> np.ndarray:
    """Share of pairs meeting the ADC at ``delta`` (pairs with a NaN delta left out)."""
    valid = ~(np.isnan(dh) | np.isnan(dlm))
    return _nanmean(adc_pass(dh, dlm, delta, sign), valid)


def adc_area(dh: np.ndarray, dlm: np.ndarray, max_delta: float = 5.0,
             sign: str = "strict") -> np.ndarray:
    """Normalised area under the ADC curve on [0, max_delta]: a delta-free summary.

    The pass rate at delta is the share of sign-agreeing pairs with |dh - dlm| < delta,
    so its mean over delta in [0, D] is, exactly, mean(agree * max(0, 1 - |dh - dlm|/D)).
    1 = perfect agreement; at a huge D it tends to the sign agreement.
    """
    valid = ~(np.isnan(dh) | np.isnan(dlm))
    credit = sign_agree(dh, dlm, sign) * np.clip(1 - np.abs(dh - dlm) / max_delta, 0, None)
    return _nanmean(credit, valid)


# Pearson r has one policy everywhere (evaluate, bootstrap, correlations, comparisons,
# reliability, figures): NaN unless there are at least 3 complete pairs and both
# variables vary. A variable is constant when its centred sum of squares is at most FLAT
# times its raw sum of squares (relative SD below 1e-5): equal values leave only rounding
# residue there, up to about n * 1e-16 in the one-pass sums of the bootstrap.
FLAT = 1e-10


def _r(n, cxx, cyy, cxy, sxx, syy) -> np.ndarray:
    """r = cxy / sqrt(cxx cyy) from centred sums, NaN under the policy above (sxx, syy:
    the raw sums of squares)."""
    flat = (cxx <= FLAT * sxx) | (cyy <= FLAT * syy)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cxy / np.sqrt(np.where(flat, np.nan, cxx * cyy))
    return np.where((n > 2) & ~flat, r, np.nan)


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r over the last axis, leaving out positions where either is NaN; NaN for
    fewer than 3 complete pairs or a constant variable (``FLAT``)."""
    valid = ~(np.isnan(x) | np.isnan(y))
    dx = np.where(valid, x - _nanmean(x, valid)[..., None], 0)
    dy = np.where(valid, y - _nanmean(y, valid)[..., None], 0)
    return _r(valid.sum(axis=-1), (dx**2).sum(-1), (dy**2).sum(-1), (dx * dy).sum(-1),
              np.where(valid, x * x, 0).sum(-1), np.where(valid, y * y, 0).sum(-1))


def pearson_matrix(x: np.ndarray) -> np.ndarray:
    """Pearson r of every pair of rows of ``x`` (variables x observations), each over
    the observations both have (:func:`pearson`; a constant row is NaN, on the diagonal
    too)."""
    k = len(x)
    out = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = pearson(x[i], x[j])
    return out


def mcc(pred: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Matthews correlation of 0/1 predictions with 0/1 labels (NaN labels left out).

    For binary variables MCC equals the Pearson correlation (the phi coefficient),
    which is what makes it vectorisable; checked against scikit-learn in the tests.
    """
    pred = np.where(np.isnan(label), np.nan, pred.astype(float))
    r = pearson(pred, label)
    return np.where(np.isnan(r) & ~np.isnan(pearson(label, label)), 0.0, r)


def type_sds(values: np.ndarray, type_codes: np.ndarray, n_types: int) -> np.ndarray:
    """SD (ddof=1) of the non-NaN ``values`` (1-D) of each sentence type, coded 0 to
    ``n_types`` - 1; NaN for a type with fewer than two values. The one within-type SD
    (seed 004's variability, ``stats.variability``, the bootstrap)."""
    valid = ~np.isnan(values)
    v = np.where(valid, values, 0.0)

    def per_type(w: np.ndarray) -> np.ndarray:
        return np.bincount(type_codes, weights=w, minlength=n_types)

    return sd_from_sums(per_type(valid.astype(float)), per_type(v), per_type(v * v), ddof=1)


def type_sd_mean(values: np.ndarray, type_codes: np.ndarray, n_types: int) -> np.ndarray:
    """Within-type variability (seed 004): :func:`type_sds` averaged over the types with
    at least two values. Reduces the last axis."""
    rows = values.reshape(int(np.prod(values.shape[:-1])), values.shape[-1])  # not -1: 0 values
    out = np.full(len(rows), np.nan)
    for i, row in enumerate(rows):
        sd = type_sds(row, type_codes, n_types)
        if (ok := ~np.isnan(sd)).any():
            out[i] = sd[ok].mean()
    return out.reshape(values.shape[:-1])


def pearson_from_sums(n, sx, sy, sxx, syy, sxy) -> np.ndarray:
    """Pearson r from (frequency-weighted) sums: n = sum w, sx = sum w x, ..., sxy =
    sum w x y. The bootstrap's weighted form of :func:`pearson`, with its policy (NaN
    for n <= 2 or a constant variable); equal to it at unit weights."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return _r(n, sxx - sx**2 / n, syy - sy**2 / n, sxy - sx * sy / n, sxx, syy)


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
