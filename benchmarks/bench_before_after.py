"""The package's speed before and after a change, in one run (issue 45: a redesign must
show no slowdown). The code at ``--base`` is checked out into a temporary git worktree;
the same workload, through public names only, runs under it and under the working tree,
alternating, in fresh interpreters; each time is the median of ``--repeats`` runs of
``--k`` calls. The temporary worktree is removed afterwards.

    .venv/bin/python benchmarks/bench_before_after.py --base aebd182 --repeats 5

Workload: a tiny random GPT-2 (tests/scoring_fixtures.py, built once and read by both)
scoring 300 distinct LI-Adger sentences (no cache); ``stats.evaluate`` on the bundled example with
1,000 bootstrap resamples; ``lmer`` on sleepstudy, ``glmer`` on cbpp, ``clm`` and
``clmm`` on ordinal's wine (tests' fixtures); the CLI's ``--help`` start-up.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # tests/: the fixtures' data and the tiny model
FOLDERS = ("data", "scoring", "stats", "reports")


def _tasks(model_dir: str) -> dict[str, Callable[[], object]]:
    """Name -> one call of the workload (imports inside: each tree's own package)."""
    import pandas as pd

    from acceptability import data, scoring, stats
    from tests.lme4_data import lme4_data

    wine = pd.read_csv(REPO / "tests/fixtures/ordinal/wine.csv.gz", dtype={"judge": str, "bottle": str})
    wine["rating"] = pd.Categorical(wine["rating"], categories=[1, 2, 3, 4, 5], ordered=True)
    sleep, cbpp = lme4_data("sleepstudy"), lme4_data("cbpp")
    texts = list(dict.fromkeys(data.load_li_adger().sentences["text"]))[:300]
    dataset, scores = data.load_example()
    return {
        "score: tiny GPT-2, 300 sentences": lambda: scoring.score(texts, model_dir, "logprob", cache=False),
        "evaluate: example, 1,000 resamples": lambda: stats.evaluate(dataset, scores, ci=True, n_boot=1000),
        "lmer: sleepstudy": lambda: stats.lmer("Reaction ~ Days + (Days | Subject)", sleep),
        "glmer: cbpp": lambda: stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)",
                                           cbpp, family="binomial"),
        "clm: wine": lambda: stats.clm("rating ~ temp + contact", wine),
        "clmm: wine": lambda: stats.clmm("rating ~ temp + contact + (1 | judge)", wine),
    }


def child(model_dir: str, k: int) -> None:
    """Time each task (k calls after one warm-up) and print {name: seconds per call}."""
    out = {}
    for name, fn in _tasks(model_dir).items():
        fn()
        start = time.perf_counter()
        for _ in range(k):
            fn()
        out[name] = (time.perf_counter() - start) / k
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "acceptability.reports.cli", "--help"], check=True,
                   capture_output=True, env=os.environ)
    out["CLI --help (one start)"] = time.perf_counter() - start
    print(json.dumps(out))


def package_dir(tree: Path, where: Path) -> Path:
    """A folder holding ``acceptability`` assembled from ``tree``'s folders (symlinks), to
    put first on PYTHONPATH: the package as it is in that tree, not the installed one."""
    pkg = where / "acceptability"
    pkg.mkdir(parents=True)
    for f in (tree / "src" / "acceptability").iterdir():
        (pkg / f.name).symlink_to(f)
    for name in FOLDERS:
        (pkg / name).symlink_to(tree / name)
    return where


def run(tree_path: Path, model_dir: str, k: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": f"{tree_path}{os.pathsep}{REPO}", "OMP_NUM_THREADS": "1"}
    res = subprocess.run([sys.executable, __file__, "--child", model_dir, "--k", str(k)],
                         capture_output=True, text=True, env=env, cwd=REPO)
    if res.returncode:
        raise SystemExit(f"the workload failed under {tree_path}:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="aebd182", help="the commit to compare with")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--k", type=int, default=5, help="calls per timing")
    ap.add_argument("--out", type=Path, help="also write the table as CSV here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.k)
    from tests.scoring_fixtures import make_gpt2

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        base = tmp / "base"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), args.base],
                       check=True, capture_output=True)
        try:
            trees = {"before": package_dir(base, tmp / "before"),
                     "after": package_dir(REPO, tmp / "after")}
            model_dir = make_gpt2(tmp / "gpt2", positions=512)
            times: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
            for _ in range(args.repeats):
                for label, path in trees.items():
                    for name, t in run(path, model_dir, args.k).items():
                        times[label].setdefault(name, []).append(t)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)],
                           check=True, capture_output=True)
    rows = [(name, *(statistics.median(times[x][name]) for x in ("before", "after")))
            for name in times["before"]]
    print(f"base {args.base} against the working tree; median of {args.repeats} runs; "
          f"CPU: {_cpu()}")
    print(f"{'task':40s} {'before s':>10s} {'after s':>10s} {'after/before':>13s}")
    for name, b, a in rows:
        print(f"{name:40s} {b:10.4f} {a:10.4f} {a / b:13.2f}")
    if args.out:
        import pandas as pd

        from acceptability.data.io.atomic import write_csv

        table = pd.DataFrame(rows, columns=["task", "before_s", "after_s"])
        table["ratio"] = (table["after_s"] / table["before_s"]).round(2)
        table["base"], table["repeats"], table["cpu"] = args.base, args.repeats, _cpu()
        write_csv(table, args.out)


def _cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return f"{line.split(':', 1)[1].strip()}, {os.cpu_count()} cores"
    return f"{os.cpu_count()} cores"


if __name__ == "__main__":
    main()
