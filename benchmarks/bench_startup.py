"""Benchmark: the CPU time of starting the ``acceptability`` command to print help, and of
``from acceptability import data, stats`` (issue 42, item 15).

Each command runs in a fresh process ``--repeats`` times; the CPU time (user + system) of
each run is read from ``resource.getrusage(RUSAGE_CHILDREN)`` around it, so that other
processes on a shared machine do not count (wall time would). The median is reported.

    .venv/bin/python benchmarks/bench_startup.py --out docs/speed
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from acceptability.reports.cli import parser


def subcommands() -> list[str]:
    """The ``acceptability`` subcommands, read from the parser itself."""
    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return list(action.choices)


def commands() -> dict[str, list[str]]:
    """What is timed, by name: the command's help, each subcommand's, the library import."""
    exe = shutil.which("acceptability", path=str(Path(sys.executable).parent)) \
        or shutil.which("acceptability")
    if exe is None:
        raise SystemExit("no `acceptability` command on PATH: pip install -e . first")
    out = {"acceptability --help": [exe, "--help"]}
    out |= {f"acceptability {name} --help": [exe, name, "--help"] for name in subcommands()}
    out["python -c 'from acceptability import data, stats'"] = [
        sys.executable, "-c", "from acceptability import data, stats"]
    return out


def cpu_seconds(cmd: list[str]) -> float:
    """User + system CPU seconds of one run of ``cmd`` (its children included)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cpu_name() -> str:
    """The processor's model name (Linux), else the machine type."""
    try:
        info = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.machine()
    return next((line.split(":", 1)[1].strip() for line in info.splitlines()
                 if line.startswith("model name")), platform.machine())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7, help="runs per command (median)")
    ap.add_argument("--out", type=Path, help="folder to write startup.csv into")
    args = ap.parse_args()
    for cmd in commands().values():  # warm the file cache and the bytecode once
        cpu_seconds(cmd)
    rows = []
    for name, cmd in commands().items():
        times = [cpu_seconds(cmd) for _ in range(args.repeats)]
        rows.append({"command": name, "repeats": args.repeats,
                     "median_cpu_s": round(statistics.median(times), 3),
                     "max_cpu_s": round(max(times), 3)})
        print(f"{name:<60} median {rows[-1]['median_cpu_s']:.3f} s CPU "
              f"(max {rows[-1]['max_cpu_s']:.3f})", flush=True)
    print(f"python {platform.python_version()}, {cpu_name()}, {os.cpu_count()} cores")
    if args.out:
        from acceptability.data.io.atomic import write_text

        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        write_text(args.out / "startup.csv", text.getvalue())
        print(f"wrote {args.out / 'startup.csv'}")


if __name__ == "__main__":
    main()
