"""Every Python block of README.md runs, in order, in one namespace, against the reference
data; where a plain block follows a Python block, it is what that block prints. A block
that starts processes (:data:`STARTS_PROCESSES`) runs alone as a script file instead, as a
user saves and runs it: its child processes import that file (spawn), so a block without
an ``if __name__ == "__main__":`` guard fails there as it fails for the user.

The blocks run in a fresh interpreter with a Hugging Face cache of tiny models built from
configs standing in for the hub ids the README names (the hub is out of reach here), so
the README's code runs exactly as a user types it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import scoring_fixtures as fx

README = Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
# Hub ids the README uses, and the tiny stand-in each gets in the offline cache.
STAND_INS = {"gpt2": fx.make_gpt2, "bert-base-uncased": fx.make_bert,
             "textattack/bert-base-uncased-CoLA": fx.make_classifier}
STAND_IN_POSITIONS = 128  # the README's examples have longer sentences than the scoring tests'
# Code that starts worker processes: such a block must run as a script of its own.
STARTS_PROCESSES = re.compile(r"\b(LocalCluster|multiprocessing|ProcessPoolExecutor)\b")
MAIN_GUARD = 'if __name__ == "__main__":'


RUNNER = r"""
import contextlib, io, json, sys, traceback
blocks = json.load(open(sys.argv[1]))
ns = {"__name__": "__readme__"}
out = []
for i, code in enumerate(blocks):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(code, f"README.md block {i + 1}", "exec"), ns)
    except Exception:
        out.append({"stdout": buf.getvalue(), "error": traceback.format_exc()})
        break
    out.append({"stdout": buf.getvalue(), "error": None})
json.dump(out, open(sys.argv[2], "w"))
"""


def readme_blocks(text: str) -> list[tuple[str, str | None]]:
    """(code, expected output or None) for each ```python block, in order. The output is
    a plain ``` block that follows the Python block with only blank lines between."""
    fences = list(FENCE.finditer(text))
    out = []
    for i, m in enumerate(fences):
        if m.group(1) != "python":
            continue
        nxt = fences[i + 1] if i + 1 < len(fences) else None
        follows = nxt is not None and nxt.group(1) == "" and not text[m.end():nxt.start()].strip()
        out.append((m.group(2), nxt.group(2) if follows else None))
    return out


def starts_processes(code: str) -> bool:
    """Whether a README block starts processes, and so runs as a script of its own."""
    return STARTS_PROCESSES.search(code) is not None


def run_script(code: str, folder: Path, name: str, env: dict) -> subprocess.Popen:
    """Start ``code`` saved as ``folder/name`` in a fresh interpreter, as a user runs a
    saved example (``python name``); stdout and stderr are captured."""
    (folder / name).write_text(code)
    return subprocess.Popen([sys.executable, name], cwd=folder, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _hub_cache(root: Path) -> Path:
    """A Hugging Face hub cache (models--<org>--<name>/snapshots/<commit>) of stand-ins."""
    for i, (name, make) in enumerate(STAND_INS.items()):
        repo = root / ("models--" + name.replace("/", "--"))
        commit = f"{i + 1:040x}"
        make(repo / "snapshots" / commit, positions=STAND_IN_POSITIONS)
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(commit)
    return root


def test_readme_parser_pairs_blocks_with_their_output():
    text = "```python\nprint(1)\n```\n\n```\n1\n```\n```python\nx = 2\n```\ntext\n```\nno\n```\n"
    assert readme_blocks(text) == [("print(1)\n", "1\n"), ("x = 2\n", None)]


def test_readme_blocks_that_start_processes_have_a_main_guard():
    """The Dask example once lacked it and, saved as a script, died with "Nanny failed to
    start"; the README test runs such blocks as scripts, and this says why at once."""
    spawning = [code for code, _ in readme_blocks(README.read_text()) if starts_processes(code)]
    assert spawning, "the README's Dask example is no longer recognised as starting processes"
    for code in spawning:
        assert MAIN_GUARD in code, f"README block starts processes without {MAIN_GUARD}\n{code}"


SPAWNING = """import multiprocessing
from concurrent.futures import ProcessPoolExecutor

{guard}
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        print(pool.submit(abs, -3).result())
"""


@pytest.mark.parametrize("guard", [MAIN_GUARD, "if True:"])
def test_a_block_that_starts_processes_fails_as_a_script_without_the_guard(guard, tmp_path):
    """How the README test runs such a block catches a missing guard: the child process
    imports the script, which starts a process again while the child is starting."""
    code = SPAWNING.format(guard=guard)
    assert starts_processes(code)
    proc = run_script(code, tmp_path, "example.py", dict(os.environ))
    out, err = proc.communicate(timeout=120)
    if guard == MAIN_GUARD:
        assert proc.returncode == 0 and out.strip() == "3", err
    else:
        assert proc.returncode != 0 and "bootstrapping phase" in err, err


@pytest.mark.needs_data
@pytest.mark.slow
def test_every_readme_python_block_runs_and_prints_what_the_readme_shows(li_adger_dir,
                                                                            tmp_path):
    blocks = readme_blocks(README.read_text())
    assert len(blocks) >= 5
    scripts = [i for i, (code, _) in enumerate(blocks) if starts_processes(code)]
    together = [i for i in range(len(blocks)) if i not in scripts]
    (tmp_path / "blocks.json").write_text(json.dumps([blocks[i][0] for i in together]))
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, HF_HUB_CACHE=str(_hub_cache(tmp_path / "hub")), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", ACCEPTABILITY_CACHE_DIR=str(tmp_path / "cache"),
               MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
    running = {i: run_script(blocks[i][0], work, f"readme_block_{i + 1}.py", env)
               for i in scripts}  # beside the namespace run, which they do not need
    subprocess.run([sys.executable, "-c", RUNNER, str(tmp_path / "blocks.json"),
                    str(tmp_path / "out.json")], cwd=work, env=env, check=True, timeout=900)
    results = dict(zip(together, json.loads((tmp_path / "out.json").read_text()), strict=False))
    for i, proc in running.items():
        out, err = proc.communicate(timeout=900)
        results[i] = {"stdout": out, "error": None if proc.returncode == 0 else err}
    for i, (code, expected) in enumerate(blocks):
        got = results.get(i)
        assert got is not None, f"README block {i + 1} did not run (an earlier block failed)"
        assert got["error"] is None, f"README block {i + 1} failed:\n{code}\n{got['error']}"
        if expected is not None:
            assert _lines(got["stdout"]) == _lines(expected), (
                f"README block {i + 1} prints something else than the README shows:\n"
                f"{got['stdout']}")
