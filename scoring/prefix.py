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

from typing import Any

import pandas as pd

from acceptability.scoring.api import display_name
from acceptability.scoring.context import context_key, continuation
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.options import ScoringOptions, refuse, resolve
from acceptability.scoring.registry import PREFIX_METHODS, REGISTRY
from acceptability.scoring.run.cache import open_cache
from acceptability.scoring.run.runner import compute, make_scorer


def _prefix_inputs(
    data: Any, method: str
) -> tuple[pd.DataFrame, list[tuple[str, str]], list[tuple[str, str]]]:
    """The pairs `method` applies to, and their (context, word) inputs, good then bad.

    BLiMP's one-prefix words lack the space that separates them from the prefix: the words
    are joined to their prefixes as sentences to their contexts (`context.continuation`)."""
    pairs = data.pairs if hasattr(data, "pairs") else data
    fields = REGISTRY[method].pair_fields  # good and bad prefixes, good and bad words
    missing = {"pair_id", *fields} - set(pairs.columns)
    if missing:
        raise ScoringError(
            f"pairs table lacks {sorted(missing)} needed by the {method} method "
            "(BLiMP's jsonl fields; keep them when loading BLiMP)"
        )
    flag = f"{method}_method"
    if flag in pairs.columns:
        pairs = pairs[pairs[flag].fillna(False).astype(bool)]
    pairs = pairs.reset_index(drop=True)
    good_prefix, bad_prefix, good, bad = (pairs[c].astype(str) for c in fields)
    good_inputs = [(p, continuation(p, w)) for p, w in zip(good_prefix, good, strict=True)]
    bad_inputs = [(p, continuation(p, w)) for p, w in zip(bad_prefix, bad, strict=True)]
    return pairs, good_inputs, bad_inputs


def prefix_scores(data: Any, model: Any = None, method: str | None = None, *,
                  options: ScoringOptions | None = None, **settings: Any) -> pd.DataFrame:
    """Pairs-level prefix-method scores for the pairs whose `<method>_method` flag is true.

    Parameters
    ----------
    data : Dataset or DataFrame
        A Dataset (uses `.pairs`) or a pairs DataFrame with `pair_id` and BLiMP's prefix
        fields (one_prefix_prefix, one_prefix_word_good/_bad; two_prefix_prefix_good/_bad,
        two_prefix_word).
    model : str, path or LanguageModel
        A causal LM: hub id, local directory or `load_model(..., "causal")` result.
    method : {"one_prefix", "two_prefix"}, default "one_prefix"
        `scoring.registry.PREFIX_METHODS`.
    options : ScoringOptions, optional
        Settings to start from; `model`, `method` and `settings` override them.
    **settings
        Fields of `ScoringOptions` a causal LM uses: `batch_size`, `device`, `dtype`,
        `revision`, `start_token`, `model_name`, `cache`, `progress`.

    Returns
    -------
    DataFrame
        `pair_id`, `model`, `method`, `good_score`, `bad_score`, `good_n_tokens`,
        `bad_n_tokens`, `prefers_good`.

    Examples
    --------
    Needs a causal LM (a transformer), so it is not run here:

    >>> from acceptability import data, scoring
    >>> npi = data.load_blimp(paradigms=["npi_present_1"])  # doctest: +SKIP
    >>> prefix = scoring.prefix_scores(npi, "gpt2", method="two_prefix")  # doctest: +SKIP
    >>> prefix["prefers_good"].mean()  # doctest: +SKIP
    """
    options = resolve(options, model, method, settings, default_method="one_prefix")
    refuse(options, ("normalise", "unigram", "acceptable_label", "text_column", "client", "recheck",
                     "target_delimiter"), "prefix_scores")
    method = options.method
    if method not in PREFIX_METHODS:
        raise ScoringError(
            f"unknown prefix method {method!r}; use {' or '.join(map(repr, PREFIX_METHODS))}"
        )
    pairs, good_inputs, bad_inputs = _prefix_inputs(data, method)
    scorer = make_scorer(options)  # the causal continuation scorer, log P(word | context)
    inputs = good_inputs + bad_inputs
    ids = list(pairs["pair_id"].astype(str))
    scored = compute(
        scorer,
        inputs,
        [context_key(c, w) for c, w in inputs],
        [f"pair {pid!r} ({side})" for side in ("good", "bad") for pid in ids],
        batch_size=options.batch_size,
        cache=open_cache(options.cache),
        progress=options.progress,
    )
    n = len(pairs)
    out = pd.DataFrame(
        {
            "pair_id": ids,
            "model": options.model_name or display_name(scorer.label),
            "method": method,
            "good_score": [s.score for s in scored[:n]],
            "bad_score": [s.score for s in scored[n:]],
            "good_n_tokens": [s.n_tokens for s in scored[:n]],
            "bad_n_tokens": [s.n_tokens for s in scored[n:]],
        }
    )
    out["prefers_good"] = out["good_score"] > out["bad_score"]
    return out
