"""``acceptability score`` refuses, in one line naming the file and the fix, a damaged score
cache, a cache folder others can write, and an --out it could not write (before scoring)."""

from __future__ import annotations

import os
import sys

import pytest

from acceptability.reports.cli import commands as cli
from tests.scoring.test_cache_integrity import DAMAGE, damaged_cache

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


def _score(capsys, gpt2_dir, out) -> tuple[int, str]:
    code = cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--out", str(out)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_cache(gpt2_dir, tmp_path, capsys, monkeypatch, damage):
    path = damaged_cache(tmp_path / "cache", damage)
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(path.parent))
    code, err = _score(capsys, gpt2_dir, tmp_path / "scores.csv")
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("acceptability score: error: ")
    assert f"delete {path} (and its -wal/-shm files)" in last
    for unclear in ("DatabaseError", "n_tokens", "Expecting value", "unexpected error"):
        assert unclear not in err
    assert not (tmp_path / "scores.csv").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_cache_folder_others_can_write(gpt2_dir, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o777)
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(folder))
    code, err = _score(capsys, gpt2_dir, tmp_path / "scores.csv")
    last = err.strip().splitlines()[-1]
    assert code == 2 and "error: " in last and "writable by other users" in last
    assert str(folder) in last


def _never_scored(monkeypatch, tmp_path):
    from acceptability.reports.cli import experiment

    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(experiment, "score_models", lambda *a, **k: pytest.fail("scored"))


def test_out_under_a_file_fails_before_scoring(tmp_path, capsys, monkeypatch):
    _never_scored(monkeypatch, tmp_path)
    (tmp_path / "file").write_text("x")
    code, err = _score(capsys, "gpt2", tmp_path / "file" / "scores.csv")
    assert code == 2 and "is not a folder" in err and str(tmp_path / "file") in err


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="POSIX modes; root writes a read-only folder anyway")
def test_out_in_a_read_only_folder_fails_before_scoring(tmp_path, capsys, monkeypatch):
    _never_scored(monkeypatch, tmp_path)
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    code, err = _score(capsys, "gpt2", folder / "scores.csv")
    assert code == 2 and f"cannot write in folder {folder}" in err


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0,
                    reason="POSIX modes; root writes a read-only file anyway")
def test_out_onto_a_read_only_file_fails_before_scoring(tmp_path, capsys, monkeypatch):
    _never_scored(monkeypatch, tmp_path)
    out = tmp_path / "scores.csv"
    out.write_text("kept")
    out.chmod(0o444)
    code, err = _score(capsys, "gpt2", out)
    assert code == 2 and f"{out} is read-only" in err and out.read_text() == "kept"
