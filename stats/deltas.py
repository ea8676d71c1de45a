"""Sentence- and pair-level frames of z-scored model scores beside human judgments.

Built from integer codes, not joins on the string ids: each score row's sentence
position is looked up once (`positions`, a hash lookup in Arrow), and every frame is
then filled by array indexing, so the cost grows linearly with the rows.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from acceptability.data.dataset import Dataset
from acceptability.data.tables import arrow_strings
from acceptability.stats.zscore import zscore


def positions(ids, values) -> np.ndarray:
    """Position of each of ``values`` in ``ids`` (the first, if repeated), -1 if absent.

    A hash lookup in Arrow: pandas' ``Index.get_indexer`` on string ids grows
    superlinearly (about 2.5x slower at 400,000 ids).

    Examples
    --------
    >>> from acceptability.stats.deltas import positions
    >>> positions(["s1", "s2", "s3"], ["s3", "s9", "s1"]).tolist()
    [2, -1, 0]
    """
    found = pc.index_in(arrow_strings(values), value_set=arrow_strings(ids))
    return pc.fill_null(found, -1).to_numpy().astype(np.intp)


# inside `z_scoring_once`: the `_z_scored` results of this block, by the objects given
_ONCE: ContextVar[dict | None] = ContextVar("z_scored_once", default=None)


@contextmanager
def z_scoring_once() -> Iterator[None]:
    """Within this block, the same dataset and scores objects are z-scored once (for
    ``evaluate``'s table and its bootstrap's arrays); the caller must not modify them
    inside it.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.deltas import model_grid, sentence_and_pair_frames, z_scoring_once
    >>> example = data.load_example()
    >>> with z_scoring_once():
    ...     sent, _ = sentence_and_pair_frames(*example)
    ...     models, grid = model_grid(*example)  # the same z-scores, not computed again
    >>> grid["z"].shape
    (57, 3)
    """
    token = _ONCE.set({})
    try:
        yield
    finally:
        _ONCE.reset(token)


def _z_scored(dataset: Dataset, scores: pd.DataFrame) -> tuple[pd.DataFrame, pd.Index,
                                                                np.ndarray]:
    """``zscore(scores, dataset)``, its models in order of appearance, and each row's
    cell in a (model x sentence) grid of the dataset's sentences: model code times the
    number of sentences plus the sentence's position (once per `z_scoring_once` block)."""
    once, key = _ONCE.get(), (id(dataset), id(dataset.sentences), id(scores))
    if once is not None and key in once:
        return once[key][1]
    z = zscore(scores, dataset)
    codes, models = pd.factorize(z["model"])
    cell = codes * len(dataset.sentences) + positions(dataset.sentences["sentence_id"],
                                                      z["sentence_id"])
    if once is not None:  # the objects kept alive with their ids
        once[key] = ((dataset, dataset.sentences, scores), (z, pd.Index(models), cell))
    return z, pd.Index(models), cell


def _grid(z: pd.DataFrame, cell: np.ndarray, size: int, columns: list[str]) -> dict:
    """``columns`` of ``z`` laid out on the grid of `_z_scored` (missing where no row)."""
    row = np.full(size, -1, dtype=np.intp)
    row[cell] = np.arange(len(z))
    return {c: pd.api.extensions.take(z[c].array, row, allow_fill=True) for c in columns}


def sentence_frame(dataset: Dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, sentence): the sentence columns plus ``score`` and ``z``.

    Every dataset sentence appears for every model (``z`` NaN where unscored); ``z``
    comes from [zscore][acceptability.stats.zscore.zscore] (thesis 1.3.3).

    Parameters
    ----------
    dataset : Dataset
        The sentences to list, with their ``human`` judgments.
    scores : pandas.DataFrame
        Scores of the dataset's sentences, one per (sentence, model).

    Returns
    -------
    pandas.DataFrame
        ``model``, the sentence columns, ``score``, ``z`` (and ``method`` when scored
        with one).

    Raises
    ------
    DataError
        From [zscore][acceptability.stats.zscore.zscore]: a malformed scores table or an
        unknown sentence.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.stats import sentence_frame
    >>> example = load_example()
    >>> frame = sentence_frame(*example)
    >>> len(frame) == 3 * len(example[0].sentences)  # 3 models x 57 sentences
    True
    >>> frame.groupby("model", sort=False)["z"].count().to_dict()
    {'bert-large-cased_mlm': 32, 'bert-large-cased_acc': 40, 'trigram_slor': 16}
    """
    return _sentence_frame(dataset, *_z_scored(dataset, scores))


def _sentence_frame(dataset: Dataset, z: pd.DataFrame, models: pd.Index,
                    cell: np.ndarray) -> pd.DataFrame:
    s = dataset.sentences
    n = len(s)
    full = s.iloc[np.tile(np.arange(n), len(models))].reset_index(drop=True)
    full.insert(0, "model", pd.Series(models.repeat(n), dtype=z["model"].dtype))
    keep = [c for c in ("score", "z", "method") if c in z.columns]
    for col, values in _grid(z, cell, len(full), keep).items():
        full[col] = values
    return full


def pair_deltas(dataset: Dataset, scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, pair): the human and model deltas ``dh`` and ``dlm``.

    ``dh`` = human(good) - human(bad) and ``dlm`` = z(good) - z(bad), the good-minus-bad
    differences of the human judgments and of the z-scored model scores (thesis 1.3.3,
    the inputs of the ADC, eq. 1.1-1.2).

    Parameters
    ----------
    dataset : Dataset
        Its pairs give the good and bad sentence ids; its sentences, ``human``.
    scores : pandas.DataFrame
        Model scores, z-scored per model here.

    Returns
    -------
    pandas.DataFrame
        The pair columns plus ``model``, ``human_good``, ``human_bad``, ``z_good``,
        ``z_bad``, ``dh`` and ``dlm`` (NaN where a value is missing).

    Raises
    ------
    DataError
        When ``scores`` is not a valid scores table of ``dataset``.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> d = stats.pair_deltas(*data.load_example())
    >>> mlm = d[d["model"] == "bert-large-cased_mlm"].dropna(subset=["dlm"])
    >>> print(mlm[["pair_id", "dh", "dlm"]].head(3).round(2).to_string(index=False))
    pair_id    dh   dlm
     pair05 -0.42 -0.51
     pair07 -0.16 -1.45
     pair08 -0.09  0.15
    """
    return _pair_deltas(dataset, *_z_scored(dataset, scores))


def _by_model(z: pd.DataFrame, models: pd.Index, cell: np.ndarray, n: int,
              column: str) -> np.ndarray:
    """``column`` of ``z`` as a (models x sentences) array, models sorted (missing: NaN)."""
    order = np.argsort(models.to_numpy(), kind="stable")
    values = _grid(z, cell, len(models) * n, [column])[column]
    return np.asarray(values).reshape(len(models), n)[order]


def model_grid(dataset: Dataset, scores: pd.DataFrame) -> tuple[list[str], dict[str, np.ndarray]]:
    """The models (sorted) and their ``z``, ``score`` (and ``method``) on every dataset
    sentence, each a (sentences x models) array (NaN where unscored): `sentence_frame`'s
    values without its rows.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.deltas import model_grid
    >>> models, grid = model_grid(*data.load_example())
    >>> models[0], grid["z"].shape, sorted(grid)
    ('bert-large-cased_acc', (57, 3), ['method', 'score', 'z'])
    """
    z, models, cell = _z_scored(dataset, scores)
    n = len(dataset.sentences)
    columns = [c for c in ("z", "score", "method") if c in z.columns]
    grid = {c: _by_model(z, models, cell, n, c).T for c in columns}
    return sorted(models), {c: v if c == "method" else v.astype(float) for c, v in grid.items()}


def _pair_deltas(dataset: Dataset, z: pd.DataFrame, models: pd.Index,
                 cell: np.ndarray) -> pd.DataFrame:
    s, p = dataset.sentences, dataset.pairs
    zgrid = _by_model(z, models, cell, len(s), "z").astype(float)
    models = models.sort_values()  # as a pivot's columns
    ids, human = s["sentence_id"], s["human"].to_numpy(float)
    good, bad = positions(ids, p["good_id"]), positions(ids, p["bad_id"])
    out = p.iloc[np.tile(np.arange(len(p)), len(models))].reset_index(drop=True)

    def at(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
        return np.where(rows >= 0, values[..., rows], np.nan)

    out["model"] = pd.Series(models.repeat(len(p)), dtype=z["model"].dtype)
    out["human_good"] = np.tile(at(human, good), len(models))
    out["human_bad"] = np.tile(at(human, bad), len(models))
    out["z_good"] = at(zgrid, good).ravel()
    out["z_bad"] = at(zgrid, bad).ravel()
    out["dh"] = out["human_good"] - out["human_bad"]
    out["dlm"] = out["z_good"] - out["z_bad"]
    return out


def sentence_and_pair_frames(dataset: Dataset, scores: pd.DataFrame,
                             columns: list[str] | None = None
                             ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """`sentence_frame` and `pair_deltas` of the same scores, z-scored once; with
    ``columns``, only those of the sentence and pair columns (and the ids) are carried
    (copying texts for every model is most of the frames' cost on large data).

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.deltas import sentence_and_pair_frames
    >>> sent, pairs = sentence_and_pair_frames(*data.load_example())
    >>> len(sent), len(pairs)
    (171, 87)
    """
    z = _z_scored(dataset, scores)
    if columns is not None:
        s, p = dataset.sentences, dataset.pairs
        dataset = copy.copy(dataset)
        dataset.sentences = s[[c for c in s.columns if c == "sentence_id" or c in columns]]
        dataset.pairs = p[[c for c in p.columns
                           if c in ("pair_id", "good_id", "bad_id") or c in columns]]
    return _sentence_frame(dataset, *z), _pair_deltas(dataset, *z)
