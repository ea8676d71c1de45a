"""Training the models that scoring reads: a tokenizer and a small language model from scratch
on a corpus (BLiMP §6.3's learning curves; seed 004's child-directed question) and a binary
sequence classifier fine-tuned on labelled sentences (thesis ch. 2: BERT on CoLA).

Runs go through transformers' ``Trainer``: seeded initialisation (``seed``) and training order
(``data_seed``, so the thesis' §2.3 shuffles vary the order alone), checkpoints and resuming,
bfloat16 autocast. A finished run is a model folder that `scoring.load_model` and
`scoring.score` read, with ``training.json`` beside the weights saying how it was made;
asked again, a finished run is not redone and an interrupted one resumes from its last
checkpoint.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd

from acceptability.data.io.atomic import atomic_files, write_text
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import load_config, max_tokens, pick_device
from acceptability.scoring.run.progress import hf_progress_quiet, watched

RECORD = "training.json"
SETTINGS = "settings.json"  # what a run in a folder was asked for (resuming checks it)
KINDS = ("causal", "masked")
# A small model (about 4M parameters at an 8k vocabulary): trains on a 2-core CPU in minutes.
SMALL = {"hidden_size": 256, "layers": 4, "heads": 4, "intermediate_size": 1024,
         "max_length": 128}


def cpu_has_bf16() -> bool:
    """True when the CPU multiplies bfloat16 natively (AMX or AVX512-BF16 in /proc/cpuinfo)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "amx_bf16" in flags or "avx512_bf16" in flags


def training_dtype(device: str, dtype: str | None = None) -> str:
    """``dtype`` if given, else "bfloat16" where the hardware has it natively (a CUDA GPU
    that supports it, a CPU with AMX/AVX512-BF16), else "float32". bfloat16 here is mixed
    precision: weights and optimiser state stay float32, matrix products run in bfloat16."""
    if dtype is not None:
        if dtype not in ("float32", "bfloat16"):
            raise ScoringError(f"unknown training dtype {dtype!r}; use 'float32' or 'bfloat16'")
        return dtype
    import torch

    if device.startswith("cuda"):
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float32"
    return "bfloat16" if device == "cpu" and cpu_has_bf16() else "float32"


def texts_checksum(texts: Sequence[str]) -> str:
    """sha256 of the training texts in order (one per line), for the training record.

    Parameters
    ----------
    texts : sequence of str
        The training texts, in the order they are read.

    Returns
    -------
    str
        sha256 as 64 hex digits.

    Examples
    --------
    >>> from acceptability.scoring.training.lm import texts_checksum
    >>> texts_checksum(["a", "b"]) == texts_checksum(["a", "b"]) != texts_checksum(["b", "a"])
    True
    """
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode() + b"\n")
    return digest.hexdigest()


def train_tokenizer(texts: Sequence[str], kind: str, vocab_size: int = 8192,
                    lowercase: bool = True):
    """A fast tokenizer trained on ``texts`` with Hugging Face ``tokenizers``.

    Causal models get byte-level BPE with BOS = EOS = ``<|endoftext|>`` (GPT-2's scheme,
    so scoring conditions the first word on BOS); masked ones WordPiece with
    ``[CLS] ... [SEP]`` (BERT's).

    Parameters
    ----------
    texts : sequence of str
        The training corpus.
    kind : {"causal", "masked"}
        The model the tokenizer is for.
    vocab_size : int, default 8192
        The vocabulary size.
    lowercase : bool, default True
        Fold case first (child-directed corpora are lower-cased).

    Returns
    -------
    transformers.PreTrainedTokenizerFast
        The tokenizer.

    Raises
    ------
    ScoringError
        For an unknown ``kind`` or no texts.

    Examples
    --------
    Skipped when the docstrings are tested: importing transformers takes about 10 s.

    >>> from acceptability.scoring.training import train_tokenizer
    >>> tok = train_tokenizer(["the dog runs", "a cat sleeps"] * 5, "causal", vocab_size=300)  # doctest: +SKIP
    >>> tok("the cat")["input_ids"][:1] == [tok.bos_token_id]  # doctest: +SKIP
    False
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from tokenizers import trainers as tk
    from transformers import PreTrainedTokenizerFast

    check_kind(kind)
    if not texts:
        raise ScoringError("no texts to train a tokenizer on; give a non-empty corpus")
    if kind == "causal":
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
        tok.decoder = decoders.ByteLevel()
        trainer = tk.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>", "<pad>"],
                                initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    else:
        tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = tk.WordPieceTrainer(vocab_size=vocab_size, special_tokens=[
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"])
    if lowercase:
        tok.normalizer = normalizers.Lowercase()
    tok.train_from_iterator(texts, trainer)
    if kind == "causal":
        return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|endoftext|>",
                                       eos_token="<|endoftext|>", pad_token="<pad>")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]")


def check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise ScoringError(f"unknown model kind {kind!r} to train; use one of {list(KINDS)}")


def lm_config(kind: str, tokenizer: Any, **size: int):
    """A GPT-2 (causal) or RoBERTa (masked, BabyBERTa's architecture) config sized by
    `SMALL` updated with `size` (hidden_size, layers, heads, intermediate_size,
    max_length)."""
    from transformers import GPT2Config, RobertaConfig

    check_kind(kind)
    unknown = set(size) - set(SMALL)
    if unknown:
        raise ScoringError(f"unknown model size setting(s) {sorted(unknown)}; use {list(SMALL)}")
    s = {**SMALL, **size}
    if kind == "causal":
        return GPT2Config(vocab_size=len(tokenizer), n_embd=s["hidden_size"], n_layer=s["layers"],
                          n_head=s["heads"], n_inner=s["intermediate_size"],
                          n_positions=s["max_length"], bos_token_id=tokenizer.bos_token_id,
                          eos_token_id=tokenizer.eos_token_id,
                          pad_token_id=tokenizer.pad_token_id)
    return RobertaConfig(vocab_size=len(tokenizer), hidden_size=s["hidden_size"],
                         num_hidden_layers=s["layers"], num_attention_heads=s["heads"],
                         intermediate_size=s["intermediate_size"],
                         max_position_embeddings=s["max_length"] + tokenizer.pad_token_id + 1,
                         pad_token_id=tokenizer.pad_token_id, type_vocab_size=1)


def finished(out: str | os.PathLike) -> dict | None:
    """The training record of a finished run in ``out``, else None.

    Parameters
    ----------
    out : str or os.PathLike
        A model folder.

    Returns
    -------
    dict or None
        The contents of its ``training.json``.

    Examples
    --------
    >>> import tempfile
    >>> from acceptability.scoring.training.lm import finished
    >>> finished(tempfile.mkdtemp()) is None
    True
    """
    path = Path(out) / RECORD
    return json.loads(path.read_text()) if path.is_file() else None


def claim(out: Path, settings: dict) -> dict | None:
    """The record of the run in `out` if it finished, else None, after checking that `out`
    holds a run of these `settings` (or none yet: the folder is then claimed for them).
    Resuming another run's checkpoints, or returning another run's model, is an error."""
    wanted = json.loads(json.dumps(settings))  # as it reads back: lists, not tuples
    path = out / SETTINGS
    if path.is_file():
        had = json.loads(path.read_text())
        if had != wanted:
            diff = sorted(k for k in {*had, *wanted} if had.get(k) != wanted.get(k))
            raise ScoringError(
                f"{out} holds a training run with other settings ({', '.join(diff)}); use "
                "another output folder, or delete this one to train anew")
        return finished(out)
    write_text(path, json.dumps(wanted, indent=1))
    return None


def _encode(tokenizer: Any, texts: Sequence[str], max_length: int,
            labels: Sequence[int]) -> list[dict]:
    """One labelled example per text with the tokenizer's special tokens (classifier
    training); a text longer than `max_length` tokens is an error."""
    ids = tokenizer(list(texts))["input_ids"]
    _check_lengths(ids, texts, max_length)
    return [{"input_ids": x, "labels": int(y)} for x, y in zip(ids, labels, strict=True)]


def _check_lengths(ids: list[list[int]], texts: Sequence[str], max_length: int) -> None:
    too_long = [i for i, x in enumerate(ids) if len(x) > max_length]
    if too_long:
        raise ScoringError(
            f"{len(too_long)} training text(s) are longer than {max_length} tokens (first: "
            f"#{too_long[0]}: {texts[too_long[0]][:60]!r}); split them or raise max_length")


def pack(tokenizer: Any, texts: Sequence[str], kind: str, max_length: int) -> list[dict]:
    """LM training blocks of whole texts, up to `max_length` tokens each, with no padding
    to learn from: causal ``<|endoftext|> t1 <|endoftext|> t2 ...`` (GPT-2's stream, so
    every text follows the BOS that scoring conditions on), masked ``[CLS] t1 [SEP] t2
    [SEP] ...`` (RoBERTa's packing of full sentences)."""
    ids = tokenizer(list(texts), add_special_tokens=False)["input_ids"]
    if kind == "causal":
        start, pieces = [], [[tokenizer.bos_token_id, *x] for x in ids]
        end = [tokenizer.eos_token_id]
    else:
        start, pieces = [tokenizer.cls_token_id], [[*x, tokenizer.sep_token_id] for x in ids]
        end = []
    _check_lengths([start + p + end for p in pieces], texts, max_length)
    blocks, current = [], list(start)
    for piece in pieces:
        if len(current) + len(piece) + len(end) > max_length:
            blocks.append({"input_ids": current + end})
            current = list(start)
        current += piece
    blocks.append({"input_ids": current + end})
    return blocks


def _run(model: Any, tokenizer: Any, examples: list[dict], collator: Any, out: Path, *,
         record: dict, seed: int, order_seed: int | None, epochs: float, batch_size: int,
         learning_rate: float, save_steps: int | None, keep_checkpoints: bool,
         device: str | None, dtype: str | None, progress: bool | None) -> Path:
    """Train with ``Trainer`` into `out`/checkpoints, resuming from the last checkpoint;
    save the final model, tokenizer and training record in `out`."""
    from transformers import PrinterCallback, Trainer, TrainingArguments

    device = pick_device(device)
    dtype = training_dtype(device, dtype)
    checkpoints = out / "checkpoints"
    args = TrainingArguments(
        output_dir=str(checkpoints), per_device_train_batch_size=batch_size,
        num_train_epochs=epochs, learning_rate=learning_rate, warmup_steps=0.1,
        weight_decay=0.01, seed=seed, data_seed=order_seed,
        save_strategy="steps" if save_steps else "epoch", save_steps=save_steps or 500,
        save_total_limit=None if keep_checkpoints else 1, logging_strategy="no",
        report_to="none", use_cpu=device == "cpu", bf16=dtype == "bfloat16",
        disable_tqdm=not (watched() if progress is None else progress),
        dataloader_num_workers=0, save_only_model=False)
    trainer = Trainer(model=model, args=args, train_dataset=examples, data_collator=collator,
                      processing_class=tokenizer)
    trainer.remove_callback(PrinterCallback)  # it prints the final metrics dict
    resume = _whole_checkpoints(checkpoints)
    with hf_progress_quiet():
        result = trainer.train(resume_from_checkpoint=True if resume else None)
        with atomic_files(out) as tmp:  # each file lands whole; training.json, last, says done
            trainer.model.save_pretrained(tmp)
            tokenizer.save_pretrained(tmp)
    if not keep_checkpoints:
        shutil.rmtree(checkpoints, ignore_errors=True)
    import torch
    import transformers

    record = {**record, "seed": seed, "order_seed": order_seed, "epochs": epochs,
              "batch_size": batch_size, "learning_rate": learning_rate,
              "n_parameters": sum(p.numel() for p in trainer.model.parameters()),
              "steps": result.global_step, "train_loss": result.training_loss,
              "train_seconds": round(result.metrics["train_runtime"], 1),
              "resumed": resume, "device": device, "dtype": dtype,
              "torch": torch.__version__, "transformers": transformers.__version__,
              "checkpoints": sorted((p.name for p in checkpoints.glob("checkpoint-*")),
                                    key=lambda name: int(name.split("-")[1]))}
    write_text(out / RECORD, json.dumps(record, indent=1))
    return out


def _whole_checkpoints(checkpoints: Path) -> bool:
    """Remove the checkpoint folders a kill cut short (``Trainer`` writes them in place,
    ``trainer_state.json`` last); True when a whole one is left to resume from."""
    whole = False
    for folder in checkpoints.glob("checkpoint-*"):
        if (folder / "trainer_state.json").is_file():
            whole = True
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return whole


def train_lm(texts: Sequence[str], out: str | os.PathLike, *, kind: str = "causal",
             tokenizer: Any = None, vocab_size: int = 8192, size: dict | None = None,
             epochs: float = 5, batch_size: int = 16, learning_rate: float = 1e-3,
             seed: int = 0, save_steps: int | None = None, device: str | None = None,
             dtype: str | None = None, progress: bool | None = None) -> Path:
    """Train a small causal (GPT-2) or masked (RoBERTa) LM from scratch on ``texts`` and save it in ``out``.

    As for BLiMP §6.3's learning curves. Texts are packed whole into blocks (`pack`);
    masked models learn with BERT's 15% masking. A finished ``out`` is returned as it is;
    an interrupted one resumes from its last checkpoint, a causal model to the very
    weights of an uninterrupted run (a masked one draws other masks from there on).

    Parameters
    ----------
    texts : sequence of str
        The training corpus (blank texts are dropped).
    out : str or os.PathLike
        The model folder; ``training.json`` there records how it was made.
    kind : {"causal", "masked"}, default "causal"
        GPT-2 or RoBERTa (BabyBERTa's architecture).
    tokenizer, vocab_size : transformers tokenizer, int, optional
        Default: a tokenizer of ``vocab_size`` (8192) trained on ``texts``
        ([train_tokenizer][acceptability.scoring.training.train_tokenizer]).
    size : dict, optional
        Overrides of `SMALL` (``hidden_size``, ``layers``, ``heads``,
        ``intermediate_size``, ``max_length``).
    epochs, batch_size, learning_rate : float, int, float
        Training epochs (5), blocks per batch (16) and peak learning rate (1e-3, after
        a 10% warm-up).
    seed : int, default 0
        Seeds the initialisation and the training order.
    save_steps : int, optional
        Keep a checkpoint every so many steps, each a model folder `scoring.score` reads
        (learning curves over training); None: one per epoch, removed at the end.
    device, dtype, progress : optional
        Where to train (default the best device), ``"float32"`` or ``"bfloat16"``
        (default bfloat16 mixed precision where native), and whether to show progress.

    Returns
    -------
    pathlib.Path
        ``out``, a model folder that `scoring.score` reads.

    Raises
    ------
    ScoringError
        For an unknown kind or size setting, an empty corpus, a text longer than a block,
        or an ``out`` holding a run of other settings.

    Examples
    --------
    Skipped when the docstrings are tested: it trains a model (about 30 s on a CPU).

    >>> from acceptability.scoring.training import train_lm
    >>> tiny = dict(hidden_size=16, layers=1, heads=2, intermediate_size=32, max_length=32)
    >>> folder = train_lm(["the dog runs .", "a cat sleeps ."] * 8, "tiny-lm", vocab_size=300,
    ...                   size=tiny, epochs=1, batch_size=4)  # doctest: +SKIP
    >>> (folder / "training.json").is_file()  # doctest: +SKIP
    True
    """
    check_kind(kind)
    out = Path(out)
    texts = [t for t in texts if t.strip()]
    if not texts:
        raise ScoringError("the training corpus is empty (no non-blank texts); give texts "
                           "to train on, e.g. data.load_childes()['text']")
    settings = {"kind": kind, "texts_sha256": texts_checksum(texts),
                "tokenizer": tokenizer.name_or_path if tokenizer else vocab_size,
                "size": size or {}, "epochs": epochs, "batch_size": batch_size,
                "learning_rate": learning_rate, "seed": seed, "save_steps": save_steps,
                "dtype": dtype}
    if claim(out, settings):
        return out
    tokenizer = tokenizer or train_tokenizer(texts, kind, vocab_size)
    model, examples, collator, record = _new_lm(texts, kind, tokenizer, size, seed)
    return _run(model, tokenizer, examples, collator, out, record=record, seed=seed,
                order_seed=seed, epochs=epochs, batch_size=batch_size,
                learning_rate=learning_rate, save_steps=save_steps,
                keep_checkpoints=save_steps is not None, device=device, dtype=dtype,
                progress=progress)


def _new_lm(texts: list[str], kind: str, tokenizer: Any, size: dict | None,
            seed: int) -> tuple[Any, list[dict], Any, dict]:
    """A freshly initialised (``seed``) LM of ``kind``, the packed training blocks, their
    collator and the training record's description of the run."""
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForMaskedLM,
        DataCollatorForLanguageModeling,
        set_seed,
    )

    config = lm_config(kind, tokenizer, **(size or {}))
    max_length = config.n_positions if kind == "causal" else (
        config.max_position_embeddings - tokenizer.pad_token_id - 1)
    examples = pack(tokenizer, texts, kind, max_length)
    set_seed(seed)
    auto = AutoModelForCausalLM if kind == "causal" else AutoModelForMaskedLM
    model = auto.from_config(config)
    if kind == "causal":  # GPT2LMHeadModel's loss by name, else transformers warns it guessed
        model.loss_type = "ForCausalLM"
    # every batch max_length wide: one shape, so oneDNN reuses its kernels (blocks are near full)
    collator = DataCollatorForLanguageModeling(tokenizer, mlm=kind == "masked",
                                               pad_to_multiple_of=max_length)
    record = {"task": f"{kind} language model from scratch", "n_texts": len(texts),
              "n_words": sum(len(t.split()) for t in texts),
              "n_tokens": sum(len(e["input_ids"]) for e in examples), "n_blocks": len(examples),
              "texts_sha256": texts_checksum(texts), "config": config.to_diff_dict()}
    return model, examples, collator, record

def labelled(sentences: Any, what: str) -> pd.DataFrame:
    """``text`` and 0/1 ``label`` of a Dataset or sentences table; unlabelled rows are set
    aside (counted in ``attrs["set_aside"]``); a single class is an error."""
    frame = sentences.sentences if hasattr(sentences, "sentences") else sentences
    missing = {"text", "label"} - set(frame.columns)
    if missing:
        raise ScoringError(f"{what} lacks column(s) {sorted(missing)}; it needs text and label")
    keep = frame["label"].notna()
    out = frame.loc[keep, ["text", "label"]].reset_index(drop=True)
    bad = out[~out["label"].isin([0, 1])]
    if len(bad):
        raise ScoringError(f"{what}: labels must be 0 or 1; found {bad['label'].iloc[0]!r}")
    classes = sorted(out["label"].astype(int).unique())
    if len(classes) < 2:
        only = f"only label {classes[0]}" if classes else "no labelled sentences"
        raise ScoringError(
            f"{what} has {only} ({len(out)} sentences): a classifier needs acceptable (1) "
            "and unacceptable (0) examples; check the split or the label column")
    out.attrs["set_aside"] = int((~keep).sum())
    return out


@contextmanager
def quiet_load_report() -> Iterator[None]:
    """transformers' load report (newly initialised head weights, expected here) silenced."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)


def classifier_model(model: str, seed: int):
    """`model` (hub id or folder) with a freshly initialised 2-label classification head
    (or its own, if it already is a binary classifier) and its tokenizer."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer, set_seed

    config = load_config(model)
    labels = getattr(config, "num_labels", 2)
    if any(a.endswith("ForSequenceClassification") for a in config.architectures or []) \
            and labels != 2:
        raise ScoringError(f"model {model!r} is a classifier with {labels} labels; "
                           "acceptability fine-tuning needs 2 (start from its base model)")
    set_seed(seed)  # the head's initialisation
    with hf_progress_quiet(), quiet_load_report():
        try:
            net = AutoModelForSequenceClassification.from_pretrained(model, num_labels=2)
        except ValueError as err:
            raise ScoringError(
                f"model {model!r} ({type(config).__name__}) has no sequence-classification "
                "head in transformers, so it cannot be fine-tuned to judge acceptability; "
                f"start from a text encoder or decoder such as BERT or GPT-2 "
                f"({str(err).splitlines()[0][:120]})") from None
        tokenizer = AutoTokenizer.from_pretrained(model)
    if tokenizer.pad_token is None:  # GPT-2 style: pad with EOS, which the head then skips
        tokenizer.pad_token = tokenizer.eos_token
    net.config.pad_token_id = tokenizer.pad_token_id
    return net, tokenizer


def finetune(model: str, train: Any, out: str | os.PathLike, *, seed: int = 0,
             order_seed: int | None = None, epochs: float = 3, batch_size: int = 32,
             learning_rate: float = 2e-5, max_length: int = 512, device: str | None = None,
             dtype: str | None = None, progress: bool | None = None) -> Path:
    """Fine-tune ``model`` as a binary acceptability classifier, as thesis §2.2 / Warstadt & Bowman 2019 did with BERT on CoLA.

    Parameters
    ----------
    model : str
        A hub id or a local model folder.
    train : Dataset or pandas.DataFrame
        ``text`` and 0/1 ``label`` (e.g. CoLA's ``in_domain_train``); unlabelled rows
        are set aside.
    out : str or os.PathLike
        The model folder; ``training.json`` there records how it was made.
    seed : int, default 0
        Initialises the classification head and dropout.
    order_seed : int, optional
        Shuffles the training order; default ``seed``.
    epochs : float, default 3
        Training epochs.
    batch_size : int, default 32
        Sentences per batch.
    learning_rate : float, default 2e-5
        Peak learning rate.
    max_length : int, default 512
        The longest text in tokens (a longer one is an error).
    device, dtype, progress : optional
        As for [train_lm][acceptability.scoring.training.train_lm]: where to train,
        ``"float32"`` or ``"bfloat16"``, and whether to show a progress bar.

    Returns
    -------
    pathlib.Path
        ``out``, the folder that ``scoring.score(..., method="classifier")`` reads
        (label 1 = acceptable).

    Raises
    ------
    ScoringError
        For labels other than 0/1, a single class, a model with no classification head,
        or an ``out`` holding a run of other settings.

    Examples
    --------
    Skipped when the docstrings are tested: it downloads BERT and trains for minutes.

    >>> from acceptability.data import load_cola
    >>> from acceptability.scoring.training import finetune
    >>> train = load_cola(split="in_domain_train")  # doctest: +SKIP
    >>> folder = finetune("bert-base-uncased", train, "bert-cola", seed=1)  # doctest: +SKIP
    """
    from transformers import DataCollatorWithPadding

    out = Path(out)
    data = labelled(train, "training split")
    order_seed = seed if order_seed is None else order_seed
    pairs = [f"{int(y)}\t{t}" for t, y in zip(data["text"], data["label"], strict=True)]
    settings = {"base_model": str(model), "labelled_texts_sha256": texts_checksum(pairs),
                "seed": seed,
                "order_seed": order_seed, "epochs": epochs, "batch_size": batch_size,
                "learning_rate": learning_rate, "max_length": max_length, "dtype": dtype}
    if claim(out, settings):
        return out
    net, tokenizer = classifier_model(model, seed)
    examples = _encode(tokenizer, list(data["text"]), min(max_length, max_tokens(net, tokenizer)),
                       labels=list(data["label"]))
    record = {"task": "binary acceptability classifier", "base_model": str(model),
              "n_texts": len(data), "set_aside_unlabelled": data.attrs["set_aside"],
              "texts_sha256": texts_checksum(list(data["text"]))}
    return _run(net, tokenizer, examples, DataCollatorWithPadding(tokenizer), out,
                record=record, seed=seed, order_seed=order_seed,
                epochs=epochs, batch_size=batch_size, learning_rate=learning_rate,
                save_steps=None, keep_checkpoints=False, device=device, dtype=dtype,
                progress=progress)
