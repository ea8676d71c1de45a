"""Word-level scores: token log-probabilities summed per word, whitespace-separated or as the
user splits them, with the word-boundary correction for leading-space vocabularies
(Pimentel & Meister 2024, "How to compute the probability of a word"; Oh & Schuler 2024).

The one place tokens are grouped into words (`token_words`), for `scoring.word_scores` and
`scoring.token_scores(level="word")` (its plain sum).

The correction (``boundary="corrected"``, causal LMs). GPT-2-style tokenizers put the space
before a word into the word's first token ("Ġcat"), so a word's tokens do not say that it
has ended: " cat" is also how " cats" and " catalogue" begin. The probability of the word
w_t is that of its characters followed by a word boundary, given that the words before it
ended (Pimentel & Meister 2024, bow-marking tokenisers, their S_bow the word-initial tokens):

    log P(w_t | w_<t) = sum_{tokens u of w_t} log P(u | BOS, w_<t, earlier u)
                        + log P(next token in B | BOS, w_<=t) - log P(next token in B | BOS, w_<t)

with B the tokens whose text begins with whitespace, plus EOS (the text may end after the
word). The last word's second term is read after the sentence's last token. The first
word has no word before it: its third term conditions on how the text starts, the class of
its first token (`backends.causal.word_start_classes`): with GPT-2 a text starts without a
space, so B' = the other ordinary tokens plus EOS (as P&M's code does); after a context, or
with a SentencePiece "▁" first token, B. The terms telescope: a sentence's corrected word
scores sum to its plain score + log P(B after its last token) - log P(its first token's
class after BOS). Where the user's words meet without whitespace ("mat" + "."), the
tokenizer marks no boundary, so neither word gets a term there: "mat" is then the
probability of its characters, and the two words' sum that of "mat." as a word.

Masked LMs (PLL and its variants), encoder-decoders and n-gram models take the plain sum
only: the correction reads a causal LM's next-token distribution.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from acceptability.scoring.context import continuation
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import REGISTRY
from acceptability.scoring.results import Scored

#: The ways a word score is made from its tokens' log-probabilities.
BOUNDARIES = ("sum", "corrected")
COLUMNS = ["sentence_id", "model", "method", "boundary", "index", "word", "start", "end",
           "logprob", "surprisal", "n_tokens"]
Span = tuple[int, int]


def word_spans(text: str, words: Sequence[str] | Sequence[Span] | None = None) -> list[Span]:
    """Character spans (start, end) of the words of `text`, checked.

    Parameters
    ----------
    text : str
    words : None, sequence of str, or sequence of (start, end)
        None: whitespace-separated words. Strings: found in `text` left to right (whatever
        lies between them must be whitespace). Spans: taken as given; a zero-length span
        (an empty region) is allowed.

    Returns
    -------
    list of (int, int)
        In order, not overlapping, together covering every non-space character of `text`
        (else `ScoringError`, saying which character is left out).

    Examples
    --------
    >>> from acceptability.scoring.words import word_spans
    >>> word_spans("The cat sat.")
    [(0, 3), (4, 7), (8, 12)]
    >>> word_spans("The cat sat.", ["The", "cat", "sat", "."])
    [(0, 3), (4, 7), (8, 11), (11, 12)]
    """
    if words is None:
        return [m.span() for m in re.finditer(r"\S+", text)]
    if isinstance(words, str):
        raise ScoringError(f"the words of {text!r} are one string ({words!r}); give a list")
    words = list(words)
    if all(isinstance(w, str) for w in words):
        spans = _located(text, words)
    elif all(isinstance(w, Sequence) and len(w) == 2 and not isinstance(w, str) for w in words):
        spans = [(int(a), int(b)) for a, b in words]
    else:
        raise ScoringError("words must be a list of strings or of (start, end) character spans")
    _check_spans(text, spans)
    return spans


def _located(text: str, words: list[str]) -> list[Span]:
    """Each word's span, searched for left to right from the end of the one before."""
    spans, at = [], 0
    for word in words:
        start = text.find(word, at)
        if start < 0:
            raise ScoringError(f"word {word!r} is not in {text!r} after character {at}: the "
                               "words must be spelt as in the text, in order")
        spans.append((start, start + len(word)))
        at = start + len(word)
    return spans


def _check_spans(text: str, spans: list[Span]) -> None:
    """Spans within the text, in order, not overlapping, covering its non-space characters."""
    covered = np.zeros(len(text), dtype=bool)
    end = 0
    for start, stop in spans:
        if not 0 <= start <= stop <= len(text) or start < end:
            raise ScoringError(f"word span ({start}, {stop}) of {text!r} is outside the text or "
                               "overlaps the one before; give spans in order, within the text")
        covered[start:stop] = True
        end = stop
    left = [i for i, c in enumerate(text) if not covered[i] and not c.isspace()]
    if left:
        raise ScoringError(f"character {text[left[0]]!r} at {left[0]} of {text!r} is in no word "
                           f"({len(left)} such); every non-space character must be in a word "
                           "(keep punctuation as words of its own or within one)")


def token_words(text: str, offsets: Sequence[Span], spans: Sequence[Span]) -> list[int]:
    """The word (index into `spans`) of each token of `text` (`offsets`): the word holding the
    token's first non-space character; a whitespace-only token's the word it lies in, else
    the next word (the last word's at the end). A token spanning two words counts for the
    word it starts in.

    Examples
    --------
    >>> from acceptability.scoring.words import token_words
    >>> text = "cat\\nsat on"  # GPT-2 tokens: "cat", "Ċ", "sat", "Ġon"
    >>> token_words(text, [(0, 3), (3, 4), (4, 7), (7, 10)], [(0, 3), (4, 7), (8, 10)])
    [0, 1, 1, 2]
    """
    full = [k for k, (a, b) in enumerate(spans) if b > a]  # empty spans (regions) hold no token
    starts = [spans[k][0] for k in full]
    owners = []
    for start, end in offsets:
        first = next((p for p in range(start, end) if not text[p].isspace()), start)
        i = bisect.bisect_right(starts, first) - 1
        if i < 0 or first >= spans[full[i]][1]:  # between words: whitespace, to the next one
            i = min(i + 1, len(full) - 1)
        owners.append(full[i])
    return owners


def _word_logprobs(text: str, s: Scored, spans: list[Span], corrected: bool) -> list[tuple[float, int]]:
    """(log-probability, tokens) of each word of the scored `text`: its tokens' sum, and with
    `corrected` the boundary terms of the module docstring (`Scored.boundary`)."""
    if len(s.offsets) != len(s.logprobs):
        raise ScoringError("this method gives no token offsets, so its tokens cannot be "
                           "grouped into words")
    if corrected and len(s.boundary) != len(s.logprobs) + 1:
        raise ScoringError(f"{len(s.boundary)} boundary log-probabilities for {len(s.logprobs)} "
                           "tokens (n + 1 expected): the scores were not computed for words")
    counts = np.bincount(token_words(text, s.offsets, spans), minlength=len(spans))
    ends = np.cumsum(counts)
    out = []
    for (a, b), n, end in zip(spans, counts, ends, strict=True):
        lp = math.fsum(s.logprobs[end - n : end])
        if corrected and b > a:
            lp += s.boundary[end] if b == len(text) or text[b].isspace() else 0.0
            lp -= s.boundary[end - n] if a == 0 or text[a - 1].isspace() else 0.0
        out.append((lp, int(n)))
    return out


def _sentence_rows(text: str, context: str, s: Scored, spans: list[Span] | None,
                   corrected: bool) -> list[tuple]:
    """(index, word, start, end, logprob, n_tokens) per word of one sentence (`spans` None:
    an n-gram model's own words)."""
    if spans is None:  # the model's own words, and </s>
        at, rows = 0, []
        for i, (word, lp) in enumerate(zip(s.tokens, s.logprobs, strict=True)):
            start = text.find(word, at) if word != "</s>" else -1
            at = start + len(word) if start >= 0 else at
            span = (start, start + len(word)) if start >= 0 else (pd.NA, pd.NA)
            rows.append((i, word, *span, lp, 1))
        return rows
    scored = continuation(context, text)
    shift = len(scored) - len(text)  # the space put before a text scored after a context
    moved = [(a + shift, b + shift) for a, b in spans]
    parts = _word_logprobs(scored, s, moved, corrected)
    return [(i, text[a:b], a, b, lp, n) for i, ((a, b), (lp, n)) in enumerate(zip(spans, parts, strict=True))]


def _given_words(words: Any, frame: pd.DataFrame) -> list[Any]:
    """Each sentence's words as `word_spans` takes them (None: whitespace-separated)."""
    ids = list(frame["sentence_id"])
    if callable(words):
        return [words(text) for text in frame["text"]]
    if isinstance(words, str):
        if words != "whitespace":
            raise ScoringError(f"words={words!r}: give 'whitespace', a function of the text, or "
                               "the words (or spans) of each sentence")
        return [None] * len(ids)
    if isinstance(words, pd.Series):
        words = words.to_dict()
    if isinstance(words, Mapping):
        missing = [i for i in ids if i not in words]
        if missing:
            raise ScoringError(f"no words given for sentence_id(s) {', '.join(missing[:5])}")
        return [words[i] for i in ids]
    values = list(words)
    if len(values) != len(ids):
        raise ScoringError(f"words for {len(values)} sentences, but there are {len(ids)}: give "
                           "one list per sentence, or a dict by sentence_id")
    return values


def plan_words(frame: pd.DataFrame, contexts: list[str], words: Any, boundary: str,
               options: ScoringOptions) -> list[list[Span] | None]:
    """Check a `scoring.word_scores` request before anything is scored; each sentence's word
    spans (`word_spans`; None for an n-gram model, whose words are its own tokens).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring import ScoringOptions
    >>> from acceptability.scoring.words import plan_words
    >>> frame = pd.DataFrame({"sentence_id": ["s1"], "text": ["It rained."]})
    >>> plan_words(frame, [""], "whitespace", "corrected", ScoringOptions(method="logprob"))
    [[(0, 2), (3, 10)]]
    """
    if boundary not in BOUNDARIES:
        raise ScoringError(f"boundary must be one of {BOUNDARIES}, got {boundary!r}")
    method = REGISTRY.get(options.method)  # an unknown one: the scorer says so
    if method is not None and not method.tokens:
        raise ScoringError(f"the {method.name} method gives sentence scores only; no word scores")
    if boundary == "corrected":
        _check_corrected(frame, contexts, options)
    if method is not None and not method.offsets:
        if not (isinstance(words, str) and words == "whitespace"):
            raise ScoringError("an n-gram model's words are its own tokens: leave words out")
        return [None] * len(frame)
    return [word_spans(text, given)
            for text, given in zip(frame["text"], _given_words(words, frame), strict=True)]


def _check_corrected(frame: pd.DataFrame, contexts: list[str], options: ScoringOptions) -> None:
    """Fail before scoring where the boundary correction is not defined."""
    method = REGISTRY.get(options.method)
    if method is None or method.kind != "causal":
        raise ScoringError(
            f"boundary='corrected' reads a causal LM's next-token distribution (method "
            f"'logprob'), not method {options.method!r}; its word scores are plain sums: "
            "use boundary='sum'")
    trailing = frame["sentence_id"][frame["text"].str[-1].str.isspace()]
    if len(trailing):
        raise ScoringError(f"sentence(s) {', '.join(trailing[:5])} end in whitespace, after "
                           "which no word ends; strip it (text.rstrip()) for boundary='corrected'")
    if options.start_token in (None, "none") and not all(contexts):
        raise ScoringError("boundary='corrected' needs the first word's first token scored: "
                           "give a start token (start_token='auto', the default), or give "
                           "every sentence a context")


def word_table(frame: pd.DataFrame, scored: list[Scored], spans: list[list[Span] | None],
               model: str, method: str, boundary: str) -> pd.DataFrame:
    """The table of `scoring.word_scores` from the sentences (`sentence_id`, `text`,
    `context`), their scores and `plan_words`' spans.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.results import Scored
    >>> from acceptability.scoring.words import word_table
    >>> frame = pd.DataFrame({"sentence_id": ["s1"], "text": ["Hi there"], "context": [""]})
    >>> one = Scored.from_tokens(["Hi", "Ġthere"], [(0, 2), (2, 8)], [-1.0, -2.5])
    >>> word_table(frame, [one], [[(0, 2), (3, 8)]], "lm", "logprob", "sum")["logprob"].tolist()
    [-1.0, -2.5]
    """
    rows = [(sid, *row)
            for sid, text, ctx, s, sp in zip(frame["sentence_id"], frame["text"], frame["context"],
                                             scored, spans, strict=True)
            for row in _sentence_rows(text, ctx, s, sp, boundary == "corrected")]
    out = pd.DataFrame(rows, columns=["sentence_id", "index", "word", "start", "end", "logprob",
                                      "n_tokens"])
    out = out.astype({"start": "Int64", "end": "Int64", "logprob": float, "n_tokens": int})
    out["model"], out["method"], out["boundary"] = model, method, boundary
    out["surprisal"] = -out["logprob"] / math.log(2)
    return out[COLUMNS]
