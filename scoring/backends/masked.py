"""Masked LM pseudo-log-likelihood: PLL (Salazar et al. 2020; thesis eq. 3) and PLL-word-l2r.

PLL(s) = sum_t log P_MLM(w_t | s with w_t masked). PLL-word-l2r (Kauf & Ivanova 2023) also masks
the pieces of the same word to the right of w_t, so a multi-piece word is not predicted from its
own later pieces. "Word" is the tokenizer's pre-tokenized word (`word_ids()`), as in minicons.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from acceptability.scoring.backends.causal import tokenize_all, too_long
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run.batches import (
    bert_layers,
    head_rows,
    inference,
    pad,
    pad_id,
    pad_multiple,
    pass_slices,
    plan_batches,
    token_budget,
)
from acceptability.scoring.run.overlap import overlaps, pipeline
from acceptability.scoring.run.runner import Scorer, model_scorer, transformer

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

# Tokens of masked copies per forward pass on the CPU in bfloat16 (2 bytes a number); other
# dtypes take the same bytes (float32: 2048 tokens). Measured on 2 cores (bert-base, 400
# LI-Adger sentences): in bfloat16 passes of 2048 and 8192 tokens ran 10% and 12% slower
# than 4096; in float32 passes of 1024 and 4096 ran 3% and 8% slower than 2048; 64
# sentences' copies in one pass (~80k tokens) ran 35% slower than passes of 4096.
CPU_TOKENS_PER_PASS = 4096


def tokens_per_pass(lm: LanguageModel, batch_tokens: int | None = None) -> int | None:
    """Tokens of masked copies one forward pass takes: `batch_tokens` if given, on the CPU
    CPU_TOKENS_PER_PASS scaled to the model's dtype, elsewhere `batches.token_budget`'s."""
    return token_budget(lm, batch_tokens, max(1, CPU_TOKENS_PER_PASS * 2 // lm.model.dtype.itemsize))


@dataclass
class MaskedInput:
    """Token ids with special tokens; `masks[k]` are the positions masked to score `positions[k]`."""

    ids: list[int]
    positions: list[int]
    masks: list[list[int]]
    tokens: list[str]
    offsets: list[tuple[int, int]]


def encode(lm: LanguageModel, text: str, word_l2r: bool = False, context: str = "") -> MaskedInput:
    """One masked copy per non-special token of `text` (`word_l2r`: also mask the word's
    later pieces).

    With a `context`, `context + text` is tokenized as one sequence (`text` as joined by
    `scoring.context.continuation`) and only the tokens that cover characters of `text` are
    masked and scored; the context's tokens stay unmasked in every copy. Offsets are
    relative to `text`.
    """
    return next(encode_many(lm, [(context, text)], word_l2r))


def encode_many(lm: LanguageModel, pairs: list[tuple[str, str]],
                word_l2r: bool = False) -> Iterator[MaskedInput]:
    """`encode` of each (context, text) pair, in order, tokenized in one call
    (`causal.tokenize_all`). A ScoringError stops it at the pair it is about."""
    tok = lm.tokenizer
    if tok.mask_token_id is None:
        raise ScoringError(f"model {lm.name!r} has no mask token; PLL and MNTP need a masked LM")
    encodings = tokenize_all(tok, [context + text for context, text in pairs], special_tokens=True)
    for (context, _), enc in zip(pairs, encodings, strict=True):
        ids = enc.ids
        if len(ids) > lm.max_length:
            raise ScoringError(too_long(len(ids), lm, bool(context)))
        words, spans, start = enc.word_ids, enc.offsets, len(context)
        positions = [
            i for i, special in enumerate(enc.special_tokens_mask)
            if not special and (not context or spans[i][1] > start)  # ends inside the text
        ]
        masks = [
            [i] + ([j for j in positions if j > i and words[j] is not None and words[j] == words[i]]
                   if word_l2r else [])
            for i in positions
        ]
        tokens = enc.tokens
        yield MaskedInput(
            ids=ids,
            positions=positions,
            masks=masks,
            tokens=[tokens[i] for i in positions],
            offsets=[(max(spans[i][0] - start, 0), spans[i][1] - start) for i in positions],
        )


def pll_batches(lm: LanguageModel, items: list[MaskedInput], batch_size: int,
                budget: int | None) -> list[list[int]]:
    """Sentences scored together, longest first: as many as fill `budget` tokens
    (`tokens_per_pass`) with their masked copies; `batch_size` sentences without one.

    Batches of 16 sentences made small passes of short sentences, which oneDNN runs at half its
    rate in bfloat16: full passes ran PLL 4-7% faster in bfloat16 and 5% in float32 (bert-base,
    400 LI-Adger sentences, 2 cores).
    """
    return plan_batches(lm, [len(it.ids) for it in items], [len(it.positions) for it in items],
                        batch_size, budget)


@dataclass
class CopyPlan:
    """A batch's masked copies, built on the device by `masked_copies`: copy k is sentence
    `sentence[k]` (a row of `ids`) scored at `position[k]`, with the (copy, position) pairs
    `mask_rows`, `mask_cols` masked; `ids`/`mask` the batch's sentences, `pad`ded."""

    ids: Any
    mask: Any
    sentence: Any
    position: Any
    mask_rows: Any
    mask_cols: Any


def copy_plan(items: list, batch: list[int], masks: list[list[list[int]]], pad_id: int,
              multiple: int = 1) -> CopyPlan:
    """The CopyPlan of `batch`'s sentences (`items[i].ids`, `.positions`), `masks[r][k]` the
    positions sentence r's k-th copy masks; host work only: index lists, no copies."""
    import numpy as np
    import torch

    ids, mask = pad([items[i].ids for i in batch], pad_id, multiple)
    counts = [len(items[i].positions) for i in batch]
    per_copy = [m for sentence in masks for m in sentence]
    return CopyPlan(
        ids, mask,
        sentence=torch.from_numpy(np.repeat(np.arange(len(batch)), counts)),
        position=torch.tensor([p for i in batch for p in items[i].positions]),
        mask_rows=torch.from_numpy(np.repeat(np.arange(len(per_copy)), [len(m) for m in per_copy])),
        mask_cols=torch.tensor([j for m in per_copy for j in m]),
    )


def masked_copies(plan: CopyPlan, mask_id: int, device: Any):
    """(copies, attention mask, scored positions, targets) on `device`: one gather of the
    sentences' rows and one masked assignment, whatever the number of copies."""
    ids, mask, sentence, position, rows, cols = (
        t.to(device, non_blocking=True) for t in (plan.ids, plan.mask, plan.sentence,
                                                  plan.position, plan.mask_rows, plan.mask_cols))
    copies = ids[sentence]
    copies[rows, cols] = mask_id
    return copies, mask[sentence], position, ids[sentence, position]


def iter_pll(
    lm: LanguageModel, items: list[MaskedInput], batches: list[list[int]],
    budget: int | None = None, shift: int = 0,
) -> Iterator[tuple[list[int], list[Scored]]]:
    """PLL of `items`, a batch of sentences (all their masked copies) at a time (`pll_batches`).
    Each masked token's log-probability is read `shift` positions before it (MNTP: 1,
    `backends.mntp`), at its own position by default.

    Sentences are sorted by length so copies are barely padded; the copies are built on the
    device (`masked_copies`), and the MLM head runs only at the masked position of each copy
    (`head_rows`). A batch goes through the model in passes of at most `budget` tokens (one
    sentence's copies may be more). Batches go through `overlap.pipeline`.
    """
    mask_id = lm.tokenizer.mask_token_id
    padding = pad_id(lm.tokenizer)

    def prepare(batch: list[int]) -> CopyPlan:
        return copy_plan(items, batch, [items[i].masks for i in batch], padding, pad_multiple(lm))

    def launch(plan: CopyPlan):
        import torch

        copies, attention, positions, targets = masked_copies(plan, mask_id, lm.device)
        # no pass exceeds budget but one of a single sentence whose copies alone do
        return torch.cat([
            _masked_logprobs(lm, copies[part], attention[part], positions[part] - shift, targets[part])
            for part in pass_slices(len(copies), copies.shape[1], budget)
        ])

    def finish(batch: list[int], logprobs: list[float]) -> list[Scored]:
        scored, start = [], 0
        for i in batch:
            n = len(items[i].positions)
            scored.append(Scored.from_tokens(items[i].tokens, items[i].offsets, logprobs[start : start + n]))
            start += n
        return scored

    return pipeline(batches, prepare, launch, finish, overlaps(lm))


@contextmanager
def first_layer_rows_once(model, ids):
    """Run BERT-family first-layer query/key/value projections once per distinct input row.

    A row of the first layer's input is the embedding of (token, position), so the masked
    copies of a sentence share all rows but the masked one: projecting each distinct row once
    skips ~80% of those projections (forward hooks; no-op for other architectures and off
    the CPU, where finding the distinct rows would wait for the device and the projections
    are a small share of the work).
    """
    import torch

    layers = bert_layers(model) if ids.device.type == "cpu" else None  # unique() would sync a GPU
    attention = getattr(getattr(layers[0], "attention", None), "self", None) if layers else None
    if attention is None or not all(hasattr(attention, n) for n in ("query", "key", "value")):
        yield
        return
    width = ids.shape[1]
    keys = (ids * width + torch.arange(width, device=ids.device)).flatten()
    distinct, inverse = torch.unique(keys, return_inverse=True)
    first = torch.empty_like(distinct).scatter_(0, inverse, torch.arange(len(keys), device=ids.device))

    def compact(_module, args):
        return (args[0].reshape(len(keys), -1)[first], *args[1:])

    def expand(_module, _args, out):
        return out[inverse].reshape(*ids.shape, -1)

    projections = (attention.query, attention.key, attention.value)
    handles = [p.register_forward_pre_hook(compact) for p in projections]
    handles += [p.register_forward_hook(expand) for p in projections]
    try:
        yield
    finally:
        for handle in handles:
            handle.remove()


def _masked_logprobs(lm: LanguageModel, copies, attention, positions, targets):
    """log P(target | copy) at each copy's masked position, in one forward pass: a float32
    tensor on the device."""
    import torch

    rows = torch.arange(len(copies), device=copies.device) * copies.shape[1] + positions
    with (
        inference(lm),
        first_layer_rows_once(lm.model, copies),
        head_rows(lm.model, rows, from_last_layer=True, exact_head=lm.head_fp32) as read,
    ):
        logits = lm.model(input_ids=copies, attention_mask=attention).logits
        return read(logits, targets)


def scorer(method: Method, options: ScoringOptions) -> Scorer:
    """The PLL of a masked LM (`iter_pll`), in passes of `tokens_per_pass` tokens of masked
    copies; with `method.word_l2r` each token's word's later pieces masked too."""
    lm, _ = transformer(method, options)
    copies = tokens_per_pass(lm, options.batch_tokens)
    return model_scorer(lm, method, lambda pairs: encode_many(lm, pairs, word_l2r=method.word_l2r),
                        lambda items, bs: pll_batches(lm, items, bs, copies),
                        lambda items, batches: iter_pll(lm, items, batches, copies))
