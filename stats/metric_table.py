"""The metrics table: every metric of ``evaluate`` in one place, read by everything that
lists, checks, computes, tests or labels a metric (``evaluate``, the bootstrap's fast
path, ``compare``, the reports and the command line), as lm-evaluation-harness's
``register_metric`` keeps its metrics.

A metric is a `MetricSpec`: its name, what data it needs, its label, its value on the
full data (``stats.metrics``' array functions), its per-unit sums for the fast bootstrap
(``stats.metric_sums``), whether higher is better, and what classical test compares
two models on it (a per-pair pass/fail for McNemar, or the level of a correlation with
humans for Steiger). A family (the ADC) is one entry giving one metric per threshold,
named ``<name>_<delta>``. `register_metric` adds one; docs/development.md's recipe says
what else a new metric touches.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.defaults import DEFAULT_DELTAS
from acceptability.stats.metric_sums import (
    ModelRows,
    Part,
    adc_sums,
    area_sums,
    mcc_sums,
    pair_r_sums,
    pass_rate_sums,
    sentence_r_sums,
    variability_sums,
)

# What a metric needs of a dataset: a name, what the dataset lacks without it (in error
# messages and the report's note), and the check. In this order a metric's lacks are said.
NEEDS: dict[str, tuple[str, Callable[[Dataset], bool]]] = {
    "pairs": ("minimal pairs", lambda ds: len(ds.pairs) > 0),
    "human": ("gradient human judgments", lambda ds: bool(ds.sentences["human"].notna().any())),
    "labels": ("expert labels", lambda ds: bool(ds.sentences["label"].notna().any())),
    "types": ("sentence types with two or more sentences",
              lambda ds: bool(ds.sentences["type_id"].duplicated().any())),
}


@dataclass(frozen=True)
class Values:
    """One model's values on the full data (one row of ``evaluate``): pair deltas ``dh``
    (human) and ``dlm`` (model); per sentence ``z``, ``human``, ``label``, the predicted
    label ``pred`` (``evaluate.predicted_label``), type codes ``types`` of ``n_types``;
    the ADC area's ``max_delta`` and the ``sign`` convention."""

    dh: np.ndarray
    dlm: np.ndarray
    z: np.ndarray
    human: np.ndarray
    label: np.ndarray
    pred: np.ndarray
    types: np.ndarray
    n_types: int
    max_delta: float
    sign: str


@dataclass(frozen=True)
class MetricSpec:
    """One metric (see module doc).

    Attributes
    ----------
    name : str
        The column of ``evaluate`` (a family: the prefix of ``<name>_<delta>``).
    needs : tuple of str
        Keys of `NEEDS`: what the dataset must hold for the metric to be defined.
    label : str
        Its header in report tables and figures; a family's holds ``{}`` for the delta.
    value : callable
        ``value(values, delta)``: the metric on the full data (`Values`).
    sums : callable
        ``sums(rows, delta)``: adds a model's per-unit statistics to ``rows.columns``
        and returns the `Part` giving the metric in each resample (fast bootstrap).
    higher_is_better : bool or None
        None where neither is (``variability``: closer to the humans' is better).
    passes : callable or None
        ``passes(dh, dlm, delta, sign)``: whether each pair passes, for a pass rate
        (compared by McNemar's exact test; listed among the report's criteria).
    level : {"pair", "sentence"} or None
        For a correlation with human judgments: at which level (compared by Steiger's z;
        shown in the report's correlations table).
    family : bool
        One metric per ADC threshold of ``evaluate``'s ``deltas``.
    """

    name: str
    needs: tuple[str, ...]
    label: str
    value: Callable[[Values, float | None], float]
    sums: Callable[[ModelRows, float | None], Part]
    higher_is_better: bool | None = True
    passes: Callable[[np.ndarray, np.ndarray, float | None, str], np.ndarray] | None = None
    level: str | None = None
    family: bool = False


def _mcc(v: Values, _: float | None) -> float:
    labelled = ~(np.isnan(v.label) | np.isnan(v.pred))
    return float(metrics.mcc(v.pred[labelled], v.label[labelled])) if labelled.any() else np.nan


METRICS: dict[str, MetricSpec] = {}
"""The table, in ``evaluate``'s column order (`register_metric` adds to it)."""


def register_metric(spec: MetricSpec) -> MetricSpec:
    """Add ``spec`` to `METRICS` (after the others: the last column of ``evaluate``).

    Raises
    ------
    ValueError
        If the name is taken, or needs something `NEEDS` does not know.
    """
    if spec.name in METRICS:
        raise ValueError(f"a metric named {spec.name!r} is already registered")
    unknown = [n for n in spec.needs if n not in NEEDS]
    if unknown:
        raise ValueError(f"metric {spec.name!r} needs {unknown}: use {list(NEEDS)}")
    METRICS[spec.name] = spec
    return spec


for _spec in (
    MetricSpec("blimp", ("pairs",), "BLiMP accuracy",
               lambda v, _: float(metrics.blimp_rate(v.dlm)), pass_rate_sums,
               passes=lambda dh, dlm, _, __: dlm > 0),
    MetricSpec("adc", ("pairs", "human"), "ADC (δ = {})",
               lambda v, d: float(metrics.adc_rate(v.dh, v.dlm, d, v.sign)), adc_sums,
               passes=metrics.adc_pass, family=True),
    MetricSpec("adc_area", ("pairs", "human"), "ADC area",
               lambda v, _: float(metrics.adc_area(v.dh, v.dlm, v.max_delta, v.sign)),
               area_sums),
    MetricSpec("r_sentence", ("human",), "Pearson r (sentences)",
               lambda v, _: float(metrics.pearson(v.human, v.z)), sentence_r_sums,
               level="sentence"),
    MetricSpec("r_pair", ("pairs", "human"), "Pearson r (pairs)",
               lambda v, _: float(metrics.pearson(v.dh, v.dlm)), pair_r_sums, level="pair"),
    MetricSpec("variability", ("types",), "Within-type SD",
               lambda v, _: float(metrics.type_sd_mean(v.z, v.types, v.n_types)),
               variability_sums, higher_is_better=None),
    MetricSpec("mcc", ("labels",), "MCC", _mcc, mcc_sums),
):
    register_metric(_spec)

COMPARE_FIRST = ("adc_1", "blimp", "r_sentence")
"""The metric models are compared on by default (the report's ``compare_metric="auto"``):
the first of these the dataset defines."""

_NUMBER = r"(\d*\.?\d+(?:e-?\d+)?)"


def lookup(name: str) -> tuple[MetricSpec, float | None] | None:
    """The spec of a metric name and its delta (None but for a family), or None.

    Examples
    --------
    >>> from acceptability.stats.metric_table import lookup
    >>> spec, delta = lookup("adc_0.5")
    >>> spec.name, delta, lookup("adc_area")[1], lookup("n_pairs")
    ('adc', 0.5, None, None)
    """
    spec = METRICS.get(name)
    if spec is not None and not spec.family:
        return spec, None
    for spec in METRICS.values():
        match = re.fullmatch(re.escape(spec.name) + "_" + _NUMBER, name) if spec.family else None
        if match:
            return spec, float(match.group(1))
    return None


def metric_names(deltas: Iterable[float] = DEFAULT_DELTAS) -> list[str]:
    """The metric columns of ``evaluate`` for these ADC deltas, in its order.

    Examples
    --------
    >>> from acceptability.stats.metric_table import metric_names
    >>> metric_names([1])
    ['blimp', 'adc_1', 'adc_area', 'r_sentence', 'r_pair', 'variability', 'mcc']
    """
    deltas = list(deltas)
    return [n for spec in METRICS.values()
            for n in ([member(spec.name, d) for d in deltas] if spec.family else [spec.name])]


def member(family: str, delta: float) -> str:
    """The name of a family's metric at ``delta``.

    Examples
    --------
    >>> from acceptability.stats.metric_table import member
    >>> member("adc", 0.5), member("adc", 1.0)
    ('adc_0.5', 'adc_1')
    """
    return f"{family}_{float(delta):g}"


def label(name: str) -> str | None:
    """A metric's header (None for a name that is no metric).

    Examples
    --------
    >>> from acceptability.stats.metric_table import label
    >>> label("adc_0.5"), label("r_pair"), label("model")
    ('ADC (δ = 0.5)', 'Pearson r (pairs)', None)
    """
    found = lookup(name)
    if found is None:
        return None
    spec, _ = found
    return spec.label.format(name.removeprefix(spec.name + "_")) if spec.family else spec.label


def has(dataset: Dataset) -> dict[str, bool]:
    """Which of `NEEDS` ``dataset`` holds.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.metric_table import has
    >>> has(data.load_example()[0])
    {'pairs': True, 'human': True, 'labels': True, 'types': True}
    """
    return {need: check(dataset) for need, (_, check) in NEEDS.items()}


def missing_for(dataset: Dataset, metric: str) -> str | None:
    """What ``dataset`` lacks to define ``metric`` (a name of `metric_names`, any
    ``adc_<delta>``), or None: minimal pairs (BLiMP, ADC, r_pair), gradient human
    judgments (ADC, correlations), expert labels (MCC), a sentence type with two or
    more sentences (variability).

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.metric_table import missing_for
    >>> ds, _ = data.load_example()
    >>> one_pair = ds.subset(ds.pairs["pair_id"][:1])
    >>> missing_for(ds, "variability"), missing_for(one_pair, "variability")
    (None, 'sentence types with two or more sentences')
    """
    spec, _ = spec_of(metric)
    return next((NEEDS[n][0] for n in NEEDS if n in spec.needs and not NEEDS[n][1](dataset)),
                None)


def spec_of(name: str) -> tuple[MetricSpec, float | None]:
    """`lookup`, or a ValueError naming the metrics there are.

    Examples
    --------
    >>> from acceptability.stats.metric_table import spec_of
    >>> spec_of("r_pair")[0].level
    'pair'
    """
    found = lookup(name)
    if found is None:
        raise ValueError(f"unknown metric {name!r}; use {metric_names()} (any adc_<delta>) "
                         "or pass a function")
    return found


def check_metric(dataset: Dataset, metric: str) -> str:
    """``metric`` if ``dataset`` defines it (`missing_for`), else a ValueError
    saying what is missing and which metrics it does define.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats.metric_table import check_metric
    >>> ds, _ = data.load_example()
    >>> check_metric(ds, "adc_1")
    'adc_1'
    """
    lacks = missing_for(dataset, metric)
    if lacks is not None:
        have = [m for m in metric_names() if missing_for(dataset, m) is None]
        raise ValueError(f"metric {metric!r} needs {lacks}, which dataset "
                         f"{getattr(dataset, 'name', '')!r} lacks; it defines {have}")
    return metric


def criteria(deltas: Iterable[float], has_human: bool) -> list[str]:
    """The pass-rate metrics (those with ``passes``) at these deltas, in table order;
    those needing human judgments only when ``has_human``.

    Examples
    --------
    >>> from acceptability.stats.metric_table import criteria
    >>> criteria([0.5, 1], True), criteria([0.5, 1], False)
    (['blimp', 'adc_0.5', 'adc_1'], ['blimp'])
    """
    specs = {m: spec_of(m)[0] for m in metric_names(deltas)}
    return [m for m, spec in specs.items() if spec.passes is not None
            and (has_human or "human" not in spec.needs)]


def correlation_levels() -> dict[str, str]:
    """The correlations with human judgments: metric name -> level.

    Examples
    --------
    >>> from acceptability.stats.metric_table import correlation_levels
    >>> correlation_levels()
    {'r_sentence': 'sentence', 'r_pair': 'pair'}
    """
    return {s.name: s.level for s in METRICS.values() if s.level is not None}

