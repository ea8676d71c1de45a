"""Model names as reports show them: a model loaded from a folder is named by the folder,
not by where it sits on one machine (``/home/me/runs/my-model_pll`` shows as
``my-model_pll``). Hub ids (``gpt2``, ``EleutherAI/pythia-70m``) and relative names
are kept as they are."""

from __future__ import annotations

import re
from collections.abc import Iterable

import pandas as pd

# absolute POSIX or home paths, and Windows drive or UNC paths
MACHINE_PATH = re.compile(r"^(/|~|[A-Za-z]:[\\/]|\\\\)")


def is_machine_path(name: str) -> bool:
    """True for an absolute path (``/x/y``, ``~/x``, ``C:\\x``, ``\\\\host\\x``)."""
    return bool(MACHINE_PATH.match(str(name)))


def _parts(name: str) -> list[str]:
    return [p for p in re.split(r"[\\/]+", name) if p and p != "~"]


def display_names(names: Iterable[str]) -> dict[str, str]:
    """``{name: display name}``: each machine path by its last component, with parent
    folders added until no two names coincide; any other name unchanged."""
    names = list(dict.fromkeys(map(str, names)))
    shown = {n: n for n in names}
    paths = [n for n in names if is_machine_path(n)]
    depth = dict.fromkeys(paths, 1)
    while paths:
        for n in paths:
            shown[n] = "/".join(_parts(n)[-depth[n]:]) or n
        counts: dict[str, int] = {}
        for s in shown.values():
            counts[s] = counts.get(s, 0) + 1
        paths = [n for n in paths if counts[shown[n]] > 1 and depth[n] < len(_parts(n))]
        for n in paths:
            depth[n] += 1
    clash = [n for n in shown if list(shown.values()).count(shown[n]) > 1 and is_machine_path(n)]
    return shown | {n: n for n in clash}  # no shorter name is unique: keep the path


def with_display_names(scores: pd.DataFrame) -> pd.DataFrame:
    """A scores table whose ``model`` column holds display names (the same table when no
    name is a machine path)."""
    shown = display_names(scores["model"].unique())
    if all(k == v for k, v in shown.items()):
        return scores
    return scores.assign(model=scores["model"].map(shown))
