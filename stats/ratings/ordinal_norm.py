"""The ordinal norm of a sentence: its conditional mode in a cumulative link mixed model
``response ~ 1 + (1 | participant) + (1 | sentence_id)`` (Christensen 2019; Taylor et al.
2023, Behav. Res. Methods 55, "Rating norms should be calculated from cumulative link mixed
effects models"), fitted by the Laplace approximation with
[clmm][acceptability.stats.mixed.ordinal.cumulative_mixed.clmm].

Pr(Y_ps <= j) = logistic(theta_j - b_p - b_s): a participant's intercept b_p shifts all
their thresholds (a lenient or strict rater), the sentence's b_s is its acceptability on
the latent logit scale. White & Rawlins (2020, Glossa 5(1), "Frequency, acceptability, and
selection"; their notebook's ``fit_normalizer``) normalise MegaAcceptability with a close
relative fitted by Adam: per-participant thresholds (six free gaps each, penalised by their
size relative to the mean gap) instead of one shift, items as fixed effects smoothed by one
pseudo-rating on each side of the middle threshold instead of normal random effects, each
participant's ratings weighted by an agreement score, and the 4 non-native participants
left out. The clmm has two variance parameters and six thresholds, all by maximum
(Laplace) likelihood, and no weights.
"""

from __future__ import annotations

import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.ratings import rating_scale
from acceptability.stats.mixed.ordinal.cumulative_mixed import ClmmResult, clmm

__all__ = ["NORM_FORMULA", "ordinal_norms"]

NORM_FORMULA = "response ~ 1 + (1 | participant) + (1 | sentence_id)"


def _fit(ratings: pd.DataFrame) -> ClmmResult:
    """The clmm of ``NORM_FORMULA`` on a validated ratings table with participant ids and
    an ordered scale (Likert or binary)."""
    scale = rating_scale(ratings)
    if not scale.ordinal:
        raise DataError(f"method 'ordinal' needs ordered categories; the scale is {scale} "
                        "(magnitude estimation)", source="ratings", column="response",
                        fix="use method 'z' or 'rank' for magnitude estimates")
    return clmm(NORM_FORMULA, ratings[["participant", "sentence_id", "response"]])


def ordinal_norms(ratings: pd.DataFrame) -> pd.DataFrame:
    """One row per sentence of a validated ratings table with participant ids and an ordered
    scale: ``sentence_id``, ``human`` (the conditional mode b_s), ``se`` (its conditional
    SD); ``attrs["clmm"]`` holds the thresholds, the two SDs, the log-likelihood and
    whether the fit converged. ``normalize_ratings(ratings, "ordinal")`` adds the counts.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_ratings
    >>> from acceptability.stats.ratings.ordinal_norm import ordinal_norms
    >>> grid = pd.DataFrame({"participant": list("aaabbbcccddd"),
    ...                      "sentence_id": ["s1", "s2", "s3"] * 4,
    ...                      "response": [4, 2, 1, 5, 4, 2, 3, 3, 1, 5, 3, 2]})
    >>> norms = ordinal_norms(validate_ratings(grid, scale="likert:1-5"))
    >>> norms["sentence_id"].tolist(), bool(norms["human"].is_monotonic_decreasing)
    (['s1', 's2', 's3'], True)
    """
    m = _fit(ratings)
    modes = m.ranef_frame()
    modes = modes[modes["grpvar"] == "sentence_id"]
    out = pd.DataFrame({"sentence_id": modes["grp"].to_numpy(),
                        "human": modes["condval"].to_numpy(), "se": modes["condsd"].to_numpy()})
    out.attrs["clmm"] = {"logLik": float(m.logLik), "ST": m.ST.to_dict(),
                         "thresholds": m.Theta.to_dict(),
                         "converged": bool(m.converged)}
    return out
