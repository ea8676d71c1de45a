"""The settings of one scoring run, built once by `scoring.score`, `scoring.token_scores` and
`scoring.prefix_scores` from their keyword arguments and passed down whole."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acceptability.scoring.errors import ScoringError

if TYPE_CHECKING:
    from acceptability.scoring.baselines.ngram import UnigramModel
    from acceptability.scoring.cache import ScoreCache


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
    normalise : {None, "mean", "slor", "normlp", "penlp"}
        Lau et al. (2017, 2020) normalisation of `score` (`scoring.normalise`); "slor" and
        "normlp" need `unigram`.
    unigram : UnigramModel or None
        The unigram model of SLOR and NormLP.
    batch_size : int
        Sentences per forward pass (PLL on the CPU fills passes by tokens instead).
    device : str or None
        cuda, then mps, then cpu unless given.
    dtype : str, torch.dtype or None
        float32 unless given (e.g. "bfloat16").
    revision : str or None
        The hub revision (branch, tag or commit) of a hub id.
    prepend_bos : bool
        Condition a causal LM's first token on BOS, so every token is scored.
    acceptable_label : int
        The classifier's label for acceptable (CoLA: 1).
    text_column : str
        The sentences table's column to score (e.g. POS tags for a tag n-gram model).
    model_name : str or None
        The `model` column of the result; default "<model>_<method>" (`score`).
    cache : bool, str, path or ScoreCache
        True: $ACCEPTABILITY_CACHE_DIR or ~/.cache/acceptability; a directory; False: none.
    progress : bool
        A progress bar on a terminal or in a notebook.
    client : dask.distributed.Client or None
        Score in shards on its workers (`scoring.distributed`).
    recheck : bool
        Rescore bfloat16's too-close-to-call pairs in float32 (`scoring.recheck`).
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
    device: str | None = None
    dtype: Any = None
    revision: str | None = None
    prepend_bos: bool = True
    acceptable_label: int = 1
    text_column: str = "text"
    model_name: str | None = None
    cache: bool | str | Path | ScoreCache = True
    progress: bool = True
    client: Any = None
    recheck: bool = False
    trust_remote_code: bool = False
    word_boundaries: bool = False


FIELDS = tuple(f.name for f in fields(ScoringOptions))
DEFAULTS = ScoringOptions()
#: What a worker needs to build the same scorer (`runner.make_scorer`), besides the model.
SCORER_FIELDS = ("method", "device", "dtype", "revision", "prepend_bos", "acceptable_label",
                 "trust_remote_code", "word_boundaries")


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
