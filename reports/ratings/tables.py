"""The report tables of a rating data set (``reports.ratings.analysis``): the ratings in the data
summary, rater reliability, correlations beside the human ceiling, the published norms and
ratings across context conditions."""

from __future__ import annotations

import pandas as pd

from acceptability.data.ratings import rating_scale
from acceptability.reports.labels import intervals_text
from acceptability.stats.ratings.human import NORMING_TEXT


def summary_rows(results) -> list[tuple[str, object]]:
    """The data summary's rows on trial-level ratings (none without them)."""
    ds = results.dataset
    r = ds.ratings
    if r is None:
        return []
    named = r["participant"].notna()
    per = r.groupby("sentence_id").size()
    rows = [("ratings (trial level)", len(r)), ("rating scale", str(rating_scale(r))),
            ("participants", r.loc[named, "participant"].nunique() if named.all()
             else "not given (the ratings name no participant)"),
            ("ratings per sentence (min, median, max)",
             f"{per.min()}, {per.median():g}, {per.max()}")]
    if "condition" in ds.sentences:
        rows.append(("conditions", ", ".join(map(str, pd.unique(ds.sentences["condition"])))))
    if results.ratings is not None:
        n = results.ratings.norming
        rows.append(("human judgment (norming)", f"{n}: {NORMING_TEXT[n]}"))
    return rows


def reliability(results) -> pd.DataFrame | None:
    """Rater reliability per condition and method, with its interval."""
    rel = results.ratings.reliability if results.ratings is not None else None
    if rel is None:
        return None
    return rel.drop(columns="n_splits").reset_index(drop=True)


def _part(results, name: str) -> pd.DataFrame | None:
    return getattr(results.ratings, name) if results.ratings is not None else None


def _context(results, name: str) -> pd.DataFrame | None:
    return results.ratings.context.get(name) if results.ratings is not None else None


def norms(results) -> pd.DataFrame | None:
    """Each norming against the published normalised values."""
    t = _part(results, "norms")
    return None if t is None else t.drop(columns="note", errors="ignore")


def _resampled(table: pd.DataFrame | None) -> str:
    """Caption text on a table's intervals from what the inference engine returned (its
    ``attrs["intervals"]``: unit, count, fallback), never from a template."""
    return intervals_text(None if table is None else table.attrs.get("intervals"))


def all_rating_tables(results) -> dict[str, tuple[str, pd.DataFrame | None]]:
    """The rating tables by file stem: (caption, table or None)."""
    rel, norm, corr = reliability(results), norms(results), _part(results, "correlations")
    means, shifts = _context(results, "condition_means"), _context(results, "quality_shifts")
    return {
        "reliability": ("Rater reliability per condition: split-half (Spearman-Brown "
                        "corrected; ceiling = its square root), one rating against the mean "
                        f"of the others (Lau et al. 2020), ICC(1) and ICC(k); {_resampled(rel)}",
                        rel),
        "norms": ("Each norming's value per sentence against the published normalised value "
                  f"(White & Rawlins 2020); {_resampled(norm)}", norm),
        "rating_correlations": ("Correlation of each model's scores with the human value per "
                                "sentence in each condition, beside the human ceiling "
                                f"(its interval: {_resampled(rel)}); r: {_resampled(corr)}",
                                corr),
        "condition_means": ("Mean rating per condition (mean of the sentences' means) and its "
                            "shift from the condition without context, a sentence's conditions "
                            f"resampled together; {_resampled(means)}", means),
        "quality_shifts": ("Shift of the mean rating from the condition without context, by "
                           "group of sentences, each group's sentences resampled; "
                           f"{_resampled(shifts)}", shifts),
    }
