"""One writer per run folder: a second `run` (or `report`) into a folder another process
is writing stops at once, naming the folder, the holder's pid and what to do; the first
finishes, and what it recorded is what it stored. A lock left by a killed process does not
block."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from acceptability.data import DataError
from acceptability.reports.cli import commands as cli
from acceptability.reports.cli import lock
from acceptability.reports.cli.lock import folder_lock

RUN = [sys.executable, "-m", "acceptability.reports.cli", "run", "--dataset", "example"]


def _cli(args: list[str], capsys) -> tuple[int, str]:
    code = cli.main(args)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["run", "report"])
def test_a_held_folder_stops_a_second_writer_at_once(tmp_path, capsys, command):
    with folder_lock(tmp_path):
        code, err = _cli([command, "--dataset", "example", "--n-boot", "0",
                          "--out", str(tmp_path)], capsys)
    assert code == 2, err
    assert f"acceptability {command}: error: {tmp_path}: process {os.getpid()} on " in err
    assert "is writing into this folder" in err and "wait for it to finish" in err
    assert f"remove {tmp_path / '.lock'}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written, lock gone


def test_the_lock_holds_its_pid_host_and_start(tmp_path):
    with folder_lock(tmp_path) as path:
        info = json.loads(path.read_text())
        assert info["pid"] == os.getpid() and info["host"] and info["started"]
    assert not path.exists()


def test_a_lock_left_by_a_killed_process_does_not_block(tmp_path, capsys):
    holder = subprocess.Popen([sys.executable, "-c", (
        "import os, signal, sys\n"
        "from acceptability.reports.cli.lock import folder_lock\n"
        "with folder_lock(sys.argv[1]):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"), str(tmp_path)])
    assert holder.wait(timeout=60) == -signal.SIGKILL
    assert json.loads((tmp_path / ".lock").read_text())["pid"] == holder.pid  # left behind
    code, err = _cli(["run", "--dataset", "example", "--n-boot", "0", "--out", str(tmp_path)],
                     capsys)
    assert code == 0, err
    assert not (tmp_path / ".lock").exists()


def test_without_fcntl_the_lock_file_itself_is_the_lock(tmp_path, monkeypatch):
    monkeypatch.setattr(lock, "fcntl", None)
    with folder_lock(tmp_path) as path:
        with (pytest.raises(DataError, match=f"process {os.getpid()} on .*remove {path}"),
              folder_lock(tmp_path)):
            pass
        assert path.exists()
    assert not path.exists()
    path.write_text("{}")  # left by a killed process: the message says what to do
    with (pytest.raises(DataError, match=f"another process is writing.*remove {path}"),
          folder_lock(tmp_path)):
        pass


def test_a_planted_lock_link_is_not_followed(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("keep")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / ".lock").symlink_to(target)
    with (pytest.raises(DataError, match="cannot open the lock file"),
          folder_lock(tmp_path / "out")):
        pass
    assert target.read_text() == "keep"


def _wait_for(path: Path, process: subprocess.Popen, timeout: float = 120) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)


@pytest.mark.slow  # two runs of the command, the first of 200,000 resamples: 10-40 s
def test_two_runs_into_one_folder(tmp_path, capsys):
    """The issue's case: `--n-boot 10000` and, while it runs, `--n-boot 300` into one folder
    left a manifest recording the first's analysis over the second's results, and a later
    `--n-boot 10000` run skipped every step. The first is made slow here (more resamples)
    so that it still holds the folder when the second starts."""
    out = tmp_path / "run"
    first = subprocess.Popen([*RUN, "--n-boot", "200000", "--out", str(out)],
                             stderr=subprocess.PIPE, text=True)
    _wait_for(out / ".lock", first)
    second = subprocess.run([*RUN, "--n-boot", "300", "--out", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert first.poll() is None, "the first run ended before the second started: make it slower"
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    assert second.returncode == 2, second.stderr
    assert f"error: {out}: process {first.pid} on " in second.stderr
    assert "is writing into this folder" in second.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    analysis = json.loads((out / "analysis.json").read_text())["value"]["provenance"]
    recorded = manifest["steps"]["evaluate"]["settings"]
    assert recorded["n_boot"] == analysis["n_boot"] == 200000
    assert recorded["command"] == analysis["command"]
    assert "--n-boot 200000" in analysis["command"]
    code, err = _cli(["run", "--dataset", "example", "--n-boot", "200000", "--out", str(out)],
                     capsys)
    assert code == 0 and err.count("up to date") == 4, err
