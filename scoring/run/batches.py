"""Length-sorted batching, dynamic padding, inference settings and masked-position-only LM heads."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

from acceptability.scoring.errors import ScoringError

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1


def _length_order(lengths: Sequence[int]) -> list[int]:
    """Indices longest first, ties in input order: the order every batching scores in."""
    return sorted(range(len(lengths)), key=lambda i: -lengths[i])


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (longest first), so padding is minimal."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    order = _length_order(lengths)
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def token_budget_batches(
    lengths: Sequence[int], copies: Sequence[int], budget: int, multiple: int = 1
) -> list[list[int]]:
    """Indices in the same length order, grouped so that each group's `copies` (PLL's masked
    copies; 1 a sentence otherwise), padded to its longest sentence rounded up to `multiple`
    (`pad`), fill at most `budget` tokens: one forward pass each. A sentence whose copies
    alone exceed `budget` is a group of its own."""
    if budget < 1:
        raise ValueError(f"batch_tokens must be >= 1, got {budget}")
    batches: list[list[int]] = []
    used = 0
    for i in _length_order(lengths):
        if batches and padded_width(lengths[batches[-1][0]], multiple) * (used + copies[i]) <= budget:
            batches[-1].append(i)
            used += copies[i]
        else:
            batches.append([i])
            used = copies[i]
    return batches


# Tokens per forward pass on an accelerator when `batch_tokens` is not given: about 2,000
# sentences of logprob or 150 of PLL's copies (BLiMP lengths), and logits of at most 16384
# rows (1.6 GB for a 50k vocabulary in bfloat16), which a 16 GB card holds beside a 1B model.
DEVICE_TOKENS_PER_PASS = 16384
# Padded widths on an accelerator are multiples of this: fewer distinct shapes for the
# attention kernels (cuDNN's builds a graph per shape) and tensor-core friendly sizes.
DEVICE_PAD_MULTIPLE = 8


def device_type(lm) -> str:
    """The kind of device `lm`'s inputs go to: "cpu", "cuda", "mps" ... (of "cuda:1" etc.)."""
    return str(lm.device).split(":")[0]


def on_cpu(lm) -> bool:
    """Whether `lm`'s inputs go to the CPU."""
    return device_type(lm) == "cpu"


def pad_id(tokenizer) -> int:
    """The id padding is filled with: the tokenizer's pad token, else 0 (masked out anyway)."""
    return tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0


def pass_slices(rows: int, width: int, budget: int | None) -> list[slice]:
    """`rows` inputs of `width` tokens cut into forward passes of at most `budget` tokens
    (at least one row a pass); without a budget, one pass."""
    per_pass = max(1, budget // width) if budget else max(rows, 1)
    return [slice(s, s + per_pass) for s in range(0, rows, per_pass)]


def pad_multiple(lm) -> int:
    """What padded widths are rounded up to: 1 on the CPU (no padding is free there),
    DEVICE_PAD_MULTIPLE on an accelerator."""
    return 1 if on_cpu(lm) else DEVICE_PAD_MULTIPLE


def token_budget(lm, batch_tokens: int | None, cpu_default: int | None = None) -> int | None:
    """Tokens per forward pass: `batch_tokens` if given; else on the CPU `cpu_default` (None:
    `batch_size` sentences a pass), on an accelerator DEVICE_TOKENS_PER_PASS.

    Causal models have no CPU default: logprob with budgets of 256 to 2048 tokens ran
    0.88-1.04x as fast as batches of 16 sentences (benchmarks/bench_batching.py: gpt2-size,
    400 LI-Adger sentences, AMD EPYC, 2 threads, float32 and bfloat16).
    """
    if batch_tokens is not None:
        if not isinstance(batch_tokens, int) or batch_tokens < 1:
            raise ScoringError(f"batch_tokens must be a whole number of tokens >= 1, got "
                               f"{batch_tokens!r}; leave it out for the device's default")
        return batch_tokens
    return cpu_default if on_cpu(lm) else DEVICE_TOKENS_PER_PASS


def plan_batches(lm, lengths: Sequence[int], copies: Sequence[int] | None, batch_size: int,
                 budget: int | None) -> list[list[int]]:
    """Batches of `lengths`' indices, longest first: filled to `budget` tokens (with each
    sentence's `copies`, 1 if None) when there is one, else `batch_size` sentences."""
    if budget is None:
        return length_sorted_batches(lengths, batch_size)
    return token_budget_batches(lengths, copies or [1] * len(lengths), budget, pad_multiple(lm))


def padded_width(width: int, multiple: int = 1) -> int:
    """`width` rounded up to a multiple of `multiple`."""
    return -(-width // multiple) * multiple


def pad(sequences: Sequence[Sequence[int]], pad_id: int, multiple: int = 1):
    """Right-pad token id lists to the longest one, rounded up to a multiple of `multiple`:
    (input_ids, attention_mask) tensors, built in one numpy assignment (no per-row copies)."""
    import numpy as np
    import torch

    lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
    width = padded_width(int(lengths.max()), multiple)
    mask = np.arange(width) < lengths[:, None]
    ids = np.full((len(sequences), width), pad_id, dtype=np.int64)
    ids[mask] = np.fromiter((t for s in sequences for t in s), dtype=np.int64, count=int(lengths.sum()))
    return torch.from_numpy(ids), torch.from_numpy(mask.astype(np.int64))


@contextmanager
def inference(lm):
    """`torch.inference_mode`, and the SDPA attention kernels that suit the device and dtype.

    On the CPU, for sentence-length inputs (up to ~25 tokens):

    - float32: the plain "math" kernel, half the time of the CPU flash kernel here (0.65 vs
      1.24 s of a 22 s PLL run);
    - other dtypes (bfloat16): the flash kernel where it applies (math otherwise), which works
      in bfloat16 where the math kernel converts to float32 and back (bfloat16 PLL on
      bert-base, 400 LI-Adger sentences: 63.7 against 54.8 sentences/s; scores within
      bfloat16 rounding).

    On CUDA every kernel but cuDNN's fused attention, which builds a graph for each new
    padded shape (2.7 ms of host time a call, more than a gpt2 batch's GPU time, in issue 34's
    H100 profile); flash and memory-efficient attention have no per-shape set-up.
    """
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    device = device_type(lm)
    with torch.inference_mode():
        if device == "cuda":
            kernels = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]
        elif device == "cpu":
            fp32 = lm.model.dtype == torch.float32
            kernels = [SDPBackend.MATH] if fp32 else [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]
        else:
            yield
            return
        with sdpa_kernel(kernels):
            yield


def bert_layers(model):
    """The layers of a BERT-family encoder (BERT, RoBERTa, XLM-R, ELECTRA), else None."""
    return getattr(getattr(model.base_model, "encoder", None), "layer", None)


def _last_attention_output(model):
    """A BERT-family encoder's last attention-output module, else None.

    It takes (attention context, residual) and feeds the layer's feed-forward part, so rows picked
    there skip 3/4 of the last layer's work as well as the head.
    """
    layers = bert_layers(model)
    output = getattr(getattr(layers[-1], "attention", None), "output", None) if layers else None
    return output if output is not None and hasattr(output, "LayerNorm") else None


# Logits recomputed in float32 per row when the model runs in bfloat16: the target's and the
# TOP_EXACT largest, which carry nearly all of the log-sum-exp (see target_logprobs).
TOP_EXACT = 16
# Rows of logits converted to float32 and reduced at a time on the CPU: 8 rows of a 50k-word
# vocabulary (1.6 MB) stay in cache and reuse freed memory; 200 rows at once (40 MB, fresh
# pages each time) took 4x as long here (26 vs 6.4 ms), 30% of a bfloat16 GPT-2 batch.
CPU_LOGIT_ROWS = 8
# Bytes of float32 logits reduced at a time elsewhere: a pass of DEVICE_TOKENS_PER_PASS rows
# of a 128k vocabulary would need 8 GB at once.
DEVICE_LOGIT_BYTES = 1 << 30


def logit_rows(logits) -> int:
    """How many rows of `logits` to convert to float32 and reduce at a time."""
    if logits.device.type == "cpu":
        return CPU_LOGIT_ROWS
    return max(1, DEVICE_LOGIT_BYTES // (4 * logits.shape[-1]))


@contextmanager
def head_rows(model, rows, *, from_last_layer: bool = False, exact_head=None):
    """Run the model's output head only at `rows` of the flattened (batch*time) hidden states;
    yields ``logprobs(logits, targets)``: each row's log-probability of its target
    (`target_logprobs`).

    The vocabulary projection dominates the cost of a small forward pass; PLL needs it only at
    masked positions and logprob only at real (non-pad) positions. A forward pre-hook on
    `get_output_embeddings()` works for every Hugging Face LM head, so `.logits` comes back as
    (len(rows), vocab). With `from_last_layer` (PLL: only the masked position's output is
    used), BERT-family encoders select the rows already at the last layer's attention output.
    Without an output embedding module the full logits are indexed instead. `exact_head`,
    the output layer's (weight, bias) in float32 for a model run in bfloat16, makes the
    target's and the largest logits exact products of the head's input (captured by a hook).
    """
    output = model.get_output_embeddings()
    target = (from_last_layer and _last_attention_output(model)) or output
    handles, inputs = [], []

    def select(_module, args):  # rows go where the hidden states are (a model split by device_map)
        width = args[0].shape[-1]
        return tuple(a.reshape(-1, width)[rows.to(a.device)] if a.dim() == 3 else a for a in args)

    if target is not None:
        handles.append(target.register_forward_pre_hook(select))
    if exact_head is not None and output is not None:  # after `select`: sees the chosen rows
        handles.append(output.register_forward_pre_hook(lambda _m, args: inputs.append(args[0])))

    def logprobs(logits, targets):
        if target is None:
            logits = logits.reshape(-1, logits.shape[-1])[rows.to(logits.device)]
        hidden = inputs[-1].reshape(len(logits), -1) if inputs else None
        return target_logprobs(logits, targets, exact_head if inputs else None, hidden)

    try:
        yield logprobs
    finally:
        for handle in handles:
            handle.remove()


def target_logprobs(logits, targets, exact_head=None, hidden=None):
    """log softmax(logits)[target] per row, a float32 tensor on the logits' device (no copy
    to the host: `scoring.run.overlap`), without materialising the full log-softmax.

    Logits that a bfloat16 head rounded to 8 significant bits are off by up to |logit| * 2^-8
    (0.03 at logits 8-16), which goes straight into each token's log-probability. With
    `exact_head` (the head's float32 weight and bias) and `hidden` (its input rows), the
    target's logit and the TOP_EXACT largest are recomputed in float32 (a gather of that many
    weight rows per row): the log-sum-exp then errs only by the rounding of the logits outside
    the top, weighted by their small probability. A head whose logits are not plain products
    of its input (a soft cap, a scale) disagrees beyond bfloat16 rounding and is left as is.
    Rows go `logit_rows` at a time.
    """
    import torch

    step = logit_rows(logits)
    targets = targets.to(logits.device)
    out = []
    for s in range(0, len(logits), step):
        chunk, target = logits[s : s + step].float(), targets[s : s + step].unsqueeze(1)
        if exact_head is not None:
            chunk = _exact_top(chunk, target, exact_head, hidden[s : s + step])
        out.append(chunk.gather(1, target).squeeze(1) - chunk.logsumexp(-1))
    return torch.cat(out)


def _exact_top(logits, target, exact_head, hidden):
    """`logits` with the target's and the TOP_EXACT largest recomputed in float32 from the
    head's input rows; unchanged where they disagree beyond bfloat16 rounding."""
    import torch

    weight, bias = exact_head
    index = torch.cat([target, logits.topk(min(TOP_EXACT, logits.shape[-1]), dim=-1).indices], 1)
    exact = torch.bmm(weight[index], hidden.float().unsqueeze(2)).squeeze(2)
    if bias is not None:
        exact = exact + bias[index]
    rounded = logits.gather(1, index)
    if not torch.allclose(exact, rounded, rtol=2**-6, atol=2**-6 * float(rounded.abs().max())):
        return logits
    return logits.scatter(1, index, exact)
