"""Scorer versions: which code computed a cached score, in its cache key.

Every module whose code turns a text into the numbers the score cache keeps declares
``SCORER_VERSION = N`` and raises it with every change that can alter a score. A score's
cache key holds the versions of the modules its scorer runs (`scorer_version`), so after a
fix the entries the old code wrote are no longer matched: the scores are recomputed (the old
entries stay in the file, unread, until it is deleted). ``tests/scoring/test_scorer_versions.py``
records each module's code hash with its version and fails when the code changed and the
version did not; it also checks that these lists name every module a backend's numbers come
from.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import version

PACKAGE = "acceptability.scoring"
#: The libraries whose code tokenises a text and runs the model (a new tokenizer or model
#: class can change a score); torch is left out: its releases change scores by float
#: rounding, as device placement does, which the key leaves out too.
LIBRARIES = ("tokenizers", "transformers")
#: The modules every transformer scorer runs, by the name their version carries in a cache key
#: and their module in the package: batching and padding (`batches`), loading and weight
#: packing (`models`, `gguf`, `prepack`), the device pipeline (`overlap`), sums (`results`), a
#: context's join to its text (`context`) and the choice of functions and settings per method
#: (`runner`). The names are the modules' own, as before the execution modules moved into
#: `scoring.run`: a move changes no arithmetic, so scores cached before it keep their keys.
SHARED = {"batches": "run.batches", "context": "context", "gguf": "gguf", "models": "models",
          "overlap": "run.overlap", "prepack": "run.prepack", "results": "results",
          "runner": "run.runner"}
#: Each backend module (`registry.Method.backend`, in the package) with the backends it borrows
#: from (the n-gram backend is left out: its scores are not cached).
BACKENDS = {
    "backends.causal": ("backends.causal",),
    "backends.masked": ("backends.masked", "backends.causal"),
    "backends.mntp": ("backends.mntp", "backends.masked", "backends.causal"),
    "backends.seq2seq": ("backends.seq2seq", "backends.masked", "backends.causal"),
    "backends.classifier": ("backends.classifier",),
}


def scorer_version(backend: str) -> str:
    """The versions of the modules whose code computes `backend`'s scores, and of the
    `LIBRARIES` it runs, as one string for its cache keys, e.g.
    ``"backends.causal=1 batches=1 ... tokenizers=0.22.1 transformers=4.57.1"``.

    Parameters
    ----------
    backend : str
        A key of `BACKENDS`, or a backend's full module name (``registry.Method.backend``).

    Examples
    --------
    >>> from acceptability.scoring.run.versions import scorer_version
    >>> scorer_version("backends.causal").split()[0]
    'backends.causal=1'
    """
    names = sorted({*BACKENDS[backend.removeprefix(f"{PACKAGE}.")], *SHARED})
    ours = [f"{name}={import_module(f'{PACKAGE}.{module(name)}').SCORER_VERSION}" for name in names]
    return " ".join(ours + library_versions())


def module(name: str) -> str:
    """The module (in the package) of a name in `SHARED` or `BACKENDS`: ``"run.batches"`` for
    ``"batches"``, ``"backends.causal"`` for itself."""
    return SHARED.get(name, name)


def library_versions() -> list[str]:
    """``name=version`` of each of `LIBRARIES` installed here."""
    return [f"{lib}={version(lib)}" for lib in LIBRARIES]
