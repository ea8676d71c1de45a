"""Human ratings across context conditions (Lau et al. 2020: no context, a random
paragraph, the real preceding paragraph): the mean rating in each condition and the shift
from the condition without context, overall and by sentence quality.

Quality groups chosen by the ratings without context regress to the mean: a sentence
rated low there partly by chance is rated higher anywhere else. So the thirds by rating
are formed twice: on all ratings without context (as a reader would first try), and on
one half of each sentence's ratings (its 1st, 3rd, ... rating) with the shift measured
from the other half, which the choice of group cannot bias. Translation (round-trip
machine-translated or not) is a grouping fixed before any rating.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.inference import mean_resamples, percentile_interval

BASELINE = "none"  # the condition shifts are measured from, where the data have it
THIRDS = ("low", "middle", "high")


def has_conditions(dataset) -> bool:
    """Whether the sentences come in two or more conditions of the same sentences (a
    ``condition`` column, ``type_id`` the sentence across them)."""
    s = dataset.sentences
    return ("condition" in s and s["condition"].nunique() >= 2
            and dataset.ratings is not None and s["type_id"].duplicated().any())


def _conditions(dataset) -> list[str]:
    """The conditions in order, the baseline first."""
    found = list(pd.unique(dataset.sentences["condition"]))
    base = BASELINE if BASELINE in found else found[0]
    return [base, *[c for c in found if c != base]]


def sentence_means(dataset) -> pd.DataFrame:
    """Per sentence (``type_id``) the mean rating in each condition (columns in order,
    the baseline first), for the sentences rated in every condition; with ``n_ratings``
    per condition in ``attrs``."""
    s = dataset.sentences.set_index("sentence_id")
    r = dataset.ratings.assign(type_id=lambda t: t["sentence_id"].map(s["type_id"]),
                               condition=lambda t: t["sentence_id"].map(s["condition"]))
    means = r.pivot_table(index="type_id", columns="condition", values="response",
                          aggfunc="mean", sort=False)[_conditions(dataset)].dropna()
    means.attrs["n_ratings"] = r[r["type_id"].isin(means.index)].groupby(
        "condition")["response"].size().to_dict()
    return means


def _with_interval(values: np.ndarray, names: list[str], n_boot: int, seed: int) -> dict:
    """Column means of ``values`` (sentences x columns) and, with ``n_boot``, their
    percentile intervals from the same resamples of the sentences (paired)."""
    out = dict(zip(names, values.mean(axis=0), strict=True))
    if n_boot > 0 and len(values) >= 2:
        lower, upper = percentile_interval(mean_resamples(values, n_boot, seed).T)
        for k, name in enumerate(names):
            out[f"{name}_lower"], out[f"{name}_upper"] = lower[k], upper[k]
    return out


def _resampled(n_boot: int, counts: int | list[int]) -> dict:
    """What ``_with_interval``'s resamples drew, as ``attrs["intervals"]`` (read by
    ``labels.intervals_text``): sentences, ``counts`` of them (a list: per group)."""
    return {"n_boot": n_boot, "ci": 0.95, "method": "percentile", "unit": "sentence",
            "n_units": counts, "per": "group"}


def condition_means(dataset, n_boot: int, seed: int) -> pd.DataFrame:
    """Per condition: sentences, ratings, the mean rating (the mean of the sentences'
    means) and its shift from the baseline condition, with percentile intervals from
    resamples of the sentences (all conditions of a sentence together); what was
    resampled in ``attrs["intervals"]``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.data.loaders.lau2020 import combine_conditions
    >>> from acceptability.reports.context import condition_means
    >>> s = pd.DataFrame({"sentence_id": ["a", "b", "c"], "text": ["A.", "B.", "C."]})
    >>> def rated(r):
    ...     return data.from_frames(s, ratings=pd.DataFrame(
    ...         {"sentence_id": list("aabbcc"), "response": r}), scale="likert:1-4")
    >>> ds = combine_conditions({"none": rated([1, 2, 3, 3, 4, 4]),
    ...                          "real": rated([2, 2, 3, 4, 4, 4])}, "mine")
    >>> condition_means(ds, n_boot=0, seed=0)[["condition", "mean_rating", "shift"]].round(3)
      condition  mean_rating  shift
    0      none        2.833    NaN
    1      real        3.167  0.333
    """
    means = sentence_means(dataset)
    names = list(means.columns)
    m = means.to_numpy()
    shifts = m[:, 1:] - m[:, :1]
    est = _with_interval(np.column_stack([m, shifts]),
                         names + [f"{c} shift" for c in names[1:]], n_boot, seed)
    rows = []
    for c in names:
        row = {"condition": c, "n_sentences": len(means),
               "n_ratings": int(means.attrs["n_ratings"].get(c, 0))}
        for key, src in (("mean_rating", c), ("shift", f"{c} shift")):
            for end in ("", "_lower", "_upper"):
                row[f"{key}{end}"] = est.get(f"{src}{end}", np.nan)
        rows.append(row)
    table = pd.DataFrame(rows)
    if n_boot > 0 and len(means) >= 2:
        table.attrs["intervals"] = _resampled(n_boot, len(means))
    return table


def _thirds(x: pd.Series) -> pd.Series:
    """low (at or below the 1/3 quantile), high (at or above the 2/3 quantile), middle."""
    lo, hi = np.quantile(x, [1 / 3, 2 / 3])
    return pd.Series(np.where(x <= lo, "low", np.where(x >= hi, "high", "middle")),
                     index=x.index)


def _half_means(dataset, base: str, index: pd.Index) -> tuple[pd.Series, pd.Series]:
    """Per sentence, the mean of its 1st, 3rd, ... baseline rating and of its 2nd, 4th,
    ... (in the ratings table's order)."""
    s = dataset.sentences.set_index("sentence_id")
    r = dataset.ratings[dataset.ratings["sentence_id"].map(s["condition"]) == base]
    r = r.assign(type_id=r["sentence_id"].map(s["type_id"]))
    odd = r.groupby("type_id", sort=False).cumcount() % 2 == 0
    first = r[odd].groupby("type_id")["response"].mean().reindex(index)
    second = r[~odd].groupby("type_id")["response"].mean().reindex(index)
    return first, second


def _group_row(means: pd.DataFrame, baseline: pd.Series, label: str, by: str,
               n_boot: int, seed: int) -> dict:
    names = list(means.columns)
    m = means.to_numpy()
    values = np.column_stack([baseline.to_numpy(), m[:, 1:] - baseline.to_numpy()[:, None]])
    shift_names = [f"{c}_minus_{names[0]}" for c in names[1:]]
    row = {"group": label, "classified_by": by, "n_sentences": len(m)}
    row |= {c: v for c, v in zip(names, [baseline.mean(), *m[:, 1:].mean(axis=0)],
                                 strict=True)}
    est = _with_interval(values, [names[0], *shift_names], n_boot, seed)
    return row | {k: v for k, v in est.items() if k.startswith(tuple(shift_names))}


def quality_shifts(dataset, n_boot: int, seed: int) -> pd.DataFrame:
    """The shift from the baseline condition to each other condition by sentence group
    (module docstring): original against round-trip translated sentences (where the
    sentences have ``translated``); thirds by the baseline rating, classified and
    measured on the same ratings; thirds classified on one half of each sentence's
    baseline ratings and measured on the other (sentences with two or more). Intervals:
    resamples of the group's sentences (their numbers in ``attrs["intervals"]``)."""
    means = sentence_means(dataset)
    base = means.columns[0]
    rows = []
    s = dataset.sentences.drop_duplicates("type_id").set_index("type_id")
    if "translated" in s:
        translated = s["translated"].reindex(means.index)
        for value, label in ((0, "original"), (1, "round-trip translated")):
            keep = (translated == value).to_numpy()
            if keep.sum() >= 2:
                rows.append(_group_row(means[keep], means[base][keep], label, "translation",
                                       n_boot, seed))
    same = _thirds(means[base])
    first, second = _half_means(dataset, base, means.index)
    held = first.notna() & second.notna()
    split = _thirds(first[held]).reindex(means.index)
    for by, groups, baseline in ((f"{base} rating (same ratings)", same, means[base]),
                                 (f"{base} rating (other half)", split, second)):
        for label in THIRDS:
            keep = (groups == label).to_numpy()
            if keep.sum() >= 2:
                rows.append(_group_row(means[keep], baseline[keep], f"{label} third", by,
                                       n_boot, seed))
    table = pd.DataFrame(rows)
    if n_boot > 0 and len(table):
        table.attrs["intervals"] = _resampled(n_boot, [int(n) for n in table["n_sentences"]])
    return table
