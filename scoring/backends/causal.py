"""Causal LM scores: log P(s) = sum_t log P(w_t | BOS, w_<t), per-token surprisal, prefix continuations."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from acceptability.scoring.batches import head_rows, inference, pad
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.results import Scored


@dataclass
class CausalInput:
    """Token ids to run; the first `n_context` are conditioned on, the rest scored."""

    ids: list[int]
    n_context: int
    tokens: list[str]
    offsets: list[tuple[int, int]]


def encode(lm: LanguageModel, text: str, context: str = "", prepend_bos: bool = True) -> CausalInput:
    """Tokens of `text` to score after `context` and the BOS token: log P(text | BOS, context).

    The one conditioning mechanism of sentences in context (`scoring.score`, Lau et al. 2020)
    and BLiMP's prefix methods: context and text are tokenized apart (`text` as joined by
    `scoring.context.continuation`) and only the text's tokens are scored.

    With `prepend_bos` (default) the first token is conditioned on the tokenizer's BOS token
    (GPT-2: `<|endoftext|>`), so every token of the text is scored; without it the first token
    of context+text has nothing to condition on and is not scored.
    """
    tok = lm.tokenizer
    bos: list[int] = []
    if prepend_bos:
        if tok.bos_token_id is None:
            raise ScoringError(
                f"model {lm.name!r} has no BOS token to condition the first word on; "
                "pass prepend_bos=False (the first token is then not scored)"
            )
        bos = [tok.bos_token_id]
    ctx = tok(context, add_special_tokens=False)["input_ids"] if context else []
    enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
    ids = bos + ctx + enc["input_ids"]
    n_context = max(len(bos) + len(ctx), 1)
    skipped = n_context - len(bos) - len(ctx)  # the unscored first token when there is no BOS
    if len(ids) > lm.max_length:
        raise ScoringError(too_long(len(ids), lm, bool(ctx)))
    return CausalInput(
        ids=ids,
        n_context=n_context,
        tokens=tok.convert_ids_to_tokens(enc["input_ids"])[skipped:],
        offsets=[tuple(o) for o in enc["offset_mapping"]][skipped:],
    )


def too_long(n: int, lm: LanguageModel, context: bool) -> str:
    """The error of an input longer than `lm` accepts (scoring never truncates)."""
    fix = ("with its context; shorten the context" if context else
           "shorten or split the sentence")
    return f"{n} tokens, more than the {lm.max_length} model {lm.name!r} accepts, {fix} (scoring never truncates)"


def iter_logprobs(
    lm: LanguageModel, items: list[CausalInput], batches: list[list[int]]
) -> Iterator[tuple[list[int], list[Scored]]]:
    """Score `items` in `batches` (length-sorted), dynamically padded: (indices, Scored) per batch.

    Each scored token's log-probability is read from the logits at the previous position;
    the LM head runs only at those positions (`head_rows`), never at padding.
    """
    import torch

    pad_id = lm.tokenizer.pad_token_id if lm.tokenizer.pad_token_id is not None else 0
    for batch in batches:
        ids, mask = pad([items[i].ids for i in batch], pad_id)
        width = ids.shape[1]
        rows, targets = [], []
        for r, i in enumerate(batch):
            seq = items[i].ids
            rows += [r * width + t - 1 for t in range(items[i].n_context, len(seq))]
            targets += seq[items[i].n_context :]
        rows_t = torch.tensor(rows, dtype=torch.long, device=lm.device)
        with inference(lm), head_rows(lm.model, rows_t, exact_head=lm.head_fp32) as read:
            logits = lm.model(
                input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device), use_cache=False
            ).logits
            logprobs = read(logits, torch.tensor(targets, dtype=torch.long, device=lm.device))
        scored, start = [], 0
        for i in batch:
            n = len(items[i].ids) - items[i].n_context
            scored.append(
                Scored.from_tokens(items[i].tokens, items[i].offsets, logprobs[start : start + n])
            )
            start += n
        yield batch, scored
