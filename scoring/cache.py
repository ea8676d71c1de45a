"""On-disk score cache: one SQLite table, key = sha256(model identity, method, options, text).

SQLite (stdlib) gives atomic, crash-safe writes: each batch is committed in one transaction, so
an interrupted run keeps every finished batch and resumes without recomputing it.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

from .results import Scored

CHUNK = 500  # keys per SELECT ... IN (...) query, under SQLite's variable limit


def default_cache_dir() -> Path:
    """$ACCEPTABILITY_CACHE_DIR, else ~/.cache/acceptability."""
    env = os.environ.get("ACCEPTABILITY_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "acceptability"


def cache_key(identity: str, method: str, options: Mapping, text: str) -> str:
    """Stable key of one score: model identity (weights hash or hub revision), method, options, text."""
    payload = json.dumps([identity, method, dict(sorted(options.items())), text], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


class ScoreCache:
    """Scores by key in `<directory>/scores.sqlite`."""

    def __init__(self, directory: str | Path | None = None):
        self.path = Path(directory or default_cache_dir()).expanduser() / "scores.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=60)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, value TEXT)")
        self._conn.commit()

    def get_many(self, keys: Iterable[str]) -> dict[str, Scored]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, Scored] = {}
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start : start + CHUNK]
            rows = self._conn.execute(
                f"SELECT key, value FROM scores WHERE key IN ({','.join('?' * len(chunk))})", chunk
            )
            found.update((k, Scored.from_dict(json.loads(v))) for k, v in rows)
        return found

    def put_many(self, scores: Mapping[str, Scored]) -> None:
        """Write all `scores` in one transaction (all or nothing)."""
        with self._conn:
            self._conn.executemany(
                "INSERT OR REPLACE INTO scores (key, value) VALUES (?, ?)",
                [(k, json.dumps(s.to_dict())) for k, s in scores.items()],
            )

    def __len__(self) -> int:
        return self._conn.execute("SELECT COUNT(*) FROM scores").fetchone()[0]

    def close(self) -> None:
        self._conn.close()
