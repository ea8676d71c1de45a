"""Split-half reliability of forced-choice human data, Spearman-Brown corrected, as a
noise ceiling for model-human correlations (BLiMP human validation, Warstadt et al. 2020,
section 3; correlations of accuracies over paradigms as in its section 5.3).

Participants are split at random into two halves *within each paradigm* (a worker's
responses in a paradigm stay together). In each half the proportion choosing the
acceptable sentence is computed per pair, and these are correlated (Pearson) between
halves: over the pairs of one paradigm (``scope`` = the paradigm, ``unit`` = "pair"),
over all pairs (``scope`` = "all", ``unit`` = "pair"), and, for the per-paradigm
accuracies (mean over a paradigm's pairs), over paradigms (``scope`` = "all", ``unit`` =
"paradigm"). Each split-half r is stepped up to full size with Spearman-Brown,
``2r / (1 + r)``: r is averaged over the splits where it is defined (it is not when a
half has no variance, e.g. every pair at 100%), then corrected.

What the ceiling is for: ``reliability`` estimates the correlation between the observed
human values and a replication with as many new participants; ``ceiling`` =
sqrt(reliability) is the largest correlation an error-free model measure (e.g. the
per-pair model delta, or per-paradigm model accuracy) can be expected to reach with the
observed human values (classical test theory: r_max = sqrt(rel_human * rel_model), with
rel_model = 1 for a deterministic model). Draw ``ceiling`` beside r(model delta, human
``prop_good``) at unit "pair", and beside r(model accuracy, human accuracy) over
paradigms at unit "paradigm".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.tables import validate_trials
from acceptability.stats.metrics import pearson

_OUT = ["scope", "unit", "n_units", "n_participants", "n_splits", "n_defined", "r_half",
        "reliability", "ci_low", "ci_high", "ceiling", "seed"]


def spearman_brown(r: np.ndarray | float, factor: float = 2.0) -> np.ndarray | float:
    """Reliability of a test ``factor`` times as long, from reliability ``r``."""
    return factor * r / (1.0 + (factor - 1.0) * r)


def _halves(g: pd.DataFrame, n_splits: int, rng: np.random.Generator):
    """Per-pair proportions choosing good in each half, shape (n_splits, n_pairs)."""
    part, p_codes = np.unique(g["participant"].to_numpy(), return_inverse=True)
    pairs, q_codes = np.unique(g["pair_id"].to_numpy(), return_inverse=True)
    n = np.zeros((len(part), len(pairs)))
    k = np.zeros_like(n)
    np.add.at(n, (p_codes, q_codes), 1.0)
    np.add.at(k, (p_codes, q_codes), g["chose_good"].to_numpy(float))
    ranks = np.argsort(np.argsort(rng.random((n_splits, len(part))), axis=1), axis=1)
    half = (ranks < len(part) // 2).astype(float)
    n_a, k_a = half @ n, half @ k
    with np.errstate(invalid="ignore", divide="ignore"):
        return k_a / n_a, (k.sum(0) - k_a) / (n.sum(0) - n_a), len(part)


def _row(scope: str, unit: str, r: np.ndarray, n_units: int, n_part: int,
         seed: int) -> dict:
    ok = r[np.isfinite(r)]
    r_half = float(ok.mean()) if len(ok) else np.nan
    lo, hi = np.percentile(ok, [2.5, 97.5]) if len(ok) else (np.nan, np.nan)
    rel = spearman_brown(r_half)
    return dict(zip(_OUT, [scope, unit, n_units, n_part, len(r), len(ok), r_half, rel,
                           spearman_brown(lo), spearman_brown(hi),
                           np.sqrt(max(rel, 0.0)) if len(ok) else np.nan, seed], strict=True))


def split_half(trials: pd.DataFrame, n_splits: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Split-half reliability (Spearman-Brown corrected) and noise ceiling; see the module
    docstring. One row per paradigm (unit "pair"), then "all" at unit "pair" and
    "paradigm". ``r_half`` is the mean split-half r over the ``n_defined`` splits where r
    is defined, ``reliability`` its Spearman-Brown correction, ``ci_low``/``ci_high`` the
    corrected 2.5/97.5 percentiles of r over splits, ``ceiling`` sqrt(reliability), 0 if
    negative.
    Paradigms are split in sorted order from one ``np.random.default_rng(seed)``.
    """
    trials = validate_trials(trials, columns=("participant", "pair_id", "paradigm", "chose_good"))
    rng = np.random.default_rng(seed)
    rows, a_all, b_all, para_a, para_b = [], [], [], [], []
    for paradigm, g in trials.groupby("paradigm", sort=True):
        a, b, n_part = _halves(g, n_splits, rng)
        rows.append(_row(str(paradigm), "pair", pearson(a, b), a.shape[1], n_part,
                         seed))
        a_all.append(a)
        b_all.append(b)
        para_a.append(np.nanmean(a, axis=1))
        para_b.append(np.nanmean(b, axis=1))
    n_part = trials["participant"].nunique()
    a, b = np.hstack(a_all), np.hstack(b_all)
    rows.append(_row("all", "pair", pearson(a, b), a.shape[1], n_part, seed))
    pa, pb = np.column_stack(para_a), np.column_stack(para_b)
    rows.append(_row("all", "paradigm", pearson(pa, pb), pa.shape[1], n_part, seed))
    return pd.DataFrame(rows, columns=_OUT)
