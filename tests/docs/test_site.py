"""The documentation site builds with ``mkdocs build --strict`` (any warning fails: a broken
link, a page outside the navigation, a cross-reference to nothing), and its API reference
documents every function and class that the rooms of the package export."""

from __future__ import annotations

import importlib
import inspect
import math
import os
import re
import subprocess
import sys
from itertools import pairwise
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
    public names), but for the package's private helpers (``acceptability._lazy``)."""
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


# Issue 42, item 14: a table of contents on every page, a home page that leads everywhere,
# and pages that read on a phone.
LINES_PER_HEADING = 80  # a "##" heading at least every ~80 lines of a page
LONGEST_STRETCH = 120  # and no longer stretch without a "##" or "###"
PHONE = 390  # CSS pixels: a phone's width


def headings(text: str) -> list[tuple[int, int]]:
    """``(line, level)`` of each Markdown heading of level 2 or 3, outside code fences."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines()):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(#{2,3}) \S", line)):
            out.append((number, len(match.group(1))))
    return out


def guide_pages() -> list[Path]:
    """Every page but the API reference's room pages, whose headings mkdocstrings writes."""
    return [p for p in sorted(DOCS.rglob("*.md")) if "\n::: " not in "\n" + p.read_text()]


@pytest.mark.parametrize("page", guide_pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_every_page_has_a_table_of_contents(page):
    """At least one ``##`` per ~80 lines (one at least), and no stretch of more than 120
    lines without a heading: the table of contents of every page leads into it."""
    text = page.read_text()
    n_lines = len(text.splitlines())
    found = headings(text)
    sections = sum(level == 2 for _, level in found)
    assert sections >= max(1, math.floor(n_lines / LINES_PER_HEADING)), (
        f"{n_lines} lines with {sections} '##' headings")
    marks = [0, *(line for line, _ in found), n_lines]
    assert max(b - a for a, b in pairwise(marks)) <= LONGEST_STRETCH


def test_the_home_page_links_every_page_of_the_navigation():
    """Every entry of mkdocs.yml's navigation (a section by its first page) is linked from
    docs/index.md."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    entries = [next(iter(item.values())) if isinstance(item, dict) else item
               for item in config["nav"]]
    wanted = {nav_pages(e)[0] if isinstance(e, list) else e for e in entries} - {"index.md"}
    linked = set(re.findall(r"\]\(([^)#]+\.md)(?:#[^)]*)?\)", (DOCS / "index.md").read_text()))
    assert wanted <= linked, f"the home page does not link {sorted(wanted - linked)}"


# Run in a built page: what a reader of the page's article at this width would find wrong.
PHONE_LAYOUT = """(() => {
  const article = document.querySelector("article");
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const inScrollBox = el => {
    for (let p = el; p && p !== article; p = p.parentElement) if (scrolls(p)) return true;
    return false;
  };
  const name = el => el.tagName.toLowerCase() + ": " + (el.textContent || "").trim().slice(0, 50);
  const all = [...article.querySelectorAll("*")].filter(el => el.getClientRects().length);
  const withText = all.filter(el => [...el.childNodes].some(
    n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()));
  return {
    innerWidth, scale: visualViewport.scale,
    scrollWidth: document.documentElement.scrollWidth,
    viewport: (document.querySelector("meta[name=viewport]") || {}).content || null,
    outside: all.filter(el => !inScrollBox(el.parentElement)).filter(el => {
      const r = el.getBoundingClientRect();
      return r.left < -0.5 || r.right > innerWidth + 0.5;
    }).map(name),
    small: withText.filter(el => parseFloat(getComputedStyle(el).fontSize) < 12).map(name),
    unboxed: [...article.querySelectorAll("table, pre > code")]
      .filter(el => el.scrollWidth > el.clientWidth + 1 || el.offsetWidth > innerWidth)
      .filter(el => !inScrollBox(el)).map(name),
    wide: [...article.querySelectorAll("table, pre > code")]
      .filter(el => el.scrollWidth > innerWidth).length,
  };
})()"""


@pytest.mark.slow
def test_every_page_reads_at_a_phones_width(site, tmp_path):
    """Each built page at 390 px in headless Chromium: laid out at the window's width,
    unscaled; no sideways scrolling of the page; nothing of the article outside the window
    but inside a scroll box: a wide table or code block scrolls in its own box; no text under
    12 px (docs/stylesheets/extra.css)."""
    from tests.reports.chromium import Browser, need_chromium

    executable = need_chromium()
    pages = sorted(p for p in site.rglob("index.html")
                   if not {"assets", "search"} & set(p.relative_to(site).parts))
    assert len(pages) == len(nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text())["nav"]))
    browser = Browser(executable, tmp_path / "profile")
    wide = 0
    try:
        for html in pages:
            layout = browser.open(html.as_uri(), PHONE, 844, mobile=True).evaluate(PHONE_LAYOUT)
            where = html.relative_to(site).as_posix()
            assert "width=device-width" in (layout["viewport"] or ""), where
            assert (layout["innerWidth"], layout["scale"], layout["scrollWidth"]) == (
                PHONE, 1, PHONE), where
            assert layout["outside"] == [] and layout["unboxed"] == [], (where, layout)
            assert layout["small"] == [], (where, layout["small"][:5])
            wide += layout["wide"]
    finally:
        browser.close()
    assert wide > 0  # the check saw wide tables and code, which scrolled in their boxes
