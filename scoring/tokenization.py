"""How well a model's tokenizer covers each language of a dataset (issue 46, item 7): tokens per
word and per character, and the share of unknown or byte-fallback tokens. A model that cannot
tokenize a script spells it byte by byte, and its accuracy there measures little."""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from acceptability.scoring.api import display_name, sentences_frame
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel, load_model

#: SentencePiece's byte-fallback pieces (Llama, Gemma): one UTF-8 byte each.
BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")


def fallback_ids(tokenizer: Any, ids: set[int]) -> set[int]:
    """Those of `ids` that are the unknown token or a byte fallback: a SentencePiece byte piece
    (``<0xE2>``), or a byte-level BPE token (GPT-2, SmolLM2) that holds only part of a
    character, so that it decodes alone to U+FFFD."""
    unk = tokenizer.unk_token_id
    pieces = tokenizer.convert_ids_to_tokens(sorted(ids))
    return {i for i, piece in zip(sorted(ids), pieces, strict=True)
            if i == unk or BYTE_PIECE.fullmatch(str(piece)) or "\ufffd" in tokenizer.decode([i])}


def tokenization_stats(data: Any, model: Any, language_column: str = "language") -> pd.DataFrame:
    """Per language, the model's tokens of the sentences against their words and characters.

    Parameters
    ----------
    data : Dataset or DataFrame
        Sentences with `sentence_id` and `text` (`scoring.sentences_frame`); without a
        `language_column` all sentences are one language, "all".
    model : str, path or LanguageModel
        A transformer (hub id, folder or GGUF file, loaded as a causal LM) or a loaded one.
    language_column : str
        The sentences table's language column.

    Returns
    -------
    DataFrame
        One row per language: `language`, `model`, `sentences`, `words` (whitespace-separated),
        `characters`, `tokens` (the text's, no special tokens), `tokens_per_word`,
        `tokens_per_char`, `unknown` (unknown tokens) and `fallback_share` (the share of
        tokens that are unknown or byte fallbacks, `fallback_ids`).

    Examples
    --------
    Needs a transformer's tokenizer, so it is not run here (tests/scoring/test_tokenization.py
    runs SmolLM2-135M: Turkish 4.7% fallback tokens, Chinese 85.2%):

    >>> from acceptability import data, scoring
    >>> stats = scoring.tokenization_stats(data.load_sling(), "gpt2")  # doctest: +SKIP
    >>> stats[["language", "tokens_per_char", "fallback_share"]]  # doctest: +SKIP
    """
    lm = model if isinstance(model, LanguageModel) else load_model(str(model), "causal")
    if lm.tokenizer is None:
        raise ScoringError(f"model {lm.name!r} has no tokenizer to count tokens with")
    table = data.sentences if hasattr(data, "sentences") else data
    frame = sentences_frame(table)
    frame["language"] = table[language_column].to_numpy() if language_column in table else "all"
    ids = lm.tokenizer(list(frame["text"]), add_special_tokens=False)["input_ids"]
    bad = fallback_ids(lm.tokenizer, {i for row in ids for i in row})
    frame["tokens"] = [len(row) for row in ids]
    frame["fallback"] = [sum(i in bad for i in row) for row in ids]
    frame["unknown"] = [sum(i == lm.tokenizer.unk_token_id for i in row) for row in ids]
    frame["words"] = frame["text"].str.split().str.len()
    frame["characters"] = frame["text"].str.len()
    out = frame.groupby("language", sort=True).agg(
        sentences=("text", "size"), words=("words", "sum"), characters=("characters", "sum"),
        tokens=("tokens", "sum"), unknown=("unknown", "sum"), fallback=("fallback", "sum"))
    out["tokens_per_word"] = out["tokens"] / out["words"]
    out["tokens_per_char"] = out["tokens"] / out["characters"]
    out["fallback_share"] = out.pop("fallback") / out["tokens"]
    return out.reset_index().assign(model=display_name(lm.name))[
        ["language", "model", "sentences", "words", "characters", "tokens", "tokens_per_word",
         "tokens_per_char", "unknown", "fallback_share"]]
