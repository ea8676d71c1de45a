"""Load Hugging Face models by hub id or local directory; pick device and dtype; model identity."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acceptability._warnings import warn
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.gguf import file_sha256, gguf_error, gguf_kind, gguf_path, gguf_unpacked
from acceptability.scoring.options import parse_max_memory
from acceptability.scoring.registry import methods_of_kind
from acceptability.scoring.run.prepack import prepack_linears
from acceptability.scoring.run.progress import hf_progress_quiet

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

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
    files>" for a local folder, "gguf:<sha256 of the file>" for a GGUF file (`name` is then
    its path), "hub:<id>@<commit>" for a hub model. `trust_remote_code`:
    the model runs code of its own (`load_model`). `device` is where inputs go;
    `device_map`, for a model loaded with one, says where each of its parts runs (not part
    of `identity`: placement changes scores by float rounding at most).
    """

    name: str
    kind: str
    model: Any
    tokenizer: Any
    device: str
    identity: str
    max_length: int
    source: str = ""
    head_fp32: Any = None  # the output layer's float32 (weight, bias): bfloat16 with the layer on the CPU
    trust_remote_code: bool = False
    device_map: dict | None = None  # where each part runs (`hf_device_map`) when loaded with device_map


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
    methods (`registry.methods_of_kind`) the model it is would serve. A base model
    without a head ("BertModel": a sentence encoder) passes here: loading it names the
    head weights it lacks (`check_loaded`)."""
    actual = model_kind(config)
    archs = config.architectures or []
    if actual == kind or actual is None and archs and all(a.endswith("Model") for a in archs):
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
    """Which weights these are: "dir:<sha256 of the folder's files>", "gguf:<sha256 of the
    file>" (`name` a .gguf file) or "hub:<id>@<commit>"."""
    local = Path(name).expanduser()
    if local.is_file() and local.suffix.lower() == ".gguf":
        return f"gguf:{file_sha256(local.resolve())}"
    return f"dir:{directory_hash(local)}" if local.is_dir() else f"hub:{name}@{hub_commit(name, revision)}"


def _from_pretrained(name: str, kind: str, config: Any, revision: str | None,
                     trust_remote_code: bool, placement: dict | None = None,
                     gguf: Path | None = None) -> tuple[Any, Any]:
    """The model and its tokenizer, without transformers' progress bars: the model in
    float32 on the CPU, or placed and typed by transformers and accelerate as `placement`
    (device_map, dtype, max_memory, offload_folder) says; from GGUF file `gguf` (in folder
    `name`) when given. Weights the checkpoint lacks are an error (`check_loaded`)."""
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
    where = {"gguf_file": gguf.name} if gguf else {}
    model_where = {**where, **gguf_unpacked()} if gguf else {}
    with hf_progress_quiet():  # transformers' bars would flood a log file
        model, info = auto.from_pretrained(
            name, revision=revision, trust_remote_code=trust_remote_code, output_loading_info=True,
            **(placement or {"dtype": torch.float32}), **overrides, **model_where)
        check_loaded(str(gguf or name), kind, info)
        tokenizer = AutoTokenizer.from_pretrained(name, revision=revision,
                                                  trust_remote_code=trust_remote_code, **where)
    return model, tokenizer


def check_loaded(name: str, kind: str, info: dict) -> None:
    """A ScoringError naming the weights that `from_pretrained` reported missing from the
    checkpoint or of the wrong shape (`output_loading_info`): transformers initialises them
    at random, so a masked LM saved without its MLM head (a sentence encoder such as
    all-MiniLM-L6-v2) would score noise that changes between loads."""
    missing = sorted(info.get("missing_keys") or ())
    mismatched = sorted(str(m[0] if isinstance(m, tuple | list) else m)
                        for m in info.get("mismatched_keys") or ())
    if not missing and not mismatched:
        return
    named = [*missing, *mismatched]
    shown = ", ".join(named[:8]) + (f" and {len(named) - 8} more" if len(named) > 8 else "")
    raise ScoringError(
        f"model {name!r} lacks {len(named)} weight(s) of its {kind} model ({shown}): "
        f"{'missing from its checkpoint' if missing else 'of another shape'}, transformers "
        "would initialise them at random and the scores would be noise. Use a checkpoint "
        f"saved with its {' / '.join(HEAD_SUFFIXES[kind])} head (a model trained for this "
        "method), not a base model or sentence encoder.")


def _load_checked(name: str, kind: str, revision: str | None, trust_remote_code: bool,
                  placement: dict | None = None) -> tuple[Any, Any]:
    """The model and tokenizer of `name` once its config says it is a `kind` model; with
    `trust_remote_code`, a warning first on whose code runs."""
    if trust_remote_code:
        warn(f"trust_remote_code: model {name!r} runs the code of {_code_place(name)}")
    config = load_config(name, revision, trust_remote_code)
    check_kind(name, kind, config)
    return _from_pretrained(name, kind, config, revision, trust_remote_code, placement)


def _load_gguf(path: Path, kind: str, revision: str | None,
               placement: dict | None = None) -> tuple[Any, Any]:
    """The model and tokenizer of GGUF file `path`, dequantised to float32 by transformers,
    once its config says it is a `kind` model (`gguf.gguf_kind`)."""
    from transformers import AutoConfig

    if revision is not None:
        raise ScoringError(f"revision={revision!r} names a hub commit; GGUF file {str(path)!r} "
                           "is one set of weights: leave revision out")
    try:
        config = AutoConfig.from_pretrained(str(path.parent), gguf_file=path.name)
        if gguf_kind(config) != kind:
            raise ScoringError(
                f"GGUF file {str(path)!r} holds a {gguf_kind(config)} model ({config.model_type}),"
                f" not the {kind} model this method needs; use method "
                f"{' or '.join(map(repr, methods_of_kind(gguf_kind(config))))}")
        return _from_pretrained(str(path.parent), kind, config, None, False, placement, path)
    except (ImportError, OSError, ValueError, KeyError, RuntimeError) as err:
        if isinstance(err, ScoringError):
            raise
        raise gguf_error(path, err) from None


def _load_weights(name: str, kind: str, revision: str | None, trust_remote_code: bool,
                  placement: dict | None, gguf: Path | None) -> tuple[str, Any, Any]:
    """The name the model goes by, its model and its tokenizer: from GGUF file `gguf`
    (llama.cpp's format, dequantised to float32 by transformers and the ``gguf`` package;
    named by its path, its sha256 in the identity: `scoring.gguf`), else from `name`.
    Weights the checkpoint lacks (a masked LM without its MLM head) are an error naming
    them (`check_loaded`)."""
    if gguf is not None:
        return str(gguf), *_load_gguf(gguf, kind, revision, placement)
    return name, *_load_checked(name, kind, revision, trust_remote_code, placement)


def _placement(device: str | None, device_map: Any, max_memory: Any, offload_folder: Any) -> dict:
    """`from_pretrained`'s device_map, max_memory (`options.parse_max_memory`) and
    offload_folder, {} without a device_map; a ScoringError for settings that clash."""
    if device_map is None:
        if max_memory is not None or offload_folder is not None:
            raise ScoringError("max_memory and offload_folder say where the parts of a model "
                               "spread by device_map go: give device_map too (e.g. 'auto')")
        return {}
    if device:
        raise ScoringError(f"give device={device!r} (the whole model on one device) or "
                           f"device_map={device_map!r} (spread over several), not both")
    extra = {"max_memory": None if max_memory is None else parse_max_memory(max_memory),
             "offload_folder": None if offload_folder is None else str(offload_folder)}
    return {"device_map": device_map, **{k: v for k, v in extra.items() if v is not None}}


def execution_device(module: Any) -> str:
    """Where `module` computes: the execution device of accelerate's hook on it, whose
    weights may wait on the CPU, the disk or 'meta' until a forward pass moves them in;
    else its weights' device.

    Examples
    --------
    >>> import torch
    >>> from acceptability.scoring.models import execution_device
    >>> execution_device(torch.nn.Linear(2, 2, device="meta"))
    'meta'
    """
    import torch

    hook = getattr(module, "_hf_hook", None)
    for part in getattr(hook, "hooks", [hook]):  # a SequentialHook holds several
        where = getattr(part, "execution_device", None)
        if isinstance(where, int):  # accelerate's index of a GPU (or another accelerator)
            return f"{getattr(torch.accelerator.current_accelerator(), 'type', 'cuda')}:{where}"
        if where is not None:
            return str(torch.device(where))
    return str(next(module.parameters()).device)


def input_device(model: Any) -> str:
    """Where a placed model takes its inputs: its input embeddings' execution device,
    else (embeddings offloaded under a parent module's hook) the model's own.

    Examples
    --------
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> from acceptability.scoring.models import input_device
    >>> input_device(GPT2LMHeadModel(GPT2Config(vocab_size=20, n_embd=8, n_layer=1, n_head=2)))
    'cpu'
    """
    where = execution_device(model.get_input_embeddings())
    return where if where != "meta" else execution_device(model)


def _float32_head(model: Any, device: str | None = None) -> tuple | None:
    """The output layer's (weight, bias) in float32, kept when a model runs in another
    dtype (bfloat16) with that layer on the CPU, for exact target and top logits
    (`batches.target_logprobs`). None where the layer runs elsewhere (on `device`, else
    its `execution_device`): on CUDA or MPS a bfloat16 model is plainly bfloat16. A weight
    accelerate offloaded ('meta') is read from its hook's store."""
    import torch

    head = model.get_output_embeddings()
    if head is None or torch.device(device or execution_device(head)).type != "cpu":
        return None
    store = getattr(getattr(head, "_hf_hook", None), "weights_map", None) or {}
    named = {n: getattr(head, n, None) for n in ("weight", "bias")}
    found = [store.get(n, t) if t is not None and t.is_meta else t for n, t in named.items()]
    if found[0] is None or any(t is not None and t.is_meta for t in found):  # nowhere to read it
        return None
    return tuple(t if t is None else t.detach().to(torch.float32, copy=True) for t in found)


def _ready(model: Any, device: str | None, torch_dtype: Any, prepack: bool,
           placed: bool) -> tuple[Any, str, tuple | None]:
    """The model ready to score, where its inputs go, and its float32 head
    (`_float32_head`): as transformers and accelerate `placed` it (never moved, offloaded
    weights wait on 'meta'; never packed), else moved to `device` in `torch_dtype` and, on
    the CPU, packed (`prepack`)."""
    import torch

    fp32 = torch_dtype == torch.float32
    if placed:
        return model.eval(), input_device(model), None if fp32 else _float32_head(model)
    device = pick_device(device)
    head_fp32 = None if fp32 else _float32_head(model, device)
    model = model.to(device=device, dtype=torch_dtype).eval()
    if prepack and device == "cpu":
        prepack_linears(model)
    return model, device, head_fp32


def load_model(
    name: str, kind: str, *, device: str | None = None, dtype: Any = None,
    revision: str | None = None, prepack: bool = True, trust_remote_code: bool = False,
    device_map: str | dict | None = None, max_memory: dict | str | None = None,
    offload_folder: str | Path | None = None, gguf_file: str | None = None,
) -> LanguageModel:
    """Load `name` (hub id, directory or GGUF file: `_load_weights`) through `from_pretrained`
    as a causal, masked, encoder-decoder (seq2seq) or classifier model, on one device or,
    with `device_map`, spread over several (GPUs, then the CPU and the disk) by
    transformers and accelerate.

    On the CPU in float32 or bfloat16 the linear layers run through oneDNN with packed
    weights (`prepack`, see `scoring.run.prepack`): faster, same scores, about twice the memory
    for the linear weights. In bfloat16 the weights are read in float32 and cast; where the
    output layer runs on the CPU its float32 weights are kept (`head_fp32`) for the exact
    logits a score reads (`batches.target_logprobs`); not on CUDA or MPS.

    With `device_map` the weights load directly in `dtype` where the map says; the model
    is never moved nor packed (offloaded weights wait on 'meta' until accelerate's hooks
    move them in), `device` is its input embeddings' execution device, and the map is
    kept in `LanguageModel.device_map`, not in the identity (scores differ by float
    rounding at most). A float32 head is then the bfloat16 weights widened.

    Parameters
    ----------
    name : str
        A hub id ("gpt2"), a folder saved with `save_pretrained`, or a .gguf file.
    kind : {"causal", "masked", "seq2seq", "classifier"}
        The head the scoring method needs (`scoring.registry.REGISTRY`).
    device : str, optional
        cuda, then mps, then cpu unless given; not with `device_map`.
    dtype : str or torch.dtype, optional
        float32 unless given.
    revision : str, optional
        The hub branch, tag or commit.
    prepack : bool
        Pack the linear layers' weights for oneDNN on the CPU (not with `device_map`).
    trust_remote_code : bool
        Let a model whose config names classes of its own (``auto_map``) run their code
        (off: it is refused, saying so); a warning says whose. Part of the identity.
    device_map : str or dict, optional
        "auto" or {module name: device}, as `from_pretrained` takes it.
    max_memory : dict or str, optional
        With `device_map`: ``{0: "70GiB", "cpu": "200GiB"}`` or "0=70GiB,cpu=200GiB".
    offload_folder : str or path, optional
        With `device_map`: where disk-offloaded weights go (safetensors are read in place).
    gguf_file : str, optional
        The GGUF file in folder `name` (or its path as `name`).

    Returns
    -------
    LanguageModel
        The model, its tokenizer and its identity (the score cache's key).

    Examples
    --------
    A misspelt folder fails before anything is loaded:

    >>> from acceptability import scoring
    >>> scoring.load_model("./no/such/model", "causal")
    Traceback (most recent call last):
    ...
    acceptability.scoring.errors.ScoringError: model folder './no/such/model' does not exist ...
    """
    gguf = gguf_path(name, gguf_file) or check_local(name)  # before the slow imports
    if kind not in HEAD_SUFFIXES:
        raise ScoringError(f"unknown model kind {kind!r}; use one of {sorted(HEAD_SUFFIXES)}")
    placement = _placement(device, device_map, max_memory, offload_folder)
    torch_dtype = pick_dtype(dtype)
    placed_as = {**placement, "dtype": torch_dtype} if placement else None
    name, model, tokenizer = _load_weights(name, kind, revision, trust_remote_code, placed_as, gguf)
    if not tokenizer.is_fast:
        raise ScoringError(f"model {name!r} has no fast tokenizer; scoring needs token offsets")
    model, device, head_fp32 = _ready(model, device, torch_dtype, prepack, bool(placement))
    source = model_source(name, revision)
    identity = f"{source}|{kind}|{torch_dtype}" + ("|trust_remote_code" if trust_remote_code else "")
    placed = dict(getattr(model, "hf_device_map", None) or {"": device}) if placement else None
    return LanguageModel(name, kind, model, tokenizer, device, identity, max_tokens(model, tokenizer),
                         source=source, head_fp32=head_fp32, trust_remote_code=trust_remote_code,
                         device_map=placed)
