"""What the topic modules of benchmarks/model_rows/ share (not a topic: bench_models.py's
topic_rows skips files starting with "_"). The topics import it as ``benchmarks.model_rows``,
with the repository root on ``sys.path`` (as bench_models.py puts it, or ``python -m`` from
the root)."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable


def quiet(fn: Callable[[], object]) -> Callable[[], object]:
    """``fn`` with Python's warnings off, as R's rows run under suppressWarnings."""
    def run() -> object:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    return run


def fit_then(fit: Callable[[], object], work: Callable[[object], object]) -> Callable[[], object]:
    """A row that fits, runs ``work`` on the fit and returns the fit, warnings off (R's
    ``row`` in _timing.R, run quietly)."""
    def run() -> object:
        m = fit()
        work(m)
        return m
    return quiet(run)


def print_rows(timed: Callable[[], dict[str, tuple[str, Callable[[], object]]]]) -> None:
    """Print a topic's rows as its ``<topic>.R`` does (model,seconds,logLik; REPS, default 5,
    from the command line), each timed by bench_models.median_time."""
    from benchmarks.bench_models import median_time

    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print("model,seconds,logLik")
    for name, (_, fn) in timed().items():
        seconds, m = median_time(fn, reps)
        print(f"{name},{seconds:.6f},{m.logLik:.15g}", flush=True)
