"""On-disk score cache: one SQLite table, key = sha256(model identity, scorer version, method,
options, text).

SQLite (stdlib) gives atomic, crash-safe writes: each batch is committed in one transaction, so
an interrupted run keeps every finished batch and resumes without recomputing it. One
``ScoreCache`` may be shared by threads: its connection is used under a lock.

Nothing read back is trusted unchecked: each entry carries a sha256 of its key and value, and
the token log-probabilities it stores must sum to its score. An entry that fails either (or
was written before checksums, by 0.1) is a miss: deleted, recomputed, rewritten, and counted
in one `CacheWarning`. The checksum catches damage, not forgery (whoever can write the file
can recompute it), so the folder and file must be the user's own and writable by no one else
(`acceptability.data.io.folders.check_private`). Scorers sharing a cache split their work through
a `claims` table (scoring.run.claims).

A key holds the version of the code that computes its score (`scoring.run.versions`): after a
fix that raises it, the entries the old code wrote are no longer matched, and the scores are
recomputed; the old entries stay in the file, unread, until it is deleted.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import threading
import time
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path

from acceptability.data.io.folders import check_private, private_folder
from acceptability.scoring.errors import CacheError, CacheWarning
from acceptability.scoring.results import Scored
from acceptability.scoring.run.claims import HOST, stale

CHUNK = 500  # keys per SELECT ... IN (...) query, under SQLite's variable limit
LOCK_TIMEOUT = 60  # seconds to wait for another process's write lock
COLUMNS = ["key", "value", "checksum"]
OLD_COLUMNS = ["key", "value"]  # 0.1's cache: no checksums, every entry a miss
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, value TEXT, checksum TEXT)",
    # scoring.run.claims: who is computing which key; each owner's process and last sign of life
    "CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, owner TEXT)",
    "CREATE INDEX IF NOT EXISTS claims_by_owner ON claims (owner)",
    "CREATE TABLE IF NOT EXISTS owners (owner TEXT PRIMARY KEY, pid INTEGER, host TEXT, time REAL)",
]
# why an entry was not trusted: how the warning says it, for n entries
REJECTED = {
    "old": "had no checksum (an older version's cache) and",
    "checksum": "failed {its} checksum and",
    "unreadable": "that could not be read",
    "sum": "whose token log-probabilities do not sum to {it}",
}


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


def cache_key(identity: str, method: str, options: Mapping, text: str, version: str) -> str:
    """Stable key of one score: model identity (weights hash or hub revision), method, options,
    text, and the version of the code that computes it (`scoring.run.versions.scorer_version`)."""
    payload = json.dumps([identity, version, method, dict(sorted(options.items())), text],
                         ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def entry_checksum(key: str, value: str) -> str:
    """The checksum stored with a cache entry: sha256 (hex) of its key and JSON value.

    Examples
    --------
    >>> from acceptability.scoring.run.cache import entry_checksum
    >>> entry_checksum("k", '{"score": -3.5}') == entry_checksum("k", '{"score": -9.5}')
    False
    """
    return hashlib.sha256(f"{key}\n{value}".encode()).hexdigest()


def _verified(key: str, value: str, checksum: str | None) -> Scored | str:
    """The entry's Scored, or why it is not trusted (a key of `REJECTED`)."""
    if checksum is None:
        return "old"
    if checksum != entry_checksum(key, value):
        return "checksum"
    try:
        scored = Scored.from_dict(json.loads(value))
    except (ValueError, KeyError, TypeError, AttributeError):
        return "unreadable"
    if scored.logprobs:
        total = float(sum(scored.logprobs))  # as Scored.from_tokens sums them
        same = math.isclose(total, scored.score, rel_tol=1e-9, abs_tol=1e-9) or (
            math.isnan(total) and math.isnan(scored.score))
        if not same or len(scored.logprobs) != scored.n_tokens:
            return "sum"
    return scored


def _said(counts: Counter) -> str:
    """'3 cached scores failed their checksum and were recomputed; ...'."""
    parts = []
    for why, n in counts.items():
        one = n == 1
        what = REJECTED[why].format(its="its" if one else "their", it="it" if one else "them")
        parts.append(f"{n} cached score{'' if one else 's'} {what} {'was' if one else 'were'} recomputed")
    return "; ".join(parts)


class ScoreCache:
    """Scores by key in `<directory>/scores.sqlite`; safe to share between threads and processes.

    Parameters
    ----------
    directory : str or Path, optional
        The folder; `default_cache_dir()` unless given. Created private (mode 0o700); a
        folder or file another user owns, or others may write, is refused (POSIX).

    Raises
    ------
    DataError
        For a folder or file others own or may write.
    CacheError
        For a file that is not a score cache, naming it and how to clear it.

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
        folder = private_folder(Path(directory or default_cache_dir()).expanduser(), "score cache folder")
        self.path = folder / "scores.sqlite"
        for part in ("", "-wal", "-shm"):
            check_private(f"{self.path}{part}", "score cache file")
        self.rejected: Counter = Counter()  # entries not trusted, by reason, over this cache's life
        # one connection for every thread, each use under the lock (sqlite3 objects are
        # not safe to use from two threads at once); transactions are begun explicitly
        self._lock = threading.Lock()
        with self._use():
            self._conn = sqlite3.connect(self.path, timeout=LOCK_TIMEOUT, check_same_thread=False,
                                         isolation_level=None)
        try:
            self._create()
        except BaseException:
            self._conn.close()
            raise

    def _create(self) -> None:
        """WAL mode; the tables, a 0.1 table given its checksum column; any other refused."""
        with self._use():
            self._conn.execute("PRAGMA journal_mode=WAL")
        with self._transaction() as conn:
            columns = [row[1] for row in conn.execute("PRAGMA table_info(scores)")]
            if columns == OLD_COLUMNS:
                conn.execute("ALTER TABLE scores ADD COLUMN checksum TEXT")
            elif columns and columns != COLUMNS:
                raise CacheError(f"{self.path} is not a score cache: its table 'scores' has "
                                 f"columns {', '.join(columns)}. Fix: {self._clear()}")
            for statement in SCHEMA:
                conn.execute(statement)

    def _clear(self) -> str:
        return (f"delete {self.path} (and its -wal/-shm files) or set ACCEPTABILITY_CACHE_DIR to "
                "another folder (in Python: cache=False, or cache=<another folder>)")

    def _error(self, err: sqlite3.Error) -> CacheError:
        """The CacheError an sqlite3 error means, naming the file and what to do."""
        text = str(err)
        if "locked" in text or "busy" in text:
            return CacheError(f"{self.path} stayed locked by another process for {LOCK_TIMEOUT} s "
                              f"({text}). Fix: wait for the other scorer, or use another cache folder")
        if "full" in text or "I/O" in text:  # EFBIG under a file-size limit is an I/O error
            return CacheError(f"could not write {self.path} ({text}): the disk is full, a "
                              "file-size limit was reached or the disk failed; the scores finished "
                              "before are kept. Fix: free disk space (or raise the limit) and rerun, "
                              "or set ACCEPTABILITY_CACHE_DIR to a folder on another disk")
        if "unable to open" in text or "readonly" in text:
            return CacheError(f"cannot open {self.path} to read and write ({text}). Fix: check "
                              "its permissions and its folder's, or use another cache folder")
        return CacheError(f"{self.path} is not a readable score cache ({text}). Fix: {self._clear()}")

    @contextmanager
    def _use(self) -> Iterator[None]:
        """The connection under the lock; an sqlite3 error becomes a CacheError."""
        with self._lock:
            try:
                yield
            except sqlite3.Error as err:
                raise self._error(err) from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (all or nothing), holding the write lock from its start."""
        with self._use():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    with suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                raise

    def get_many(self, keys: Iterable[str]) -> dict[str, Scored]:
        """The trusted entries of `keys`; the others are deleted, counted and warned of once."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, Scored] = {}
        bad: list[tuple[str, str]] = []
        counts: Counter = Counter()
        for start in range(0, len(keys), CHUNK):
            chunk = keys[start : start + CHUNK]
            with self._use():
                rows = self._conn.execute(
                    f"SELECT key, value, checksum FROM scores WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
            for key, value, checksum in rows:
                got = _verified(key, value, checksum)
                if isinstance(got, Scored):
                    found[key] = got
                else:
                    bad.append((key, value))
                    counts[got] += 1
        if bad:
            with self._transaction() as conn:  # unless rewritten meanwhile
                conn.executemany("DELETE FROM scores WHERE key = ? AND value IS ?", bad)
            self.rejected.update(counts)
            warnings.warn(CacheWarning(f"{self.path}: {_said(counts)}"), stacklevel=2)
        return found

    def put_many(self, scores: Mapping[str, Scored], owner: str | None = None) -> None:
        """Write all `scores` in one transaction (all or nothing), releasing their claims;
        `owner`, who computed them, is alive (its other claims are not stale)."""
        rows = []
        for key, scored in scores.items():
            value = json.dumps(scored.to_dict())
            rows.append((key, value, entry_checksum(key, value)))
        with self._transaction() as conn:
            conn.executemany("INSERT OR REPLACE INTO scores (key, value, checksum) VALUES (?, ?, ?)", rows)
            conn.executemany("DELETE FROM claims WHERE key = ?", [(key,) for key in scores])
            if owner:
                conn.execute("UPDATE owners SET time = ? WHERE owner = ?", (time.time(), owner))

    def claim(self, keys: Iterable[str], owner: str) -> set[str]:
        """Claim for `owner` the `keys` that no one has scored or claimed, and those whose
        owner is stale (scoring.run.claims.stale), in one transaction: the keys `owner` now holds."""
        keys = list(dict.fromkeys(keys))
        now = time.time()
        mine: set[str] = set()
        with self._transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO owners VALUES (?, ?, ?, ?)", (owner, os.getpid(), HOST, now))
            for start in range(0, len(keys), CHUNK):
                chunk = keys[start : start + CHUNK]
                conn.executemany(
                    "INSERT OR IGNORE INTO claims (key, owner) SELECT ?, ? "
                    "WHERE NOT EXISTS (SELECT 1 FROM scores WHERE key = ?)",
                    [(key, owner, key) for key in chunk],
                )
                held = conn.execute(
                    "SELECT key, owner, pid, host, time FROM claims LEFT JOIN owners USING (owner) "
                    f"WHERE key IN ({','.join('?' * len(chunk))})",
                    chunk,
                ).fetchall()
                gone = {other for _, other, pid, host, t in held
                        if other != owner and (pid is None or stale(pid, host, t, now))}
                taken = [(owner, key, other) for key, other, *_ in held if other in gone]
                conn.executemany("UPDATE claims SET owner = ? WHERE key = ? AND owner = ?", taken)
                conn.executemany("DELETE FROM owners WHERE owner = ? AND NOT EXISTS "
                                 "(SELECT 1 FROM claims WHERE owner = ?)", [(o, o) for o in gone])
                mine.update(key for key, other, *_ in held if other == owner or other in gone)
        return mine

    def release(self, owner: str) -> None:
        """Drop the claims `owner` still holds (it stopped, finished or not)."""
        with self._transaction() as conn:
            conn.execute("DELETE FROM claims WHERE owner = ?", (owner,))
            conn.execute("DELETE FROM owners WHERE owner = ?", (owner,))

    def __len__(self) -> int:
        with self._use():
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
