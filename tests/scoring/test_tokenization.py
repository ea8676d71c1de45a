"""`scoring.tokenization_stats` (issue 46, item 7) recomputed here: tokens per word and per
character by the tokenizer's own ids, and the byte-fallback share by GPT-2's byte-to-unicode
table written here (a byte-level BPE token that is not whole UTF-8 characters), on the tiny
GPT-2 and on SmolLM2-135M with TurBLiMP (Latin) and SLING (Han)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from tests.conftest import need_data

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

ROWS = [("tr", "Kedi bahçede uyudu."), ("tr", "Çocuk okula gitti."), ("ru", "Кошка спала в саду."),
        ("zh", "猫在花园里睡觉。"), ("en", "The cat slept.")]


def _byte_of_char() -> dict[str, int]:
    """GPT-2's bytes_to_unicode inverted (Radford et al. 2019, encoder.py): printable bytes as
    themselves, the others shifted to 256 + k."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), 256)]
    shifted = [b for b in range(256) if b not in keep]
    return {**{chr(b): b for b in keep}, **{chr(256 + k): b for k, b in enumerate(shifted)}}


def _expected(tokenizer, frame: pd.DataFrame) -> pd.DataFrame:
    """Per language: tokens per word and per character, and the share of tokens whose bytes
    are not whole UTF-8 characters."""
    byte = _byte_of_char()
    rows = []
    for language, group in frame.groupby("language"):
        tokens = [t for text in group["text"] for t in tokenizer.tokenize(text)]
        partial = 0
        for token in tokens:
            try:
                bytes(byte[c] for c in token).decode("utf-8")
            except UnicodeDecodeError:
                partial += 1
        rows.append((language, len(tokens) / group["text"].str.split().str.len().sum(),
                     len(tokens) / group["text"].str.len().sum(), partial / len(tokens)))
    return pd.DataFrame(rows, columns=["language", "tokens_per_word", "tokens_per_char",
                                       "fallback_share"])


def _check(stats: pd.DataFrame, tokenizer, frame: pd.DataFrame) -> None:
    expected = _expected(tokenizer, frame)
    assert list(stats["language"]) == list(expected["language"])
    for column in ("tokens_per_word", "tokens_per_char", "fallback_share"):
        np.testing.assert_allclose(stats[column], expected[column], rtol=1e-12)


def test_tiny_gpt2_by_hand(gpt2_dir):
    import transformers

    frame = pd.DataFrame({"sentence_id": [f"s{i}" for i in range(len(ROWS))],
                          "language": [lang for lang, _ in ROWS], "text": [t for _, t in ROWS]})
    stats = scoring.tokenization_stats(frame, gpt2_dir)
    _check(stats, transformers.AutoTokenizer.from_pretrained(gpt2_dir), frame)
    assert stats.set_index("language")["sentences"].to_dict() == {"en": 1, "ru": 1, "tr": 2, "zh": 1}
    one = scoring.tokenization_stats(frame.drop(columns="language"), gpt2_dir)
    assert list(one["language"]) == ["all"] and one["tokens"].item() == stats["tokens"].sum()


@pytest.mark.real_model
@pytest.mark.slow
def test_smollm2_on_two_scripts():
    """Latin Turkish is mostly whole characters; Han is spelled in pieces of characters."""
    from tests.scoring.test_real_models import smollm2_file

    frames = [getattr(data, f"load_{name}")(need_data(name)).sentences.groupby("paradigm").head(20)
              for name in ("turblimp", "sling")]
    frame = pd.concat(frames, ignore_index=True)
    lm = scoring.load_model(str(smollm2_file()), "causal", dtype="float32", device="cpu")
    stats = scoring.tokenization_stats(frame, lm)
    _check(stats, lm.tokenizer, frame)
    share = stats.set_index("language")["fallback_share"]
    assert (round(share["tr"], 3), round(share["zh"], 3)) == (0.047, 0.852)  # scoring.tokenization_stats
