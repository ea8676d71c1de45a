"""Reading and writing the long scores table (CSV or Parquet), validated."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from .errors import DataError
from .tables import validate_scores


def read_scores(path: str | os.PathLike, dataset=None) -> pd.DataFrame:
    """A scores file (``.csv`` or ``.parquet``) with columns ``sentence_id, model, score``
    (optional ``method``, ``n_tokens``, ``ref_mean``, ``ref_sd``), validated against
    ``dataset``'s sentences when given."""
    p = Path(path)
    if not p.is_file():
        raise DataError("no such scores file", source=str(p),
                        fix="check the path, or write one with data.write_scores")
    try:
        df = pd.read_parquet(p) if p.suffix == ".parquet" else pd.read_csv(p)
    except Exception as err:  # pandas/pyarrow raise many parser error types
        raise DataError(f"unreadable scores file ({type(err).__name__}: {err})", source=str(p),
                        fix="write it as CSV or Parquet with data.write_scores") from None
    sentences = dataset.sentences if dataset is not None else None
    return validate_scores(df, sentences, source=str(p),
                           line_offset=2 if p.suffix != ".parquet" else None)


def write_scores(scores: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a scores table as ``.parquet`` or CSV (any other suffix), atomically."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    if p.suffix == ".parquet":
        scores.to_parquet(tmp, index=False)
    else:
        scores.to_csv(tmp, index=False)
    os.replace(tmp, p)
    return p
