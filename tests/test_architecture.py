"""The layout issues 29 and 45 set, checked on the source (``ast``, ``tests/package_graph.py``),
so that it cannot erode: an acyclic import graph that respects the layers (scoring and stats
import neither each other nor reports; data none of them), at most 20 modules a folder, short
functions, one list of scoring methods, method names compared only in the registry, metric
names listed only in the metrics table, one class per GLM family (those three checks live with
their owners' tests and are imported here), one resampling implementation, no repeated code,
and docs/development.md's design picture drawn from the code as it is."""

from __future__ import annotations

import ast
import shutil
import subprocess
from collections.abc import Iterator

import networkx as nx
import pytest

from tests import design_picture
from tests.package_graph import FORBIDDEN, MODULES, REPO, ROOMS, import_graph, imported, parse

# Knowledge with one owner (issue 45, item 2): each check is written once, beside the tests
# of what it guards, and runs here too, so this file checks the whole layout: the registry
# is the only place a method name is compared, the metrics table the only place a metric
# name is listed, one class per GLM family that no other module names.
from tests.scoring.test_registry_dispatch import (  # noqa: F401
    test_only_the_registry_compares_method_names,
)
from tests.stats.mixed.test_family_objects import (  # noqa: F401
    test_each_family_is_one_class,
    test_no_family_or_link_name_is_compared_outside_the_family_module,
)
from tests.stats.test_metric_table import (  # noqa: F401
    test_only_the_metrics_table_lists_metric_names,
)

MAX_FUNCTION_LINES = 80
MAX_FOLDER_MODULES = 20


def test_the_import_graph_has_no_cycle():
    cycles = sorted(nx.simple_cycles(import_graph()), key=len)
    assert not cycles, f"import cycles: {cycles[:5]}"


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layers_import_only_downwards(layer):
    """data imports none of the others; scoring and stats import neither each other nor
    reports (``package_graph.FORBIDDEN``)."""
    graph = import_graph()
    below = f"acceptability.{layer}"
    forbidden = tuple(f"acceptability.{p}" for p in FORBIDDEN[layer])
    wrong = sorted((m, t) for m, t in graph.edges
                   if (m == below or m.startswith(below + ".")) and t.startswith(forbidden))
    assert not wrong, f"{layer} imports {wrong}"


def test_the_graph_sees_imports_inside_functions(tmp_path):
    """The check is not blind to a cycle hidden in a function body."""
    path = tmp_path / "m.py"
    path.write_text("def f():\n    from acceptability.stats.evaluate import evaluate\n")
    assert "acceptability.stats.evaluate" in imported("acceptability.stats.x", path)


def test_every_folder_holds_at_most_20_modules():
    """A feature grows a room (a subpackage), not a prefix: no folder of the package holds
    more than 20 modules (``__init__.py`` counted)."""
    folders = {path.parent for folder in ROOMS for path in (REPO / folder).rglob("*.py")}
    crowded = {str(f.relative_to(REPO)): len(list(f.glob("*.py"))) for f in sorted(folders)}
    crowded = {f: n for f, n in crowded.items() if n > MAX_FOLDER_MODULES}
    assert not crowded, f"folders over {MAX_FOLDER_MODULES} modules: {crowded}"


def test_no_package_function_is_longer_than_80_lines():
    long = []
    for module, path in MODULES.items():
        for node in ast.walk(parse(path)):
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
        for node in ast.walk(parse(path)):
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
        for node in ast.walk(parse(path)):
            if isinstance(node, ast.Attribute) and node.attr in ("integers", "bootstrap") \
                    and isinstance(node.value, ast.Name) and node.value.id in ("rng", "sps"):
                drawn.append(f"{module}:{node.lineno} {node.value.id}.{node.attr}")
    assert not drawn, drawn


def test_the_design_picture_is_the_code():
    """docs/development.md's "## Design" section and its SVG are what
    ``tests/design_picture.py`` draws from the tree as it is now."""
    page = design_picture.PAGE.read_text()
    fix = f"the code changed: run `{design_picture.COMMAND}` and commit what it rewrites"
    same_page = page == design_picture.page(page)  # (a bool: the message says it, not a diff)
    assert same_page, f"{design_picture.PAGE.name}'s Design section: {fix}"
    assert design_picture.SVG.is_file(), f"{design_picture.SVG} is missing: {fix}"
    same_svg = design_picture.SVG.read_text() == design_picture.svg()
    assert same_svg, f"{design_picture.SVG}: {fix}"


def _layout_folders(page: str) -> Iterator[str]:
    """The folders docs/development.md's "## Layout" block names: a line starting with
    ``name/`` is a folder, inside the last folder two spaces less indented."""
    block = page.split("## Layout\n", 1)[1].split("\n## ", 1)[0]
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        word = line.strip().split(" ", 1)[0]
        indent = len(line) - len(line.lstrip())
        if line.startswith("    ") and word.endswith("/"):
            stack = [(i, f) for i, f in stack if i < indent]
            stack.append((indent, (stack[-1][1] + "/" if stack else "") + word.rstrip("/")))
            yield stack[-1][1]


def test_the_layout_names_every_room():
    """docs/development.md's "## Layout" lists the package's folders as they are."""
    named = set(_layout_folders(design_picture.PAGE.read_text()))
    rooms = {str(MODULES[m].parent.relative_to(REPO)) for m in MODULES
             if MODULES[m].name == "__init__.py"} - {"src/acceptability"}
    assert named == rooms, (f"the Layout section of docs/development.md names {sorted(named - rooms)}"
                            f" that are no rooms and misses {sorted(rooms - named)}")


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
