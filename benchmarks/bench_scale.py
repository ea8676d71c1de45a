"""Benchmark: ``stats.evaluate`` on LI-Adger replicated 1x, 10x (and 100x with --full),
every copy with its own sentence, pair, type and phenomenon ids (so 236 new clusters per
copy), the 8 published models; without resampling and with 10,000 cluster-bootstrap
resamples; this tree beside the code of a git commit (default BEFORE, the last commit
before issue 30), each case in a fresh process (its wall time beyond loading, its peak
RSS). Also one lmer fit of a crossed model on 1,000,000 rows.

    ACCEPTABILITY_DATA_DIR=../shared/data .venv/bin/python benchmarks/bench_scale.py
    ... bench_scale.py --full            # also 100x (about 8 minutes on 2 cores)
    ... bench_scale.py --before none     # this tree only
    ... bench_scale.py --full --out docs/speed/scale.csv   # the table the README cites

The "before" runs from a ``git worktree`` of the commit made in a temporary folder and
removed afterwards; the checkout is not touched.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SUBPACKAGES = ("data", "scoring", "stats", "reports")
BEFORE = "77f781a"  # main before issue 30 made evaluate scale


def replicate(dataset, scores: pd.DataFrame, k: int):
    """``dataset`` and ``scores`` ``k`` times, copy ``i``'s ids (sentence, pair, type,
    phenomenon) suffixed ``~i``: k times the sentences, pairs and clusters."""
    from acceptability.data.dataset import Dataset

    if k == 1:
        return dataset, scores

    def copies(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
        return pd.concat([frame.assign(**{c: frame[c] + f"~{i}" for c in columns
                                          if c in frame}) for i in range(k)],
                         ignore_index=True)

    ids = ["type_id", "phenomenon"]
    return (Dataset(dataset.name, copies(dataset.sentences, ["sentence_id", *ids]),
                    copies(dataset.pairs, ["pair_id", "good_id", "bad_id", *ids])),
            copies(scores, ["sentence_id"]))


def case(k: int, n_boot: int) -> dict:
    """One timed ``evaluate`` (in this process), with peak RSS."""
    from acceptability import data, stats

    ds, sc = data.load_li_adger(), data.load_li_adger_scores()
    warm = time.perf_counter()
    stats.evaluate(ds, sc)  # imports and caches warm
    warm = time.perf_counter() - warm
    ds, sc = replicate(ds, sc, k)
    start = time.perf_counter()
    table = stats.evaluate(ds, sc, ci=n_boot > 0, n_boot=max(n_boot, 1), seed=0)
    wall = time.perf_counter() - start
    return {"wall": wall, "warm_up": warm, "rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
            "sentences": len(ds.sentences), "pairs": len(ds.pairs), "models": len(table)}


def lmer_million(rows: int = 1_000_000) -> dict:
    """lmer of y ~ x + (1 | subject) + (1 | item), 200 subjects crossed with 100 items
    (a judgment experiment's shape), on ``rows`` simulated rows."""
    from acceptability import stats

    rng = np.random.default_rng(0)
    subject, item = rng.integers(0, 200, rows), rng.integers(0, 100, rows)
    x = rng.normal(size=rows)
    y = (1 + 0.5 * x + rng.normal(0, 0.7, 200)[subject] + rng.normal(0, 0.4, 100)[item]
         + rng.normal(0, 1, rows))
    frame = pd.DataFrame({"y": y, "x": x, "subject": subject.astype(str),
                          "item": item.astype(str)})
    start = time.perf_counter()
    fit = stats.lmer("y ~ x + (1 | subject) + (1 | item)", frame)
    wall = time.perf_counter() - start
    return {"wall": wall, "slope": float(fit.fixef["x"]), "engine": str(fit.engine)}


def in_process(code: Path | None, args: list[str]) -> dict:
    """Run this script's ``--case`` in a fresh interpreter on ``code`` (None: this tree);
    ``process`` is its whole wall time (start-up, imports, loading, replicating and the
    evaluation: what a user waits for) less the warm-up call."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, __file__, *args], env=env, capture_output=True,
                         text=True, check=False)
    process = time.perf_counter() - start
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1:]}
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result | {"process": process - result.get("warm_up", 0.0)}


def package_of(commit: str, folder: Path) -> Path:
    """An importable ``acceptability`` of ``commit``: a git worktree in ``folder`` and a
    package folder mapping its subpackages as setuptools does (pyproject.toml)."""
    tree = folder / "tree"
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(tree), commit],
                   check=True, capture_output=True)
    package = folder / "path" / "acceptability"
    package.mkdir(parents=True)
    for file in (tree / "src" / "acceptability").iterdir():
        (package / file.name).symlink_to(file)
    for name in SUBPACKAGES:
        (package / name).symlink_to(tree / name)
    return package.parent


def cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also 100x")
    ap.add_argument("--before", default=BEFORE, help="git commit to compare with ('none': skip)")
    ap.add_argument("--out", type=Path, help="also write the table as CSV")
    ap.add_argument("--n-boot", type=int, default=10_000)
    ap.add_argument("--case", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--lmer", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:
        print(json.dumps(case(*args.case)))
        return
    if args.lmer:
        print(json.dumps(lmer_million()))
        return
    print(f"CPU: {cpu()}, {os.cpu_count()} cores; python {platform.python_version()}")
    scales = [1, 10, 100] if args.full else [1, 10]
    with tempfile.TemporaryDirectory() as tmp:
        before = None if args.before == "none" else package_of(args.before, Path(tmp))
        try:
            rows = run_cases(scales, args.n_boot, before)
        finally:
            if before is not None:
                subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force",
                                str(Path(tmp) / "tree")], check=False)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    if args.out:
        table.assign(cpu=cpu()).to_csv(args.out, index=False)  # a benchmark file, not the package
    for n_boot in (0, args.n_boot):
        for col in ("now s", "now process s"):
            wall = {r["scale"]: r[col] for r in rows if r["n_boot"] == n_boot}
            print(f"n_boot={n_boot}, {col}: " + ", ".join(
                f"{k}x/1x = {wall[k] / wall[1]:.1f}" for k in scales[1:] if wall.get(k) and wall[1]))
    fit = in_process(None, ["--lmer"])
    print(f"lmer, 1,000,000 rows, (1 | subject) + (1 | item) crossed: {fit}")


def run_cases(scales: list[int], n_boot: int, before: Path | None) -> list[dict]:
    rows = []
    for k in scales:
        for boot in (0, n_boot):
            now = in_process(None, ["--case", str(k), str(boot)])
            row = {"scale": k, "sentences": now.get("sentences"), "pairs": now.get("pairs"),
                   "n_boot": boot, "now s": now.get("wall"), "now process s": now.get("process"),
                   "now GB": now.get("rss_gb")}
            if before is not None:
                then = in_process(before, ["--case", str(k), str(boot)])
                row |= {"before s": then.get("wall"), "before process s": then.get("process"),
                        "before GB": then.get("rss_gb")}
            rows.append(row)
            print(row, flush=True)
    return rows


if __name__ == "__main__":
    main()
