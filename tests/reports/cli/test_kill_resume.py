"""``kill -9`` and resume (issue 30, item 12 keeps it): ``acceptability score`` killed after its
first batch reached the score cache, and ``acceptability run`` killed in its evaluate step
or half-way through writing its report, rerun, write outputs byte-identical to an
uninterrupted run's, and leave no temporary file behind."""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from acceptability.reports.cli import commands as cli
from tests.scoring_fixtures import CORPUS, make_gpt2

N_SENTENCES = 240  # 15 batches of 16
RUN = ["run", "--dataset", "example", "--scores", "published", "--n-boot", "1000"]
# What differs between two uninterrupted runs: when they ran, for how long, and their
# folders; and so the manifest's checksums and sizes of the files that record it and the
# fingerprints of the commands (those files are compared themselves).
STAMPS = [re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d( UTC|\+00:00)?"),
          re.compile(r'"seconds": [\d.]+')]
MANIFEST = re.compile(r'"(checksum|fingerprint)": "[^"]*"|"bytes": \d+')
STAMPED = {"report.html", "report.md", "provenance.json", "analysis.json", "manifest.json"}


def main(args: list[str]) -> int:
    with contextlib.redirect_stderr(io.StringIO()) as err, \
            contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(args)
    assert code == 0, err.getvalue()
    return code


def files(out: Path) -> dict[str, bytes]:
    """Every file under ``out`` by relative path; in those that record them (``STAMPED``)
    time stamps, ``out`` itself and the manifest's checksums and sizes masked."""
    found = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if path.name in STAMPED:
            text = data.decode("utf-8").replace(str(out), "OUT")
            for stamp in STAMPS + ([MANIFEST] if path.name == "manifest.json" else []):
                text = stamp.sub("STAMP", text)
            data = text.encode("utf-8")
        found[str(path.relative_to(out))] = data
    return found


def assert_same(resumed: dict[str, bytes], whole: dict[str, bytes]) -> None:
    assert sorted(resumed) == sorted(whole)  # no temporary file left, none missing
    differ = [name for name in whole if resumed[name] != whole[name]]
    shown = [f"{name}:\n" + "\n".join(difflib.unified_diff(
        whole[name].decode().splitlines(), resumed[name].decode().splitlines(), lineterm=""))
        for name in differ if name in STAMPED]
    assert not differ, f"differ from the uninterrupted run: {differ}\n" + "\n".join(shown)


def start(args: list[str], **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "acceptability.reports.cli", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **env})


def kill_when(child: subprocess.Popen, ready, timeout: float = 120) -> None:
    """SIGKILL ``child`` as soon as ``ready()`` holds; it must still be running then."""
    end = time.monotonic() + timeout
    while not ready():
        assert child.poll() is None, f"it ended first: {child.stderr.read()}"
        assert time.monotonic() < end, "it made no progress"
        time.sleep(0.02)
    child.kill()
    child.wait()


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("whole") / "run"
    main([*RUN, "--out", str(out)])
    return files(out)


def _after_line(child: subprocess.Popen, text: str, then=lambda: True):
    """Ready once ``child`` wrote a line with ``text`` to stderr, and ``then()`` holds."""
    seen = False

    def ready() -> bool:
        nonlocal seen
        while not seen:
            line = child.stderr.readline()
            assert line, "it ended first"
            seen = text in line
        return then()
    return ready


@pytest.mark.parametrize("when", ["evaluate", "report"])
def test_run_killed_then_rerun_is_byte_identical(tmp_path, whole_run, when):
    out = tmp_path / "run"
    child = start([*RUN, "--out", str(out)])
    if when == "evaluate":  # after the first step's progress, in the bootstrap
        kill_when(child, _after_line(child, "[1/4] score: done"))
    else:  # the report half-written: a figure there, report.html not yet
        kill_when(child, _after_line(child, "[4/4] report:",
                                     lambda: any(out.glob("figures/*.png"))))
        assert not (out / "report.html").exists()
    main([*RUN, "--out", str(out)])
    assert_same(files(out), whole_run)


@pytest.fixture(scope="module")
def sentences(tmp_path_factory) -> tuple[Path, Path]:
    """A tiny GPT-2 and a sentences file long enough to be scored in several batches."""
    folder = tmp_path_factory.mktemp("tiny")
    model = Path(make_gpt2(folder / "gpt2"))
    words = " ".join(CORPUS).replace(".", "").replace("?", "").split()
    rng = random.Random(0)
    texts = [" ".join(rng.choices(words, k=rng.randint(3, 14))) + "." for _ in range(N_SENTENCES)]
    path = folder / "sentences.csv"
    pd.DataFrame({"sentence_id": [f"s{i}" for i in range(N_SENTENCES)], "text": texts}).to_csv(
        path, index=False)
    return model, path


@pytest.fixture
def one_thread(monkeypatch):
    """Score on one thread here and in the child, so that their sums add in one order."""
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield {"OMP_NUM_THREADS": "1"}
    torch.set_num_threads(before)


def test_score_killed_after_its_first_batch_resumes_byte_identical(tmp_path, sentences,
                                                                   one_thread, monkeypatch):
    from acceptability.scoring.run.cache import ScoreCache

    model, path = sentences
    args = ["score", "--sentences", str(path), "--model", str(model)]
    whole, resumed = tmp_path / "whole.parquet", tmp_path / "resumed.parquet"
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "whole-cache"))
    main([*args, "--out", str(whole)])

    cache_dir = tmp_path / "cache"
    child = start([*args, "--out", str(resumed)], ACCEPTABILITY_CACHE_DIR=str(cache_dir),
                  **one_thread)

    def scored() -> int:
        if not (cache_dir / "scores.sqlite").is_file():
            return 0
        cache = ScoreCache(cache_dir)
        try:
            return len(cache)
        finally:
            cache.close()

    kill_when(child, lambda: scored() > 0)
    assert 0 < scored() < N_SENTENCES and not resumed.exists()
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(cache_dir))
    main([*args, "--out", str(resumed)])
    assert resumed.read_bytes() == whole.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "resumed.parquet", "whole.parquet"]
