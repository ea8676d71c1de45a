"""BLiMP criterion, ADC and the ADC curve as tidy tables (thesis 1.2, 1.3.3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.arguments import check_delta, check_deltas
from acceptability.stats.deltas import pair_deltas
from acceptability.stats.metric_table import spec_of


def _per_model(deltas: pd.DataFrame, fn, name: str) -> pd.DataFrame:
    rows = []
    for model, g in deltas.groupby("model", sort=False):
        dh, dlm = g["dh"].to_numpy(float), g["dlm"].to_numpy(float)
        used = ~(np.isnan(dh) | np.isnan(dlm) if "human" in spec_of(name)[0].needs
                 else np.isnan(dlm))
        rows.append({"model": model, name: float(fn(dh, dlm)), "n_pairs": int(used.sum()),
                     "n_excluded": int((~used).sum())})
    return pd.DataFrame(rows)


def blimp_criterion(dataset: Dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """Share of pairs whose acceptable sentence outscores the unacceptable one, per model.

    The BLiMP criterion (Warstadt et al. 2020; thesis 1.2):
    [blimp_rate][acceptability.stats.metrics.blimp_rate] of the model deltas. Pairs with a
    missing model score are excluded and counted.

    Parameters
    ----------
    dataset : Dataset
        Sentences and minimal pairs (human judgments are not needed).
    scores : pandas.DataFrame
        The models' scores, higher = more acceptable.

    Returns
    -------
    pandas.DataFrame
        One row per model: ``model``, ``blimp``, ``n_pairs`` (used), ``n_excluded``.

    Raises
    ------
    DataError
        If the scores are malformed or not of the dataset's sentences.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.stats import blimp_criterion
    >>> dataset, scores = load_example()
    >>> print(blimp_criterion(dataset, scores).round(3).to_string(index=False))
                   model  blimp  n_pairs  n_excluded
    bert-large-cased_acc  0.850       20           9
    bert-large-cased_mlm  0.438       16          13
            trigram_slor  0.875        8          21
    """
    return _per_model(pair_deltas(dataset, scores), lambda dh, dlm: metrics.blimp_rate(dlm),
                      "blimp")


def adc(dataset: Dataset, scores: pd.DataFrame, delta: float = 0.5,
        sign: str = "strict") -> pd.DataFrame:
    """ADC pass rate at ``delta`` per model (thesis eq. 1.1-1.2).

    A pair passes the Acceptability Delta Criterion when the human and model deltas agree
    in sign and differ by less than ``delta``
    ([adc_pass][acceptability.stats.metrics.adc_pass]). The rate is over the pairs with
    both a human and a model delta; the others are excluded and counted.

    Parameters
    ----------
    dataset : Dataset
        Sentences with human judgments, and pairs.
    scores : pandas.DataFrame
        Model scores of those sentences, in long format.
    delta : float
        The threshold in z-units, positive.
    sign : {"strict", "thesis"}
        The sign convention of [sign_agree][acceptability.stats.metrics.sign_agree].

    Returns
    -------
    pandas.DataFrame
        One row per model: ``model``, ``adc_<delta>`` (e.g. ``adc_0.5``), ``n_pairs``,
        ``n_excluded``.

    Raises
    ------
    ValueError
        If ``delta`` is not positive or ``sign`` is unknown.
    DataError
        For scores that are malformed or of other sentences.

    Examples
    --------
    >>> from acceptability.stats import adc
    >>> from acceptability.data import load_example
    >>> table = adc(*load_example(), delta=1.0)
    >>> print(table.round(3).to_string(index=False))
                   model  adc_1  n_pairs  n_excluded
    bert-large-cased_acc  0.250       12          17
    bert-large-cased_mlm  0.438       16          13
            trigram_slor    NaN        0          29
    """
    delta = check_delta("delta", delta)
    metrics.check_sign(sign)
    return _per_model(pair_deltas(dataset, scores),
                      lambda dh, dlm: metrics.adc_rate(dh, dlm, delta, sign), f"adc_{delta:g}")


def adc_curve(dataset: Dataset, scores: pd.DataFrame, deltas: Sequence[float] | None = None,
              max_delta: float = 5.0, sign: str = "strict") -> pd.DataFrame:
    """ADC pass rate over a grid of deltas (thesis 1.3.3), with its normalised area.

    Parameters
    ----------
    dataset : Dataset
        As in [adc][acceptability.stats.criteria.adc]: sentences with ``human``, pairs.
    scores : pandas.DataFrame
        Long scores (``sentence_id``, ``model``, ``score``).
    deltas : sequence of float, optional
        The grid; by default 0 to ``max_delta`` by 0.05.
    max_delta : float
        The upper end of the default grid and of the area.
    sign : {"strict", "thesis"}
        The sign convention, as in [adc][acceptability.stats.criteria.adc].

    Returns
    -------
    pandas.DataFrame
        Long format: ``model``, ``delta``, ``pass_rate``. ``.attrs["area"]`` holds each
        model's normalised area on [0, ``max_delta``]
        ([adc_area][acceptability.stats.metrics.adc_area]), a delta-free summary.

    Raises
    ------
    ValueError
        For an unknown ``sign``.
    DataError
        If a score is non-numeric or names a sentence not in ``dataset``.

    Examples
    --------
    >>> import acceptability.stats as stats
    >>> from acceptability.data import load_example
    >>> curve = stats.adc_curve(*load_example(), deltas=[0.5, 1.0], max_delta=2.0)
    >>> print(curve.round(3).to_string(index=False))
                   model  delta  pass_rate
    bert-large-cased_acc    0.5      0.250
    bert-large-cased_acc    1.0      0.250
    bert-large-cased_mlm    0.5      0.375
    bert-large-cased_mlm    1.0      0.438
            trigram_slor    0.5        NaN
            trigram_slor    1.0        NaN
    >>> round(curve.attrs["area"]["bert-large-cased_mlm"], 3)
    0.389
    """
    metrics.check_sign(sign)
    max_delta = check_delta("max_delta", max_delta)
    grid = (np.round(np.arange(0, max_delta + 1e-9, 0.05), 10) if deltas is None
            else np.asarray(check_deltas(deltas, zero=True), dtype=float))
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
