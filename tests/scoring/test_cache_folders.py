"""A score cache is read only from a folder and file of the user's own that no one else can
write (POSIX): anyone who can write them could plant scores. The folder the package creates
is private (mode 0o700)."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from acceptability import scoring
from acceptability.data import DataError
from acceptability.data.io.folders import check_private

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX owners and modes")


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_the_folder_it_creates_is_private(tmp_path, monkeypatch):
    monkeypatch.delenv("ACCEPTABILITY_CACHE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    old = os.umask(0o002)  # a umask that would leave a new folder group-writable
    try:
        cache = scoring.ScoreCache()
    finally:
        os.umask(old)
    cache.close()
    assert cache.path == tmp_path / ".cache" / "acceptability" / "scores.sqlite"
    assert _mode(cache.path.parent) == 0o700
    given = scoring.ScoreCache(tmp_path / "a" / "b")
    given.close()
    assert _mode(tmp_path / "a" / "b") == 0o700


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_folder_others_can_write_is_refused(tmp_path, mode):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(mode)
    with pytest.raises(DataError) as caught:
        scoring.ScoreCache(folder)
    said = str(caught.value)
    assert str(folder) in said and "writable by other users" in said and f"{mode:#o}" in said
    assert f"chmod go-w {folder}" in said
    assert not (folder / "scores.sqlite").exists()


@pytest.mark.parametrize("mode", [0o666, 0o664])
def test_a_cache_file_others_can_write_is_refused(tmp_path, mode):
    scoring.ScoreCache(tmp_path).close()
    (tmp_path / "scores.sqlite").chmod(mode)
    with pytest.raises(DataError, match="scores.sqlite.*writable by other users"):
        scoring.ScoreCache(tmp_path)


def test_a_folder_of_another_user_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "getuid", lambda: os.stat(tmp_path).st_uid + 1)
    with pytest.raises(DataError, match=r"owned by another user \(uid \d+, not \d+\)"):
        scoring.ScoreCache(tmp_path)


def test_a_cache_file_of_another_user_is_refused(tmp_path, monkeypatch):
    scoring.ScoreCache(tmp_path).close()
    real = os.stat

    def stat_of(path, *args, **kwargs):
        st = real(path, *args, **kwargs)
        if str(path).endswith("scores.sqlite"):
            return os.stat_result((*st[:4], st.st_uid + 1, *st[5:10]))
        return st

    monkeypatch.setattr(os, "stat", stat_of)
    with pytest.raises(DataError, match="scores.sqlite.*owned by another user"):
        scoring.ScoreCache(tmp_path)


def test_check_private_accepts_what_only_its_owner_can_write(tmp_path):
    (tmp_path / "f").write_text("x")
    (tmp_path / "f").chmod(0o644)
    assert check_private(tmp_path / "f", "file") == tmp_path / "f"
    (tmp_path / "f").chmod(0o646)
    with pytest.raises(DataError, match="file .*writable by other users"):
        check_private(tmp_path / "f", "file")


def test_downloads_make_the_shared_cache_folder_private(tmp_path, monkeypatch):
    """Data downloads create $ACCEPTABILITY_CACHE_DIR as the score cache does (mode 700):
    a folder made group-writable by the umask would then refuse the score cache."""
    from acceptability.data.io import sources

    folder = tmp_path / "cache"
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(folder))
    monkeypatch.setattr(sources, "dataset_dir", lambda dataset, path=None: None)
    old = os.umask(0o002)
    try:
        with pytest.raises(DataError):  # no internet here: the download itself fails
            sources.fetch("blimp", sorted(sources.registry("blimp"))[0])
    finally:
        os.umask(old)
    assert _mode(folder) == 0o700
    scoring.ScoreCache(folder).close()  # and the score cache accepts it
