"""The metrics table (issue 45, item 2): one entry per metric, read by everything that lists
or switches on a metric. A toy metric registered here (and nowhere else) is computed by
``stats.evaluate`` with intervals, compared by ``stats.compare_all`` and labelled in a
report table; and no module but the table lists a metric's name."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import data, stats
from acceptability.reports import tables
from acceptability.reports.analysis import analyse
from acceptability.stats import metric_table
from acceptability.stats.metric_sums import ModelRows, Part, _ratio
from acceptability.stats.metric_table import METRICS, MetricSpec, Values, register_metric
from tests.conftest import REPO

# ---- a toy metric: the share of pairs the model reverses (model delta below 0) ----------


def _reversed_value(v: Values, _: float | None) -> float:
    scored = ~np.isnan(v.dlm)
    return float((v.dlm[scored] < 0).mean()) if scored.any() else np.nan


def _reversed_sums(rows: ModelRows, _: float | None) -> Part:
    ok = ~np.isnan(rows.d0)
    c = rows.columns.add(rows.pair_unit, ok, ok & (rows.d0 < 0))
    return lambda sums, *_: _ratio(sums[:, c[1]], sums[:, c[0]])


TOY = MetricSpec("reversed", ("pairs",), "Share of pairs reversed", _reversed_value,
                 _reversed_sums, higher_is_better=False,
                 passes=lambda dh, dlm, _, __: dlm < 0)


@pytest.fixture
def toy(monkeypatch):
    """The toy metric in the table for one test (the table's dict, which every reader
    holds, patched in place)."""
    monkeypatch.setitem(METRICS, TOY.name, TOY)
    return TOY.name


def _reversed_by_hand(dataset, scores) -> pd.Series:
    """Per model, the share of pairs with both scores whose good sentence scores below its
    bad one, from the raw scores (a z-score keeps the order of one model's scores)."""
    wide = scores.pivot_table(index="sentence_id", columns="model", values="score")
    good = wide.reindex(dataset.pairs["good_id"]).to_numpy()
    bad = wide.reindex(dataset.pairs["bad_id"]).to_numpy()
    both = ~(np.isnan(good) | np.isnan(bad))
    share = np.where(both, good < bad, False).sum(0) / both.sum(0)
    return pd.Series(share, index=wide.columns)


def test_a_registered_metric_is_evaluated_with_intervals(toy):
    ds, scores = data.load_example()
    table = stats.evaluate(ds, scores, ci=True, n_boot=200, cluster=None).set_index("model")
    assert list(table.columns).index(toy) == list(table.columns).index("mcc_upper") + 1
    want = _reversed_by_hand(ds, scores).reindex(table.index)
    np.testing.assert_allclose(table[toy], want, rtol=0, atol=1e-12)
    assert (table[f"{toy}_lower"] <= table[toy]).all() and (table[toy] <= table[f"{toy}_upper"]).all()
    assert (table[f"{toy}_lower"] < table[f"{toy}_upper"]).all()


def test_a_registered_metric_resamples_as_the_general_path(toy):
    # the fast path (the toy's per-unit sums) against the toy's own value on each resampled
    # dataset (the general path, stats.bootstrap of a function): the same draws
    ds, scores = data.load_example()

    def by_hand(d, s):
        return _reversed_by_hand(d, s).rename(toy).rename_axis("model").reset_index()

    fast = stats.bootstrap(toy, ds, scores, n_boot=40, cluster=None, seed=3)
    slow = stats.bootstrap(by_hand, ds, scores, n_boot=40, cluster=None, seed=3)
    np.testing.assert_allclose(fast[["estimate", "lower", "upper"]].to_numpy(float),
                               slow[["estimate", "lower", "upper"]].to_numpy(float),
                               rtol=0, atol=1e-12)


def test_a_registered_metric_is_compared_by_its_test(toy):
    ds, scores = data.load_example()
    out = stats.compare_all(ds, scores, toy, n_boot=199, cluster=None, correction=None)
    share = _reversed_by_hand(ds, scores)
    a, b = out.loc[0, ["model_a", "model_b"]]
    np.testing.assert_allclose(out.loc[0, ["estimate_a", "estimate_b"]].to_numpy(float),
                               [share[a], share[b]], rtol=0, atol=1e-12)
    assert out.loc[0, "lower"] <= out.loc[0, "difference"] <= out.loc[0, "upper"]
    # McNemar's exact test on the pairs both models scored, by a binomial test here
    wide = scores.pivot_table(index="sentence_id", columns="model", values="score")
    d = {m: wide[m].reindex(ds.pairs["good_id"]).to_numpy()
         - wide[m].reindex(ds.pairs["bad_id"]).to_numpy() for m in (a, b)}
    ok = ~(np.isnan(d[a]) | np.isnan(d[b]))
    ra, rb = d[a][ok] < 0, d[b][ok] < 0
    k, n = int((ra & ~rb).sum()), int((ra != rb).sum())
    assert out.loc[0, "test"] == "mcnemar_exact" and out.loc[0, "n_test"] == ok.sum()
    assert out.loc[0, "p_test"] == pytest.approx(sps.binomtest(k, n).pvalue, abs=1e-12)


def test_a_registered_metric_is_labelled_in_the_report(toy):
    results = analyse(*data.load_example(), n_boot=0)
    shown = tables.display_table(tables.table_3_1(results))
    assert "Share of pairs reversed" in shown.columns  # a pass rate: the criteria table
    assert toy in results.evaluation.columns


def test_register_metric_refuses_a_taken_name_and_unknown_needs(monkeypatch):
    monkeypatch.setattr(metric_table, "METRICS", dict(METRICS))
    with pytest.raises(ValueError, match="already registered"):
        register_metric(METRICS["mcc"])
    with pytest.raises(ValueError, match="needs \\['ratings'\\]"):
        register_metric(MetricSpec("toy", ("ratings",), "Toy", _reversed_value, _reversed_sums))


def test_unknown_metric_names_say_which_there_are():
    ds, scores = data.load_example()
    with pytest.raises(ValueError, match="unknown metric 'adc_x'.*'adc_area'"):
        stats.bootstrap("adc_x", ds, scores, n_boot=20)


# ---- the table is the only place a metric's name is listed -------------------------------

PACKAGE = ("src/acceptability", "data", "scoring", "stats", "reports")
TABLE = "stats/metric_table.py"
# Strings equal to a metric's name that are not the metric, by (file name, string): each
# names something else that happens to share the name.
NOT_METRICS = {
    # the BLiMP data set (Warstadt et al. 2020), named "blimp" like its accuracy
    **{(f, "blimp"): "the BLiMP data set" for f in (
        "rules.py", "benchmark.py", "choices.py", "experiment.py", "training.py")},
    # the published tables' columns, transcribed as printed (data, not code)
    **{("published.py", m): "a published table's column" for m in (
        "blimp", "adc_0.5", "adc_1", "adc_5", "r_sentence", "r_pair", "mcc")},
    # stats' public functions stats.adc and stats.variability, in its __all__
    ("__init__.py", "adc"): "the function stats.adc", ("__init__.py", "variability"):
        "the function stats.variability",
    # the training experiments' probe tables (a classifier's MCC per run or shuffle)
    ("training.py", "mcc"): "a training experiment's column",
    ("training_experiments.py", "mcc"): "a training experiment's column",
    # report sections and table files named after what they show, and Results' field
    # holding stats.variability's result
    ("render.py", "adc"): "a report section", ("render.py", "mcc"): "a report section",
    ("render.py", "variability"): "a report section", ("tables.py", "mcc"): "a report table",
    ("tables.py", "variability"): "a report table",
    ("analysis.py", "variability"): "the Results field of stats.variability",
}


def _is_metric(value: object) -> bool:
    families = "|".join(re.escape(s.name) for s in METRICS.values() if s.family)
    return isinstance(value, str) and (value in METRICS or bool(
        re.fullmatch(rf"(?:{families})_\d*\.?\d+(?:e-?\d+)?", value)))


def _listed(tree: ast.AST) -> list[ast.Constant]:
    """String constants that list a name: an operand of a comparison (``==``, ``in``), an
    element of a tuple, list or set display, a dict key; a function's default value
    (a public signature's documented default, e.g. ``metrics=("blimp", "adc_1")``) is not."""
    defaults = {id(n) for f in ast.walk(tree)
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                for d in [*f.args.defaults, *f.args.kw_defaults] if d is not None
                for n in ast.walk(d)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            operands = node.elts
        elif isinstance(node, ast.Dict):
            operands = [k for k in node.keys if k is not None]
        else:
            continue
        out += [c for c in operands if isinstance(c, ast.Constant) and id(c) not in defaults]
    return out


def test_only_the_metrics_table_lists_metric_names():
    found = []
    for top in PACKAGE:
        for path in sorted((REPO / top).rglob("*.py")):
            if path.relative_to(REPO).as_posix() == TABLE:
                continue
            for c in _listed(ast.parse(path.read_text(encoding="utf-8"))):
                if _is_metric(c.value) and (path.name, c.value) not in NOT_METRICS:
                    found.append(f"{path.relative_to(REPO)}:{c.lineno}: {c.value!r}")
    assert not found, ("metric names listed outside stats/metric_table.py (read the table: "
                       "METRICS, metric_names, lookup, criteria, ...):\n" + "\n".join(found))


def test_the_scan_sees_a_listed_name():
    tree = ast.parse('if m in ("blimp", "x"): pass\nd = {"r_pair": 1}\n'
                     'def f(m=("mcc",)): return m == "adc_0.5"\nh = label("adc_area")')
    assert sorted(c.value for c in _listed(tree) if _is_metric(c.value)) == [
        "adc_0.5", "blimp", "r_pair"]
    assert Path(REPO / TABLE).exists()
