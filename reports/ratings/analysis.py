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
from acceptability.stats.ratings.human import AUTO, resolve_norming
from acceptability.stats.ratings.normalize import METHODS as NORMINGS
from acceptability.stats.ratings.norming import PER_PARTICIPANT, normed_trials

ALL = "all"  # the condition of a dataset without conditions
RELIABILITY = ("split_half", "one_vs_rest", "icc")
RELIABILITY_COLUMNS = ("condition", "method", "quantity", "estimate", "estimate_lower",
                       "estimate_upper", "n_items", "n_items_set_aside", "n_responses",
                       "split", "n_splits")
PUBLISHED = "norm_published"  # MegaAcceptability: the authors' normalised value
N_SPLITS = 200  # random splits of split-half and one-vs-rest (stats.rater_reliability)


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
    first = table.drop_duplicates("condition")
    out = table[list(RELIABILITY_COLUMNS)]
    out.attrs["intervals"] = {"n_boot": n_boot, "ci": 0.95, "method": "percentile",
                              "unit": str(table["unit"].iloc[0]),
                              "n_units": _per_condition(first["n_items"])}
    return out


def _per_condition(counts) -> int | list[int]:
    """A count per condition as ``labels.resampled_units`` reads it: one number, or a
    list where there are several conditions."""
    counts = [int(c) for c in counts]
    return counts[0] if len(counts) == 1 else counts


def correlations(dataset, scores: pd.DataFrame, ceiling: pd.DataFrame | None, n_boot: int,
                 seed: int) -> pd.DataFrame:
    """Per model and condition: Pearson r of ``human`` and the model's scores with its
    percentile interval over sentences, Spearman's rho, and the condition's ceiling
    (sqrt of the split-half reliability, with its interval) beside them."""
    rows, resampled = [], []
    for condition, part in conditions(dataset).items():
        sc = scores[scores["sentence_id"].isin(part.sentences["sentence_id"])]
        # without its ratings: the ceiling shown is ``ceiling`` (of the trials ``human``
        # averages); evaluate's own, of the raw responses, would be computed and dropped
        ev = stats.evaluate(replace(part, ratings=None), sc, ci=n_boot > 0,
                            n_boot=max(n_boot, 1), seed=seed)
        corr = stats.correlations(part, sc)  # with pairs also a row per model at pair level
        corr = corr[corr["level"] == "sentence"].set_index("model")
        resampled.append(ev.attrs.get("intervals", {}))
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
    elif resampled and resampled[0]:
        table.attrs["intervals"] = resampled[0] | {
            "n_units": _per_condition(a.get("n_units", 0) for a in resampled)}
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
    table = pd.DataFrame(rows)
    table.attrs["intervals"] = {"n_boot": n_boot, "ci": 0.95, "method": "percentile",
                                "unit": "sentence_id", "n_units": int(table["n"].max())}
    return table


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
