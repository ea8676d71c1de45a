"""Every file the package writes goes through the one atomic writer, data/io/atomic.py (issue
30, item 10): the package's source, read with ``ast``, calls no writer of its own (pandas'
``to_csv``/``to_parquet``, ``savefig``, ``Path.write_text``/``write_bytes``, ``open`` for
writing, ``json.dump``, ``np.save``, ``torch.save``, ``save_pretrained``, copies and renames)
anywhere but there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO

FOLDERS = ("data", "scoring", "stats", "reports", "src/acceptability")
WRITER = Path("data/io/atomic.py")
# methods that write the file they are given
METHODS = {"to_parquet", "to_excel", "to_feather", "to_hdf", "to_pickle", "to_stata", "to_orc",
           "savefig", "write_text", "write_bytes", "save_pretrained", "touch", "symlink_to",
           "hardlink_to", "savez", "savez_compressed", "savetxt"}
# methods that return text without a path, and write the file given one
TO_TEXT = {"to_csv": "path_or_buf", "to_json": "path_or_buf", "to_xml": "path_or_buffer"}
# module functions that write (or create) a file
FUNCTIONS = {("json", "dump"), ("pickle", "dump"), ("np", "save"), ("numpy", "save"),
             ("torch", "save"), ("joblib", "dump"), ("shutil", "copy"), ("shutil", "copy2"),
             ("shutil", "copyfile"), ("shutil", "copytree"), ("shutil", "move"),
             ("os", "rename"), ("os", "replace"), ("os", "link"), ("os", "symlink"),
             ("os", "open"), ("os", "write"), ("os", "ftruncate")}
WRITE_MODE = re.compile(r"[rbt]*[wax+][rwaxbt+]*")
# What may write outside data/io/atomic.py, and why.
EXEMPT = {
    # a lock file is locked in place (flock, or created with O_EXCL): replacing it would
    # hand a second writer a lock of its own
    Path("reports/cli/lock.py"): {"os.open", "os.write", "os.ftruncate"},
}


def _name(func: ast.expr) -> str:
    """``open``, ``json.dump``, ``.to_csv`` (a method of any object)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and (func.value.id, func.attr) in FUNCTIONS:
            return f"{func.value.id}.{func.attr}"
        return f".{func.attr}"
    return ""


def _mode_writes(call: ast.Call) -> bool:
    """An ``open``-like call given a mode that writes (``"w"``, ``"ab"``, ``"r+"``...)."""
    given = [*call.args, *(k.value for k in call.keywords if k.arg == "mode")]
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str)
               and WRITE_MODE.fullmatch(a.value) for a in given)


def writes(call: ast.Call) -> str | None:
    """What ``call`` writes with, if it writes a file."""
    name = _name(call.func)
    if name.removeprefix(".") in METHODS and name.startswith("."):
        return name
    if name.startswith(".") and name[1:] in TO_TEXT:
        path_given = call.args or any(k.arg == TO_TEXT[name[1:]] for k in call.keywords)
        return name if path_given else None
    if name in ("open", ".open"):
        return name if _mode_writes(call) else None
    return name if "." in name and not name.startswith(".") else None


def _into_temporary(tree: ast.AST) -> set[ast.AST]:
    """The calls inside ``with atomic_path(...)`` or ``with atomic_files(...)`` blocks:
    they write into the atomic writer's temporary file or folder."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
                isinstance(i.context_expr, ast.Call)
                and _name(i.context_expr.func).lstrip(".") in ("atomic_path", "atomic_files")
                for i in node.items):
            inside |= {n for stmt in node.body for n in ast.walk(stmt)}
    return inside


def direct_writes(root: Path = REPO) -> list[str]:
    """``file:line: call`` for each write outside data/io/atomic.py not in ``EXEMPT``."""
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root)
            if rel == WRITER:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            allowed = _into_temporary(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and node not in allowed \
                        and (what := writes(node)) and what not in EXEMPT.get(rel, set()):
                    found.append(f"{rel}:{node.lineno}: {what}")
    return found


def test_every_write_goes_through_the_atomic_writer():
    found = direct_writes()
    assert not found, ("write through acceptability.data.io.atomic (write_text, write_bytes, "
                       "write_csv, write_parquet, write_figure, atomic_files) instead of:\n"
                       + "\n".join(found))


@pytest.mark.parametrize("source, expected", [
    ("df.to_csv(path, index=False)", ".to_csv"),
    ("df.to_csv(path_or_buf=p)", ".to_csv"),
    ("text = df.to_csv(index=False)", None),
    ("fig.savefig(p, dpi=10)", ".savefig"),
    ("Path(p).write_text('x')", ".write_text"),
    ("write_text(p, 'x')", None),
    ("open(p, 'w')", "open"),
    ("open(p, mode='ab')", "open"),
    ("open(p, 'rb')", None),
    ("p.open('r+')", ".open"),
    ("gzip.open(p, 'wt')", ".open"),
    ("json.dump(obj, fh)", "json.dump"),
    ("json.dumps(obj)", None),
    ("torch.save(state, p)", "torch.save"),
    ("model.save_pretrained(out)", ".save_pretrained"),
    ("os.replace(a, b)", "os.replace"),
    ("text.replace('a', 'b')", None),
])
def test_the_scan_finds_writes(source, expected):
    call = next(n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
                and _name(n.func) not in ("Path",))
    assert writes(call) == expected
