"""GGUF checkpoints (llama.cpp's single-file format): where the file is, which weights it
holds (its sha256, the score cache's and provenance's key) and which kind of model it is.

transformers reads a GGUF file with ``from_pretrained(folder, gguf_file=name)`` and the
``gguf`` package, dequantising every tensor to float32; the model is then an ordinary
one (scoring never saves it: transformers refuses to serialise a GGUF-quantised model).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from acceptability.scoring.errors import ScoringError

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

SUFFIX = ".gguf"


def gguf_path(name: str, gguf_file: str | None) -> Path | None:
    """The GGUF file `name` means: `name` itself when it ends in .gguf, else `gguf_file`
    inside folder `name`; None for neither. A ScoringError when the file is not there."""
    if gguf_file is None and not name.lower().endswith(SUFFIX):
        return None
    path = Path(name).expanduser() / gguf_file if gguf_file is not None else Path(name).expanduser()
    if not path.is_file():
        raise ScoringError(f"GGUF file {str(path)!r} does not exist ({path.resolve()}); check the "
                           "path (load_model('folder/model.gguf') or load_model('folder', "
                           "gguf_file='model.gguf'); --model folder/model.gguf)")
    return path.resolve()


@lru_cache(maxsize=32)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    """sha256 of the file at `path`, once per (path, size, modification time)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def file_sha256(path: Path) -> str:
    """The file's sha256, hashed once per process while its size and modification time
    stay the same (a 253 MB file takes about a second)."""
    stat = path.stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


def gguf_unpacked() -> dict:
    """`from_pretrained`'s setting that unpacks every GGUF weight into a plain float tensor
    (transformers >= 5.2x would otherwise keep them in GGUF blocks where the `kernels`
    package offers a matmul kernel, which neither bfloat16 casting nor `prepack` handle);
    {} for older transformers, which always unpack."""
    try:
        from transformers import GgufConfig
    except ImportError:
        return {}
    return {"quantization_config": GgufConfig(dequantize=True)}


def gguf_kind(config: Any) -> str:
    """A GGUF config names no architecture class: an encoder-decoder (T5) is 'seq2seq',
    every other model transformers reads from GGUF a decoder ('causal')."""
    return "seq2seq" if getattr(config, "is_encoder_decoder", False) else "causal"


def gguf_error(path: Path, err: Exception) -> ScoringError:
    """Why transformers could not read `path`, and what to do."""
    text = str(err)
    if isinstance(err, ImportError) or "gguf" in text.lower() and "install" in text.lower():
        return ScoringError(f"reading GGUF file {str(path)!r} needs the gguf package: "
                            "pip install 'acceptability[scoring]' (or pip install gguf)")
    if "not supported" in text:
        import transformers
        from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

        known = sorted(set(GGUF_SUPPORTED_ARCHITECTURES) - {"general", "tokenizer"})
        return ScoringError(
            f"cannot load GGUF file {str(path)!r}: {text.strip()} transformers "
            f"{transformers.__version__} reads these architectures from GGUF: {', '.join(known)}. "
            "Use the model's original folder or hub id (save_pretrained weights) instead.")
    first = text.strip().splitlines()[0] if text.strip() else type(err).__name__
    return ScoringError(f"cannot load GGUF file {str(path)!r} ({first}); is it a complete GGUF "
                        "model file?")
