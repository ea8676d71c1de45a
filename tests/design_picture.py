"""The design picture of docs/development.md ("## Design"), drawn from the source: the
packages and their rooms (folders), the import arrows between packages labelled with the
tables that flow along them, the tables' schemas, and what each room owns (the first
paragraph of its ``__init__`` docstring).

    .venv/bin/python -m tests.design_picture    # rewrites the section and the SVG

``tests/test_architecture.py::test_the_design_picture_is_the_code`` fails when either
differs from what this gives for the tree as it is. Nothing here is installed.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass
from xml.sax.saxutils import escape

import networkx as nx

from tests.package_graph import (
    FORBIDDEN,
    MODULES,
    REPO,
    parse,
    room_folder,
    room_graph,
    room_of,
)

PAGE = REPO / "docs" / "development.md"
SVG = REPO / "docs" / "development" / "design.svg"
SECTION = "## Design\n"
COMMAND = ".venv/bin/python -m tests.design_picture"
ROOT = "acceptability"  # the namespace's own room (lazy exports): left out of the arrows
HOLDER = "Dataset"  # data's class holding a data set's tables (sentences, pairs, trials, ratings)
PACKAGES = ("data", "scoring", "stats", "reports")
CHAR, LINE, PAD, GAP = 7.2, 16, 10, 150  # monospace 12 px: glyph width, line height, margins
WIDTH = 90  # characters of a line of the page's prose


@dataclass(frozen=True)
class Table:
    """A table that flows between packages: a ``<NAME>_COLUMNS`` schema of a module of
    ``data`` that validates tables (defines a ``validate_*`` function)."""

    name: str
    columns: tuple[str, ...]
    module: str

    @property
    def names(self) -> set[str]:
        """The identifiers by which code reads it: its schema and its validator."""
        return {f"{self.name[:-1].upper()}_COLUMNS", f"validate_{self.name}"}


def _top(node: ast.Module) -> list[ast.stmt]:
    return [s for s in node.body if isinstance(s, ast.Assign | ast.FunctionDef)]


def tables() -> list[Table]:
    """Every table schema of ``data``, in module and file order."""
    out = []
    for module, path in MODULES.items():
        body = _top(parse(path))
        if not module.startswith(f"{ROOT}.data") or not any(
                isinstance(s, ast.FunctionDef) and s.name.startswith("validate_") for s in body):
            continue
        for s in body:
            target = s.targets[0] if isinstance(s, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id.endswith("_COLUMNS") \
                    and isinstance(s.value, ast.List | ast.Tuple):
                columns = tuple(e.value for e in s.value.elts if isinstance(e, ast.Constant))
                out.append(Table(target.id.removesuffix("_COLUMNS").lower() + "s", columns, module))
    return out


def _names(path) -> set[str]:
    """Identifiers a file uses: names, attributes and imported names."""
    out = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Name):
            out.add(node.id)
        elif isinstance(node, ast.Attribute):
            out.add(node.attr)
        elif isinstance(node, ast.ImportFrom):
            out |= {a.name for a in node.names}
    return out


def readers() -> dict[str, set[str]]:
    """Table name (and `HOLDER`) -> the rooms outside ``data`` whose modules name it."""
    found: dict[str, set[str]] = {HOLDER: set()} | {t.name: set() for t in tables()}
    names = {HOLDER: {HOLDER}} | {t.name: t.names for t in tables()}
    for module, path in MODULES.items():
        if package(room_of(module)) not in ("data", ROOT):
            used = _names(path)
            for name, spelled in names.items():
                if used & spelled:
                    found[name].add(room_of(module))
    return found


def package(room: str) -> str:
    """The top package of a room (``acceptability.stats.mixed``: ``stats``)."""
    return room.split(".")[1] if room != ROOT else ROOT


def short(room: str) -> str:
    """A room as its folder reads (``stats/mixed``; the namespace: ``src/acceptability``)."""
    return str(room_folder(room).relative_to(REPO))


def package_edges() -> dict[tuple[str, str], list[str]]:
    """(importer, imported) package -> its label: the tables of ``data`` the importer's
    rooms name, or the imported package's rooms it imports."""
    rooms = room_graph()
    read = readers()
    edges: dict[tuple[str, str], list[str]] = {}
    for a, b in sorted(rooms.edges):
        pa, pb = package(a), package(b)
        if pa != pb and ROOT not in (pa, pb):
            edges.setdefault((pa, pb), [])
            edges[(pa, pb)].append(short(b))
    for (pa, pb), label in edges.items():
        if pb == "data":
            names = [t for t, where in read.items() if any(package(r) == pa for r in where)]
            label[:] = names
        else:
            label[:] = sorted(set(label))
    return edges


def layers() -> dict[str, int]:
    """Package -> its row, counted from the bottom: one above the highest it imports."""
    graph = nx.DiGraph(list(package_edges()))
    graph.add_nodes_from(PACKAGES)
    dag = nx.condensation(graph)
    level = {}
    for c in reversed(list(nx.topological_sort(dag))):
        level[c] = 1 + max((level[s] for s in dag.successors(c)), default=-1)
    return {p: level[dag.graph["mapping"][p]] for p in PACKAGES}


@dataclass(frozen=True)
class Box:
    """A package drawn as a box listing its rooms."""

    name: str
    lines: tuple[str, ...]
    x: float
    y: float

    @property
    def width(self) -> float:
        return max(map(len, self.lines)) * CHAR + 2 * PAD

    @property
    def height(self) -> float:
        return len(self.lines) * LINE + 2 * PAD


def box_lines(name: str) -> tuple[str, ...]:
    """A package's title line and one line per room below its top (no module counts: a
    new module changes the picture only where it changes the design)."""
    rooms = sorted({room_of(m) for m in MODULES if package(room_of(m)) == name})
    return (f"{name}/", *(f"  {short(r).removeprefix(name + '/')}/" for r in rooms
                          if r != f"{ROOT}.{name}"))


def boxes(margin: float) -> dict[str, Box]:
    """Each package's box, rows from the top package down, a row's boxes side by side,
    ``margin`` free on either side for the arrows' labels."""
    row_of = layers()
    rows = [[p for p in PACKAGES if row_of[p] == k] for k in range(max(row_of.values()), -1, -1)]
    drafts = {p: Box(p, box_lines(p), 0, 0) for p in PACKAGES}
    width = max(sum(drafts[p].width + GAP for p in row) + GAP for row in rows)
    out, y = {}, PAD
    for row in rows:
        for i, p in enumerate(row):
            centre = margin + (i + 0.5) * width / len(row)
            out[p] = Box(p, drafts[p].lines, centre - drafts[p].width / 2, y)
        y += max(drafts[p].height for p in row) + GAP
    return out


def _ends(b: dict[str, Box], edges: list[tuple[str, str]]) -> dict[tuple[str, str], tuple]:
    """Each arrow's start (bottom of the importer) and end (top of the imported), the
    arrows leaving or reaching a box spread along its edge in the order of the far box."""
    ends = {}
    for e in edges:
        outs = sorted((f for f in edges if f[0] == e[0]), key=lambda f: b[f[1]].x)
        ins = sorted((f for f in edges if f[1] == e[1]), key=lambda f: b[f[0]].x)
        start, end = b[e[0]], b[e[1]]
        ends[e] = (start.x + start.width * (outs.index(e) + 1) / (len(outs) + 1),
                   start.y + start.height,
                   end.x + end.width * (ins.index(e) + 1) / (len(ins) + 1), end.y)
    return ends


def _text(x: float, y: float, lines, anchor: str = "start", weight: str = "normal") -> str:
    spans = "".join(f'<tspan x="{x:.1f}" dy="{LINE if i else 0}">{escape(t)}</tspan>'
                    for i, t in enumerate(lines))
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-weight="{weight}" '
            f'xml:space="preserve">{spans}</text>')


def _wrap(names: list[str], width: int = 30) -> list[str]:
    """``names`` joined by commas into lines of about ``width`` characters."""
    lines = [""]
    for n in names:
        lines[-1:] = [lines[-1] + ", " + n] if lines[-1] and len(lines[-1]) + len(n) < width \
            else ([lines[-1] + ","] if lines[-1] else []) + [n]
    return lines


def svg() -> str:
    """The picture: the package boxes and the labelled import arrows (red: against the
    layering, ``package_graph.FORBIDDEN``), cropped to what is drawn."""
    labels = package_edges()
    b = boxes(max(len(t) for label in labels.values() for t in _wrap(label)) * CHAR + PAD)
    left = min(x.x for x in b.values())
    right = max(x.x + x.width for x in b.values())
    middle, span = (left + right) / 2, [left, right]
    parts = []
    for x in b.values():
        parts += [f'<rect x="{x.x:.1f}" y="{x.y:.1f}" width="{x.width:.1f}" '
                  f'height="{x.height:.1f}" rx="6" fill="#f4f6fb" stroke="#34495e"/>',
                  _text(x.x + PAD, x.y + PAD + 12, x.lines[:1], weight="bold"),
                  _text(x.x + PAD, x.y + PAD + 12 + LINE, x.lines[1:])]
    for (a, c), (x0, y0, x1, y1) in _ends(b, list(labels)).items():
        colour = "#c0392b" if c in FORBIDDEN.get(a, ()) else "#34495e"
        parts.append(f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" '
                     f'stroke="{colour}" marker-end="url(#head)"/>')
        lines, mx = _wrap(labels[a, c]), (x0 + x1) / 2
        side = -1 if mx < middle - 1 else 1  # the label on the side away from the middle
        span.append(mx + side * (6 + max(map(len, lines), default=0) * CHAR))
        parts.append(_text(mx + side * 6, (y0 + y1) / 2, lines, "end" if side < 0 else "start")
                     .replace("<text ", f'<text fill="{colour}" '))
    x0, width = min(span) - PAD, max(span) - min(span) + 2 * PAD
    height = max(x.y + x.height for x in b.values()) + PAD
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="{x0:.0f} 0 {width:.0f} {height:.0f}" font-family="monospace" font-size="12">',
        '<defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
        'markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="context-stroke"/></marker></defs>', *parts, "</svg>", ""])


def _cell(text: str) -> str:
    """A docstring paragraph as one Markdown table cell (references unlinked)."""
    text = re.sub(r"\[([^\]]+)\]\[[\w.]+\]", r"`\1`", " ".join(text.split()))
    return text.replace("|", "\\|")


def section() -> str:
    """The page's "## Design" section."""
    rooms, read = room_graph(), readers()
    out = [SECTION, *textwrap.wrap(
        f"Drawn from the code by `tests/design_picture.py`: `{COMMAND}` rewrites this section "
        "and `docs/development/design.svg`; `tests/test_architecture.py` fails while either "
        "differs from what the code gives.", WIDTH), "",
        "![The packages, their rooms and the tables that flow between them]"
        "(development/design.svg)", "", *textwrap.wrap(
        "Each box is a package listing its rooms (folders). An arrow points "
        "from a package to one it imports; into `data` it is labelled with the tables the "
        "importer's modules name (a table's `*_COLUMNS` schema or its `validate_*` function, "
        f"or the `{HOLDER}` holding them), elsewhere with the rooms it imports. A red arrow "
        "goes against the layering (`data` imports none of the others; `scoring` and `stats` "
        "are siblings; only the applications in `reports` import both).", WIDTH), "",
           "### The tables that flow between packages", "",
           "| table | columns | schema in | named in |", "| --- | --- | --- | --- |"]
    out += [f"| {t.name} | {', '.join(f'`{c}`' for c in t.columns)} | `{t.module}` | "
            f"{', '.join(f'`{short(r)}`' for r in sorted(read[t.name])) or '-'} |"
            for t in tables()]
    holder = next(m for m, path in MODULES.items() if any(
        isinstance(s, ast.ClassDef) and s.name == HOLDER for s in parse(path).body))
    out.append(f"| `{HOLDER}` | holds a data set's tables | `{holder}` | "
               f"{', '.join(f'`{short(r)}`' for r in sorted(read[HOLDER]))} |")
    out += ["", "### The rooms and what each owns", "",
            "| room | what it owns (its `__init__` docstring) | imports |",
            "| --- | --- | --- |"]
    for room in sorted(rooms, key=short):
        doc = ast.get_docstring(parse(MODULES[room])) or ""
        uses = sorted(short(r) for r in rooms.successors(room) if r != ROOT)
        out.append(f"| `{short(room)}/` | {_cell(doc.split(chr(10) * 2)[0])} | "
                   f"{', '.join(f'`{u}`' for u in uses) or '-'} |")
    return "\n".join(out) + "\n"


def page(text: str) -> str:
    """``text`` (docs/development.md) with its "## Design" section as the code gives it."""
    if SECTION not in text:
        raise ValueError(f"{PAGE} has no '{SECTION.strip()}' section to rewrite")
    before, rest = text.split(SECTION, 1)
    after = rest.split("\n## ", 1)
    return before + section() + ("\n## " + after[1] if len(after) > 1 else "")


if __name__ == "__main__":
    from acceptability.data.io.atomic import write_text

    write_text(PAGE, page(PAGE.read_text()))
    write_text(SVG, svg())
