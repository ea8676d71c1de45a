"""Missing reference data or optional packages fail the suite in CI (``CI`` set, or
``ACCEPTABILITY_REQUIRE_DATA=1``) and skip, saying what is missing, elsewhere
(tests/conftest.py): green CI means every test ran."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

CONFTEST = "from tests.conftest import pytest_runtest_setup  # noqa: F401\n"
TESTS = """
import pytest
from tests.conftest import need_data, need_module

def test_folder():
    need_data("no-such-folder")

def test_module():
    need_module("no_such_module_here")

@pytest.mark.needs_data("no-such-folder", "file.csv")
def test_marked():
    pass
"""


def _run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, **env: str):
    for name in ("CI", "ACCEPTABILITY_REQUIRE_DATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TESTS)
    return pytester.runpytest("-p", "no:cacheprovider", "-rs")


@pytest.mark.parametrize("env", [{"CI": "true"}, {"ACCEPTABILITY_REQUIRE_DATA": "1"}])
def test_missing_data_fails_where_required(pytester, monkeypatch, env):
    result = _run(pytester, monkeypatch, **env)
    result.assert_outcomes(failed=2, errors=1)  # the marker fails in setup
    result.stdout.fnmatch_lines(["*no-such-folder not found*required because CI*",
                                 "*'no_such_module_here' not importable*"])


@pytest.mark.parametrize("env", [{}, {"CI": "false"}])
def test_missing_data_skips_elsewhere(pytester, monkeypatch, env):
    result = _run(pytester, monkeypatch, **env)
    result.assert_outcomes(skipped=3)
    result.stdout.fnmatch_lines(["*no-such-folder/file.csv not found*"])
