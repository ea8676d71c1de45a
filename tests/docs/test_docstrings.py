"""Every docstring example of the package runs and prints what it shows (doctest), and every
public function exported by a room has one (and every class a docstring) (issue 29: the API reference of the
documentation site is made of these docstrings).

The modules are imported by their package names, so the examples run against the installed
package as a user's would (``make test-wheel`` too), not against the source folders."""

from __future__ import annotations

import doctest
import importlib
import inspect
import pkgutil

import pytest

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
ROOMS = ("acceptability.data", "acceptability.scoring", "acceptability.scoring.baselines",
         "acceptability.scoring.training", "acceptability.stats",
         "acceptability.stats.inference", "acceptability.stats.mixed", "acceptability.stats.ratings",
         "acceptability.stats.benchmarks", "acceptability.reports",
         "acceptability.reports.cli")


def _modules() -> list[str]:
    """Every public module of the four subpackages (each maps a folder of its own)."""
    names = []
    for top in ("data", "scoring", "stats", "reports"):
        package = importlib.import_module(f"acceptability.{top}")
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            if not info.name.rpartition(".")[2].startswith("_"):
                names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in finder.find(module, name, globs={}):
        if test.examples and test.name.startswith(name):  # its own, not re-exported ones
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def _public(room: str) -> list[tuple[str, str]]:
    module = importlib.import_module(room)
    return [(room, n) for n in getattr(module, "__all__", ())
            if inspect.isfunction(getattr(module, n)) or inspect.isclass(getattr(module, n))]


@pytest.mark.parametrize(("room", "name"), [p for room in ROOMS for p in _public(room)])
def test_every_public_function_has_an_example_and_every_class_a_docstring(room, name):
    obj = getattr(importlib.import_module(room), name)
    doc = inspect.getdoc(obj) or ""
    if inspect.isclass(obj):
        assert doc, f"{room}.{name} has no docstring"
    else:
        assert "Examples\n--------" in doc and ">>> " in doc, f"{room}.{name} has no Examples"
