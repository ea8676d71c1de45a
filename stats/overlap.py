"""Overlap and "reduced" analyses (thesis Tables 2.6, 3.6, 3.7): does a model pass the
ADC on pairs a baseline (e.g. the trigram) cannot, and how much do two models share?"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.arguments import check_delta
from acceptability.stats.deltas import pair_deltas


def reduced(dataset: Dataset, scores: pd.DataFrame, baseline: str | dict[str, str],
            delta: float = 0.5, models: list[str] | None = None,
            sign: str = "strict") -> pd.DataFrame:
    """ADC on the pairs a baseline fails, and the overlap (thesis Tables 2.6, 3.6, 3.7).

    Per model: the ADC pass rate at ``delta``
    ([adc_pass][acceptability.stats.metrics.adc_pass]) on all pairs (``original``), on
    the pairs its baseline fails (``reduced``), and the share of all pairs both pass
    (``overlap``), over the pairs with a human delta that both models scored.

    Parameters
    ----------
    dataset : Dataset
        Pairs, and sentences with their ``human`` judgments.
    scores : pandas.DataFrame
        The scores of the models and baselines, in long format.
    baseline : str or dict of str to str
        One model name for all, or ``{model: baseline_model}`` (Table 3.7 pairs each
        BERT_MLM with the BERT_CoLA of the same size).
    delta : float
        The ADC threshold in z-units.
    models : list of str, optional
        The models to compare; by default the keys of a ``baseline`` dict, else every
        other scored model.
    sign : {"strict", "thesis"}
        The ADC's sign convention
        ([sign_agree][acceptability.stats.metrics.sign_agree]); the thesis' tables use
        ``"thesis"``.

    Returns
    -------
    pandas.DataFrame
        One row per model: ``model``, ``baseline``, ``delta``, ``n_pairs``, ``original``,
        ``reduced`` (NaN when the baseline fails no pair), ``n_reduced``, ``overlap``.

    Raises
    ------
    KeyError
        If a model or baseline has no scores.
    ValueError
        If ``sign`` is unknown.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.stats import reduced
    >>> dataset, scores = load_example()
    >>> table = reduced(dataset, scores, {"bert-large-cased_mlm": "bert-large-cased_acc"},
    ...                 delta=1.0)
    >>> print(table.round(3).drop(columns="baseline").to_string(index=False))
                   model  delta  n_pairs  original  reduced  n_reduced  overlap
    bert-large-cased_mlm    1.0       11     0.455    0.625          8      0.0
    """
    delta = check_delta("delta", delta)
    d = pair_deltas(dataset, scores)
    d = d[d["dh"].notna()]
    ok = metrics.adc_pass(d["dh"].to_numpy(), d["dlm"].to_numpy(), delta, sign)
    passed = d.assign(ok=ok)
    passed = passed.pivot(index="pair_id", columns="model", values="ok")
    scored = d.pivot(index="pair_id", columns="model", values="dlm").notna()
    if models is None:
        models = list(baseline) if isinstance(baseline, dict) else [
            m for m in passed.columns if m != baseline]
    rows = []
    for m in models:
        b = baseline[m] if isinstance(baseline, dict) else baseline
        for name in (m, b):
            if name not in passed.columns:
                raise KeyError(f"no scores for model {name!r}; have {list(passed.columns)}")
        common = scored[m] & scored[b]
        pm, pb = passed.loc[common, m].astype(bool), passed.loc[common, b].astype(bool)
        rows.append({
            "model": m, "baseline": b, "delta": delta, "n_pairs": int(common.sum()),
            "original": pm.mean(), "reduced": pm[~pb].mean() if (~pb).any() else np.nan,
            "n_reduced": int((~pb).sum()), "overlap": (pm & pb).mean(),
        })
    return pd.DataFrame(rows)
