"""The pipeline's store: a step's results as Parquet tables and one JSON document, never
pickles, so that loading a run folder runs no code and any tool can read it.

``save(results, out / "analysis.json")`` writes each table of ``results`` as
``analysis/<field>.parquet`` and everything else (scalars, notes, settings, the tables'
``attrs`` and which columns are plain objects) into ``analysis.json``;
``load(out / "analysis.json", dataset=ds)`` rebuilds the ``Results``. Fitted mixed models
are stored as what the report shows of them (``Fits``: the coefficient table and the
lme4-style summaries as text), not as fitted objects.

Schema (``VERSION`` 1). The document is ``{"format": FORMAT, "version": VERSION,
"kind": ..., "tables": [files], "value": node}``, a node being plain JSON (null, a bool, a
number, a string, a list, an object without the key ``"$type"``) or a tagged object:

- ``{"$type": "table", "file": "x.parquet", "attrs": node, "json_columns": [...]}``: a
  table in the document's folder (``analysis/x.parquet``), its ``attrs``, and the columns of
  Python objects (text, or numbers and text mixed), stored as JSON text per cell; ``file``
  is a plain file name (a path, ``..`` or a name with a slash is refused: a table is never
  read from outside the folder);
- ``{"$type": "tuple", "items": [node, ...]}``;
- ``{"$type": K, field: node, ...}`` with ``K`` one of ``KINDS`` (the ``Results``
  without its dataset, which the caller passes to ``load``: the pipeline reloads it).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.io.atomic import own_folder, safe_name, write_parquet, write_text
from acceptability.reports.analysis import Fits, Results
from acceptability.reports.benchmark import Benchmark
from acceptability.reports.ratings.analysis import RatingsResults
from acceptability.reports.syntaxgym.analysis import SyntaxGym
from acceptability.stats.variability import Variability

FORMAT = "acceptability run store"
VERSION = 1
TAG = "$type"
KINDS = {cls.__name__: cls for cls in (Results, Fits, Benchmark, Variability, RatingsResults,
                                       SyntaxGym)}
SUPPLIED = {"Results": ("dataset",)}  # fields the loader is given, not stored
FIX = "rerun with --force to recompute it"


def _joined(name: str, part: str) -> str:
    return f"{name}.{part}" if name else part


def _table(frame: pd.DataFrame, name: str, tables: dict[str, pd.DataFrame]) -> dict:
    """A table's node; the frame joins ``tables`` under a file name made from ``name``."""
    stem = safe_name(name, "table")
    file, k = f"{stem}.parquet", 1
    while file in tables:
        k += 1
        file = f"{stem}_{k}.parquet"
    tables[file] = frame
    return {TAG: "table", "file": file, "attrs": _encode(dict(frame.attrs), name, tables),
            "json_columns": [str(c) for c in frame.columns if frame[c].dtype == object]}


def _scalar(value):
    """A numpy scalar in an object column as its Python value (``json.dumps``' default)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"a {type(value).__name__} in a table has no place in the run store")


def _write_table(frame: pd.DataFrame, path: Path) -> None:
    """``frame`` as Parquet, its object columns (which may mix numbers and text, None and
    NaN) as JSON text per cell, its ``attrs`` left to the document."""
    plain = frame.assign(**{str(c): frame[c].map(lambda v: json.dumps(v, default=_scalar))
                            for c in frame.columns if frame[c].dtype == object})
    plain.attrs = {}
    write_parquet(plain, path)


def _encode(obj, name: str, tables: dict[str, pd.DataFrame]):
    """``obj`` as a JSON node (module docstring), its tables collected in ``tables``."""
    if isinstance(obj, pd.DataFrame):
        return _table(obj, name, tables)
    if dataclasses.is_dataclass(obj) and KINDS.get(type(obj).__name__) is type(obj):
        kind = type(obj).__name__
        return {TAG: kind} | {f.name: _encode(getattr(obj, f.name), _joined(name, f.name),
                                              tables)
                              for f in dataclasses.fields(obj)
                              if f.name not in SUPPLIED.get(kind, ())}
    if isinstance(obj, tuple):
        return {TAG: "tuple", "items": [_encode(v, name, tables) for v in obj]}
    if isinstance(obj, list):
        return [_encode(v, name, tables) for v in obj]
    if isinstance(obj, dict):
        if TAG in obj or not all(isinstance(k, str) for k in obj):
            raise TypeError(f"{name}: a dict to store needs string keys other than {TAG!r}")
        return {k: _encode(v, _joined(name, k), tables) for k, v in obj.items()}
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, bool | int | float | str):
        return obj
    raise TypeError(f"{name}: a {type(obj).__name__} has no place in the run store")


def save(obj, path: Path) -> list[str]:
    """Store ``obj`` (a ``Results``, ``Fits`` or None) as the JSON document ``path`` and its
    tables in the folder named by ``path``'s stem. Other files there are left alone (a
    table an earlier document named and this one lacks is removed by the pipeline, which
    recorded it: ``pipeline.Manifest``).

    Returns
    -------
    list of str
        The files written, relative to ``path``'s folder, the document last.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from acceptability.data import load_example
    >>> from acceptability.reports import analyse
    >>> from acceptability.reports.cli import store
    >>> dataset, scores = load_example()
    >>> results = analyse(dataset, scores, n_boot=0)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     files = store.save(results, Path(tmp) / "analysis.json")
    ...     again = store.load(Path(tmp) / "analysis.json", dataset=dataset)
    >>> files[:2], files[-1]
    (['analysis/scores.parquet', 'analysis/evaluation.parquet'], 'analysis.json')
    >>> again.evaluation.equals(results.evaluation)
    True
    """
    tables: dict[str, pd.DataFrame] = {}
    value = _encode(obj, "", tables)
    folder = own_folder(path.parent / path.stem)
    for file, frame in tables.items():
        _write_table(frame, folder / file)
    files = [f"{path.stem}/{file}" for file in tables]
    document = {"format": FORMAT, "version": VERSION, "kind": type(obj).__name__,
                "tables": files, "value": value}
    write_text(path, json.dumps(document, indent=1))  # last: the tables are complete
    return [*files, path.name]


def _document(path: Path) -> dict:
    """The JSON document at ``path``, checked to be a store of this ``VERSION``."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise DataError(f"unreadable run store ({err})", source=str(path), fix=FIX) from None
    if not (isinstance(document, dict) and document.get("format") == FORMAT):
        raise DataError("not a run store of this package", source=str(path), fix=FIX)
    if document.get("version") != VERSION:
        raise DataError(f"run store version {document.get('version')!r}, this version of "
                        f"the package reads {VERSION}", source=str(path), fix=FIX)
    tables = document.get("tables")
    for file in tables if isinstance(tables, list) else [tables]:  # all in its folder
        _table_file(file[len(path.stem) + 1:] if str(file).startswith(f"{path.stem}/")
                    else file, path)
    return document


def _table_file(name, path: Path) -> str:
    """``name`` when it is a plain file name (a table beside the others in the folder of
    the document ``path``), else a DataError: a table never comes from elsewhere."""
    if (isinstance(name, str) and name not in ("", ".", "..") and Path(name).name == name
            and not set(name) & set("/\\\0")):
        return name
    raise DataError(f"table file {name!r} is not a plain file name in {path.stem}/",
                    source=str(path), fix=FIX)


def unreadable(path: Path) -> str | None:
    """Why ``path`` is not a store document that ``load`` reads (None: it loads), as the
    pipeline logs it before recomputing the step that wrote it."""
    try:
        load(path)
    except DataError as err:
        return str(err).removeprefix(f"{path}: ").removesuffix(f". Fix: {FIX}")
    return None


def _decode(node, path: Path, supplied: dict):
    """The value of a JSON node (module docstring) of the document ``path``; its tables
    are read from the folder named by its stem."""
    if isinstance(node, list):
        return [_decode(v, path, supplied) for v in node]
    if not isinstance(node, dict):
        return node
    kind = node.get(TAG)
    if kind is None:
        return {k: _decode(v, path, supplied) for k, v in node.items()}
    if kind == "tuple":
        return tuple(_decode(v, path, supplied) for v in node["items"])
    if kind == "table":
        frame = pd.read_parquet(path.parent / path.stem / _table_file(node.get("file"), path))
        for c in node["json_columns"]:
            frame[c] = pd.Series([json.loads(v) for v in frame[c]], index=frame.index,
                                 dtype=object)
        frame.attrs = _decode(node["attrs"], path, supplied)
        return frame
    if kind not in KINDS:
        raise DataError(f"unknown kind {kind!r} in a run store", source=str(path), fix=FIX)
    fields = {k: _decode(v, path, supplied) for k, v in node.items() if k != TAG}
    return KINDS[kind](**fields, **{f: supplied[f] for f in SUPPLIED.get(kind, ())})


def load(path: Path, dataset=None):
    """What ``save`` stored in ``path``; a ``Results`` gets ``dataset`` (the pipeline
    reloads the dataset, whose checksums are in the step's fingerprint).

    Raises
    ------
    DataError
        When ``path`` is not a store document of this version, or is malformed (a node of
        an unknown kind, a table file outside its folder).
    """
    document = _document(path)
    try:
        return _decode(document["value"], path, {"dataset": dataset})
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, OSError, RecursionError) as err:
        raise DataError(f"malformed run store ({type(err).__name__}: {err})",
                        source=str(path), fix=FIX) from None
