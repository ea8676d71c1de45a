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
    """BLiMP criterion: the share of pairs with score(good) > score(bad).

    Warstadt et al. (2020): a minimal pair is correct when the acceptable sentence gets
    the higher score; a tie is an error.

    Parameters
    ----------
    dlm : numpy.ndarray
        Model deltas, score(good) - score(bad), pairs on the last axis; NaN entries are
        left out.

    Returns
    -------
    numpy.ndarray
        The share over the last axis (0-d for a 1-d input); NaN where no pair is scored.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import blimp_rate
    >>> float(blimp_rate(np.array([0.5, -0.2, 1.0, np.nan])))
    0.6666666666666666
    """
    valid = ~np.isnan(dlm)
    return _nanmean(dlm > 0, valid)


SIGNS = ("strict", "thesis")
"""The sign conventions of [sign_agree][acceptability.stats.metrics.sign_agree]."""


def check_sign(sign: str) -> str:
    """Check that ``sign`` names a sign convention of
    [sign_agree][acceptability.stats.metrics.sign_agree].

    Parameters
    ----------
    sign : str
        ``"strict"`` or ``"thesis"``.

    Returns
    -------
    str
        ``sign`` itself.

    Raises
    ------
    ValueError
        If ``sign`` is not in ``SIGNS``.

    Examples
    --------
    >>> from acceptability.stats.metrics import check_sign
    >>> check_sign("thesis")
    'thesis'
    >>> check_sign("loose")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sign='loose': use 'strict' (np.sign(dh) == np.sign(dlm), ...) or 'thesis' ...
    """
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

    Parameters
    ----------
    dh, dlm : numpy.ndarray
        Human and model deltas (good minus bad), broadcast against each other.
    sign : {"strict", "thesis"}
        The sign convention.

    Returns
    -------
    numpy.ndarray
        Booleans, one per pair (False where either delta is NaN).

    Raises
    ------
    ValueError
        If ``sign`` is not one of ``SIGNS``.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import sign_agree
    >>> dh, dlm = np.array([1.2, 0.4, -0.3]), np.array([1.0, -0.1, 0.0])
    >>> print(sign_agree(dh, dlm), sign_agree(dh, dlm, sign="thesis"))
    [ True False False] [ True False  True]
    """
    if check_sign(sign) == "thesis":
        return (dh > 0) == (dlm > 0)
    return np.sign(dh) == np.sign(dlm)


def adc_pass(dh: np.ndarray, dlm: np.ndarray, delta: float, sign: str = "strict") -> np.ndarray:
    """Acceptability Delta Criterion per pair (thesis eq. 1.1-1.2).

    A pair passes when the deltas agree in sign
    ([sign_agree][acceptability.stats.metrics.sign_agree]) and ``|dh - dlm| < delta``.
    A NaN delta never passes.

    Parameters
    ----------
    dh, dlm : numpy.ndarray
        Human and model deltas (good minus bad, in z-units).
    delta : float or numpy.ndarray
        The threshold; an array broadcasts against the deltas.
    sign : {"strict", "thesis"}
        The sign convention.

    Returns
    -------
    numpy.ndarray
        Booleans, one per pair.

    Raises
    ------
    ValueError
        For an unknown ``sign``.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import adc_pass
    >>> print(adc_pass(np.array([1.2, 0.4, 0.8]), np.array([1.0, -0.1, 2.5]), delta=0.5))
    [ True False False]
    """
    return sign_agree(dh, dlm, sign) & (np.abs(dh - dlm) < delta)


def adc_rate(dh: np.ndarray, dlm: np.ndarray, delta: float, sign: str = "strict") -> np.ndarray:
    """Share of pairs meeting the ADC at ``delta`` (thesis eq. 1.2).

    Parameters
    ----------
    dh, dlm : numpy.ndarray
        Human and model deltas, pairs on the last axis; pairs with a NaN delta are left
        out.
    delta : float or numpy.ndarray
        The threshold; a column of thresholds gives one rate per threshold (the ADC
        curve).
    sign : {"strict", "thesis"}
        The sign convention of [sign_agree][acceptability.stats.metrics.sign_agree].

    Returns
    -------
    numpy.ndarray
        The pass rate over the last axis; NaN where no pair has both deltas.

    Raises
    ------
    ValueError
        If ``sign`` names no convention
        ([check_sign][acceptability.stats.metrics.check_sign]).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import adc_rate
    >>> dh, dlm = np.array([1.2, 0.4, -0.3, 0.8]), np.array([1.0, -0.1, 0.0, 2.5])
    >>> float(adc_rate(dh, dlm, 0.5)), float(adc_rate(dh, dlm, 0.5, sign="thesis"))
    (0.25, 0.5)
    >>> print(adc_rate(dh, dlm, np.array([[0.5], [2.0]])))
    [0.25 0.5 ]
    """
    valid = ~(np.isnan(dh) | np.isnan(dlm))
    return _nanmean(adc_pass(dh, dlm, delta, sign), valid)


def adc_area(dh: np.ndarray, dlm: np.ndarray, max_delta: float = 5.0,
             sign: str = "strict") -> np.ndarray:
    """Normalised area under the ADC curve on [0, max_delta]: a delta-free summary.

    The pass rate at delta is the share of sign-agreeing pairs with |dh - dlm| < delta,
    so its mean over delta in [0, D] is, exactly, mean(agree * max(0, 1 - |dh - dlm|/D)).
    1 = perfect agreement; at a huge D it tends to the sign agreement.

    Parameters
    ----------
    dh, dlm : numpy.ndarray
        Human and model deltas; the last axis holds the pairs (a NaN delta: the pair is
        left out).
    max_delta : float
        D, the upper end of the curve.
    sign : {"strict", "thesis"}
        How a delta of 0 counts ([sign_agree][acceptability.stats.metrics.sign_agree]).

    Returns
    -------
    numpy.ndarray
        The area over the last axis, between 0 and 1; NaN where no pair has both deltas.

    Raises
    ------
    ValueError
        For a ``sign`` other than ``"strict"`` or ``"thesis"``.

    Examples
    --------
    Deltas that agree exactly give 1; a model delta off by 1 everywhere loses 1/D:

    >>> import numpy as np
    >>> from acceptability.stats.metrics import adc_area
    >>> dh = np.array([0.5, 1.0, -2.0])
    >>> float(adc_area(dh, dh)), round(float(adc_area(dh, dh + 1.0, max_delta=5.0)), 3)
    (1.0, 0.8)
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
"""Relative sum of squares below which a variable counts as constant (Pearson r is NaN)."""


def _r(n, cxx, cyy, cxy, sxx, syy) -> np.ndarray:
    """r = cxy / sqrt(cxx cyy) from centred sums, NaN under the policy above (sxx, syy:
    the raw sums of squares)."""
    flat = (cxx <= FLAT * sxx) | (cyy <= FLAT * syy)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cxy / np.sqrt(np.where(flat, np.nan, cxx * cyy))
    return np.where((n > 2) & ~flat, r, np.nan)


def pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r over the last axis, over the positions where both are present.

    The one Pearson policy of the package: NaN for fewer than 3 complete pairs or a
    constant variable (relative sum of squares at most ``FLAT``).

    Parameters
    ----------
    x, y : numpy.ndarray
        Observations on the last axis, broadcast against each other; a position where
        either is NaN is left out.

    Returns
    -------
    numpy.ndarray
        r per row (0-d for 1-d inputs).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import pearson
    >>> x, y = np.array([1.0, 2, 3, 4, np.nan]), np.array([1.0, 3, 2, 5, 7])
    >>> round(float(pearson(x, y)), 4)
    0.8315
    >>> float(pearson(np.array([1.0, 1, 1]), np.array([1.0, 2, 3])))  # constant x
    nan
    """
    valid = ~(np.isnan(x) | np.isnan(y))
    dx = np.where(valid, x - _nanmean(x, valid)[..., None], 0)
    dy = np.where(valid, y - _nanmean(y, valid)[..., None], 0)
    return _r(valid.sum(axis=-1), (dx**2).sum(-1), (dy**2).sum(-1), (dx * dy).sum(-1),
              np.where(valid, x * x, 0).sum(-1), np.where(valid, y * y, 0).sum(-1))


def pearson_matrix(x: np.ndarray) -> np.ndarray:
    """Pearson r of every pair of rows, each over the observations both have.

    Parameters
    ----------
    x : numpy.ndarray
        Variables x observations; NaN marks a missing observation.

    Returns
    -------
    numpy.ndarray
        The symmetric (variables x variables) matrix of
        [pearson][acceptability.stats.metrics.pearson]: a constant row is NaN, on the
        diagonal too.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import pearson_matrix
    >>> print(pearson_matrix(np.array([[1.0, 2, 3, 4], [1, 3, 2, 5], [4, 3, 2, 1]])).round(3))
    [[ 1.     0.832 -1.   ]
     [ 0.832  1.    -0.832]
     [-1.    -0.832  1.   ]]
    """
    k = len(x)
    out = np.full((k, k), np.nan)
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = pearson(x[i], x[j])
    return out


def mcc(pred: np.ndarray, label: np.ndarray) -> np.ndarray:
    """Matthews correlation of 0/1 predictions with 0/1 labels (Matthews 1975).

    For binary variables MCC equals the Pearson correlation (the phi coefficient),
    which is what makes it vectorisable; checked against scikit-learn in the tests.
    Constant predictions give 0, as in scikit-learn (thesis §2.2: degenerate runs).

    Parameters
    ----------
    pred : numpy.ndarray
        0/1 predictions, items on the last axis.
    label : numpy.ndarray
        0/1 labels; NaN labels are left out.

    Returns
    -------
    numpy.ndarray
        MCC over the last axis; NaN for fewer than 3 labelled items or constant labels.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import mcc
    >>> round(float(mcc(np.array([1, 1, 0, 0, 1]), np.array([1.0, 1, 0, 1, np.nan]))), 4)
    0.5774
    >>> float(mcc(np.array([1, 1, 1, 1]), np.array([1.0, 0, 1, 0])))
    0.0
    """
    pred = np.where(np.isnan(label), np.nan, pred.astype(float))
    r = pearson(pred, label)
    return np.where(np.isnan(r) & ~np.isnan(pearson(label, label)), 0.0, r)


def type_sds(values: np.ndarray, type_codes: np.ndarray, n_types: int) -> np.ndarray:
    """SD (ddof=1) of the values of each sentence type.

    The one within-type SD of the package (Vázquez Martínez et al. 2023, seed 004's
    variability; [variability][acceptability.stats.variability.variability], the bootstrap).

    Parameters
    ----------
    values : numpy.ndarray
        1-d values, one per sentence; NaN values are left out.
    type_codes : numpy.ndarray
        The type of each value, coded 0 to ``n_types`` - 1.
    n_types : int
        The number of types.

    Returns
    -------
    numpy.ndarray
        One SD per type; NaN for a type with fewer than two values.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import type_sds
    >>> values = np.array([0.1, 0.5, 1.0, 2.0, np.nan, 3.0])
    >>> print(type_sds(values, np.array([0, 0, 1, 1, 1, 2]), 3).round(4))
    [0.2828 0.7071    nan]
    """
    valid = ~np.isnan(values)
    v = np.where(valid, values, 0.0)

    def per_type(w: np.ndarray) -> np.ndarray:
        return np.bincount(type_codes, weights=w, minlength=n_types)

    return sd_from_sums(per_type(valid.astype(float)), per_type(v), per_type(v * v), ddof=1)


def type_sd_mean(values: np.ndarray, type_codes: np.ndarray, n_types: int) -> np.ndarray:
    """Within-type variability (Vázquez Martínez et al. 2023, seed 004): the mean of the
    [type_sds][acceptability.stats.metrics.type_sds] over the types with two values or more.

    Parameters
    ----------
    values : numpy.ndarray
        Values with sentences on the last axis; NaN values are left out.
    type_codes : numpy.ndarray
        Type codes, 0 to ``n_types`` - 1, one per position of the last axis.
    n_types : int
        How many types the codes run over.

    Returns
    -------
    numpy.ndarray
        The mean SD per row (the last axis reduced); NaN where no type has two values.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import type_sd_mean
    >>> values = np.array([[0.1, 0.5, 1.0, 2.0, np.nan, 3.0], [0.2, 1.0, 2.0, 4.0, 1.0, 6.0]])
    >>> print(type_sd_mean(values, np.array([0, 0, 1, 1, 1, 2]), 3).round(4))
    [0.495  1.0466]
    """
    rows = values.reshape(int(np.prod(values.shape[:-1])), values.shape[-1])  # not -1: 0 values
    out = np.full(len(rows), np.nan)
    for i, row in enumerate(rows):
        sd = type_sds(row, type_codes, n_types)
        if (ok := ~np.isnan(sd)).any():
            out[i] = sd[ok].mean()
    return out.reshape(values.shape[:-1])


def pearson_from_sums(n: np.ndarray | float, sx: np.ndarray | float, sy: np.ndarray | float,
                      sxx: np.ndarray | float, syy: np.ndarray | float,
                      sxy: np.ndarray | float) -> np.ndarray:
    """Pearson r from (frequency-weighted) sums: the bootstrap's weighted form of
    [pearson][acceptability.stats.metrics.pearson], with its policy (NaN for n <= 2 or a
    constant variable); equal to it at unit weights.

    Parameters
    ----------
    n : numpy.ndarray or float
        sum w.
    sx, sy : numpy.ndarray or float
        sum w x, sum w y.
    sxx, syy, sxy : numpy.ndarray or float
        sum w x², sum w y², sum w x y.

    Returns
    -------
    numpy.ndarray
        Pearson r, in the shape the sums broadcast to.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import pearson, pearson_from_sums
    >>> x, y, w = np.array([1.0, 2, 3, 4]), np.array([1.0, 3, 2, 5]), np.array([2, 1, 0, 1])
    >>> r = pearson_from_sums(w.sum(), w @ x, w @ y, w @ (x * x), w @ (y * y), w @ (x * y))
    >>> bool(np.isclose(r, pearson(np.repeat(x, w), np.repeat(y, w))))
    True
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        return _r(n, sxx - sx**2 / n, syy - sy**2 / n, sxy - sx * sy / n, sxx, syy)


def mcc_from_counts(n: np.ndarray | float, n_pred: np.ndarray | float,
                    n_label: np.ndarray | float, n_both: np.ndarray | float) -> np.ndarray:
    """[mcc][acceptability.stats.metrics.mcc] from (weighted) counts: the phi
    coefficient, 0 where the predictions are constant.

    Parameters
    ----------
    n : numpy.ndarray or float
        Labelled items.
    n_pred, n_label, n_both : numpy.ndarray or float
        Items predicted 1, labelled 1, and both.

    Returns
    -------
    numpy.ndarray
        The MCC of each element.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import mcc, mcc_from_counts
    >>> pred, label = np.array([1, 1, 0, 0]), np.array([1.0, 1, 0, 1])
    >>> round(float(mcc_from_counts(4, 2, 3, 2)), 4), round(float(mcc(pred, label)), 4)
    (0.5774, 0.5774)
    """
    r = pearson_from_sums(n, n_pred, n_label, n_pred, n_label, n_both)
    label_varies = (n > 2) & (n_label > 0) & (n_label < n)
    return np.where(np.isnan(r) & label_varies, 0.0, r)


def sd_from_sums(n: np.ndarray | float, s: np.ndarray | float, ss: np.ndarray | float,
                 ddof: int = 0) -> np.ndarray:
    """Standard deviation from (weighted) sums.

    Parameters
    ----------
    n, s, ss : numpy.ndarray or float
        sum w, sum w x and sum w x².
    ddof : int
        Delta degrees of freedom, as in ``numpy.std``.

    Returns
    -------
    numpy.ndarray
        The SD, elementwise; NaN where n <= ddof.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.metrics import sd_from_sums
    >>> x = np.array([1.0, 2, 3, 4])
    >>> bool(np.isclose(sd_from_sums(4, x.sum(), x @ x, ddof=1), x.std(ddof=1)))
    True
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (ss - s**2 / n) / (n - ddof)
    return np.where(n > ddof, np.sqrt(np.clip(var, 0, None)), np.nan)
