"""Shared fixtures: the real reference data, read from ../shared/data (or
$ACCEPTABILITY_DATA_DIR); tests that need it skip with a clear reason when absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("ACCEPTABILITY_DATA_DIR") or REPO.parent / "shared" / "data")
os.environ["ACCEPTABILITY_DATA_DIR"] = str(DATA_DIR)


def need_data(name: str) -> Path:
    folder = DATA_DIR / name
    if not folder.is_dir():
        pytest.skip(f"reference data {folder} not found (set ACCEPTABILITY_DATA_DIR)")
    return folder


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
