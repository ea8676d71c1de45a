"""The benchmark part of a report (BLiMP, Zorro, Marvin & Linzen, and the minimal pairs of
other languages: TurBLiMP, RuBLiMP, CLAMS, SLING, MultiBLiMP): accuracy per
phenomenon and paradigm with human and published systems beside the scored models, the
correlations of per-paradigm accuracies (BLiMP Fig. 1), BLiMP's sec. 6 contrasts, the
shallow predictors (BLiMP sec. 5.2, Fig. 2) and Marvin & Linzen's Table 1."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from acceptability import data
from acceptability.data.loaders.blimp_results import HUMAN
from acceptability.data.loaders.published import SEED_004_SYSTEMS, seed_004_published
from acceptability.scoring.baselines.rules import BENCHMARKS as RULE_BENCHMARKS
from acceptability.scoring.baselines.rules import SYSTEM, rule_outcomes
from acceptability.scoring.registry import LOGPROB_METHODS
from acceptability.stats.benchmarks import outcomes as acc
from acceptability.stats.benchmarks.shallow import shallow_predictors

__all__ = ["BENCHMARKS", "HUMAN", "Benchmark", "accuracy_display", "analyse_benchmark"]
BENCHMARKS = ("blimp", "zorro", "marvin-linzen", "turblimp", "rublimp", "clams", "sling",
              "multiblimp")
MIN_CORRELATED = 5  # paradigms needed before per-paradigm accuracies are correlated


@dataclass
class Benchmark:
    """What the benchmark sections show; parts the data do not support are None and
    ``notes`` says why."""

    name: str
    accuracy: pd.DataFrame
    correlations: pd.DataFrame | None = None
    contrasts: pd.DataFrame | None = None
    baselines: pd.DataFrame | None = None
    shallow: pd.DataFrame | None = None
    table1: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)


def _blimp_extras(dataset, data_path, notes: list[str]):
    """BLiMP's human FC outcomes and published model results for the loaded paradigms."""
    paradigms = set(dataset.pairs["paradigm"])
    try:
        trials = data.load_blimp_trials(data_path)
        human = acc.human_outcomes(trials, dataset)
        published = data.load_blimp_results(data_path)
    except data.DataError as err:
        notes.append(f"BLiMP's human and published results are not shown: {err}")
        return None, None
    published = published[published["paradigm"].isin(paradigms)
                          & (published["system"] != HUMAN)]
    notes.append("Human: BLiMP's forced-choice validation (individual agreement, 5 pairs "
                 "per paradigm, about 20 judgments each); 5-gram, LSTM, Transformer-XL and "
                 "GPT-2: the paper's published per-paradigm accuracies (its results file; "
                 "no intervals).")
    return human, published


def _contrasts(a: pd.DataFrame) -> pd.DataFrame | None:
    """BLiMP sec. 6.1 and 6.2 contrasts, for the systems and paradigms at hand."""
    parts = []
    for name, fn, col in (("intervening adjective (6.1)", acc.adjective_effect,
                           "drop_with_adjective"),
                          ("irregular plural (6.2)", acc.irregular_effect, "drop_on_irregular")):
        try:
            parts.append(fn(a).rename(columns={col: "difference"}).assign(contrast=name))
        except data.DataError:
            continue
    try:
        att = acc.attractor_effect(a).rename(columns={"drop_with_attractor": "difference"})
        parts.append(att.assign(contrast="attractor, " + att.pop("attractor") + " (6.1)"))
    except data.DataError:
        pass
    if not parts:
        return None
    out = pd.concat(parts, ignore_index=True)
    return out[["contrast", "system", "first", "second", "difference"]]


def _shallow(dataset, scores: pd.DataFrame, notes: list[str]) -> pd.DataFrame | None:
    if "method" in scores:
        scores = scores[scores["method"].isin(LOGPROB_METHODS)]
    if scores.empty:
        notes.append("No shallow-predictor figure: it needs log-probability scores.")
        return None
    return shallow_predictors(dataset, scores)


def _baselines(dataset, outcomes: list[pd.DataFrame], models: list[str]) -> pd.DataFrame:
    """Seed 004's Tables 3/5 for these models: per paradigm, the first model beside the
    linear rules and seed 004's printed systems, with 'fraction >= model' counts."""
    a = acc.accuracy(pd.concat(outcomes, ignore_index=True),
                     published=seed_004_published(dataset), n_boot=0)
    printed = list(SEED_004_SYSTEMS.values())
    return acc.reference_table(a, models[0], [*models[1:], SYSTEM, *printed])


def analyse_benchmark(dataset, scores: pd.DataFrame, n_boot: int, seed: int,
                      data_path: str | None = None) -> Benchmark:
    """The benchmark statistics of ``scores`` on a BLiMP, Zorro or Marvin & Linzen
    dataset. Ties: Zorro's rule (at random, seeded) on Zorro, strict elsewhere."""
    notes: list[str] = []
    ties = "random" if dataset.name == "zorro" else "strict"
    outcomes = [acc.pair_outcomes(dataset, scores, ties=ties, seed=seed)]
    baselines = None
    if dataset.name in RULE_BENCHMARKS:
        rules = rule_outcomes(dataset)
        outcomes.append(rules)
        baselines = _baselines(dataset, outcomes, list(dict.fromkeys(scores["model"])))
        if rules.attrs["no_rule"]:
            notes.append("Seed 004 gives no linear rule for "
                         + ", ".join(rules.attrs["no_rule"]) + ".")
    published = None
    if dataset.name == "blimp":
        human, published = _blimp_extras(dataset, data_path, notes)
        if human is not None:
            outcomes.append(human)
    a = acc.accuracy(pd.concat(outcomes, ignore_index=True), published=published,
                     n_boot=n_boot, seed=seed)
    n_par = a.loc[a["level"] == "paradigm", "group"].nunique()
    corr = acc.accuracy_correlations(a) if n_par >= MIN_CORRELATED and \
        a["system"].nunique() > 1 else None
    if corr is None:
        notes.append(f"No correlation of per-paradigm accuracies: it needs at least "
                     f"{MIN_CORRELATED} paradigms and two systems.")
    table1 = None
    if dataset.name == "marvin-linzen":
        from acceptability.data.loaders.marvin_linzen import ML_TABLE1_PUBLISHED
        from acceptability.stats.benchmarks.marvin_linzen import ml_table1

        published_t1 = ML_TABLE1_PUBLISHED.drop(columns="n_sents").rename(columns={
            "rnn": "LSTM (paper)", "multitask": "multitask LSTM (paper)",
            "ngram": "n-gram (paper)", "humans": "humans (paper)"})
        table1 = ml_table1(dataset, scores).merge(published_t1, on=["section", "condition"],
                                                  how="left")
    return Benchmark(name=dataset.name, accuracy=a, correlations=corr,
                     contrasts=_contrasts(a) if dataset.name == "blimp" else None,
                     baselines=baselines,
                     shallow=_shallow(dataset, scores, notes), table1=table1, notes=notes)


def accuracy_display(a: pd.DataFrame, level: str) -> pd.DataFrame:
    """The report's accuracy table at ``level`` (proportions, the report's one unit): a row
    per group, a column per system with its interval columns (``<system>_lower``/
    ``_upper``) where resampled."""
    wide = acc.accuracy_table(a, level, percent=False)
    part = a[a["level"].isin([level, "overall"])]
    out = pd.DataFrame({level: wide.index})
    for system in wide.columns:
        out[system] = wide[system].to_numpy()
        s = part[part["system"] == system].set_index("group")
        if s["lower"].notna().any():
            out[f"{system}_lower"] = s["lower"].reindex(wide.index).to_numpy()
            out[f"{system}_upper"] = s["upper"].reindex(wide.index).to_numpy()
    return out
