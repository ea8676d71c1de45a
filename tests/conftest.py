"""Shared fixtures: the real reference data, read from ../shared/data (or
$ACCEPTABILITY_DATA_DIR).

A missing data folder or optional package is a test *failure* when the environment
variable ``CI`` is set (CI runs with ``CI=true``) or ``ACCEPTABILITY_REQUIRE_DATA=1``:
green CI then means every test ran. Elsewhere the test skips and says what is missing.
Every test reaches the data and the optional packages through :func:`need_data`,
``@pytest.mark.needs_data("name")`` and :func:`need_module` here.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("ACCEPTABILITY_DATA_DIR") or REPO.parent / "shared" / "data")
os.environ["ACCEPTABILITY_DATA_DIR"] = str(DATA_DIR)


def require_everything() -> bool:
    """True in CI (``CI`` set, not 0/false) or with ``ACCEPTABILITY_REQUIRE_DATA=1``."""
    ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return ci or os.environ.get("ACCEPTABILITY_REQUIRE_DATA", "").strip() == "1"


def missing(what: str) -> NoReturn:
    """Fail (CI / ACCEPTABILITY_REQUIRE_DATA=1) or skip (elsewhere) because ``what`` is absent."""
    if require_everything():
        pytest.fail(f"{what}; required because CI or ACCEPTABILITY_REQUIRE_DATA=1 is set",
                    pytrace=False)
    pytest.skip(what, allow_module_level=True)


def need_data(name: str, file: str | None = None) -> Path:
    """The reference data folder ``DATA_DIR/name`` (and ``file`` in it, when given)."""
    folder = DATA_DIR / name
    target = folder / file if file else folder
    if not (target.is_file() if file else target.is_dir()):
        missing(f"reference data {target} not found (set ACCEPTABILITY_DATA_DIR)")
    return folder


def need_module(name: str) -> ModuleType:
    """``pytest.importorskip`` that fails instead of skipping where everything is required."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        missing(f"optional package {name!r} not importable ({err}); "
                "install the extras: pip install -e '.[all,dev]'")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")``."""
    for mark in item.iter_markers("needs_data"):
        if mark.args:
            need_data(*mark.args)


@pytest.fixture(scope="session")
def li_adger_dir() -> Path:
    return need_data("li-adger")


@pytest.fixture(scope="session")
def li_adger(li_adger_dir):
    from acceptability import data

    return data.load_li_adger(li_adger_dir)


@pytest.fixture(scope="session")
def li_adger_scores(li_adger_dir):
    from acceptability import data

    return data.load_li_adger_scores(li_adger_dir)


@pytest.fixture(scope="session")
def example():
    from acceptability import data

    return data.load_example()
