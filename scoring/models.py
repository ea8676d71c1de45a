"""Load Hugging Face models by hub id or local directory; pick device and dtype; model identity."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acceptability._warnings import warn
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.prepack import prepack_linears
from acceptability.scoring.progress import hf_progress_quiet
from acceptability.scoring.registry import methods_of_kind

# Which model heads each kind of scoring needs, by the suffix of the config's architecture name.
HEAD_SUFFIXES = {
    "causal": ("ForCausalLM", "LMHeadModel"),
    "masked": ("ForMaskedLM", "ForPreTraining"),
    "classifier": ("ForSequenceClassification",),
    "seq2seq": ("ForConditionalGeneration", "MTModel"),  # T5, BART; Marian's MarianMTModel
}


@dataclass
class LanguageModel:
    """A loaded transformer with its tokenizer; `identity` keys the score cache.

    `source` says which weights these are, for provenance: "dir:<sha256 of the folder's
    files>" for a local folder, "hub:<id>@<commit>" for a hub model. `trust_remote_code`:
    the model runs code of its own (`load_model`).
    """

    name: str
    kind: str
    model: Any
    tokenizer: Any
    device: str
    identity: str
    max_length: int
    source: str = ""
    head_fp32: Any = None  # the output layer's float32 (weight, bias) when the model runs in bfloat16
    trust_remote_code: bool = False


def pick_device(device: str | None = None) -> str:
    """`device` if given, else cuda, then mps, then cpu."""
    if device:
        return device
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if torch.backends.mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(dtype: Any = None):
    """float32 unless told otherwise (scores then match across devices and batch sizes)."""
    import torch

    if dtype is None:
        return torch.float32
    if isinstance(dtype, str):
        try:
            return getattr(torch, dtype)
        except AttributeError:
            raise ScoringError(f"unknown dtype {dtype!r}; use e.g. 'float32' or 'bfloat16'") from None
    return dtype


def directory_hash(path: Path) -> str:
    """sha256 over every file (name and bytes) of a local model directory: weights, config, tokenizer."""
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith(".")):
        digest.update(str(file.relative_to(path)).encode())
        with file.open("rb") as fh:
            while chunk := fh.read(1 << 20):
                digest.update(chunk)
    return digest.hexdigest()


def hub_commit(name: str, revision: str | None) -> str:
    """The commit a hub id resolved to (from the snapshot path in the HF cache), else the revision."""
    from transformers.utils import cached_file

    path = cached_file(name, "config.json", revision=revision)
    match = re.search(r"snapshots[/\\]([0-9a-f]{40})", str(path))
    return match.group(1) if match else revision or "main"


def model_kind(config: Any) -> str | None:
    """'causal', 'masked', 'seq2seq' or 'classifier' from the config's architectures (None if
    unknown). An encoder-decoder config's LM head is 'seq2seq' whatever its name (t5-small's
    config names T5WithLMHeadModel); a decoder-only XForConditionalGeneration (a
    vision-language model) is none of these."""
    encoder_decoder = bool(getattr(config, "is_encoder_decoder", False))
    for arch in config.architectures or []:
        for kind, suffixes in HEAD_SUFFIXES.items():
            if not arch.endswith(suffixes):
                continue
            if kind in ("causal", "seq2seq") and encoder_decoder:
                return "seq2seq"
            if kind != "seq2seq":
                return kind
    return None


def looks_local(name: str) -> bool:
    """True when `name` means a folder on this machine, not a hub id ("gpt2", "org/name"):
    it exists, starts with '.', '/' or '~', holds a backslash or more than one '/', or
    its parent folder exists (e.g. "models/gpt2-tiny" where "models" is a folder)."""
    path = Path(name).expanduser()
    return (path.exists() or name.startswith((".", "/", "~")) or "\\" in name
            or name.count("/") > 1 or (len(path.parts) > 1 and path.parent.is_dir()))


def check_local(name: str) -> None:
    """A ScoringError, before any hub request, when `name` looks like a local path
    (`looks_local`) but is no folder: a misspelt path must not go to the hub."""
    path = Path(name).expanduser()
    if looks_local(name) and not path.is_dir():
        what = "is a file, not a model folder" if path.exists() else "does not exist"
        raise ScoringError(
            f"model folder {name!r} {what} ({path.resolve()}). Check the path (a folder "
            "saved with save_pretrained()); a hub id looks like 'gpt2' or 'org/name'."
        )


def load_config(name: str, revision: str | None = None, trust_remote_code: bool = False):
    """The model's config, or one clear ScoringError: the model needs code of its own
    (`trust_remote_code`), a folder's config cannot be read, or `name` is no hub id."""
    check_local(name)
    from transformers import AutoConfig

    try:
        # always passed: left out, transformers asks on a terminal whether to run the code
        return AutoConfig.from_pretrained(name, revision=revision,
                                          trust_remote_code=trust_remote_code)
    except (OSError, ValueError) as err:
        raise _config_error(name, err) from None


def _config_error(name: str, err: Exception) -> ScoringError:
    """What went wrong loading the config of `name`, and how to fix it."""
    first_line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if "trust_remote_code" in str(err):
        return ScoringError(
            f"model {name!r} needs code of its own to load (its config.json names Python "
            "classes in 'auto_map'), which runs only with trust_remote_code. Read that code "
            f"({_code_place(name)}); if you trust it, pass trust_remote_code=True (scoring."
            "score, scoring.load_model) or --trust-remote-code (acceptability score, run)."
        )
    if Path(name).expanduser().is_dir():
        return ScoringError(
            f"cannot load model folder {name!r}: its config cannot be read ({first_line}). "
            "Pass a folder saved with save_pretrained() (config.json, weights, tokenizer)."
        )
    return ScoringError(
        f"cannot load model {name!r}: it is not a local model directory and could not be "
        f"fetched from the Hugging Face hub ({first_line}). Check the spelling, pass a "
        "directory saved with save_pretrained(), or download the model while online."
    )


def _code_place(name: str) -> str:
    """Where a model's own code is: the .py files of its folder, or its hub repository."""
    path = Path(name).expanduser()
    return (f"the .py files of folder {str(path.resolve())!r}" if path.is_dir()
            else f"the .py files of hub repository {name!r}")


def max_tokens(model: Any, tokenizer: Any) -> int:
    """The most tokens (special ones included) `model` takes: its position embeddings
    (RoBERTa-style ones number positions from padding_idx + 1, so that many fewer fit) and
    the tokenizer's limit."""
    config = model.config
    offset = getattr(getattr(model.base_model, "embeddings", None), "padding_idx", None)
    offset = offset + 1 if isinstance(offset, int) else 0
    limits = [
        getattr(config, attr, 0) - offset for attr in ("max_position_embeddings", "n_positions")
    ] + [tokenizer.model_max_length]
    # none (T5's relative positions, a tokenizer without a limit): memory is the limit
    return min((v for v in limits if isinstance(v, int) and 0 < v < 1_000_000), default=1_000_000)


def check_kind(name: str, kind: str, config: Any) -> None:
    """A ScoringError unless the config's architecture is a `kind` model, naming the
    methods (`registry.methods_of_kind`) the model it is would serve."""
    actual = model_kind(config)
    if actual == kind:
        return
    hint = (
        f"use method {' or '.join(map(repr, methods_of_kind(actual)))}"
        if actual
        else "its config lists no architecture scoring knows"
    )
    raise ScoringError(
        f"model {name!r} ({', '.join(config.architectures or ['no architecture'])}) is not a "
        f"{kind} model ({' / '.join(HEAD_SUFFIXES[kind])}), which this method needs; {hint}."
    )


def model_source(name: str, revision: str | None) -> str:
    """Which weights these are: "dir:<sha256 of the folder's files>" or "hub:<id>@<commit>"."""
    local = Path(name).expanduser()
    return f"dir:{directory_hash(local)}" if local.is_dir() else f"hub:{name}@{hub_commit(name, revision)}"


def _from_pretrained(name: str, kind: str, config: Any, revision: str | None,
                     trust_remote_code: bool) -> tuple[Any, Any]:
    """The model (in float32) and its tokenizer, without transformers' progress bars."""
    import torch
    from transformers import (
        AutoModelForCausalLM,
        AutoModelForMaskedLM,
        AutoModelForSeq2SeqLM,
        AutoModelForSequenceClassification,
        AutoTokenizer,
    )

    auto = {
        "causal": AutoModelForCausalLM,
        "masked": AutoModelForMaskedLM,
        "classifier": AutoModelForSequenceClassification,
        "seq2seq": AutoModelForSeq2SeqLM,
    }[kind]
    # GPT-2's "gelu_new" is the tanh approximation of GELU written as five tensor operations;
    # transformers' "gelu_pytorch_tanh" is the same function as one fused kernel (equal up to
    # float rounding, ~1e-7); the five operations took ~15% of a GPT-2 forward pass on CPU here.
    fast_gelu = {"activation_function": "gelu_pytorch_tanh"}
    overrides = fast_gelu if getattr(config, "activation_function", None) == "gelu_new" else {}
    with hf_progress_quiet():  # transformers' bars would flood a log file
        model = auto.from_pretrained(name, revision=revision, dtype=torch.float32,
                                     trust_remote_code=trust_remote_code, **overrides)
        tokenizer = AutoTokenizer.from_pretrained(name, revision=revision,
                                                  trust_remote_code=trust_remote_code)
    return model, tokenizer


def _load_checked(name: str, kind: str, revision: str | None,
                  trust_remote_code: bool) -> tuple[Any, Any]:
    """The model and tokenizer of `name` once its config says it is a `kind` model; with
    `trust_remote_code`, a warning first on whose code runs."""
    if trust_remote_code:
        warn(f"trust_remote_code: model {name!r} runs the code of {_code_place(name)}")
    config = load_config(name, revision, trust_remote_code)
    check_kind(name, kind, config)
    return _from_pretrained(name, kind, config, revision, trust_remote_code)


def _float32_head(model: Any, device: str) -> tuple | None:
    """The output layer's float32 (weight, bias) on `device`, kept when the model runs in
    another dtype for exact target and top logits (`batches.target_logprobs`)."""
    if (head := model.get_output_embeddings()) is None:
        return None
    bias = getattr(head, "bias", None)
    return tuple(t.detach().clone().to(device) if t is not None else None for t in (head.weight, bias))


def load_model(
    name: str,
    kind: str,
    *,
    device: str | None = None,
    dtype: Any = None,
    revision: str | None = None,
    prepack: bool = True,
    trust_remote_code: bool = False,
) -> LanguageModel:
    """Load `name` (hub id or directory) through `from_pretrained` as a causal, masked,
    encoder-decoder (seq2seq) or classifier model.

    On the CPU in float32 or bfloat16 the linear layers run through oneDNN with packed
    weights (`prepack`, see `scoring.prepack`): faster, same scores, about twice the memory
    for the linear weights. In another dtype (bfloat16) the weights are read in float32 and
    cast, and the output layer's float32 weights are kept to compute the logits a score
    reads exactly (`batches.target_logprobs`).

    Parameters
    ----------
    name : str
        A hub id ("gpt2", "org/name") or a folder saved with `save_pretrained`.
    kind : {"causal", "masked", "seq2seq", "classifier"}
        The head the scoring method needs (`scoring.registry.REGISTRY`).
    device : str, optional
        cuda, then mps, then cpu unless given.
    dtype : str or torch.dtype, optional
        float32 unless given.
    revision : str, optional
        The hub branch, tag or commit.
    prepack : bool
        Pack the linear layers' weights for oneDNN on the CPU.
    trust_remote_code : bool
        Let a model whose config names classes of its own (``auto_map``) run their Python
        code (off: such a model is refused, saying so). Read the code first; a warning
        says where it comes from. Part of the model's identity (the score cache's key).

    Returns
    -------
    LanguageModel
        The model, its tokenizer and its identity (the score cache's key).

    Examples
    --------
    A misspelt folder fails before anything is loaded (a real model needs transformers):

    >>> from acceptability import scoring
    >>> scoring.load_model("./no/such/model", "causal")
    Traceback (most recent call last):
    ...
    acceptability.scoring.errors.ScoringError: model folder './no/such/model' does not exist ...
    """
    check_local(name)  # before the slow imports
    import torch

    if kind not in HEAD_SUFFIXES:
        raise ScoringError(f"unknown model kind {kind!r}; use one of {sorted(HEAD_SUFFIXES)}")
    torch_dtype = pick_dtype(dtype)
    device = pick_device(device)
    model, tokenizer = _load_checked(name, kind, revision, trust_remote_code)
    head_fp32 = _float32_head(model, device) if torch_dtype != torch.float32 else None
    model = model.to(device=device, dtype=torch_dtype).eval()
    if prepack and device == "cpu":
        prepack_linears(model)
    if not tokenizer.is_fast:
        raise ScoringError(f"model {name!r} has no fast tokenizer; scoring needs token offsets")
    source = model_source(name, revision)
    return LanguageModel(
        name=name,
        kind=kind,
        model=model,
        tokenizer=tokenizer,
        device=device,
        identity=f"{source}|{kind}|{torch_dtype}" + ("|trust_remote_code" if trust_remote_code else ""),
        max_length=max_tokens(model, tokenizer),
        source=source,
        head_fp32=head_fp32,
        trust_remote_code=trust_remote_code,
    )
