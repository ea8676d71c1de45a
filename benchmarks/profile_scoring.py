"""Where PLL's time goes, in float32 and bfloat16: torch.profiler over 400 LI-Adger sentences
(a random sample, seed 0) with the bench's randomly initialised bert-base-size model
(`bench_scoring.build_models`), 2 CPU threads, batch 16.

Prints, and with `--out` writes `profile.csv`: per dtype the seconds and share of profiled
CPU time of the linear layers (with their achieved GFLOP/s, from the recorded input shapes),
attention (SDPA, all its inner operations), layer norm, and everything else. The README's
explanation of bfloat16's speed-up comes from one such run.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

import pandas as pd
from bench_scoring import DATA_DIR, build_models

from acceptability import data, scoring

# Operators whose inclusive time makes a part (none of them runs inside another).
PARTS = {
    "linear layers": ("mkldnn::_linear_pointwise", "aten::linear"),
    "attention": ("aten::scaled_dot_product_attention",),
    "layer norm": ("aten::layer_norm",),
}


def profile(dtype: str, texts: list[str], model_dir: Path) -> list[dict]:
    """One profiled PLL run in `dtype`: seconds, share and (linear layers) GFLOP/s per part."""
    from torch.profiler import ProfilerActivity, profile

    lm = scoring.load_model(str(model_dir), "masked", device="cpu", dtype=dtype)
    scoring.score(texts[:16], lm, "pll", cache=False, progress=False)  # warm-up
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        scoring.score(texts, lm, "pll", cache=False, progress=False)
    events = prof.events()
    total = sum(e.self_cpu_time_total for e in events) / 1e6
    rows, named = [], 0.0
    for part, names in PARTS.items():
        chosen = [e for e in events if e.name in names]
        seconds = sum(e.cpu_time_total for e in chosen) / 1e6
        row = {"dtype": dtype, "part": part, "seconds": seconds, "share": seconds / total}
        if part == "linear layers":
            flops = 0
            for e in chosen:  # input (..., in) and weight (out, in): 2 * rows * in * out
                x, w = e.input_shapes[0], e.input_shapes[1]
                flops += 2 * math.prod(x) * (w[0] if len(w) == 2 else 0)
            row["gflops"] = flops / seconds / 1e9
        rows.append(row)
        named += seconds
    rows.append({"dtype": dtype, "part": "other", "seconds": total - named,
                 "share": (total - named) / total})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--out", type=Path, help="write profile.csv here")
    parser.add_argument("--models-dir", type=Path, default=scoring.default_cache_dir() / "bench-models")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(2)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sentences = data.load_li_adger(DATA_DIR / "li-adger").sentences.dropna(subset=["text"])
    texts = list(sentences.sample(n=args.n, random_state=0)["text"])
    model_dir = build_models(args.models_dir)["pll"]
    table = pd.DataFrame([r for dtype in ("float32", "bfloat16") for r in profile(dtype, texts, model_dir)])
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out / "profile.csv", index=False)


if __name__ == "__main__":
    main()
