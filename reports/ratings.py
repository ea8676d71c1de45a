"""Trial-level rating data sets in the report: the norming that turns a sentence's ratings
into its human value, rater reliability (the ceiling of a model's correlation), each
model's correlation in each context condition beside it, the published norms
(MegaAcceptability) and human ratings across context conditions (``reports.context``)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from acceptability import stats
from acceptability.data.errors import DataError
from acceptability.reports import context
from acceptability.stats.inference import resample
from acceptability.stats.inference.engine import block_size
from acceptability.stats.metrics import pearson
from acceptability.stats.ratings.normalize import METHODS as NORMINGS
from acceptability.stats.ratings.norming import PER_PARTICIPANT, normed_trials

AUTO = "auto"
ALL = "all"  # the condition of a dataset without conditions
RELIABILITY = ("split_half", "one_vs_rest", "icc")
RELIABILITY_COLUMNS = ("condition", "method", "quantity", "estimate", "estimate_lower",
                       "estimate_upper", "n_items", "n_items_set_aside", "n_responses",
                       "split", "n_splits")
PUBLISHED = "norm_published"  # MegaAcceptability: the authors' normalised value
N_SPLITS = 200  # random splits of split-half and one-vs-rest (stats.rater_reliability)


def default_norming(dataset) -> str:
    """``"z"`` (per participant, Sprouse et al. 2013) where every rating names its
    participant, else ``"mean"`` (the plain mean rating: Lau et al. 2020 name no raters).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.reports.ratings import default_norming
    >>> s = pd.DataFrame({"sentence_id": ["a"], "text": ["A cat sleeps."]})
    >>> r = pd.DataFrame({"sentence_id": ["a", "a"], "response": [3, 4]})
    >>> default_norming(data.from_frames(s, ratings=r, scale="likert:1-4"))
    'mean'
    """
    named = dataset.ratings["participant"].notna()
    return "z" if len(named) and named.all() else "mean"


def resolve_norming(dataset, method: str | None) -> str:
    """``method``, or the dataset's default for ``"auto"``/None (``default_norming``)."""
    method = default_norming(dataset) if method in (None, AUTO) else method
    if method not in NORMINGS:
        raise DataError(f"unknown norming {method!r}", fix=f"use one of {list(NORMINGS)}")
    return method


def with_norming(dataset, method: str | None = AUTO):
    """``dataset`` with ``human`` = its ratings normed per sentence
    (``stats.normalize_ratings``: ``"z"``, ``"rank"``, ``"ordinal"`` or ``"mean"``); the
    ratings the norming sets aside, and sentences left without a value, are added to
    ``exclusions``. The method is kept in ``sentences.attrs["norming"]``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.reports.ratings import with_norming
    >>> s = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["A cat sleeps.", "Cat a."]})
    >>> r = pd.DataFrame({"sentence_id": ["a", "a", "b"], "response": [3, 4, 1]})
    >>> ds = with_norming(data.from_frames(s, ratings=r, scale="likert:1-4"))
    >>> ds.sentences["human"].tolist(), ds.sentences.attrs["norming"]
    ([3.5, 1.0], 'mean')
    """
    method = resolve_norming(dataset, method)
    normed = stats.normalize_ratings(dataset.ratings, method=method)
    s = dataset.sentences.copy()
    s["human"] = s["sentence_id"].map(normed.set_index("sentence_id")["human"]).astype(float)
    s.attrs["norming"] = method
    rows = [{"table": row["table"], "reason": f"norming {method!r}: {row['reason']}",
             "n": int(row["n"])}
            for row in normed.attrs.get("exclusions", pd.DataFrame()).to_dict("records")
            if row["n"]]
    missing = s.loc[s["human"].isna(), "sentence_id"]
    if len(missing):
        rows.append({"table": "sentences", "reason": f"no normed rating (norming {method!r})",
                     "n": len(missing), "ids": tuple(missing)})
    exclusions = dataset.exclusions
    if rows:
        exclusions = pd.concat([exclusions, pd.DataFrame(rows)], ignore_index=True)
    return replace(dataset, sentences=s, exclusions=exclusions)


@dataclass
class RatingsResults:
    """What the report shows of a rating data set (``analyse_ratings``); a part the data
    do not support is None (``context``: empty), ``notes`` says why."""

    norming: str
    correlations: pd.DataFrame
    reliability: pd.DataFrame | None = None
    norms: pd.DataFrame | None = None
    #: ratings across context conditions: ``condition_means``, ``quality_shifts``
    context: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def conditions(dataset) -> dict[str, object]:
    """Condition -> the dataset restricted to it (one ``"all"`` without conditions)."""
    if not context.has_conditions(dataset):
        return {ALL: dataset}
    s = dataset.sentences
    return {c: dataset.subset(sentence_ids=s.loc[s["condition"] == c, "sentence_id"])
            for c in pd.unique(s["condition"])}


def trial_values(dataset, norming: str) -> tuple[pd.DataFrame, str]:
    """The trials whose per-sentence mean is ``human`` under ``norming``, and the column
    holding them: ratings normed within participants for ``"z"``/``"rank"``
    (``normed_trials``), else the raw responses."""
    if norming in PER_PARTICIPANT:
        return normed_trials(dataset.ratings, norming), "response_norm"
    return dataset.ratings, "response"


def reliability(dataset, norming: str, n_boot: int, seed: int) -> pd.DataFrame:
    """``stats.rater_reliability`` of each condition's trials (``trial_values``) by each
    of ``RELIABILITY``, with percentile intervals over sentences (none with n_boot = 0)."""
    rows = []
    for condition, part in conditions(dataset).items():
        trials, column = trial_values(part, norming)
        for method in RELIABILITY:
            out = stats.rater_reliability(trials, method, n_splits=N_SPLITS,
                                          n_boot=max(n_boot, 1), seed=seed,
                                          ci=0.95 if n_boot > 0 else None, response=column)
            rows.append(out.assign(condition=condition))
    table = pd.concat(rows, ignore_index=True)
    table = table.rename(columns={"ci_low": "estimate_lower", "ci_high": "estimate_upper"})
    return table[list(RELIABILITY_COLUMNS)]


def correlations(dataset, scores: pd.DataFrame, ceiling: pd.DataFrame | None, n_boot: int,
                 seed: int) -> pd.DataFrame:
    """Per model and condition: Pearson r of ``human`` and the model's scores with its
    percentile interval over sentences, Spearman's rho, and the condition's ceiling
    (sqrt of the split-half reliability, with its interval) beside them."""
    rows = []
    for condition, part in conditions(dataset).items():
        sc = scores[scores["sentence_id"].isin(part.sentences["sentence_id"])]
        # without its ratings: the ceiling shown is ``ceiling`` (of the trials ``human``
        # averages); evaluate's own, of the raw responses, would be computed and dropped
        ev = stats.evaluate(replace(part, ratings=None), sc, ci=n_boot > 0,
                            n_boot=max(n_boot, 1), seed=seed)
        corr = stats.correlations(part, sc).set_index("model")
        for _, e in ev.iterrows():
            c = corr.loc[e["model"]]
            rows.append({"model": e["model"], "condition": condition, "n": int(c["n"]),
                         "pearson": e["r_sentence"],
                         "pearson_lower": e.get("r_sentence_lower", np.nan),
                         "pearson_upper": e.get("r_sentence_upper", np.nan),
                         "spearman": c["spearman"]})
    table = pd.DataFrame(rows)
    if ceiling is not None:
        ceil = ceiling[ceiling["quantity"] == "ceiling"].set_index("condition")
        for end in ("", "_lower", "_upper"):
            table[f"ceiling{end}"] = table["condition"].map(ceil[f"estimate{end}"])
    if n_boot <= 0:
        table = table.drop(columns=[c for c in table if c.endswith(("_lower", "_upper"))])
    return table


def _pearson_interval(x: np.ndarray, y: np.ndarray, n_boot: int, seed: int) -> tuple:
    """Pearson r of ``x`` and ``y`` and its percentile interval over resampled items
    (NaN without resamples)."""
    r = float(pearson(x, y))
    if n_boot <= 0:
        return r, np.nan, np.nan
    res = resample([np.arange(len(x))], lambda i: pearson(x[i], y[i]).reshape(1, -1),
                   n_boot, seed=seed, batch=block_size(2 * len(x)))
    return r, float(res.lower[0]), float(res.upper[0])


def published_norms(dataset, n_boot: int, seed: int) -> pd.DataFrame | None:
    """Each norming's per-sentence values against the published normalised values
    (MegaAcceptability's ``responsenorm``, White & Rawlins 2020): Pearson r with its
    interval over sentences, and Spearman's rho; None without published values."""
    s = dataset.sentences
    if PUBLISHED not in s:
        return None
    published = s.set_index("sentence_id")[PUBLISHED].astype(float)
    rows = []
    for method in NORMINGS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                normed = stats.normalize_ratings(dataset.ratings, method=method)
        except DataError as err:
            rows.append({"norming": method, "n": 0, "note": str(err)})
            continue
        x = normed.set_index("sentence_id")["human"].reindex(published.index).to_numpy(float)
        y = published.to_numpy()
        ok = np.isfinite(x) & np.isfinite(y)
        r, lo, hi = _pearson_interval(x[ok], y[ok], n_boot, seed)
        rho = pd.Series(x[ok]).corr(pd.Series(y[ok]), method="spearman")
        rows.append({"norming": method, "n": int(ok.sum()), "pearson": r, "pearson_lower": lo,
                     "pearson_upper": hi, "spearman": rho})
    return pd.DataFrame(rows)


def analyse_ratings(dataset, scores: pd.DataFrame, n_boot: int, seed: int) -> RatingsResults:
    """Everything the report shows of a rating data set's ratings (``RatingsResults``)."""
    norming = dataset.sentences.attrs.get("norming") or resolve_norming(dataset, AUTO)
    notes = []
    try:
        rel = reliability(dataset, norming, n_boot, seed)
    except DataError as err:
        rel = None
        notes.append(f"No rater reliability: {err}")
    has_context = context.has_conditions(dataset)
    return RatingsResults(
        norming=norming, correlations=correlations(dataset, scores, rel, n_boot, seed),
        reliability=rel, norms=published_norms(dataset, n_boot, seed),
        context={"condition_means": context.condition_means(dataset, n_boot, seed),
                 "quality_shifts": context.quality_shifts(dataset, n_boot, seed)}
        if has_context else {}, notes=notes)
