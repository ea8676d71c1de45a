"""Run a float32 or bfloat16 model's linear layers on the CPU through oneDNN with weights packed once.

PyTorch's default CPU `nn.Linear` calls MKL's sgemm on the weight in its plain layout (float32)
or oneDNN, reordering the weight on every call (bfloat16). oneDNN with the weight reordered
once into its blocked layout (what `torch.compile` does on CPU with freezing) measured
1.1-1.3x faster on the transformer layers and 2x faster on GPT-2's 50257-word output layer
here in float32 (2 cores, AVX-512), with the same results up to float rounding (~3e-6); in
bfloat16 (AMX) 1.05-1.25x faster per layer shape than plain bfloat16 layers and 1.13x on
bfloat16 PLL, with identical results. A GELU that follows a linear layer (BERT's
intermediate layer, GPT-2's MLP) is fused into it. These are PyTorch's internal
`torch.ops.mkldnn` operators: the public routes measured no faster here (torch.utils.mkldnn
0.9-1.1x of packed; torch.compile with freezing 0.85-1.2x per layer but a compile per batch
shape), so packing runs only on the torch versions tested here (TORCH_TESTED), every packed
layer is checked against the plain one, and a layer is left alone where the operators are
missing or disagree.
"""

from __future__ import annotations

import os
from typing import Any

from acceptability._warnings import warn

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

TORCH_TESTED = ("2.3", "2.14")  # pack on torch >= the first and < the second, else plain layers
PACK_BATCH_HINT = 64  # rows oneDNN tunes the packed layout for; any number of rows works
# (linear, activation) attribute pairs of a module computing activation(linear(x)):
# BERT-family intermediate layers, GPT-2's MLP.
LINEAR_THEN_ACTIVATION = (("dense", "intermediate_act_fn"), ("c_fc", "act"))


def _gelu_kind(activation: Any) -> str | None:
    """oneDNN's name for a GELU module ('none': exact erf, 'tanh': approximation), else None."""
    from transformers import activations

    return {activations.GELUActivation: "none", activations.GELUTanh: "tanh"}.get(type(activation))


def _packed_forward(module: Any, original: Any, gelu: str | None = None):
    """forward(x) = x W^T + b (then GELU) through oneDNN, in the weight's dtype; the plain
    forward where it does not apply (another dtype or device, or autograd)."""
    import torch
    from transformers.pytorch_utils import Conv1D

    dense = module.weight.t() if isinstance(module, Conv1D) else module.weight  # (out, in)
    weight = torch.ops.mkldnn._reorder_linear_weight(dense.detach().contiguous(), PACK_BATCH_HINT)
    op, bias = torch.ops.mkldnn._linear_pointwise, module.bias
    attr, algorithm = ("gelu", gelu) if gelu else ("none", "")

    def forward(x):
        if x.dtype != dense.dtype or x.device.type != "cpu" or torch.is_grad_enabled():
            out = original(x)
            return torch.nn.functional.gelu(out, approximate=gelu) if gelu else out
        return op(x, weight, bias, attr, [], algorithm)

    return forward


def _agrees(forward: Any, original: Any, activation: Any, width: int, dtype: Any) -> bool:
    """Packed `forward` equals `activation(original(x))` on a random input of `dtype` (float32:
    to 1e-4; bfloat16: to 2 units in the last place, as a GELU fused before or applied after
    rounding to bfloat16 may differ by one)."""
    import torch

    probe = torch.randn(3, width, dtype=dtype)
    expected = original(probe)
    expected = activation(expected) if activation else expected
    tol = {"atol": 1e-4} if dtype == torch.float32 else {"rtol": 2**-6, "atol": 2**-6}
    return torch.allclose(forward(probe).float(), expected.float(), **tol)


def _free_memory() -> int | None:
    """Bytes of physical memory free now (Linux), else None."""
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def packing_supported(dtype: Any = None) -> bool:
    """Whether this torch is a version tested here and has the oneDNN operators packing uses
    (for bfloat16 also: this CPU multiplies bfloat16 natively, AVX512-BF16 or AMX)."""
    import torch

    low, high = TORCH_TESTED
    supported = (
        low <= torch.__version__ < high
        and torch.backends.mkldnn.is_available()
        and hasattr(torch.ops.mkldnn, "_linear_pointwise")
    )
    if dtype == torch.bfloat16:
        return supported and torch.ops.mkldnn._is_mkldnn_bf16_supported()
    return supported and dtype in (None, torch.float32)


def prepack_linears(model: Any) -> int:
    """Pack every `nn.Linear` and GPT-2 `Conv1D` of a CPU float32 or bfloat16 `model` for
    oneDNN; returns how many.

    The modules keep their parameters (state_dict, weight tying and hooks are untouched); only
    their forward changes. The packed copies need as much memory again as the linear weights,
    so a model whose copies would take more than half the free memory is left unpacked.
    """
    import torch
    from transformers.pytorch_utils import Conv1D

    dtype = model.dtype
    if not packing_supported(dtype):
        return 0
    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear | Conv1D)]
    needed = sum(m.weight.numel() * m.weight.element_size() for m in linears)
    free = _free_memory()
    if free is not None and needed > free / 2:
        warn(
            f"not packing linear layers for oneDNN: the copies would take {needed / 2**30:.1f} GiB "
            f"of {free / 2**30:.1f} GiB free; scoring runs at PyTorch's default speed"
        )
        return 0
    fused = {}  # linear module -> (its parent, activation attribute, oneDNN GELU kind)
    for parent in model.modules():
        for linear_attr, act_attr in LINEAR_THEN_ACTIVATION:
            linear, activation = getattr(parent, linear_attr, None), getattr(parent, act_attr, None)
            if linear is not None and (kind := _gelu_kind(activation)):
                fused[linear] = (parent, act_attr, kind)
    packed = 0
    with torch.inference_mode():
        for module in linears:
            if module.weight.dtype != dtype or module.weight.device.type != "cpu":
                continue
            parent, act_attr, gelu = fused.get(module, (None, None, None))
            original = module.forward
            forward = _packed_forward(module, original, gelu)
            activation = getattr(parent, act_attr) if parent is not None else None
            width = module.weight.shape[0 if isinstance(module, Conv1D) else 1]
            if not _agrees(forward, original, activation, width, dtype):
                warn("oneDNN packed linear disagrees with nn.Linear; not packing")
                return packed
            module.forward = forward
            if parent is not None:
                setattr(parent, act_attr, torch.nn.Identity())  # now applied inside the linear layer
            packed += 1
    return packed
