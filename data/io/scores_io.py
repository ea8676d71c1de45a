"""Reading and writing the long scores table (CSV, TSV or Parquet), validated."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from acceptability.data.io.atomic import write_csv, write_parquet
from acceptability.data.io.files import SEPARATORS, read_table, table_format
from acceptability.data.tables import validate_scores


def read_scores(path: str | os.PathLike, dataset=None) -> pd.DataFrame:
    """A scores file, validated. A CSV/TSV cell that `write_scores` began with ``'`` so
    that a spreadsheet does not run it (``'=1+1``: `data.io.cells`) is read without it.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.csv``, ``.tsv`` or ``.parquet`` file (CSV/TSV possibly compressed) with
        columns ``sentence_id, model, score`` (optional ``method``, ``n_tokens``,
        ``ref_mean``, ``ref_sd``).
    dataset : Dataset, optional
        When given, every score must be of one of its sentences.

    Returns
    -------
    pandas.DataFrame
        The long scores table.

    Raises
    ------
    DataError
        For a missing or unreadable file, a non-numeric score, a repeated
        (sentence, model) or an unknown sentence; the message names the file line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data import load_example, read_scores, write_scores
    >>> ds, scores = load_example()
    >>> path = write_scores(scores, pathlib.Path(tempfile.mkdtemp()) / "scores.tsv.gz")
    >>> read_scores(path, ds).shape == scores.shape
    True
    """
    df, line_offset = read_table(path, "scores")
    sentences = dataset.sentences if dataset is not None else None
    return validate_scores(df, sentences, source=str(path), line_offset=line_offset)


def write_scores(scores: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write a scores table atomically, in the format its suffix names.

    Parameters
    ----------
    scores : pandas.DataFrame
        The long scores table.
    path : str or os.PathLike
        ``.parquet``, TSV (``.tsv``, ``.tab``) or CSV (``.csv``), compressed by a last
        suffix ``.gz``, ``.bz2``, ``.xz``, ``.zip`` or ``.zst`` (``scores.tsv.gz``).
        In CSV/TSV a name that a spreadsheet would run as a formula (starting with ``=``,
        ``+``, ``-``, ``@``, tab or CR, such as a model ``=HYPERLINK(...)``) is written
        with a leading ``'``, which `read_scores` takes off (`data.io.cells`).

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    DataError
        For another suffix, as in [read_scores][acceptability.data.read_scores].

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data import load_example, write_scores
    >>> _, scores = load_example()
    >>> write_scores(scores, pathlib.Path(tempfile.mkdtemp()) / "scores.csv").name
    'scores.csv'
    """
    p = Path(path)
    fmt = table_format(p)  # the suffix before any compression suffix: read_scores' rule
    if fmt == ".parquet":
        return write_parquet(scores, p, index=False)
    return write_csv(scores, p, index=False, sep=SEPARATORS[fmt])  # compressed by suffix
