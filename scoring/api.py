"""Public entry points: score sentences (the long scores table) and per-token/per-word scores."""

from __future__ import annotations

import bisect
import math
import re
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from acceptability.data.tables import LOGPROB_METHODS
from acceptability.scoring import normalise as norm
from acceptability.scoring.baselines.ngram import UnigramModel
from acceptability.scoring.cache import ScoreCache
from acceptability.scoring.distributed import run_shards, worker_spec
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel, load_model, pick_dtype
from acceptability.scoring.recheck import recheck_pairs
from acceptability.scoring.runner import KIND_OF_METHOD, compute, make_scorer


def sentences_frame(data: Any, text_column: str = "text") -> pd.DataFrame:
    """`sentence_id` and `text` of a Dataset (`.sentences`), a sentences DataFrame or a list of strings.

    A list gets sentence ids "0", "1", ... Empty texts and duplicated ids are errors.
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


def open_cache(cache: bool | str | Path | ScoreCache) -> ScoreCache | None:
    """True: the default cache dir; a path: that dir; False: no cache."""
    if isinstance(cache, ScoreCache):
        return cache
    if cache is False or cache is None:
        return None
    return ScoreCache(None if cache is True else cache)


def _score_sentences(
    data: Any,
    model: Any,
    method: str,
    *,
    text_column: str,
    batch_size: int,
    cache: bool | str | Path | ScoreCache,
    progress: bool,
    client: Any = None,
    **model_options: Any,
):
    frame = sentences_frame(data, text_column)
    scorer = make_scorer(model, method, **model_options)
    run = None
    if client is not None and scorer.identity:  # n-gram models (no identity) score here, fast
        spec = worker_spec(model, method, model_options)
        run = partial(run_shards, client, spec, scorer.identity)
    texts = list(frame["text"])
    inputs = [("", t) for t in texts] if method == "logprob" else texts
    scored = compute(
        scorer,
        inputs,
        texts,
        [f"sentence {sid!r}" for sid in frame["sentence_id"]],
        batch_size=batch_size,
        cache=open_cache(cache) if scorer.identity else None,
        progress=progress,
        run=run,
    )
    return frame, scorer, scored


def score(
    data: Any,
    model: Any,
    method: str = "logprob",
    *,
    normalise: str | None = None,
    unigram: UnigramModel | None = None,
    batch_size: int = 16,
    device: str | None = None,
    dtype: Any = None,
    revision: str | None = None,
    prepend_bos: bool = True,
    acceptable_label: int = 1,
    text_column: str = "text",
    model_name: str | None = None,
    cache: bool | str | Path | ScoreCache = True,
    progress: bool = True,
    client: Any = None,
    recheck: bool = False,
) -> pd.DataFrame:
    """Long scores table (`sentence_id`, `model`, `score`, `method`, `n_tokens`; for the
    log-probability methods `perplexity` = exp(-raw score / n_tokens); for a transformer
    `model_source`: "dir:<sha256 of the folder's files>" or "hub:<id>@<commit>"),
    one row per sentence.

    data: a Dataset, a sentences DataFrame (`sentence_id`, `text`) or a list of strings.
    model: hub id or local directory (loaded with `from_pretrained`), a `load_model()` result,
        or for method "ngram" a `train_ngram()` model or an ARPA file path.
    method: "logprob" (causal LM: sum of log P(token | BOS, previous tokens)), "pll" (masked LM,
        thesis eq. 3), "pll_word_l2r" (Kauf & Ivanova 2023), "classifier" (thesis eq. 2.3),
        "ngram" (Kneser-Ney or ARPA). All log-probabilities are natural logs.
    normalise: None, "mean" (score / n_tokens), "slor" or "normlp" (Lau et al. 2017, need
        `unigram`; length = the unigram tokenizer's word count); the method column then reads
        e.g. "logprob_slor". The model column defaults to "<model>_<method>" (like the
        published "bert-base-uncased_mlm"; a local folder by its own name, not its path), so
        one model scored by two methods stays two systems in the scores table; `model_name`
        overrides it.
    dtype/device: float32 on the best available device unless given. Sentences longer than the
        model accepts raise ScoringError (never truncated). `text_column` picks another column
        (e.g. POS tags for a tag n-gram model). Scores are cached on disk (`cache`: True for
        $ACCEPTABILITY_CACHE_DIR or ~/.cache/acceptability, a directory, or False).
    progress: a progress bar on a terminal or in a notebook; none in a log file or a pipe.
    client: a `dask.distributed.Client`: the sentences are scored in shards on its workers
        (scoring.distributed), each shard written to the cache as it comes back; the scores
        equal a single-process run's. The model must load by the same id or path on every worker.
    recheck: with dtype "bfloat16" and a Dataset with pairs, the pairs whose bfloat16 difference
        is too close to call are rescored in float32 (scoring.recheck), so their verdicts are
        float32's; column `rechecked` marks those sentences, `.attrs["recheck"]` says how many
        (`Recheck.summary`).
    """
    if normalise is not None:
        _check_normalise(normalise, unigram)
    if recheck:
        _check_recheck(data, model, method, dtype)
    frame, scorer, scored = _score_sentences(
        data,
        model,
        method,
        text_column=text_column,
        batch_size=batch_size,
        cache=cache,
        progress=progress,
        client=client,
        device=device,
        dtype=dtype,
        revision=revision,
        prepend_bos=prepend_bos,
        acceptable_label=acceptable_label,
    )
    values = np.array([s.score for s in scored], dtype=float)
    n_tokens = np.array([s.n_tokens for s in scored], dtype=int)
    label = method
    if normalise is not None:
        values = _normalised(values, n_tokens, list(frame["text"]), normalise, unigram)
        label = f"{method}_{normalise}"
    out = pd.DataFrame(
        {
            "sentence_id": frame["sentence_id"],
            "model": model_name or f"{display_name(scorer.label)}_{label}",
            "score": values,
            "method": label,
            "n_tokens": n_tokens,
        }
    )
    if method in LOGPROB_METHODS:  # per-token perplexity of the raw log-probability
        raw = np.array([s.score for s in scored], dtype=float)
        out["perplexity"] = np.exp(-raw / np.maximum(n_tokens, 1))
    if scorer.source:
        out["model_source"] = scorer.source
    if not recheck:
        return out
    rescored: list[pd.DataFrame] = []
    twin: list[LanguageModel] = []  # the float32 model, loaded at the first rescore

    def rescore(ids: list[str]) -> pd.Series:
        if not twin:
            twin.append(_float32_twin(model, method, device, revision))
        got = score(frame[frame["sentence_id"].isin(ids)], twin[0], method, normalise=normalise,
                    unigram=unigram, batch_size=batch_size, prepend_bos=prepend_bos,
                    acceptable_label=acceptable_label, cache=cache, progress=progress,
                    client=client)
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


def _check_recheck(data: Any, model: Any, method: str, dtype: Any) -> None:
    """Fail before scoring on a recheck that cannot run."""
    if getattr(data, "pairs", None) is None or not len(data.pairs):
        raise ScoringError("recheck rescores close minimal pairs: give a Dataset with pairs")
    if method == "ngram":
        raise ScoringError("recheck compares bfloat16 with float32 scores; n-gram models have no dtype")
    running = str(model.model.dtype) if isinstance(model, LanguageModel) else str(pick_dtype(dtype))
    if running != "torch.bfloat16":
        raise ScoringError(
            f"recheck compares bfloat16 with float32 scores, and this model runs in {running}: "
            "score with dtype='bfloat16', or leave recheck off"
        )


def _float32_twin(model: Any, method: str, device: str | None, revision: str | None) -> LanguageModel:
    """The same weights loaded in float32 (a LanguageModel by its name, device and hub commit)."""
    if isinstance(model, LanguageModel):
        revision = model.source.rpartition("@")[2] if model.source.startswith("hub:") else None
        model, device = model.name, model.device
    return load_model(str(model), KIND_OF_METHOD[method], device=device, dtype="float32", revision=revision)


def display_name(name: str) -> str:
    """A model's name in the scores table: a local folder or file by its own name (not
    where it sits on this machine), a hub id as it is."""
    path = Path(name).expanduser()
    return path.resolve().name if path.exists() else name


def _check_normalise(how: str, unigram: UnigramModel | None) -> None:
    """Fail before scoring, not after, on a bad normalisation request."""
    if how not in norm.NORMALISATIONS:
        raise ScoringError(f"unknown normalise={how!r}; use one of {norm.NORMALISATIONS}")
    if how != "mean" and unigram is None:
        raise ScoringError(
            f"normalise={how!r} needs a unigram model: scoring.train_unigram(corpus), "
            "scoring.unigram_from_frequencies(counts) or an n-gram model's .unigram()"
        )


def _normalised(
    values: np.ndarray, n_tokens: np.ndarray, texts: list[str], how: str, unigram: UnigramModel | None
) -> np.ndarray:
    if how == "mean":
        return norm.mean_logprob(values, n_tokens)
    unigram_lp, lengths = map(np.array, zip(*(unigram.sentence_logprob(t) for t in texts), strict=True))
    if how == "slor":
        return norm.slor(values, unigram_lp, lengths)
    return norm.norm_lp(values, unigram_lp)


def token_scores(
    data: Any,
    model: Any,
    method: str = "logprob",
    *,
    level: str = "token",
    batch_size: int = 16,
    device: str | None = None,
    dtype: Any = None,
    revision: str | None = None,
    prepend_bos: bool = True,
    text_column: str = "text",
    model_name: str | None = None,
    cache: bool | str | Path | ScoreCache = True,
    progress: bool = True,
    client: Any = None,
) -> pd.DataFrame:
    """Per-token (level="token") or per-word (level="word": whitespace-separated words) scores.

    Columns: `sentence_id`, `model`, `method`, `index`, `token` (or `word`), `logprob` (natural
    log; for PLL methods the masked-token log-probability), `surprisal` (-log2 P, bits), and at
    word level `n_tokens`. A word-level score sums its tokens (a word's punctuation included);
    n-gram tokens are already words (plus `</s>`). Uses the same cache and `client` as `score`.
    """
    if level not in ("token", "word"):
        raise ScoringError(f"level must be 'token' or 'word', got {level!r}")
    if method == "classifier":
        raise ScoringError("the classifier method gives sentence scores only; no token scores")
    frame, scorer, scored = _score_sentences(
        data,
        model,
        method,
        text_column=text_column,
        batch_size=batch_size,
        cache=cache,
        progress=progress,
        client=client,
        device=device,
        dtype=dtype,
        revision=revision,
        prepend_bos=prepend_bos,
    )
    rows = []
    for sid, text, s in zip(frame["sentence_id"], frame["text"], scored, strict=True):
        units = _words(text, s) if level == "word" and s.offsets else _tokens(s)
        rows += [(sid, i, unit, lp, n) for i, (unit, lp, n) in enumerate(units)]
    out = pd.DataFrame(rows, columns=["sentence_id", "index", level, "logprob", "n_tokens"])
    out.insert(1, "model", model_name or display_name(scorer.label))
    out.insert(2, "method", method)
    out["surprisal"] = -out["logprob"] / math.log(2)
    return out if level == "word" else out.drop(columns="n_tokens")


def _tokens(s) -> list[tuple[str, float, int]]:
    return [(t, lp, 1) for t, lp in zip(s.tokens, s.logprobs, strict=True)]


def _words(text: str, s) -> list[tuple[str, float, int]]:
    """Sum token log-probs per whitespace word; a token belongs to the word of its first non-space char."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    starts = [a for a, _ in spans]
    sums = [0.0] * len(spans)
    counts = [0] * len(spans)
    for (start, end), lp in zip(s.offsets, s.logprobs, strict=True):
        while start < end - 1 and text[start].isspace():
            start += 1
        w = min(max(bisect.bisect_right(starts, start) - 1, 0), len(spans) - 1)
        sums[w] += lp
        counts[w] += 1
    return [(text[a:b], lp, n) for (a, b), lp, n in zip(spans, sums, counts, strict=True)]
