"""Benchmark accuracy: the share of minimal pairs on which a system prefers the acceptable
sentence, per paradigm, per phenomenon and overall, for scored models, human
forced-choice (FC) trials and published results alike (BLiMP, Warstadt et al. 2020,
sec. 5 and Tables 3-4; Zorro, Huebner et al. 2021; Marvin & Linzen 2018, Table 1).

A system's accuracy on a paradigm is the mean over its pairs of the pair's accuracy: 1/0
for a model (score(good) > score(bad)), the share of trials choosing the acceptable
sentence for humans (BLiMP's individual agreement, ``total_mean``). A phenomenon's and
the overall accuracy are means over paradigms, as in BLiMP's Table 3 (with 1,000 pairs
per paradigm, the share of all pairs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.tables import (
    OUTCOME_COLUMNS,
    member,
    pair_groups,
    require_columns,
    validate_trials,
)
from acceptability.stats import metrics
from acceptability.stats.arguments import check_intervals, check_seed
from acceptability.stats.defaults import DEFAULT_N_BOOT, DEFAULT_SEED
from acceptability.stats.inference.engine import Seed, mean_resamples
from acceptability.stats.inference.intervals import percentile_interval

TIES = ("strict", "half", "random")
HUMAN = "Human"
LEVELS = ("paradigm", "phenomenon", "overall")


def pair_outcomes(dataset, scores: pd.DataFrame, ties: str = "strict",
                  seed: int | None = DEFAULT_SEED) -> pd.DataFrame:
    """One row per (model, pair): whether the model prefers the acceptable sentence.

    ``correct`` is 1 when score(good) > score(bad), else 0 (higher scores = more
    acceptable), ``n`` = 1, and ``tie`` flags equal scores. Pairs missing a score are
    left out and counted in ``df.attrs["excluded"]`` (model -> pairs).

    Parameters
    ----------
    dataset, scores
        The pairs and the long scores table.
    ties
        ``"strict"`` (a tie is wrong: BLiMP's score(good) > score(bad)), ``"half"`` (0.5,
        the expected value of a coin flip) or ``"random"``: Zorro's rule
        (``zorro/scoring.py``, ``count_correct_choices``, an unseeded ``random.random() <
        0.5``), here one seeded uniform per pair in pair order per model, so a pair's
        draw does not depend on which other pairs tie.
    seed
        For the ``"random"`` rule's draws.

    Returns
    -------
    pandas.DataFrame
        ``system, pair_id, paradigm, phenomenon, n, correct, tie``.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> ds, scores = data.load_example()
    >>> out = stats.pair_outcomes(ds, scores)
    >>> len(out), out.attrs["excluded"]["trigram_slor"]
    (44, 21)
    """
    if ties not in TIES:
        raise DataError(f"unknown ties rule {ties!r}", fix=f"use one of {list(TIES)}")
    seed = check_seed(seed)
    require_columns(scores, ["sentence_id", "model", "score"], "scores")
    groups = pair_groups(dataset.pairs)
    wide = scores.pivot_table(index="sentence_id", columns="model", values="score",
                              aggfunc="first", sort=False)
    rng = np.random.default_rng(seed)
    frames, excluded = [], {}
    for model in dict.fromkeys(scores["model"]):
        good = dataset.pairs["good_id"].map(wide[model]).to_numpy(float)
        bad = dataset.pairs["bad_id"].map(wide[model]).to_numpy(float)
        coin = rng.random(len(good)) < 0.5
        ok = ~(np.isnan(good) | np.isnan(bad))
        excluded[model] = int((~ok).sum())
        tie = good[ok] == bad[ok]
        correct = (good[ok] > bad[ok]).astype(float)
        if ties == "half":
            correct[tie] = 0.5
        elif ties == "random":
            correct[tie] = coin[ok][tie]
        frames.append(groups[ok].assign(system=model, n=1, correct=correct, tie=tie))
    out = pd.concat(frames, ignore_index=True)[OUTCOME_COLUMNS]
    out.attrs.update(excluded=excluded, ties=ties)
    return out


def human_outcomes(trials: pd.DataFrame, dataset=None) -> pd.DataFrame:
    """Human forced-choice trials as outcomes, one row per pair.

    Parameters
    ----------
    trials
        One row per trial: ``pair_id``, ``paradigm``, ``chose_good``.
    dataset
        If given, pairs outside it are left out (BLiMP: the two paradigms that failed
        validation) and counted in ``df.attrs["excluded"]``; phenomena come from it,
        else equal the paradigm.

    Returns
    -------
    pandas.DataFrame
        Outcomes of system ``"Human"``: ``n`` trials, ``correct`` = trials choosing the
        acceptable sentence.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> trials = pd.DataFrame({"pair_id": ["p1", "p1", "p1", "p2"], "paradigm": "agr",
    ...                        "chose_good": [1, 1, 0, 1]})
    >>> stats.human_outcomes(trials)[["pair_id", "n", "correct"]].to_numpy().tolist()
    [['p1', 3, 2.0], ['p2', 1, 1.0]]
    """
    trials = validate_trials(trials, columns=("pair_id", "paradigm", "chose_good"))
    g = trials.groupby(["pair_id", "paradigm"], sort=True)["chose_good"]
    out = g.agg(n="size", correct="sum").reset_index()
    excluded = 0
    if dataset is not None:
        groups = pair_groups(dataset.pairs).set_index("pair_id")
        inside = member(out["pair_id"], groups.index)
        excluded = int((~inside).sum())
        out = out[inside].reset_index(drop=True)
        out["phenomenon"] = out["pair_id"].map(groups["phenomenon"])
    else:
        out["phenomenon"] = out["paradigm"]
    out = out.assign(system=HUMAN, tie=False).astype({"correct": float})[OUTCOME_COLUMNS]
    out.attrs["excluded"] = {HUMAN: excluded}
    return out


def paradigm_boot(outcomes: pd.DataFrame, systems: list[str], paradigms: list[str],
                   n_boot: int, seed: Seed) -> np.ndarray:
    """(n_boot, paradigms, systems) paradigm accuracies, pairs resampled within each
    paradigm (a stratified bootstrap, by the engine's ``mean_resamples``); systems judged
    on the same pairs share draws, so their differences are paired. Systems have
    different pair sets (humans saw 5 pairs per BLiMP paradigm): each set of systems
    judged on the same pairs is a stratum of its own, drawn from one generator in turn."""
    rng = np.random.default_rng(seed)
    dist = np.full((n_boot, len(paradigms), len(systems)), np.nan)
    rate = outcomes["correct"] / outcomes["n"]
    col = {s: i for i, s in enumerate(systems)}
    for j, (_, g) in enumerate(outcomes.assign(rate=rate).groupby("paradigm", sort=True)):
        wide = g.pivot(index="pair_id", columns="system", values="rate")
        sets = wide.notna().T.apply(lambda m: m.to_numpy().tobytes(), axis=1)
        for _, members in sets.groupby(sets, sort=False):
            block = wide.loc[wide[members.index[0]].notna(), list(members.index)].to_numpy()
            cols = [col[s] for s in members.index]
            dist[:, j, cols] = mean_resamples(block, n_boot, rng)
    return dist


def accuracy(outcomes: pd.DataFrame | None, published: pd.DataFrame | None = None,
             n_boot: int = DEFAULT_N_BOOT, seed: int | None = DEFAULT_SEED,
             ci: float = 0.95) -> pd.DataFrame:
    """Accuracy per system at each level (``paradigm``, ``phenomenon``, ``overall``),
    with percentile intervals from a bootstrap over pairs within paradigms (a human pair
    carries all its trials: a cluster bootstrap), by the engine's ``mean_resamples``.

    Parameters
    ----------
    outcomes
        `pair_outcomes` and/or `human_outcomes`, concatenated (None: published results
        only).
    published
        Per-paradigm accuracies of other systems (``system, paradigm, phenomenon,
        accuracy``, e.g. ``data.load_blimp_results()``): at every level, no intervals.
    n_boot, seed, ci
        Resamples (0: no intervals), their seed and the interval level.

    Returns
    -------
    pandas.DataFrame
        ``level, group, phenomenon, system, source, n_pairs, n_judgments, ties,
        accuracy, lower, upper``; ``attrs`` keep n_boot, seed and ci.

    Examples
    --------
    >>> from acceptability import stats
    >>> import pandas as pd
    >>> outcomes = pd.DataFrame({
    ...     "system": ["lm"] * 4 + ["rnn"] * 4, "pair_id": ["p1", "p2", "p3", "p4"] * 2,
    ...     "paradigm": ["a", "a", "b", "b"] * 2, "phenomenon": "agreement", "n": 1,
    ...     "correct": [1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0], "tie": False})
    >>> acc = stats.accuracy(outcomes, n_boot=200)
    >>> overall = acc[acc["level"] == "overall"]
    >>> overall[["system", "accuracy", "lower", "upper"]].to_numpy().tolist()
    [['lm', 0.75, 0.5, 1.0], ['rnn', 0.25, 0.0, 0.5]]
    """
    n_boot, seed, ci = check_intervals(n_boot, seed, ci)
    if outcomes is None:
        outcomes = pd.DataFrame(columns=OUTCOME_COLUMNS)
    else:
        require_columns(outcomes, OUTCOME_COLUMNS, "outcomes")
    if outcomes.empty and published is None:
        raise DataError("no outcomes and no published results", fix="pass at least one")
    systems = list(dict.fromkeys(outcomes["system"]))
    paradigms = sorted(outcomes["paradigm"].unique())
    rate = outcomes["correct"] / outcomes["n"]
    by = outcomes.assign(rate=rate).groupby(["paradigm", "system"], sort=True)
    base = by.agg(phenomenon=("phenomenon", "first"), n_pairs=("pair_id", "size"),
                  n_judgments=("n", "sum"), ties=("tie", "sum"), accuracy=("rate", "mean"))
    base = base.reset_index().rename(columns={"paradigm": "group"})
    base["source"] = np.where(base["system"] == HUMAN, "trials", "scores")
    dist = (paradigm_boot(outcomes, systems, paradigms, n_boot, seed)
            if n_boot and len(outcomes) else None)
    rows = [base.assign(level="paradigm")]
    if published is not None:
        require_columns(published, ["system", "paradigm", "phenomenon", "accuracy"], "published")
        pub = published.rename(columns={"paradigm": "group"}).assign(
            level="paradigm", source="published", n_pairs=np.nan, n_judgments=np.nan,
            ties=np.nan)
        rows.append(pub[["group", "system", "phenomenon", "n_pairs", "n_judgments", "ties",
                         "accuracy", "source", "level"]])
    para = pd.concat(rows, ignore_index=True)
    phen = _pooled(para, "phenomenon")
    overall = _pooled(para.assign(phenomenon="overall"), "phenomenon").assign(level="overall")
    out = pd.concat([para, phen.assign(level="phenomenon"), overall], ignore_index=True)
    out["lower"] = out["upper"] = np.nan
    if dist is not None:
        _intervals(out, dist, systems, paradigms, ci)
    cols = ["level", "group", "phenomenon", "system", "source", "n_pairs", "n_judgments",
            "ties", "accuracy", "lower", "upper"]
    pub_systems = [] if published is None else list(dict.fromkeys(published["system"]))
    order = {s: i for i, s in enumerate(  # published models, scored models, humans
        [s for s in [*pub_systems, *systems] if s != HUMAN] + [HUMAN])}
    out = out.sort_values(["level", "system"], key=lambda c: c.map(order) if c.name ==
                          "system" else c.map(LEVELS.index), kind="stable", ignore_index=True)
    out = out[cols].astype({c: float for c in cols[5:]})
    out.attrs.update(n_boot=n_boot, seed=seed, ci=ci, resampled="pairs within paradigms")
    return out


def _pooled(para: pd.DataFrame, key: str) -> pd.DataFrame:
    """Means over paradigms of each (key, system, source); counts summed."""
    g = para.groupby([key, "system", "source"], sort=True)
    out = g.agg(n_pairs=("n_pairs", lambda s: s.sum(min_count=1)),
                n_judgments=("n_judgments", lambda s: s.sum(min_count=1)),
                ties=("ties", lambda s: s.sum(min_count=1)), accuracy=("accuracy", "mean"),
                n_paradigms=("group", "size")).reset_index()
    out["group"] = out[key]
    return out.drop(columns="n_paradigms")


def _intervals(out: pd.DataFrame, dist: np.ndarray, systems: list[str],
               paradigms: list[str], ci: float) -> None:
    """Fill ``lower``/``upper`` of the resampled rows with the percentile intervals of
    their resampled accuracies (means over their paradigms)."""
    para_of = {p: i for i, p in enumerate(paradigms)}
    sys_of = {s: i for i, s in enumerate(systems)}
    phen_of = out[out["level"] == "paradigm"].drop_duplicates("group").set_index("group")[
        "phenomenon"]
    rows = out.index[out["source"] != "published"]
    samples = np.full((len(rows), dist.shape[0]), np.nan)
    for k, (level, group, system) in enumerate(out.loc[rows, ["level", "group", "system"]]
                                               .itertuples(index=False)):
        if level == "paradigm":
            cols = [para_of[group]]
        elif level == "phenomenon":
            cols = [para_of[p] for p in paradigms if phen_of.get(p) == group]
        else:
            cols = list(range(len(paradigms)))
        if cols:
            samples[k] = np.nanmean(dist[:, cols, sys_of[system]], axis=1)
    lower, upper = percentile_interval(np.where(np.isfinite(samples), samples, np.nan), ci)
    out.loc[rows, "lower"], out.loc[rows, "upper"] = lower, upper


def accuracy_table(acc: pd.DataFrame, level: str = "phenomenon",
                   percent: bool = True) -> pd.DataFrame:
    """`accuracy` wide: rows = groups of ``level``, columns = systems in their order of
    appearance.

    Parameters
    ----------
    acc
        `accuracy`'s table.
    level
        ``"phenomenon"`` (rows end with ``overall``, as BLiMP's Table 3) or
        ``"paradigm"`` (Table 4).
    percent
        Accuracies in percent (else proportions).

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> from acceptability import data, stats
    >>> outcomes = stats.pair_outcomes(*data.load_example())  # 3 systems, 21 paradigms
    >>> table = stats.accuracy_table(stats.accuracy(outcomes, n_boot=0))
    >>> table.shape, table.loc["overall"].round(1).tolist()
    ((22, 3), [39.3, 86.8, 87.5])
    """
    if level not in ("phenomenon", "paradigm"):
        raise ValueError(f"level must be 'phenomenon' or 'paradigm', got {level!r}")
    levels = [level, "overall"] if level == "phenomenon" else [level]
    part = acc[acc["level"].isin(levels)]
    wide = part.pivot_table(index="group", columns="system", values="accuracy", sort=False)
    wide = wide[list(dict.fromkeys(part["system"]))]
    order = [g for g in dict.fromkeys(part["group"]) if g != "overall"]
    wide = wide.reindex(sorted(order) + (["overall"] if "overall" in wide.index else []))
    wide.index.name, wide.columns.name = level, None
    return wide * 100 if percent else wide


def accuracy_correlations(acc: pd.DataFrame, level: str = "paradigm") -> pd.DataFrame:
    """Pearson correlations between systems of their accuracies over the groups of
    ``level`` (BLiMP Fig. 1: the 67 paradigms), pairwise-complete.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> outcomes = stats.pair_outcomes(*data.load_example())  # 3 systems, 21 paradigms
    >>> r = stats.accuracy_correlations(stats.accuracy(outcomes, n_boot=0))
    >>> r.loc["bert-large-cased_mlm", "bert-large-cased_acc"].round(2)
    np.float64(-0.77)
    """
    wide = accuracy_table(acc, level="paradigm" if level == "paradigm" else "phenomenon",
                          percent=False)
    wide = wide.drop(index="overall", errors="ignore")
    r = metrics.pearson_matrix(wide.to_numpy(float).T)
    return pd.DataFrame(r, index=wide.columns, columns=wide.columns)


def contrast(acc: pd.DataFrame, first: list[str], second: list[str],
             name: str = "difference") -> pd.DataFrame:
    """Per system: the mean accuracy (percent) of paradigms ``first``, of ``second``, and
    ``first - second`` in points (column ``name``); a paradigm missing from ``acc`` is an
    error.

    Examples
    --------
    >>> from acceptability.stats.benchmarks.outcomes import contrast
    >>> from acceptability import data, stats
    >>> outcomes = stats.pair_outcomes(*data.load_example())  # 3 systems, 21 paradigms
    >>> acc = stats.accuracy(outcomes, n_boot=0)
    >>> paradigms = sorted(outcomes["paradigm"].unique())
    >>> contrast(acc, paradigms[:10], paradigms[10:]).round(1).to_numpy().tolist()
    [['bert-large-cased_mlm', 37.5, 40.0, -2.5], ['bert-large-cased_acc', 85.0, 88.9, -3.9], ['trigram_slor', 83.3, 100.0, -16.7]]
    """
    wide = accuracy_table(acc, level="paradigm")
    missing = [p for p in [*first, *second] if p not in wide.index]
    if missing:
        raise DataError(f"paradigm(s) {missing} are not in the accuracy table",
                        fix="compute accuracy on a dataset with these paradigms")
    a, b = wide.loc[first].mean(), wide.loc[second].mean()
    return pd.DataFrame({"system": wide.columns, "first": a.to_numpy(), "second": b.to_numpy(),
                         name: (a - b).to_numpy()})


DET_NOUN = ["determiner_noun_agreement_1", "determiner_noun_agreement_2",
            "determiner_noun_agreement_irregular_1", "determiner_noun_agreement_irregular_2"]
DET_ADJ_NOUN = ["determiner_noun_agreement_with_adjective_1",
                "determiner_noun_agreement_with_adj_2",
                "determiner_noun_agreement_with_adj_irregular_1",
                "determiner_noun_agreement_with_adj_irregular_2"]
# The attractor paradigms' pairs differ in the verb ("A sketch of lights doesn't/*don't
# appear"), as do regular_plural_subject_verb_agreement_1's (example 3a, "The sisters
# bake/*bakes"); _2's differ in the subject noun. Against _1 the published results give
# the paper's numbers (LSTM 20, TXL 5 points).
NO_ATTRACTOR = ["regular_plural_subject_verb_agreement_1"]
ATTRACTORS = {"relative clause": ["distractor_agreement_relative_clause"],
              "relational noun": ["distractor_agreement_relational_noun"],
              "either": ["distractor_agreement_relative_clause",
                         "distractor_agreement_relational_noun"]}
REGULAR = ["determiner_noun_agreement_1", "determiner_noun_agreement_2",
           "determiner_noun_agreement_with_adjective_1", "determiner_noun_agreement_with_adj_2",
           "regular_plural_subject_verb_agreement_1", "regular_plural_subject_verb_agreement_2"]
IRREGULAR = ["determiner_noun_agreement_irregular_1", "determiner_noun_agreement_irregular_2",
             "determiner_noun_agreement_with_adj_irregular_1",
             "determiner_noun_agreement_with_adj_irregular_2",
             "irregular_plural_subject_verb_agreement_1",
             "irregular_plural_subject_verb_agreement_2"]


def adjective_effect(acc: pd.DataFrame) -> pd.DataFrame:
    """BLiMP sec. 6.1, Fig. 3 (upper): determiner-noun agreement without minus with an
    intervening adjective (``Ron saw that (nice) man/*men``), mean of the 4 paradigms of
    each, in points per system (the paper: 5-gram 35 points, neural models 3-5).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> from acceptability.stats.benchmarks.outcomes import DET_ADJ_NOUN, DET_NOUN
    >>> published = pd.DataFrame({"system": "5-gram", "paradigm": DET_NOUN + DET_ADJ_NOUN,
    ...                           "phenomenon": "determiner_noun_agreement",
    ...                           "accuracy": [0.9] * 4 + [0.5] * 4})
    >>> stats.adjective_effect(stats.accuracy(None, published)).round(1).to_numpy().tolist()
    [['5-gram', 90.0, 50.0, 40.0]]
    """
    return contrast(acc, DET_NOUN, DET_ADJ_NOUN, "drop_with_adjective")


def attractor_effect(acc: pd.DataFrame) -> pd.DataFrame:
    """BLiMP sec. 6.1, Fig. 3 (lower): subject-verb agreement without an attractor
    (``regular_plural_subject_verb_agreement_1``, whose pairs differ in the verb like the
    attractor paradigms') minus with an attractor of the opposite number in a relative
    clause, in a relational noun, and either (the mean of the two; the paper: LSTM 20,
    GPT-2 22, TXL 5 points), in points per system.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> from acceptability.stats.benchmarks.outcomes import ATTRACTORS, NO_ATTRACTOR
    >>> published = pd.DataFrame({"system": "LSTM",
    ...                           "paradigm": NO_ATTRACTOR + ATTRACTORS["either"],
    ...                           "phenomenon": "agreement", "accuracy": [0.9, 0.7, 0.6]})
    >>> effect = stats.attractor_effect(stats.accuracy(None, published))
    >>> effect[["attractor", "drop_with_attractor"]].round(1).to_numpy().tolist()
    [['relative clause', 20.0], ['relational noun', 30.0], ['either', 25.0]]
    """
    frames = [contrast(acc, NO_ATTRACTOR, p, "drop_with_attractor").assign(attractor=k)
              for k, p in ATTRACTORS.items()]
    return pd.concat(frames, ignore_index=True)


def irregular_effect(acc: pd.DataFrame) -> pd.DataFrame:
    """BLiMP sec. 6.2, Fig. 4: regular minus irregular number marking over the 6 + 6
    determiner-noun and subject-verb agreement paradigms, in points per system (the
    paper: the word-level LSTM 5.2 points worse on irregulars, TXL under 1.3).

    Examples
    --------
    A system 90% right on the regular paradigms and 80% on the irregular ones:

    >>> from acceptability.stats import accuracy, irregular_effect
    >>> from acceptability.stats.benchmarks.outcomes import IRREGULAR, REGULAR
    >>> rows = [("LSTM", p, "agreement", 0.9) for p in REGULAR]
    >>> rows += [("LSTM", p, "agreement", 0.8) for p in IRREGULAR]
    >>> import pandas as pd
    >>> published = pd.DataFrame(rows, columns=["system", "paradigm", "phenomenon", "accuracy"])
    >>> irregular_effect(accuracy(None, published)).round(1).to_numpy().tolist()
    [['LSTM', 90.0, 80.0, 10.0]]
    """
    return contrast(acc, REGULAR, IRREGULAR, "drop_on_irregular")


def prefix_outcomes(dataset, prefix_scores: pd.DataFrame) -> pd.DataFrame:
    """``scoring.prefix_scores`` output as outcomes (``prefers_good`` -> ``correct``),
    with a ``method`` column (one_prefix, two_prefix).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data, stats
    >>> ds, _ = data.load_example()
    >>> prefix = pd.DataFrame({"pair_id": ds.pairs["pair_id"][:2], "model": "lm",
    ...                        "method": "one_prefix", "prefers_good": [True, False]})
    >>> stats.prefix_outcomes(ds, prefix)[["pair_id", "correct"]].to_numpy().tolist()
    [['pair01', 1.0], ['pair02', 0.0]]
    """
    require_columns(prefix_scores, ["pair_id", "model", "method", "prefers_good"],
                    "prefix scores")
    groups = pair_groups(dataset.pairs)
    out = prefix_scores.merge(groups, on="pair_id", how="inner")
    tie = out["good_score"] == out["bad_score"] if "good_score" in out else False
    return out.assign(system=out["model"], n=1, correct=out["prefers_good"].astype(float),
                      tie=tie)[[*OUTCOME_COLUMNS, "method"]]


def method_comparison(full: pd.DataFrame, prefix: pd.DataFrame) -> pd.DataFrame:
    """BLiMP sec. 6.4, Fig. 6: per system, prefix method and phenomenon, the accuracy of
    the prefix method beside the full-sentence method on the same pairs (those the
    method applies to): ``accuracy_full``, ``accuracy_prefix``, ``difference``.

    Examples
    --------
    One system's outcomes on four pairs, by the full sentences and by a prefix method:

    >>> import pandas as pd
    >>> from acceptability.stats import method_comparison
    >>> full = pd.DataFrame({"system": "lm", "pair_id": ["p1", "p2", "p3", "p4"],
    ...                      "paradigm": "a", "phenomenon": "agreement", "n": 1,
    ...                      "correct": [1.0, 1.0, 0.0, 1.0], "tie": False})
    >>> prefix = full.assign(method="one_prefix", correct=[1.0, 0.0, 0.0, 1.0])
    >>> table = method_comparison(full, prefix)
    >>> table.loc[table["level"] == "overall", ["accuracy_full", "accuracy_prefix"]].values
    array([[0.75, 0.5 ]])
    """
    rows = []
    for method, p in prefix.groupby("method", sort=True):
        f = full.merge(p[["system", "pair_id"]], on=["system", "pair_id"])
        if f.empty:
            raise DataError(f"no system has both full-sentence and {method} outcomes: "
                            f"full {sorted(set(full['system']))}, {method} "
                            f"{sorted(set(p['system']))}",
                            fix="give both scoring calls the same model_name")
        a_full = accuracy(f, n_boot=0)
        a_pre = accuracy(p.drop(columns="method"), n_boot=0)
        key = ["level", "group", "system"]
        m = a_full[[*key, "n_pairs", "accuracy"]].merge(
            a_pre[[*key, "accuracy"]], on=key, suffixes=("_full", "_prefix"))
        rows.append(m[m["level"] != "paradigm"].assign(method=method))
    out = pd.concat(rows, ignore_index=True)
    out["difference"] = out["accuracy_prefix"] - out["accuracy_full"]
    return out[["method", "level", "group", "system", "n_pairs", "accuracy_full",
                "accuracy_prefix", "difference"]]


def oracle_outcomes(outcomes: pd.DataFrame, systems: list[str],
                    name: str = "oracle") -> pd.DataFrame:
    """Seed 004's oracle (Table 1): a pair is correct when any of ``systems`` gets it
    right (correct == 1), on the pairs all of them judged; a summary of how much their
    errors differ, not a fair competitor.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> right = {"lm": [1.0, 1.0, 0.0, 1.0], "rnn": [1.0, 0.0, 0.0, 0.0]}  # per pair p1..p4
    >>> outcomes = pd.concat(pd.DataFrame({
    ...     "system": system, "pair_id": ["p1", "p2", "p3", "p4"], "paradigm": "a",
    ...     "phenomenon": "agreement", "n": 1, "correct": correct, "tie": False})
    ...     for system, correct in right.items())
    >>> stats.oracle_outcomes(outcomes, ["lm", "rnn"])["correct"].tolist()
    [1.0, 1.0, 0.0, 1.0]
    """
    require_columns(outcomes, OUTCOME_COLUMNS, "outcomes")
    missing = [s for s in systems if s not in set(outcomes["system"])]
    if missing:
        raise DataError(f"system(s) {missing} are not in the outcomes",
                        fix=f"use some of {sorted(set(outcomes['system']))}")
    part = outcomes[outcomes["system"].isin(systems)]
    wide = part.pivot(index="pair_id", columns="system", values="correct").dropna()
    first = part.drop_duplicates("pair_id").set_index("pair_id").loc[wide.index]
    return pd.DataFrame({"system": name, "pair_id": wide.index,
                         "paradigm": first["paradigm"].to_numpy(),
                         "phenomenon": first["phenomenon"].to_numpy(), "n": 1,
                         "correct": (wide == 1).any(axis=1).astype(float).to_numpy(),
                         "tie": False})[OUTCOME_COLUMNS]


def reference_table(acc: pd.DataFrame, reference: str, systems: list[str] | None = None,
                    either: list[str] | None = None) -> pd.DataFrame:
    """Seed 004's Tables 1, 3 and 5: accuracy (percent) per paradigm of ``systems`` (all
    but the reference by default) beside ``reference``, then an ``average`` row (mean
    over paradigms) and a ``fraction >= reference`` row ("k/n": paradigms where the
    system is at least as accurate as the reference). ``either``: two or more systems
    whose best per paradigm is also counted (Table 1's "Either" column).

    Examples
    --------
    >>> from acceptability import data, stats
    >>> outcomes = stats.pair_outcomes(*data.load_example())  # 3 systems, 21 paradigms
    >>> table = stats.reference_table(stats.accuracy(outcomes, n_boot=0), "trigram_slor")
    >>> table.loc["fraction >= trigram_slor"].tolist()
    ['', '0/8', '8/8']
    """
    wide = accuracy_table(acc, level="paradigm")
    if reference not in wide:
        raise DataError(f"reference system {reference!r} is not in the accuracy table",
                        fix=f"use one of {list(wide.columns)}")
    systems = [s for s in (systems or list(wide.columns)) if s != reference]
    out = wide[[reference, *systems]].copy()
    if either:
        out["either"] = wide[either].max(axis=1)
    out = out.dropna(subset=[reference])
    ref = out[reference]
    average = out.mean()
    if either:  # the best of several systems per paradigm is no system: no average
        average["either"] = np.nan
    rows = out.round(2).astype(object)
    rows.loc["average"] = average.round(2)
    rows.loc[f"fraction >= {reference}"] = [
        "" if col == reference else f"{int((out[col] >= ref).sum())}/{len(out)}"
        for col in out.columns]
    return rows
