"""Overlap and "reduced" analyses (thesis Tables 2.6, 3.6, 3.7): does a model pass the
ADC on pairs a baseline (e.g. the trigram) cannot, and how much do two models share?"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats import metrics
from acceptability.stats.deltas import pair_deltas


def reduced(dataset, scores: pd.DataFrame, baseline: str | dict[str, str], delta: float = 0.5,
            models: list[str] | None = None, sign: str = "strict") -> pd.DataFrame:
    """Per model: ADC at ``delta`` on all pairs (``original``), on the pairs its baseline
    fails (``reduced``), and the share of all pairs both pass (``overlap``).

    ``baseline`` is one model name for all, or ``{model: baseline_model}`` (Table 3.7
    pairs each BERT_MLM with the BERT_CoLA of the same size). ``sign``: the ADC's sign
    convention, ``"strict"`` or ``"thesis"`` (``stats.metrics.sign_agree``); the thesis'
    tables use ``"thesis"``.
    """
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
