"""``analyse``: run every statistic the report shows and keep it, with provenance, in a
``Results``; a section that cannot be computed (no pairs, n_boot = 0, a failed fit) is
omitted with a note saying why."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import pandas as pd

from acceptability import stats
from acceptability.data.loaders.published import THESIS_TABLE_2_3, THESIS_TABLE_3_1
from acceptability.data.names import with_display_names
from acceptability.reports.benchmark import BENCHMARKS, Benchmark, analyse_benchmark
from acceptability.reports.fits import Fits
from acceptability.reports.provenance import provenance
from acceptability.reports.ratings.analysis import RatingsResults, analyse_ratings
from acceptability.reports.ratings.fits import (
    TRIAL_LEVEL,
    check_trial_formula,
    fit_rating_models,
    is_trial_formula,
)
from acceptability.reports.syntaxgym.analysis import (
    SYNTAXGYM,
    SyntaxGym,
    analyse_syntaxgym,
    is_region_table,
    sentence_scores,
)
from acceptability.stats.defaults import (
    DEFAULT_DELTAS,
    DEFAULT_FORMULA,
    DEFAULT_N_BOOT,
    DEFAULT_SEED,
)
from acceptability.stats.inference.bootstrap import WARNINGS, with_intervals
from acceptability.stats.metric_table import (
    COMPARE_FIRST,
    check_metric,
    lookup,
    metric_names,
    missing_for,
)
from acceptability.stats.ratings.human import with_norming
from acceptability.stats.ratings.judgment import differing_pairs

AUTO = "auto"  # formula and compare_metric: chosen from what the dataset supports
# scipy warns when a metric is NaN in every resample (a model without human judgments);
# its interval is NaN and shows as a dash in the report.
NAN_WARNING = "The BCa confidence interval cannot be calculated"
MAX_GROUPS = 30  # more groups than this make the per-group bar chart unreadable


@dataclass
class Results:
    """Everything a report shows; ``reports.build`` renders it. Optional parts are None
    and ``notes`` says why."""

    dataset: object
    scores: pd.DataFrame
    deltas: tuple[float, ...]
    evaluation: pd.DataFrame
    correlations: pd.DataFrame
    corr_sentence: pd.DataFrame
    corr_pair: pd.DataFrame | None
    adc_curve: pd.DataFrame
    variability: stats.Variability
    sentence_frame: pd.DataFrame
    pair_deltas: pd.DataFrame | None
    by: str | None = None
    sign: str = "strict"
    by_group: pd.DataFrame | None = None
    bootstrap: pd.DataFrame | None = None
    comparisons: pd.DataFrame | None = None
    fits: Fits | None = None
    benchmark: Benchmark | None = None
    ratings: RatingsResults | None = None
    syntaxgym: SyntaxGym | None = None
    reference: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)

    @property
    def models(self) -> list[str]:
        return list(self.evaluation["model"])


def choose_by(dataset) -> str | None:
    """The grouping for per-group accuracy bars: BLiMP paradigms, else the source
    sub-dataset (LI vs Adger), else phenomena when there are few enough."""
    for table, col in ((dataset.pairs, "paradigm"), (dataset.sentences, "dataset"),
                       (dataset.sentences, "phenomenon")):
        if col in table and 1 < table[col].nunique() <= MAX_GROUPS:
            return col
    return None


def _reference(dataset, models: list[str]) -> dict[str, pd.DataFrame]:
    """Published numbers for the same dataset and models (thesis Tables 3.1, 2.3)."""
    if getattr(dataset, "name", None) != "li-adger":
        return {}
    out = {}
    for key, table in (("table_3_1", THESIS_TABLE_3_1), ("table_2_3", THESIS_TABLE_2_3)):
        t = table[table["model"].isin(models)]
        if len(t):
            out[key] = t.reset_index(drop=True)
    return out


def bootstrap_ci(dataset, scores: pd.DataFrame, deltas, n_boot: int, seed: int,
                 notes: dict, sign: str = "strict") -> pd.DataFrame | None:
    """Cluster (sentence type) bootstrap of every ``stats.evaluate`` metric the dataset
    defines (``stats.metric_table.missing_for``), tidy ``model, metric, estimate,
    lower, upper``; None (and a note) when not run. Intervals missing for a metric that
    has a value are named in ``notes["bootstrap"]``."""
    if n_boot <= 0:
        notes["bootstrap"] = "Bootstrap confidence intervals were not requested (n_boot = 0)."
        return None
    if dataset.name == SYNTAXGYM:
        notes["bootstrap"] = "SyntaxGym: the intervals are those of the accuracies."
        return None
    names = [m for m in metric_names(deltas) if missing_for(dataset, m) is None]
    if not names:
        notes["bootstrap"] = "No metric to bootstrap: the dataset defines none."
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        boot = stats.bootstrap(names, dataset, scores, n_boot=n_boot, cluster="type_id",
                               seed=seed, deltas=deltas, sign=sign)
    _note_missing(caught, notes, "bootstrap", "Intervals")
    return boot


def _note_missing(caught: list, notes: dict, key: str, what: str) -> None:
    """``stats.bootstrap``'s warnings about missing intervals and intervals resting on few
    clusters, as a report note."""
    said = list(dict.fromkeys(str(w.message) for w in caught
                              if str(w.message).startswith(WARNINGS)))
    if said:
        notes[key] = f"{what}: " + "; ".join(said) + "."


def resolve_compare_metric(dataset, metric: str) -> str | None:
    """The metric models are compared on: ``metric`` if the dataset defines it (else a
    ValueError saying why); ``"auto"``: the ADC at delta 1 where there are pairs with human
    judgments, else the BLiMP criterion (pairs only), else r_sentence (human judgments
    without pairs), else None."""
    if metric != AUTO:
        return check_metric(dataset, metric)
    return next((m for m in COMPARE_FIRST if missing_for(dataset, m) is None), None)


def _compare(dataset, scores, metric: str | None, correction: str, n_boot: int, seed: int,
             deltas, notes: dict, sign: str = "strict") -> pd.DataFrame | None:
    """All pairs of models on ``metric``, with at least the resamples that the number of
    corrected comparisons needs (``stats.resamples_for``): with fewer, the bootstrap
    p-value's resolution 2 / (n + 1) keeps every corrected p above 0.05."""
    k = scores["model"].nunique()
    if k < 2 or n_boot <= 0 or metric is None:
        notes["comparisons"] = ("Model comparisons need at least two models, bootstrap "
                                "resamples (n_boot > 0) and a metric the dataset defines.")
        return None
    n = max(n_boot, stats.resamples_for(k * (k - 1) // 2 if correction else 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", message=NAN_WARNING)
        try:
            out = stats.compare_all(dataset, scores, metric, correction=correction, n_boot=n,
                                    seed=seed, deltas=deltas, sign=sign)
        except ValueError as err:  # a single resampling unit: nothing to resample
            notes["comparisons"] = f"No model comparisons: {err}."
            return None
    _note_missing(caught, notes, "comparisons", "Comparisons")
    return out


def group_intervals(dataset, scores: pd.DataFrame, by_group: pd.DataFrame, by: str,
                    n_boot: int, seed: int, notes: dict, sign: str = "strict") -> pd.DataFrame:
    """``by_group`` with cluster-bootstrap intervals of the metrics the per-group bars can
    show (the BLiMP criterion and the ADC at each delta, where defined), each group
    resampled within itself (``stats.bootstrap(by=...)``; a group that is one cluster by
    its pairs). Groups left without an interval are named in ``notes``."""
    names = [m for m in by_group.columns if (found := lookup(m)) is not None
             and found[0].passes is not None and by_group[m].notna().any()]
    if n_boot <= 0 or not names:
        return by_group
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        boot = stats.bootstrap(names, dataset, scores, n_boot=n_boot, seed=seed, by=by, sign=sign)
    _note_missing(caught, notes, "by_group_ci", "Per-group intervals")
    return with_intervals(by_group, boot, by)


def _pair_level(formula: str) -> bool:
    return formula.split("~", 1)[0].strip() == "dh"


def check_formula(dataset, formula: str) -> None:
    """Raise ``ValueError`` naming the problem when ``formula`` fits no model at all: a
    syntax error, or a column that the model frame lacks (a typo such as ``scor``, or at
    pair level a sentence column whose values differ within a pair). The frames carry the
    sentences' own columns (``stats.sentence_model_frame``, ``stats.pair_model_frame``).
    Needs no scores (the frame's columns do not depend on them), so it runs first.
    ``"trial-level"`` (the rating models' own formulas) and formulas of ``response_z`` or
    ``response`` need trial-level ratings (``reports.ratings.fits.check_trial_formula``)."""
    if is_trial_formula(formula):
        check_trial_formula(dataset, formula)
        return
    parsed = stats.parse_formula(formula)
    frame_of = stats.pair_model_frame if _pair_level(formula) else stats.sentence_model_frame
    stand_in = pd.DataFrame({"sentence_id": dataset.sentences["sentence_id"], "model": "-",
                             "score": 0.0})
    frame = frame_of(dataset, stand_in)
    split = [c for c in parsed.columns() if c not in frame and c in dataset.sentences]
    if split:  # pair level: the sentence-level frame has every sentence column
        pair = differing_pairs(dataset, split[0]).iloc[0]
        raise ValueError(f"formula {formula!r}: column {split[0]!r} differs between the good "
                         f"and the bad sentence of pair {pair!r}, so pair-level models have it "
                         f"as {split[0]}_good and {split[0]}_bad; use one of those, or give the "
                         "pairs file a column of its own")
    try:
        parsed.check_columns(frame)
    except KeyError as err:
        raise ValueError(f"formula {formula!r}: {err.args[0]}") from None


def resolve_formula(dataset, formula: str | None) -> tuple[str | None, str | None]:
    """The mixed-model formula to fit and, where there is none, why. ``"auto"``:
    ``"trial-level"`` (``stats.rating_model``'s models of each rating) where the dataset
    has trial-level ratings, else ``DEFAULT_FORMULA`` where the sentences have human
    judgments grouped in phenomena that can carry its random slopes (2 or more, fewer
    than half the sentences: lme4 needs more rows than random effects), else none."""
    if not formula:
        return None, "Mixed models were not requested."
    if formula != AUTO:
        return formula, None
    if dataset.ratings is not None:
        return TRIAL_LEVEL, None
    s = dataset.sentences[dataset.sentences["human"].notna()]
    if s.empty:
        return None, "No mixed models: the dataset has no gradient human judgments."
    k = s["phenomenon"].nunique()
    if not 2 <= k < len(s) / 2:
        return None, (f"No mixed model by default: {DEFAULT_FORMULA} needs sentences grouped "
                      f"in phenomena, and these {len(s)} sentences fall in {k}. Give a formula "
                      "whose random effects use a grouping column of your data (--formula).")
    return DEFAULT_FORMULA, None


def fit_models(dataset, scores: pd.DataFrame, formula: str = DEFAULT_FORMULA) -> Fits:
    """One linear mixed model per language model (``stats.ratings.judgment``, fitted by
    ``stats.lmer``): a sentence-level model with ``score`` = the model's z-score, or a
    pair-level one when the response is ``dh`` (predictor ``dlm``).

    Parameters
    ----------
    dataset : Dataset
        The sentences (and pairs) with their columns.
    scores : pandas.DataFrame
        The long scores table (``sentence_id``, ``model``, ``score``).
    formula : str
        An lme4-style formula: ``human ~ score ...`` or ``dh ~ dlm ...``; or
        ``"trial-level"`` or a formula of ``response_z`` or ``response``: the models of
        each rating (``reports.ratings.fits``).

    Returns
    -------
    Fits
        The fixed effects with Wald 95% intervals (``table``), each model's lme4-style
        summary as text (``summaries``) and the models not fitted (``notes``).

    Raises
    ------
    ValueError
        When the formula fits no model (``check_formula``) or every fit fails; a model
        whose fit fails while others fit is skipped, the reason in ``notes``.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.reports import fit_models
    >>> dataset, scores = load_example()
    >>> fits = fit_models(dataset, scores, "human ~ score + (1 | phenomenon)")
    >>> list(fits.table["term"].head(2))
    ['(Intercept)', 'score']
    >>> list(fits.summaries)  # trigram_slor: no row with both a score and a judgment
    ['bert-large-cased_mlm', 'bert-large-cased_acc']
    >>> fits.notes[0].split(" (")[0]
    'trigram_slor: not fitted'
    """
    check_formula(dataset, formula)
    if is_trial_formula(formula):
        return fit_rating_models(dataset, scores, formula)
    fit = stats.pair_model if _pair_level(formula) else stats.sentence_model
    rows, summaries, notes = [], {}, []
    for model in dict.fromkeys(scores["model"]):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # singular fits are flagged in the table
                m = fit(dataset, scores, model=model, formula=formula)
        except (ValueError, KeyError, ArithmeticError, RuntimeError) as err:
            notes.append(f"{model}: not fitted ({err})")
            continue
        ci = m.confint(method="Wald").loc[m.fixef.index]  # profiles: minutes per model
        rows.append(pd.DataFrame({
            "model": model, "term": m.fixef.index, "estimate": m.fixef.to_numpy(),
            "se": m.se.to_numpy(), "lower": ci.iloc[:, 0].to_numpy(),
            "upper": ci.iloc[:, 1].to_numpy(), "n": m.nobs, "singular": bool(m.singular),
            "engine": m.engine,
        }))
        summaries[model] = str(m.summary())  # the printout, whatever type prints it
    if not rows:
        raise ValueError(f"no model could be fitted with {formula!r}: {notes[0]}")
    return Fits(formula=formula, table=pd.concat(rows, ignore_index=True), summaries=summaries,
                notes=notes)


def _by_group(dataset, scores: pd.DataFrame, by: str | None, deltas, n_boot: int, seed: int,
              notes: dict, sign: str) -> pd.DataFrame | None:
    """``stats.evaluate`` per group of ``by``, with intervals (``group_intervals``); None
    (and a note) without a grouping or pairs."""
    if not by or not len(dataset.pairs):
        notes["by_group"] = ("No per-group breakdown: the dataset has no grouping column with "
                             f"2 to {MAX_GROUPS} groups (or no pairs).")
        return None
    by_group = stats.evaluate(dataset, scores, deltas=deltas, by=by, sign=sign)
    return group_intervals(dataset, scores, by_group, by, n_boot, seed, notes, sign)


def _descriptives(dataset, scores: pd.DataFrame, sign: str) -> dict:
    """The report's correlations and their matrices, the ADC curve, the within-type
    variability and the frames of the scatter plots (``Results`` fields)."""
    has_pairs = len(dataset.pairs) > 0
    return {
        "correlations": stats.correlations(dataset, scores),
        "corr_sentence": stats.correlation_matrix(dataset, scores, level="sentence"),
        "corr_pair": (stats.correlation_matrix(dataset, scores, level="pair") if has_pairs
                      else None),
        "adc_curve": stats.adc_curve(dataset, scores, sign=sign) if has_pairs else pd.DataFrame(
            columns=["model", "delta", "pass_rate"]),
        "variability": stats.variability(dataset, scores),
        "sentence_frame": stats.sentence_frame(dataset, scores),
        "pair_deltas": stats.pair_deltas(dataset, scores) if has_pairs else None,
    }


def _checked_formula(dataset, formula: str | None, notes: dict) -> str | None:
    """The mixed-model formula to fit (``resolve_formula``), checked; or None, and why in
    ``notes``."""
    formula, why = resolve_formula(dataset, formula)
    if formula:
        check_formula(dataset, formula)
    else:
        notes["fits"] = why
    return formula


def _particular(dataset, scores: pd.DataFrame, n_boot: int, seed: int,
                data_path: str | None, regions: pd.DataFrame | None) -> dict:
    """The ``Results`` fields of particular data: a benchmark's (BLiMP, Zorro, Marvin &
    Linzen, the other languages' minimal pairs), SyntaxGym suites' (from their region
    surprisals) and trial-level ratings' (a benchmark with ratings, TurBLiMP's human study,
    gets the rating sections instead of the benchmark's)."""
    bench = dataset.name in BENCHMARKS and len(dataset.pairs) > 0 and dataset.ratings is None
    return {"benchmark": analyse_benchmark(dataset, scores, n_boot, seed, data_path) if bench
            else None,
            "syntaxgym": analyse_syntaxgym(dataset, regions, n_boot, seed, data_path)
            if regions is not None else None,
            "ratings": analyse_ratings(dataset, scores, n_boot, seed)
            if dataset.ratings is not None else None}


def _regions(dataset, scores: pd.DataFrame, regions: pd.DataFrame | None
             ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """The sentence scores and, for SyntaxGym suites, their region surprisals: ``scores``
    may be the region table itself (``scoring.region_surprisals``); the sentence scores
    are then derived from it (``reports.syntaxgym.analysis.sentence_scores``)."""
    if getattr(dataset, "name", None) != SYNTAXGYM:
        return scores, None
    if regions is None and is_region_table(scores):
        regions = scores
    if regions is None:
        raise ValueError("SyntaxGym suites are evaluated on region surprisals: pass "
                         "regions=scoring.region_surprisals(dataset, model)")
    regions = with_display_names(regions)
    return (sentence_scores(regions, dataset) if is_region_table(scores) else scores), regions


def _norming(dataset) -> dict:
    """The norming behind ``human`` (for provenance), where there are ratings."""
    return {"norming": dataset.sentences.attrs.get("norming")} if dataset.ratings is not None \
        else {}


def analyse(dataset, scores: pd.DataFrame, deltas=DEFAULT_DELTAS,
            n_boot: int = DEFAULT_N_BOOT, seed: int = DEFAULT_SEED,
            by: str | None = "auto", formula: str | None = AUTO,
            compare_metric: str = AUTO, correction: str = "holm",
            command: str | None = None, extra: dict | None = None,
            sign: str = "strict", data_path: str | None = None,
            norming: str | None = AUTO, regions: pd.DataFrame | None = None) -> Results:
    """Every statistic of the report for ``scores`` on ``dataset``; on BLiMP, Zorro and
    Marvin & Linzen the benchmark's too (``reports.benchmark.analyse_benchmark``), on
    SyntaxGym suites theirs (``reports.syntaxgym.analysis``).

    Parameters
    ----------
    dataset, scores : Dataset, pandas.DataFrame
        The sentences and pairs, and the long scores table (``sentence_id, model, score``).
    deltas, n_boot, seed : sequence of float, int, int
        The ADC's thresholds in z-units; bootstrap resamples (0: none) and their seed.
    by, formula, compare_metric : str or None
        The per-group breakdown's column, the mixed model fitted per language model
        (None: none; fit them later with ``fit_models``) and the metric the models are
        compared on; ``"auto"`` chooses from the data (``choose_by``,
        ``resolve_formula``, ``resolve_compare_metric``).
    correction : str
        Multiple-comparison correction of the comparisons' p-values.
    command, extra, data_path : str, dict, str, optional
        For the reproducibility block; where published results are read (as the dataset).
    sign : str
        The ADC's sign convention, ``"strict"`` or ``"thesis"``
        (``stats.metrics.sign_agree``; "thesis" reproduces the thesis' tables).
    norming : str, optional
        With trial-level ratings: how they become ``human`` (``stats.with_norming``, as in
        ``stats.evaluate`` and on the command line); the rating sections follow.
    regions : pandas.DataFrame, optional
        SyntaxGym: region surprisals (``scoring.region_surprisals``; or as ``scores``).

    Returns
    -------
    Results
        What [build][acceptability.reports.build] renders; a part that cannot be
        computed is None and ``notes`` says why.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.reports import analyse
    >>> dataset, scores = load_example()
    >>> results = analyse(dataset, scores, n_boot=0, sign="thesis")
    >>> results.models
    ['bert-large-cased_acc', 'bert-large-cased_mlm', 'trigram_slor']
    >>> adc = results.evaluation.set_index("model")["adc_1"]
    >>> round(float(adc["bert-large-cased_mlm"]), 3)
    0.438
    """
    stats.metrics.check_sign(sign)
    deltas = tuple(float(d) for d in deltas)
    dataset = with_norming(dataset, norming)
    scores, regions = _regions(dataset, with_display_names(scores), regions)  # folder: name
    notes: dict[str, str] = {}
    formula = _checked_formula(dataset, formula, notes)  # before the slow parts
    compare_metric = resolve_compare_metric(dataset, compare_metric)
    evaluation = stats.evaluate(dataset, scores, deltas=deltas, sign=sign)
    by = choose_by(dataset) if by == "auto" else by
    by_group = _by_group(dataset, scores, by, deltas, n_boot, seed, notes, sign)
    fits = fit_models(dataset, scores, formula) if formula else None
    return Results(
        dataset=dataset, scores=scores, deltas=deltas, evaluation=evaluation,
        **_descriptives(dataset, scores, sign), by=by, sign=sign, by_group=by_group,
        bootstrap=bootstrap_ci(dataset, scores, deltas, n_boot, seed, notes, sign),
        comparisons=_compare(dataset, scores, compare_metric, correction, n_boot, seed, deltas,
                             notes, sign),
        fits=fits, **_particular(dataset, scores, n_boot, seed, data_path, regions),
        reference=_reference(dataset, list(evaluation["model"])),
        notes=notes,
        provenance=provenance(dataset, scores, seed=seed, n_boot=n_boot, command=command,
                              extra=(extra or {}) | {
                                  "deltas": list(deltas), "by": by, "formula": formula,
                                  "sign": sign, "compare_metric": compare_metric,
                                  "correction": correction, **_norming(dataset)}),
    )
