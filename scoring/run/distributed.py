"""One scoring run split across processes or machines with Dask (`dask.distributed`).

Dask rather than Ray: it installs from pure-Python wheels and runs the same code on one
machine (`LocalCluster`), over SSH, or on the SLURM/PBS clusters most labs in this field have
(dask-jobqueue), and it re-runs the task of a worker that dies.

The driver (the process that calls `scoring.score(..., client=...)`) reads the cache, tokenizes,
groups what is left into the batches a single-process run would make (`Scorer.batches`) and
cuts them into shards of whole batches; each worker loads the model once and scores whole
shards, batch by batch as the driver grouped them. Results are written to the driver's cache
as each shard comes back, so a rerun after a crash starts from there.
A shard whose worker dies is scored again elsewhere; a finished shard is never redone.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from acceptability.scoring.errors import ScoringError
from acceptability.scoring.options import SCORER_FIELDS, ScoringOptions
from acceptability.scoring.results import Scored

SHARD_SENTENCES = 256  # sentences per task: large enough to amortise a task, small enough to balance

_WORKER_SCORERS: dict[str, Any] = {}  # scorers already built in this worker process, by spec


def shards(batches: list[list[int]], shard_size: int) -> list[list[list[int]]]:
    """Consecutive whole batches, as many as hold at most `shard_size` inputs (at least one)."""
    parts: list[list[list[int]]] = []
    held = 0
    for batch in batches:
        if parts and held + len(batch) <= shard_size:
            parts[-1].append(batch)
            held += len(batch)
        else:
            parts.append([batch])
            held = len(batch)
    return parts


def score_shard(spec: dict, identity: str, version: str, items: list[Any],
                batches: list[list[int]]) -> list[Scored]:
    """Run on a worker: score `items` in `batches` (indices into `items`) with the model of `spec`.

    The model is loaded once per worker process; a worker whose copy of the model is not the
    driver's (another folder content, another hub commit) refuses rather than mix weights,
    and so does one whose scoring code is another version (`scoring.run.versions`), whose scores
    the driver would cache as its own.
    """
    from acceptability.scoring.run.runner import make_scorer

    key = json.dumps(spec, sort_keys=True)
    if key not in _WORKER_SCORERS:
        _WORKER_SCORERS[key] = make_scorer(ScoringOptions(**spec))
    scorer = _WORKER_SCORERS[key]
    if scorer.identity != identity:
        raise ScoringError(
            f"a worker loaded model {spec['model']!r} as {scorer.identity}, the driver as {identity}; "
            "give every machine the same model folder (or hub revision)"
        )
    if scorer.version != version:
        raise ScoringError(
            f"a worker's scoring code is another version than the driver's ({scorer.version} "
            f"on the worker, {version} on the driver): install the same version of "
            "acceptability on every machine"
        )
    out: list[Scored | None] = [None] * len(items)
    for batch, results in scorer.run(items, batches):
        for b, r in zip(batch, results, strict=True):
            out[b] = r
    return out  # type: ignore[return-value]


def run_shards(
    client: Any, spec: dict, identity: str, version: str, items: list[Any],
    batches: list[list[int]], shard_size: int | None = None,
) -> Iterator[tuple[list[int], list[Scored]]]:
    """Score `items` in `batches` on `client`'s workers: (indices, scores) per shard, as shards
    finish; each worker's model and scoring code must be the driver's (`identity`, `version`)."""
    from distributed import as_completed

    futures = {}
    for n, part in enumerate(shards(batches, shard_size or SHARD_SENTENCES)):
        indices, renumbered = [], []  # the shard's inputs; its batches as indices into them
        for batch in part:
            renumbered.append(list(range(len(indices), len(indices) + len(batch))))
            indices += batch
        future = client.submit(score_shard, spec, identity, version, [items[i] for i in indices], renumbered,
                               key=f"acceptability-shard-{n}-{uuid.uuid4().hex}")
        futures[future] = indices
    try:
        for future in as_completed(futures):
            results = future.result()
            indices = futures.pop(future)
            future.release()
            yield indices, results
    finally:
        client.cancel(list(futures))


def worker_spec(options: ScoringOptions) -> dict:
    """The settings of `options` that build its scorer (`SCORER_FIELDS` and the model), as
    plain values a worker can rebuild the scorer from."""
    from acceptability.scoring.models import LanguageModel

    model, dtype, trust = options.model, options.dtype, options.trust_remote_code
    if isinstance(model, LanguageModel):
        model, dtype = model.name, dtype or model.model.dtype
        trust = trust or model.trust_remote_code
    elif not isinstance(model, str) and not hasattr(model, "__fspath__"):
        raise ScoringError(
            f"scoring with a client needs a model id or folder, not a {type(model).__name__}; "
            "n-gram models are fast enough to score in one process"
        )
    if dtype is not None and not isinstance(dtype, str):
        dtype = str(dtype).removeprefix("torch.")
    return {**{f: getattr(options, f) for f in SCORER_FIELDS}, "model": str(model), "dtype": dtype,
            "trust_remote_code": trust}
