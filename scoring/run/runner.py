"""Turn (model, method) into a scorer and run it over texts through the cache, with progress."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel, load_model
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import Method, lookup
from acceptability.scoring.results import Scored
from acceptability.scoring.run.batches import plan_batches, token_budget
from acceptability.scoring.run.cache import ScoreCache, cache_key
from acceptability.scoring.run.claims import CLAIM_SENTENCES, new_owner, score_shared
from acceptability.scoring.run.versions import scorer_version

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

Batches = list[list[int]]  # indices of encoded inputs scored together, in scoring order


@dataclass
class Scorer:
    """How to encode inputs (a list of them, in order: tokenizers encode lists at once), group
    encoded inputs into batches (given a batch size), and score them batch by batch. The
    batches are fixed before any is scored, so a run split across machines
    (scoring.run.distributed) scores exactly the batches one process would."""

    label: str
    method: str
    encode: Callable[[list[Any]], Iterable[Any]]
    batches: Callable[[list[Any], int], Batches]
    run: Callable[[list[Any], Batches], Iterator[tuple[list[int], list[Scored]]]]
    identity: str | None = None  # None: not cached (fast n-gram models)
    options: dict = field(default_factory=dict)
    source: str | None = None  # which weights (LanguageModel.source), for provenance
    version: str = ""  # of the code computing the scores (versions.scorer_version), in their keys


def by_length(lm: LanguageModel, budget: int | None) -> Callable[[list[Any], int], Batches]:
    """Batches of inputs longest first (CausalInput `.ids`, or a classifier's id list):
    `budget` tokens, or without one `batch_size` inputs, at a time (`batches.plan_batches`)."""
    return lambda items, batch_size: plan_batches(
        lm, [len(getattr(it, "ids", it)) for it in items], None, batch_size, budget)


def make_scorer(options: ScoringOptions) -> Scorer:
    """A Scorer for `options.method` with `options.model` (hub id, directory, LanguageModel,
    n-gram model or ARPA path), built by the method's backend (`registry.Method.backend`):
    its module's ``scorer(method, options)``. A prefix method gets the causal `CONTINUATION`
    scorer.

    Causal, masked and seq2seq scorers encode (context, text) pairs (text scored after context, ""
    for none: `scoring.context`); classifier and n-gram scorers encode texts."""
    method = lookup(options.method)
    return import_module(method.backend).scorer(method, options)


def transformer(method: Method, options: ScoringOptions) -> tuple[LanguageModel, int | None]:
    """The transformer of the method's kind (`options.model` if loaded, else loaded from its hub
    id or folder) and its tokens per forward pass (`batches.token_budget`, which checks
    `options.batch_tokens`; the CPU default: batch_size sentences)."""
    lm = _language_model(method, options)
    return lm, token_budget(lm, options.batch_tokens)


def model_scorer(lm: LanguageModel, method: Method, encode: Callable[[list[Any]], Iterable[Any]],
                 batches: Callable[[list[Any], int], Batches],
                 run: Callable[[list[Any], Batches], Iterator[tuple[list[int], list[Scored]]]],
                 settings: dict | None = None, label: str | None = None) -> Scorer:
    """A transformer's Scorer: cached under the model's identity with the versions of the code
    computing `method`'s scores (`versions.scorer_version`); `label` names its cache entries
    (default: the method's name)."""
    return Scorer(lm.name, label or method.name, encode, batches, run, lm.identity,
                  settings or {}, source=lm.source, version=scorer_version(method.backend))


def _language_model(method: Method, options: ScoringOptions) -> LanguageModel:
    model, kind = options.model, method.kind
    if isinstance(model, LanguageModel):
        if model.kind != kind:
            raise ScoringError(f"method {method.name!r} needs a {kind} model; {model.name!r} is {model.kind}")
        return model
    if isinstance(model, str | Path):
        return load_model(str(model), kind, device=options.device, dtype=options.dtype,
                          revision=options.revision, trust_remote_code=options.trust_remote_code,
                          device_map=options.device_map, max_memory=options.max_memory)
    raise ScoringError(f"method {method.name!r} needs a model id or directory, got {type(model).__name__}")


def compute(
    scorer: Scorer,
    inputs: Sequence[Any],
    keys: Sequence[str],
    labels: Sequence[str],
    *,
    batch_size: int = 16,
    cache: ScoreCache | None = None,
    progress: bool = True,
    run: Callable[[list[Any], Batches], Iterator[tuple[list[int], list[Scored]]]] | None = None,
) -> list[Scored]:
    """Scores of `inputs`, reading finished ones from `cache` and writing each new batch to it.

    `keys` are the texts the cache is keyed on; `labels` name inputs in error messages. Equal
    keys are computed once. Every batch is committed before the next starts, so a run that is
    killed resumes where it stopped. Scorers sharing a cache split the work (scoring.run.claims;
    with `run` given, all at once: its shards run in parallel). `run` replaces `scorer.run`
    (scoring.run.distributed's shards).
    """
    from tqdm.auto import tqdm

    use_cache = cache is not None and scorer.identity is not None
    full = [
        cache_key(scorer.identity or "", scorer.method, scorer.options, k, scorer.version) for k in keys
    ]
    found = cache.get_many(full) if use_cache else {}
    todo = list({k: i for i, k in enumerate(full) if k not in found}.values())  # once per key
    encoded: list[Any] = []
    try:
        encoded.extend(scorer.encode([inputs[i] for i in todo]))
    except ScoringError as err:  # raised at the input after the last one encoded
        raise ScoringError(f"{labels[todo[len(encoded)]]}: {err}") from None
    todo_keys = [full[i] for i in todo]
    owner = new_owner()
    # disable=None: tqdm draws only on a terminal (and in notebooks), so a log file or a
    # pipe gets no carriage-return redraws
    with tqdm(
        total=len(todo),
        disable=None if progress and todo else True,
        desc=f"{scorer.method} {scorer.label}",
    ) as bar:

        def score(batches: Batches) -> None:
            for batch, results in (run or scorer.run)(encoded, batches):
                new = {todo_keys[b]: r for b, r in zip(batch, results, strict=True)}
                if use_cache:
                    cache.put_many(new, owner)
                found.update(new)
                bar.update(len(batch))

        batches = scorer.batches(encoded, batch_size)
        if use_cache and todo:
            score_shared(cache, owner, todo_keys, batches, found, score, bar.update,
                         CLAIM_SENTENCES if run is None else None)
        else:
            score(batches)
    return [found[k] for k in full]
