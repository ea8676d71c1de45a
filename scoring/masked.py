"""Masked LM pseudo-log-likelihood: PLL (Salazar et al. 2020; thesis eq. 3) and PLL-word-l2r.

PLL(s) = sum_t log P_MLM(w_t | s with w_t masked). PLL-word-l2r (Kauf & Ivanova 2023) also masks
the pieces of the same word to the right of w_t, so a multi-piece word is not predicted from its
own later pieces. "Word" is the tokenizer's pre-tokenized word (`word_ids()`), as in minicons.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from scoring.batches import head_rows, length_sorted_batches, pad, target_logprobs
from scoring.errors import ScoringError
from scoring.models import LanguageModel
from scoring.results import Scored


@dataclass
class MaskedInput:
    """Token ids with special tokens; `masks[k]` are the positions masked to score `positions[k]`."""

    ids: list[int]
    positions: list[int]
    masks: list[list[int]]
    tokens: list[str]
    offsets: list[tuple[int, int]]


def encode(lm: LanguageModel, text: str, word_l2r: bool = False) -> MaskedInput:
    """One masked copy per non-special token (`word_l2r`: also mask the word's later pieces)."""
    tok = lm.tokenizer
    if tok.mask_token_id is None:
        raise ScoringError(f"model {lm.name!r} has no mask token; PLL needs a masked LM")
    enc = tok(text, return_offsets_mapping=True, return_special_tokens_mask=True)
    ids = enc["input_ids"]
    if len(ids) > lm.max_length:
        raise ScoringError(
            f"{len(ids)} tokens, more than the {lm.max_length} model {lm.name!r} accepts; "
            "shorten or split the sentence (scoring never truncates)"
        )
    words = enc.word_ids()
    positions = [i for i, special in enumerate(enc["special_tokens_mask"]) if not special]
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
        offsets=[tuple(enc["offset_mapping"][i]) for i in positions],
    )


def iter_pll(
    lm: LanguageModel, items: list[MaskedInput], batch_size: int
) -> Iterator[tuple[list[int], list[Scored]]]:
    """PLL of `items`, `batch_size` sentences (all their masked copies) per forward pass.

    Sentences are sorted by length so copies are barely padded, and the MLM head runs only at
    the masked position of each copy (`head_rows`).
    """
    import torch

    mask_id = lm.tokenizer.mask_token_id
    pad_id = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    for batch in length_sorted_batches([len(it.ids) for it in items], batch_size):
        copies, rows, targets = [], [], []
        width = max(len(items[i].ids) for i in batch)
        for i in batch:
            item = items[i]
            for pos, masked in zip(item.positions, item.masks, strict=True):
                copy = list(item.ids)
                for j in masked:
                    copy[j] = mask_id
                rows.append(len(copies) * width + pos)
                copies.append(copy)
                targets.append(item.ids[pos])
        ids, attention = pad(copies, pad_id)
        rows_t = torch.tensor(rows, dtype=torch.long, device=lm.device)
        with torch.inference_mode(), head_rows(lm.model, rows_t) as select:
            logits = lm.model(input_ids=ids.to(lm.device), attention_mask=attention.to(lm.device)).logits
            logprobs = target_logprobs(
                select(logits), torch.tensor(targets, dtype=torch.long, device=lm.device)
            )
        scored, start = [], 0
        for i in batch:
            n = len(items[i].positions)
            scored.append(
                Scored.from_tokens(items[i].tokens, items[i].offsets, logprobs[start : start + n])
            )
            start += n
        yield batch, scored
