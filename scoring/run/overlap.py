"""Keep the device busy: prepare the next batches on the host while the device computes, copy
scores back asynchronously, and hand a batch on (to the score cache) once the next is launched.

Each backend splits a batch's work in three: `prepare` (host only: padding, index tensors),
`launch` (moves inputs to the device and queues the forward passes; returns a float32 tensor
of the batch's values on the device) and `finish` (turns the values, on the host, into
Scored rows). On an accelerator `prepare` runs PREFETCH batches ahead in a thread, the values
come back through pinned memory without blocking, and batch k is finished (and written to the
cache by `runner.compute`) after batch k + 1 is queued, so the host's work overlaps the
device's. A batch whose values are on the host is always handed on before an error of a later
batch propagates (a killed run loses only the batch in flight; the cache resumes from there).
On the CPU the host is the device: the three steps run one after the other.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from acceptability.scoring.results import Scored
from acceptability.scoring.run.batches import on_cpu

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

# Batches prepared ahead of the one running: one to launch next, one in preparation.
PREFETCH = 2


def overlaps(lm: Any) -> bool:
    """Whether host and device work overlap for `lm`: on an accelerator, not on the CPU
    (where preparing ahead in a thread would only take cores from the forward pass)."""
    return not on_cpu(lm)


@dataclass
class HostValues:
    """A device tensor's values on their way to the host: `values()` waits for the copy."""

    tensor: Any
    event: Any = None

    def values(self) -> list[float]:
        if self.event is not None:
            self.event.synchronize()
        return self.tensor.tolist()


def to_host(values: Any) -> HostValues:
    """Start copying a device tensor to the host: into pinned memory without blocking on
    CUDA (an event marks its arrival); a CPU tensor is already there."""
    import torch

    if values.device.type != "cuda":
        return HostValues(values.cpu())
    host = torch.empty(values.shape, dtype=values.dtype, pin_memory=True)
    host.copy_(values, non_blocking=True)  # queued on the stream of the values' GPU
    event = torch.cuda.Event()
    event.record(torch.cuda.current_stream(values.device))  # that GPU's, not the default one
    return HostValues(host, event)


def pipeline(
    batches: Sequence[list[int]],
    prepare: Callable[[list[int]], Any],
    launch: Callable[[Any], Any],
    finish: Callable[[list[int], list[float]], list[Scored]],
    overlap: bool,
) -> Iterator[tuple[list[int], list[Scored]]]:
    """(batch, its Scored rows) for each of `batches` in order, through `prepare`, `launch`
    and `finish` (module docstring); with `overlap`, prepared ahead in a thread and finished
    one batch behind the device.

    Examples
    --------
    >>> import torch
    >>> from acceptability.scoring.run.overlap import pipeline
    >>> from acceptability.scoring.results import Scored
    >>> def finish(batch, values):
    ...     return [Scored(score=v, n_tokens=1) for v in values]
    >>> steps = (lambda b: torch.tensor(b, dtype=torch.float32), lambda t: t * 2, finish)
    >>> [(b, [s.score for s in got]) for b, got in pipeline([[1, 2], [3]], *steps, overlap=True)]
    [([1, 2], [2.0, 4.0]), ([3], [6.0])]
    """
    if not overlap:
        for batch in batches:
            yield batch, finish(batch, to_host(launch(prepare(batch))).values())
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="acceptability-prepare") as pool:
        ahead = deque(pool.submit(prepare, batch) for batch in batches[:PREFETCH])
        pending: tuple[list[int], HostValues] | None = None
        for k, batch in enumerate(batches):
            if k + PREFETCH < len(batches):
                ahead.append(pool.submit(prepare, batches[k + PREFETCH]))
            try:
                launched = to_host(launch(ahead.popleft().result()))
            except BaseException:
                if pending is not None:  # computed before the error: hand it on first
                    yield pending[0], finish(pending[0], pending[1].values())
                raise
            if pending is not None:
                yield pending[0], finish(pending[0], pending[1].values())
            pending = (batch, launched)
        if pending is not None:
            yield pending[0], finish(pending[0], pending[1].values())
