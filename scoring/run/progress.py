"""Progress bars that draw only where someone watches: a terminal or a notebook.

Our own bars use tqdm's ``disable=None`` (off when the stream is not a terminal).
transformers and huggingface_hub draw theirs (loading weights, downloads) on any stream,
so a log file or a pipe fills with carriage-return redraws; `hf_progress_quiet`
turns theirs off for a block when nobody watches.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def watched() -> bool:
    """True when stderr is a terminal or the code runs in a notebook (IPython kernel)."""
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty()) or "ipykernel" in sys.modules


@contextmanager
def hf_progress_quiet() -> Iterator[None]:
    """transformers' and huggingface_hub's progress bars off inside the block, unless
    someone watches or the user chose with ``HF_HUB_DISABLE_PROGRESS_BARS``."""
    from transformers.utils import logging as hf_logging

    if watched() or "HF_HUB_DISABLE_PROGRESS_BARS" in os.environ \
            or not hf_logging.is_progress_bar_enabled():
        yield
        return
    from transformers import modeling_gguf_pytorch_utils as gguf_loading

    # Its GGUF loader draws a plain tqdm bar that the switch above does not reach.
    bar = gguf_loading.tqdm
    hf_logging.disable_progress_bar()
    gguf_loading.tqdm = functools.partial(bar, disable=True)
    try:
        yield
    finally:
        gguf_loading.tqdm = bar
        hf_logging.enable_progress_bar()
