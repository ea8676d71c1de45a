"""Causal LM scores: log P(s) = sum_t log P(w_t | START, w_<t), per-token surprisal, prefix
continuations; START is the start token (`start_token`: BOS, end-of-text or a given one)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import CONTINUATION, Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run.batches import (
    head_rows,
    inference,
    logit_rows,
    pad,
    pad_id,
    pad_multiple,
)
from acceptability.scoring.run.overlap import overlaps, pipeline
from acceptability.scoring.run.runner import Scorer, by_length, model_scorer, transformer

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

#: Start-token choices besides a token of the vocabulary given as text; None: no start token.
START_CHOICES = ("auto", "bos", "eos")
#: BOS tokens that open a chat turn, not a text: "auto" starts after end-of-text instead.
CHAT_MARKERS = ("<|im_start|>",)  # ChatML's (SmolLM2-Instruct)
END_OF_TEXT = "<|endoftext|>"  # the document separator of GPT-2, SmolLM2, Qwen2.5, Pythia


def start_token(tokenizer: Any, choice: str | None, name: str = "model") -> str | None:
    """The token a causal LM's first word is conditioned on, as text, from `choice`:

    - "bos": the tokenizer's BOS token;
    - "eos": end-of-text, the separator between training documents that GPT-2 and
      lm-eval-harness condition on: ``<|endoftext|>`` where the vocabulary has it (an
      instruct model's EOS may end a chat turn instead, SmolLM2's ``<|im_end|>``), else
      the tokenizer's EOS token;
    - "auto" (the default): "bos", unless the tokenizer has no BOS (Qwen2.5) or its BOS
      opens a chat turn (`CHAT_MARKERS`: SmolLM2-Instruct's ``<|im_start|>``); then "eos".
      GPT-2: ``<|endoftext|>``; Llama: ``<s>``; Gemma: ``<bos>``;
    - any other text: that token of the vocabulary (e.g. ``"<|endoftext|>"``);
    - None (or "none"): no start token; the text's first token is then not scored.

    A ScoringError when the token asked for does not exist, saying which would.
    """
    if choice is None or choice == "none":
        return None
    bos, eos = tokenizer.bos_token, tokenizer.eos_token
    vocab = tokenizer.get_vocab()
    if choice == "auto":
        choice = "bos" if bos is not None and bos not in CHAT_MARKERS else "eos"
    token = {"bos": bos, "eos": END_OF_TEXT if END_OF_TEXT in vocab else eos}.get(choice, choice)
    if token is None or token not in vocab:
        what = f"no {choice.upper()} token" if choice in START_CHOICES else f"no token {choice!r}"
        offer = [f"{c!r} ({t})" for c, t in (("bos", bos), ("eos", eos)) if t is not None]
        raise ScoringError(
            f"model {name!r} has {what} to condition the first word on; give start_token "
            f"{' or '.join(offer + ['a token of its vocabulary'])}, or None (the first token "
            "is then not scored)")
    return token


@dataclass
class CausalInput:
    """Token ids to run; the first `n_context` are conditioned on, the rest scored."""

    ids: list[int]
    n_context: int
    tokens: list[str]
    offsets: list[tuple[int, int]]


def encode(lm: LanguageModel, text: str, context: str = "", start: str | None = "auto") -> CausalInput:
    """Tokens of `text` to score after the start token and `context`:
    log P(text | START, context).

    The one conditioning mechanism of sentences in context (`scoring.score`, Lau et al. 2020)
    and BLiMP's prefix methods: context and text are tokenized apart (`text` as joined by
    `scoring.context.continuation`) and only the text's tokens are scored.

    `start` (`start_token`; default "auto": BOS, or end-of-text where BOS is missing or a
    chat marker) comes first, so every token of the text is scored; with None the first
    token of context+text has nothing to condition on and is not scored.
    """
    return next(encode_many(lm, [(context, text)], start))


def encode_many(lm: LanguageModel, pairs: list[tuple[str, str]],
                start: str | None = "auto") -> Iterator[CausalInput]:
    """`encode` of each (context, text) pair, in order; the texts, and the distinct contexts,
    tokenized in one call each (`tokenize_all`: all of it is done before the first batch
    can start on the device). A ScoringError stops it at the pair it is about."""
    tok = lm.tokenizer
    token = start_token(tok, start, lm.name)
    bos: list[int] = [] if token is None else [tok.convert_tokens_to_ids(token)]
    encodings = tokenize_all(tok, [text for _, text in pairs], special_tokens=False)
    contexts = sorted({context for context, _ in pairs if context})
    ctx_ids = {c: e.ids for c, e in zip(contexts, tokenize_all(tok, contexts, False), strict=True)}
    for (context, _), enc in zip(pairs, encodings, strict=True):
        ctx = ctx_ids.get(context, [])
        ids = bos + ctx + enc.ids
        n_context = max(len(bos) + len(ctx), 1)
        skipped = n_context - len(bos) - len(ctx)  # the unscored first token when there is no BOS
        if len(ids) > lm.max_length:
            raise ScoringError(too_long(len(ids), lm, bool(ctx)))
        yield CausalInput(
            ids=ids,
            n_context=n_context,
            tokens=enc.tokens[skipped:],
            offsets=enc.offsets[skipped:],
        )


def tokenize_all(tokenizer, texts: list[str], special_tokens: bool) -> list:
    """The fast tokenizer's encodings (`tokenizers.Encoding`: ids, tokens, offsets, word ids,
    special-token mask) of `texts`, from one call of its Rust backend, which encodes the list
    in parallel, with no conversion of every encoding to Python lists as transformers' call
    makes: encoding 16,000 BLiMP sentences took 0.25 s for logprob and 0.65 s for PLL against
    0.68 and 1.36 s a call per text (benchmarks/bench_batching.py, AMD EPYC, 2 cores). Truncation and padding are switched
    off first, as transformers' own call without them does."""
    backend = tokenizer.backend_tokenizer
    if backend.truncation is not None:
        backend.no_truncation()
    if backend.padding is not None:
        backend.no_padding()
    return backend.encode_batch(texts, add_special_tokens=special_tokens) if texts else []


def too_long(n: int, lm: LanguageModel, context: bool) -> str:
    """The error of an input longer than `lm` accepts (scoring never truncates)."""
    fix = ("with its context; shorten the context" if context else
           "shorten or split the sentence")
    return f"{n} tokens, more than the {lm.max_length} model {lm.name!r} accepts, {fix} (scoring never truncates)"


@dataclass
class CausalBatch:
    """A batch ready for the device (`pad`ded ids and mask; the head's flattened rows, their
    targets and, for word boundaries, each row's boundary class)."""

    ids: Any
    mask: Any
    rows: Any
    targets: Any
    kinds: Any = None


def iter_logprobs(
    lm: LanguageModel, items: list[CausalInput], batches: list[list[int]],
    word_boundaries: bool = False,
) -> Iterator[tuple[list[int], list[Scored]]]:
    """Score `items` in `batches` (length-sorted), dynamically padded: (indices, Scored) per batch.

    Each scored token's log-probability is read from the logits at the previous position;
    the LM head runs only at those positions (`head_rows`), never at padding. With
    `word_boundaries` each Scored also gets `boundary` (n + 1 values, `boundary_logprobs`):
    entry 0 is log P(the first token's class or EOS), entry i > 0 log P(a word-initial token
    or EOS) after token i - 1 (`word_start_classes`); the head then runs at one more
    position per sentence, after its last token. Without it nothing else runs. Batches go
    through `overlap.pipeline` (prepared ahead, finished one behind on an accelerator).
    """
    import torch

    padding = pad_id(lm.tokenizer)
    extra = int(word_boundaries)
    table = word_start_classes(lm.tokenizer, _logit_count(lm)) if word_boundaries else None
    classes = None if table is None else torch.as_tensor(table, device=lm.device)

    def prepare(batch: list[int]) -> CausalBatch:
        ids, mask = pad([items[i].ids for i in batch], padding, pad_multiple(lm))
        width = ids.shape[1]
        rows, targets, kinds = [], [], []
        for r, i in enumerate(batch):
            seq, first = items[i].ids, items[i].n_context
            rows += range(r * width + first - 1, r * width + len(seq) - 1 + extra)
            targets += seq[first:] + seq[-1:] * extra  # the extra row's target: a stand-in, unused
            if table is not None:  # a sentence's first row: its first token's class; then 1
                kinds += [int(table[1, seq[first]]) if first < len(seq) else 1]
                kinds += [1] * (len(seq) - first)
        return CausalBatch(ids, mask, torch.tensor(rows), torch.tensor(targets),
                           torch.tensor(kinds) if table is not None else None)

    def launch(b: CausalBatch):
        rows = b.rows.to(lm.device, non_blocking=True)
        with inference(lm), head_rows(lm.model, rows, exact_head=lm.head_fp32) as read:
            logits = lm.model(input_ids=b.ids.to(lm.device, non_blocking=True),
                              attention_mask=b.mask.to(lm.device, non_blocking=True),
                              use_cache=False).logits
            logprobs = read(logits, b.targets)
            if classes is None:
                return logprobs
            flat = logits.reshape(-1, logits.shape[-1])
            flat = flat if lm.model.get_output_embeddings() is not None else flat[rows.to(flat.device)]
            return torch.cat([logprobs, boundary_logprobs(flat, b.kinds, classes.to(flat.device))])

    def finish(batch: list[int], values: list[float]) -> list[Scored]:
        logprobs, bounds = values[: len(values) // (1 + extra)], values[len(values) // (1 + extra):]
        scored, start = [], 0
        for i in batch:
            n = len(items[i].ids) - items[i].n_context
            one = Scored.from_tokens(items[i].tokens, items[i].offsets, logprobs[start : start + n])
            if classes is not None:
                one.boundary = bounds[start : start + n + 1]
            scored.append(one)
            start += n + extra
        return scored

    return pipeline(batches, prepare, launch, finish, overlaps(lm))


def _logit_count(lm: LanguageModel) -> int:
    """How many logits `lm` gives per position: its output layer's rows, else the vocabulary."""
    head = lm.model.get_output_embeddings()
    return head.weight.shape[0] if head is not None else lm.model.config.vocab_size


@lru_cache(maxsize=8)
def word_start_classes(tokenizer, size: int) -> np.ndarray:
    """Which next tokens leave the text before them a whole word: a (2, `size`) bool table,
    row 1 the word-initial ids (their text begins with whitespace: GPT-2's "Ġ", "Ċ",
    SentencePiece's "▁"), row 0 the other ordinary ids; EOS in both, other special tokens
    and logits past the tokenizer's ids in neither (Pimentel & Meister 2024: S_bow and eos).

    Raises ScoringError when the tokenizer does not put whitespace at the start of tokens
    (it marks word ends, or has no whitespace tokens): the correction needs a
    leading-space ("beginning-of-word") vocabulary.
    """
    count = min(len(tokenizer), size)
    initial = np.zeros(size, dtype=bool)
    initial[:count] = _leading_space(tokenizer)[:count]
    ordinary = np.zeros(size, dtype=bool)
    ordinary[:count] = True
    ordinary[[i for i in tokenizer.all_special_ids if i < size]] = False
    table = np.stack([ordinary & ~initial, ordinary & initial])
    if tokenizer.eos_token_id is not None and tokenizer.eos_token_id < size:
        table[:, tokenizer.eos_token_id] = True
    return table


def _leading_space(tokenizer) -> np.ndarray:
    """Whether each id's text, decoded after an ordinary token, begins with whitespace.

    Decoding after an anchor (a token that decodes alone and twice without whitespace)
    keeps the leading space that SentencePiece strips from a text's first token."""
    def text(ids: list[int]) -> str:
        return tokenizer.decode(ids, clean_up_tokenization_spaces=False)

    anchors = [tokenizer(s, add_special_tokens=False)["input_ids"][-1:] for s in ("ab", "xab", "qqqq")]
    anchor = next((a for a in anchors if a and text(a).strip() == text(a) != ""
                   and text(a * 2) == text(a) * 2), None)
    probe = tokenizer("a b", add_special_tokens=False)["input_ids"][1:]
    if anchor is not None:
        lead = text(anchor)
        texts = tokenizer.batch_decode([[*anchor, i] for i in range(len(tokenizer))],
                                       clean_up_tokenization_spaces=False)
        initial = np.array([t.startswith(lead) and t[len(lead) : len(lead) + 1].isspace()
                            for t in texts])
        if any(initial[i] for i in probe):
            return initial
    raise ScoringError(
        f"tokenizer {type(tokenizer).__name__} does not start tokens with the whitespace before "
        "them (as GPT-2's 'Ġ' or SentencePiece's '▁' do), so which next tokens start a new "
        "word cannot be read from it; use boundary='sum'"
    )


def boundary_logprobs(logits, kinds, classes):
    """log P(next token in class `kinds[r]` | row r) per row of `logits`: the log-sum-exp of
    the class's logits minus that of all, in float32, a tensor on the logits' device
    (`classes`: `word_start_classes`).

    Rows go `batches.logit_rows` at a time, as `batches.target_logprobs` does.
    """
    import torch

    step = logit_rows(logits)
    kinds = torch.as_tensor(kinds, dtype=torch.long, device=logits.device)
    out = []
    for s in range(0, len(logits), step):
        chunk = logits[s : s + step].float()
        keep = classes[kinds[s : s + step]]
        out.append(chunk.masked_fill(~keep, float("-inf")).logsumexp(-1) - chunk.logsumexp(-1))
    return torch.cat(out)


def scorer(method: Method, options: ScoringOptions) -> Scorer:
    """log P(text | context) by a causal LM (`iter_logprobs`), with `options.start_token` and,
    with `options.word_boundaries`, the next token's word-start probabilities. A prefix method
    runs the `registry.CONTINUATION` scorer, log P(word | prefix): both share its cache entries."""
    lm, budget = transformer(method, options)
    # keyed only when on: plain scores keep their cache entries
    bounds = {"word_boundaries": True} if options.word_boundaries else {}
    start = start_token(lm.tokenizer, options.start_token, lm.name)
    return model_scorer(lm, method, lambda pairs: encode_many(lm, pairs, start), by_length(lm, budget),
                        lambda items, batches: iter_logprobs(lm, items, batches, **bounds),
                        {"start_token": start, **bounds},
                        label=CONTINUATION if method.prefix else None)
