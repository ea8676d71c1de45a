"""Scorers sharing one score cache split the work instead of each computing everything.

Before scoring a group of batches a scorer claims their keys (`ScoreCache.claim`: one
transaction, keys no one has scored or claimed), scores only what it claimed, and writes each
batch with its claims released. Then it reads what the others computed, polling the cache; a
claim whose owner is a dead process on this host, or has shown no sign of life (a finished
batch) for `CLAIM_TIMEOUT` seconds, is taken over. A scorer that stops releases its claims;
one that is killed leaves them to be taken over.

Hand-written: no maintained library offers work claims inside an SQLite file; the table
lives in the cache so that whoever can reach the cache can take part.
"""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from typing import Any

from acceptability.data.io.atomic import process_alive as alive  # the one liveness check
from acceptability.scoring.errors import CacheError

HOST = socket.gethostname()
CLAIM_TIMEOUT = 300.0  # seconds without a finished batch before another scorer takes a claim over
CLAIM_SENTENCES = 64  # inputs claimed at a time: the most another scorer can be left waiting for
POLL_SECONDS = 0.2  # between looks at the cache while others score what they claimed

Batches = list[list[int]]


def stale(pid: int, host: str, claimed: float, now: float) -> bool:
    """Whether a claim made by process `pid` on `host` at time `claimed` may be taken over.

    Examples
    --------
    >>> import os, time
    >>> from acceptability.scoring.run.claims import HOST, stale
    >>> stale(os.getpid(), HOST, time.time(), time.time())  # this process: alive
    False
    >>> stale(1, "another-host", 0.0, time.time())  # not renewed for years
    True
    """
    return now - claimed > CLAIM_TIMEOUT or (host == HOST and not alive(pid))


def groups(batches: Batches, size: int | None) -> list[Batches]:
    """Consecutive whole batches, each group holding at least `size` inputs (the last may
    hold fewer); all in one group when `size` is None.

    Examples
    --------
    >>> from acceptability.scoring.run.claims import groups
    >>> groups([[0, 1], [2, 3], [4]], 3)
    [[[0, 1], [2, 3]], [[4]]]
    """
    if size is None:
        return [batches] if batches else []
    out: list[Batches] = []
    held = size
    for batch in batches:
        if held >= size:
            out.append([])
            held = 0
        out[-1].append(batch)
        held += len(batch)
    return out


def only(batches: Batches, keep: set[int]) -> Batches:
    """`batches` with only the indices in `keep`, in order, empty batches left out.

    Examples
    --------
    >>> from acceptability.scoring.run.claims import only
    >>> only([[0, 1], [2, 3], [4]], {1, 4})
    [[1], [4]]
    """
    kept = [[i for i in batch if i in keep] for batch in batches]
    return [batch for batch in kept if batch]


def new_owner() -> str:
    """A claim owner's name: unique to one scoring call.

    Examples
    --------
    >>> from acceptability.scoring.run.claims import new_owner
    >>> new_owner() != new_owner()
    True
    """
    return uuid.uuid4().hex


def score_shared(cache: Any, owner: str, keys: list[str], batches: Batches, found: dict,
                 score: Callable[[Batches], None], progress: Callable[[int], None],
                 group_size: int | None = CLAIM_SENTENCES) -> None:
    """Score `batches` (indices into `keys`) with the scorers sharing `cache`: `score(part)`
    computes and writes the batches `owner` claimed (adding them to `found`), the rest are
    read from the cache as the others write them (`progress(n)` for each n found).

    Examples
    --------
    >>> import tempfile
    >>> from acceptability.scoring import ScoreCache
    >>> from acceptability.scoring.run.claims import new_owner, score_shared
    >>> from acceptability.scoring.results import Scored
    >>> cache, owner, keys, found = ScoreCache(tempfile.mkdtemp()), new_owner(), ["a", "b"], {}
    >>> def score(batches):  # stands in for a model: computes, writes, keeps
    ...     new = {keys[i]: Scored(-1.0, 1) for batch in batches for i in batch}
    ...     cache.put_many(new, owner)
    ...     found.update(new)
    >>> score_shared(cache, owner, keys, [[0, 1]], found, score, progress=print)
    >>> sorted(found), len(cache)
    (['a', 'b'], 2)
    """
    try:
        for group in groups(batches, group_size):
            mine = cache.claim([keys[i] for batch in group for i in batch], owner)
            part = only(group, {i for batch in group for i in batch if keys[i] in mine})
            if part:
                score(part)
        while left := [i for i in range(len(keys)) if keys[i] not in found]:
            got = cache.get_many(keys[i] for i in left)
            found.update(got)
            progress(len(got))
            left = [i for i in left if keys[i] not in found]
            mine = cache.claim([keys[i] for i in left], owner) if left else set()
            if mine:
                score(only(batches, {i for i in left if keys[i] in mine}))
            elif left:
                time.sleep(POLL_SECONDS)
    finally:
        with suppress(CacheError):  # a broken cache already said so; claims then time out
            cache.release(owner)
