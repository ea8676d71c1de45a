"""Scoring throughput: acceptability vs minicons on LI-Adger sentences, same run, same threads,
in float32 and bfloat16; and how far bfloat16 scores move from float32 ones (Pearson r and max
abs. difference over the sentences; BLiMP-criterion verdicts that change on 5 BLiMP paradigms).

PLL with a randomly initialised bert-base-size masked LM, logprob with a gpt2-size causal LM
(speed does not depend on the weights). The hub is unreachable, so the tokenizers are trained
here (WordPiece / byte-level BPE on LI-Adger + CoLA + BLiMP text); the configs keep the real
vocabulary sizes (30522 / 50257), so the output layer costs what it costs with the real models.
minicons runs in its own virtualenv (minicons 0.3.39 needs transformers<5):

    python3 -m venv /work/minicons-venv
    /work/minicons-venv/bin/pip install torch==2.13.0 "transformers<5" minicons==0.3.39
    MINICONS_PYTHON=/work/minicons-venv/bin/python .venv/bin/python benchmarks/bench_scoring.py

Without that interpreter the minicons columns are skipped with a message.

Random weights give score differences between the sentences of a BLiMP pair that are mostly
noise, so the verdict check also runs on trained models (`--trained METHOD DIR`): the README's
600k-word GPT-2 of the learning-curve example (runs/learning-curve/replicate-0/words-600000)
and a RoBERTa of the same size trained for 2 epochs on the same 600k words:

    from acceptability import data, scoring
    from acceptability.reports.cli.training_experiments import nested_subsets
    (texts,) = nested_subsets(list(data.load_childes()["text"]), [600000], seed=0)
    scoring.train_lm(texts, "runs/bf16-agreement/masked-600000-2ep", kind="masked",
                     vocab_size=4096, epochs=2, size={"hidden_size": 128, "layers": 4,
                                                      "heads": 4, "intermediate_size": 512})

The README's tables come from one run with `--out docs/speed` and both `--trained` models.

Issue 33's methods (`--methods seq2seq seq2seq_pll mntp words_sum words_corrected`): seq2seq
and seq2seq_pll with a random t5-small-size T5 (T5Config's defaults, 32128 output rows; a
Unigram tokenizer filled to t5-small's 32100 tokens), mntp with the bert-base-size model,
`scoring.word_scores` (boundary "sum" / "corrected", per-word log-probabilities) with the
gpt2-size one. minicons runs beside seq2seq (`Seq2SeqScorer.conditional_score`, encoder
reading "</s>" as ours) and words_sum (`word_score_tokenized`, whitespace words); see
MINICONS_METHODS for why the others have no minicons column, VERDICT_METHODS for which rows
get the BLiMP agreement check. Their rows were added to the first run's by a second run on
another (loaded, 2-core) machine; column `run` of throughput.csv says which run a row is from:

    .venv/bin/python benchmarks/bench_scoring.py --n 500 --threads 1 --run 2 --append \
        --methods seq2seq mntp words_sum words_corrected seq2seq_pll --out docs/speed

The GPU table (issue 34; `--device cuda`, or `--models` on any device): per model and
method (bert-base / bert-large PLL, gpt2 / gpt2-medium logprob, a 1.1B causal model of
TinyLlama's shape; random_models.SPECS), dtype and `--batch-tokens` budget, our sentences
per second beside minicons' (`--batch-size` sentences a batch, at the first budget's row),
the share of the device's bf16 matmul rate (measured in the same run) that the method's
minimal FLOPs over our time reach (flops.py), and bf16 against our fp32 speed; written to
gpu.csv, the bf16-vs-fp32 agreement (Pearson r, max abs. difference, BLiMP verdict changes
with and without `recheck=True`) to gpu_agreement.csv. Sentences: `--sentences FILE` (one a
line, distinct: the scorer computes equal texts once, so repeats overstate speed), made here by

    .venv/bin/python benchmarks/bench_scoring.py --write-inputs build/gpu-bench

(16,000 distinct BLiMP sentences, seed 0, and the 5 verdict paradigms' jsonl files); without
it a seeded sample of distinct BLiMP sentences. benchmarks/gpu_bench.sh runs it on a GPU
machine.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import subprocess
import time
import traceback
from pathlib import Path

import numpy as np
import pandas as pd
from flops import config_shape, matmul_peak, minimal_flops, synchronized_clock, token_lengths
from random_models import build_models

from acceptability import data, scoring

REPO = Path(__file__).resolve().parents[1]

DATA_DIR = Path(os.environ.get("ACCEPTABILITY_DATA_DIR") or REPO.parent / "shared" / "data")
#: Row name -> (model folder, model kind). "words_sum"/"words_corrected": `scoring.word_scores`
#: of method "logprob" with that boundary, per-word log-probabilities compared.
MODELS = {"pll": ("bert-base-size", "masked"), "logprob": ("gpt2-size", "causal"),
          "mntp": ("bert-base-size", "masked"), "seq2seq": ("t5-small-size", "seq2seq"),
          "seq2seq_pll": ("t5-small-size", "seq2seq"), "words_sum": ("gpt2-size", "causal"),
          "words_corrected": ("gpt2-size", "causal")}
#: What minicons 0.3.39 computes the same way; the other rows leave its columns blank: it has no
#: MNTP, no encoder-decoder PLL, and its `bow_correction` differs from ours (no EOS in the
#: boundary set, no first-word term), so "corrected" has no minicons counterpart.
MINICONS_METHODS = ("pll", "logprob", "seq2seq", "words_sum")
#: Rows with the BLiMP verdict check (`agreement`); the others record bf16_vs_our_fp32 only.
VERDICT_METHODS = ("pll", "logprob")
#: The GPU table's rows: name -> (model folder of random_models.SPECS, method). The tiny
#: ones are for the CPU smoke test of this path.
GPU_MODELS = {"bert-base": ("bert-base-size", "pll"), "bert-large": ("bert-large-size", "pll"),
              "gpt2": ("gpt2-size", "logprob"), "gpt2-medium": ("gpt2-medium-size", "logprob"),
              "tinyllama": ("tinyllama-size", "logprob"), "tiny-bert": ("tiny-bert", "pll"),
              "tiny-gpt2": ("tiny-gpt2", "logprob"), "tiny-llama": ("tiny-llama", "logprob")}
GPU_DEFAULT = ["bert-base", "bert-large", "gpt2", "gpt2-medium", "tinyllama"]
GPU_COLUMNS = ["card", "model", "method", "dtype", "batch_tokens", "ours_sent_per_s", "minicons_sent_per_s",
               "share_of_peak", "bf16_vs_fp32"]
#: Distinct BLiMP sentences the GPU table scores (the issue's 16,000).
GPU_SENTENCES = 16000

MINICONS_WORKER = r"""
import json, sys, time, torch
from minicons import scorer
model_dir, method, batch_size, threads, dtype, device = sys.argv[1:7]
torch.set_num_threads(int(threads))
batch_size = int(batch_size)
def clock():  # CUDA runs asynchronously: time what is done
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter()
if method == "pll":
    lm = scorer.MaskedLMScorer(model_dir, device=device, torch_dtype=getattr(torch, dtype))
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), PLL_metric="original")
elif method == "seq2seq":  # its sequence_score raises "currently erroneous"; the encoder reads
    lm = scorer.Seq2SeqScorer(model_dir, device, torch_dtype=getattr(torch, dtype))  # "</s>" as ours
    run = lambda b: lm.conditional_score(["</s>"] * len(b), b, reduction=lambda x: x.sum(0).item())
elif method == "words_sum":  # whitespace words, each the plain sum of its tokens' log-probs
    lm = scorer.IncrementalLMScorer(model_dir, device=device, torch_dtype=getattr(torch, dtype))
    run = lambda b: [[float(s) for _, s in ws] for ws in lm.word_score_tokenized(b, str.split, bos_token=True)]
else:  # BOS once: minicons' own where the tokenizer adds none (GPT-2), the tokenizer's (Llama)
    lm = scorer.IncrementalLMScorer(model_dir, device=device, torch_dtype=getattr(torch, dtype))
    bos = lm.tokenizer("a")["input_ids"][:1] != [lm.tokenizer.bos_token_id]
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), bos_token=bos)
print("ready", flush=True)
for line in sys.stdin:  # one JSON list of sentences per line -> seconds and scores
    texts = json.loads(line)
    start = clock()
    scores = [s for i in range(0, len(texts), batch_size) for s in run(texts[i : i + batch_size])]
    print(json.dumps({"seconds": clock() - start, "scores": scores}), flush=True)
"""


class Minicons:
    """minicons in its own interpreter (which inherits this process's environment), fed
    lists of sentences over a pipe; it loads its model while this process goes on, and the
    first call waits for it."""

    def __init__(self, python: str, model_dir: Path, method: str, batch_size: int, threads: int,
                 dtype: str, device: str):
        self.proc = subprocess.Popen(
            [python, "-c", MINICONS_WORKER, str(model_dir), method, str(batch_size), str(threads), dtype, device],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        self.python, self.ready = python, False

    def __call__(self, texts: list[str]) -> tuple[float, list[float]]:
        if not self.ready and self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"minicons worker failed to start with {self.python}")
        self.ready = True
        self.proc.stdin.write(json.dumps(texts) + "\n")
        self.proc.stdin.flush()
        result = json.loads(self.proc.stdout.readline())
        return result["seconds"], result["scores"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def our_runner(lm, method: str, device: str, **settings):
    """A function of a list of sentences -> (seconds, our scores), synchronised on CUDA;
    `settings` of `scoring.score` (batch_size, batch_tokens)."""
    boundary = method.removeprefix("words_") if method.startswith("words_") else None
    settings |= {"cache": False, "progress": False}

    def ours(chunk: list[str]) -> tuple[float, list]:
        start = synchronized_clock(device)
        if boundary:  # per-word log-probabilities, sentence by sentence
            got = scoring.word_scores(chunk, lm, "logprob", boundary=boundary, **settings)
            words = got.groupby("sentence_id")["logprob"].apply(list)
            scores = list(words[scoring.sentences_frame(chunk)["sentence_id"]])
        else:
            scores = list(scoring.score(chunk, lm, method, **settings)["score"])
        return synchronized_clock(device) - start, scores

    return ours


def timed(runners: dict, texts: list[str], repeats: int, warmup: int) -> tuple[dict, dict]:
    """Each runner on `texts` `repeats` times, alternating, after a warm-up on the first
    `warmup` sentences: the seconds of every run and each runner's last scores."""
    for run in runners.values():
        run(texts[:warmup])
    times: dict = {name: [] for name in runners}
    scores: dict = {}
    for _ in range(repeats):
        for name, run in runners.items():
            seconds, scores[name] = run(texts)
            times[name].append(seconds)
    return times, scores


def compare(method: str, dtype: str, model_dir: Path, texts: list[str], args,
            minicons_python: str | None) -> tuple[dict, list[float]]:
    """Time ours and minicons on the same sentences in `dtype`, alternating runs; keep each
    one's best time (robust to other processes' load on a shared machine). Also our scores."""
    lm = scoring.load_model(str(model_dir), MODELS[method][1], device=args.device, dtype=dtype)
    theirs = (Minicons(minicons_python, model_dir, method, args.batch_size, args.threads, dtype, args.device)
              if minicons_python and method in MINICONS_METHODS else None)
    runners = {"ours": our_runner(lm, method, args.device, batch_size=args.batch_size)}
    times, scores = timed(runners | ({"minicons": theirs} if theirs else {}), texts, args.repeats, args.batch_size)
    row = {"method": method, "dtype": dtype, "model": MODELS[method][0], "sentences": len(texts),
           "ours_sent_per_s": len(texts) / min(times["ours"])}
    if theirs:
        theirs.close()
        row |= {"minicons_sent_per_s": len(texts) / min(times["minicons"]),
                "speedup": min(times["minicons"]) / min(times["ours"]),
                "max_abs_diff": max_abs_diff(scores["ours"], scores["minicons"])}
    row["seconds"] = " / ".join(f"{name} " + ",".join(f"{t:.0f}" for t in ts) for name, ts in times.items())
    return row, list(flat(scores["ours"]))


def flat(scores: list) -> np.ndarray:
    """Sentence scores, or the per-word scores of all sentences in order."""
    return np.array([w for s in scores for w in (s if isinstance(s, list) else [s])], dtype=float)


def max_abs_diff(ours: list, theirs: list) -> float:
    """Largest difference between the two; NaN (with a message) where words do not align."""
    lengths = [len(s) if isinstance(s, list) else 1 for s in ours]
    if lengths != [len(s) if isinstance(s, list) else 1 for s in theirs]:
        print("(words differ from minicons' in some sentences: no max_abs_diff)")
        return float("nan")
    return float(np.max(np.abs(flat(ours) - flat(theirs))))


BLIMP_PARADIGMS = ["anaphor_gender_agreement", "determiner_noun_agreement_2",
                   "regular_plural_subject_verb_agreement_1", "wh_vs_that_no_gap", "npi_present_1"]
#: The verdict check's runs: name -> (dtype, `our_scores` settings).
VARIANTS = {"float32": ("float32", {}), "bfloat16": ("bfloat16", {}),
            "rounded": ("bfloat16", {"exact_logits": False}),
            "rounded_weights": ("float32", {"round_weights": True}),
            "recheck": ("bfloat16", {"recheck": True})}
#: The GPU table's: the CPU-specific ones (the head's float32 copy, packed weights) left out.
GPU_VARIANTS = ("float32", "bfloat16", "recheck")


def verdicts(method: str, model_dir: Path, n_pairs: int | None, device: str, blimp_dir: Path,
             variants: tuple[str, ...] = tuple(VARIANTS)) -> dict:
    """BLiMP criterion (good scores higher) in float32 and bfloat16 on 5 paradigms: how many
    pairs change verdict, and how many pairs' float32 difference is smaller than the change
    bfloat16 makes to it (the pairs whose verdict bfloat16 could change). With `variants`
    "rounded", "rounded_weights", "recheck" also how many change when bfloat16 scores read
    the head's rounded logits instead of exact ones, how many with float32 arithmetic on
    the weights rounded to bfloat16 (the share of the changes that rounding the weights
    alone makes; the rest comes from the activations), and how many with bfloat16 and its
    float32 recheck of close pairs (`score(recheck=True)`): what it rescored and its time
    against float32 and bfloat16 alone (each run loads its model)."""
    blimp = data.load_blimp(blimp_dir, paradigms=BLIMP_PARADIGMS)
    pairs = blimp.pairs.groupby("paradigm").head(n_pairs) if n_pairs else blimp.pairs
    dataset = blimp.subset(pairs["pair_id"])
    delta, seconds, recheck = {}, {}, {}
    for variant in variants:
        dtype, settings = VARIANTS[variant]
        start = time.perf_counter()
        got = our_scores(method, model_dir, dtype, dataset, device, **settings)
        seconds[variant] = time.perf_counter() - start
        recheck = got.attrs.get("recheck") or recheck
        got = got.set_index("sentence_id")["score"]
        delta[variant] = got[pairs["good_id"]].to_numpy() - got[pairs["bad_id"]].to_numpy()
    changed = {v: (delta["float32"] > 0) != (delta[v] > 0) for v in delta}
    fragile = np.abs(delta["float32"]) < np.abs(delta["bfloat16"] - delta["float32"])
    out = {"blimp_pairs": len(pairs), "verdicts_changed": int(changed["bfloat16"].sum()),
           "changed_share": changed["bfloat16"].mean(), "pairs_delta_below_bf16_error": int(fragile.sum()),
           "fp32_accuracy": (delta["float32"] > 0).mean(), "bf16_accuracy": (delta["bfloat16"] > 0).mean()}
    out |= {f"verdicts_changed_{name}": int(changed[v].sum()) for v, name in (
        ("rounded", "rounded_logits"), ("rounded_weights", "rounded_weights"), ("recheck", "recheck")) if v in changed}
    if recheck:
        out |= {"recheck_pairs": recheck["rescored_pairs"], "recheck_sentences": recheck["rescored_sentences"],
                "recheck_margin": recheck["margin"]}
    return out | {f"blimp_seconds_{name}": seconds[v] for v, name in (
        ("float32", "fp32"), ("bfloat16", "bf16"), ("recheck", "recheck")) if v in seconds}


def our_scores(method: str, model_dir: Path, dtype: str, sentences, device: str = "cpu",
               exact_logits: bool = True, round_weights: bool = False, recheck: bool = False) -> pd.DataFrame:
    """Our scores; `exact_logits=False`: a bfloat16 model reads its head's rounded logits;
    `round_weights`: a float32 model's weights are rounded to bfloat16 first; `recheck`: close
    pairs of `sentences` (a Dataset) rescored in float32."""
    import torch

    lm = scoring.load_model(str(model_dir), MODELS[method][1], device=device, dtype=dtype,
                            prepack=not round_weights)  # packed copies would keep the float32 weights
    if round_weights:
        with torch.no_grad():
            for weight in lm.model.parameters():
                weight.copy_(weight.bfloat16().float())
    if not exact_logits:
        lm.head_fp32 = None
    return scoring.score(sentences, lm, method, cache=False, progress=False, recheck=recheck)


def agreement(method: str, model: str, model_dir: Path, fp32: np.ndarray, bf16: np.ndarray,
              n_pairs: int | None, args, variants: tuple[str, ...] = tuple(VARIANTS)) -> dict:
    """bfloat16 against float32 scores of one model: the benchmark's sentences, then BLiMP
    verdicts (`verdicts`; skipped, saying so, where the 5 paradigms' files are missing)."""
    row = {"method": method, "model": model, "pearson_r": np.corrcoef(fp32, bf16)[0, 1],
           "max_abs_diff": np.abs(fp32 - bf16).max()}
    missing = [p for p in BLIMP_PARADIGMS if not (args.blimp_dir / "data" / f"{p}.jsonl").is_file()]
    if missing:
        print(f"BLiMP verdicts skipped: no {missing} under {args.blimp_dir / 'data'} (--blimp-dir)")
        return row
    return row | verdicts(method, model_dir, n_pairs, args.device, args.blimp_dir, variants)


def cpu_name(threads: int) -> str:
    """lscpu's model name, whether it has AMX or AVX512-BF16 (bfloat16 speed), and the threads."""
    info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("Model name")), "?")
    bf16 = "AMX" if "amx_bf16" in info else "AVX512-BF16, no AMX" if "avx512_bf16" in info else "no bfloat16 units"
    return f"{name} ({bf16}), {threads} thread{'s' * (threads != 1)}"


def blimp_sentences(folder: Path, n: int) -> list[str]:
    """`n` distinct sentences of all 67 BLiMP paradigms, a sample drawn with seed 0."""
    texts = data.load_blimp(folder).sentences["text"].drop_duplicates()
    return list(texts.sample(n=min(n, len(texts)), random_state=0))


def read_sentences(path: Path) -> list[str]:
    """One sentence a line (blank lines skipped); refused with repeats, which the scorer
    would compute once and so overstate the speed."""
    texts = [line.strip() for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if len(set(texts)) < len(texts):
        raise SystemExit(f"{path}: {len(texts) - len(set(texts))} repeated sentences; keep each once "
                         "(the scorer computes equal texts once, which would overstate the speed)")
    return texts


def write_inputs(folder: Path, n: int) -> None:
    """What a GPU machine without the reference data needs: `folder`/sentences.txt (`n`
    distinct BLiMP sentences, `blimp_sentences`) and `folder`/blimp/data/<paradigm>.jsonl,
    the 5 BLIMP_PARADIGMS of the verdict check, copied as published."""
    (folder / "blimp" / "data").mkdir(parents=True, exist_ok=True)
    texts = blimp_sentences(DATA_DIR / "blimp", n)
    (folder / "sentences.txt").write_text("\n".join(texts) + "\n", encoding="utf-8")
    for paradigm in BLIMP_PARADIGMS:
        shutil.copy(DATA_DIR / "blimp" / "data" / f"{paradigm}.jsonl", folder / "blimp" / "data")
    print(f"wrote {len(texts)} sentences to {folder / 'sentences.txt'}, {len(BLIMP_PARADIGMS)} paradigms "
          f"to {folder / 'blimp' / 'data'}")


class Tables:
    """CSV tables in folder `out` (None: none written), rewritten whenever rows are added, so
    that a run cut short keeps its rows; with `append`, after the rows they held before."""

    def __init__(self, out: Path | None, names: tuple[str, ...], append: bool):
        self.out, self.rows = out, {name: [] for name in names}
        self.earlier = {name: pd.read_csv(out / name) for name in names
                        if out and append and (out / name).is_file()}

    def add(self, name: str, rows: list[dict], columns: list[str] | None = None) -> None:
        self.rows[name] += rows
        if self.out:
            self.out.mkdir(parents=True, exist_ok=True)
            table = pd.DataFrame(self.rows[name], columns=columns)
            if name in self.earlier:  # the earlier runs' rows stay as they were
                table = pd.concat([self.earlier[name], table], ignore_index=True)
            table.to_csv(self.out / name, index=False)


def gpu_rows(name: str, path: Path, texts: list[str], args, minicons_python: str | None,
             peak: float, card: str) -> tuple[list[dict], dict[str, np.ndarray]]:
    """The GPU table's rows of one model: per dtype, ours at each budget (`--batch-tokens`;
    float32: `--fp32-batch-tokens`) and minicons (at the first budget's row), alternating
    runs, best time; the share of `peak` (FLOP/s) that the minimal FLOPs over our time
    reach; bf16 over our best fp32 speed. Also our scores per dtype, at its first budget."""
    import torch

    method = GPU_MODELS[name][1]
    kind = MODELS[method][1]
    rows, ours, best, needed = [], {}, {}, None
    for dtype in args.dtypes:
        budgets = args.fp32_batch_tokens if dtype == "float32" and args.fp32_batch_tokens else args.batch_tokens
        theirs = (Minicons(minicons_python, path, method, args.batch_size, args.threads, dtype, args.device)
                  if minicons_python else None)  # loads beside ours
        lm = scoring.load_model(str(path), kind, device=args.device, dtype=dtype)
        try:  # a minicons that fails to start or score leaves its column blank, not ours
            if theirs:
                theirs(texts[: args.batch_size])
        except Exception:
            traceback.print_exc()
            theirs = None
        needed = needed or minimal_flops(config_shape(lm.model.config, kind), method,
                                         token_lengths(lm.tokenizer, method, texts))
        runners = {bt: our_runner(lm, method, args.device, batch_size=args.batch_size, batch_tokens=bt)
                   for bt in budgets}
        times, scores = timed(runners | ({"minicons": theirs} if theirs else {}), texts, args.repeats,
                              args.batch_size)
        for bt in budgets:
            best[dtype, bt] = min(times[bt])
            fp32 = [s for (d, _), s in best.items() if d == "float32"]
            rows.append({"card": card, "model": name, "method": method, "dtype": dtype, "batch_tokens": bt,
                         "ours_sent_per_s": len(texts) / best[dtype, bt],
                         "minicons_sent_per_s": (len(texts) / min(times["minicons"])
                                                 if theirs and bt == budgets[0] else np.nan),
                         "share_of_peak": needed / best[dtype, bt] / peak,
                         "bf16_vs_fp32": min(fp32) / best[dtype, bt] if dtype == "bfloat16" and fp32 else np.nan})
        ours[dtype] = flat(scores[budgets[0]])
        if theirs:
            theirs.close()
            diff = max_abs_diff(scores[budgets[0]], scores["minicons"])
            print(f"{name} {dtype}: max |ours - minicons| {diff:.3g}")
        del lm, runners
        gc.collect()
        if args.device.startswith("cuda"):
            torch.cuda.empty_cache()
    return rows, ours


def gpu_table(args, texts: list[str], minicons_python: str | None, corpus: list[str]) -> None:
    """The GPU table (gpu.csv) and its agreement rows (gpu_agreement.csv), model by model
    (models built on the device); a model is not started once `--deadline` seconds have
    passed since the run began. `corpus`: the tokenizers' training text where the reference
    data are missing (all sentences of `--sentences`, not only the first `--n`)."""
    import torch

    cuda = args.device.startswith("cuda")
    card = torch.cuda.get_device_name(args.device) if cuda else cpu_name(args.threads)
    size = args.peak_n or (8192 if cuda else 2048)
    peak = matmul_peak(args.device, size, repeats=50 if cuda else 5)  # 8192^3 x 100 on an H200: ~0.15 s
    print(f"{card}: bf16 matmul {peak / 1e12:.2f} TFLOP/s ({size}^3), {len(texts)} sentences, torch "
          f"{torch.__version__}", flush=True)
    names = args.models or GPU_DEFAULT
    paths = build_models(args.models_dir, [GPU_MODELS[m][0] for m in names], DATA_DIR, corpus, args.device)
    tables = Tables(args.out, ("gpu.csv", "gpu_agreement.csv"), args.append)
    for name in names:
        if args.deadline and time.perf_counter() - args.started > args.deadline:
            print(f"--deadline {args.deadline:.0f} s passed: {name} and after skipped")
            break
        folder, method = GPU_MODELS[name]
        try:  # one model's failure costs its rows, not the other models' (a device run is short)
            rows, ours = gpu_rows(name, paths[folder], texts, args, minicons_python, peak, card)
        except Exception:
            traceback.print_exc()
            print(f"{name}: failed, no rows")
            continue
        tables.add("gpu.csv", rows, GPU_COLUMNS)
        print(pd.DataFrame(rows, columns=GPU_COLUMNS).to_string(index=False, float_format=lambda v: f"{v:.4g}"),
              flush=True)
        if len(ours) == 2:
            row = {"card": card, "sentences": len(texts)} | agreement(
                method, name, paths[folder], ours["float32"], ours["bfloat16"], args.blimp_pairs, args, GPU_VARIANTS)
            tables.add("gpu_agreement.csv", [row])
            print(pd.DataFrame([row]).to_string(index=False, float_format=lambda v: f"{v:.6g}"), flush=True)


def cpu_table(args, minicons_python: str | None) -> None:
    """The CPU table (throughput.csv, agreement.csv): `--methods` on LI-Adger (or
    `--sentences`), and the agreement of `--trained` models."""
    import torch

    if args.sentences:
        sentences = read_sentences(args.sentences)
        texts = sentences[: args.n] if args.n else sentences
    else:
        sentences = data.load_li_adger(DATA_DIR / "li-adger").sentences.dropna(subset=["text"])
        if args.n:
            sentences = sentences.sample(n=min(args.n, len(sentences)), random_state=0)
        texts = list(sentences["text"])
    methods = args.methods or ["logprob", "pll"]
    paths = build_models(args.models_dir, sorted({MODELS[m][0] for m in methods}), DATA_DIR, texts)
    cpu = cpu_name(args.threads)
    rows, agreements = [], []
    for method in methods:
        ours = {}
        for dtype in args.dtypes:
            row, ours[dtype] = compare(method, dtype, paths[MODELS[method][0]], texts, args, minicons_python)
            rows.append(row | {"run": args.run, "cpu": cpu})
            print(pd.DataFrame([row]).to_string(index=False), flush=True)
        if len(ours) == 2:
            fp32, bf16 = (np.array(ours[d]) for d in ("float32", "bfloat16"))
            rows[-1]["bf16_vs_our_fp32"] = rows[-1]["ours_sent_per_s"] / rows[-2]["ours_sent_per_s"]
            if method not in VERDICT_METHODS:
                print(f"{method}: bfloat16 vs float32 max abs. diff {np.abs(fp32 - bf16).max():.3g}")
                continue
            agreements.append(agreement(method, MODELS[method][0], paths[MODELS[method][0]], fp32, bf16,
                                        args.blimp_pairs, args))
            print(pd.DataFrame([agreements[-1]]).to_string(index=False), flush=True)
    for method, folder in args.trained:
        fp32, bf16 = (our_scores(method, Path(folder), d, sentences, args.device)["score"].to_numpy()
                      for d in ("float32", "bfloat16"))
        agreements.append(agreement(method, f"trained: {Path(folder).name}", Path(folder), fp32, bf16, None,
                                    args))
        print(pd.DataFrame([agreements[-1]]).to_string(index=False), flush=True)
    print(f"\n{args.threads} CPU threads, batch size {args.batch_size}, torch {torch.__version__}")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if agreements:
        print("\nbfloat16 against float32 (ours):")
        print(pd.DataFrame(agreements).to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    tables = Tables(args.out, ("throughput.csv", "agreement.csv"), args.append)
    tables.add("throughput.csv", rows)
    tables.add("agreement.csv", agreements)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (`--help`)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda[:N]: models, minicons, timing")
    parser.add_argument("--n", type=int, default=None,
                        help="sentences: a random sample of n (CPU table; default all), the first n of "
                             f"--sentences, or n distinct BLiMP ones (GPU table, default {GPU_SENTENCES})")
    parser.add_argument("--sentences", type=Path, help="score these sentences, one a line, all distinct")
    parser.add_argument("--write-inputs", type=Path, metavar="DIR",
                        help=f"write DIR/sentences.txt ({GPU_SENTENCES} distinct BLiMP sentences, or --n) and "
                             "DIR/blimp/data/ (the verdict check's 5 paradigms), then stop")
    parser.add_argument("--methods", nargs="+", default=None, choices=list(MODELS),
                        help="the CPU table's rows (default: logprob pll)")
    parser.add_argument("--models", nargs="+", default=None, choices=list(GPU_MODELS),
                        help=f"the GPU table's rows, on any --device (default on cuda: {' '.join(GPU_DEFAULT)})")
    parser.add_argument("--batch-size", type=int, default=16, help="sentences a batch (minicons; ours where "
                        "passes are not filled by tokens)")
    parser.add_argument("--batch-tokens", type=int, nargs="+", default=[None],
                        help="GPU table: our tokens per forward pass, masked copies included (a row each; "
                             "default: the scorer's own)")
    parser.add_argument("--fp32-batch-tokens", type=int, nargs="+", default=None,
                        help="GPU table: float32's budgets instead (fewer runs of the slowest dtype)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"], choices=["float32", "bfloat16"])
    parser.add_argument("--blimp-pairs", type=int, default=None,
                        help="pairs per BLiMP paradigm for the verdict check (default: all 1000)")
    parser.add_argument("--blimp-dir", type=Path, default=None,
                        help="folder with data/<paradigm>.jsonl of the verdict check (default: the data's blimp)")
    parser.add_argument("--repeats", type=int, default=1, help="alternating runs each; the best counts")
    parser.add_argument("--peak-n", type=int, default=None,
                        help="size of the bf16 matmul that measures the peak (default 8192 on cuda, 2048 on cpu)")
    parser.add_argument("--deadline", type=float, default=None,
                        help="GPU table: start no further model after this many seconds (rows so far are kept)")
    parser.add_argument("--trained", nargs=2, action="append", default=[], metavar=("METHOD", "DIR"),
                        help="also measure bfloat16 agreement on a trained model folder (repeatable)")
    parser.add_argument("--out", type=Path, help="write throughput.csv and agreement.csv (CPU table) or "
                        "gpu.csv and gpu_agreement.csv (GPU table) here")
    parser.add_argument("--append", action="store_true",
                        help="add this run's rows to the CSVs in --out instead of replacing them")
    parser.add_argument("--run", type=int, default=1, help="run number recorded in column `run`")
    parser.add_argument("--models-dir", type=Path, default=scoring.default_cache_dir() / "bench-models")
    parser.add_argument(
        "--minicons-python", default=os.environ.get("MINICONS_PYTHON", "/work/minicons-venv/bin/python"),
        help="python of a venv with minicons (default $MINICONS_PYTHON)",
    )
    args = parser.parse_args(argv)
    if bad := [m for m, _ in args.trained if m not in MODELS]:
        parser.error(f"--trained METHOD must be one of {list(MODELS)}, got {bad}")
    args.blimp_dir = args.blimp_dir or DATA_DIR / "blimp"
    args.started = time.perf_counter()
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if args.write_inputs:
        write_inputs(args.write_inputs, args.n or GPU_SENTENCES)
        return
    have_minicons = Path(args.minicons_python).is_file()
    if not have_minicons:
        print(f"minicons skipped: no python at {args.minicons_python!r} (set MINICONS_PYTHON)")
    minicons_python = args.minicons_python if have_minicons else None
    if args.models or (args.device.startswith("cuda") and not args.methods):
        texts = (read_sentences(args.sentences) if args.sentences
                 else blimp_sentences(DATA_DIR / "blimp", args.n or GPU_SENTENCES))
        gpu_table(args, texts[: args.n] if args.n else texts, minicons_python, texts)
    else:
        cpu_table(args, minicons_python)


if __name__ == "__main__":
    main()
