"""A full disk (issue 43, item 13): ENOSPC while writing, or while flushing to disk, is
an error that names the file, says the disk is full and how to go on; no temporary file
is left and the file there before is unchanged. The CLI exits 2 with that one line. The
disk is "filled" by making the write or ``os.fsync`` raise ENOSPC."""

from __future__ import annotations

import errno
import os

import pandas as pd
import pytest

from acceptability.data.io import atomic
from acceptability.data.io.atomic import DiskFullError, atomic_files, write_csv, write_text
from acceptability.reports.cli import commands as cli


def _full(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def half_then_full(self, path, **kwargs):
    """``DataFrame.to_csv`` that writes part of the file, then finds the disk full."""
    with open(path, "w") as handle:
        handle.write("half,of")
    _full()


def _check(err: Exception, target, folder) -> None:
    text = str(err)
    assert str(target) in text and "disk is full" in text and "--out" in text
    assert "free space" in text and isinstance(err, OSError) and err.errno == errno.ENOSPC
    assert sorted(p.name for p in folder.iterdir()) == [target.name]  # no temporary file


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, monkeypatch, where):
    target = write_csv(pd.DataFrame({"a": [1]}), tmp_path / "evaluation.csv", index=False)
    if where == "write":
        monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full)
    else:  # the file system reports it only when the data reach the disk
        monkeypatch.setattr(os, "fsync", _full)
    with pytest.raises(DiskFullError) as caught:
        write_csv(pd.DataFrame({"a": [2]}), target, index=False)
    _check(caught.value, target, tmp_path)
    assert target.read_text() == "a\n1\n"


def test_a_full_disk_in_a_folder_of_files(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    write_text(folder / "config.json", "{}")
    with pytest.raises(DiskFullError) as caught, atomic_files(folder) as tmp:
        (tmp / "config.json").write_text('{"new": 1}')
        _full()
    assert str(folder) in str(caught.value)
    assert [p.name for p in folder.iterdir()] == ["config.json"]
    assert (folder / "config.json").read_text() == "{}"


def test_other_os_errors_pass_through(tmp_path, monkeypatch):
    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(pd.DataFrame, "to_csv", denied)
    with pytest.raises(PermissionError):
        write_csv(pd.DataFrame({"a": [1]}), tmp_path / "t.csv")
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(errno.EINVAL, "x")))
    assert write_text(tmp_path / "u.txt", "x").read_text() == "x"  # a file system that cannot


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_the_cli_says_the_disk_is_full(tmp_path, monkeypatch, capsys, where):
    out = tmp_path / "evaluate.csv"
    args = ["evaluate", "--dataset", "example", "--model", "trigram_slor", "--n-boot", "0",
            "--out", str(out)]
    assert cli.main(args) == 0
    before = out.read_bytes()
    capsys.readouterr()
    if where == "write":
        monkeypatch.setattr(pd.DataFrame, "to_csv", half_then_full)
    else:
        monkeypatch.setattr(atomic.os, "fsync", _full)
    assert cli.main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"acceptability evaluate: error: {out}: the disk is full")
    assert len(err.splitlines()) == 1 and "Errno" not in err and "--out" in err
    assert out.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == [out.name]
