"""Resampling units for the (cluster) bootstrap, and resampled copies of a dataset.

A unit is what the bootstrap draws with replacement: a cluster of sentences (a
``type_id``, a ``phenomenon``, any sentence column) with all its sentences and pairs
(Davison & Hinkley 1997, sec. 3.8; Field & Welsh 2007). A pair must travel with both
its sentences, so clusters linked by a pair are merged into one unit (the connected
components of the cluster graph). On LI-Adger every good type is paired with bad
types of its phenomenon, so ``type_id`` units are exactly the 236 phenomena; with
``cluster=None`` each sentence is a cluster, so the units are single pairs (or pairs
sharing a sentence) and unpaired sentences: the naive pair bootstrap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from acceptability.data.dataset import Dataset
from acceptability.data.graph import components


@dataclass(frozen=True)
class Units:
    """Unit code of every sentence and pair (dataset order), the number of units, and
    whether every sentence type lies inside one unit (then a drawn copy of a unit
    holds new copies of its types)."""

    sentence: np.ndarray
    pair: np.ndarray
    n: int
    types_nested: bool


def resampling_units(dataset: Dataset, cluster: str | None = "type_id") -> Units:
    """The units of a bootstrap clustered by the sentence column ``cluster``
    (``None``: by sentence), clusters linked by a pair merged (see module doc)."""
    s, p = dataset.sentences, dataset.pairs
    if cluster is None:
        base, k = np.arange(len(s)), len(s)
    elif cluster in s.columns:
        base, uniques = pd.factorize(s[cluster].astype(str))
        k = len(uniques)
    else:
        raise KeyError(f"cannot cluster by {cluster!r}: no such sentence column "
                       f"(have {list(s.columns)}); pass None for the pair bootstrap")
    ids = pd.Index(s["sentence_id"])
    good = ids.get_indexer(p["good_id"])
    bad = ids.get_indexer(p["bad_id"])
    comp = components(k, base[good], base[bad])
    # number units by first appearance so that codes follow the sentence order
    sentence, _ = pd.factorize(comp[base])
    nested = bool((pd.Series(sentence).groupby(s["type_id"].to_numpy()).nunique() == 1).all())
    return Units(sentence=sentence, pair=sentence[good], n=int(sentence.max()) + 1 if len(s) else 0,
                 types_nested=nested)


def counts_from_indices(idx: np.ndarray, n_units: int) -> np.ndarray:
    """(resamples x units) counts from (resamples x draws) unit indices."""
    idx = np.atleast_2d(idx)
    rows = np.arange(idx.shape[0])[:, None] * n_units
    return np.bincount((rows + idx).ravel(), minlength=idx.shape[0] * n_units).reshape(
        idx.shape[0], n_units).astype(float)


def _copies(reps: np.ndarray) -> tuple[np.ndarray, pd.Series]:
    rows = np.repeat(np.arange(len(reps)), reps)
    copy = np.arange(len(rows)) - np.repeat(np.cumsum(reps) - reps, reps)
    return rows, "@" + pd.Series(copy).astype(str)


def resample_dataset(dataset: Dataset, scores: pd.DataFrame, units: Units,
                     counts: np.ndarray) -> tuple[Dataset, pd.DataFrame]:
    """The dataset and scores of one resample: unit ``u`` appears ``counts[u]`` times,
    each copy with ids suffixed ``@0``, ``@1``, ... (and its own type ids when types are
    nested in units). Used by the general bootstrap path and the benchmark baseline."""
    counts = np.asarray(counts, dtype=int)
    s, p = dataset.sentences, dataset.pairs
    reps = counts[units.sentence]
    rows, suffix = _copies(reps)
    sent = s.iloc[rows].reset_index(drop=True)
    sent["sentence_id"] = sent["sentence_id"] + suffix
    if units.types_nested:
        sent["type_id"] = sent["type_id"] + suffix
    prow, psuffix = _copies(counts[units.pair])
    pairs = p.iloc[prow].reset_index(drop=True)
    for col in ("pair_id", "good_id", "bad_id"):
        pairs[col] = pairs[col] + psuffix
    pos = pd.Index(s["sentence_id"]).get_indexer(scores["sentence_id"])
    sc = scores[pos >= 0]
    srow, ssuffix = _copies(reps[pos[pos >= 0]])
    sc = sc.iloc[srow].reset_index(drop=True)
    sc["sentence_id"] = sc["sentence_id"] + ssuffix
    return Dataset(dataset.name, sent, pairs, None, dataset.source), sc
