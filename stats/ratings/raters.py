"""Rater reliability with bootstrap intervals, for trial-level ratings and forced-choice
trials alike: split-half (Spearman-Brown corrected), one-vs-rest (Lau et al. 2020) and the
one-way intraclass correlations ICC(1), ICC(k).

Items are sentences (ratings) or minimal pairs (forced-choice trials, the response being
``chose_good``); an item needs two responses or more, those with one are set aside and
counted. Definitions:

- ``split_half``: the responses are split at random into two halves, the per-item means of
  the halves are correlated over items (Pearson), r is averaged over ``n_splits`` splits
  (those where it is defined) and stepped up with the Spearman-Brown formula 2r / (1 + r)
  (Spearman 1910; Brown 1910). With participant ids the *participants* are split in halves
  (all of a participant's responses stay together; an item missing from a half leaves that
  split's r out of that item); without them (Lau et al. 2020's files name no raters) each
  item's responses are split, floor(k/2) into one half. ``split`` in the output says
  which. ``ceiling`` = sqrt(reliability): the largest correlation an error-free predictor
  can be expected to reach with the per-item human means (classical test theory).
- ``one_vs_rest``: one response per item drawn at random is correlated (Pearson, over
  items) with the mean of that item's other responses, and r is averaged over
  ``n_splits`` repetitions: the "one vs. rest" human performance of Lau, Clark & Lappin
  (2017, Cognitive Science) that Lau, Armendariz, Lappin, Purver & Shu (2020, TACL, "How
  furiously can colorless green ideas sleep? Sentence acceptability in context") report
  per context condition. It estimates how well a *single* rater agrees with the crowd,
  not the reliability of the mean; participant ids are not used.
- ``icc``: one-way random-effects intraclass correlations (Shrout & Fleiss 1979, ICC(1,1)
  and ICC(1,k); McGraw & Wong 1996, ICC(1) and ICC(k)) from the one-way ANOVA of responses
  on items: ICC(1) = (MSB - MSW) / (MSB + (n0 - 1) MSW), ICC(k) = (MSB - MSW) / MSB. For
  unbalanced data (items with different numbers of responses) k is the standard adjusted
  group size n0 = (N - sum k_i^2 / N) / (n - 1) (N responses, n items; the ANOVA estimator
  for unequal groups, Donner 1986, Int. Stat. Review 54), so ICC(k) is the reliability of a
  mean of n0 responses (the Spearman-Brown step-up of ICC(1) by n0); n0 = k when balanced.

Intervals: percentile bootstrap over items (the items are resampled with replacement,
a resampled item bringing all its responses), drawn by the one resampling engine
(`acceptability.stats.inference.resample`). For ``split_half`` and ``one_vs_rest`` the
random splits are drawn once and each resample recomputes the mean r over the same splits
on its items, so the interval reflects the sampling of items, not the Monte Carlo noise
of the splits (which ``n_splits`` makes small).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.ratings import validate_ratings
from acceptability.data.tables import numeric_column, require_columns, validate_trials
from acceptability.stats.arguments import (
    check_choice,
    check_ci,
    check_count,
    check_n_boot,
    check_seed,
)
from acceptability.stats.defaults import DEFAULT_SEED
from acceptability.stats.inference import resample
from acceptability.stats.inference.engine import block_size
from acceptability.stats.metrics import pearson, pearson_from_sums
from acceptability.stats.ratings.reliability import spearman_brown

METHODS = ("split_half", "one_vs_rest", "icc")
SPLITS = ("auto", "participants", "within_item")
QUANTITIES = {"split_half": ("r_half", "reliability", "ceiling"), "one_vs_rest": ("r",),
              "icc": ("ICC(1)", "ICC(k)")}
_OUT = ["method", "quantity", "estimate", "ci_low", "ci_high", "se", "n_items",
        "n_items_set_aside", "n_responses", "n_responses_missing", "n_participants",
        "mean_per_item", "n0", "split", "n_splits", "n_boot", "ci", "seed", "unit",
        "response"]
# random keys drawn per block of splits: (splits x responses) values, ~16 MB each
_CELLS = 2**21


@dataclass(frozen=True)
class _Items:
    """The responses of the items with two or more, grouped: ``item`` codes 0..n-1 per
    response, ``value``, ``rater`` codes (None without participant ids), and what was set
    aside."""

    unit: str
    response: str
    item: np.ndarray
    value: np.ndarray
    rater: np.ndarray | None
    n_set_aside: int
    n_missing: int

    @property
    def n(self) -> int:
        return int(self.item.max()) + 1

    @property
    def counts(self) -> np.ndarray:
        return np.bincount(self.item, minlength=self.n).astype(float)

    @property
    def sums(self) -> np.ndarray:
        return np.bincount(self.item, self.value, minlength=self.n)

    @property
    def n0(self) -> float:
        """The adjusted number of responses per item of the unbalanced one-way ANOVA."""
        k, total = self.counts, len(self.item)
        return float((total - (k**2).sum() / total) / (self.n - 1))


def _table(data: pd.DataFrame | Dataset) -> tuple[pd.DataFrame, str]:
    """The validated responses table and its item column: a Dataset's ratings (else its
    trials), a trials table (it has ``chose_good``) or a ratings table."""
    if isinstance(data, Dataset):
        table = data.ratings if data.ratings is not None else data.trials
        if table is None:
            raise DataError(f"dataset {data.name!r} has neither ratings nor forced-choice "
                            "trials", source=data.name,
                            fix="load a dataset with trial-level data (e.g. "
                                "data.load_blimp_trials(), Lau et al. 2020's ratings)")
        data = table
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"expected a ratings or trials table, got {type(data).__name__}",
                        fix="pass a pandas DataFrame (or a data.Dataset)")
    if "chose_good" in data.columns:
        return validate_trials(data), "pair_id"
    return validate_ratings(data), "sentence_id"


def _raters(table: pd.DataFrame, keep: np.ndarray, source: str) -> np.ndarray | None:
    """Participant codes of the kept rows, or None where the table names no raters."""
    named = table["participant"].notna().to_numpy()
    if not named.any():
        return None
    if not named.all():
        raise DataError(f"{int((~named).sum())} of {len(named)} responses have no participant",
                        source=source, row=table.index[int(np.flatnonzero(~named)[0])],
                        column="participant",
                        fix="give every response its participant, or none of them (then "
                            "split halves are drawn within items)")
    return pd.factorize(table["participant"].to_numpy()[keep])[0]


def _items(data: pd.DataFrame | Dataset, response: str | None) -> _Items:
    """Validate ``data`` and group its responses by item; refuse what has no reliability."""
    table, unit = _table(data)
    source = "trials" if unit == "pair_id" else "ratings"
    response = response or ("chose_good" if unit == "pair_id" else "response")
    require_columns(table, [response], source)
    values = numeric_column(table, response, source).to_numpy()  # infinities stop here
    present = ~np.isnan(values)
    codes = pd.factorize(table[unit].to_numpy())[0]
    counts = np.bincount(codes[present], minlength=codes.max() + 1)
    multi = counts >= 2
    if multi.sum() < 3:
        raise DataError(f"reliability needs 3 or more items ({unit}) with two or more "
                        f"responses each; found {int(multi.sum())} ({int((counts == 1).sum())} "
                        "items have one response)", source=source, column=unit,
                        fix="pass the trial-level table, one row per response, with "
                            "repeated responses to the same items")
    keep = present & multi[codes]
    return _Items(unit=unit, response=response, item=(np.cumsum(multi) - 1)[codes[keep]],
                  value=values[keep], rater=_raters(table, keep, source),
                  n_set_aside=int((counts == 1).sum()), n_missing=int((~present).sum()))


def _ranks(g: _Items, keys: np.ndarray) -> np.ndarray:
    """Each response's rank within its item by the random ``keys`` (splits x responses):
    sorting item + key groups the items and orders each at random."""
    order = np.argsort(g.item + keys, axis=1, kind="stable")
    start = np.concatenate([[0.0], np.cumsum(g.counts)[:-1]]).astype(int)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(len(g.item)) - start[g.item[order]], axis=1)
    return ranks


def _first_part(g: _Items, method: str, split: str, size: int,
                rng: np.random.Generator) -> np.ndarray:
    """Which responses go to the first part in each of ``size`` splits (splits x responses):
    the single response (one vs. rest), or the first half."""
    if split == "participants":
        n_part = int(g.rater.max()) + 1
        order = np.argsort(np.argsort(rng.random((size, n_part)), axis=1), axis=1)
        return (order < n_part // 2)[:, g.rater]
    ranks = _ranks(g, rng.random((size, len(g.item))))
    return ranks == 0 if method == "one_vs_rest" else ranks < (g.counts // 2)[g.item]


def _item_sums(g: _Items, weights: np.ndarray) -> np.ndarray:
    """Per split, the sum of ``weights`` (splits x responses) over each item's responses."""
    rows = weights.shape[0]
    at = (np.arange(rows)[:, None] * g.n + g.item[None, :]).ravel()
    return np.bincount(at, weights.ravel(), minlength=rows * g.n).reshape(rows, g.n)


def _parts(g: _Items, method: str, split: str, n_splits: int,
           rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per split, each item's mean in the first part and in the rest (splits x items;
    NaN where a part holds none of the item's responses)."""
    first, rest = np.empty((n_splits, g.n)), np.empty((n_splits, g.n))
    step = max(1, min(n_splits, _CELLS // len(g.item)))
    counts, sums = g.counts, g.sums
    for start in range(0, n_splits, step):
        size = min(step, n_splits - start)
        in_first = _first_part(g, method, split, size, rng).astype(float)
        n_first, s_first = _item_sums(g, in_first), _item_sums(g, in_first * g.value)
        with np.errstate(invalid="ignore", divide="ignore"):
            first[start:start + size] = s_first / n_first
            rest[start:start + size] = (sums - s_first) / (counts - n_first)
    return first, rest


def _weights(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each item is drawn in each resample (resamples x items)."""
    idx = np.atleast_2d(idx)
    at = (idx + n * np.arange(len(idx))[:, None]).ravel()
    return np.bincount(at, minlength=idx.size).reshape(idx.shape).astype(float)


def _mean_r(first: np.ndarray, rest: np.ndarray, method: str):
    """The statistic of ``split_half``/``one_vs_rest``: the mean over splits of Pearson r
    between the parts' item means, on the data (`pearson`) and on resampled items
    (weighted sums, `pearson_from_sums`, the same policy), and its step-ups."""
    ok = ~(np.isnan(first) | np.isnan(rest))
    a, b = np.where(ok, first, 0.0), np.where(ok, rest, 0.0)
    n_splits, n_items = ok.shape
    sums = np.stack([ok, a, b, a * a, b * b, a * b]).astype(float).reshape(-1, n_items)

    def statistic(idx: np.ndarray) -> np.ndarray:
        if idx.ndim == 1:  # the data
            r = pearson(np.where(ok, first, np.nan), np.where(ok, rest, np.nan))[None]
        else:
            per_split = (_weights(idx, n_items) @ sums.T).reshape(len(idx), 6, n_splits)
            r = pearson_from_sums(*per_split.transpose(1, 0, 2))
        with np.errstate(invalid="ignore"):
            mean = np.nanmean(np.where(np.isfinite(r), r, np.nan), axis=-1)
        if method == "one_vs_rest":
            cells = mean[None]
        else:
            rel = spearman_brown(mean)
            cells = np.stack([mean, rel, np.sqrt(np.clip(rel, 0.0, None))])
        return cells[:, 0] if idx.ndim == 1 else cells
    return statistic


def _icc(g: _Items):
    """The statistic of ``icc``: ICC(1) and ICC(k) of the one-way ANOVA on (resampled)
    items, from per-item sums (a resampled item counts as often as it is drawn)."""
    k, s = g.counts, g.sums
    within = np.bincount(g.item, (g.value - (s / k)[g.item]) ** 2, minlength=g.n)
    per_item = np.stack([np.ones(g.n), k, k**2, s, s**2 / k, within], axis=1)

    def statistic(idx: np.ndarray) -> np.ndarray:
        n, total, k2, s1, between, ssw = (_weights(idx, g.n) @ per_item).T
        with np.errstate(invalid="ignore", divide="ignore"):
            msb = (between - s1**2 / total) / (n - 1)
            msw = ssw / (total - n)
            n0 = (total - k2 / total) / (n - 1)
            cells = np.stack([(msb - msw) / (msb + (n0 - 1) * msw), (msb - msw) / msb])
        return cells[:, 0] if idx.ndim == 1 else cells
    return statistic


def _split_kind(g: _Items, method: str, split: str) -> str | None:
    if method == "icc":
        return None
    if method == "one_vs_rest" or split == "within_item":
        return "within_item"
    if g.rater is None:
        if split == "participants":
            raise DataError("split='participants' needs participant ids; the responses "
                            "name none", column="participant",
                            fix="use split='auto' or 'within_item' (each item's responses "
                                "are split at random)")
        return "within_item"
    return "participants"


def _check(method: str, split: str, n_splits: int, n_boot: int, seed: int,
           ci: float | None) -> tuple[int, int, int, float | None]:
    """``rater_reliability``'s arguments (`stats.arguments`): ``n_boot`` unused (any count,
    0 too) where ``ci`` is None."""
    check_choice("method", method, tuple(METHODS))
    check_choice("split", split, tuple(SPLITS))
    return (check_count("n_splits", n_splits), check_n_boot(n_boot, used=ci is not None),
            check_seed(seed), None if ci is None else check_ci(ci))


def _interval(statistic, n_items: int, n_boot: int, ci: float | None,
              rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """Estimate, bounds and SE of each quantity: the percentile bootstrap over items, by
    the resampling engine (none for ``ci=None``)."""
    if ci is None:
        estimate = statistic(np.arange(n_items))
        return estimate, *np.full((3, len(estimate)), np.nan)
    res = resample([np.arange(n_items)], statistic, n_boot, ci=ci, seed=rng,
                   batch=block_size(n_items))
    return res.estimate, res.lower, res.upper, res.se


def _frame(g: _Items, method: str, found: tuple, settings: list) -> pd.DataFrame:
    """The tidy table: one row per quantity, then the counts and settings."""
    counts = [g.n, g.n_set_aside, len(g.item), g.n_missing,
              pd.NA if g.rater is None else int(g.rater.max()) + 1, float(g.counts.mean()),
              g.n0, *settings, g.unit, g.response]
    rows = [[method, q, *(float(v) for v in values), *counts]
            for q, *values in zip(QUANTITIES[method], *found, strict=True)]
    return pd.DataFrame(rows, columns=_OUT)


def rater_reliability(data: pd.DataFrame | Dataset, method: str = "split_half",
                      n_splits: int = 200, n_boot: int = 2000, seed: int = DEFAULT_SEED,
                      ci: float | None = 0.95, split: str = "auto",
                      response: str | None = None) -> pd.DataFrame:
    """Rater reliability of ratings or forced-choice trials with a bootstrap interval
    (definitions and citations: the module docstring).

    Parameters
    ----------
    data : pandas.DataFrame or Dataset
        A ratings table ([validate_ratings][acceptability.data.validate_ratings], the scale
        in ``attrs``; ``participant`` may be missing), a forced-choice trials table
        (``participant``, ``pair_id``, ``chose_good``) or a ``Dataset`` (its ratings, else
        its trials).
    method : {"split_half", "one_vs_rest", "icc"}
        See the module docstring.
    n_splits : int
        Random splits (``split_half``) or draws of the single response (``one_vs_rest``).
    n_boot : int
        Bootstrap resamples of the items (2,000: Efron & Tibshirani 1993 ask 1,000 or more
        for percentile bounds; 0.2 s for Lau et al.'s 250 sentences).
    seed : int
        One ``numpy.random.default_rng(seed)`` draws the splits, then the resamples.
    ci : float or None
        Interval level; None: no bootstrap (``ci_low``, ``ci_high``, ``se`` NaN).
    split : {"auto", "participants", "within_item"}
        How ``split_half`` halves the responses: by participants (``"auto"`` where every
        response names one) or within each item (``"auto"`` where none does).
    response : str, optional
        The response column (default ``"response"``, trials ``"chose_good"``), e.g.
        ``"response_norm"`` of ratings normed per participant; missing ones are set aside.

    Returns
    -------
    pandas.DataFrame
        A row per quantity (``r_half``, ``reliability``, ``ceiling``; ``r``; ``ICC(1)``,
        ``ICC(k)``): ``estimate``, ``ci_low``, ``ci_high``, ``se`` (bootstrap SD), items and
        responses used and set aside (one response; missing), ``n_participants`` (NA
        without ids), ``mean_per_item``, ``n0``, ``split``, the settings, ``unit``.

    Raises
    ------
    DataError
        For a table that does not validate, a missing response column, fewer than 3 items
        with 2+ responses, ids on some responses only, ``split="participants"`` without ids.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from acceptability.data import validate_ratings
    >>> from acceptability.stats import rater_reliability
    >>> gen = np.random.default_rng(5)  # 40 sentences, 12 simulated 1-7 ratings each
    >>> true = np.repeat(gen.normal(4, 1.2, 40), 12)
    >>> toy = validate_ratings(pd.DataFrame({"sentence_id": np.repeat(np.arange(40), 12),
    ...     "response": np.clip(np.round(true + gen.normal(0, 1.5, 480)), 1, 7)}),
    ...     scale="likert:1-7")
    >>> out = rater_reliability(toy, "icc", n_boot=500)
    >>> print(out[["quantity", "estimate", "ci_low", "ci_high", "n0"]].round(2)
    ...       .to_string(index=False))
    quantity  estimate  ci_low  ci_high   n0
      ICC(1)      0.24    0.13     0.34 12.0
      ICC(k)      0.79    0.65     0.86 12.0
    >>> rater_reliability(toy, n_boot=500).set_index("quantity")["estimate"].round(2).tolist()
    [0.66, 0.8, 0.89]
    """
    n_splits, n_boot, seed, ci = _check(method, split, n_splits, n_boot, seed, ci)
    g = _items(data, response)
    kind = _split_kind(g, method, split)
    rng = np.random.default_rng(seed)
    statistic = _icc(g) if kind is None else _mean_r(*_parts(g, method, kind, n_splits, rng),
                                                      method)
    return _frame(g, method, _interval(statistic, g.n, n_boot, ci, rng),
                  [kind, n_splits if kind else 0,
                   0 if ci is None else n_boot, ci, seed])
