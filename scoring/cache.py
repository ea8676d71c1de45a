"""On-disk score cache: one SQLite table, key = sha256(model identity, method, options, text).

SQLite (stdlib) gives atomic, crash-safe writes: each batch is committed in one transaction, so
an interrupted run keeps every finished batch and resumes without recomputing it. One
``ScoreCache`` may be shared by threads: its connection is used under a lock.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from acceptability.scoring.results import Scored

CHUNK = 500  # keys per SELECT ... IN (...) query, under SQLite's variable limit


def default_cache_dir() -> Path:
    """The score cache's folder: $ACCEPTABILITY_CACHE_DIR, else ~/.cache/acceptability.

    Returns
    -------
    Path

    Examples
    --------
    >>> from acceptability import scoring
    >>> folder = scoring.default_cache_dir()  # where score(..., cache=True) keeps scores
    >>> folder.name != ""
    True
    """
    env = os.environ.get("ACCEPTABILITY_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "acceptability"


def cache_key(identity: str, method: str, options: Mapping, text: str) -> str:
    """Stable key of one score: model identity (weights hash or hub revision), method, options, text."""
    payload = json.dumps([identity, method, dict(sorted(options.items())), text], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


class ScoreCache:
    """Scores by key in `<directory>/scores.sqlite`; safe to share between threads.

    Parameters
    ----------
    directory : str or Path, optional
        The folder; `default_cache_dir()` unless given.

    Examples
    --------
    >>> import tempfile
    >>> from acceptability import scoring
    >>> cache = scoring.ScoreCache(tempfile.mkdtemp())
    >>> len(cache)
    0
    >>> cache.close()
    """

    def __init__(self, directory: str | Path | None = None):
        self.path = Path(directory or default_cache_dir()).expanduser() / "scores.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # one connection for every thread, each use under the lock (sqlite3 objects are
        # not safe to use from two threads at once)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, value TEXT)")
        self._conn.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, Scored]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, Scored] = {}
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start : start + CHUNK]
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT key, value FROM scores WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
            found.update((k, Scored.from_dict(json.loads(v))) for k, v in rows)
        return found

    def put_many(self, scores: Mapping[str, Scored]) -> None:
        """Write all `scores` in one transaction (all or nothing)."""
        rows = [(k, json.dumps(s.to_dict())) for k, s in scores.items()]
        with self._lock, self._conn:
            self._conn.executemany("INSERT OR REPLACE INTO scores (key, value) VALUES (?, ?)", rows)

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def open_cache(cache: bool | str | Path | ScoreCache | None) -> ScoreCache | None:
    """The cache a `cache` setting means: True the default directory, a path that
    directory, a ScoreCache itself, False (or None) no cache."""
    if isinstance(cache, ScoreCache):
        return cache
    if cache is False or cache is None:
        return None
    return ScoreCache(None if cache is True else cache)
