"""The documentation site builds with ``mkdocs build --strict`` (any warning fails: a broken
link, a page outside the navigation, a cross-reference to nothing), and its API reference
documents every function and class that the rooms of the package export."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import need_module

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
# Each room of the package and its page in the API reference (docs/reference/).
ROOMS = ("data", "scoring", "scoring.baselines", "scoring.training", "stats", "stats.metrics",
         "stats.inference", "stats.mixed", "stats.ratings", "stats.benchmarks", "reports", "reports.cli")


def reference_page(room: str) -> Path:
    return DOCS / "reference" / (room.replace(".", "-") + ".md")


def nav_pages(nav: list) -> list[str]:
    """The Markdown files the navigation of mkdocs.yml lists."""
    out = []
    for item in nav:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        out.extend(nav_pages(value) if isinstance(value, list) else [value])
    return out


def exported(room: str) -> dict[str, object]:
    """The functions and classes ``acceptability.<room>`` exports (its ``__all__``, or its
    public names), but for the package's private helpers (``acceptability._moved``)."""
    module = importlib.import_module(f"acceptability.{room}")
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    objects = {n: getattr(module, n) for n in names}
    return {n: obj for n, obj in objects.items()
            if (inspect.isfunction(obj) or inspect.isclass(obj))
            and not any(part.startswith("_") for part in obj.__module__.split("."))}


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built as CI builds it."""
    need_module("mkdocs")
    need_module("mkdocstrings_handlers.python")
    need_module("material")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--clean",
         "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-6000:]}"
    return out


def test_every_page_is_in_the_navigation_and_every_room_has_a_reference_page():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    listed = nav_pages(config["nav"])
    pages = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert sorted(listed) == pages
    for room in ROOMS:
        assert f"::: acceptability.{room}\n" in reference_page(room).read_text(), room


@pytest.mark.slow
def test_the_site_builds_strictly(site):
    assert (site / "index.html").is_file()
    assert (site / "reference" / "stats" / "index.html").is_file()
    # the data the pages link to are published with them
    assert (site / "training" / "learning_curve.png").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("room", ROOMS)
def test_the_api_reference_documents_every_exported_function_and_class(site, room):
    """Found under the room's path (``acceptability.stats.adc``) or, for a function that
    shares its name with its module (``stats.evaluate``), under its own module's path."""
    anchors = set()
    for html in (site / "reference").rglob("index.html"):
        anchors |= set(re.findall(r'id="(acceptability\.[\w.]+)"', html.read_text()))
    missing = [name for name, obj in exported(room).items()
               if not {f"acceptability.{room}.{name}",
                       f"{obj.__module__}.{obj.__qualname__}"} & anchors]
    assert not missing, (
        f"acceptability.{room} exports {missing}, absent from the API reference: a name that "
        f"its own module shadows (griffe documents the module) needs `::: <module>.<name>` in "
        f"{reference_page(room).relative_to(ROOT)}")
