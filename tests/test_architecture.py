"""The layout issue 29 set, checked on the source (``ast``), so that it cannot erode:
an acyclic import graph that respects the layers, rooms of bounded size, short functions,
one list of scoring methods, one resampling implementation and no repeated code."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import networkx as nx
import pytest

from tests.conftest import REPO

ROOMS = {"data": "acceptability.data", "scoring": "acceptability.scoring",
         "stats": "acceptability.stats", "reports": "acceptability.reports",
         "src/acceptability": "acceptability"}
MAX_FUNCTION_LINES = 80
MAX_STATS_TOP_MODULES = 12


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package."""
    out = {}
    for folder, package in ROOMS.items():
        for path in sorted((REPO / folder).rglob("*.py")):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


MODULES = _modules()


def _imported(module: str, path: Path) -> set[str]:
    """Package modules ``module`` imports anywhere in its file (inside functions too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found |= {f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                      for a in node.names}
    return {name for name in found if name in MODULES and name != module}


def import_graph() -> nx.DiGraph:
    """Edges module -> module it imports, and -> every package ``__init__`` that importing
    it runs first (its parents, except the importer's own, which are already running)."""
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        graph.add_node(module)
        own = {module.rsplit(".", k)[0] for k in range(module.count(".") + 1)}
        for target in _imported(module, path):
            parts = target.split(".")
            for k in range(2, len(parts) + 1):
                parent = ".".join(parts[:k])
                if parent in MODULES and parent not in own:
                    graph.add_edge(module, parent)
    return graph


def test_the_import_graph_has_no_cycle():
    cycles = sorted(nx.simple_cycles(import_graph()), key=len)
    assert not cycles, f"import cycles: {cycles[:5]}"


@pytest.mark.parametrize(("layer", "forbidden"), [
    ("acceptability.data", ("acceptability.scoring", "acceptability.stats",
                            "acceptability.reports")),
    ("acceptability.stats", ("acceptability.scoring", "acceptability.reports")),
])
def test_layers_import_only_downwards(layer, forbidden):
    graph = import_graph()
    wrong = sorted((m, t) for m, t in graph.edges
                   if m.startswith(layer) and t.startswith(forbidden))
    assert not wrong, f"{layer} imports {wrong}"


def test_the_graph_sees_imports_inside_functions(tmp_path):
    """The check is not blind to a cycle hidden in a function body."""
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from acceptability.stats.evaluate import evaluate\n")
    assert "acceptability.stats.evaluate" in _imported("acceptability.stats.x", path)


def test_stats_top_level_holds_at_most_twelve_modules():
    top = sorted(p.name for p in (REPO / "stats").glob("*.py"))
    assert len(top) <= MAX_STATS_TOP_MODULES, top


def test_no_package_function_is_longer_than_80_lines():
    long = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{module}.{node.name}: {lines} lines")
    assert not long, long


def test_one_list_of_scoring_methods():
    """Only the registry spells out the set of method names: no other literal tuple, list
    or set in the package holds two or more of them."""
    from acceptability.scoring import METHODS, registry

    assert tuple(METHODS) == tuple(registry.METHODS)
    names = set(METHODS)
    lists = []
    for module, path in MODULES.items():
        if module == "acceptability.scoring.registry":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
                if len(values & names) >= 2:
                    lists.append(f"{module}:{node.lineno}")
    assert not lists, f"method lists outside scoring.registry: {lists}"


def test_one_resampling_implementation():
    """Resample indices are drawn (``rng.integers``, ``scipy.stats.bootstrap``) only in
    ``stats.inference``."""
    drawn = []
    for module, path in MODULES.items():
        if module.startswith("acceptability.stats.inference"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("integers", "bootstrap") \
                    and isinstance(node.value, ast.Name) and node.value.id in ("rng", "sps"):
                drawn.append(f"{module}:{node.lineno} {node.value.id}.{node.attr}")
    assert not drawn, drawn


def test_no_repeated_code_in_the_package(tmp_path):
    """``duplicates`` (this workplace's clone finder) finds no pair in the package code."""
    if shutil.which("duplicates") is None:
        pytest.skip("the `duplicates` tool of the development machines is not on PATH")
    tree = tmp_path / "package"
    for folder in ("data", "scoring", "stats", "reports", "src"):
        shutil.copytree(REPO / folder, tree / folder, ignore=shutil.ignore_patterns(
            "__pycache__", "*.csv", "*.txt", "*.gz", "*.typed"))
    out = subprocess.run(["duplicates", "--repo", str(tree), "--seconds", "120"],
                         capture_output=True, text=True, check=True).stdout
    assert out.startswith("no duplicates"), out
