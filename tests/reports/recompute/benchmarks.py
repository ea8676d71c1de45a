"""The guard's recomputation of the benchmark reports (BLiMP, Zorro): accuracy per paradigm,
phenomenon and overall, seed 004's baselines table, the BLiMP criterion's comparison and
the ``evaluate`` tables, from the pairs' texts and the scores, with code written here.

Accuracy (BLiMP sec. 5, Table 3): a model gets a pair right when score(good) > score(bad);
a paradigm's accuracy is the mean over its pairs (for humans, of each pair's share of
trials choosing the acceptable sentence); a phenomenon's and the overall accuracy are
means over paradigms. Intervals: 95% percentiles of a bootstrap of the pairs within each
paradigm. The report's tables are proportions, one unit throughout.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd

from tests.reports.recompute import independent as ind
from tests.reports.recompute.conftest import N_BOOT, OUR_BOOT, OUR_SEED

SEED_004 = ("BabyBERTa (seed 004)", "5-word (seed 004)", "5-tag (seed 004)",
            "oracle (seed 004)", "rules (seed 004)")
RULES = "rules"
Rule = Callable[[str, str], bool]  # accepts(sentence, the other sentence of its pair)


@dataclass
class Bench:
    """A benchmark slice: one row per pair (``paradigm``, ``phenomenon``, ``good``,
    ``bad`` texts and sentence ids) and the scores of each model per sentence id."""

    pairs: pd.DataFrame
    scores: dict[str, pd.Series]
    classifiers: set[str] = field(default_factory=set)
    published: dict[str, dict[str, float]] = field(default_factory=dict)  # system -> paradigm
    human: pd.DataFrame | None = None  # paradigm, good, bad, n, correct
    pairs_in_files: int = 0  # pairs of the paradigms before the slice

    @property
    def data(self) -> ind.Data:
        """Sentences in pair order, each pair's good one first; types paradigm_good/_bad."""
        p = self.pairs
        n = len(p)
        ids = np.ravel(np.column_stack([p["good_id"], p["bad_id"]]))
        types = np.ravel(np.column_stack([p["paradigm"] + "_good", p["paradigm"] + "_bad"]))
        models = {m: ind.Model(s.reindex(ids).to_numpy(float), classifier=m in self.classifiers)
                  for m, s in self.scores.items()}
        return ind.Data(np.full(2 * n, np.nan), np.tile([1.0, 0.0], n), types,
                        np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2), models)

    def design(self) -> ind.Design:
        """Fewer than 10 clusters (one per paradigm): pairs resampled within each."""
        return ind.pairs_within(self.data, self.pairs["paradigm"].to_numpy())


def rule_rates(bench: Bench, rules: dict[str, Rule]) -> np.ndarray:
    """Seed 004's linear rules: 1 when a rule accepts only the good sentence, 0 only the
    bad one, 0.5 both or neither."""
    out = []
    for p, good, bad in zip(bench.pairs["paradigm"], bench.pairs["good"], bench.pairs["bad"],
                            strict=True):
        g, b = rules[p](good, bad), rules[p](bad, good)
        out.append(0.5 if g == b else float(g))
    return np.array(out)


def pair_rates(bench: Bench, rules: dict[str, Rule], ties: bool = True) -> dict[str, pd.DataFrame]:
    """Per system with pair outcomes: ``paradigm`` and ``rate`` of each pair; a tie is
    wrong (BLiMP), or with ``ties=False`` must not occur (Zorro breaks ties at random)."""
    p = bench.pairs
    out = {}
    for model, s in bench.scores.items():
        good, bad = p["good_id"].map(s).to_numpy(), p["bad_id"].map(s).to_numpy()
        assert ties or not (good == bad).any(), f"{model}: a tie in the slice"
        out[model] = pd.DataFrame({"paradigm": p["paradigm"], "rate": (good > bad).astype(float)})
    out[RULES] = pd.DataFrame({"paradigm": p["paradigm"], "rate": rule_rates(bench, rules)})
    if bench.human is not None:
        h = bench.human
        out["Human"] = pd.DataFrame({"paradigm": h["paradigm"], "rate": h["correct"] / h["n"]})
    return out


def accuracies(bench: Bench, rates: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Accuracy per paradigm (rows) of every system (columns: published, scored, rules,
    human)."""
    cols = {s: pd.Series(v) for s, v in bench.published.items()}
    cols |= {s: r.groupby("paradigm")["rate"].mean() for s, r in rates.items()}
    return pd.DataFrame(cols).sort_index()


def check_accuracy_tables(tables: dict[str, pd.DataFrame], bench: Bench,
                          rates: dict[str, pd.DataFrame]) -> None:
    """accuracy_paradigm and accuracy_phenomenon: every value and interval."""
    acc = accuracies(bench, rates)
    phenomenon = bench.pairs.drop_duplicates("paradigm").set_index("paradigm")["phenomenon"]
    draws = {s: ind.paradigm_draws({p: g["rate"].to_numpy() for p, g in r.groupby("paradigm")},
                                   OUR_BOOT, OUR_SEED) for s, r in rates.items()}
    groups = {"paradigm": {p: [p] for p in acc.index},
              "phenomenon": {ph: sorted(phenomenon.index[phenomenon == ph])
                             for ph in sorted(set(phenomenon))} | {"overall": list(acc.index)}}
    for level, members in groups.items():
        t = tables[f"accuracy_{level}"]
        assert t[level].tolist() == list(members), f"accuracy_{level} rows"
        shown = [c for c in t.columns if c != level and not c.endswith(("_lower", "_upper"))]
        assert shown == list(acc.columns), f"accuracy_{level} systems {shown}"
        for system in shown:
            what = f"accuracy_{level} {system}"
            ind.assert_close(t[system], [acc.loc[m, system].mean() for m in members.values()],
                             what, atol=1e-12)
            if system in bench.published:
                assert f"{system}_lower" not in t, f"{what}: published, no interval"
                continue
            for i, (group, paradigms) in enumerate(members.items()):
                dist = np.mean([draws[system][p] for p in paradigms], axis=0)
                ind.assert_interval(t[f"{system}_lower"].iloc[i], t[f"{system}_upper"].iloc[i],
                                    t[system].iloc[i], dist, N_BOOT, f"{what} {group}")


def check_baselines(table: pd.DataFrame, acc: pd.DataFrame, reference: str,
                    printed: dict[str, tuple[float, ...]]) -> None:
    """Seed 004's Tables 3/5: per paradigm the first model, the other models and the rules
    (computed), and seed 004's printed systems (``printed``: its table's percentages per
    paradigm, in SEED_004's order); the mean row; "k/n" paradigms at least as accurate as
    the reference. Values rounded to 2 decimals of a percent, hence the tolerance."""
    systems = [c for c in acc.columns if c not in ("Human", "5-gram", "LSTM", "Transformer-XL",
                                                  "GPT-2")]
    expected = acc[systems].copy()
    for k, name in enumerate(SEED_004):
        expected[name] = [printed[p][k] / 100 for p in expected.index]
    assert table.columns.tolist() == ["paradigm", reference,
                                      *[c for c in expected if c != reference]]
    body = table.iloc[:-2].set_index("paradigm")
    assert body.index.tolist() == expected.index.tolist()
    tol = 5e-5 + 1e-9
    for col in expected:
        ind.assert_close(body[col].astype(float), expected[col], f"baselines {col}", atol=tol)
        ind.assert_close(float(table[col].iloc[-2]), expected[col].mean(),
                         f"baselines average {col}", atol=tol)
        at_least = (expected[col] >= expected[reference]).sum()
        shown = table[col].iloc[-1]
        want = f"{at_least}/{len(expected)}"
        assert (pd.isna(shown) if col == reference else shown == want), (
            f"baselines fraction >= {reference}, {col}: {shown!r}, expected {want!r}")
    assert table["paradigm"].iloc[-2:].tolist() == ["average", f"fraction >= {reference}"]


def check_evaluation(tables: dict[str, pd.DataFrame], bench: Bench, by: str,
                     report: Path) -> None:
    """tables/evaluation.csv, the run folder's evaluation.csv and evaluation_by_<by>.csv:
    every metric and count per model (and group), intervals from the bootstrap of pairs
    within each paradigm (the slice holds fewer than 10 clusters); z-scores over all
    sentences of the slice."""
    data, design = bench.data, bench.design()
    ind.assert_statistic_is_the_estimate(data, design, (0.5, 1.0, 5.0))
    ours = data.evaluate()
    t = tables["evaluation"]
    dist = data.resampled(design, OUR_BOOT, OUR_SEED, only=("blimp", "variability", "mcc"))
    checked = ind.check_metrics(t, ours, dist, "evaluation", N_BOOT)
    ind.assert_only(t, checked, "evaluation")
    assert set(ours.columns) <= checked and {"blimp_lower", "mcc_upper"} <= checked
    plain = pd.read_csv(report / "evaluation.csv")
    ind.assert_only(plain, ind.check_metrics(plain, ours, {}, "evaluation.csv", N_BOOT),
                    "evaluation.csv")
    t = tables[f"evaluation_by_{by}"]
    group = np.repeat(bench.pairs[by].to_numpy(), 2)
    checked = {"model", by, "ci_unit", "ci_n_units"}
    for name in pd.unique(group):
        pair_in = bench.pairs[by].to_numpy() == name
        ours = data.evaluate(sentence_in=group == name, pair_in=pair_in)
        part = t[t[by] == name].reset_index(drop=True)
        dist = data.resampled(design, OUR_BOOT, OUR_SEED, pair_in=pair_in, only=("blimp",))
        checked |= ind.check_metrics(part, ours, dist, f"evaluation_by_{by} {name}", N_BOOT)
        assert (part["ci_unit"] == "pair").all() and (part["ci_n_units"] == pair_in.sum()).all()
    assert sorted(set(t[by])) == sorted(set(group))
    ind.assert_only(t, checked, f"evaluation_by_{by}")


def check_counts(tables: dict[str, pd.DataFrame], bench: Bench) -> None:
    t = tables["counts"]
    checked = ind.check_metrics(t, bench.data.evaluate(), {}, "counts", N_BOOT)
    ind.assert_only(t, checked, "counts")
    assert {"n_sentences", "n_pairs", "n_mcc"} <= checked


def check_comparisons(table: pd.DataFrame, bench: Bench, report: Path) -> None:
    """Models compared on the BLiMP criterion: exact McNemar on the pairs' verdicts, the
    paired bootstrap of the difference (pairs within paradigms), Holm."""
    data = bench.data
    models = list(bench.scores)
    pairs = list(combinations(models, 2))
    assert {frozenset(p) for p in zip(table["model_a"], table["model_b"], strict=True)} == {
        frozenset(p) for p in pairs} and len(table) == len(pairs)
    n = max(N_BOOT, ind.resamples_for(len(pairs)))
    assert f"{n:,} resamples" in (report / "report.md").read_text()
    ours = data.evaluate()
    boot = data.resampled(bench.design(), OUR_BOOT, OUR_SEED, only=("blimp",))["blimp"]
    p_test = []
    for _, row in table.iterrows():
        a, b = row["model_a"], row["model_b"]
        what = f"comparisons {a} - {b}"
        xa, xb = data.models[a].x, data.models[b].x
        _, p = ind.mcnemar_exact(xa[data.good] > xa[data.bad], xb[data.good] > xb[data.bad])
        p_test.append(p)
        ea, eb = ours.loc[a, "blimp"], ours.loc[b, "blimp"]
        ind.assert_close(row[["estimate_a", "estimate_b", "difference", "p_min"]],
                         [ea, eb, ea - eb, 2 / (n + 1)], what)
        ind.assert_close(row["p_test"], p, what, rtol=1e-9)
        assert row["test"] == "mcnemar_exact", what
        diff = boot[:, models.index(a)] - boot[:, models.index(b)]
        ind.assert_interval(row["difference_lower"], row["difference_upper"], ea - eb, diff, n,
                            what)
        ind.assert_p_boot(row["p_boot"], diff, n, what)
    ind.assert_close(table["p_boot_adj"], ind.holm(table["p_boot"]), "comparisons p_boot_adj")
    ind.assert_close(table["p_test_adj"], ind.holm(np.array(p_test)), "comparisons p_test_adj",
                     rtol=1e-9)
    ind.assert_only(table, {"estimate_a", "estimate_b", "difference", "difference_lower",
                            "difference_upper", "p_boot", "p_boot_adj", "p_min", "p_test",
                            "p_test_adj"}, "comparisons")


def check_data_summary(table: pd.DataFrame, bench: Bench, name: str) -> None:
    p = bench.pairs
    expected = {"dataset": name, "sentences": 2 * len(p), "sentences with a human judgment": 0,
                "sentence types": 2 * p["paradigm"].nunique(),
                "phenomena": p["phenomenon"].nunique(), "minimal pairs": len(p),
                "models": len(bench.scores),
                "scores (all models)": sum(int(np.isfinite(s).sum())
                                                     for s in bench.scores.values())}
    got = table.set_index("quantity")["value"]
    assert set(got.index) == {*expected, "source"}
    assert got["source"].startswith(f"local folder {name}")
    for key, value in expected.items():
        assert str(got[key]) == str(value), f"data summary {key!r}: {got[key]} != {value}"


def check_exclusions(table: pd.DataFrame, bench: Bench, pairs_in_files: int) -> None:
    """What --max-pairs left out: the other pairs of the paradigms and their sentences."""
    left = pairs_in_files - len(bench.pairs)
    assert sorted(zip(table["table"], table["n"], strict=True)) == [("pairs", left),
                                                                   ("sentences", 2 * left)]
    assert table["reason"].str.contains("subset").all()
