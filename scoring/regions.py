"""Region surprisal of SyntaxGym suites (Gauthier et al. 2020; Hu et al. 2020).

A region's surprisal is the sum of the surprisals, -log2 P in bits, of the model's tokens
inside the region's character span (``data.syntaxgym_regions``): for a causal LM
-log2 P(token | BOS, earlier tokens), for a masked LM the PLL terms -log2 P(token | the
rest), for any method whose token scores carry character offsets. The regions are handed
to `scoring.word_scores` as the sentence's "words", so tokens are grouped exactly as words
are (`scoring.words.token_words`: a token belongs to the region holding its first non-space
character; a whitespace-only token between regions to the next one, as syntaxgym-core's
region edges put the joining space in the next region) and ``boundary="corrected"`` gives
Pimentel & Meister's (2024) region probability for leading-space vocabularies. An empty
region holds no token: its sum is 0, as in syntaxgym-core. A suite with metric ``mean``
gets the sum over the region's token count (NaN for an empty region); the other metrics
of syntaxgym-core (median, range, max, min) need the tokens one by one and are refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from acceptability.data.loaders.syntaxgym import syntaxgym_regions
from acceptability.scoring.api import word_scores
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.options import ScoringOptions, resolve
from acceptability.scoring.registry import REGISTRY

#: The suite metrics a region's summed surprisal and token count give.
METRICS = ("sum", "mean")
COLUMNS = ["suite", "item", "condition", "region", "content", "surprisal", "n_tokens",
           "metric", "model", "method", "boundary"]


def region_surprisals(data: Any, model: Any = None, method: str | None = None, *,
                      boundary: str = "sum", options: ScoringOptions | None = None,
                      **settings: Any) -> pd.DataFrame:
    """Region surprisals of a SyntaxGym dataset scored by ``model`` with ``method``.

    Parameters
    ----------
    data : Dataset or DataFrame
        A ``data.load_syntaxgym`` dataset (or its sentences table).
    model, method, options, **settings
        As for `scoring.score` (cache, batch_size, device, dtype, client, ...): a method
        with token scores and character offsets, causal (``logprob``) or masked (``pll``,
        ``pll_word_l2r``, ...). The sentences are scored alone, as SyntaxGym scores them.
    boundary : {"sum", "corrected"}
        As for `scoring.word_scores`: the plain sum of the region's token surprisals
        (SyntaxGym's), or with the word-boundary correction (causal LMs).

    Returns
    -------
    pandas.DataFrame
        One row per sentence and region: ``suite, item, condition, region, content,
        surprisal`` (bits, the suite's metric), ``n_tokens``, ``metric``, ``model``
        (``<model>_<method>`` as `scoring.score` names it, or ``model_name``), ``method``,
        ``boundary``: the input of ``stats.syntaxgym_accuracy``.

    Raises
    ------
    ScoringError
        For a suite metric other than sum and mean, a method without token offsets
        (classifier, n-gram), or any error of `scoring.word_scores`.

    Examples
    --------
    >>> from acceptability import data, scoring
    >>> ds = data.load_syntaxgym(suites="number_prep")  # doctest: +SKIP
    >>> table = scoring.region_surprisals(ds, "gpt2", "logprob")  # doctest: +SKIP
    >>> table.loc[5, ["content", "n_tokens"]].tolist()  # doctest: +SKIP
    ['is', 1]
    """
    options = resolve(options, model, method, settings, default_method="logprob")
    method = REGISTRY.get(options.method)  # an unknown one: word_scores says so
    if method is not None and not method.offsets:
        raise ScoringError("an n-gram model's tokens carry no character offsets, so they "
                           "cannot be placed in regions: use a causal or masked LM method")
    regions = syntaxgym_regions(data)
    sentences = getattr(data, "sentences", data)
    metric = regions["sentence_id"].map(sentences.set_index("sentence_id")["metric"])
    other = sorted(set(metric) - set(METRICS))
    if other:
        raise ScoringError(f"suite metric(s) {other}: region surprisal is computed for "
                           f"{list(METRICS)} (the 34 published suites use sum)")
    spans = {sid: list(zip(g["start"], g["end"], strict=True))
             for sid, g in regions.groupby("sentence_id", sort=False)}
    words = word_scores(sentences, options=options, words=spans, boundary=boundary,
                        context=False)
    words = words.set_index(["sentence_id", "index"])
    at = pd.MultiIndex.from_arrays([regions["sentence_id"],
                                    regions.groupby("sentence_id", sort=False).cumcount()])
    bits, n = words["surprisal"].reindex(at).to_numpy(), words["n_tokens"].reindex(at).to_numpy()
    mean = np.divide(bits, n, out=np.full(len(bits), np.nan), where=n > 0)
    name = options.model_name or f"{words['model'].iat[0]}_{options.method}"
    out = regions.assign(surprisal=np.where(metric == "mean", mean, bits), n_tokens=n,
                         metric=metric, model=name, method=options.method, boundary=boundary)
    return out[COLUMNS].reset_index(drop=True)
