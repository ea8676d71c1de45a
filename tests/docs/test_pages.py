"""Every Python block of README.md and of every page of the documentation site (docs/)
runs, page by page, each page in one namespace of its own and its blocks in order, against
the reference data; where a plain block follows a Python block, it is what that block
prints. A block that starts processes (`STARTS_PROCESSES`) runs alone as a script file
instead, as a user saves and runs it: its child processes import that file (spawn), so a
block without an ``if __name__ == "__main__":`` guard fails there as it fails for the user.

The blocks run in a fresh interpreter with a Hugging Face cache of tiny models built from
configs standing in for the hub ids the pages name (the hub is out of reach here), so the
pages' code runs exactly as a user types it.
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
from tests.conftest import need_data, need_module

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
# Hub ids the pages use, and the tiny stand-in each gets in the offline cache.
STAND_INS = {"gpt2": fx.make_gpt2, "bert-base-uncased": fx.make_bert,
             "textattack/bert-base-uncased-CoLA": fx.make_classifier}
STAND_IN_POSITIONS = 128  # the pages' examples have longer sentences than the scoring tests'
# Code that starts worker processes: such a block must run as a script of its own.
STARTS_PROCESSES = re.compile(r"\b(LocalCluster|multiprocessing|ProcessPoolExecutor)\b")
MAIN_GUARD = 'if __name__ == "__main__":'
# The reference data folder each loader a page calls reads (None: bundled with the package).
LOADER_DATA = {
    "load_example": None, "load_li_adger": "li-adger", "load_li_adger_scores": "li-adger",
    "load_li_adger_thesis_labels": "li-adger", "load_blimp": "blimp",
    "load_blimp_results": "blimp", "load_blimp_trials": "blimp",
    "load_blimp_human_summary": "blimp", "load_zorro": "zorro",
    "load_zorro_reference_scores": "zorro", "load_marvin_linzen": "marvin-linzen",
    "load_cola": "cola", "load_childes": "aochildes", "load_lau2020": "lau2020",
    "load_megaacceptability": "megaacceptability",
    "load_syntaxgym": "syntaxgym", "load_syntaxgym_results": "syntaxgym",
    "load_turblimp": "turblimp", "load_rublimp": "rublimp", "load_clams": "clams",
    "load_sling": "sling",
    "load_turblimp_ratings": "turblimp",
}
LOADER = re.compile(r"\bdata\.(load_\w+)\(")
# Python blocks followed by the output they print, at least, per page: the numbers each
# page shows are checked here (a page that loses one fails, rather than passing untested).
# Files a page reads as a user's own, written into its working folder before it runs:
# page -> (reference data folder, writer of the files into the working folder).
PAGE_FILES = {"docs/ratings.md": ("turblimp", lambda work: _latin_square(work / "turblimp-study"))}
PRINTED = {"README.md": 1, "docs/getting-started.md": 1, "docs/metrics.md": 2,
           "docs/papers.md": 1, "docs/benchmarks.md": 3, "docs/baselines.md": 1,
           "docs/scoring.md": 2, "docs/mixed-models.md": 1, "docs/your-data.md": 2,
           "docs/ratings.md": 12, "docs/mixed/clmm.md": 2, "docs/mixed/contrasts.md": 2,
           "docs/mixed/differences-from-r.md": 3, "docs/mixed/emmeans.md": 3,
           "docs/mixed/ordinal.md": 4, "docs/mixed/selection.md": 5, "docs/mixed/simulation.md": 4}


def _latin_square(folder: Path) -> None:
    """TurBLiMP's human study as a user's sentences, pairs and ratings files
    (tests/latin_square.py), for docs/ratings.md's Latin-square example."""
    need_module("openpyxl")
    from tests.latin_square import write_study

    write_study(need_data("turblimp", "data/human_judgments/base_judgments.xlsx"), folder)


RUNNER = r"""
import contextlib, io, json, sys, traceback
blocks = json.load(open(sys.argv[1]))
ns = {"__name__": "__page__"}
out = []
for i, code in enumerate(blocks):
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            exec(compile(code, f"{sys.argv[3]} block {i + 1}", "exec"), ns)
    except Exception:
        out.append({"stdout": buf.getvalue(), "error": traceback.format_exc()})
        break
    out.append({"stdout": buf.getvalue(), "error": None})
json.dump(out, open(sys.argv[2], "w"))
"""


def pages() -> list[Path]:
    """README.md and every Markdown page of the site, in a fixed order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


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


def data_needed(blocks: list[tuple[str, str | None]]) -> set[str]:
    """The reference data folders the blocks' loaders read."""
    loaders = {m.group(1) for code, _ in blocks for m in LOADER.finditer(code)}
    unknown = loaders - LOADER_DATA.keys()
    assert not unknown, f"add the data folder of {sorted(unknown)} to LOADER_DATA"
    return {LOADER_DATA[name] for name in loaders} - {None}


def starts_processes(code: str) -> bool:
    """Whether a block starts processes, and so runs as a script of its own."""
    return STARTS_PROCESSES.search(code) is not None


def run_script(code: str, folder: Path, name: str, env: dict) -> subprocess.Popen:
    """Start ``code`` saved as ``folder/name`` in a fresh interpreter, as a user runs a
    saved example (``python name``); stdout and stderr are captured."""
    (folder / name).write_text(code)
    return subprocess.Popen([sys.executable, name], cwd=folder, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run_page(blocks: list[tuple[str, str | None]], name: str, folder: Path,
             env: dict) -> dict[int, dict]:
    """Run a page's blocks: those that start processes as scripts, beside the rest in one
    namespace, in order, in a working folder with the page's files (`PAGE_FILES`). Returns
    {block index: {"stdout", "error"}} for the blocks run."""
    scripts = [i for i, (code, _) in enumerate(blocks) if starts_processes(code)]
    together = [i for i in range(len(blocks)) if i not in scripts]
    (folder / "blocks.json").write_text(json.dumps([blocks[i][0] for i in together]))
    work = folder / "work"
    work.mkdir()
    if name in PAGE_FILES:
        PAGE_FILES[name][1](work)
    stem = re.sub(r"\W", "_", Path(name).stem)
    running = {i: run_script(blocks[i][0], work, f"{stem}_block_{i + 1}.py", env)
               for i in scripts}  # beside the namespace run, which they do not need
    subprocess.run([sys.executable, "-c", RUNNER, str(folder / "blocks.json"),
                    str(folder / "out.json"), name], cwd=work, env=env, check=True, timeout=900)
    results = dict(zip(together, json.loads((folder / "out.json").read_text()), strict=False))
    for i, proc in running.items():
        out, err = proc.communicate(timeout=900)
        results[i] = {"stdout": out, "error": None if proc.returncode == 0 else err}
    return results


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


@pytest.fixture(scope="session")
def hub_cache(tmp_path_factory) -> Path:
    """A Hugging Face hub cache (models--<org>--<name>/snapshots/<commit>) of stand-ins."""
    root = tmp_path_factory.mktemp("hub")
    for i, (name, make) in enumerate(STAND_INS.items()):
        repo = root / ("models--" + name.replace("/", "--"))
        commit = f"{i + 1:040x}"
        make(repo / "snapshots" / commit, positions=STAND_IN_POSITIONS)
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(commit)
    return root


EXECUTED = [p for p in pages() if readme_blocks(p.read_text())]


def test_readme_parser_pairs_blocks_with_their_output():
    text = "```python\nprint(1)\n```\n\n```\n1\n```\n```python\nx = 2\n```\ntext\n```\nno\n```\n"
    assert readme_blocks(text) == [("print(1)\n", "1\n"), ("x = 2\n", None)]


def test_every_page_that_shows_numbers_still_checks_them():
    """The pages and the README keep the examples whose printed output is checked."""
    names = [page_name(p) for p in EXECUTED]
    for name, n in PRINTED.items():
        assert name in names, f"{name} has no Python block left"
        blocks = readme_blocks((ROOT / name).read_text())
        assert sum(out is not None for _, out in blocks) >= n, name


def test_the_loaders_the_pages_call_are_known():
    for page in EXECUTED:
        data_needed(readme_blocks(page.read_text()))


def test_blocks_that_start_processes_have_a_main_guard():
    """The Dask example once lacked it and, saved as a script, died with "Nanny failed to
    start"; the page test runs such blocks as scripts, and this says why at once."""
    spawning = [(page, code) for page in EXECUTED
                for code, _ in readme_blocks(page.read_text()) if starts_processes(code)]
    assert spawning, "the Dask example is no longer recognised as starting processes"
    for page, code in spawning:
        assert MAIN_GUARD in code, (
            f"a block of {page_name(page)} starts processes without {MAIN_GUARD}\n{code}")


SPAWNING = """import multiprocessing
from concurrent.futures import ProcessPoolExecutor

{guard}
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        print(pool.submit(abs, -3).result())
"""


@pytest.mark.parametrize("guard", [MAIN_GUARD, "if True:"])
def test_a_block_that_starts_processes_fails_as_a_script_without_the_guard(guard, tmp_path):
    """How the page test runs such a block catches a missing guard: the child process
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
@pytest.mark.parametrize("page", EXECUTED, ids=page_name)
def test_every_python_block_runs_and_prints_what_the_page_shows(page, hub_cache, tmp_path):
    name = page_name(page)
    blocks = readme_blocks(page.read_text())
    for folder in sorted(data_needed(blocks)):
        need_data(folder)
    env = dict(os.environ, HF_HUB_CACHE=str(hub_cache), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1", ACCEPTABILITY_CACHE_DIR=str(tmp_path / "cache"),
               MPLBACKEND="Agg", PYTHONWARNINGS="ignore")
    results = run_page(blocks, name, tmp_path, env)
    for i, (code, expected) in enumerate(blocks):
        got = results.get(i)
        assert got is not None, f"{name} block {i + 1} did not run (an earlier block failed)"
        assert got["error"] is None, f"{name} block {i + 1} failed:\n{code}\n{got['error']}"
        if expected is not None:
            assert _lines(got["stdout"]) == _lines(expected), (
                f"{name} block {i + 1} prints something else than the page shows:\n"
                f"{got['stdout']}")


def test_the_security_tests_the_docs_name_exist():
    """docs/development.md's table of the tests behind README's "Security and reliability":
    every file it names is there (a later name in a cell is in the folder of the one before)."""
    page = (ROOT / "docs" / "development.md").read_text()
    table = page.split("## The tests behind", 1)[1].split("\n## ", 1)[0]
    named = []
    for row in table.splitlines()[4:]:
        folder = ""
        for name in re.findall(r"`([\w/.]+\.(?:py|json))`", row.split("|")[2]):
            folder = name.rsplit("/", 1)[0] if "/" in name else folder
            named.append(name if "/" in name else f"{folder}/{name}")
    assert len(named) > 20
    assert [n for n in named if not (ROOT / n).is_file()] == []
