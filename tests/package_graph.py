"""The package as its source shows it (``ast``, nothing imported): its modules, the rooms
(folders) that hold them and the imports between them. Read by the layout checks
(``tests/test_architecture.py``) and the design picture (``tests/design_picture.py``)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parents[1]
#: Package folder -> the dotted name it installs as (pyproject.toml's package-dir).
ROOMS = {"data": "acceptability.data", "scoring": "acceptability.scoring",
         "stats": "acceptability.stats", "reports": "acceptability.reports",
         "src/acceptability": "acceptability"}
#: The layering (docs/DESIGN.md): package -> the packages it may not import. ``scoring`` and
#: ``stats`` are siblings over ``data``; only ``reports`` (the applications) imports both.
FORBIDDEN = {"data": ("scoring", "stats", "reports"), "scoring": ("stats", "reports"),
             "stats": ("scoring", "reports")}


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


@cache
def parse(path: Path) -> ast.Module:
    """The syntax tree of one file of the package (parsed once per run)."""
    return ast.parse(path.read_text(), filename=str(path))


def imported(module: str, path: Path) -> set[str]:
    """Package modules ``module`` imports anywhere in its file (inside functions too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(parse(path)):
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
        for target in imported(module, path):
            parts = target.split(".")
            for k in range(2, len(parts) + 1):
                parent = ".".join(parts[:k])
                if parent in MODULES and parent not in own:
                    graph.add_edge(module, parent)
    return graph


def room_of(module: str) -> str:
    """The room (dotted name of the package folder) that holds ``module``."""
    return module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]


def room_folder(room: str) -> Path:
    """The folder of a room (``acceptability.stats.mixed``: ``stats/mixed``)."""
    return MODULES[room].parent


def room_graph() -> nx.DiGraph:
    """Edges room -> room a module of it imports directly (a room's imports of itself left
    out), each with ``modules``: how many of the importer's modules import the other room."""
    graph = nx.DiGraph()
    for module, path in MODULES.items():
        room = room_of(module)
        graph.add_node(room)
        for target in {room_of(t) for t in imported(module, path)} - {room}:
            n = graph.edges[room, target]["modules"] if graph.has_edge(room, target) else 0
            graph.add_edge(room, target, modules=n + 1)
    return graph
