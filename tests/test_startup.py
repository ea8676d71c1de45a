"""Start-up (issue 42, item 15): ``acceptability --help`` and every subcommand's ``--help``
print without importing the numerical stack, and ``from acceptability import data, stats``
imports its names on first use (``acceptability._lazy``). Checked by what is in
``sys.modules`` of a fresh interpreter, not by timing; the CPU times are
``benchmarks/bench_startup.py``'s (docs/speed/startup.csv, stated in docs/cli.md)."""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import subprocess
import sys

import pytest

from acceptability import _lazy
from tests.conftest import REPO

HEAVY = ("seaborn", "matplotlib", "scipy", "pandas", "torch", "transformers")
PACKAGES = ("acceptability.data", "acceptability.scoring", "acceptability.scoring.training",
            "acceptability.stats", "acceptability.stats.benchmarks",
            "acceptability.stats.inference", "acceptability.stats.mixed",
            "acceptability.stats.ratings", "acceptability.reports")
STARTUP_CSV = REPO / "docs" / "speed" / "startup.csv"
PAGE = REPO / "docs" / "cli.md"
CLAIM = 0.5  # seconds of CPU, issue 42


def loaded_after(code: str) -> dict:
    """Run ``code`` in a fresh interpreter; which of ``HEAVY`` it imported, and what it
    printed (its ``out`` variable)."""
    probe = (f"import sys\nout = None\n{code}\n"
             "import json\nprint(json.dumps({'heavy': sorted(m for m in "
             f"{HEAVY!r} if m in sys.modules), 'out': out}}))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def subcommands() -> list[str]:
    from acceptability.reports.cli import parser

    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices)


def test_every_subcommand_is_covered():
    assert {"score", "evaluate", "fit", "report", "run", "demo"} <= set(subcommands())


@pytest.mark.parametrize("argv", [[], *[[name] for name in subcommands()]],
                         ids=lambda argv: " ".join(argv) or "acceptability")
def test_help_imports_nothing_heavy(argv):
    """The entry point's own code path (``acceptability = reports.cli:main``) up to argparse's
    exit after printing the help."""
    code = ("import contextlib, io\nfrom acceptability.reports.cli import main\n"
            "buffer = io.StringIO()\n"
            "with contextlib.redirect_stdout(buffer):\n"
            f"    try:\n        main({[*argv, '--help']!r})\n"
            "    except SystemExit as stop:\n        code = stop.code\n"
            "out = [code, buffer.getvalue()]")
    result = loaded_after(code)
    status, text = result["out"]
    assert status == 0 and text.startswith("usage: acceptability")
    assert result["heavy"] == [], f"--help imported {result['heavy']}"


def test_the_command_prints_help():
    proc = subprocess.run([sys.executable, "-m", "acceptability.reports.cli", "run", "--help"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "--model" in proc.stdout, proc.stderr


def test_importing_the_packages_imports_nothing_heavy():
    result = loaded_after("import acceptability\nfrom acceptability import data, stats, "
                          "reports, scoring\nimport acceptability.stats.defaults")
    assert result["heavy"] == []


def test_lazy_names_resolve_to_the_same_objects():
    """``data.load_li_adger``, ``stats.evaluate`` resolve on first use to their module's own
    object, and a function stays a function after its own module is imported by path."""
    code = ("from acceptability import data, stats\n"
            "import acceptability.stats.evaluate\n"
            "import acceptability.stats.evaluate as by_path\n"
            "from acceptability.data.loaders.li_adger import load_li_adger\n"
            "out = [data.load_li_adger is load_li_adger, callable(stats.evaluate),\n"
            "       stats.evaluate.__module__, stats.evaluate is by_path,\n"
            "       type(stats.mixed).__name__]")
    assert loaded_after(code)["out"] == [True, True, "acceptability.stats.evaluate", True,
                                         "_LazyPackage"]


@pytest.mark.parametrize("name", PACKAGES)
def test_a_lazy_package_exports_what_its_all_names(name):
    """``__all__`` and the ``if TYPE_CHECKING:`` imports (`_lazy.exports`) list the same
    names, each resolves, and ``dir()`` shows them before they are imported."""
    package = importlib.import_module(name)
    table = _lazy.exports(name, package.__file__)
    assert set(package.__all__) <= set(table), set(package.__all__) - set(table)
    assert set(table) <= set(dir(package))
    for export, (module, attr) in table.items():
        source = importlib.import_module(module)
        expected = (importlib.import_module(f"{module}.{attr}") if module == name
                    else getattr(source, attr))
        assert getattr(package, export) is expected, export


def test_exports_reads_the_type_checking_imports(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("from typing import TYPE_CHECKING\nimport os\nif TYPE_CHECKING:\n"
                    "    from pkg.a import f, g as h\n    from . import sub\n"
                    "from pkg.b import not_lazy\n")
    assert _lazy.exports("pkg", str(init)) == {"f": ("pkg.a", "f"), "h": ("pkg.a", "g"),
                                               "sub": ("pkg", "sub")}


def stated_rows() -> list[dict]:
    with STARTUP_CSV.open() as handle:
        return list(csv.DictReader(handle))


def test_the_benchmark_measured_every_help_and_the_import():
    rows = {r["command"]: r for r in stated_rows()}
    expected = {"acceptability --help", "python -c 'from acceptability import data, stats'",
                *(f"acceptability {name} --help" for name in subcommands())}
    assert set(rows) == expected
    assert all(float(r["median_cpu_s"]) < CLAIM for r in rows.values())


def test_the_page_states_the_measured_start_up_times():
    """docs/cli.md's table is startup.csv's, at the precision it states, with the CPU."""
    text = PAGE.read_text()
    rows = stated_rows()
    for r in rows:
        assert f"| `{r['command']}` | {float(r['median_cpu_s']):.2f} |" in text, r["command"]
    slowest = max(float(r["median_cpu_s"]) for r in rows if "--help" in r["command"])
    assert f"at most {slowest:.2f} s of CPU" in text
    assert {r["repeats"] for r in rows} == {"7"} and "CPU seconds (median of 7)" in text
    assert "AMD EPYC" in text and "2 cores" in text


def test_the_readme_states_the_measured_start_up_times():
    """The README's start-up sentence is startup.csv's, at the precision it states."""
    readme = " ".join((REPO / "README.md").read_text().split())
    rows = stated_rows()
    slowest = max(float(r["median_cpu_s"]) for r in rows if "--help" in r["command"])
    (imports,) = [float(r["median_cpu_s"]) for r in rows if "import" in r["command"]]
    assert f"take at most {slowest:.2f} s of CPU" in readme
    assert f"`from acceptability import data, stats` {imports:.2f} s" in readme
    assert "median of 7, AMD EPYC" in readme
