"""One scoring run split across processes or machines with Dask (`dask.distributed`).

Dask rather than Ray: it installs from pure-Python wheels and runs the same code on one
machine (`LocalCluster`), over SSH, or on the SLURM/PBS clusters most labs in this field have
(dask-jobqueue), and it re-runs the task of a worker that dies.

The driver (the process that calls `scoring.score(..., client=...)`) reads the cache, tokenizes,
and cuts what is left into shards of whole length-sorted batches, the batches a single-process
run would make; each worker loads the model once and scores whole shards. Results are written
to the driver's cache as each shard comes back, so a rerun after a crash starts from there.
A shard whose worker dies is scored again elsewhere; a finished shard is never redone.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

from .batches import length_sorted_batches
from .errors import ScoringError
from .results import Scored

SHARD_SENTENCES = 256  # sentences per task: large enough to amortise a task, small enough to balance

_WORKER_SCORERS: dict[str, Any] = {}  # scorers already built in this worker process, by spec


def _length(item: Any) -> int:
    """Tokens of an encoded input (CausalInput / MaskedInput `.ids`, or a classifier's id list)."""
    return len(getattr(item, "ids", item))


def shards(items: list[Any], batch_size: int, shard_size: int) -> list[list[int]]:
    """Indices of `items` in shards of whole batches, in the order a single process scores them."""
    batches = length_sorted_batches([_length(it) for it in items], batch_size)
    per_shard = max(1, shard_size // batch_size)
    return [sum(batches[i : i + per_shard], []) for i in range(0, len(batches), per_shard)]


def score_shard(spec: dict, identity: str, items: list[Any], batch_size: int) -> list[Scored]:
    """Run on a worker: score `items` (already in length order) with the model of `spec`.

    The model is loaded once per worker process; a worker whose copy of the model is not the
    driver's (another folder content, another hub commit) refuses rather than mix weights.
    """
    from .runner import make_scorer

    key = json.dumps(spec, sort_keys=True)
    if key not in _WORKER_SCORERS:
        _WORKER_SCORERS[key] = make_scorer(**spec)
    scorer = _WORKER_SCORERS[key]
    if scorer.identity != identity:
        raise ScoringError(
            f"a worker loaded model {spec['model']!r} as {scorer.identity}, the driver as {identity}; "
            "give every machine the same model folder (or hub revision)"
        )
    out: list[Scored | None] = [None] * len(items)
    for batch, results in scorer.run(items, batch_size):
        for b, r in zip(batch, results, strict=True):
            out[b] = r
    return out  # type: ignore[return-value]


def run_shards(
    client: Any, spec: dict, identity: str, items: list[Any], batch_size: int,
    shard_size: int | None = None,
) -> Iterator[tuple[list[int], list[Scored]]]:
    """Score `items` on `client`'s workers: (indices, scores) per shard, as shards finish."""
    from distributed import as_completed

    parts = shards(items, batch_size, shard_size or SHARD_SENTENCES)
    futures = {
        client.submit(score_shard, spec, identity, [items[i] for i in part], batch_size,
                      key=f"acceptability-shard-{n}-{uuid.uuid4().hex}"): part
        for n, part in enumerate(parts)
    }
    try:
        for future in as_completed(futures):
            results = future.result()
            part = futures.pop(future)
            future.release()
            yield part, results
    finally:
        client.cancel(list(futures))


def worker_spec(model: Any, method: str, options: dict) -> dict:
    """make_scorer's arguments as plain values a worker can rebuild the scorer from."""
    from .models import LanguageModel

    if isinstance(model, LanguageModel):
        options = {**options, "dtype": options.get("dtype") or model.model.dtype}
        model = model.name
    elif not isinstance(model, str) and not hasattr(model, "__fspath__"):
        raise ScoringError(
            f"scoring with a client needs a model id or folder, not a {type(model).__name__}; "
            "n-gram models are fast enough to score in one process"
        )
    dtype = options.get("dtype")
    if dtype is not None and not isinstance(dtype, str):
        dtype = str(dtype).removeprefix("torch.")
    return {"model": str(model), "method": method, **options, "dtype": dtype}
