"""The score cache's key carries the version of the code that computed each score (issue 43
item 5): after a scorer fix, `score` and `run` recompute instead of reading the old numbers.

Every module whose code turns a text into the numbers the cache keeps declares
``SCORER_VERSION`` (`scoring.run.versions`); ``scorer_sources.json`` beside this file records the
hash of each one's code with its version. A module whose code changed while its version did
not fails `test_scorer_sources_match_their_recorded_versions`. After raising the version,
re-record from the repository's root with::

    python tests/scoring/test_scorer_versions.py --record

which refuses a changed module whose version did not go up (``--no-bump FILE`` records one
whose change you checked cannot alter any score: a message, a check that only raises).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from acceptability import scoring
from acceptability.scoring.backends import causal
from acceptability.scoring.results import Scored
from acceptability.scoring.run import versions

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

ROOT = Path(scoring.__file__).parent
RECORD = Path(__file__).with_name("scorer_sources.json")
RECORD_COMMAND = "python tests/scoring/test_scorer_versions.py --record"
# scoring modules a scorer imports whose code computes no cached number
NOT_ARITHMETIC = {
    "errors.py": "exception classes",
    "options.py": "settings; the ones a scorer uses are in its cache key (Scorer.options)",
    "registry.py": "method names and their backends",
    "run/progress.py": "progress bars",
    "run/versions.py": "the versions themselves",
}


def _without_docstrings(tree: ast.AST) -> ast.AST:
    """`tree` without string statements (docstrings): they compute nothing."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            node.body = [s for s in body if not (isinstance(s, ast.Expr)
                                                 and isinstance(s.value, ast.Constant)
                                                 and isinstance(s.value.value, str))]
    return tree


def _dump(node) -> str:
    """`node` as text, leaving out fields that are None or empty (Python 3.12 and 3.13 added
    such fields to nodes; the recorded hashes were checked by hand to be the same on Python
    3.11.7, 3.12.1 and 3.13.0)."""
    if isinstance(node, ast.AST):
        fields = [f"{name}={_dump(value)}" for name, value in ast.iter_fields(node)
                  if value is not None and value != []]
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(map(_dump, node))}]"
    return repr(node)


def code_hash(path: Path) -> str:
    """sha256 of a module's code: its syntax tree without docstrings, so comments, blank
    lines and docstrings may change without a version bump."""
    return hashlib.sha256(_dump(_without_docstrings(ast.parse(path.read_text()))).encode()).hexdigest()


def declared_version(path: Path) -> int | None:
    """The ``SCORER_VERSION = N`` a module declares at its top level (None: none)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "SCORER_VERSION"
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def versioned_files() -> dict[str, int]:
    """Every module of the scoring package that declares a SCORER_VERSION, by its path in it."""
    found = {p.relative_to(ROOT).as_posix(): declared_version(p) for p in sorted(ROOT.rglob("*.py"))}
    return {name: v for name, v in found.items() if v is not None}


def recorded() -> dict[str, dict]:
    return json.loads(RECORD.read_text())["files"]


def test_every_versioned_module_is_recorded_and_in_the_keys():
    keyed = {f"{name.replace('.', '/')}.py" for name in versions.SHARED.values()}
    keyed |= {f"{name.replace('.', '/')}.py" for names in versions.BACKENDS.values() for name in names}
    assert set(versioned_files()) == set(recorded()) == keyed


def test_every_cached_method_has_its_backends_versions():
    """Every method but the n-gram's (its scores are not cached: no model identity) is keyed
    with its backend's versions."""
    from acceptability.scoring.registry import REGISTRY

    backends = {m.backend.removeprefix(f"{versions.PACKAGE}.") for m in REGISTRY.values()
                if m.kind != "ngram"}
    assert backends == set(versions.BACKENDS)


def test_scorer_sources_match_their_recorded_versions():
    problems = []
    for name, entry in recorded().items():
        path, version = ROOT / name, declared_version(ROOT / name)
        if code_hash(path) != entry["sha256"] and version == entry["version"]:
            problems.append(f"scoring/{name} changed since its hash was recorded at "
                            f"SCORER_VERSION = {version}: if the change can alter a score, set "
                            f"SCORER_VERSION = {version + 1} there (the cache then recomputes "
                            f"its scores), then re-record: {RECORD_COMMAND}")
        elif code_hash(path) != entry["sha256"] or version != entry["version"]:
            problems.append(f"scoring/{name}: version {version} and its hash are not the ones "
                            f"recorded (version {entry['version']}); re-record: {RECORD_COMMAND}")
    assert not problems, "\n".join(problems)


def _scoring_imports(path: Path) -> set[str]:
    """The modules of the scoring package that `path` imports, as paths in it."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("acceptability.scoring"):
            base = node.module.removeprefix("acceptability.scoring").lstrip(".").replace(".", "/")
            for alias in node.names:  # `from scoring import batches` imports a module
                sub = f"{base}/{alias.name}".lstrip("/")
                names.add(f"{sub}.py" if (ROOT / f"{sub}.py").is_file() else f"{base}.py")
    return names - {".py"}


@pytest.mark.parametrize("backend", sorted(versions.BACKENDS))
def test_a_backends_key_holds_every_module_its_numbers_come_from(backend):
    """Each scoring module that a backend or a shared module imports, and those they import,
    is keyed with it (`versions.BACKENDS`, `versions.SHARED`) or computes no number
    (NOT_ARITHMETIC). (runner.py imports every backend, each keyed in its own scores, the
    cache and the n-gram models, which are not cached: its own imports are not followed.)"""
    shared = versions.SHARED.values()
    keyed = {f"{n.replace('.', '/')}.py" for n in (*versions.BACKENDS[backend], *shared)}
    seen = {"run/runner.py"}
    todo = [f"{n.replace('.', '/')}.py" for n in (backend, *shared) if n != "run.runner"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_scoring_imports(ROOT / name) - set(NOT_ARITHMETIC))
    assert seen <= keyed, f"{backend}'s numbers also come from {sorted(seen - keyed)}"


def test_a_cache_key_names_its_modules_as_before_the_run_room():
    """The execution modules moved into scoring/run/ (issue 45) without a change to their
    arithmetic: a cache key names them as before, so the scores cached before the move are
    read after it, not recomputed."""
    names = [part.partition("=")[0] for part in versions.scorer_version("backends.causal").split()]
    assert names == ["backends.causal", "batches", "context", "gguf", "models", "overlap",
                     "prepack", "results", "runner", "tokenizers", "transformers"]


def test_a_version_bump_changes_runs_score_step_fingerprint(monkeypatch):
    """`run`'s score step hashes the scoring package's files (pipeline.code_hash): raising any
    module's SCORER_VERSION reruns the step."""
    from acceptability.reports.cli.pipeline import code_hash as run_code_hash

    before, read = run_code_hash("scoring"), Path.read_bytes
    for name, entry in recorded().items():
        old, new = (f"SCORER_VERSION = {v}".encode() for v in (entry["version"], entry["version"] + 1))

        def edited(path, name=name, old=old, new=new):
            return read(path).replace(old, new, 1) if path == ROOT / name else read(path)

        monkeypatch.setattr(Path, "read_bytes", edited)
        assert run_code_hash("scoring") != before, name
        monkeypatch.setattr(Path, "read_bytes", read)


def _doubled(original):
    """A 'fixed' causal scorer: every token log-probability twice what it was."""
    def run(*args, **kwargs):
        for batch, scored in original(*args, **kwargs):
            yield batch, [Scored.from_tokens(s.tokens, s.offsets, [2 * lp for lp in s.logprobs])
                          for s in scored]
    return run


def _fix_causal(monkeypatch) -> None:
    """Change the causal backend's arithmetic and raise its SCORER_VERSION, as a fix does."""
    monkeypatch.setattr(causal, "iter_logprobs", _doubled(causal.iter_logprobs))
    monkeypatch.setattr(causal, "SCORER_VERSION", getattr(causal, "SCORER_VERSION", 1) + 1,
                        raising=False)


def test_a_version_bump_recomputes_cached_scores(tmp_path, gpt2_dir, sentences, monkeypatch):
    kw = {"cache": tmp_path, "progress": False}
    lm = scoring.load_model(gpt2_dir, "causal", device="cpu")
    before = scoring.score(sentences, lm, "logprob", **kw)["score"].to_numpy()
    _fix_causal(monkeypatch)
    after = scoring.score(sentences, lm, "logprob", **kw)["score"].to_numpy()
    np.testing.assert_allclose(after, 2 * before, rtol=1e-6)  # recomputed, not read
    assert len(scoring.ScoreCache(tmp_path)) == 2 * len(sentences)  # the old ones unmatched
    monkeypatch.undo()  # back to the old version: its entries are still there
    calls = []
    handle = lm.model.register_forward_pre_hook(lambda _m, _a: calls.append(1))
    again = scoring.score(sentences, lm, "logprob", **kw)["score"].to_numpy()
    handle.remove()
    assert calls == [] and np.array_equal(again, before)


def _upgrade_transformers(monkeypatch) -> None:
    """Report another transformers release, as an upgrade does (a new tokenizer or model
    class can change a score)."""
    real = versions.version
    monkeypatch.setattr(versions, "version",
                        lambda lib: "999.0" if lib == "transformers" else real(lib))


def test_a_library_upgrade_recomputes_cached_scores(tmp_path, gpt2_dir, sentences, monkeypatch):
    """The key holds the tokenizers and transformers releases: after an upgrade the scores
    are recomputed, not read (the forward pass runs again)."""
    kw = {"cache": tmp_path, "progress": False}
    lm = scoring.load_model(gpt2_dir, "causal", device="cpu")
    before = scoring.score(sentences, lm, "logprob", **kw)["score"].to_numpy()
    _upgrade_transformers(monkeypatch)
    assert "transformers=999.0" in versions.scorer_version("backends.causal")
    calls = []
    handle = lm.model.register_forward_pre_hook(lambda _m, _a: calls.append(1))
    after = scoring.score(sentences, lm, "logprob", **kw)["score"].to_numpy()
    handle.remove()
    assert calls and np.array_equal(after, before)
    assert len(scoring.ScoreCache(tmp_path)) == 2 * len(sentences)


def test_a_library_upgrade_reruns_runs_score_step(tmp_path, gpt2_dir, monkeypatch, capsys):
    from acceptability.reports.cli import commands as cli
    from acceptability.reports.cli import pipeline

    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    args = ["run", "--dataset", "example", "--model", gpt2_dir, "--n-boot", "0",
            "--formula", "", "--out", str(tmp_path / "run")]
    assert cli.main(args) == 0
    frozen = pipeline.code_hash  # other edits to the checkout must not move the fingerprint
    monkeypatch.setattr(pipeline, "code_hash", lambda *p, _h={}: _h.setdefault(p, frozen(*p)))
    assert cli.main(args) == 0
    capsys.readouterr()
    _upgrade_transformers(monkeypatch)
    assert cli.main(args) == 0
    assert "score: its inputs, settings or code changed, recomputing" in capsys.readouterr().err


def test_run_after_a_scorer_fix_does_not_read_old_scores(tmp_path, gpt2_dir, monkeypatch, capsys):
    """`run` recomputes the score step when the scoring code changed (its fingerprint), and
    the recomputed step gets the fixed numbers, not the cache's old ones."""
    import pandas as pd

    from acceptability.reports.cli import commands as cli
    from acceptability.reports.cli import pipeline

    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    args = ["run", "--dataset", "example", "--model", gpt2_dir, "--n-boot", "0",
            "--formula", "", "--out", str(tmp_path / "run")]
    assert cli.main(args) == 0
    before = pd.read_parquet(tmp_path / "run" / "scores.parquet")["score"].to_numpy()
    _fix_causal(monkeypatch)
    edited = pipeline.code_hash
    monkeypatch.setattr(pipeline, "code_hash", lambda *p: edited(*p) + ("!" if "scoring" in p else ""))
    capsys.readouterr()
    assert cli.main(args) == 0
    assert "score: its inputs, settings or code changed, recomputing" in capsys.readouterr().err
    after = pd.read_parquet(tmp_path / "run" / "scores.parquet")["score"].to_numpy()
    np.testing.assert_allclose(after, 2 * before, rtol=1e-6)


def record(no_bump: list[str]) -> int:
    """Write scorer_sources.json: each versioned module's version and code hash. A module
    whose code changed keeps its old record unless its version went up or it is in `no_bump`."""
    from acceptability.data.io.atomic import write_text

    old = recorded() if RECORD.exists() else {}
    files, refused = {}, []
    for name, version in versioned_files().items():
        entry = {"version": version, "sha256": code_hash(ROOT / name)}
        before = old.get(name)
        if before and entry["sha256"] != before["sha256"] and version <= before["version"] \
                and name not in no_bump:
            refused.append(f"scoring/{name} changed but its SCORER_VERSION is still {version}: "
                           f"set it to {before['version'] + 1} if the change can alter a score, "
                           f"or pass --no-bump {name} if it cannot")
            entry = before
        files[name] = entry
    about = ("The code hash (sha256 of the syntax tree without docstrings) and SCORER_VERSION of "
             "each module whose code computes cached scores; written by " + RECORD_COMMAND)
    write_text(RECORD, json.dumps({"about": about, "files": files}, indent=2) + "\n")
    print("\n".join(refused) or f"recorded {len(files)} modules in {RECORD}", file=sys.stderr)
    return 1 if refused else 0


if __name__ == "__main__":
    cli_args = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli_args.add_argument("--record", action="store_true", required=True)
    cli_args.add_argument("--no-bump", action="append", default=[], metavar="FILE",
                          help="a module (path in the scoring package) whose change cannot alter a score")
    sys.exit(record(cli_args.parse_args().no_bump))
