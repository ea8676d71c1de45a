"""Length-sorted batching, dynamic padding, inference settings and masked-position-only LM heads."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (longest first), so padding is minimal."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    return [order[i : i + batch_size] for i in range(0, len(order), batch_size)]


def pad(sequences: Sequence[Sequence[int]], pad_id: int):
    """Right-pad token id lists to the longest one: (input_ids, attention_mask) tensors."""
    import torch

    width = max(len(s) for s in sequences)
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.as_tensor(seq, dtype=torch.long)
        mask[row, : len(seq)] = 1
    return ids, mask


@contextmanager
def inference(lm):
    """`torch.inference_mode`, and on the CPU the SDPA attention kernel that is fastest for
    the model's dtype on sentence-length inputs (up to ~25 tokens):

    - float32: the plain "math" kernel, half the time of the CPU flash kernel here (0.65 vs
      1.24 s of a 22 s PLL run);
    - other dtypes (bfloat16): the flash kernel where it applies (math otherwise), which works
      in bfloat16 where the math kernel converts to float32 and back (bfloat16 PLL on
      bert-base: 9.5 against 5.3 sentences/s; scores within bfloat16 rounding).
    """
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    with torch.inference_mode():
        if lm.device != "cpu":
            yield
            return
        fp32 = lm.model.dtype == torch.float32
        with sdpa_kernel([SDPBackend.MATH] if fp32 else [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
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


@contextmanager
def head_rows(model, rows, *, from_last_layer: bool = False):
    """Run the model's output head only at `rows` of the flattened (batch*time) hidden states.

    The vocabulary projection dominates the cost of a small forward pass; PLL needs it only at
    masked positions and logprob only at real (non-pad) positions. A forward pre-hook on
    `get_output_embeddings()` works for every Hugging Face LM head, so `.logits` comes back as
    (len(rows), vocab). With `from_last_layer` (PLL: only the masked position's output is
    used), BERT-family encoders select the rows already at the last layer's attention output.
    Without an output embedding module the full logits are indexed instead.
    """
    target = (from_last_layer and _last_attention_output(model)) or model.get_output_embeddings()
    if target is None:
        yield lambda logits: logits.reshape(-1, logits.shape[-1])[rows]
        return

    def select(_module, args):
        width = args[0].shape[-1]
        return tuple(a.reshape(-1, width)[rows] if a.dim() == 3 else a for a in args)

    handle = target.register_forward_pre_hook(select)
    try:
        yield lambda logits: logits
    finally:
        handle.remove()


def target_logprobs(logits, targets) -> list[float]:
    """log softmax(logits)[target] per row, in float32, without materialising the full log-softmax."""
    logits = logits.float()
    picked = logits.gather(1, targets.unsqueeze(1)).squeeze(1)
    return (picked - logits.logsumexp(-1)).cpu().tolist()
