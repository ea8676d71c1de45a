"""Trial-level ratings normed per participant and per sentence: Sprouse et al. (2013)'s
z-scores, a rank-based normal transform (``norming``), White & Rawlins (2020)'s ordinal item
modes (``ordinal_norm``), and ``normalize_ratings`` (``normalize``), one value per sentence.

This package imports only ``norming``: ``stats.mixed``'s rating models use
[normed_trials][acceptability.stats.ratings.norming.normed_trials], and the ordinal norm uses
``stats.mixed``'s clmm, so ``normalize_ratings`` is exported by ``acceptability.stats``
(from ``acceptability.stats.ratings.normalize``), not here.
"""

from acceptability.stats.ratings.norming import normed_trials

__all__ = ["normed_trials"]
