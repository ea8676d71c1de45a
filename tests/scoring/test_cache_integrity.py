"""The score cache trusts no entry it cannot verify (a checksum per entry, token log-probabilities
summing to the score), names a damaged file and how to clear it, and keeps its finished
entries when the disk fills up."""

from __future__ import annotations

import gc
import json
import os
import random
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from acceptability import scoring
from acceptability.scoring.errors import CacheError, CacheWarning
from acceptability.scoring.run.cache import entry_checksum
from tests.conftest import REPO

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


@pytest.fixture
def true_scores(gpt2_dir, sentences) -> np.ndarray:
    return scoring.score(sentences, gpt2_dir, cache=False, progress=False)["score"].to_numpy()


def _cached(gpt2_dir, sentences, folder):
    """Score into `folder`'s cache; the cache connection is closed (WAL folded into the file)."""
    got = scoring.score(sentences, gpt2_dir, cache=folder, progress=False)
    gc.collect()
    return got


def _rows(folder: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(folder / "scores.sqlite") as conn:
        return conn.execute("SELECT key, value FROM scores ORDER BY rowid").fetchall()


def _set_value(folder: Path, key: str, value: str, checksum: str | None = None) -> None:
    conn = sqlite3.connect(folder / "scores.sqlite")
    with conn:
        if checksum is None:
            conn.execute("UPDATE scores SET value = ? WHERE key = ?", (value, key))
        else:
            conn.execute("UPDATE scores SET value = ?, checksum = ? WHERE key = ?", (value, checksum, key))
    conn.close()


def _rescored(gpt2_dir, sentences, folder) -> tuple[np.ndarray, str]:
    with pytest.warns(CacheWarning) as caught:
        got = scoring.score(sentences, gpt2_dir, cache=folder, progress=False)["score"].to_numpy()
    return got, " ".join(str(w.message) for w in caught)


def assert_rescored(got: np.ndarray, true_scores: np.ndarray, gpt2_dir: str, sentences: list[str]) -> None:
    """``got`` holds the true scores: a score the cache recomputed equals that sentence scored
    on its own, bit for bit. Not always the batch's value: float32 kernels round by the batch's
    shape (on an AMD EPYC with AVX512-BF16, sentence 0 alone is 4.8e-7 off its value in the
    7-sentence batch, one float32 step)."""
    for i in np.flatnonzero(got != true_scores):
        alone = scoring.score([sentences[i]], gpt2_dir, cache=False, progress=False)["score"].iloc[0]
        assert got[i] == alone, (i, got[i], true_scores[i], alone)


def test_a_value_edited_to_999_is_recomputed(gpt2_dir, sentences, tmp_path, true_scores):
    _cached(gpt2_dir, sentences, tmp_path)
    key, value = _rows(tmp_path)[0]
    _set_value(tmp_path, key, json.dumps({**json.loads(value), "score": 999.0}))
    got, said = _rescored(gpt2_dir, sentences, tmp_path)
    assert_rescored(got, true_scores, gpt2_dir, sentences)
    assert "1 cached score failed its checksum and was recomputed" in said
    assert str(tmp_path / "scores.sqlite") in said
    with warnings.catch_warnings():  # rewritten with its checksum: the next run trusts it
        warnings.simplefilter("error", CacheWarning)
        scoring.score(sentences, gpt2_dir, cache=tmp_path, progress=False)


def test_a_flipped_digit_in_the_file_is_recomputed(gpt2_dir, sentences, tmp_path, true_scores):
    _cached(gpt2_dir, sentences, tmp_path)
    path = tmp_path / "scores.sqlite"
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    raw = bytearray(path.read_bytes())
    text = repr(float(true_scores[0])).encode()  # as json.dumps writes it
    at = raw.find(b'"score": ' + text)
    assert at >= 0 and raw.count(text) == 1
    digit = at + len(b'"score": -')  # the first digit: -37.1... -> -97.1...
    raw[digit] = ord("9") if raw[digit] != ord("9") else ord("1")
    path.write_bytes(raw)
    got, said = _rescored(gpt2_dir, sentences, tmp_path)
    assert_rescored(got, true_scores, gpt2_dir, sentences)
    assert "failed its checksum" in said


def test_a_forged_checksum_still_fails_the_token_sum(gpt2_dir, sentences, tmp_path, true_scores):
    """A score whose checksum was recomputed by whoever edited it: its token log-probabilities
    no longer sum to it."""
    _cached(gpt2_dir, sentences, tmp_path)
    key, value = _rows(tmp_path)[2]
    forged = json.dumps({**json.loads(value), "score": 999.0})
    _set_value(tmp_path, key, forged, entry_checksum(key, forged))
    got, said = _rescored(gpt2_dir, sentences, tmp_path)
    assert_rescored(got, true_scores, gpt2_dir, sentences)
    assert "1 cached score whose token log-probabilities do not sum to it was recomputed" in said


def test_a_cache_of_the_previous_schema_is_migrated_and_trusts_nothing(gpt2_dir, sentences, tmp_path,
                                                                        true_scores):
    """The 0.1 cache (key, value; no checksum): its rows are recomputed, never trusted."""
    _cached(gpt2_dir, sentences, tmp_path / "new")
    rows = _rows(tmp_path / "new")
    rows[0] = (rows[0][0], json.dumps({**json.loads(rows[0][1]), "score": 999.0}))
    old = tmp_path / "old"
    old.mkdir(mode=0o700)
    with sqlite3.connect(old / "scores.sqlite") as conn:
        conn.execute("CREATE TABLE scores (key TEXT PRIMARY KEY, value TEXT)")
        conn.executemany("INSERT INTO scores VALUES (?, ?)", rows)
    conn.close()
    got, said = _rescored(gpt2_dir, sentences, old)
    assert_rescored(got, true_scores, gpt2_dir, sentences)
    assert f"{len(rows)} cached scores had no checksum (an older version's cache) and were recomputed" in said
    assert len(scoring.ScoreCache(old)) == len(sentences)


def _truncated(path: Path) -> None:
    cache = scoring.ScoreCache(path.parent)
    cache.put_many({f"k{i}": scoring.results.Scored(-float(i), 3) for i in range(300)})
    cache.close()
    path.write_bytes(path.read_bytes()[:4096])  # the schema page only


def _other_table(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE scores (key TEXT, score REAL)")
    conn.close()


DAMAGE = {
    "random bytes": lambda p: p.write_bytes(random.Random(0).randbytes(8192)),
    "a text file": lambda p: p.write_text("key,value\nabc,-37.5\n"),
    "a truncated database": _truncated,
    "a table with other columns": _other_table,
}


def damaged_cache(folder: Path, damage: str) -> Path:
    """`folder` (created, private) holding a scores.sqlite damaged as `damage` says."""
    folder.mkdir(mode=0o700, exist_ok=True)
    DAMAGE[damage](folder / "scores.sqlite")
    return folder / "scores.sqlite"


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_cache_file_is_named_with_how_to_clear_it(gpt2_dir, sentences, tmp_path, damage):
    path = damaged_cache(tmp_path / "cache", damage)
    with pytest.raises(CacheError) as caught:
        scoring.score(sentences, gpt2_dir, cache=path.parent, progress=False)
    said = str(caught.value)
    assert str(path) in said and f"delete {path} (and its -wal/-shm files)" in said
    assert "ACCEPTABILITY_CACHE_DIR" in said and "cache=False" in said
    assert isinstance(caught.value, scoring.ScoringError)


FULL_DISK = """
import resource, sys
from pathlib import Path
from acceptability.reports.cli import main
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_full_disk_gives_a_clear_error_and_keeps_the_finished_entries(gpt2_dir, sentences, tmp_path):
    cache = tmp_path / "cache"
    first = _cached(gpt2_dir, sentences[:2], cache)
    texts = tmp_path / "sentences.csv"
    many = [f"The cat number {i} sat on the mat {i} times." for i in range(300)]
    texts.write_text("sentence_id,text\n" + "\n".join(f"s{i},{t}" for i, t in enumerate(many)) + "\n")
    size = (cache / "scores.sqlite").stat().st_size + 32768 + 65536  # WAL index 32 KiB, WAL 64
    env = {**os.environ, "PYTHONPATH": str(REPO), "ACCEPTABILITY_CACHE_DIR": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(size), "score", "--sentences", str(texts),
         "--model", gpt2_dir, "--out", str(tmp_path / "scores.csv")],
        env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr and "error:" in last and "unexpected" not in last
    assert str(cache / "scores.sqlite") in last and "file-size limit" in last
    again = scoring.ScoreCache(cache)
    with sqlite3.connect(cache / "scores.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    assert len(again) > 2  # the two scored before, and the batches finished before the limit
    again.close()
    kept = scoring.score(sentences[:2], gpt2_dir, cache=cache, progress=False)
    assert kept.equals(first)
