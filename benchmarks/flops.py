"""The minimal matrix FLOPs a scoring method needs, and the device's measured matrix-product
rate: their ratio over a run's time is the "share of peak" of bench_scoring.py's GPU table
(issue 34).

Minimal FLOPs count every real token of every forward pass through the transformer body,
2 x tokens x (weights of the body's linear layers) plus QK^T and AV, 4 x L^2 x (query
heads x head dim) per layer and sequence (so grouped-query attention counts its query
heads), and the output layer (with BERT's head transform) only at the rows whose score is
read: one per masked copy for PLL, one per scored token for logprob. Nothing for padding,
embeddings, norms, activations, softmax or biases. PLL runs the whole L-token sentence
([CLS] .. [SEP]) once per masked copy, L - 2 copies. The package's scorer may do less
(e.g. the last BERT layer's feed-forward part only at masked rows), never more that counts.

tests/scoring/test_bench_flops.py checks these counts exactly against
`torch.utils.flop_counter.FlopCounterMode` on tiny BERT, GPT-2 and Llama configs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

#: Methods the count knows: what one sentence of L tokens costs differs between them.
METHODS = ("pll", "logprob")


@dataclass(frozen=True)
class Shape:
    """What the count needs of a model: matrix entries of the body's and the head's linear
    layers, layers, and the attention width (query heads x head dim)."""

    body_weights: int
    head_weights: int
    layers: int
    attention_width: int


def _linear_weights(module: Any) -> int:
    """Matrix entries of the linear layers below `module` (nn.Linear, GPT-2's Conv1D)."""
    import torch
    from transformers.pytorch_utils import Conv1D

    return sum(m.weight.numel() for m in module.modules() if isinstance(m, torch.nn.Linear | Conv1D))


def model_shape(model: Any) -> Shape:
    """The `Shape` of a transformers model with an LM head: the body is its `base_model`,
    the head every linear layer outside it.

    Examples
    --------
    >>> from transformers import GPT2Config, GPT2LMHeadModel
    >>> gpt = GPT2LMHeadModel(GPT2Config(vocab_size=50, n_embd=16, n_layer=2, n_head=2))
    >>> model_shape(gpt)  # per layer 16 x 48 + 16 x 16 + 2 x 16 x 64; head 50 x 16
    Shape(body_weights=6144, head_weights=800, layers=2, attention_width=16)
    """
    config = model.config
    body = _linear_weights(model.base_model)
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
    return Shape(body_weights=body, head_weights=_linear_weights(model) - body,
                 layers=config.num_hidden_layers, attention_width=config.num_attention_heads * head_dim)


def config_shape(config: Any, kind: str) -> Shape:
    """The `Shape` of a config's masked or causal LM, built on the "meta" device (no
    memory, no weights), so that a loaded model's wrapped or packed layers do not count.

    Examples
    --------
    >>> from transformers import BertConfig
    >>> tiny = BertConfig(vocab_size=60, hidden_size=8, num_hidden_layers=1,
    ...                   num_attention_heads=2, intermediate_size=12)
    >>> config_shape(tiny, "masked").head_weights  # transform 8 x 8, output layer 60 x 8
    544
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    auto = {"masked": AutoModelForMaskedLM, "causal": AutoModelForCausalLM}[kind]
    with torch.device("meta"):
        return model_shape(auto.from_config(config))


def forward_flops(shape: Shape, length: int, head_rows: int) -> int:
    """Matrix FLOPs of one unpadded forward pass of `length` tokens reading the head at
    `head_rows` rows.

    Examples
    --------
    >>> forward_flops(Shape(body_weights=100, head_weights=30, layers=2, attention_width=4),
    ...               length=5, head_rows=1)  # 2*5*100 + 4*2*5*5*4 + 2*1*30
    1860
    """
    return (2 * length * shape.body_weights + 4 * shape.layers * length**2 * shape.attention_width
            + 2 * head_rows * shape.head_weights)


def minimal_flops(shape: Shape, method: str, lengths: list[int]) -> int:
    """Minimal matrix FLOPs of scoring sentences of `lengths` tokens (the model's input:
    [CLS] .. [SEP] for PLL, BOS + the sentence's tokens for logprob) with `method`.

    Examples
    --------
    >>> shape = Shape(body_weights=10, head_weights=3, layers=1, attention_width=2)
    >>> minimal_flops(shape, "pll", [4])  # 2 masked copies, each 2*4*10 + 4*16*2 + 2*3
    428
    >>> minimal_flops(shape, "logprob", [4, 2])  # (80 + 128 + 18) + (40 + 32 + 6)
    304
    """
    if method == "pll":
        return sum((n - 2) * forward_flops(shape, n, 1) for n in lengths)
    if method == "logprob":
        return sum(forward_flops(shape, n, n - 1) for n in lengths)
    raise ValueError(f"minimal_flops knows {METHODS}, not {method!r}")


def token_lengths(tokenizer: Any, method: str, texts: list[str]) -> list[int]:
    """Input tokens of each sentence as the package's scorer builds them: the tokenizer's
    specials ([CLS] .. [SEP]) for PLL, BOS + the sentence without specials for logprob.

    Examples
    --------
    >>> from tokenizers import Tokenizer, models, pre_tokenizers
    >>> from transformers import PreTrainedTokenizerFast
    >>> words = Tokenizer(models.WordLevel({"<s>": 0, "a": 1, "dog": 2}, unk_token="<s>"))
    >>> words.pre_tokenizer = pre_tokenizers.Whitespace()
    >>> tok = PreTrainedTokenizerFast(tokenizer_object=words, bos_token="<s>")
    >>> token_lengths(tok, "logprob", ["a dog", "dog"])
    [3, 2]
    """
    specials = method == "pll"
    return [len(ids) + (not specials) for ids in tokenizer(texts, add_special_tokens=specials)["input_ids"]]


def matmul_peak(device: str, n: int, repeats: int = 10) -> float:
    """The device's bfloat16 matrix-product rate in FLOP/s: `repeats` products of two
    random n x n matrices after as many untimed ones (a GPU's clocks rise under load),
    synchronised on CUDA.

    Examples
    --------
    >>> matmul_peak("cpu", 64, repeats=2) > 0
    True
    """
    import torch

    a, b = (torch.randn(n, n, device=device, dtype=torch.bfloat16) for _ in range(2))
    for _ in range(repeats):
        a @ b
    start = synchronized_clock(device)
    for _ in range(repeats):
        a @ b
    return 2 * n**3 * repeats / (synchronized_clock(device) - start)


def synchronized_clock(device: str) -> float:
    """time.perf_counter() once the device's queued work is done (CUDA runs asynchronously).

    Examples
    --------
    >>> synchronized_clock("cpu") > 0
    True
    """
    if str(device).startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    return time.perf_counter()
