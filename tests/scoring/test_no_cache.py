"""``--no-cache`` on ``acceptability score`` and ``run`` (issue 43 item 13), as Python's
``score(..., cache=False)``: nothing is read from or written to the score cache, and the
numbers are the cached run's."""

from __future__ import annotations

import functools
import hashlib
import sqlite3
from contextlib import closing

import pandas as pd

from acceptability.reports.cli import commands as cli

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


def _entries(folder) -> list[tuple]:
    """Every row of the cache's tables, read through a read-only connection."""
    with closing(sqlite3.connect(f"file:{folder / 'scores.sqlite'}?mode=ro", uri=True)) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return [(t, *row) for t in sorted(tables) for row in db.execute(f"SELECT * FROM {t} ORDER BY 1")]


def _files(folder) -> dict[str, str]:
    """The sha256 of each file in `folder` (none: an empty dict)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("*")) if p.is_file()} if folder.exists() else {}


def test_score_no_cache_neither_reads_nor_writes_the_cache(gpt2_dir, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(cache))
    args = ["score", "--dataset", "example", "--model", gpt2_dir]
    assert cli.main([*args, "--no-cache", "--out", str(tmp_path / "uncached.csv")]) == 0
    assert not cache.exists()  # not even created
    assert cli.main([*args, "--out", str(tmp_path / "cached.csv")]) == 0
    assert "scores.sqlite" in _files(cache)
    written, reads = _entries(cache), []
    from acceptability.scoring.run.cache import ScoreCache
    monkeypatch.setattr(ScoreCache, "get_many", lambda *a: reads.append(a) or {})
    assert cli.main([*args, "--no-cache", "--out", str(tmp_path / "again.csv")]) == 0
    assert reads == [] and _entries(cache) == written  # nothing read or written
    cached = pd.read_csv(tmp_path / "cached.csv")
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "uncached.csv"), cached)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "again.csv"), cached)


def test_run_no_cache_neither_reads_nor_writes_the_cache(gpt2_dir, tmp_path, monkeypatch, capsys):
    from acceptability.reports.cli import pipeline

    cache = tmp_path / "cache"
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(cache))
    # the code as it is now, whatever is edited in this checkout while the test runs
    monkeypatch.setattr(pipeline, "code_hash", functools.cache(pipeline.code_hash))
    args = ["run", "--dataset", "example", "--model", gpt2_dir, "--n-boot", "0", "--formula", ""]
    assert cli.main([*args, "--no-cache", "--out", str(tmp_path / "uncached")]) == 0
    assert not cache.exists()
    assert cli.main([*args, "--out", str(tmp_path / "cached")]) == 0
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "uncached" / "scores.parquet"),
                                  pd.read_parquet(tmp_path / "cached" / "scores.parquet"))
    written = _files(cache)
    capsys.readouterr()
    # the cache changes no number, so it is not one of the score step's inputs
    assert cli.main([*args, "--no-cache", "--out", str(tmp_path / "cached")]) == 0
    assert "score: up to date" in capsys.readouterr().err
    assert cli.main([*args, "--no-cache", "--force", "--out", str(tmp_path / "cached")]) == 0
    assert _files(cache) == written
