"""Trial-level ratings: normed per participant and per sentence (Sprouse et al. (2013)'s
z-scores, a rank-based normal transform: ``norming``; White & Rawlins (2020)'s ordinal item
modes: ``ordinal_norm``; one value per sentence: ``normalize_ratings``), and trial-level
judgment models, one row per rating (``models``: lmer on normed ratings, clmm on raw ordinal
responses); rater reliability of ratings and forced-choice trials (``raters``:
split-half, one-vs-rest, ICC; ``reliability``: BLiMP's split-half of forced-choice data,
Spearman-Brown), which ``stats.evaluate`` and ``stats.benchmarks`` use. Built on
``stats.mixed``, which never imports this room.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.stats.ratings.human import with_norming
    from acceptability.stats.ratings.models import (
        RATING_CLMM_FORMULA,
        RATING_FORMULA,
        RATING_PAIR_CLMM_FORMULA,
        RATING_PAIR_FORMULA,
        rating_model,
        rating_model_frame,
    )
    from acceptability.stats.ratings.normalize import normalize_ratings
    from acceptability.stats.ratings.norming import normed_trials

__all__ = ["RATING_CLMM_FORMULA", "RATING_FORMULA", "RATING_PAIR_CLMM_FORMULA",
           "RATING_PAIR_FORMULA", "normalize_ratings", "normed_trials", "rating_model",
           "rating_model_frame", "with_norming"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
