"""MkDocs hook: show griffe (mkdocstrings' loader) the ``acceptability`` package as it
installs.

``pyproject.toml`` maps the top-level folders ``data/ scoring/ stats/ reports/`` onto
``acceptability.*`` (``package-dir``), a layout griffe cannot follow: it finds
``src/acceptability`` and looks for the subpackages inside it. Before the build, this
hook assembles ``build/griffe/acceptability/`` from symbolic links to the real files and
folders; ``mkdocs.yml`` points the python handler's ``paths`` there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

SUBPACKAGES = ("data", "scoring", "stats", "reports")


def package_tree(root: Path, out: Path) -> Path:
    """Link ``root``'s ``src/acceptability`` files and subpackage folders into
    ``out/acceptability``; return ``out``."""
    package = out / "acceptability"
    package.mkdir(parents=True, exist_ok=True)
    targets = {p.name: p for p in (root / "src" / "acceptability").iterdir()
               if p.name != "__pycache__"}
    targets |= {name: root / name for name in SUBPACKAGES}
    for name, target in targets.items():
        link = package / name
        if link.is_symlink() and link.resolve() == target.resolve():
            continue
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(target.resolve(), target_is_directory=target.is_dir())
    return out


@event_priority(100)  # before mkdocstrings, which drops search paths that do not exist
def on_config(config: Any) -> Any:
    """Assemble the tree beside the configuration file, before mkdocstrings loads."""
    root = Path(config.config_file_path).resolve().parent
    package_tree(root, root / "build" / "griffe")
    return config
