"""Length-sorted batching, dynamic padding and masked-position-only LM heads for the scorers."""

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
def head_rows(model, rows):
    """Apply the model's output projection only to `rows` of the flattened (batch*time) hidden states.

    The vocabulary projection dominates the cost of a small forward pass; PLL needs it only at
    masked positions and logprob only at real (non-pad) positions. A forward pre-hook on
    `get_output_embeddings()` works for every Hugging Face LM head, so `.logits` comes back as
    (len(rows), vocab). Without an output embedding module the full logits are indexed instead.
    """
    head = model.get_output_embeddings()
    if head is None:
        yield lambda logits: logits.reshape(-1, logits.shape[-1])[rows]
        return

    def select(_module, args):
        hidden = args[0]
        return (hidden.reshape(-1, hidden.shape[-1])[rows], *args[1:])

    handle = head.register_forward_pre_hook(select)
    try:
        yield lambda logits: logits
    finally:
        handle.remove()


def target_logprobs(logits, targets) -> list[float]:
    """log softmax(logits)[target] per row, in float32, without materialising the full log-softmax."""
    logits = logits.float()
    picked = logits.gather(1, targets.unsqueeze(1)).squeeze(1)
    return (picked - logits.logsumexp(-1)).cpu().tolist()
