"""bfloat16 scores with float32 verdicts: rescore in float32 the pairs too close to call.

bfloat16 moves a sentence's score by a small error (up to ~0.1 nats on bert-base-size PLL and
gpt2-size log-probabilities), so a minimal pair's verdict, score(good) > score(bad), can flip
only where the pair's difference is about that small. This module rescores just those pairs
in float32 and measures bfloat16's error on them as it goes: the pairs whose bfloat16 difference
is below SAFETY times the largest error bound seen are rescored (a pair's difference errs by
at most the sum of its two sentences' errors; pairs of identically tokenized sentences, whose
errors cancel, still show their sentences' errors), the margin grows with what they show, and
it stops when every pair below the margin has been rescored. A verdict can then change only on
a pair whose sentences err by more than SAFETY times the largest of the bounds measured.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

# Closest pairs rescored first, to measure bfloat16's error before the margin is known.
FIRST = 32
# The margin is this many times the largest pair error bound measured.
SAFETY = 2.0


@dataclass
class Recheck:
    """What a recheck did: the pairs looked at, the pairs and sentences rescored in float32
    (`sentence_ids`), the final margin (in the score's units) and the largest pair error
    bound measured (the sum of the two sentences' |bfloat16 - float32|)."""

    pairs: int
    rescored_pairs: int
    sentence_ids: list[str]
    margin: float
    max_pair_error: float

    def summary(self) -> dict:
        """Counts, margin, largest bound and a sentence saying them (plain values: JSON-able)."""
        return {
            "pairs": self.pairs,
            "rescored_pairs": self.rescored_pairs,
            "rescored_sentences": len(self.sentence_ids),
            "margin": self.margin,
            "max_pair_error": self.max_pair_error,
            "message": f"float32 recheck: {self.rescored_pairs} of {self.pairs} pairs "
            f"({len(self.sentence_ids)} sentences) closer than {self.margin:.3g}, {SAFETY:g}x "
            f"the largest bfloat16 pair error bound measured ({self.max_pair_error:.3g})",
        }


def recheck_pairs(
    scores: pd.Series, pairs: pd.DataFrame, rescore: Callable[[list[str]], pd.Series]
) -> Recheck:
    """Rescore in float32 the sentences of every pair of `pairs` too close to call with the
    bfloat16 `scores` (indexed by sentence_id); `rescore(sentence_ids)` returns their float32
    scores indexed the same way (the caller keeps them).

    Pairs whose sentences are not both in `scores`, or have a missing score, are left out.
    """
    good, bad = (pairs[c].astype(str).to_numpy() for c in ("good_id", "bad_id"))
    known = np.isin(good, scores.index) & np.isin(bad, scores.index)
    good, bad = good[known], bad[known]
    delta = scores[good].to_numpy() - scores[bad].to_numpy()
    keep = ~np.isnan(delta)
    good, bad, delta = good[keep], bad[keep], delta[keep]
    order = np.argsort(np.abs(delta), kind="stable")
    error: dict[str, float] = {}  # |bfloat16 - float32| of each sentence rescored
    done, margin, worst = 0, 0.0, 0.0
    todo = min(FIRST, len(order))
    while todo > done:
        chosen = order[:todo]
        missing = sorted({*good[chosen], *bad[chosen]} - error.keys())
        if missing:
            exact = rescore(missing).astype(float)
            error.update((abs(exact - scores[exact.index])).to_dict())
        worst = max(error[g] + error[b] for g, b in zip(good[chosen], bad[chosen], strict=True))
        margin = SAFETY * worst
        done = todo
        todo = max(done, int((np.abs(delta) < margin).sum()))
    return Recheck(len(delta), done, list(error), margin, worst)
