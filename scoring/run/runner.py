"""Turn (model, method) into a scorer and run it over texts through the cache, with progress."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from acceptability.scoring.backends import causal, classifier, masked, mntp, seq2seq
from acceptability.scoring.baselines.ngram import ArpaModel, KneserNey, load_arpa
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel, load_model
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import CONTINUATION, METHODS, PREFIX_METHODS, REGISTRY
from acceptability.scoring.results import Scored
from acceptability.scoring.run.batches import plan_batches, token_budget
from acceptability.scoring.run.cache import ScoreCache, cache_key
from acceptability.scoring.run.claims import CLAIM_SENTENCES, new_owner, score_shared
from acceptability.scoring.run.versions import scorer_version

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

NGRAM_CHUNK = 1000  # sentences per progress-bar step for n-gram models


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


def _by_length(lm: LanguageModel, budget: int | None) -> Callable[[list[Any], int], Batches]:
    """Batches of inputs longest first (CausalInput `.ids`, or a classifier's id list):
    `budget` tokens, or without one `batch_size` inputs, at a time (`batches.plan_batches`)."""
    return lambda items, batch_size: plan_batches(
        lm, [len(getattr(it, "ids", it)) for it in items], None, batch_size, budget)


def make_scorer(options: ScoringOptions) -> Scorer:
    """A Scorer for `options.method` with `options.model`: hub id, directory, LanguageModel,
    n-gram model or ARPA path. A prefix method gets the causal `CONTINUATION` scorer.

    Causal, masked and seq2seq scorers encode (context, text) pairs (text scored after context, ""
    for none: `scoring.context`); classifier and n-gram scorers encode texts."""
    method = options.method
    if method not in REGISTRY:
        raise ScoringError(f"unknown scoring method {method!r}; use one of {', '.join(METHODS)}")
    if method == "ngram":
        return _ngram_scorer(options.model)
    lm = _language_model(options)
    budget = token_budget(lm, options.batch_tokens)  # the CPU default: batch_size sentences
    version = scorer_version(REGISTRY[method].backend)
    if lm.kind == "causal":
        method = CONTINUATION if method in PREFIX_METHODS else method
        # keyed only when on: plain scores keep their cache entries
        bounds = {"word_boundaries": True} if options.word_boundaries else {}
        start = causal.start_token(lm.tokenizer, options.start_token, lm.name)
        return Scorer(
            lm.name,
            method,
            lambda pairs: causal.encode_many(lm, pairs, start),
            _by_length(lm, budget),
            lambda items, batches: causal.iter_logprobs(lm, items, batches, **bounds),
            lm.identity,
            {"start_token": start, **bounds},
            source=lm.source,
            version=version,
        )
    if lm.kind == "masked":
        l2r = method.endswith("_word_l2r")
        # MNTP reads each masked token one position earlier (backends.mntp); PLL at it
        encode, run = ((mntp.encode_many, mntp.iter_mntp) if REGISTRY[method].backend == mntp.__name__
                       else (masked.encode_many, masked.iter_pll))
        copies = masked.tokens_per_pass(lm, options.batch_tokens)
        return Scorer(
            lm.name,
            method,
            lambda pairs: encode(lm, pairs, word_l2r=l2r),
            lambda items, bs: masked.pll_batches(lm, items, bs, copies),
            lambda items, batches: run(lm, items, batches, copies),
            lm.identity,
            source=lm.source,
            version=version,
        )
    if lm.kind == "seq2seq":
        return _seq2seq_scorer(lm, method, options.batch_tokens, version)
    label = options.acceptable_label
    return Scorer(
        lm.name,
        method,
        lambda texts: (classifier.encode(lm, text) for text in texts),
        _by_length(lm, budget),
        lambda items, batches: classifier.iter_signed_confidence(lm, items, batches, label),
        lm.identity,
        {"acceptable_label": label},
        source=lm.source,
        version=version,
    )


def _seq2seq_scorer(lm: LanguageModel, method: str, batch_tokens: int | None, version: str) -> Scorer:
    """seq2seq (the text as the decoder's target, the context read by the encoder) or
    seq2seq_pll (BabyLM's masked encoder copies): `backends.seq2seq`."""
    pll = method == "seq2seq_pll"
    budget = masked.tokens_per_pass(lm, batch_tokens) if pll else token_budget(lm, batch_tokens)
    encode = seq2seq.encode_pll if pll else seq2seq.encode
    run = partial(seq2seq.iter_seq2seq_pll, budget=budget) if pll else seq2seq.iter_seq2seq
    return Scorer(
        lm.name,
        method,
        lambda pairs: (encode(lm, text, context) for context, text in pairs),
        lambda items, bs: seq2seq.batches(lm, items, bs, pll, budget),
        lambda items, batches: run(lm, items, batches),
        lm.identity,
        source=lm.source,
        version=version,
    )


def _language_model(options: ScoringOptions) -> LanguageModel:
    """The transformer of the method's kind (`REGISTRY`): `options.model` if loaded, else
    loaded from its hub id or folder."""
    method, model = options.method, options.model
    kind = REGISTRY[method].kind
    if isinstance(model, LanguageModel):
        if model.kind != kind:
            raise ScoringError(f"method {method!r} needs a {kind} model; {model.name!r} is {model.kind}")
        return model
    if isinstance(model, str | Path):
        return load_model(str(model), kind, device=options.device, dtype=options.dtype,
                          revision=options.revision, trust_remote_code=options.trust_remote_code,
                          device_map=options.device_map, max_memory=options.max_memory)
    raise ScoringError(f"method {method!r} needs a model id or directory, got {type(model).__name__}")


def _ngram_scorer(model: Any) -> Scorer:
    if isinstance(model, str | Path):
        model = load_arpa(model)
    if not isinstance(model, KneserNey | ArpaModel):
        raise ScoringError(
            "method 'ngram' needs a model from scoring.train_ngram() or an ARPA file path, "
            f"got {type(model).__name__}"
        )

    def chunks(items: list[list[str]], _batch_size: int) -> Batches:
        starts = range(0, len(items), NGRAM_CHUNK)
        return [list(range(s, min(s + NGRAM_CHUNK, len(items)))) for s in starts]

    def run(items: list[list[str]], batches: Batches) -> Iterator[tuple[list[int], list[Scored]]]:
        for batch in batches:
            yield batch, [
                Scored.from_tokens([*items[i], "</s>"], [], model.word_logprobs(items[i]))
                for i in batch
            ]

    return Scorer(model.name, "ngram", lambda texts: map(model.tokenize, texts), chunks, run)


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
