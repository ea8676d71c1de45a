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
    from acceptability.scoring.training.experiments import nested_subsets
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
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pandas as pd

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

MINICONS_WORKER = r"""
import json, sys, time, torch
from minicons import scorer
model_dir, method, batch_size, threads, dtype = sys.argv[1:6]
torch.set_num_threads(int(threads))
batch_size = int(batch_size)
if method == "pll":
    lm = scorer.MaskedLMScorer(model_dir, device="cpu", torch_dtype=getattr(torch, dtype))
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), PLL_metric="original")
elif method == "seq2seq":  # its sequence_score raises "currently erroneous"; the encoder reads
    lm = scorer.Seq2SeqScorer(model_dir, "cpu", torch_dtype=getattr(torch, dtype))  # "</s>" as ours
    run = lambda b: lm.conditional_score(["</s>"] * len(b), b, reduction=lambda x: x.sum(0).item())
elif method == "words_sum":  # whitespace words, each the plain sum of its tokens' log-probs
    lm = scorer.IncrementalLMScorer(model_dir, device="cpu", torch_dtype=getattr(torch, dtype))
    run = lambda b: [[float(s) for _, s in ws] for ws in lm.word_score_tokenized(b, str.split, bos_token=True)]
else:
    lm = scorer.IncrementalLMScorer(model_dir, device="cpu", torch_dtype=getattr(torch, dtype))
    run = lambda b: lm.sequence_score(b, reduction=lambda x: x.sum(0).item(), bos_token=True)
print("ready", flush=True)
for line in sys.stdin:  # one JSON list of sentences per line -> seconds and scores
    texts = json.loads(line)
    start = time.perf_counter()
    scores = [s for i in range(0, len(texts), batch_size) for s in run(texts[i : i + batch_size])]
    print(json.dumps({"seconds": time.perf_counter() - start, "scores": scores}), flush=True)
"""


def corpus_text() -> list[str]:
    """Sentences to train the benchmark tokenizers on (LI-Adger, CoLA, BLiMP, all local)."""
    texts = list(data.load_li_adger(DATA_DIR / "li-adger").sentences["text"].dropna())
    for loader, name in ((data.load_cola, "cola"), (data.load_blimp, "blimp")):
        try:
            texts += list(loader(DATA_DIR / name).sentences["text"].dropna())
        except Exception as err:  # a missing extra corpus only makes the vocabulary smaller
            print(f"(tokenizer corpus: skipping {name}: {err})")
    return texts


def build_models(out: Path) -> dict[str, Path]:
    """Random bert-base, gpt2 and t5-small (default configs, real vocabulary sizes) with
    tokenizers trained on local text; each built once into `out`/<model>."""
    import torch

    builders = {"bert-base-size": _bert, "gpt2-size": _gpt2, "t5-small-size": _t5}
    paths = {name: out / name for name in builders}
    texts = None
    for name, build in builders.items():
        if not (paths[name] / "config.json").is_file():
            texts = texts or corpus_text()
            torch.manual_seed(0)
            build(texts, paths[name])
    return paths


def _save(tokenizer, model, path: Path, cls: str) -> None:
    """Save both; transformers 4 (minicons) must know the tokenizer class, and both versions
    read tokenizer.json."""
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    config_file = path / "tokenizer_config.json"
    config = json.loads(config_file.read_text())
    config["tokenizer_class"] = cls
    if "extra_special_tokens" in config:  # transformers 4 reads a list under the older name
        config["additional_special_tokens"] = config.pop("extra_special_tokens")
    config_file.write_text(json.dumps(config))


def _bert(texts: list[str], path: Path) -> None:
    """bert-base-size masked LM with a WordPiece tokenizer (30522)."""
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import BertConfig, BertForMaskedLM, PreTrainedTokenizerFast

    wordpiece = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    wordpiece.normalizer = normalizers.BertNormalizer(lowercase=True)
    wordpiece.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    wordpiece.decoder = decoders.WordPiece()
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    wordpiece.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=30522, special_tokens=special))
    wordpiece.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    bert_tok = PreTrainedTokenizerFast(
        tokenizer_object=wordpiece, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
        sep_token="[SEP]", mask_token="[MASK]", model_max_length=512,
    )
    _save(bert_tok, BertForMaskedLM(BertConfig()), path, "BertTokenizerFast")


def _gpt2(texts: list[str], path: Path) -> None:
    """gpt2-size causal LM with a byte-level BPE tokenizer (50257)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=50257, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    ))
    gpt2_tok = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<|endoftext|>", eos_token="<|endoftext|>", model_max_length=1024,
    )
    _save(gpt2_tok, GPT2LMHeadModel(GPT2Config(bos_token_id=0, eos_token_id=0)), path, "GPT2TokenizerFast")


def _t5(texts: list[str], path: Path) -> None:
    """t5-small-size encoder-decoder (T5Config's defaults, 32128 output rows) with a Unigram
    tokenizer as t5-small's: Metaspace pieces, `</s>` appended, 100 sentinels `<extra_id_N>`."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    unigram = Tokenizer(models.Unigram())
    unigram.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    unigram.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    unigram.train_from_iterator(texts, trainers.UnigramTrainer(
        vocab_size=32000, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>"))
    unigram.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    # the local text yields ~6.6k pieces: unused tokens fill it to t5-small's 32000, since
    # minicons cuts the output layer to the tokenizer's length (+ its added <|bos|>)
    unigram.add_tokens([f"<unused_{i}>" for i in range(32000 - unigram.get_vocab_size())])
    t5_tok = PreTrainedTokenizerFast(
        tokenizer_object=unigram, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
        additional_special_tokens=[f"<extra_id_{i}>" for i in range(100)], model_max_length=512,
        model_input_names=["input_ids", "attention_mask"],  # T5 takes no token_type_ids
    )
    config = T5Config(vocab_size=32128, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    _save(t5_tok, T5ForConditionalGeneration(config), path, "PreTrainedTokenizerFast")


class Minicons:
    """minicons in its own interpreter, fed lists of sentences over a pipe."""

    def __init__(self, python: str, model_dir: Path, method: str, batch_size: int, threads: int,
                 dtype: str):
        self.proc = subprocess.Popen(
            [python, "-c", MINICONS_WORKER, str(model_dir), method, str(batch_size), str(threads), dtype],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"minicons worker failed to start with {python}")

    def __call__(self, texts: list[str]) -> tuple[float, list[float]]:
        self.proc.stdin.write(json.dumps(texts) + "\n")
        self.proc.stdin.flush()
        result = json.loads(self.proc.stdout.readline())
        return result["seconds"], result["scores"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def compare(method: str, dtype: str, model_dir: Path, texts: list[str], args,
            minicons_python: str | None) -> tuple[dict, list[float]]:
    """Time ours and minicons on the same sentences in `dtype`, alternating runs; keep each
    one's best time (robust to other processes' load on a shared machine). Also our scores."""
    lm = scoring.load_model(str(model_dir), MODELS[method][1], device="cpu", dtype=dtype)
    boundary = method.removeprefix("words_") if method.startswith("words_") else None

    def ours(chunk: list[str]) -> tuple[float, list[float]]:
        start = time.perf_counter()
        settings = {"batch_size": args.batch_size, "cache": False, "progress": False}
        if boundary:  # per-word log-probabilities, sentence by sentence
            got = scoring.word_scores(chunk, lm, "logprob", boundary=boundary, **settings)
            words = got.groupby("sentence_id")["logprob"].apply(list)
            return time.perf_counter() - start, list(words[scoring.sentences_frame(chunk)["sentence_id"]])
        got = scoring.score(chunk, lm, method, **settings)
        return time.perf_counter() - start, list(got["score"])

    theirs = (Minicons(minicons_python, model_dir, method, args.batch_size, args.threads, dtype)
              if minicons_python and method in MINICONS_METHODS else None)
    runners = {"ours": ours} | ({"minicons": theirs} if theirs else {})
    times: dict[str, list[float]] = {name: [] for name in runners}
    scores: dict[str, list[float]] = {}
    for run in runners.values():
        run(texts[: args.batch_size])  # warm-up
    for _ in range(args.repeats):
        for name, run in runners.items():
            seconds, scores[name] = run(texts)
            times[name].append(seconds)
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


def verdicts(method: str, model_dir: Path, n_pairs: int | None) -> dict:
    """BLiMP criterion (good scores higher) in float32 and bfloat16 on 5 paradigms: how many
    pairs change verdict, and how many pairs' float32 difference is smaller than the change
    bfloat16 makes to it (the pairs whose verdict bfloat16 could change). Also how many
    change when bfloat16 scores read the head's rounded logits instead of exact ones, how
    many with float32 arithmetic on the weights rounded to bfloat16 (the share of the
    changes that rounding the weights alone makes; the rest comes from the activations), and
    how many with bfloat16 and its float32 recheck of close pairs (`score(recheck=True)`):
    what it rescored and its time against float32 and bfloat16 alone (each run loads its model)."""
    blimp = data.load_blimp(DATA_DIR / "blimp", paradigms=BLIMP_PARADIGMS)
    pairs = blimp.pairs.groupby("paradigm").head(n_pairs) if n_pairs else blimp.pairs
    dataset = blimp.subset(pairs["pair_id"])
    delta, seconds = {}, {}
    for variant in ("float32", "bfloat16", "rounded", "rounded_weights", "recheck"):
        start = time.perf_counter()
        got = our_scores(method, model_dir, "float32" if variant in ("float32", "rounded_weights") else "bfloat16",
                         dataset, exact_logits=variant != "rounded", round_weights=variant == "rounded_weights",
                         recheck=variant == "recheck")
        seconds[variant] = time.perf_counter() - start
        recheck = got.attrs.get("recheck")
        got = got.set_index("sentence_id")["score"]
        delta[variant] = got[pairs["good_id"]].to_numpy() - got[pairs["bad_id"]].to_numpy()
    changed = {v: (delta["float32"] > 0) != (delta[v] > 0) for v in delta}
    fragile = np.abs(delta["float32"]) < np.abs(delta["bfloat16"] - delta["float32"])
    return {"blimp_pairs": len(pairs), "verdicts_changed": int(changed["bfloat16"].sum()),
            "changed_share": changed["bfloat16"].mean(), "pairs_delta_below_bf16_error": int(fragile.sum()),
            "fp32_accuracy": (delta["float32"] > 0).mean(), "bf16_accuracy": (delta["bfloat16"] > 0).mean(),
            "verdicts_changed_rounded_logits": int(changed["rounded"].sum()),
            "verdicts_changed_rounded_weights": int(changed["rounded_weights"].sum()),
            "verdicts_changed_recheck": int(changed["recheck"].sum()),
            "recheck_pairs": recheck["rescored_pairs"], "recheck_sentences": recheck["rescored_sentences"],
            "recheck_margin": recheck["margin"], "blimp_seconds_fp32": seconds["float32"],
            "blimp_seconds_bf16": seconds["bfloat16"], "blimp_seconds_recheck": seconds["recheck"]}


def our_scores(method: str, model_dir: Path, dtype: str, sentences, exact_logits: bool = True,
               round_weights: bool = False, recheck: bool = False) -> pd.DataFrame:
    """Our scores; `exact_logits=False`: a bfloat16 model reads its head's rounded logits;
    `round_weights`: a float32 model's weights are rounded to bfloat16 first; `recheck`: close
    pairs of `sentences` (a Dataset) rescored in float32."""
    import torch

    lm = scoring.load_model(str(model_dir), MODELS[method][1], device="cpu", dtype=dtype,
                            prepack=not round_weights)  # packed copies would keep the float32 weights
    if round_weights:
        with torch.no_grad():
            for weight in lm.model.parameters():
                weight.copy_(weight.bfloat16().float())
    if not exact_logits:
        lm.head_fp32 = None
    return scoring.score(sentences, lm, method, cache=False, progress=False, recheck=recheck)


def agreement(method: str, model: str, model_dir: Path, fp32: np.ndarray, bf16: np.ndarray,
              n_pairs: int | None) -> dict:
    """bfloat16 against float32 scores of one model: LI-Adger sentences, then BLiMP verdicts."""
    return {"method": method, "model": model, "pearson_r": np.corrcoef(fp32, bf16)[0, 1],
            "max_abs_diff": np.abs(fp32 - bf16).max(), **verdicts(method, model_dir, n_pairs)}


def cpu_name(threads: int) -> str:
    """lscpu's model name, whether it has AMX or AVX512-BF16 (bfloat16 speed), and the threads."""
    info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    name = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("Model name")), "?")
    bf16 = "AMX" if "amx_bf16" in info else "AVX512-BF16, no AMX" if "avx512_bf16" in info else "no bfloat16 units"
    return f"{name} ({bf16}), {threads} thread{'s' * (threads != 1)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=None, help="random sample of n sentences (default: all)")
    parser.add_argument("--methods", nargs="+", default=["logprob", "pll"], choices=list(MODELS))
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "bfloat16"], choices=["float32", "bfloat16"])
    parser.add_argument("--blimp-pairs", type=int, default=None,
                        help="pairs per BLiMP paradigm for the verdict check (default: all 1000)")
    parser.add_argument("--repeats", type=int, default=1, help="alternating runs each; the best counts")
    parser.add_argument("--trained", nargs=2, action="append", default=[], metavar=("METHOD", "DIR"),
                        help="also measure bfloat16 agreement on a trained model folder (repeatable)")
    parser.add_argument("--out", type=Path, help="write throughput.csv and agreement.csv here")
    parser.add_argument("--append", action="store_true",
                        help="add this run's rows to the CSVs in --out instead of replacing them")
    parser.add_argument("--run", type=int, default=1, help="run number recorded in column `run`")
    parser.add_argument("--models-dir", type=Path, default=scoring.default_cache_dir() / "bench-models")
    parser.add_argument(
        "--minicons-python", default=os.environ.get("MINICONS_PYTHON", "/work/minicons-venv/bin/python"),
        help="python of a venv with minicons (default $MINICONS_PYTHON)",
    )
    args = parser.parse_args()
    if bad := [m for m, _ in args.trained if m not in MODELS]:
        parser.error(f"--trained METHOD must be one of {list(MODELS)}, got {bad}")

    import torch

    torch.set_num_threads(args.threads)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    sentences = data.load_li_adger(DATA_DIR / "li-adger").sentences.dropna(subset=["text"])
    if args.n:
        sentences = sentences.sample(n=min(args.n, len(sentences)), random_state=0)
    texts = list(sentences["text"])
    paths = build_models(args.models_dir)
    have_minicons = Path(args.minicons_python).is_file()
    cpu = cpu_name(args.threads)
    if not have_minicons:
        print(f"minicons skipped: no python at {args.minicons_python!r} (set MINICONS_PYTHON)")
    rows, agreements = [], []
    for method in args.methods:
        ours = {}
        for dtype in args.dtypes:
            row, ours[dtype] = compare(method, dtype, paths[MODELS[method][0]], texts, args,
                                       args.minicons_python if have_minicons else None)
            rows.append(row | {"run": args.run, "cpu": cpu})
            print(pd.DataFrame([row]).to_string(index=False), flush=True)
        if len(ours) == 2:
            fp32, bf16 = (np.array(ours[d]) for d in ("float32", "bfloat16"))
            rows[-1]["bf16_vs_our_fp32"] = rows[-1]["ours_sent_per_s"] / rows[-2]["ours_sent_per_s"]
            if method not in VERDICT_METHODS:
                print(f"{method}: bfloat16 vs float32 max abs. diff {np.abs(fp32 - bf16).max():.3g}")
                continue
            agreements.append(agreement(method, MODELS[method][0], paths[MODELS[method][0]], fp32, bf16,
                                        args.blimp_pairs))
            print(pd.DataFrame([agreements[-1]]).to_string(index=False), flush=True)
    for method, folder in args.trained:
        fp32, bf16 = (our_scores(method, Path(folder), d, sentences)["score"].to_numpy()
                      for d in ("float32", "bfloat16"))
        agreements.append(agreement(method, f"trained: {Path(folder).name}", Path(folder), fp32, bf16, None))
        print(pd.DataFrame([agreements[-1]]).to_string(index=False), flush=True)
    print(f"\n{args.threads} CPU threads, batch size {args.batch_size}, torch {torch.__version__}")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3g}"))
    if agreements:
        print("\nbfloat16 against float32 (ours):")
        print(pd.DataFrame(agreements).to_string(index=False, float_format=lambda v: f"{v:.6g}"))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        for name, table in (("throughput.csv", rows), ("agreement.csv", agreements)):
            earlier = args.out / name
            if args.append and earlier.is_file():  # the earlier runs' rows stay as they were
                table = pd.concat([pd.read_csv(earlier), pd.DataFrame(table)], ignore_index=True)
            pd.DataFrame(table).to_csv(earlier, index=False)


if __name__ == "__main__":
    main()
