"""Host-side costs of issue 34's batching on the CPU, beside their anchors in one run:

1. encoding: `encode_many` (one call of the fast tokenizer's backend for all texts) against a
   transformers tokenizer call per text, building the same inputs (the pre-issue-34 way,
   written out below), on 16,000 distinct BLiMP sentences;
2. causal batches: logprob with token budgets of 256-2048 tokens a pass against batches of
   16 and 32 sentences (the CPU default), on 400 LI-Adger sentences, float32 and bfloat16.

Models: the bench_scoring.py models (random bert-base-size and gpt2-size, real vocabularies,
tokenizers trained on local text); build them first with bench_scoring.py.

    .venv/bin/python benchmarks/bench_batching.py --threads 2
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from bench_scoring import cpu_name  # this folder is on the path when a script runs

from acceptability import data, scoring
from acceptability.scoring.backends import causal, masked

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("ACCEPTABILITY_DATA_DIR") or REPO.parent / "shared" / "data")


def per_text_causal(lm, text: str) -> tuple:
    """A causal input as one transformers call per text made it: ids, tokens, offsets."""
    enc = lm.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = [lm.tokenizer.bos_token_id, *enc["input_ids"]]
    return ids, lm.tokenizer.convert_ids_to_tokens(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]


def per_text_masked(lm, text: str) -> tuple:
    """A masked input as one transformers call per text made it: ids, scored positions,
    masks, tokens, offsets."""
    enc = lm.tokenizer(text, return_offsets_mapping=True, return_special_tokens_mask=True)
    positions = [i for i, special in enumerate(enc["special_tokens_mask"]) if not special]
    spans, _words = enc["offset_mapping"], enc.word_ids()
    tokens = [lm.tokenizer.convert_ids_to_tokens(enc["input_ids"][i]) for i in positions]
    return enc["input_ids"], positions, [[i] for i in positions], tokens, [spans[i] for i in positions]


def best_of(repeats: int, run) -> float:
    """The shortest of `repeats` timed runs of `run()`, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def encoding(models: Path, repeats: int) -> None:
    texts = list(data.load_blimp(DATA_DIR / "blimp").sentences["text"].drop_duplicates()
                 .sample(n=16000, random_state=0))
    for kind, folder, many, one in (("causal", "gpt2-size", causal.encode_many, per_text_causal),
                                    ("masked", "bert-base-size", masked.encode_many, per_text_masked)):
        lm = scoring.load_model(str(models / folder), kind, device="cpu")
        pairs = [("", t) for t in texts]
        ours = best_of(repeats, lambda f=many, m=lm, p=pairs: list(f(m, p)))
        anchor = best_of(repeats, lambda f=one, m=lm: [f(m, t) for t in texts])
        print(f"encode {kind:6s} {len(texts)} sentences: encode_many {ours:.2f} s, "
              f"a call per text {anchor:.2f} s ({anchor / ours:.2f}x)", flush=True)


def causal_budgets(models: Path, repeats: int) -> None:
    texts = list(data.load_li_adger(DATA_DIR / "li-adger").sentences["text"].dropna()
                 .drop_duplicates().sample(n=400, random_state=0))
    settings = [{"batch_size": 16}, {"batch_size": 32}] + [{"batch_tokens": n} for n in (256, 512, 1024, 2048)]
    for dtype in ("float32", "bfloat16"):
        lm = scoring.load_model(str(models / "gpt2-size"), "causal", device="cpu", dtype=dtype)
        scoring.score(texts[:16], lm, "logprob", cache=False, progress=False)  # warm-up
        base = None
        for setting in settings:
            seconds = best_of(repeats, lambda s=setting, m=lm: scoring.score(
                texts, m, "logprob", cache=False, progress=False, **s))
            base = base or seconds
            print(f"logprob {dtype:8s} {setting}: {len(texts) / seconds:.1f} sent/s "
                  f"({base / seconds:.2f}x batches of 16)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--models-dir", type=Path, default=scoring.default_cache_dir() / "bench-models")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    print(f"CPU: {cpu_name(args.threads)}")
    encoding(args.models_dir, args.repeats)
    causal_budgets(args.models_dir, args.repeats)


if __name__ == "__main__":
    main()
