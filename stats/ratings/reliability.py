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
from acceptability.stats.arguments import check_count, check_positive, check_seed
from acceptability.stats.metrics import pearson

_OUT = ["scope", "unit", "n_units", "n_participants", "n_splits", "n_defined", "r_half",
        "reliability", "ci_low", "ci_high", "ceiling", "seed"]


def spearman_brown(r: np.ndarray | float, factor: float = 2.0) -> np.ndarray | float:
    """Reliability of a test ``factor`` times as long, from reliability ``r``.

    The Spearman-Brown prophecy formula (Spearman 1910; Brown 1910):
    ``factor r / (1 + (factor - 1) r)``; ``factor=2`` steps a split-half correlation up
    to the full sample.

    Parameters
    ----------
    r : float or numpy.ndarray
        The reliability (e.g. a split-half correlation).
    factor : float
        How many times longer the test is.

    Returns
    -------
    float or numpy.ndarray
        The stepped-up reliability, elementwise.

    Examples
    --------
    >>> from acceptability.stats.benchmarks import spearman_brown
    >>> round(spearman_brown(0.6), 4), round(spearman_brown(0.5, factor=3), 4)
    (0.75, 0.75)
    """
    factor = check_positive("factor", factor)
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
    """Split-half reliability (Spearman-Brown corrected) and noise ceiling of forced-choice
    data (BLiMP human validation, Warstadt et al. 2020, section 3); see the module
    docstring.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per response: ``participant``, ``pair_id``, ``paradigm``, ``chose_good``
        (0/1).
    n_splits : int
        Random splits of the participants into halves, within each paradigm.
    seed : int
        Paradigms are split in sorted order from one ``np.random.default_rng(seed)``.

    Returns
    -------
    pandas.DataFrame
        One row per paradigm (unit ``"pair"``), then ``"all"`` at unit ``"pair"`` and
        ``"paradigm"``: ``scope``, ``unit``, ``n_units``, ``n_participants``,
        ``n_splits``, ``n_defined`` (splits where r is defined), ``r_half`` (their mean
        split-half r), ``reliability`` (its
        [spearman_brown][acceptability.stats.ratings.reliability.spearman_brown]
        correction), ``ci_low``/``ci_high`` (the corrected 2.5/97.5 percentiles of r over
        splits), ``ceiling`` (sqrt(reliability), 0 if negative) and ``seed``.

    Raises
    ------
    DataError
        If ``trials`` lacks ``participant``, ``pair_id``, ``paradigm`` or
        ``chose_good``, or a choice is not 0/1.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import split_half
    >>> rng = np.random.default_rng(0)
    >>> p_good = rng.uniform([0.8, 0.5, 0.2], [1.0, 0.9, 0.8], (8, 3)).T.ravel()  # 24 pairs
    >>> trials = pd.DataFrame({"participant": np.tile([f"w{i}" for i in range(20)], 24),
    ...     "paradigm": np.repeat(["easy", "mixed", "hard"], 160),
    ...     "pair_id": np.repeat([f"p{i}" for i in range(24)], 20),
    ...     "chose_good": (rng.random(480) < np.repeat(p_good, 20)).astype(int)})
    >>> table = split_half(trials, n_splits=200)
    >>> print(table[["scope", "unit", "n_units", "reliability", "ceiling"]].round(2)
    ...       .to_string(index=False))
    scope     unit  n_units  reliability  ceiling
     easy     pair        8         0.65     0.80
     hard     pair        8         0.85     0.92
    mixed     pair        8         0.53     0.73
      all     pair       24         0.87     0.93
      all paradigm        3         0.99     0.99
    """
    n_splits, seed = check_count("n_splits", n_splits), check_seed(seed)
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
