"""BLiMP's prefix methods (Warstadt et al. 2020, section 6.4), scored with a causal LM.

one_prefix: the pair shares a prefix and differs in a critical word; compare
    log P(word_good | prefix) with log P(word_bad | prefix).
two_prefix: the pair differs in its prefix and shares the critical word; compare
    log P(word | prefix_good) with log P(word | prefix_bad).
The result is a pairs-level table (`pair_id`, `model`, `method`, `good_score`, `bad_score`,
`good_n_tokens`, `bad_n_tokens`, `prefers_good`), not a sentence scores table: the scores are
of words in context, and only mean something within their pair.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from acceptability.scoring.api import display_name, open_cache
from acceptability.scoring.cache import ScoreCache
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.runner import compute, make_scorer

FIELDS = {
    "one_prefix": ("one_prefix_prefix", "one_prefix_word_good", "one_prefix_word_bad"),
    "two_prefix": ("two_prefix_prefix_good", "two_prefix_prefix_bad", "two_prefix_word"),
}


def _continuation(context: str, word: str) -> str:
    """BLiMP's one-prefix words lack the space that separates them from the prefix; add it."""
    return word if not context or context[-1].isspace() or word[:1].isspace() else f" {word}"


def prefix_scores(
    data: Any,
    model: Any,
    method: str = "one_prefix",
    *,
    batch_size: int = 16,
    device: str | None = None,
    dtype: Any = None,
    revision: str | None = None,
    prepend_bos: bool = True,
    model_name: str | None = None,
    cache: bool | str | Path | ScoreCache = True,
    progress: bool = True,
) -> pd.DataFrame:
    """Pairs-level prefix-method scores for the pairs whose `<method>_method` flag is true.

    data: a Dataset (uses `.pairs`) or a pairs DataFrame with `pair_id` and BLiMP's prefix fields
    (one_prefix_prefix, one_prefix_word_good/_bad; two_prefix_prefix_good/_bad, two_prefix_word).
    """
    if method not in FIELDS:
        raise ScoringError(f"unknown prefix method {method!r}; use 'one_prefix' or 'two_prefix'")
    pairs = data.pairs if hasattr(data, "pairs") else data
    missing = {"pair_id", *FIELDS[method]} - set(pairs.columns)
    if missing:
        raise ScoringError(
            f"pairs table lacks {sorted(missing)} needed by the {method} method "
            "(BLiMP's jsonl fields; keep them when loading BLiMP)"
        )
    flag = f"{method}_method"
    if flag in pairs.columns:
        pairs = pairs[pairs[flag].fillna(False).astype(bool)]
    pairs = pairs.reset_index(drop=True)
    if method == "one_prefix":
        prefix, good, bad = (pairs[c].astype(str) for c in FIELDS[method])
        good_inputs = [(p, _continuation(p, w)) for p, w in zip(prefix, good, strict=True)]
        bad_inputs = [(p, _continuation(p, w)) for p, w in zip(prefix, bad, strict=True)]
    else:
        good_prefix, bad_prefix, word = (pairs[c].astype(str) for c in FIELDS[method])
        good_inputs = [(p, _continuation(p, w)) for p, w in zip(good_prefix, word, strict=True)]
        bad_inputs = [(p, _continuation(p, w)) for p, w in zip(bad_prefix, word, strict=True)]
    scorer = make_scorer(
        model, "continuation", device=device, dtype=dtype, revision=revision, prepend_bos=prepend_bos
    )
    inputs = good_inputs + bad_inputs
    ids = list(pairs["pair_id"].astype(str))
    scored = compute(
        scorer,
        inputs,
        [f"{c}\x1f{w}" for c, w in inputs],
        [f"pair {pid!r} ({side})" for side in ("good", "bad") for pid in ids],
        batch_size=batch_size,
        cache=open_cache(cache),
        progress=progress,
    )
    n = len(pairs)
    out = pd.DataFrame(
        {
            "pair_id": ids,
            "model": model_name or display_name(scorer.label),
            "method": method,
            "good_score": [s.score for s in scored[:n]],
            "bad_score": [s.score for s in scored[n:]],
            "good_n_tokens": [s.n_tokens for s in scored[:n]],
            "bad_n_tokens": [s.n_tokens for s in scored[n:]],
        }
    )
    out["prefers_good"] = out["good_score"] > out["bad_score"]
    return out
