"""SyntaxGym accuracy (Gauthier et al. 2020) and Hu et al.'s (2020) SG scores.

An item of a suite is correct for a model when its predictions (formulas over region
surprisals, `data.loaders.syntaxgym_formula`) hold; with several predictions (``fgd_hierarchy``),
when all hold, and each prediction's own accuracy is reported beside. A suite's accuracy
is the share of its items correct; a circuit's the mean over its suites; ``overall`` the
mean over suites (Hu et al.'s SG score: ``notebooks/main.py`` averages a run's suite
accuracies) and ``circuits`` the mean over the circuits' means. Intervals come from one
bootstrap of items within suites (items are the clusters: an item carries all its
conditions, predictions and, pooled over runs, all runs), by the engine's
``mean_resamples`` (`stats.benchmarks.outcomes`), every level composed from the same
resampled suite accuracies.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.loaders.syntaxgym import syntaxgym_predictions
from acceptability.data.loaders.syntaxgym_formula import FormulaError, parse_prediction
from acceptability.data.loaders.syntaxgym_results import HU2020_MODELS, HU2020_TIE_BREAKING
from acceptability.data.tables import require_columns
from acceptability.stats.arguments import check_intervals
from acceptability.stats.benchmarks.outcomes import paradigm_boot
from acceptability.stats.defaults import DEFAULT_N_BOOT, DEFAULT_SEED
from acceptability.stats.inference.intervals import percentile_interval

REGION_COLUMNS = ["model", "suite", "item", "condition", "region", "surprisal"]
LEVELS = ("prediction", "suite", "circuit", "overall", "circuits")
#: How the predictions of a suite combine into an item's outcome (`syntaxgym_accuracy`).
COMBINE = ("all", "first")
SCORE_COLUMNS = ["level", "group", "circuit", "system", "n_suites", "n_items", "accuracy",
                 "lower", "upper"]

def _region_values(regions: pd.DataFrame) -> pd.DataFrame:
    """The region table checked: one finite-or-missing surprisal per region."""
    require_columns(regions, REGION_COLUMNS, "region surprisals")
    values = pd.to_numeric(regions["surprisal"], errors="coerce")
    bad = np.isinf(values) | (values.isna() & regions["surprisal"].notna())
    if bad.any():
        raise DataError(f"surprisal {regions['surprisal'][bad].iloc[0]!r} is not a finite "
                        "number", source="region surprisals", row=int(bad.to_numpy().argmax()),
                        column="surprisal", fix="score the regions again")
    key = ["model", "suite", "item", "condition", "region"]
    dup = regions.duplicated(key)
    if dup.any():
        raise DataError(f"{int(dup.sum())} regions appear twice, e.g. "
                        f"{regions.loc[dup, key].iloc[0].tolist()}", source="region surprisals",
                        fix="give one surprisal per model, suite, item, condition and region")
    return regions.assign(surprisal=values)


def _suite_outcomes(wide: pd.DataFrame, preds: pd.DataFrame, suite: str) -> pd.DataFrame:
    """Each prediction of one suite on each complete item of one model (rows of ``wide``:
    items; columns: (condition, region))."""
    complete = wide.dropna()
    values = {key: complete[key].to_numpy() for key in complete.columns}
    frames = []
    for k, formula in zip(preds["prediction"], preds["formula"], strict=True):
        try:
            truth = parse_prediction(formula).evaluate(values)
        except FormulaError as err:
            raise DataError(f"suite {suite!r}, prediction {k}: {err}",
                            source="region surprisals",
                            fix="give the surprisal of every region of every condition") from None
        frames.append(pd.DataFrame({"item": complete.index, "prediction": k,
                                    "formula": formula,
                                    "correct": np.broadcast_to(truth, len(complete))}))
    return pd.concat(frames, ignore_index=True)


def syntaxgym_outcomes(regions: pd.DataFrame, dataset) -> pd.DataFrame:
    """Every prediction of a SyntaxGym dataset evaluated on each model's region surprisals.

    Parameters
    ----------
    regions : pandas.DataFrame
        ``model, suite, item, condition, region, surprisal`` (bits; the suite's metric of
        the region's tokens): ``scoring.region_surprisals`` or
        ``data.read_syntaxgym_surprisals``.
    dataset : Dataset
        A [load_syntaxgym][acceptability.data.load_syntaxgym] dataset (its predictions).

    Returns
    -------
    pandas.DataFrame
        ``model, suite, circuit, item, prediction, formula, correct`` (bool). An item of
        the dataset that lacks a region value is left out and counted in
        ``attrs["excluded"]`` ((model, suite) -> items); region rows of suites the dataset
        lacks in ``attrs["unknown_suites"]`` ((model, suite) -> rows).

    Raises
    ------
    DataError
        For a malformed region table (naming the row), regions scored by another metric
        than the suite's, or a suite whose regions table misses a condition or region a
        prediction reads (naming suite and prediction).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import syntaxgym_outcomes
    >>> sentences = pd.DataFrame({"sentence_id": ["s:1:a", "s:1:b"], "text": ["x", "y"],
    ...     "item": 1, "suite": "s", "condition": ["a", "b"], "regions": "[]", "metric": "sum",
    ...     "predictions": '["(1;%a%) < (1;%b%)"]'})
    >>> regions = pd.DataFrame({"model": "lm", "suite": "s", "item": 1, "condition": ["a", "b"],
    ...                         "region": 1, "surprisal": [2.5, 7.0]})
    >>> syntaxgym_outcomes(regions, sentences)[["item", "prediction", "correct"]].to_numpy().tolist()
    [[1, 0, True]]
    """
    regions = _region_values(regions)
    predictions = syntaxgym_predictions(dataset)
    sentences = getattr(dataset, "sentences", dataset)
    items = sentences.groupby("suite")["item"].unique()
    circuit = (sentences.drop_duplicates("suite").set_index("suite")["circuit"]
               if "circuit" in sentences else pd.Series(dtype=object))
    metric = predictions.drop_duplicates("suite").set_index("suite")["metric"]
    frames, excluded, unknown = [], {}, {}
    for (model, suite), g in regions.groupby(["model", "suite"], sort=False):
        preds = predictions[predictions["suite"] == suite]
        if suite not in metric.index:
            unknown[model, suite] = len(g)
            continue
        if "metric" in g and not g["metric"].eq(metric[suite]).all():
            raise DataError(f"suite {suite!r} is scored by metric "
                            f"{sorted(set(g['metric']))}, but its predictions read "
                            f"{metric[suite]!r}", source="region surprisals", column="metric",
                            fix="score the regions with the suite's metric")
        wide = g.pivot(index="item", columns=["condition", "region"], values="surprisal")
        out = _suite_outcomes(wide, preds, suite) if len(preds) else pd.DataFrame()
        excluded[model, suite] = len(set(items.get(suite, [])) - set(wide.dropna().index))
        frames.append(out.assign(model=model, suite=suite, circuit=circuit.get(suite)))
    if not frames:
        raise DataError("no region surprisals of the dataset's suites",
                        source="region surprisals", fix="score the dataset's suites")
    out = pd.concat(frames, ignore_index=True)
    out = out.reindex(columns=["model", "suite", "circuit", "item", "prediction", "formula",
                               "correct"])
    out.attrs.update(excluded=excluded, unknown_suites=unknown)
    return out


def _groups(suites: list[str], circuit_of: pd.Series) -> list[tuple[str, str, object, list]]:
    """(level, group, circuit, members) of each aggregate: members are suite indices, or for
    ``circuits`` lists of suite indices (one per circuit)."""
    out = [("suite", s, circuit_of.get(s), [i]) for i, s in enumerate(suites)]
    circuits = {}
    for i, s in enumerate(suites):
        if isinstance(circuit_of.get(s), str):
            circuits.setdefault(circuit_of[s], []).append(i)
    out += [("circuit", c, c, members) for c, members in sorted(circuits.items())]
    out.append(("overall", "overall", None, list(range(len(suites)))))
    if circuits:
        out.append(("circuits", "circuits", None, list(circuits.values())))
    return out


def _aggregate(acc: np.ndarray, level: str, members: list) -> np.ndarray:
    """The group's accuracy from suite accuracies ``acc`` (..., suites, systems); a system
    without any of the group's suites gets NaN (quietly)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanmean of an all-NaN slice
        if level == "circuits":
            parts = [np.nanmean(acc[..., m, :], axis=-2) for m in members]
            return np.nanmean(np.stack(parts, axis=-2), axis=-2)
        return np.nanmean(acc[..., members, :], axis=-2)


def suite_scores(outcomes: pd.DataFrame, n_boot: int = DEFAULT_N_BOOT,
                 seed: int | None = DEFAULT_SEED, ci: float = 0.95) -> pd.DataFrame:
    """Accuracy per suite, circuit, over suites (``overall``) and over circuits
    (``circuits``) of each system, with percentile intervals from a bootstrap of items
    within suites.

    Parameters
    ----------
    outcomes : pandas.DataFrame
        One row per (system, suite, item): ``system, suite, circuit, item, n, correct``,
        ``correct`` of ``n`` judgments (runs) right.
    n_boot, seed, ci
        Resamples (0: no intervals), their seed and the interval level.

    Returns
    -------
    pandas.DataFrame
        ``level, group, circuit, system, n_suites, n_items, accuracy, lower, upper``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks.syntaxgym import suite_scores
    >>> outcomes = pd.DataFrame({"system": "lm", "suite": ["a", "a", "b", "b"],
    ...     "circuit": ["Agreement", "Agreement", "Licensing", "Licensing"],
    ...     "item": [1, 2, 1, 2], "n": 1, "correct": [1, 1, 0, 1]})
    >>> table = suite_scores(outcomes, n_boot=0)
    >>> table[["level", "group", "accuracy"]].to_numpy().tolist()[2:]
    [['circuit', 'Agreement', 1.0], ['circuit', 'Licensing', 0.5], ['overall', 'overall', 0.75], ['circuits', 'circuits', 0.75]]
    """
    require_columns(outcomes, ["system", "suite", "circuit", "item", "n", "correct"], "outcomes")
    o = outcomes.assign(pair_id=outcomes["suite"] + ":" + outcomes["item"].astype(str),
                        paradigm=outcomes["suite"], rate=outcomes["correct"] / outcomes["n"])
    systems, suites = list(dict.fromkeys(o["system"])), sorted(o["suite"].unique())
    point = (o.pivot_table(index="paradigm", columns="system", values="rate", aggfunc="mean")
             .reindex(index=suites, columns=systems).to_numpy())
    counts = (o.pivot_table(index="paradigm", columns="system", values="item", aggfunc="size")
              .reindex(index=suites, columns=systems).fillna(0).to_numpy())
    dist = paradigm_boot(o, systems, suites, n_boot, seed) if n_boot else None
    circuit_of = o.drop_duplicates("suite").set_index("suite")["circuit"]
    rows = []
    for level, group, circuit, members in _groups(suites, circuit_of):
        flat = [i for m in members for i in (m if isinstance(m, list) else [m])]
        value = _aggregate(point, level, members)
        lower = upper = np.full(len(systems), np.nan)
        if dist is not None:
            lower, upper = percentile_interval(_aggregate(dist, level, members).T, ci)
        n_suites = (~np.isnan(point[flat])).sum(axis=0)
        rows += [(level, group, circuit, s, n_suites[j], counts[flat, j].sum(), value[j],
                  lower[j], upper[j]) for j, s in enumerate(systems)]
    out = pd.DataFrame(rows, columns=SCORE_COLUMNS).astype({"n_suites": int, "n_items": int})
    out.attrs.update(n_boot=n_boot, seed=seed, ci=ci, resampled="items within suites")
    return out


def syntaxgym_accuracy(regions: pd.DataFrame, dataset, n_boot: int = DEFAULT_N_BOOT,
                       seed: int | None = DEFAULT_SEED, ci: float = 0.95,
                       combine: str = "all") -> pd.DataFrame:
    """SyntaxGym accuracy of each model per prediction, suite, circuit and overall.

    Parameters
    ----------
    regions : pandas.DataFrame
        Region surprisals (``scoring.region_surprisals``; `syntaxgym_outcomes`).
    dataset : Dataset
        The [load_syntaxgym][acceptability.data.load_syntaxgym] dataset they score.
    n_boot, seed, ci
        Bootstrap resamples of items within suites (0: no intervals), seed, level.
    combine : {"all", "first"}, default "all"
        An item of a suite with several predictions is correct when all hold, or when its
        first holds: Hu et al.'s (2020) published outcomes of ``fgd_hierarchy`` count the
        first only (GPT-2 15 of 24 items, which its second prediction, equal surprisals of
        different words, would not allow).

    Returns
    -------
    pandas.DataFrame
        ``level`` (``prediction``, ``suite``, ``circuit``, ``overall``: mean over suites,
        ``circuits``: mean over circuits), ``group``, ``suite``, ``prediction``,
        ``formula``, ``circuit``, ``model``, ``n_suites``, ``n_items``, ``accuracy``,
        ``lower``, ``upper``. An item is correct when its suite's predictions hold
        (``combine``); ``attrs["excluded"]`` counts the items left out for a missing region value.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import syntaxgym_accuracy
    >>> sentences = pd.DataFrame({"sentence_id": ["s:1:a", "s:1:b", "s:2:a", "s:2:b"],
    ...     "text": "x", "item": [1, 1, 2, 2], "suite": "s", "condition": ["a", "b"] * 2,
    ...     "regions": "[]", "metric": "sum",
    ...     "predictions": '["(1;%a%) < (1;%b%)", "(*;%a%) < 5"]'})
    >>> regions = pd.DataFrame({"model": "lm", "suite": "s", "item": [1, 1, 2, 2],
    ...     "condition": ["a", "b"] * 2, "region": 1, "surprisal": [2.5, 7.0, 6.0, 9.0]})
    >>> acc = syntaxgym_accuracy(regions, sentences, n_boot=0)
    >>> acc[["level", "prediction", "accuracy"]].to_numpy().tolist()[:3]
    [['prediction', 0, 1.0], ['prediction', 1, 0.5], ['suite', <NA>, 0.5]]
    >>> first = syntaxgym_accuracy(regions, sentences, n_boot=0, combine="first")
    >>> float(first.loc[first["level"] == "suite", "accuracy"].iloc[0])
    1.0
    """
    if combine not in COMBINE:
        raise ValueError(f"combine must be one of {COMBINE}, got {combine!r}")
    n_boot, seed, ci = check_intervals(n_boot, seed, ci)
    outcomes = syntaxgym_outcomes(regions, dataset)
    key = ["model", "suite", "circuit", "item"]
    counted = outcomes if combine == "all" else outcomes[
        outcomes["prediction"] == outcomes.groupby("suite")["prediction"].transform("min")]
    items = counted.groupby(key, sort=False, dropna=False)["correct"].all().reset_index()
    table = suite_scores(items.assign(system=items["model"], n=1), n_boot, seed, ci)
    per = outcomes.assign(system=outcomes["model"], n=1, prediction=outcomes["prediction"],
                          suite=outcomes["suite"] + "\t" + outcomes["prediction"].astype(str))
    preds = suite_scores(per, n_boot, seed, ci)
    preds = preds[preds["level"] == "suite"].assign(level="prediction")
    suite, k = preds["group"].str.split("\t").str[0], preds["group"].str.split("\t").str[1]
    preds = preds.assign(group=suite, suite=suite, prediction=k.astype(int))
    formulas = outcomes.drop_duplicates(["suite", "prediction"]).set_index(
        ["suite", "prediction"])["formula"]
    preds["formula"] = [formulas[s, p] for s, p in zip(preds["suite"], preds["prediction"],
                                                       strict=True)]
    table["suite"] = table["group"].where(table["level"] == "suite")
    out = pd.concat([preds, table], ignore_index=True).rename(columns={"system": "model"})
    out = out[["level", "group", "suite", "prediction", "formula", "circuit", "model",
               "n_suites", "n_items", "accuracy", "lower", "upper"]].astype({"prediction": "Int64"})
    out.attrs.update(table.attrs, excluded=outcomes.attrs["excluded"])
    return out


def _majority(results: pd.DataFrame) -> pd.DataFrame:
    """Runs that differ only in random tie-breaking (Hu et al.'s n-gram "seeds") as one run
    per corpus, an item correct when more than half of them are (``notebooks/main.py``)."""
    ties = results["model"].isin(HU2020_TIE_BREAKING)
    key = ["model", "corpus", "suite", "item"]
    voted = (results[ties].groupby(key, sort=False)
             .agg(correct=("correct", "mean"), circuit=("circuit", "first")).reset_index())
    voted = voted.assign(correct=voted["correct"] > 0.5, seed="0")
    return pd.concat([results[~ties], voted], ignore_index=True)


def sg_scores(results: pd.DataFrame, by: str = "model", paper: bool = True,
              n_boot: int = DEFAULT_N_BOOT, seed: int | None = DEFAULT_SEED,
              ci: float = 0.95) -> pd.DataFrame:
    """Hu et al.'s (2020) SG scores from per-item outcomes, with bootstrap intervals.

    As the paper's ``notebooks/main.py``: the suites and models it keeps (``paper``), the
    tie-breaking n-gram runs voted into one per corpus, a run's suite accuracy the share
    of items correct, its SG score the mean over suites. A model's score pools its runs
    (corpora, seeds): per item the share of runs correct, which gives the mean of the
    runs' scores (Fig. 1's bars) with the item, carrying all runs, as the resampled unit.

    Parameters
    ----------
    results : pandas.DataFrame
        [load_syntaxgym_results][acceptability.data.load_syntaxgym_results].
    by : {"model", "corpus", "run"}
        One score per model (as the paper names it, `data.loaders.syntaxgym_results.HU2020_MODELS`),
        per model and training corpus, or per run (model, corpus, seed).
    paper : bool
        Keep only the rows the paper's analysis keeps (``in_paper``).
    n_boot, seed, ci
        Bootstrap of items within suites (0: no intervals), its seed and level.

    Returns
    -------
    pandas.DataFrame
        As `suite_scores`: ``level`` suite, circuit, ``overall`` (the SG score) and
        ``circuits`` (the mean over the six circuits); ``system`` the model (and corpus,
        seed).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import sg_scores
    >>> results = pd.DataFrame({"model": ["ngram"] * 3 + ["rnng"], "corpus": "bllip-lg",
    ...     "seed": ["1", "2", "3", "7"], "suite": "mvrr", "item": 0,
    ...     "correct": [True, True, False, False], "circuit": "Garden-Path Effects"})
    >>> table = sg_scores(results, paper=False, n_boot=0)
    >>> table[table["level"] == "overall"][["system", "accuracy"]].to_numpy().tolist()
    [['RNNG', 0.0], ['n-gram', 1.0]]
    """
    require_columns(results, ["model", "corpus", "seed", "suite", "item", "correct",
                              "circuit", *(["in_paper"] if paper else [])], "results")
    if by not in ("model", "corpus", "run"):
        raise DataError(f"by={by!r}", fix="use 'model', 'corpus' or 'run'")
    n_boot, seed, ci = check_intervals(n_boot, seed, ci)
    r = _majority(results[results["in_paper"].astype(bool)] if paper else results)
    name = r["model"].map(HU2020_MODELS).fillna(r["model"])
    corpus = r["corpus"].fillna("").astype(str)
    if by != "model":
        detail = corpus + (", seed " + r["seed"].astype(str) if by == "run" else "")
        name = name + np.where(corpus != "", " (" + detail + ")", "")
    o = (r.assign(system=name, correct=r["correct"].astype(float))
         .groupby(["system", "suite", "item"], sort=True)
         .agg(circuit=("circuit", "first"), n=("correct", "size"), correct=("correct", "sum"))
         .reset_index())
    return suite_scores(o, n_boot, seed, ci)
