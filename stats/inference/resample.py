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
from acceptability.stats.deltas import positions

# Fewer clusters than this are too few to resample as clusters: a resample of K clusters
# is one of at most C(2K - 1, K) (3 for K = 2, 92,378 for K = 10), it repeats clusters
# and so keeps on average (K - 1) / K of their between-cluster variance (the z-scores it
# recomputes, hence the variability, ADC and MCC, shift with it: with 2 BLiMP paradigms
# the variability could only rise), and cluster-bootstrap tests over-reject with few
# clusters (Cameron, Gelbach & Miller 2008). Below it, ``stratify`` resamples the pairs
# within each cluster (an interval conditional on the clusters), as for a single cluster.
MIN_CLUSTERS = 10


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
    """The units of a bootstrap clustered by a sentence column, clusters linked by a pair
    merged (see module doc).

    Parameters
    ----------
    dataset
        The sentences and pairs.
    cluster
        A sentence column (``"type_id"``, ``"phenomenon"``); ``None``: by sentence (the
        units are then single pairs, or pairs sharing a sentence, and unpaired sentences).

    Returns
    -------
    Units
        The unit of every sentence and pair, their number ``n`` and ``types_nested``.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.inference import resampling_units
    >>> ds, _ = data.load_example()
    >>> resampling_units(ds).n, resampling_units(ds, None).n
    (23, 28)
    """
    s = dataset.sentences
    if cluster is None:
        base, k = np.arange(len(s)), len(s)
    elif cluster in s.columns:
        base, uniques = pd.factorize(s[cluster].astype(str))
        k = len(uniques)
    else:
        raise KeyError(f"cannot cluster by {cluster!r}: no such sentence column "
                       f"(have {list(s.columns)}); pass None for the pair bootstrap")
    good, bad = _pair_rows(dataset)
    comp = components(k, base[good], base[bad])
    return _units(dataset, comp[base])


def _pair_rows(dataset: Dataset) -> tuple[np.ndarray, np.ndarray]:
    """Row numbers of each pair's good and bad sentence."""
    ids, p = dataset.sentences["sentence_id"], dataset.pairs
    return positions(ids, p["good_id"]), positions(ids, p["bad_id"])


def _units(dataset: Dataset, codes: np.ndarray) -> Units:
    """Units from any unit label per sentence (a pair joins its good sentence's unit)."""
    # number units by first appearance so that codes follow the sentence order
    sentence, _ = pd.factorize(codes)
    n = int(sentence.max()) + 1 if len(sentence) else 0
    types, kinds = pd.factorize(dataset.sentences["type_id"])
    typed = types >= 0  # nested: as many distinct (type, unit) as types
    nested = len(np.unique(types[typed] * max(n, 1) + sentence[typed])) == len(kinds)
    return Units(sentence=sentence, pair=sentence[_pair_rows(dataset)[0]], n=n,
                 types_nested=nested)


@dataclass(frozen=True)
class Strata:
    """How a per-group bootstrap resamples (see `stratify`).

    units: the units, single-unit groups split into finer ones; samples: the unit codes
    of each group resampled on its own (scipy resamples each sample separately);
    fixed: units of groups that hold one unit, kept once in every resample; unit: per
    group, what is resampled (the cluster column; ``"pair"``; ``"sentence"`` for a group
    without pairs; or ``"none"``: one unit, no interval); n_units: per group, how many
    units are resampled (its pairs' units when it has pairs).
    """

    units: Units
    samples: tuple[np.ndarray, ...]
    fixed: np.ndarray
    unit: list[str]
    n_units: np.ndarray

    def draws(self, idx: tuple[np.ndarray, ...]) -> np.ndarray:
        """Unit codes of one resample (or a stack of them) from one index array per sample:
        the samples side by side, then the fixed units."""
        shape = np.shape(idx[0])[:-1] if idx else ()
        fixed = np.broadcast_to(self.fixed, shape + self.fixed.shape)
        return np.concatenate([*idx, fixed], axis=-1)


def stratify(dataset: Dataset, units: Units, cluster: str | None, sentence_in: list[np.ndarray],
             pair_in: list[np.ndarray], sentence_column: bool = True) -> Strata:
    """Units resampled within groups for per-group intervals (the groups' masks of
    sentences and pairs as ``evaluate(by=...)`` splits them; ``sentence_column``: the
    grouping is a sentence column, else pairs only).

    When every unit lies in one group, each group's units are resampled separately (a
    stratified bootstrap: group sizes stay as designed; units with pairs apart from
    units of unpaired sentences, so every resample of a group has as many pairs' units
    as the group; ``n_units`` counts those). A group of fewer than `MIN_CLUSTERS`
    clusters is resampled by the pairs within each of its clusters (pairs sharing a
    sentence together, as ``cluster=None``; each cluster a stratum of its own): on
    LI-Adger each phenomenon is one ``type_id`` unit, so a phenomenon's interval comes
    from its lexical item sets; each BLiMP paradigm is one unit, so from its pairs. Such
    an interval is conditional on the group's clusters: it covers variation between
    their pairs, not between clusters. A cluster of a single pair stays whole; a group
    left with fewer than two units to resample gets no interval (unit ``"none"``). When
    units span groups, all units are resampled together (each group's share then varies).

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.inference import resampling_units
    >>> from acceptability.stats.inference.arrays import group_masks
    >>> from acceptability.stats.inference.resample import stratify
    >>> ds, _ = data.load_example()
    >>> _, sentence_in, pair_in = group_masks(ds, "dataset")
    >>> strata = stratify(ds, resampling_units(ds), "type_id", sentence_in, pair_in)
    >>> strata.unit, strata.n_units.tolist()
    (['type_id'], [23])
    """
    n_groups = len(sentence_in)
    sentence_group, pair_group = _codes(sentence_in), _codes(pair_in)
    base = cluster if cluster is not None else "pair"  # unstratified: every group alike
    lone = ~np.isin(units.sentence, units.pair)
    owner = pd.concat([
        pd.DataFrame({"unit": units.pair, "group": pair_group}),
        pd.DataFrame({"unit": units.sentence, "group": sentence_group})[
            np.ones(len(lone), bool) if sentence_column else lone]])
    per_unit = owner.groupby("unit")["group"].agg(["nunique", "first"])
    if (per_unit["nunique"] > 1).any():
        n_units = _touching(units, sentence_group, pair_group, n_groups)
        return Strata(units, (np.arange(units.n),), np.arange(0),
                      [base if k >= 2 else "none" for k in n_units], n_units)
    group = per_unit["first"].reindex(range(units.n)).to_numpy(int)
    key, refined = group, set()  # a unit's stratum: its group, or its cluster once split
    split = np.zeros(units.n, bool)
    if cluster is not None:
        finer = resampling_units(dataset, None)
        holds = pd.Series(finer.sentence).groupby(units.sentence).nunique().to_numpy()
        split = (_paired_units(units, group, n_groups)[group] < MIN_CLUSTERS) & (holds >= 2)
    if split.any():
        cluster_of = units.sentence  # the cluster of each sentence, then of each finer unit
        units = _units(dataset, np.where(split[cluster_of], units.n + finer.sentence,
                                         cluster_of))
        refined = set(group[split])
        old = np.empty(units.n, int)
        old[units.sentence] = cluster_of
        # strata in group order, a split group's clusters in their order within it
        key = group[old] * (len(split) + 1) + np.where(split[old], old + 1, 0)
        group = group[old]
    paired = np.zeros(units.n, bool)
    paired[units.pair] = True
    labels, stratum = np.unique(2 * key + paired, return_inverse=True)  # pairs apart
    size = np.bincount(stratum)
    resampled = size[stratum] >= 2
    own = _paired_units(units, group, n_groups)
    n_units = np.where(own > 0, own, _touching(units, sentence_group, pair_group, n_groups))
    drawn = _paired_units(units, group, n_groups, resampled)
    fine = ["pair" if paired[group == g].any() else "sentence" for g in range(n_groups)]
    unit = ["none" if drawn[g] < 2 else fine[g] if g in refined or cluster is None else base
            for g in range(n_groups)]
    samples = tuple(np.flatnonzero(stratum == k) for k in range(len(labels)) if size[k] >= 2)
    return Strata(units, samples, np.flatnonzero(~resampled), unit, n_units)


def _paired_units(units: Units, group: np.ndarray, n_groups: int,
                  among: np.ndarray | None = None) -> np.ndarray:
    """How many units (of ``among``) each group holds: those with pairs, or all of them
    in a group without pairs."""
    among = np.ones(units.n, bool) if among is None else among
    paired = np.zeros(units.n, bool)
    paired[units.pair] = True
    with_pairs = np.bincount(group[paired & among], minlength=n_groups)
    has_pairs = np.bincount(group[paired], minlength=n_groups) > 0
    return np.where(has_pairs, with_pairs, np.bincount(group[among], minlength=n_groups))


def _codes(masks: list[np.ndarray]) -> np.ndarray:
    """The index of the mask holding each row (-1: none)."""
    codes = np.full(len(masks[0]) if masks else 0, -1)
    for g, m in enumerate(masks):
        codes[m] = g
    return codes


def _touching(units: Units, sentence_group: np.ndarray, pair_group: np.ndarray,
              n_groups: int) -> np.ndarray:
    """How many units hold sentences or pairs of each group."""
    pairs = pd.DataFrame({"group": np.r_[sentence_group, pair_group],
                          "unit": np.r_[units.sentence, units.pair]}).drop_duplicates()
    pairs = pairs[pairs["group"] >= 0]
    return np.bincount(pairs["group"], minlength=n_groups)


def counts_from_indices(idx: np.ndarray, n_units: int) -> np.ndarray:
    """(resamples x units) counts from (resamples x draws) unit indices.

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.inference.resample import counts_from_indices
    >>> counts_from_indices(np.array([[0, 0, 2], [1, 2, 2]]), 3).tolist()
    [[2.0, 0.0, 1.0], [0.0, 1.0, 2.0]]
    """
    idx = np.atleast_2d(idx)
    out = np.empty((idx.shape[0], n_units))
    for row, drawn in zip(out, idx, strict=True):  # 7x faster than one bincount of all rows
        row[:] = np.bincount(drawn, minlength=n_units)
    return out


def _copies(reps: np.ndarray) -> tuple[np.ndarray, pd.Series]:
    rows = np.repeat(np.arange(len(reps)), reps)
    copy = np.arange(len(rows)) - np.repeat(np.cumsum(reps) - reps, reps)
    return rows, "@" + pd.Series(copy).astype(str)


def resample_dataset(dataset: Dataset, scores: pd.DataFrame, units: Units,
                     counts: np.ndarray) -> tuple[Dataset, pd.DataFrame]:
    """The dataset and scores of one resample. Used by the general bootstrap path and the
    benchmark baseline.

    Parameters
    ----------
    dataset, scores
        The data and the long scores table.
    units
        `resampling_units` of the dataset.
    counts
        How many times each unit appears in the resample.

    Returns
    -------
    dataset, scores
        Unit ``u`` ``counts[u]`` times, each copy with ids suffixed ``@0``, ``@1``, ...
        (and its own type ids when types are nested in units).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability import data
    >>> from acceptability.stats.inference import resample_dataset, resampling_units
    >>> ds, scores = data.load_example()
    >>> units = resampling_units(ds)
    >>> twice, twice_scores = resample_dataset(ds, scores, units, np.full(units.n, 2))
    >>> len(twice.pairs), twice.pairs["pair_id"].iloc[0], len(twice_scores) == 2 * len(scores)
    (58, 'pair01@0', True)
    """
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
    return Dataset(dataset.name, sent, pairs, source=dataset.source), sc
