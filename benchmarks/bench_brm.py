"""stats.brm: convergence and fit time on LI-Adger, and its memory estimate against use.

convergence: the sentence-level model
    human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)
(human ME judgments vs z-scored bert-large-cased PLL; 4176 sentences) with brm's
settings (defaults unless given), once per seed: R-hat, bulk ESS and posterior mean of
every scalar parameter, the largest R-hat over all parameters (group-level coefficients
included), divergences, wall-clock and CPU seconds.

memory: a synthetic crossed design (random response; only memory is measured), fitted in a
fresh process per size; its peak resident memory beside ``stats.brm.memory_estimate``.

Usage: python benchmarks/bench_brm.py convergence [--seeds 0 1] [--draws N] [--thin N] [--tune N]
       python benchmarks/bench_brm.py memory
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

from acceptability.stats.mixed.brm import brm, memory_estimate


def convergence(args: argparse.Namespace) -> None:
    from acceptability import data
    from acceptability.stats.ratings.judgment import SENTENCE_FORMULA, sentence_model_frame

    frame = sentence_model_frame(data.load_li_adger(), data.load_li_adger_scores(),
                                 model="bert-large-cased_mlm")
    kwargs = {k: v for k, v in (("draws", args.draws), ("tune", args.tune),
                                ("chains", args.chains), ("target_accept", args.target_accept),
                                ("thin", args.thin))
              if v is not None}
    rows = {}
    for seed in args.seeds:
        cpu = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = brm(SENTENCE_FORMULA, frame, seed=seed, **kwargs)
        cpu = time.process_time() - cpu
        summ = b.summary().tables["posterior"]
        rhat = b.rhat()  # largest over each variable's elements, unrounded
        post = b.idata.posterior
        n_values = sum(v.size for v in post.data_vars.values()) // (post.sizes["chain"] * post.sizes["draw"])
        print(f"seed {seed}: {b.settings['chains']} chains x {b.settings['draws']} draws "
              f"(thin {b.settings['thin']}) after {b.settings['tune']} warm-up: "
              f"{b.fit_seconds:.1f} s wall, {cpu:.1f} s CPU, {b.divergences} divergences, "
              f"largest R-hat over all {n_values} values {rhat.max():.4f}")
        print(summ[["mean", "sd", "ess_bulk", "r_hat"]].to_string())
        rows[seed] = rhat.round(4)
    print("\nlargest R-hat of each variable (group-level ones over all their levels), by seed:")
    print(pd.DataFrame(rows).to_string())


def _synthetic(n: int, n_s: int, n_i: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    s = np.concatenate([np.arange(n_s), rng.integers(0, n_s, n - n_s)])
    i = np.concatenate([np.arange(n_i), rng.integers(0, n_i, n - n_i)])
    y = rng.normal(size=n_s)[s] + rng.normal(size=n_i)[i] + rng.normal(size=n)
    return pd.DataFrame({"y": y, "x": rng.normal(size=n), "s": s.astype(str), "i": i.astype(str)})


MEMORY_FORMULA = "y ~ x + (1 + x | s) + (1 | i)"


def _memory_child(n: int, n_s: int, n_i: int, draws: int, chains: int) -> None:
    import bambi  # noqa: F401  (the libraries' own memory is not the model's)
    import nutpie  # noqa: F401

    frame = _synthetic(n, n_s, n_i)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        b = brm(MEMORY_FORMULA, frame, draws=draws, tune=100, chains=chains)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    est = memory_estimate(MEMORY_FORMULA, frame, draws=draws, chains=chains)
    print(json.dumps({"n": n, "levels": n_s + n_i, "draws": draws, "chains": chains,
                      "before_MiB": before / 2**20, "peak_MiB": peak / 2**20,
                      "used_MiB": (peak - before) / 2**20, "estimate_MiB": est["total"] / 2**20,
                      "fit_seconds": b.fit_seconds}))


def memory(args: argparse.Namespace) -> None:
    print(f"{MEMORY_FORMULA}; tune 100; peak RSS growth during brm vs memory_estimate")
    for size in args.sizes:
        n, n_s, n_i, draws, chains = map(int, size.split(","))
        out = subprocess.run([sys.executable, __file__, "_memory_child", str(n), str(n_s),
                              str(n_i), str(draws), str(chains)],
                             capture_output=True, text=True, check=False)
        if out.returncode:
            print(f"n={n} levels={n_s + n_i} {chains} x {draws} draws: failed "
                  f"(exit {out.returncode}) {out.stderr[-300:]}", flush=True)
            continue
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"n={r['n']:6d} levels={r['levels']:5d} {r['chains']} x {r['draws']} draws: "
              f"used {r['used_MiB']:7.0f} MiB, estimate {r['estimate_MiB']:7.0f} MiB "
              f"({r['estimate_MiB'] / r['used_MiB']:.2f}x), fit {r['fit_seconds']:.0f} s",
              flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "_memory_child":
        _memory_child(*map(int, sys.argv[2:7]))
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    conv = sub.add_parser("convergence", help="R-hat and fit time on LI-Adger")
    conv.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    conv.add_argument("--draws", type=int)
    conv.add_argument("--tune", type=int)
    conv.add_argument("--chains", type=int)
    conv.add_argument("--target-accept", type=float)
    conv.add_argument("--thin", type=int)
    mem = sub.add_parser("memory", help="peak memory against memory_estimate")
    mem.add_argument("--sizes", nargs="+", default=["5000,300,100,500,2", "20000,1000,400,500,2"],
                     help="rows,levels of s,levels of i,draws,chains (default: two sizes)")
    args = ap.parse_args()
    convergence(args) if args.what == "convergence" else memory(args)


if __name__ == "__main__":
    main()
