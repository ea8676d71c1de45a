"""`run --out DIR` deletes only what it wrote (issue 43, item 4): a file is removed only when
the folder's own manifest recorded it, with its sha256, as an output of the step that no
longer writes it, and it is still that file. A user's files beside the outputs survive
reruns, ``--force`` and changed settings; a planted or foreign manifest deletes nothing; a
non-empty folder without a manifest of this package is refused unless ``--force``. And a
store document whose table points outside its folder is recomputed by ``run`` (issue 43,
item 13) while loading it directly is still refused."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from acceptability.data import DataError
from acceptability.reports.cli import commands as cli
from acceptability.reports.cli import pipeline, store
from acceptability.reports.cli.experiment import Experiment
from acceptability.reports.cli.pipeline import STEPS, run

MINE = {"analysis/my_results.parquet": "evaluate", "fits/my_model.parquet": "fit",
        "figures/my_plot.png": "report", "tables/my_table.tex": "report",
        "chapters/thesis.tex": None, "notes.txt": None}


def _run(out: Path, force: bool = False, **settings) -> str:
    lines: list[str] = []
    exp = Experiment(dataset="example", n_boot=settings.pop("n_boot", 20), out=str(out),
                     **settings)
    run(exp, force=force, log=lines.append)
    return "\n".join(lines)


def _cli(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(list(args))
    return code, err.getvalue()


def _stamp(path: Path) -> dict:
    data = path.read_bytes()
    return {"checksum": "sha256:" + hashlib.sha256(data).hexdigest(), "bytes": len(data)}


@pytest.fixture(scope="module", autouse=True)
def _same_code():
    """The source hashed once for the module (see test_run_integrity)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "code_hash", functools.cache(pipeline.code_hash))
        yield


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    _run(out)
    return out


@pytest.fixture
def copy(folder, tmp_path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "copy"))


def _plant(out: Path) -> dict[str, bytes]:
    """The user's files, written into ``out``; their contents by name."""
    mine = {}
    for name in MINE:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(mine.setdefault(name, f"mine: {name}\n".encode()))
    pd.DataFrame({"x": [1.0, 2.0]}).to_parquet(out / "analysis" / "my_results.parquet")
    mine["analysis/my_results.parquet"] = (out / "analysis" / "my_results.parquet").read_bytes()
    return mine


def _survive(out: Path, mine: dict[str, bytes]) -> None:
    for name, content in mine.items():
        assert (out / name).read_bytes() == content, name


@pytest.mark.parametrize("rerun", ["plain", "force", "n_boot", "max_pairs"])
def test_a_users_files_in_a_run_folder_survive_reruns(copy, rerun):
    """(a): on 0.x a rerun that recomputed the evaluate or fit step removed every Parquet
    file in ``analysis/`` and ``fits/`` it had not written (rc 0, no message)."""
    mine = _plant(copy)
    settings = {"n_boot": {"n_boot": 30}, "max_pairs": {"max_pairs": 10}}
    log = _run(copy, force=rerun == "force", **settings.get(rerun, {}))
    _survive(copy, mine)
    if rerun != "plain":
        assert {"evaluate", "fit"} & {s for s in STEPS if f"{s}: done in" in log}, log
    _run(copy, force=True)
    _survive(copy, mine)


@pytest.mark.parametrize("name", ["chapters/thesis.tex", "../thesis.tex", "tables/thesis.tex"])
def test_a_planted_manifest_deletes_nothing(copy, name):
    """(b): a manifest naming a file with its correct sha256 as an output of a step that no
    longer writes it got it deleted. A name outside the folder, or that is not one this
    package writes, is never followed; ``tables/thesis.tex`` is one it writes, and its
    hash is right: a manifest is not signed, so it is kept only when edited since."""
    thesis = (copy / name).resolve()
    thesis.parent.mkdir(parents=True, exist_ok=True)
    thesis.write_text("\\chapter{mine}\n")
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["steps"]["report"]["outputs"][name] = _stamp(thesis)
    manifest["steps"]["report"]["fingerprint"] = "planted"
    (copy / "manifest.json").write_text(json.dumps(manifest))
    log = _run(copy)
    if name == "tables/thesis.tex":  # recorded as an output, unchanged: what the run wrote
        assert not thesis.exists(), log
    else:
        assert thesis.read_text() == "\\chapter{mine}\n", log
        assert f"{name}" in log and "left in place" in log, log


def test_an_edited_output_the_run_no_longer_writes_is_kept_and_said(copy):
    """A file the run wrote and the user then edited is the user's: a stale output is
    removed only while its sha256 is the recorded one."""
    manifest = json.loads((copy / "manifest.json").read_text())
    for name in ("figures/old.png", "figures/edited.png"):
        (copy / name).write_bytes(b"old figure")
        manifest["steps"]["report"]["outputs"][name] = _stamp(copy / name)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    (copy / "figures" / "edited.png").write_bytes(b"my figure now")
    log = _run(copy, force=True)
    assert not (copy / "figures" / "old.png").exists()
    assert (copy / "figures" / "edited.png").read_bytes() == b"my figure now"
    assert "figures/edited.png changed since this run wrote it" in log, log
    assert "left in place" in log, log


def test_a_non_empty_folder_without_a_manifest_is_refused_unless_force(tmp_path):
    out = tmp_path / "thesis"
    mine = _plant(out)
    with pytest.raises(DataError, match="not empty") as err:
        _run(out)
    message = str(err.value)
    assert str(out) in message and "--force" in message and "chapters" in message, message
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) \
        == sorted(mine) + [".lock"] * (out / ".lock").exists()
    code, stderr = _cli("run", "--dataset", "example", "--scores", "published", "--n-boot",
                        "0", "--out", str(out))
    assert code == 2 and "not empty" in stderr and "Traceback" not in stderr, stderr
    code, stderr = _cli("run", "--dataset", "example", "--scores", "published", "--n-boot",
                        "0", "--out", str(out), "--force")
    assert code == 0, stderr
    _survive(out, mine)
    assert _cli("run", "--dataset", "example", "--scores", "published", "--n-boot", "0",
                "--out", str(out))[0] == 0  # now the folder's manifest is this package's
    _survive(out, mine)


@pytest.mark.parametrize("content", [b"{not json", b"\xff", b"[]",
                                     b'{"files": ["chapters/thesis.tex"]}'])
def test_a_foreign_manifest_is_never_overwritten(copy, content):
    """A manifest.json that is not this package's is someone else's file: refused, even
    with --force (which would overwrite it), the file named."""
    mine = _plant(copy)
    (copy / "manifest.json").write_bytes(content)
    for force in (False, True):
        with pytest.raises(DataError, match="manifest.json") as err:
            _run(copy, force=force)
        assert str(copy / "manifest.json") in str(err.value) and "move" in str(err.value)
    assert (copy / "manifest.json").read_bytes() == content
    _survive(copy, mine)


def test_a_manifest_of_another_version_needs_force_and_deletes_nothing(copy):
    """A manifest without this version's output hashes (0.1's listed its outputs) cannot
    say which files are still the ones it wrote: --force reruns every step, removing none."""
    mine = _plant(copy)
    (copy / "manifest.json").write_text(json.dumps(
        {"steps": {"report": {"outputs": ["notes.txt", "tables/my_table.tex"]}}}))
    with pytest.raises(DataError, match="not empty") as err:
        _run(copy)
    assert "not a manifest of this version" in str(err.value) and "--force" in str(err.value)
    log = _run(copy, force=True)
    assert log.count("manifest.json") == 1 and log.count("done in") == len(STEPS), log
    _survive(copy, mine)
    _skips = _run(copy)
    assert _skips.count("up to date") == len(STEPS), _skips


def test_an_empty_or_new_folder_runs(tmp_path):
    (tmp_path / "empty").mkdir()
    for out in (tmp_path / "empty", tmp_path / "new" / "folder"):
        assert "[4/4] report: done" in _run(out)


def test_a_store_table_outside_its_folder_is_recomputed_by_run_and_refused_by_load(copy):
    """Item 13: a document whose table points outside its folder (its hash recorded in the
    manifest, so the file looks like what the run wrote) was loaded by the report step and
    refused there, so every plain rerun failed until --force."""
    (copy / "outside.parquet").write_bytes((copy / "analysis" / "evaluation.parquet")
                                           .read_bytes())
    path = copy / "analysis.json"
    document = json.loads(path.read_text())
    document["value"]["evaluation"]["file"] = "../outside.parquet"
    path.write_text(json.dumps(document))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["steps"]["evaluate"]["outputs"]["analysis.json"] = _stamp(path)
    (copy / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(DataError, match="table file '../outside.parquet'"):
        store.load(path)
    log = _run(copy)
    assert "[2/4] evaluate: analysis.json" in log and "../outside.parquet" in log, log
    assert "recomputing" in log and "[2/4] evaluate: done" in log, log
    assert not store.load(path).evaluation.empty  # the recomputed document loads
    assert "[1/4] score: up to date" in log and "[3/4] fit: up to date" in log, log
    again = _run(copy)
    assert again.count("up to date") == len(STEPS), again
