"""Masked LM pseudo-log-likelihood: PLL (Salazar et al. 2020; thesis eq. 3) and PLL-word-l2r.

PLL(s) = sum_t log P_MLM(w_t | s with w_t masked). PLL-word-l2r (Kauf & Ivanova 2023) also masks
the pieces of the same word to the right of w_t, so a multi-piece word is not predicted from its
own later pieces. "Word" is the tokenizer's pre-tokenized word (`word_ids()`), as in minicons.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from acceptability.scoring.backends.causal import too_long
from acceptability.scoring.batches import (
    bert_layers,
    head_rows,
    inference,
    length_sorted_batches,
    pad,
    token_budget_batches,
)
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.results import Scored

# Tokens of masked copies per forward pass on the CPU in bfloat16 (2 bytes a number); other
# dtypes take the same bytes (float32: 2048 tokens). Measured on 2 cores (bert-base, 400
# LI-Adger sentences): in bfloat16 passes of 2048 and 8192 tokens ran 10% and 12% slower
# than 4096; in float32 passes of 1024 and 4096 ran 3% and 8% slower than 2048; 64
# sentences' copies in one pass (~80k tokens) ran 35% slower than passes of 4096.
CPU_TOKENS_PER_PASS = 4096


def tokens_per_pass(lm: LanguageModel) -> int | None:
    """Tokens of masked copies one forward pass takes: CPU_TOKENS_PER_PASS scaled to the
    model's dtype on the CPU; None (all of a batch's copies at once) elsewhere."""
    if lm.device != "cpu":
        return None
    return max(1, CPU_TOKENS_PER_PASS * 2 // lm.model.dtype.itemsize)


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
    tok = lm.tokenizer
    if tok.mask_token_id is None:
        raise ScoringError(f"model {lm.name!r} has no mask token; PLL and MNTP need a masked LM")
    enc = tok(context + text, return_offsets_mapping=True, return_special_tokens_mask=True)
    ids = enc["input_ids"]
    if len(ids) > lm.max_length:
        raise ScoringError(too_long(len(ids), lm, bool(context)))
    words, spans, start = enc.word_ids(), enc["offset_mapping"], len(context)
    positions = [
        i for i, special in enumerate(enc["special_tokens_mask"])
        if not special and (not context or spans[i][1] > start)  # ends inside the text
    ]
    masks = [
        [i]
        + (
            [j for j in positions if j > i and words[j] is not None and words[j] == words[i]]
            if word_l2r
            else []
        )
        for i in positions
    ]
    return MaskedInput(
        ids=ids,
        positions=positions,
        masks=masks,
        tokens=[tok.convert_ids_to_tokens(ids[i]) for i in positions],
        offsets=[(max(spans[i][0] - start, 0), spans[i][1] - start) for i in positions],
    )


def pll_batches(lm: LanguageModel, items: list[MaskedInput], batch_size: int) -> list[list[int]]:
    """Sentences scored together, longest first: on the CPU as many as fill one pass
    (`tokens_per_pass`) with their masked copies, elsewhere `batch_size` sentences.

    Batches of 16 sentences made small passes of short sentences, which oneDNN runs at half its
    rate in bfloat16: full passes ran PLL 4-7% faster in bfloat16 and 5% in float32 (bert-base,
    400 LI-Adger sentences, 2 cores).
    """
    lengths = [len(it.ids) for it in items]
    budget = tokens_per_pass(lm)
    if budget:
        return token_budget_batches(lengths, [len(it.positions) for it in items], budget)
    return length_sorted_batches(lengths, batch_size)


def iter_pll(
    lm: LanguageModel, items: list[MaskedInput], batches: list[list[int]], shift: int = 0
) -> Iterator[tuple[list[int], list[Scored]]]:
    """PLL of `items`, a batch of sentences (all their masked copies) at a time (`pll_batches`).
    Each masked token's log-probability is read `shift` positions before it (MNTP: 1,
    `backends.mntp`), at its own position by default.

    Sentences are sorted by length so copies are barely padded, and the MLM head runs only at
    the masked position of each copy (`head_rows`). On the CPU the copies go through the model
    in passes of at most `tokens_per_pass` tokens.
    """
    mask_id = lm.tokenizer.mask_token_id
    pad_id = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    budget = tokens_per_pass(lm)
    for batch in batches:
        copies, positions, targets = [], [], []
        for i in batch:
            item = items[i]
            for pos, masked in zip(item.positions, item.masks, strict=True):
                copy = list(item.ids)
                for j in masked:
                    copy[j] = mask_id
                copies.append(copy)
                positions.append(pos - shift)
                targets.append(item.ids[pos])
        # copies[0] is the longest (batches are sorted longest first), so no pass exceeds budget
        per_pass = max(1, budget // len(copies[0]) if budget and copies else len(copies))
        logprobs = []
        for s in range(0, len(copies), per_pass):
            logprobs += _masked_logprobs(
                lm, copies[s : s + per_pass], positions[s : s + per_pass], targets[s : s + per_pass], pad_id
            )
        scored, start = [], 0
        for i in batch:
            n = len(items[i].positions)
            scored.append(
                Scored.from_tokens(items[i].tokens, items[i].offsets, logprobs[start : start + n])
            )
            start += n
        yield batch, scored


@contextmanager
def first_layer_rows_once(model, ids):
    """Run BERT-family first-layer query/key/value projections once per distinct input row.

    A row of the first layer's input is the embedding of (token, position), so the masked
    copies of a sentence share all rows but the masked one: projecting each distinct row once
    skips ~80% of those projections (forward hooks; no-op for other architectures).
    """
    import torch

    layers = bert_layers(model)
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


def _masked_logprobs(
    lm: LanguageModel, copies: list[list[int]], positions: list[int], targets: list[int], pad_id: int
) -> list[float]:
    """log P(target | copy) at each copy's masked position, in one forward pass."""
    import torch

    ids, attention = pad(copies, pad_id)
    width = ids.shape[1]
    rows = torch.tensor([r * width + p for r, p in enumerate(positions)], device=lm.device)
    ids = ids.to(lm.device)
    with (
        inference(lm),
        first_layer_rows_once(lm.model, ids),
        head_rows(lm.model, rows, from_last_layer=True, exact_head=lm.head_fp32) as read,
    ):
        logits = lm.model(input_ids=ids, attention_mask=attention.to(lm.device)).logits
        return read(logits, torch.tensor(targets, device=lm.device))
