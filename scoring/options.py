"""The settings of one scoring run, built once by `scoring.score`, `scoring.token_scores` and
`scoring.prefix_scores` from their keyword arguments and passed down whole."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acceptability.scoring.errors import ScoringError

if TYPE_CHECKING:
    from acceptability.scoring.baselines.ngram import UnigramModel
    from acceptability.scoring.run.cache import ScoreCache


@dataclass(frozen=True)
class ScoringOptions:
    """Which model scores how: every setting of `scoring.score` and `scoring.token_scores`.

    Build one to reuse settings across calls (``score(ds, options=opts)``); keyword
    arguments given beside it take precedence (``score(ds, "gpt2", options=opts)``).

    Parameters
    ----------
    model : str, path, LanguageModel, n-gram model or None
        Hub id or local directory (loaded with `from_pretrained`), a `load_model()` result,
        or for method "ngram" a `train_ngram()` model or an ARPA file path. None here means
        the call gives it.
    method : str or None
        A name of `scoring.registry.REGISTRY`; None: the function's default ("logprob" for
        `score` and `token_scores`, "one_prefix" for `prefix_scores`).
    normalise : {None, "mean", "slor", "normlp", "penlp", "chars", "bytes"}
        Lau et al. (2017, 2020) normalisation of `score` (`scoring.normalise`); "slor" and
        "normlp" need `unigram`; "chars" and "bytes" divide by the sentence's characters or
        UTF-8 bytes (lm-evaluation-harness's ``acc_norm`` and ``acc_bytes``).
    unigram : UnigramModel or None
        The unigram model of SLOR and NormLP.
    batch_size : int
        Sentences per forward pass where passes are not filled by tokens (`batch_tokens`).
    batch_tokens : int or None
        Tokens per forward pass, padding and masked copies included: sentences are sorted
        by length and grouped until the next would pass it (`scoring.run.batches`). None: on an
        accelerator DEVICE_TOKENS_PER_PASS; on the CPU, masked and encoder-decoder PLL fill
        CPU passes by tokens and the other methods take `batch_size` sentences.
    device : str or None
        cuda, then mps, then cpu unless given.
    device_map : str, dict or None
        Spread a model too large for one device over several (GPUs, the CPU, the disk):
        "auto" or a map of module names to devices, passed to transformers'
        `from_pretrained` (`load_model`); not with `device`. The scores do not depend on
        where each part runs (beyond float rounding), so neither does the cache.
    max_memory : dict, str or None
        With `device_map`: the most each device may hold, e.g.
        ``{0: "70GiB", 1: "70GiB", "cpu": "200GiB"}`` or the text "0=70GiB,cpu=200GiB"
        (`parse_max_memory`); kept with the device names as text, so the options travel as
        JSON to distributed workers.
    dtype : str, torch.dtype or None
        float32 unless given (e.g. "bfloat16").
    revision : str or None
        The hub revision (branch, tag or commit) of a hub id.
    start_token : str or None
        What a causal LM's first token is conditioned on (`backends.causal.start_token`):
        "auto" (BOS, or end-of-text where the tokenizer has no BOS or its BOS opens a chat
        turn), "bos", "eos" (end-of-text, as GPT-2 and lm-eval-harness), a token of the
        vocabulary, or None (no start token: the first token is not scored). Part of the
        cache key and of the scores table (column `start_token`).
    acceptable_label : int
        The classifier's label for acceptable (CoLA: 1).
    text_column : str
        The sentences table's column to score (e.g. POS tags for a tag n-gram model).
    target_delimiter : str
        Text scored before each sentence as part of it, lm-evaluation-harness's
        ``target_delimiter`` of a ``multiple_choice`` task: BLiMP's default " " scores
        log P(" " + s | START) as lm-eval's ``acc`` does; its TurBLiMP, MultiBLiMP and
        BLiMP-NL tasks set "". Never counted by "chars" and "bytes" (`scoring.score`).
    model_name : str or None
        The `model` column of the result; default "<model>_<method>" (`score`).
    cache : bool, str, path or ScoreCache
        True: $ACCEPTABILITY_CACHE_DIR or ~/.cache/acceptability; a directory; False: none.
    progress : bool
        A progress bar on a terminal or in a notebook.
    client : dask.distributed.Client or None
        Score in shards on its workers (`scoring.run.distributed`).
    recheck : bool
        Rescore bfloat16's too-close-to-call pairs in float32 (`scoring.run.recheck`).
    trust_remote_code : bool
        Let a model that needs code of its own (its config's ``auto_map``) run it
        (`load_model`); off, such a model is refused, saying so.
    word_boundaries : bool
        Causal LMs: also read, at each token and after the last, the log-probability that
        the next token leaves a whole word before it (`Scored.boundary`); set by
        `scoring.word_scores(boundary="corrected")`, cached apart from plain scores.

    Examples
    --------
    >>> from acceptability.scoring import ScoringOptions
    >>> opts = ScoringOptions(method="pll", batch_size=8, cache=False)
    >>> opts.batch_size, opts.model is None
    (8, True)
    """

    model: Any = None
    method: str | None = None
    normalise: str | None = None
    unigram: UnigramModel | None = None
    batch_size: int = 16
    batch_tokens: int | None = None
    device: str | None = None
    device_map: str | dict | None = None
    max_memory: dict | str | None = None
    dtype: Any = None
    revision: str | None = None
    start_token: str | None = "auto"
    acceptable_label: int = 1
    text_column: str = "text"
    target_delimiter: str = ""
    model_name: str | None = None
    cache: bool | str | Path | ScoreCache = True
    progress: bool = True
    client: Any = None
    recheck: bool = False
    trust_remote_code: bool = False
    word_boundaries: bool = False

    def __post_init__(self) -> None:
        if self.max_memory is not None:  # text keys: json.dumps(sort_keys=True) of a worker spec
            memory = {str(k): v for k, v in parse_max_memory(self.max_memory).items()}
            object.__setattr__(self, "max_memory", memory)


FIELDS = tuple(f.name for f in fields(ScoringOptions))
DEFAULTS = ScoringOptions()
#: What a worker needs to build the same scorer (`runner.make_scorer`), besides the model.
SCORER_FIELDS = ("method", "batch_tokens", "device", "device_map", "max_memory", "dtype", "revision",
                 "start_token", "acceptable_label", "trust_remote_code", "word_boundaries")


def resolve(
    options: ScoringOptions | None,
    model: Any,
    method: str | None,
    settings: dict[str, Any],
    default_method: str,
) -> ScoringOptions:
    """The options of one call: `options` (or the defaults), then the call's `model`,
    `method` and keyword `settings` on top; the method defaults to `default_method`.

    An unknown setting is a TypeError, as an unknown keyword argument was before."""
    unknown = sorted(set(settings) - set(FIELDS))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s) {unknown}; the settings are {list(FIELDS)}")
    given = {**settings, **{k: v for k, v in (("model", model), ("method", method)) if v is not None}}
    out = replace(options or DEFAULTS, **given)
    if out.model is None:
        raise ScoringError("no model given: pass a hub id, a model folder or a loaded model")
    return out if out.method is not None else replace(out, method=default_method)


def refuse(options: ScoringOptions, names: tuple[str, ...], what: str) -> None:
    """A ScoringError when a setting `what` does not use differs from its default."""
    used = [n for n in names if getattr(options, n) != getattr(DEFAULTS, n)]
    if used:
        raise ScoringError(f"{what} does not take {', '.join(used)}; leave them out")


#: The devices `max_memory` names besides GPU indices (accelerate's `get_max_memory`).
MEMORY_DEVICES = ("cpu", "mps", "disk")
# A size as accelerate's `convert_file_size_to_int` reads it: bytes, or a number and a unit.
MEMORY_SIZE = re.compile(r"\d+(\.\d+)?\s*([KMG]i?B)?", re.IGNORECASE)
MEMORY_FIX = ("write device=size pairs separated by commas, e.g. '0=70GiB,1=70GiB,cpu=200GiB' "
              "(devices: GPU indices, cpu, mps, disk; sizes: bytes, or a number with GiB, MiB, "
              "KiB, GB, MB or KB)")


def parse_max_memory(value: dict | str) -> dict[int | str, int | str]:
    """The most each device may hold, as transformers' `from_pretrained(max_memory=)` takes
    it: GPU indices as ints ("0" and "cuda:0" become 0), "cpu", "mps" and "disk" as they
    are, sizes in bytes or as text ("70GiB"). Text is comma-separated device=size pairs.

    Examples
    --------
    >>> from acceptability.scoring.options import parse_max_memory
    >>> parse_max_memory("0=70GiB, 1=70GiB, cpu=200GiB")
    {0: '70GiB', 1: '70GiB', 'cpu': '200GiB'}
    >>> parse_max_memory({"cuda:1": "1000000", "disk": "2.5 GB"})
    {1: 1000000, 'disk': '2.5GB'}
    >>> parse_max_memory("gpu0=70GiB")
    Traceback (most recent call last):
    ...
    acceptability.scoring.errors.ScoringError: max_memory 'gpu0=70GiB': unknown device 'gpu0'; ...
    """
    if isinstance(value, dict):
        pairs = list(value.items())
    elif isinstance(value, str):
        parts = [p for p in value.split(",") if p.strip()]
        if any("=" not in p for p in parts):
            raise ScoringError(f"max_memory {value!r}: a part without '='; {MEMORY_FIX}")
        pairs = [tuple(p.split("=", 1)) for p in parts]
    else:
        raise ScoringError(f"max_memory must be a dict or text, got {type(value).__name__}; {MEMORY_FIX}")
    if not pairs:
        raise ScoringError(f"max_memory {value!r} names no device; {MEMORY_FIX}")
    return {_memory_device(k, value): _memory_size(v, value) for k, v in pairs}


def _memory_device(key: int | str, whole: dict | str) -> int | str:
    """A GPU index as an int, or one of MEMORY_DEVICES."""
    name = str(key).strip().lower()
    index = name.removeprefix("cuda:")
    if isinstance(key, int) and key >= 0 or index.isdigit():
        return int(index)
    if name in MEMORY_DEVICES:
        return name
    raise ScoringError(f"max_memory {whole!r}: unknown device {key!r}; {MEMORY_FIX}")


def _memory_size(size: int | str, whole: dict | str) -> int | str:
    """Bytes as an int, or a number and a unit as text without spaces."""
    text = str(size).strip().replace(" ", "")
    if isinstance(size, bool) or not isinstance(size, int | str) or not MEMORY_SIZE.fullmatch(text):
        raise ScoringError(f"max_memory {whole!r}: {size!r} is no size; {MEMORY_FIX}")
    return int(text) if text.isdigit() else text
