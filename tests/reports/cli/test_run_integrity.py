"""`run` reuses only what it wrote: the manifest records each output's sha256 and size, and
a step whose output is missing, truncated or edited since (a tampered score, a store table
edited by hand, a cut report, figure or table) is recomputed and the log says so. Nothing
in a run folder is unpickled, and a store document cannot point outside its folder."""

from __future__ import annotations

import functools
import json
import pickle
import shutil
from pathlib import Path

import pandas as pd
import pytest

from acceptability.data import DataError
from acceptability.reports.cli import pipeline, store
from acceptability.reports.cli.experiment import Experiment
from acceptability.reports.cli.pipeline import STEPS, run

STEP_OF = {"evaluation.csv": "evaluate", "report.html": "report", "report.md": "report",
           "figures/adc_curve.png": "report", "tables/table_3_1.csv": "report",
           "tables/table_3_1.tex": "report", "analysis.json": "evaluate",
           "analysis/evaluation.parquet": "evaluate", "fits.json": "fit",
           "scores.parquet": "score", "provenance.json": "report"}


def _run(out: Path) -> str:
    lines: list[str] = []
    run(Experiment(dataset="example", n_boot=20, out=str(out)), log=lines.append)
    return "\n".join(lines)


def _skips_all(out: Path) -> None:
    """A rerun finds every step up to date."""
    log = _run(out)
    assert log.count("up to date") == len(STEPS), log


def _redone(log: str) -> set[str]:
    """The steps that ran (not skipped) according to ``log``."""
    return {step for step in STEPS if f"{step}: done in" in log}


@pytest.fixture(scope="module", autouse=True)
def _same_code():
    """The source hashed once for the module: these tests change outputs, not code (and
    a source edited meanwhile, in a working tree, would rerun every step)."""
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


def _blimp(out: Path) -> pd.Series:
    return pd.read_csv(out / "evaluation.csv").set_index("model")["blimp"]


def test_the_manifest_records_every_output_with_its_sha256(folder):
    manifest = json.loads((folder / "manifest.json").read_text())
    outputs = {name: entry for step in manifest["steps"].values()
               for name, entry in step["outputs"].items()}
    assert set(STEP_OF) <= set(outputs)
    for name, entry in outputs.items():
        path = folder / name
        assert entry["bytes"] == path.stat().st_size, name
        assert entry["checksum"].startswith("sha256:") and len(entry["checksum"]) == 71, name
    written = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert written - set(outputs) == {"manifest.json"}


def test_negated_scores_are_recomputed_not_reused(folder, copy):
    """The issue's case: scores negated in a copied run folder gave a BLiMP accuracy of
    1 - the true one, with every step 'up to date'."""
    scores = pd.read_parquet(copy / "scores.parquet")
    scores["score"] = -scores["score"]
    scores.to_parquet(copy / "scores.parquet")
    log = _run(copy)
    assert "[1/4] score: scores.parquet changed since this run wrote it" in log, log
    assert "recomputing" in log
    assert _redone(log) >= {"score"}
    pd.testing.assert_series_equal(_blimp(copy), _blimp(folder))
    _skips_all(copy)


@pytest.mark.parametrize(("how", "name"), [
    *[("edit a byte", n) for n in ("evaluation.csv", "analysis.json", "fits.json",
                                   "tables/table_3_1.tex")],
    *[("truncate", n) for n in ("report.html", "figures/adc_curve.png", "tables/table_3_1.csv",
                                "report.md", "provenance.json")],
    *[("remove", n) for n in ("evaluation.csv", "figures/adc_curve.png")]])
def test_a_tampered_output_reruns_its_step(folder, copy, name, how):
    path = copy / name
    content = path.read_bytes()
    if how == "edit a byte":
        middle = len(content) // 2
        path.write_bytes(content[:middle] + bytes([content[middle] ^ 1]) + content[middle + 1:])
    elif how == "truncate":
        path.write_bytes(content[:len(content) // 3])
    else:
        path.unlink()
    log = _run(copy)
    step = STEP_OF[name]
    assert f"{step}: {name} " in log and "recomputing" in log, log
    assert step in _redone(log), log
    if step == "report":  # nothing before it depends on what it wrote
        assert _redone(log) == {"report"}, log
    if name != "analysis.json":  # which holds the time it was made
        assert path.read_bytes() == content, name
    _skips_all(copy)


def test_a_store_table_edited_to_another_value_is_recomputed(folder, copy):
    """An edited store document whose manifest was not updated: the hash differs, the
    edited value is not reported."""
    path = copy / "analysis" / "evaluation.parquet"
    table = pd.read_parquet(path)
    table["blimp"] = 0.0
    table.to_parquet(path)
    log = _run(copy)
    assert "evaluate: analysis/evaluation.parquet changed since this run wrote it" in log, log
    assert (copy / "tables" / "table_3_1.csv").read_bytes() == (
        folder / "tables" / "table_3_1.csv").read_bytes()


def test_an_edited_manifest_entry_is_not_trusted(copy):
    """Recording a tampered file's new hash by hand needs the manifest's hashes, which do
    not cover manifest.json itself; an entry naming a file outside the folder is refused."""
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["steps"]["score"]["outputs"] = {"../outside.parquet": {"checksum": "x", "bytes": 1}}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    log = _run(copy)
    assert "score: ../outside.parquet is outside the run folder, recomputing" in log, log


@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"steps": {"score": {}}}', b"\xff"])
def test_a_manifest_that_is_not_ours_is_refused(copy, content):
    """Rather than rerunning every step into a folder nothing says is a run's (what
    --force does then: test_run_ownership)."""
    (copy / "manifest.json").write_bytes(content)
    with pytest.raises(DataError, match="manifest.json"):
        _run(copy)


class _Payload:
    """Unpickling it creates the file ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def test_a_planted_pickle_is_never_read(copy, tmp_path):
    marker = tmp_path / "unpickled"
    for name in ("fits.pkl", "analysis.pkl", "scores.pkl"):
        (copy / name).write_bytes(pickle.dumps(_Payload(marker)))
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["steps"]["fit"]["outputs"]["fits.pkl"] = {"checksum": "x", "bytes": 1}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    _run(copy)
    _run(copy)
    assert not marker.exists()
    for module in ("store", "pipeline", "lock", "experiment"):
        source = (Path(store.__file__).parent / f"{module}.py").read_text()
        assert "pickle" not in source.replace("pickles", ""), module


@pytest.mark.parametrize("file", ["../x.parquet", "/tmp/x.parquet", "sub/x.parquet", "..",
                                  "a\\b.parquet", "", 3, None])
def test_a_store_table_outside_its_folder_is_refused(copy, file):
    path = copy / "analysis.json"
    document = json.loads(path.read_text())
    document["value"]["evaluation"]["file"] = file
    path.write_text(json.dumps(document))
    with pytest.raises(DataError, match="analysis.json") as err:
        store.load(path)
    assert "table file" in str(err.value)


@pytest.mark.parametrize("value", [{"$type": "os.system", "command": "true"},
                                   {"$type": "table"}, {"$type": "tuple"},
                                   {"$type": "Fits", "nonsense": 1}])
def test_an_unknown_or_malformed_store_node_names_the_file(copy, value):
    path = copy / "fits.json"
    document = json.loads(path.read_text())
    path.write_text(json.dumps(document | {"value": value}))
    with pytest.raises(DataError, match="fits.json"):
        store.load(path)


def test_a_store_table_list_outside_its_folder_is_not_readable(copy):
    path = copy / "analysis.json"
    document = json.loads(path.read_text())
    path.write_text(json.dumps(document | {"tables": ["../scores.parquet"]}))
    assert store.unreadable(path)
