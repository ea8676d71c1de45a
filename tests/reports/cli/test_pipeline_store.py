"""`run`'s step outputs are pickles; a pickle can run code when loaded, so only those that
this user's runs signed (HMAC with a key in the cache folder) are ever loaded."""

from __future__ import annotations

import pickle

import pytest

from acceptability import data
from acceptability.reports.cli import pipeline


class Boom:
    """Loading this pickle would run os.system."""

    def __reduce__(self):
        import os

        return (os.system, ("echo pwned > pwned.txt",))


@pytest.fixture
def key_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_round_trip_and_key_is_private(tmp_path, key_dir):
    pipeline._pickle({"a": 1}, tmp_path / "x.pkl")
    assert pipeline._unpickle(tmp_path / "x.pkl") == {"a": 1}
    assert (key_dir / "run-key").stat().st_mode & 0o077 == 0


@pytest.mark.parametrize("forge", ["plain", "other_key", "edited"])
def test_a_foreign_or_edited_pickle_is_never_loaded(tmp_path, key_dir, monkeypatch, forge):
    path = tmp_path / "analysis.pkl"
    monkeypatch.chdir(tmp_path)
    if forge == "plain":  # an unsigned pickle, e.g. from an older version or another tool
        path.write_bytes(pickle.dumps(Boom()))
    elif forge == "other_key":  # signed by someone else's key
        monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "theirs"))
        pipeline._pickle(Boom(), path)
        monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(key_dir))
    else:  # ours, with the payload swapped after signing
        pipeline._pickle({"a": 1}, path)
        signature = path.read_bytes().partition(b"\n")[0]
        path.write_bytes(signature + b"\n" + pickle.dumps(Boom()))
    assert pipeline._authentic(path) is None
    with pytest.raises(data.DataError, match="not written by a run of yours"):
        pipeline._unpickle(path)
    assert not (tmp_path / "pwned.txt").exists()
