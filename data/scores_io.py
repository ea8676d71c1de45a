"""Reading and writing the long scores table (CSV, TSV or Parquet), validated."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from acceptability.data.atomic import atomic_path
from acceptability.data.files import SEPARATORS, read_table, table_format
from acceptability.data.tables import validate_scores


def read_scores(path: str | os.PathLike, dataset=None) -> pd.DataFrame:
    """A scores file (``.csv``, ``.tsv`` or ``.parquet``) with columns ``sentence_id,
    model, score`` (optional ``method``, ``n_tokens``, ``ref_mean``, ``ref_sd``),
    validated against ``dataset``'s sentences when given."""
    df, line_offset = read_table(path, "scores")
    sentences = dataset.sentences if dataset is not None else None
    return validate_scores(df, sentences, source=str(path), line_offset=line_offset)


def write_scores(scores: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a scores table as ``.parquet``, TSV (``.tsv``, ``.tab``) or CSV (``.csv``),
    compressed by a last suffix ``.gz``, ``.bz2``, ``.xz``, ``.zip`` or ``.zst``
    (``scores.tsv.gz``), atomically; another suffix is an error, as in read_scores."""
    p = Path(path)
    fmt = table_format(p)  # the suffix before any compression suffix: read_scores' rule
    with atomic_path(p) as tmp:  # tmp keeps the suffix: pandas infers the compression
        if fmt == ".parquet":
            scores.to_parquet(tmp, index=False)
        else:
            scores.to_csv(tmp, index=False, sep=SEPARATORS[fmt])
    return p
