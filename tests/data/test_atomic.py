"""The one atomic writer (issue 30, items 5 and 10): each kind of write (text, bytes, CSV,
Parquet, a figure, a library's folder of files) replaces a planted symlink instead of
writing through it, is flushed to disk, and when its process is killed mid-write leaves the
old file whole; SIGTERM and Ctrl-C leave no temporary file, and a SIGKILL's temporary file
is removed by the next write of the same target."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

from acceptability.data.io import atomic
from acceptability.data.io.atomic import (
    atomic_files,
    atomic_path,
    remove_stale,
    safe_name,
    write_bytes,
    write_csv,
    write_figure,
    write_parquet,
    write_text,
)

KINDS = {"text": "t.txt", "bytes": "b.bin", "csv": "c.csv.gz", "parquet": "p.parquet",
         "figure": "f.png", "files": "model"}

# `write(kind, path, version)` in a child process: the same code writes old and new
WRITE = textwrap.dedent("""
    import pandas as pd
    from matplotlib.figure import Figure
    from acceptability.data.io import atomic

    def write(kind, path, version):
        frame = pd.DataFrame({"version": [version] * 50})
        if kind == "text":
            atomic.write_text(path, f"version {version}\\n" * 50)
        elif kind == "bytes":
            atomic.write_bytes(path, bytes([version]) * 500)
        elif kind == "csv":
            atomic.write_csv(frame, path, index=False)
        elif kind == "parquet":
            atomic.write_parquet(frame, path)
        elif kind == "figure":
            fig = Figure(figsize=(1 + version, 1))
            atomic.write_figure(fig, path, dpi=20)
        else:
            with atomic.atomic_files(path) as tmp:
                (tmp / "config.json").write_text(f'{{"version": {version}}}')
                (tmp / "weights.bin").write_bytes(bytes([version]) * 500)
    """)
# The child writes version 2 of each ``kind:path`` given and stops just before it replaces
# the old file (kind "mid": half-way through writing the temporary file itself); several
# run in threads of one child, a single one in its main thread (where SIGTERM is caught).
CHILD = WRITE + textwrap.dedent("""
    import os, sys, threading, time

    def wait(*args):
        os.write(1, b"waiting\\n")  # one write: threads cannot interleave it
        time.sleep(120)

    def mid(path):
        with atomic.atomic_path(path) as tmp, open(tmp, "w") as fh:
            fh.write("half of a new ver")
            fh.flush()
            wait()

    os.replace = wait
    jobs = [arg.split(":", 1) for arg in sys.argv[1:]]
    run = [lambda k=k, p=p: mid(p) if k == "mid" else write(k, p, 2) for k, p in jobs]
    if len(run) == 1:
        run[0]()
    for job in run:
        threading.Thread(target=job, daemon=True).start()
    time.sleep(120)
    """)
namespace: dict = {}
exec(WRITE, namespace)  # noqa: S102 - the children's writer, run here too
write = namespace["write"]


def snapshot(path: Path) -> dict[str, bytes]:
    """The bytes of ``path`` (a file, or each file of a folder)."""
    if path.is_dir():
        return {p.name: p.read_bytes() for p in sorted(path.iterdir()) if p.is_file()}
    return {path.name: path.read_bytes()}


def start(*jobs: tuple[str, Path]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, *(f"{k}:{p}" for k, p in jobs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_until_waiting(child: subprocess.Popen, n: int = 1) -> None:
    for _ in range(n):
        line = child.stdout.readline()
        assert line == "waiting\n", child.stderr.read()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.tmp*"))


def test_every_kind_killed_mid_write_keeps_the_old_file_and_the_next_write_cleans_up(tmp_path):
    paths = {kind: tmp_path / kind / name for kind, name in KINDS.items()}
    old = {}
    for kind, path in paths.items():
        write(kind, path, 1)
        old[kind] = snapshot(path)
    jobs = [*paths.items(), ("mid", paths["text"])]
    child = start(*jobs)
    wait_until_waiting(child, len(jobs))
    child.send_signal(signal.SIGKILL)
    child.wait()
    for kind, path in paths.items():
        assert snapshot(path) == old[kind], f"{kind}: the old file changed"
        assert leftovers(path.parent), f"{kind}: the killed writer left no temporary file?"
    assert len(leftovers(paths["text"].parent)) == 2  # the whole one and the half one
    for kind, path in paths.items():
        write(kind, path, 3)  # removes what the killed writer left
        assert leftovers(path.parent) == [], kind
        assert snapshot(path) != old[kind]


def test_terminated_or_interrupted_writes_leave_no_temporary_file(tmp_path):
    cases = [("csv", signal.SIGTERM), ("files", signal.SIGTERM), ("csv", signal.SIGINT)]
    paths, old, children = {}, {}, {}
    for kind, signum in cases:
        paths[kind, signum] = path = tmp_path / f"{kind}-{signum.name}" / KINDS[kind]
        write(kind, path, 1)
        old[kind, signum] = snapshot(path)
        children[kind, signum] = start((kind, path))
    for case, child in children.items():
        wait_until_waiting(child)
        child.send_signal(case[1])
    for case, child in children.items():
        assert child.wait(timeout=60) != 0, case
        assert snapshot(paths[case]) == old[case], case
        assert leftovers(paths[case].parent) == [], case


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_planted_symlink_is_replaced_not_followed(tmp_path, kind):
    outside = tmp_path / "outside"
    outside.write_bytes(b"not yours")
    path = tmp_path / "out" / KINDS[kind]
    target = path / "config.json" if kind == "files" else path
    target.parent.mkdir(parents=True)
    target.symlink_to(outside)
    write(kind, path, 1)
    assert outside.read_bytes() == b"not yours"
    assert target.is_file() and not target.is_symlink()


def test_the_file_and_its_folder_are_flushed_before_and_after_the_replace(tmp_path,
                                                                        monkeypatch):
    synced = []
    real = os.fsync

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    path = write_text(tmp_path / "a.txt", "x")
    assert len(synced) == 2 and ".tmp" in synced[0] and synced[1] == str(tmp_path)
    assert path.read_text() == "x"


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path):
    path = write_csv(pd.DataFrame({"a": [1]}), tmp_path / "a.csv", index=False)
    with pytest.raises(KeyboardInterrupt), atomic_path(path) as tmp:
        tmp.write_text("half")
        raise KeyboardInterrupt
    assert path.read_text() == "a\n1\n" and leftovers(tmp_path) == []
    with pytest.raises(RuntimeError), atomic_files(tmp_path / "model") as tmp:
        (tmp / "config.json").write_text("{}")
        raise RuntimeError("save failed")
    assert list((tmp_path / "model").iterdir()) == []


def test_stale_temporary_files_of_live_processes_and_other_targets_stay(tmp_path):
    mine = tmp_path / f".a.{os.getpid()}-1.tmp.csv"  # a live process: still writing
    other = tmp_path / ".ab.999999999-1.tmp.csv"  # another target's
    dead = tmp_path / ".a.999999999-1.tmp.csv"
    for p in (mine, other, dead):
        p.write_text("x")
    assert remove_stale(tmp_path / "a.csv") == [dead]
    assert mine.exists() and other.exists()


def test_figures_are_saved_in_the_format_of_the_suffix(tmp_path):
    fig = Figure()
    assert write_figure(fig, tmp_path / "f.svg").read_text().lstrip().startswith("<?xml")
    assert write_figure(fig, tmp_path / "f.pdf").read_bytes().startswith(b"%PDF")
    assert write_bytes(tmp_path / "b", b"\x00").read_bytes() == b"\x00"
    frame = pd.DataFrame({"a": [1.5]})
    assert pd.read_parquet(write_parquet(frame, tmp_path / "p.parquet")).equals(frame)


@pytest.mark.parametrize("text, name", [
    ("../evil", "_evil"), ("/etc/passwd", "_etc_passwd"), ("..", "unnamed"),
    (".hidden", "hidden"), ("a\x00b\nc", "a_b_c"), ("type_id", "type_id"),
    ("bootstrap.pairs", "bootstrap.pairs"), ("C:\\x", "C_x"), ("x" * 300, "x" * 100),
])
def test_safe_name_stays_in_its_folder(tmp_path, text, name):
    assert safe_name(text) == name
    assert (tmp_path / safe_name(text)).resolve().parent == tmp_path.resolve()


def test_stale_check_never_signals_on_windows(monkeypatch):
    monkeypatch.setattr(os, "name", "nt")
    monkeypatch.setattr(os, "kill", lambda *a: pytest.fail("os.kill would end the process"))
    assert atomic.process_alive(999999999)
