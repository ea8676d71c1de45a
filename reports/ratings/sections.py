"""The report sections of a rating data set: the ratings (norming, reliability, published
norms), correlations beside the human ceiling, and ratings across context conditions."""

from __future__ import annotations

from dataclasses import replace

from acceptability.reports import context
from acceptability.reports.ratings import figures as rating_figures
from acceptability.reports.section import Section
from acceptability.stats.ratings.human import NORMING_TEXT

RELIABILITY_TEXT = (
    "Rater reliability says how reproducible the human values are, and so how high a "
    "model's correlation with them can go. Split-half: the ratings are split at random "
    "into two halves (by participant where the ratings name them, else within each "
    "sentence), the halves' sentence means correlated and the mean r over 200 splits "
    "stepped up by Spearman-Brown to the full number of ratings; its square root is the "
    "ceiling, the correlation an error-free predictor can be expected to reach "
    "(classical test theory). One vs. rest: one rating per sentence against the mean of "
    "the others (Lau et al. 2020's human performance; one rater, not the mean). ICC(1), "
    "ICC(k): one-way intraclass correlations (Shrout & Fleiss 1979) of one rating and of "
    "the mean of a sentence's ratings. Computed on the ratings the human value averages "
    "(normed within participants for z and rank norming, else raw).")
CONTEXT_TEXT = (
    "The same sentences rated without context, after a random paragraph and after their "
    "real preceding paragraph (different raters in each condition). The first table "
    "gives the mean rating in each condition and its shift from the condition without "
    "context; the second the shift by group of sentences: original against round-trip "
    "machine-translated sentences, and thirds by the rating without context. Thirds "
    "chosen by the same ratings the shift starts from regress to the mean (a sentence "
    "rated low partly by chance is rated higher anywhere else), so they are also formed "
    "on one half of each sentence's ratings without context (its 1st, 3rd, ...) and the "
    "shift measured from the other half, which the choice cannot bias.")


def _ratings(r) -> Section:
    rr = r.ratings
    text = (f"The human value of each sentence is {NORMING_TEXT[rr.norming]} (norming "
            f"{rr.norming!r}). " + RELIABILITY_TEXT)
    if rr.norms is not None:
        text += (" The last table compares each norming with the normalised values the "
                 "data's authors publish (White & Rawlins 2020: an ordinal model with "
                 "participant-specific thresholds).")
    return Section("ratings", "Human ratings: norming and reliability", text,
                   tables=["reliability", "norms"], notes=list(rr.notes))


def _correlations(r, generic: Section) -> Section:
    """The correlation section with the per-condition table and the ceiling; the
    generic section's figures."""
    where = " in each context condition" if context.has_conditions(r.dataset) else ""
    text = ("Pearson r (with its interval over sentences) and Spearman's rho of each "
            f"model's scores with the human value per sentence{where}, beside the ceiling: "
            "the square root of the split-half reliability (previous section), the "
            "correlation an error-free model could be expected to reach.")
    tables = ["rating_correlations"]
    if len(r.dataset.pairs):  # minimal pairs: the pair level too, as without ratings
        text += (" The second table gives both levels: sentences, and the human delta of each "
                 "minimal pair against the model's.")
        tables.append("correlations")
    return replace(generic, title="Correlations with human ratings, beside the human ceiling",
                   text=text, tables=tables)


def _context(r) -> Section:
    section = Section("context", "Ratings in context", CONTEXT_TEXT,
                      tables=["condition_means", "quality_shifts"])
    shifts = r.ratings.context["quality_shifts"]
    if shifts is not None and len(shifts):
        section.figures.append(("context_shifts", "Mean rating in each condition by group of "
                                "sentences (the quality_shifts table).",
                                lambda: rating_figures.context_shifts(shifts)))
    return section


def rating_sections(r, generic: Section) -> list[Section]:
    """The sections of a rating data set, in order, in place of the ``generic``
    correlation section (whose figures they keep); none without ratings."""
    if r.ratings is None:
        return []
    out = [_ratings(r), _correlations(r, generic)]
    if r.ratings.context:
        out.append(_context(r))
    return out
