"""Encoder-decoder (T5, BART) scores: the sentence as the decoder's target, and the BabyLM
pipeline's masked-encoder variant.

seq2seq: log P(s | x) = sum_t log P_dec(w_t | start, specials, w_<t; enc(x)), the sentence's
    tokens w_t as the tokenizer makes them the decoder's labels (T5: `w </s>`, BART:
    `<s> w </s>`), read after the model's decoder start token (T5 `<pad>`, BART `</s>`)
    exactly as training shifts labels right; the sentence's tokens are scored, the special
    ones (BART's `<s>`, the final `</s>`) not. The encoder reads x: the sentence's context
    (`scoring.context`) or, without one, the empty text with the tokenizer's special tokens
    (T5 `</s>`, BART `<s> </s>`).
seq2seq_pll: sum_t log P_dec(w_t | D; enc(s with w_t masked)), the BabyLM 2025 evaluation
    pipeline's `enc_dec_mask` backend (babylm/evaluation-pipeline-2025,
    sentence_zero_shot/dataset.py `process_enc_dec_mask_sentences` and compute_results.py
    `compute_enc_dec_mask_results`): the encoder reads the tokenized sentence (special tokens
    included) with one token replaced by the mask token (BART `<mask>`; without one, the
    first sentinel, T5 `<extra_id_0>`), the decoder reads D = [BOS, mask] (BART `<s> <mask>`;
    without a BOS, [first sentinel]: T5 `<extra_id_0>`), not the decoder start token, and
    the logits at D's last position score the masked token. Scored tokens are those whose
    character span ends inside the sentence (the pipeline's rule: end > start).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from itertools import accumulate

from acceptability.scoring.backends import masked as mlm
from acceptability.scoring.backends.causal import too_long
from acceptability.scoring.backends.masked import CopyPlan, copy_plan, masked_copies, pll_batches
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run import batches as batching
from acceptability.scoring.run.batches import head_rows, inference, pad, pad_id, pad_multiple
from acceptability.scoring.run.overlap import overlaps, pipeline
from acceptability.scoring.run.runner import Scorer, model_scorer, transformer

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1


@dataclass
class Seq2SeqInput:
    """Encoder ids `ids`, decoder ids `decoder`, and the `targets` to score: for seq2seq read
    at decoder `positions`; for seq2seq_pll each at the decoder's last position with encoder
    position `positions[k]` masked (one encoder copy per target)."""

    ids: list[int]
    decoder: list[int]
    positions: list[int]
    targets: list[int]
    tokens: list[str]
    offsets: list[tuple[int, int]]


def decoder_start(lm: LanguageModel) -> int:
    """The token the decoder starts from (`config.decoder_start_token_id`; T5 `<pad>`,
    BART `</s>`), as `labels` are shifted right in training."""
    start = getattr(lm.model.config, "decoder_start_token_id", None)
    if start is None:
        start = getattr(getattr(lm.model, "generation_config", None), "decoder_start_token_id", None)
    if start is None:
        raise ScoringError(f"model {lm.name!r} names no decoder_start_token_id in its config; "
                           "set it (T5: 0, BART: 2) to score sentences as decoder targets")
    return int(start)


def encode(lm: LanguageModel, text: str, context: str = "") -> Seq2SeqInput:
    """seq2seq: `text`'s tokens as the decoder's target, the encoder reading `context` (or
    the empty text) with the tokenizer's special tokens.

    The decoder starts a sequence of its own, so the space `scoring.context.continuation`
    puts before a sentence with a context is not tokenized; offsets stay relative to `text`.
    """
    tok = lm.tokenizer
    lead = len(text) - len(text.lstrip()) if context else 0
    source = tok(context)["input_ids"]
    if not source:
        raise ScoringError(f"model {lm.name!r}'s tokenizer adds no special token to the empty "
                           "text, so the encoder has nothing to read: give each sentence a context")
    enc = tok(text[lead:], return_offsets_mapping=True, return_special_tokens_mask=True)
    labels = enc["input_ids"]
    scored = [p for p, special in enumerate(enc["special_tokens_mask"]) if not special]
    if not scored:
        raise ScoringError(f"{text!r} has no tokens but special ones to score")
    decoder = [decoder_start(lm), *labels[: scored[-1]]]
    for ids, is_context in ((source, True), (decoder, False)):
        if len(ids) > lm.max_length:
            raise ScoringError(too_long(len(ids), lm, is_context))
    return _input(tok, source, decoder, scored, labels, enc["offset_mapping"], lead)


def _input(tok, ids: list[int], decoder: list[int], positions: list[int], labels: list[int],
           spans: list[tuple[int, int]], shift: int) -> Seq2SeqInput:
    """The input scoring `labels[p]` for each of `positions`, its tokens' character spans
    moved by `shift` to be relative to the scored text."""
    targets = [labels[p] for p in positions]
    offsets = [(max(spans[p][0] + shift, 0), spans[p][1] + shift) for p in positions]
    return Seq2SeqInput(ids, decoder, positions, targets, tok.convert_ids_to_tokens(targets), offsets)


def _sentinel(tok) -> int | None:
    """The first additional special token's id (T5 `<extra_id_0>`): `extra_special_tokens`
    in transformers 5, `additional_special_tokens` before."""
    extra = getattr(tok, "extra_special_tokens", None) or getattr(tok, "additional_special_tokens", None)
    return tok.convert_tokens_to_ids(str(extra[0])) if extra else None


def babylm_mask_tokens(lm: LanguageModel) -> tuple[int, list[int]]:
    """The BabyLM pipeline's encoder mask id and decoder input for `enc_dec_mask`: the mask
    token, else the first sentinel; decoder [BOS, mask], else [first sentinel]."""
    tok = lm.tokenizer
    sentinel = _sentinel(tok)
    mask = tok.mask_token_id if tok.mask_token_id is not None else sentinel
    decoder = [tok.bos_token_id, mask] if tok.bos_token_id is not None else [sentinel]
    if mask is None or None in decoder:
        raise ScoringError(f"model {lm.name!r} has neither a mask token nor a sentinel token "
                           "(T5's <extra_id_0>) to mask the encoder input with")
    return mask, decoder


def encode_pll(lm: LanguageModel, text: str, context: str = "") -> Seq2SeqInput:
    """seq2seq_pll: one encoder copy per token of `text`, that token masked (BabyLM's
    `enc_dec_mask`). With a `context`, context and text are tokenized as one text (`text`
    as joined by `scoring.context.continuation`) and only the text's tokens are masked."""
    tok = lm.tokenizer
    _mask, decoder = babylm_mask_tokens(lm)
    enc = tok(context + text, return_offsets_mapping=True)
    ids, spans, start = enc["input_ids"], enc["offset_mapping"], len(context)
    if len(ids) > lm.max_length:
        raise ScoringError(too_long(len(ids), lm, bool(context)))
    positions = [i for i, (_, end) in enumerate(spans) if end > start]
    if not positions:
        raise ScoringError(f"{text!r} has no tokens but special ones to score")
    return _input(tok, ids, decoder, positions, ids, spans, -start)


def batches(lm: LanguageModel, items: list[Seq2SeqInput], batch_size: int, masked: bool,
            budget: int | None) -> list[list[int]]:
    """seq2seq: sentences by their decoder inputs' length, seq2seq_pll: by their encoder
    copies (`masked.pll_batches`), longest first, filling `budget` tokens or, without one,
    `batch_size` sentences."""
    if masked:
        return pll_batches(lm, items, batch_size, budget)
    return batching.plan_batches(lm, [len(it.decoder) for it in items], None, batch_size, budget)


def _exact_head(lm: LanguageModel):
    """The float32 output layer, with BART's `final_logits_bias` (added after the layer)
    folded into its bias, so the exact logits of a bfloat16 run include it."""
    if lm.head_fp32 is None:
        return None
    weight, bias = lm.head_fp32
    after = getattr(lm.model, "final_logits_bias", None)
    if after is None:
        return lm.head_fp32
    after = after.detach().reshape(-1).to(device=weight.device, dtype=weight.dtype)
    return weight, after if bias is None else bias + after


def _forward(lm: LanguageModel, ids, mask, decoder, decoder_mask, rows, targets):
    """log P(target) at each of `rows` of the flattened (sequence, decoder position) logits of
    one forward pass, a float32 tensor on the device; the output layer runs only at those
    rows (`head_rows`)."""
    device = lm.device
    with inference(lm), head_rows(lm.model, rows.to(device), exact_head=_exact_head(lm)) as read:
        logits = lm.model(
            input_ids=ids.to(device, non_blocking=True), attention_mask=mask.to(device, non_blocking=True),
            decoder_input_ids=decoder.to(device, non_blocking=True),
            decoder_attention_mask=decoder_mask.to(device, non_blocking=True), use_cache=False,
        ).logits
        return read(logits, targets)


def _scored(items: list[Seq2SeqInput], batch: list[int], logprobs: list[float]) -> list[Scored]:
    """Each item's share of a batch's token log-probabilities, in batch order."""
    ends = accumulate(len(items[i].targets) for i in batch)
    return [
        Scored.from_tokens(items[i].tokens, items[i].offsets, logprobs[end - len(items[i].targets) : end])
        for i, end in zip(batch, ends, strict=True)
    ]


def iter_seq2seq(
    lm: LanguageModel, items: list[Seq2SeqInput], batches: list[list[int]]
) -> Iterator[tuple[list[int], list[Scored]]]:
    """seq2seq scores of `items`, one forward pass per batch (encoder and decoder inputs
    right-padded), through `overlap.pipeline`: (indices, Scored) per batch."""
    import torch

    padding = pad_id(lm.tokenizer)

    def prepare(batch: list[int]):
        multiple = pad_multiple(lm)
        ids, mask = pad([items[i].ids for i in batch], padding, multiple)
        dec, dec_mask = pad([items[i].decoder for i in batch], padding, multiple)
        width = dec.shape[1]
        rows = torch.tensor([r * width + p for r, i in enumerate(batch) for p in items[i].positions])
        return ids, mask, dec, dec_mask, rows, torch.tensor([t for i in batch for t in items[i].targets])

    return pipeline(batches, prepare, lambda prepared: _forward(lm, *prepared),
                    partial(_scored, items), overlaps(lm))


def iter_seq2seq_pll(
    lm: LanguageModel, items: list[Seq2SeqInput], batches: list[list[int]], budget: int | None = None
) -> Iterator[tuple[list[int], list[Scored]]]:
    """seq2seq_pll scores of `items`: every masked encoder copy of a batch's sentences (built
    on the device, `masked.masked_copies`), each with the BabyLM decoder input, read at its
    last position; in passes of at most `budget` encoder tokens (`masked.tokens_per_pass`)."""
    import torch

    mask_id, decoder = babylm_mask_tokens(lm)
    padding = pad_id(lm.tokenizer)

    def prepare(batch: list[int]) -> CopyPlan:
        masks = [[[p] for p in items[i].positions] for i in batch]
        return copy_plan(items, batch, masks, padding, pad_multiple(lm))

    def launch(plan: CopyPlan):
        copies, attention, _positions, targets = masked_copies(plan, mask_id, lm.device)
        out = []
        for part in batching.pass_slices(len(copies), copies.shape[1], budget):
            n = len(copies[part])
            dec = torch.tensor(decoder, device=copies.device).expand(n, -1)
            rows = torch.arange(n, device=copies.device) * len(decoder) + len(decoder) - 1
            out.append(_forward(lm, copies[part], attention[part], dec, torch.ones_like(dec), rows,
                                targets[part]))
        return torch.cat(out)

    return pipeline(batches, prepare, launch, partial(_scored, items), overlaps(lm))


def scorer(method: Method, options: ScoringOptions) -> Scorer:
    """seq2seq (the text as the decoder's target, the context read by the encoder) or, for a
    `method.pll`, BabyLM's masked encoder copies in passes of `masked.tokens_per_pass` tokens."""
    lm, budget = transformer(method, options)
    if method.pll:
        budget = mlm.tokens_per_pass(lm, options.batch_tokens)
    enc = encode_pll if method.pll else encode
    run = partial(iter_seq2seq_pll, budget=budget) if method.pll else iter_seq2seq
    return model_scorer(lm, method, lambda pairs: (enc(lm, text, context) for context, text in pairs),
                        lambda items, bs: batches(lm, items, bs, method.pll, budget),
                        lambda items, batched: run(lm, items, batched))
