"""Public entry points: score sentences (the long scores table) and per-token/per-word scores.

Each builds one `ScoringOptions` from its arguments (`options.resolve`) and passes it down."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from acceptability.scoring import normalise as norm
from acceptability.scoring.baselines.ngram import UnigramModel
from acceptability.scoring.context import context_key, continuation, sentence_contexts
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel, load_model, pick_dtype
from acceptability.scoring.options import ScoringOptions, refuse, resolve
from acceptability.scoring.registry import CONTEXT_KINDS, PREFIX_METHODS, REGISTRY
from acceptability.scoring.results import Scored
from acceptability.scoring.run.cache import open_cache
from acceptability.scoring.run.distributed import run_shards, worker_spec
from acceptability.scoring.run.recheck import recheck_pairs
from acceptability.scoring.run.runner import Scorer, compute, make_scorer
from acceptability.scoring.words import plan_words, word_table


def sentences_frame(data: Any, text_column: str = "text") -> pd.DataFrame:
    """`sentence_id` and `text` of a Dataset (`.sentences`), a sentences DataFrame or a list
    of strings.

    Parameters
    ----------
    data : Dataset, DataFrame or list of str
        A list gets sentence ids "0", "1", ...
    text_column : str
        The column of a sentences table that holds the text to score.

    Returns
    -------
    DataFrame
        Columns `sentence_id` (str) and `text`. Empty texts and duplicated ids are errors
        (`ScoringError`).

    Examples
    --------
    >>> from acceptability import scoring
    >>> scoring.sentences_frame(["The cat sat.", "Cat the sat."])
      sentence_id          text
    0           0  The cat sat.
    1           1  Cat the sat.
    """
    if hasattr(data, "sentences"):
        data = data.sentences
    if isinstance(data, pd.DataFrame):
        missing = {"sentence_id", text_column} - set(data.columns)
        if missing:
            raise ScoringError(
                f"sentences table lacks column(s) {sorted(missing)}; it has {list(data.columns)}"
            )
        frame = pd.DataFrame(
            {"sentence_id": data["sentence_id"].astype(str), "text": data[text_column]}
        )
    elif isinstance(data, str):
        raise ScoringError("give a list of sentences, not one string (wrap it: [text])")
    else:
        texts = list(data)
        frame = pd.DataFrame({"sentence_id": [str(i) for i in range(len(texts))], "text": texts})
    frame = frame.reset_index(drop=True)
    bad = frame[[not isinstance(t, str) or not t.strip() for t in frame["text"]]]
    if len(bad):
        raise ScoringError(
            f"{len(bad)} sentence(s) have empty or missing {text_column!r} (sentence_id "
            f"{', '.join(bad['sentence_id'][:5])}{', ...' if len(bad) > 5 else ''}); "
            "remove them or fill them in before scoring"
        )
    dupes = frame["sentence_id"][frame["sentence_id"].duplicated()]
    if len(dupes):
        raise ScoringError(f"duplicated sentence_id(s): {', '.join(dupes.unique()[:5])}")
    return frame




def _score_sentences(
    data: Any, options: ScoringOptions, context: Any = None
) -> tuple[pd.DataFrame, Scorer, list[Scored]]:
    """The sentences of `data` (with column `context`, "" for none), their scorer, and their
    scores (through the cache and, with a client, on its workers)."""
    if options.method in PREFIX_METHODS:
        raise ScoringError(
            f"method {options.method!r} scores pairs of words in context, not sentences: "
            "use scoring.prefix_scores"
        )
    frame = sentences_frame(data, options.text_column)
    frame["context"] = sentence_contexts(data, len(frame), context)
    kind = getattr(REGISTRY.get(options.method), "kind", None)  # an unknown one: make_scorer says so
    if kind is not None and kind not in CONTEXT_KINDS and any(frame["context"]):
        raise ScoringError(
            f"method {options.method!r} scores sentences alone; sentences in context are scored "
            "by causal LMs (logprob), masked LMs (pll, pll_word_l2r, mntp, mntp_word_l2r) and "
            "encoder-decoders (seq2seq, seq2seq_pll): remove the context "
            "column (in Python: context=False) to score them without it"
        )
    scorer = make_scorer(options)
    run = None
    if options.client is not None and scorer.identity:  # n-gram models (no identity) score here, fast
        run = partial(run_shards, options.client, worker_spec(options), scorer.identity, scorer.version)
    texts = [options.target_delimiter + t for t in frame["text"]]  # lm-eval's continuation
    pairs = [(c, continuation(c, t)) for c, t in zip(frame["context"], texts, strict=True)]
    scored = compute(
        scorer,
        pairs if kind in CONTEXT_KINDS else texts,
        [context_key(c, t) for c, t in pairs],
        [f"sentence {sid!r}" for sid in frame["sentence_id"]],
        batch_size=options.batch_size,
        cache=open_cache(options.cache) if scorer.identity else None,
        progress=options.progress,
        run=run,
    )
    return frame, scorer, scored


def score(data: Any, model: Any = None, method: str | None = None, *, context: Any = None,
          options: ScoringOptions | None = None, **settings: Any) -> pd.DataFrame:
    """Long scores table of `data` scored by `model` with `method`, one row per sentence.

    Parameters
    ----------
    data : Dataset, DataFrame or list of str
        A Dataset, a sentences DataFrame (`sentence_id`, `text`) or a list of strings.
    model : str, path, LanguageModel or n-gram model
        Hub id or local directory (loaded with `from_pretrained`), a `load_model()` result,
        or for method "ngram" a `train_ngram()` model or an ARPA file path.
    method : str, default "logprob"
        A sentence method of `scoring.registry.REGISTRY` (`scoring.METHODS`; equations in
        docs/scoring.md): "logprob" (causal LMs), "pll", "pll_word_l2r", "mntp",
        "mntp_word_l2r" (masked LMs), "seq2seq", "seq2seq_pll" (encoder-decoders),
        "classifier" (thesis eq. 2.3), "ngram". All log-probabilities are natural logs.
    context : None, False, str or sequence of str
        Each sentence's preceding context (Lau et al. 2020): None reads the sentences
        table's `context` column when it has one; a str names another column; a sequence
        gives one context per sentence; False scores without. A missing or empty context
        means none. A sentence is scored after its context and a space (none when the
        context ends in whitespace; `scoring.context.continuation`): logprob is
        log P(sentence | BOS, context), seq2seq log P(sentence | encoder reads context),
        the masked methods mask and score only the sentence's tokens, the context
        unmasked. Causal, masked and seq2seq methods only.
    options : ScoringOptions, optional
        Settings to start from; `model`, `method` and `settings` given here override them.
    **settings
        Any field of `ScoringOptions`: `normalise` (None, "mean", "slor", "normlp",
        "penlp", "chars", "bytes"; `scoring.normalise`; the method column then reads e.g.
        "logprob_slor"), `target_delimiter` (lm-eval's), `unigram`, `batch_size`,
        `device`, `dtype` (float32 on the best available device unless given), `revision`,
        `start_token` (`backends.causal.start_token`), `acceptable_label`, `text_column`
        (e.g. POS tags for a tag n-gram model), `model_name`, `cache` (True for $ACCEPTABILITY_CACHE_DIR or
        ~/.cache/acceptability, a directory, or False), `progress` (a bar on a terminal or
        in a notebook, none in a log file or a pipe), `client` (a `dask.distributed.Client`:
        the sentences are scored in shards on its workers, `scoring.run.distributed`, each
        shard cached as it comes back; the scores equal a single-process run's; the model
        must load by the same id or path on every worker) and `recheck` (with dtype
        "bfloat16" and a Dataset with pairs, the pairs whose bfloat16 difference is too
        close to call are rescored in float32, `scoring.run.recheck`) and `trust_remote_code`
        (let a model that needs code of its own run it; off by default, `load_model`).

    Returns
    -------
    DataFrame
        `sentence_id`, `model`, `score`, `method`, `n_tokens`; for the log-probability
        methods `perplexity` = exp(-raw score / n_tokens); for a transformer
        `model_source`: "dir:<sha256 of the folder's files>", "gguf:<sha256 of the file>"
        or "hub:<id>@<commit>"; causal LMs' `start_token` ("none" for none). The
        model column defaults to "<model>_<method>" (like the published
        "bert-base-uncased_mlm"; a local folder by its own name, not its path), so one
        model scored by two methods stays two systems; `model_name` overrides it. With
        `recheck`, column `rechecked` marks the rescored sentences and
        `.attrs["recheck"]` says how many (`Recheck.summary`). Sentences longer than the
        model accepts (with their context) raise `ScoringError` (never truncated).
        `n_tokens` counts the sentence's tokens, never its context's.

    Examples
    --------
    >>> from acceptability import scoring
    >>> corpus = ["the cat sat", "the dog sat", "a cat ran"]
    >>> lm = scoring.train_ngram(corpus, order=2, tokenize=str.split)
    >>> sc = scoring.score(["the cat sat", "sat cat the"], lm, "ngram", cache=False)
    >>> sc[["sentence_id", "model", "method", "n_tokens"]]
      sentence_id         model method  n_tokens
    0           0  2-gram_ngram  ngram         4
    1           1  2-gram_ngram  ngram         4
    >>> bool(sc["score"][0] > sc["score"][1])
    True
    """
    options = resolve(options, model, method, settings, default_method="logprob")
    if options.normalise is not None:
        _check_normalise(options.normalise, options.unigram)
    if options.recheck:
        _check_recheck(data, options)
    frame, scorer, scored = _score_sentences(data, options, context)
    out = _scores_table(frame, scorer, scored, options)
    return _rechecked(out, data, frame, options) if options.recheck else out


def _scores_table(
    frame: pd.DataFrame, scorer: Scorer, scored: list[Scored], options: ScoringOptions
) -> pd.DataFrame:
    """The long scores table of `score`, normalised as `options` asks."""
    raw = np.array([s.score for s in scored], dtype=float)
    n_tokens = np.array([s.n_tokens for s in scored], dtype=int)
    values, label = raw, options.method
    if options.normalise is not None:
        values = _normalised(raw, n_tokens, list(frame["text"]), options.normalise, options.unigram)
        label = f"{options.method}_{options.normalise}"
    out = pd.DataFrame(
        {
            "sentence_id": frame["sentence_id"],
            "model": options.model_name or f"{display_name(scorer.label)}_{label}",
            "score": values,
            "method": label,
            "n_tokens": n_tokens,
        }
    )
    if REGISTRY[options.method].logprob:  # per-token perplexity of the raw log-probability
        out["perplexity"] = np.exp(-raw / np.maximum(n_tokens, 1))
    if scorer.source:
        out["model_source"] = scorer.source
    if "start_token" in scorer.options:  # what a causal LM's first token was conditioned on
        out["start_token"] = scorer.options["start_token"] or "none"
    return out


def _rechecked(out: pd.DataFrame, data: Any, frame: pd.DataFrame, options: ScoringOptions) -> pd.DataFrame:
    """`out` with the pairs too close to call in bfloat16 rescored in float32 (`recheck_pairs`)."""
    rescored: list[pd.DataFrame] = []
    twin: list[LanguageModel] = []  # the float32 model, loaded at the first rescore

    def rescore(ids: list[str]) -> pd.Series:
        if not twin:
            twin.append(_float32_twin(options))
        again = replace(options, model=twin[0], device=None, dtype=None, revision=None,
                        text_column="text", model_name=None, recheck=False)
        got = score(frame[frame["sentence_id"].isin(ids)], options=again)
        rescored.append(got)
        return got.set_index("sentence_id")["score"]

    report = recheck_pairs(out.set_index("sentence_id")["score"], data.pairs, rescore)
    out["rechecked"] = out["sentence_id"].isin(report.sentence_ids)
    if rescored:
        exact = pd.concat(rescored).set_index("sentence_id")
        columns = [c for c in ("score", "perplexity") if c in out.columns]
        out.loc[out["rechecked"], columns] = exact.loc[out.loc[out["rechecked"], "sentence_id"], columns].to_numpy()
    out.attrs["recheck"] = report.summary()
    return out


def _check_recheck(data: Any, options: ScoringOptions) -> None:
    """Fail before scoring on a recheck that cannot run."""
    if getattr(data, "pairs", None) is None or not len(data.pairs):
        raise ScoringError("recheck rescores close minimal pairs: give a Dataset with pairs")
    method = REGISTRY.get(options.method)  # an unknown one: the scorer says so
    if method is not None and not method.neural:
        raise ScoringError("recheck compares bfloat16 with float32 scores; n-gram models have no dtype")
    model = options.model
    running = str(model.model.dtype) if isinstance(model, LanguageModel) else str(pick_dtype(options.dtype))
    if running != "torch.bfloat16":
        raise ScoringError(
            f"recheck compares bfloat16 with float32 scores, and this model runs in {running}: "
            "score with dtype='bfloat16', or leave recheck off"
        )


def _float32_twin(options: ScoringOptions) -> LanguageModel:
    """The same weights loaded in float32 (a LanguageModel by its name, device and hub commit),
    where the bfloat16 model runs: on its device, or spread by a device_map as it is (one
    given by name with options.device_map and max_memory, a loaded one with "auto")."""
    model, device, revision = options.model, options.device, options.revision
    trust, placed = options.trust_remote_code, {}
    if options.device_map is not None:
        placed = {"device_map": options.device_map, "max_memory": options.max_memory}
    if isinstance(model, LanguageModel):
        revision = model.source.rpartition("@")[2] if model.source.startswith("hub:") else None
        placed = {"device_map": "auto"} if model.device_map else {}
        model, device, trust = model.name, None if placed else model.device, model.trust_remote_code
    kind = REGISTRY[options.method].kind
    return load_model(str(model), kind, device=device, dtype="float32", revision=revision,
                      trust_remote_code=trust, **placed)


def display_name(name: str) -> str:
    """A model's name in the scores table: a local folder or file by its own name (not
    where it sits on this machine; a GGUF file without its ``.gguf``), a hub id as it is."""
    path = Path(name).expanduser()
    if not path.exists():
        return name
    path = path.resolve()
    return path.stem if path.is_file() and path.suffix.lower() == ".gguf" else path.name


def _check_normalise(how: str, unigram: UnigramModel | None) -> None:
    """Fail before scoring, not after, on a bad normalisation request."""
    if how not in norm.NORMALISATIONS:
        raise ScoringError(f"unknown normalise={how!r}; use one of {norm.NORMALISATIONS}")
    if how in norm.UNIGRAM and unigram is None:
        raise ScoringError(
            f"normalise={how!r} needs a unigram model: scoring.train_unigram(corpus), "
            "scoring.unigram_from_frequencies(counts) or an n-gram model's .unigram()"
        )


def _normalised(
    values: np.ndarray, n_tokens: np.ndarray, texts: list[str], how: str, unigram: UnigramModel | None
) -> np.ndarray:
    if how == "mean":
        return norm.mean_logprob(values, n_tokens)
    if how in norm.TEXT_UNITS:
        return norm.mean_logprob(values, norm.text_length(texts, how))
    if how == "penlp":
        return norm.pen_logprob(values, n_tokens)
    unigram_lp, lengths = map(np.array, zip(*(unigram.sentence_logprob(t) for t in texts), strict=True))
    if how == "slor":
        return norm.slor(values, unigram_lp, lengths)
    return norm.norm_lp(values, unigram_lp)


def token_scores(
    data: Any,
    model: Any = None,
    method: str | None = None,
    *,
    level: str = "token",
    context: Any = None,
    options: ScoringOptions | None = None,
    **settings: Any,
) -> pd.DataFrame:
    """Per-token (level="token") or per-word (level="word": whitespace-separated words) scores.

    A word-level score sums its tokens (a word's punctuation included; `scoring.word_scores`
    with its defaults, which also takes other words and the boundary correction); n-gram
    tokens are already words (plus `</s>`). Uses the same cache and `client` as `score`.

    Parameters
    ----------
    data, model, method, options
        As for `score`; the classifier method gives sentence scores only.
    level : {"token", "word"}
        Tokens of the model's tokenizer, or whitespace-separated words.
    context
        As for `score`: the sentence's tokens (words) are scored after their context; the
        context's are not listed.
    **settings
        Fields of `ScoringOptions`, as for `score`, except `normalise`, `unigram` and
        `recheck`, which apply to sentence scores only.

    Returns
    -------
    DataFrame
        `sentence_id`, `model`, `method`, `index`, `token` (or `word`), `logprob` (natural
        log; for PLL methods the masked-token log-probability), `surprisal` (-log2 P, bits),
        and at word level `n_tokens`.

    Examples
    --------
    >>> from acceptability import scoring
    >>> lm = scoring.train_ngram(["the cat sat", "the dog sat"], order=2, tokenize=str.split)
    >>> words = scoring.token_scores(["the cat sat"], lm, "ngram", level="word", cache=False)
    >>> list(words["word"])
    ['the', 'cat', 'sat', '</s>']
    >>> list(words.columns)
    ['sentence_id', 'model', 'method', 'index', 'word', 'logprob', 'n_tokens', 'surprisal']
    """
    options = resolve(options, model, method, settings, default_method="logprob")
    refuse(options, ("normalise", "unigram", "recheck", "word_boundaries", "target_delimiter"),
           "token_scores")
    if level not in ("token", "word"):
        raise ScoringError(f"level must be 'token' or 'word', got {level!r}")
    method = REGISTRY.get(options.method)  # an unknown one: the scorer says so
    if method is not None and not method.tokens:
        raise ScoringError(f"the {method.name} method gives sentence scores only; no token scores")
    if level == "word":
        words = word_scores(data, context=context, options=options)
        return words[["sentence_id", "model", "method", "index", "word", "logprob", "n_tokens",
                      "surprisal"]]
    frame, scorer, scored = _score_sentences(data, options, context)
    rows = [(sid, i, token, lp) for sid, s in zip(frame["sentence_id"], scored, strict=True)
            for i, (token, lp) in enumerate(zip(s.tokens, s.logprobs, strict=True))]
    out = pd.DataFrame(rows, columns=["sentence_id", "index", "token", "logprob"])
    out.insert(1, "model", options.model_name or display_name(scorer.label))
    out.insert(2, "method", options.method)
    out["surprisal"] = -out["logprob"] / math.log(2)
    return out


def word_scores(data: Any, model: Any = None, method: str | None = None, *,
                words: Any = "whitespace", boundary: str = "sum", context: Any = None,
                options: ScoringOptions | None = None, **settings: Any) -> pd.DataFrame:
    """Per-word log-probability and surprisal of each sentence, with each word's character
    span (a region's score is the sum over the words inside its span; `scoring.words`).

    Parameters
    ----------
    data, model, method, context, options
        As for `score`: any token method ("logprob", "pll", "pll_word_l2r", "mntp",
        "seq2seq", ..., "ngram"); with a context, the sentence's words only.
    words : "whitespace", callable, dict or list
        "whitespace": whitespace-separated words (punctuation stays on its word). A function
        of the text returning its words (strings, found left to right) or (start, end)
        spans, e.g. a word tokenizer. Or each sentence's words or spans: a dict (or Series)
        by sentence_id, or a list in sentence order; a zero-length span is an empty region.
        Every non-space character must be in a word. An n-gram model's words are its own
        tokens (and ``</s>``).
    boundary : {"sum", "corrected"}
        "sum": the sum of the word's token log-probabilities. "corrected" (causal LMs):
        the word's probability under a leading-space vocabulary, adding that the next token
        starts a new word or ends the text (Pimentel & Meister 2024; Oh & Schuler 2024;
        equation in `scoring.words`).
    **settings
        Fields of `ScoringOptions` (cache, batch_size, client, dtype, ...), except
        `normalise`, `unigram` and `recheck`.

    Returns
    -------
    DataFrame
        `sentence_id`, `model`, `method`, `boundary`, `index` (from 0 in each sentence),
        `word`, `start`, `end` (Int64: text[start:end] == word; NA for an n-gram token not
        in the text), `logprob` (natural log), `surprisal` (bits, -log2 P), `n_tokens`. A
        sentence's "sum" words add up to its `score`.

    Examples
    --------
    >>> from acceptability import scoring
    >>> bigrams = scoring.train_ngram(["a dog ran", "a cat ran"], order=2, tokenize=str.split)
    >>> table = scoring.word_scores(["a cat ran"], bigrams, "ngram", cache=False)
    >>> table[["word", "start", "end", "n_tokens"]].to_numpy().tolist()
    [['a', 0, 1, 1], ['cat', 2, 5, 1], ['ran', 6, 9, 1], ['</s>', <NA>, <NA>, 1]]
    """
    options = resolve(options, model, method, settings, default_method="logprob")
    refuse(options, ("normalise", "unigram", "recheck", "word_boundaries", "target_delimiter"),
           "word_scores")
    texts = sentences_frame(data, options.text_column)
    contexts = sentence_contexts(data, len(texts), context)
    spans = plan_words(texts, contexts, words, boundary, options)  # checked before scoring
    options = replace(options, word_boundaries=boundary == "corrected")
    frame, scorer, scored = _score_sentences(data, options, context)
    label = options.model_name or display_name(scorer.label)
    return word_table(frame, scored, spans, label, options.method, boundary)
