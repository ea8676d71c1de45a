"""SyntaxGym suites in a report (Gauthier et al. 2020; Hu et al. 2020): each model's
accuracy per prediction, suite and circuit and its SG score, from region surprisals
(``scoring.region_surprisals``), beside the published outcomes of the paper's models on
the same suites (``stats.sg_scores``).

A run keeps the region surprisals it scored (``regions.parquet``); the sentence scores the
other parts of a report read are derived from them (`sentence_scores`): a sentence's
log-probability is its regions' summed surprisal, -ln 2 times the bits, since every token
lies in exactly one region.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from acceptability import data, stats
from acceptability.data.errors import DataError
from acceptability.data.loaders.syntaxgym import NAME as SYNTAXGYM
from acceptability.data.names import with_display_names
from acceptability.data.tables import require_columns

__all__ = ["PUBLISHED", "SYNTAXGYM", "SyntaxGym", "analyse_syntaxgym", "is_region_table",
           "sentence_scores"]
PUBLISHED = "Hu et al. 2020"  # the source of the paper's models' outcomes
PAPER = "_paper"  # levels over the suites the paper has outcomes of (overall_paper, ...)
REGION_KEY = ["suite", "item", "condition"]
REGION_COLUMNS = ["model", *REGION_KEY, "region", "surprisal"]


@dataclass
class SyntaxGym:
    """What the SyntaxGym sections show: ``accuracy`` (``stats.syntaxgym_accuracy``'s
    levels for the scored models, ``source`` "scored", and ``stats.sg_scores``' for the
    paper's models, ``source`` "published", ``system`` naming both; ``overall_paper`` and
    ``circuits_paper`` on the paper's suites alone where the data have others), ``suites`` (per suite:
    circuit, items, conditions, predictions) and ``notes``."""

    accuracy: pd.DataFrame
    suites: pd.DataFrame
    notes: list[str] = field(default_factory=list)


def is_region_table(table: pd.DataFrame) -> bool:
    """Whether ``table`` holds region surprisals (``scoring.region_surprisals``) rather than
    sentence scores."""
    return set(REGION_COLUMNS) <= set(table.columns)


def sentence_scores(regions: pd.DataFrame, dataset) -> pd.DataFrame:
    """Sentence scores from region surprisals: ``score`` = -ln 2 x the bits of the
    sentence's regions (its log-probability, natural log, as ``scoring.score`` gives it;
    a ``mean`` region counts its mean times its tokens), ``method``, ``n_tokens``.

    Parameters
    ----------
    regions : pandas.DataFrame
        ``model, suite, item, condition, region, surprisal`` (+ ``metric``,
        ``n_tokens``, ``method``).
    dataset : Dataset
        The [load_syntaxgym][acceptability.data.load_syntaxgym] dataset the regions score.

    Returns
    -------
    pandas.DataFrame
        ``sentence_id, model, score, method`` (and ``n_tokens``, ``model_source`` where the
        regions have them); NaN for a sentence with a missing region value (or a ``mean``
        region without its token count).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.reports.syntaxgym.analysis import sentence_scores
    >>> sentences = pd.DataFrame({"sentence_id": ["s:1:a"], "suite": "s", "item": 1,
    ...                           "condition": "a"})
    >>> regions = pd.DataFrame({"model": "lm", "suite": "s", "item": 1, "condition": "a",
    ...                         "region": [1, 2], "surprisal": [1.0, 2.0]})
    >>> round(float(sentence_scores(regions, sentences)["score"].iloc[0]), 4)  # -3 ln 2
    -2.0794
    """
    require_columns(regions, REGION_COLUMNS, "region surprisals")
    bits = pd.to_numeric(regions["surprisal"], errors="coerce").to_numpy(float)
    if "metric" in regions:  # a mean region: its mean times its tokens (none: 0 bits)
        n = pd.to_numeric(regions.get("n_tokens", pd.Series(np.nan, regions.index)),
                          errors="coerce").to_numpy(float)
        bits = np.where(regions["metric"].to_numpy() == "mean",
                        np.where(n == 0, 0.0, bits * n), bits)
    s = getattr(dataset, "sentences", dataset)
    ids = s.set_index(REGION_KEY)["sentence_id"]
    r = regions.reset_index(drop=True)
    r = r.assign(sentence_id=ids.reindex(pd.MultiIndex.from_frame(r[REGION_KEY])).to_numpy(),
                 bits=bits, method=r.get("method", SYNTAXGYM))
    r = r[r["sentence_id"].notna()].assign(missing=lambda t: t["bits"].isna())
    agg = {"bits": ("bits", "sum"), "missing": ("missing", "any"), "method": ("method", "first")}
    agg |= {c: (c, how) for c, how in (("n_tokens", "sum"), ("model_source", "first")) if c in r}
    out = r.groupby(["model", "sentence_id"], sort=False).agg(**agg).reset_index()
    out["score"] = (-math.log(2) * out.pop("bits")).mask(out.pop("missing"))
    return out[["sentence_id", "model", "score", "method",
                *[c for c in ("n_tokens", "model_source") if c in out]]]


def _suite_summary(dataset) -> pd.DataFrame:
    """Per suite of ``dataset``: ``circuit``, ``n_items``, ``n_conditions``,
    ``n_predictions``."""
    s = dataset.sentences
    preds = data.syntaxgym_predictions(dataset).groupby("suite").size()
    out = s.groupby("suite", sort=True).agg(circuit=("circuit", "first"),
                                            n_items=("item", "nunique"),
                                            n_conditions=("condition", "nunique"))
    out["n_predictions"] = preds.reindex(out.index).fillna(0).astype(int)
    return out.reset_index()


def _published(dataset, data_path, n_boot: int, seed: int, notes: list[str]
               ) -> pd.DataFrame | None:
    """``stats.sg_scores`` of the paper's models on the suites of ``dataset`` the paper
    analyses (None, and a note, where there are none or the results cannot be read)."""
    suites = set(dataset.sentences["suite"])
    try:
        results = data.load_syntaxgym_results(data_path)
    except DataError as err:
        notes.append(f"Hu et al.'s published outcomes are not shown: {err}")
        return None
    results = results[results["suite"].isin(suites) & results["in_paper"].astype(bool)]
    if results.empty:
        notes.append("Hu et al.'s published outcomes are not shown: the paper analyses none "
                     "of these suites.")
        return None
    shown = sorted(set(results["suite"]))
    left = sorted(suites - set(shown))
    notes.append(f"{PUBLISHED}: the paper's models' published per-item outcomes on "
                 f"{len(shown)} of these suites" + (f" (not on {', '.join(left)})" if left
                                                     else "")
                 + ", counted as the paper's analysis counts them: the n-gram's runs that "
                   "differ only in random tie-breaking voted into one per corpus, a "
                   "model's runs (corpora, seeds) pooled per item; no region surprisals, "
                   "so no prediction rows."
                 + (" Their SG score and circuit means rest on those suites alone; the "
                    "columns 'the paper's suites' give every system's on them." if left
                    else ""))
    table = stats.sg_scores(results, n_boot=n_boot, seed=seed)
    return table.assign(system=table["system"] + f" ({PUBLISHED})", source="published",
                        suite=table["group"].where(table["level"] == "suite"))


def _notes(acc: pd.DataFrame, suites: pd.DataFrame) -> list[str]:
    """What the reader needs to know of the scored accuracies: items left out, and the
    published fgd_hierarchy outcomes, which cannot be the conjunction counted here."""
    notes = []
    excluded = {f"{m}: {k} of {s}": k for (m, s), k in acc.attrs.get("excluded", {}).items()
                if k}
    if excluded:
        notes.append("Items left out for a missing region value (model: items of suite): "
                     + "; ".join(excluded) + ".")
    if "fgd_hierarchy" in set(suites["suite"]):
        notes.append("fgd_hierarchy has two predictions, the second an equality of "
                     "surprisals that language models almost never meet: its items are "
                     "correct here when both hold, so its accuracy is near 0, while the "
                     "paper's published outcomes for it are much higher and seem to count "
                     "the first prediction only (compare its prediction rows).")
    return notes


def _on_the_paper_s_suites(regions: pd.DataFrame, dataset, published: pd.DataFrame,
                           scored: pd.DataFrame, n_boot: int, seed: int) -> list[pd.DataFrame]:
    """Where the dataset has suites the paper has no outcomes of: every system's SG score
    and mean over circuits on the paper's suites alone (levels ``overall_paper``,
    ``circuits_paper``), so that the scored models compare with the paper's like with
    like; none where the suites are the same."""
    shown = set(published.loc[published["level"] == "suite", "group"])
    if shown == set(dataset.sentences["suite"]):
        return []
    same = stats.syntaxgym_accuracy(regions[regions["suite"].isin(shown)], dataset,
                                    n_boot=n_boot, seed=seed)
    same = same.rename(columns={"model": "system"}).assign(source="scored")
    return [t[t["level"].isin(["overall", "circuits"])].assign(level=lambda x: x["level"] + PAPER)
            for t in (same, published)]


def analyse_syntaxgym(dataset, regions: pd.DataFrame, n_boot: int, seed: int,
                      data_path: str | None = None) -> SyntaxGym:
    """The SyntaxGym statistics of ``regions`` on ``dataset``: each model's accuracy per
    prediction, suite, circuit, over suites (the SG score) and over circuits, with
    percentile intervals from a bootstrap of items within suites
    (``stats.syntaxgym_accuracy``), and the paper's models on the same suites.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.reports.syntaxgym.analysis import analyse_syntaxgym
    >>> def cond(name, verb):
    ...     return {"condition_name": name, "regions": [
    ...         {"region_number": 1, "content": "The dogs"}, {"region_number": 2, "content": verb}]}
    >>> suite = {"meta": {"name": "mine", "metric": "sum"}, "region_meta": {"1": "np", "2": "v"},
    ...          "predictions": [{"type": "formula", "formula": "(2;%ok%) < (2;%bad%)"}],
    ...          "items": [{"item_number": k, "conditions": [cond("ok", "bark"),
    ...                                                      cond("bad", "barks")]}
    ...                    for k in (1, 2)]}
    >>> file = pathlib.Path(tempfile.mkdtemp()) / "mine.json"
    >>> _ = file.write_text(json.dumps(suite))
    >>> ds = data.load_syntaxgym(suites=[file])
    >>> regions = pd.DataFrame({"model": "lm", "suite": "mine", "item": [1, 1, 2, 2],
    ...     "condition": ["ok", "bad"] * 2, "region": 2, "surprisal": [3.0, 5.0, 4.0, 2.0]})
    >>> sg = analyse_syntaxgym(ds, regions, n_boot=0, seed=0)
    >>> sg.accuracy.query("level == 'overall'")[["system", "accuracy"]].to_numpy().tolist()
    [['lm', 0.5]]
    """
    regions = with_display_names(regions)
    acc = stats.syntaxgym_accuracy(regions, dataset, n_boot=n_boot, seed=seed)
    suites = _suite_summary(dataset)
    notes = _notes(acc, suites)
    parts = [acc.rename(columns={"model": "system"}).assign(source="scored")]
    published = _published(dataset, data_path, n_boot, seed, notes)
    if published is not None:
        parts += [published, *_on_the_paper_s_suites(regions, dataset, published, parts[0],
                                                     n_boot, seed)]
    table = pd.concat(parts, ignore_index=True).astype({"prediction": "Int64"})
    table.attrs = {k: v for k, v in acc.attrs.items() if k != "excluded"}
    return SyntaxGym(accuracy=table, suites=suites, notes=notes)
