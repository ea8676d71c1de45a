"""Marvin & Linzen (2018) Table 1: accuracy per test case, as a tidy table.

A pair is correct when the grammatical sentence gets the higher score, strictly:
score(good) > score(bad) (scores table convention: higher = more acceptable, e.g. a
sentence log-probability; the paper: "the probability of the grammatical sentence should
be higher"). A tie is an error, as in the authors' scoring script (``>``), and is counted
in ``ties``. Pairs with a missing score are left out of ``n_pairs`` and counted in
``n_missing``.

Two settings: ``"sentence"`` compares whole sentences (Table 1); ``"prediction"``
compares the two forms of the critical word after their shared left context (section
2.1), from the pairs table of ``scoring.prefix_scores(ds, model, method="one_prefix")``.
The prediction setting covers the agreement and reflexive pairs with
``one_prefix_method`` True; it has no NPI rows (the paper: it does not apply to NPIs).
The published numbers are ``data.loaders.marvin_linzen.ML_TABLE1_PUBLISHED``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.loaders.marvin_linzen import ML_TABLE1_ROWS
from acceptability.data.tables import member, require_columns, validate_scores
from acceptability.stats.benchmarks.outcomes import pair_outcomes, prefix_outcomes

COLUMNS = ["setting", "section", "condition", "model", "n_pairs", "n_correct", "accuracy",
           "ties", "n_missing"]
NPI_CONTRASTS = ("table1", "ungrammatical", "intrusive")


def _select(pairs: pd.DataFrame, npi_contrast: str) -> pd.DataFrame:
    """The pairs each Table 1 row counts: all agreement and reflexive pairs, and the NPI
    pairs of the contrast Table 1 reports (or of ``npi_contrast``)."""
    require_columns(pairs, ["pair_id", "good_id", "bad_id", "section", "table1_row",
                            "in_table1", "contrast"], "pairs (load_marvin_linzen)")
    if npi_contrast not in NPI_CONTRASTS:
        raise DataError(f"unknown npi_contrast {npi_contrast!r}", source="ml_table1",
                        fix=f"use one of {list(NPI_CONTRASTS)}")
    if npi_contrast == "table1":
        return pairs[pairs["in_table1"].astype(bool)]
    npi = pairs["phenomenon"] == "npi"
    return pairs[~npi | (pairs["contrast"] == npi_contrast)]


def _tally(pairs: pd.DataFrame, outcomes: pd.DataFrame, setting: str) -> pd.DataFrame:
    """Per (row, model) counts of ``pairs`` from ``pair_outcomes``
    (or ``prefix_outcomes``): a pair without an outcome for a model is missing for it."""
    frames = []
    for model, o in outcomes.groupby("system", sort=False):
        o = o.set_index("pair_id")
        correct = pairs["pair_id"].map(o["correct"]).to_numpy(float)
        tie = pairs["pair_id"].map(o["tie"]).fillna(False).to_numpy(bool)
        missing = np.isnan(correct)
        frames.append(pairs[["section", "table1_row"]].assign(
            model=model, n_pairs=~missing, n_correct=np.nan_to_num(correct),
            ties=tie, n_missing=missing))
    frame = pd.concat(frames, ignore_index=True)
    out = (frame.groupby(["section", "table1_row", "model"], sort=False)
           [["n_pairs", "n_correct", "ties", "n_missing"]].sum().reset_index())
    out = out.rename(columns={"table1_row": "condition"})
    with np.errstate(invalid="ignore", divide="ignore"):
        out["accuracy"] = out["n_correct"] / out["n_pairs"].where(out["n_pairs"] > 0)
    out.insert(0, "setting", setting)
    return out


def _sentence_setting(pairs: pd.DataFrame, dataset, scores: pd.DataFrame) -> pd.DataFrame:
    scores = validate_scores(scores, dataset.sentences)
    return _tally(pairs, pair_outcomes(dataset, scores, ties="strict"), "sentence")


def _prediction_setting(dataset, pairs: pd.DataFrame,
                        prefix_scores: pd.DataFrame) -> pd.DataFrame:
    all_pairs = dataset.pairs
    src = "prefix_scores"
    require_columns(prefix_scores, ["pair_id", "model", "good_score", "bad_score"], src)
    ps = prefix_scores.assign(pair_id=prefix_scores["pair_id"].astype(str))
    unknown = ~member(ps["pair_id"], all_pairs["pair_id"])
    if unknown.any():
        raise DataError(f"pair {ps['pair_id'][unknown].iloc[0]!r} is not a Marvin & Linzen "
                        f"pair of this dataset ({int(unknown.sum())} such rows)", source=src,
                        row=ps.index[unknown][0], column="pair_id",
                        fix="score the dataset's own pairs with scoring.prefix_scores")
    dup = ps.duplicated(["model", "pair_id"])
    if dup.any():
        raise DataError(f"model {ps['model'][dup].iloc[0]!r} has several scores for pair "
                        f"{ps['pair_id'][dup].iloc[0]!r}", source=src, row=ps.index[dup][0],
                        column="pair_id", fix="keep one row per model and pair")
    flag = pairs["one_prefix_method"].fillna(False).astype(bool)
    scope = pairs[flag]
    outside = ~member(ps["pair_id"], scope["pair_id"])
    if outside.any():
        raise DataError(f"pair {ps['pair_id'][outside].iloc[0]!r} has no prediction setting "
                        "(one_prefix_method is False: NPI pairs, or an NPI contrast not "
                        "selected)", source=src, row=ps.index[outside][0], column="pair_id",
                        fix="score only the pairs with one_prefix_method True")
    ps = ps.assign(method="one_prefix", prefers_good=ps["good_score"] > ps["bad_score"])
    both = ps.dropna(subset=["good_score", "bad_score"])
    return _tally(scope, prefix_outcomes(dataset, both), "prediction")


def ml_table1(dataset: Dataset, scores: pd.DataFrame | None = None,
              prefix_scores: pd.DataFrame | None = None, *,
              npi_contrast: str = "table1") -> pd.DataFrame:
    """Marvin & Linzen's (2018) Table 1 for each scored model, in Table 1 order.

    Parameters
    ----------
    dataset : Dataset
        From [load_marvin_linzen][acceptability.data.loaders.marvin_linzen.load_marvin_linzen]
        (any constructions).
    scores : pandas.DataFrame, optional
        A long sentence scores table (``sentence_id``, ``model``, ``score``): the
        ``"sentence"`` setting.
    prefix_scores : pandas.DataFrame, optional
        The pairs table of ``scoring.prefix_scores(..., method="one_prefix")``
        (``pair_id``, ``model``, ``good_score``, ``bad_score``): the ``"prediction"``
        setting.
    npi_contrast : {"table1", "ungrammatical", "intrusive"}
        NPI pairs counted: the paper's (simple *no/most*; across a relative clause,
        grammatical vs intrusive licensor), or the same contrast for both NPI rows.

    Returns
    -------
    pandas.DataFrame
        One row per (setting, Table 1 row, model): ``setting``, ``section``,
        ``condition`` (the row name as printed), ``model``, ``n_pairs``, ``n_correct``,
        ``accuracy`` (= n_correct / n_pairs), ``ties`` (counted as errors) and
        ``n_missing`` (pairs without both scores, left out).

    Raises
    ------
    DataError
        If neither scores table is given, ``npi_contrast`` is unknown, or a prefix score
        is for an unknown, repeated or NPI pair.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import from_frames
    >>> from acceptability.stats.benchmarks import ml_table1
    >>> sentences = pd.DataFrame({"sentence_id": ["1:g", "1:b", "2:g", "2:b"], "label": [1, 0] * 2,
    ...     "text": ["The author laughs.", "The author laugh.", "The authors laugh.",
    ...              "The authors laughs."]})
    >>> pairs = pd.DataFrame({"pair_id": ["1", "2"], "good_id": ["1:g", "2:g"],
    ...     "bad_id": ["1:b", "2:b"], "phenomenon": "agreement", "contrast": "ungrammatical",
    ...     "section": "Subject-verb agreement", "table1_row": "Simple", "in_table1": True})
    >>> scores = pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "lm",
    ...                        "score": [-20.1, -23.4, -25.0, -24.2]})
    >>> table = ml_table1(from_frames(sentences, pairs), scores)
    >>> print(table.drop(columns="section").to_string(index=False))
     setting condition model  n_pairs  n_correct  accuracy  ties  n_missing
    sentence    Simple    lm        2          1       0.5     0          0
    """
    if scores is None and prefix_scores is None:
        raise DataError("nothing to tabulate", source="ml_table1",
                        fix="pass scores (sentence scores) and/or prefix_scores")
    pairs = _select(dataset.pairs, npi_contrast)
    parts = []
    if scores is not None:
        parts.append(_sentence_setting(pairs, dataset, scores))
    if prefix_scores is not None:
        parts.append(_prediction_setting(dataset, pairs, prefix_scores))
    out = pd.concat(parts, ignore_index=True)
    order = {row: i for i, row in enumerate(ML_TABLE1_ROWS)}
    out["_row"] = [order[(s, c)] for s, c in zip(out["section"], out["condition"], strict=True)]
    models = {m: i for i, m in enumerate(dict.fromkeys(out["model"]))}
    out["_model"] = out["model"].map(models)
    out["_setting"] = out["setting"].map({"sentence": 0, "prediction": 1})
    out = out.sort_values(["_setting", "_row", "_model"], kind="stable")
    for col in ("n_pairs", "n_correct", "ties", "n_missing"):
        out[col] = out[col].astype(int)
    return out[COLUMNS].reset_index(drop=True)
