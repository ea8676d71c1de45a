"""Every Python block of README.md runs, in order, in one namespace, against the reference
data; where a plain block follows a Python block, it is what that block prints.

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

README = Path(__file__).resolve().parents[1] / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
# Hub ids the README uses, and the tiny stand-in each gets in the offline cache.
STAND_INS = {"gpt2": fx.make_gpt2, "bert-base-uncased": fx.make_bert,
             "textattack/bert-base-uncased-CoLA": fx.make_classifier}
STAND_IN_POSITIONS = 128  # the README's examples have longer sentences than the scoring tests'


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


@pytest.mark.needs_data
@pytest.mark.slow
def test_every_readme_python_block_runs_and_prints_what_the_readme_shows(li_adger_dir,
                                                                            tmp_path):
    blocks = readme_blocks(README.read_text())
    assert len(blocks) >= 5
    (tmp_path / "blocks.json").write_text(json.dumps([code for code, _ in blocks]))
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, HF_HUB_CACHE=str(_hub_cache(tmp_path / "hub")), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", ACCEPTABILITY_CACHE_DIR=str(tmp_path / "cache"),
               MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
    subprocess.run([sys.executable, "-c", RUNNER, str(tmp_path / "blocks.json"),
                    str(tmp_path / "out.json")], cwd=work, env=env, check=True, timeout=900)
    results = json.loads((tmp_path / "out.json").read_text())
    for i, ((code, expected), got) in enumerate(zip(blocks, results, strict=False)):
        assert got["error"] is None, f"README block {i + 1} failed:\n{code}\n{got['error']}"
        if expected is not None:
            assert _lines(got["stdout"]) == _lines(expected), (
                f"README block {i + 1} prints something else than the README shows:\n"
                f"{got['stdout']}")
    assert len(results) == len(blocks)
