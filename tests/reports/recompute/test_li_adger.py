"""The LI-Adger report (``acceptability run --scores published``, three of the thesis'
models), every table recomputed from the published files: human_ME_results (judgments),
li-adger_min_pairs (pairs, ``discard=X`` dropped), bert_acc/bert_mlm_results (BERT scores,
z-scored here with the population SD) and li-adger_min_pairs_all_models (trigram SLOR
with its published z-scores, which the thesis standardised over a larger corpus)."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import need_data, need_module
from tests.reports.recompute import independent as ind
from tests.reports.recompute.conftest import LI_ADGER_MODELS, N_BOOT, OUR_BOOT, OUR_SEED

pytestmark = pytest.mark.needs_data("li-adger")
DELTAS = (0.5, 1.0, 5.0)
Z95 = sps.norm.ppf(0.975)
# Thesis Table 3.1 (BLiMP, ADC at 0.5/1/5) and Table 2.3 (Pearson r, sentences and pairs)
# as printed in ../shared/seeds/001_0b6e3c5b9d86e8de.txt; seed 004's human variability.
THESIS_3_1 = {"bert-large-cased_acc": (0.936, 0.307, 0.561, 0.925),
              "bert-large-cased_mlm": (0.871, 0.376, 0.661, 0.868),
              "trigram_slor": (0.753, 0.301, 0.520, 0.744)}
THESIS_2_3 = {"bert-large-cased_acc": (0.631, 0.335), "trigram_slor": (0.368, 0.333)}
SEED_004_HUMAN = 0.288
REPORT_TABLES = {"data_summary", "exclusions", "counts", "table_3_1", "correlations", "mcc",
                 "variability", "fits", "comparisons", "evaluation", "evaluation_by_dataset"}


@dataclass
class Raw:
    data: ind.Data
    sentences: pd.DataFrame  # id, text, dataset, type
    pairs: pd.DataFrame  # kept pairs: gramm_id, ungramm_id
    n_discarded: int
    n_blank_scores: int  # rows of the score files whose score is empty


@pytest.fixture(scope="module")
def raw() -> Raw:
    folder = need_data("li-adger")
    human = pd.read_csv(folder / "human_ME_results_li-adger_sentences.csv")
    ids = human["id"]
    types = ids.str.rsplit(".", n=1).str[0]
    label = types.str.rsplit(".", n=1).str[1].map({"g": 1.0, "*": 0.0}).to_numpy(float)
    pairs = pd.read_csv(folder / "li-adger_min_pairs.csv")
    kept = pairs[pairs["discard"].ne("X")].reset_index(drop=True)
    rows = pd.Index(ids)
    good, bad = rows.get_indexer(kept["gramm_id"]), rows.get_indexer(kept["ungramm_id"])
    assert (good >= 0).all() and (bad >= 0).all()
    acc = pd.read_csv(folder / "bert_acc_results_li-adger_sentences.csv").set_index("id")
    mlm = pd.read_csv(folder / "bert_mlm_results_li-adger_sentences.csv").set_index("id")
    both = pd.read_csv(folder / "li-adger_min_pairs_all_models.csv")
    slor_z = pd.concat([both.set_index("gramm_id")["slor_zscores_gramm"],
                        both.set_index("ungramm_id")["slor_zscores_ungramm"]])
    slor_z = slor_z[~slor_z.index.duplicated()]
    models = {
        "bert-large-cased_acc": ind.Model(acc["bert-large-cased_acc"].reindex(ids).to_numpy(),
                                          classifier=True),
        "bert-large-cased_mlm": ind.Model(mlm["bert-large-cased_mlm"].reindex(ids).to_numpy()),
        "trigram_slor": ind.Model(slor_z.reindex(ids).to_numpy(float), fixed=True),
    }
    assert tuple(models) == LI_ADGER_MODELS
    data = ind.Data(human["judgement"].to_numpy(float), label, types.to_numpy(), good, bad,
                    models)
    sentences = pd.DataFrame({"id": ids, "text": human["sentence"], "dataset": human["dataset"],
                              "type": types})
    blank = (int(slor_z.isna().sum()) + int(acc["bert-large-cased_acc"].isna().sum())
             + int(mlm["bert-large-cased_mlm"].isna().sum()))
    return Raw(data, sentences, kept, int(pairs["discard"].eq("X").sum()), blank)


@pytest.fixture(scope="module")
def tables(li_adger_report) -> dict[str, pd.DataFrame]:
    return ind.read_tables(li_adger_report)


@pytest.fixture(scope="module")
def ours(raw) -> pd.DataFrame:
    return raw.data.evaluate(DELTAS)


@pytest.fixture(scope="module")
def boot(raw) -> dict[str, np.ndarray]:
    """Our cluster bootstrap: clusters = sentence types merged through pairs (236)."""
    design = ind.cluster_design(raw.data)
    ind.assert_statistic_is_the_estimate(raw.data, design, DELTAS)
    return raw.data.resampled(design, OUR_BOOT, OUR_SEED, DELTAS)


def column(dist: dict[str, np.ndarray], metric: str, model: str) -> np.ndarray:
    return dist[metric][:, LI_ADGER_MODELS.index(model)]


def check_metrics(table: pd.DataFrame, ours: pd.DataFrame, dist: dict, what: str) -> set[str]:
    return ind.check_metrics(table, ours, dist, what, N_BOOT)


def test_the_report_writes_the_tables_this_module_checks(tables, li_adger_report):
    assert set(tables) == REPORT_TABLES
    assert (li_adger_report / "report.html").is_file()


def test_data_summary(tables, raw):
    s, p = raw.sentences, raw.pairs
    texts = s.set_index("id")["text"]
    expected = {
        "dataset": "li-adger", "sentences": len(s),
        "sentences with a human judgment": int(np.isfinite(raw.data.human).sum()),
        "sentence types": s["type"].nunique(),
        "phenomena": len(np.unique(ind.components(raw.data.types, raw.data.good, raw.data.bad))),
        "minimal pairs": len(p),
        "pairs whose two texts are identical (kept)":
            int((p["gramm_id"].map(texts) == p["ungramm_id"].map(texts)).sum()),
        "models": len(LI_ADGER_MODELS),
        "scores (all models)": sum(int(np.isfinite(m.x).sum())
                                   for m in raw.data.models.values()),
        "scores missing (NaN), left out": raw.n_blank_scores,
    }
    got = tables["data_summary"].set_index("quantity")["value"]
    assert set(got.index) == {*expected, "source"}
    assert got["source"].startswith("local folder li-adger")
    for key, value in expected.items():
        assert str(got[key]) == str(value), f"data summary {key!r}: {got[key]} != {value}"
    assert (expected["sentences"], expected["minimal pairs"], expected["phenomena"]) == (
        4178, 2365, 236)
    assert expected["scores missing (NaN), left out"] == 2  # the trigram's ch6.93 pair


def test_exclusions(tables, raw):
    marginal = (~np.isfinite(raw.data.label)).sum()
    expected = {("pairs", "discard"): raw.n_discarded,
                ("sentences", "human"): int((~np.isfinite(raw.data.human)).sum()),
                ("sentences", "marginal"): int(marginal)}
    got = tables["exclusions"]
    assert len(got) == len(expected)
    for (table, word), n in expected.items():
        row = got[(got["table"] == table) & got["reason"].str.contains(word)]
        assert row["n"].tolist() == [n], f"exclusions {table}/{word}: {row.to_dict('records')}"
    assert (raw.n_discarded, marginal) == (28, 112)


def test_counts(tables, ours):
    counts = tables["counts"]
    checked = check_metrics(counts, ours, {}, "counts")
    ind.assert_only(counts, checked, "counts")
    assert {"n_sentences", "n_pairs", "n_mcc"} <= checked


def test_table_3_1(tables, ours, boot):
    t = tables["table_3_1"]
    checked = check_metrics(t, ours, boot, "table_3_1")
    for k, metric in enumerate(["blimp", *(f"adc_{d:g}" for d in DELTAS)]):
        thesis = t["model"].map({m: v[k] for m, v in THESIS_3_1.items()})
        ind.assert_close(t[f"{metric} (thesis)"], thesis, f"table_3_1 {metric} (thesis)")
        checked.add(f"{metric} (thesis)")
    ind.assert_only(t, checked, "table_3_1")
    assert {"blimp_lower", "adc_1_upper"} <= checked


def test_correlations(tables, raw, boot):
    c = tables["correlations"]
    d = raw.data
    dh = d.human[d.good] - d.human[d.bad]
    for _, row in c.iterrows():
        z = d.models[row["model"]].z()
        if row["level"] == "sentence":
            h, m, total = d.human, z, len(d.human)
        else:
            h, m, total = dh, z[d.good] - z[d.bad], len(d.good)
        ok = np.isfinite(h) & np.isfinite(m)
        r, p = sps.pearsonr(h[ok], m[ok])
        rho, p_rho = sps.spearmanr(h[ok], m[ok])
        what = f"correlations {row['model']} {row['level']}"
        thesis = THESIS_2_3.get(row["model"], (math.nan, math.nan))[row["level"] == "pair"]
        ind.assert_close([row["n"], row["n_excluded"], row["pearson"], row["pearson (thesis)"]],
                         [ok.sum(), total - ok.sum(), r, thesis], what)
        ind.assert_close(row["pearson_p"], p, what, atol=0, rtol=1e-6)
        # deltas equal in the published decimals differ in binary floating point, as
        # differently as their z-scores were computed: tied ranks move rho by < 1e-6
        ind.assert_close([row["spearman"], row["spearman_p"]], [rho, p_rho], what, atol=1e-6,
                         rtol=1e-4)
        ind.assert_interval(row["pearson_lower"], row["pearson_upper"], r,
                            column(boot, f"r_{row['level']}", row["model"]), N_BOOT, what)
    assert sorted(zip(c["model"], c["level"], strict=True)) == sorted(
        (m, lv) for m in LI_ADGER_MODELS for lv in ("sentence", "pair"))
    ind.assert_only(c, {"n", "n_excluded", "pearson", "pearson_lower", "pearson_upper",
                        "pearson_p", "spearman", "spearman_p", "pearson (thesis)"},
                    "correlations")


def test_mcc(tables, ours, boot):
    t = tables["mcc"]
    checked = check_metrics(t, ours, boot, "mcc")
    ind.assert_only(t, checked, "mcc")
    assert {"mcc", "mcc_lower", "n_mcc"} <= checked


def test_variability(tables, raw):
    t = tables["variability"].set_index("source")
    d = raw.data
    sources = {"human": d.human} | {m: d.models[m].z() for m in LI_ADGER_MODELS}
    assert sorted(t.index) == sorted(sources)
    for source, values in sources.items():
        sds = ind.type_sds(values, d.types)
        ind.assert_close(t.loc[source, ["variability", "n_types", "n_types_excluded"]],
                         [sds.mean(), sds.notna().sum(), sds.isna().sum()],
                         f"variability of {source}")
    ind.assert_close(t["seed 004"], [SEED_004_HUMAN] + [math.nan] * len(LI_ADGER_MODELS),
                     "variability seed 004")
    ind.assert_only(t.reset_index(), {"variability", "n_types", "n_types_excluded",
                                      "seed 004"}, "variability")


def _lmm(frame: pd.DataFrame) -> dict[str, object]:
    """human ~ score + (1 + score | phenomenon) by REML with statsmodels' MixedLM; the
    fixed effects' SEs as lme4 gives them, (X' V^-1 X)^-1 at the REML variance estimates,
    V = Z G Z' + sigma^2 I per phenomenon (statsmodels' own bse_fe comes from the Hessian
    of all parameters); singular as lme4's isSingular: a diagonal element of the relative
    covariance factor chol(G / sigma^2) below 1e-4."""
    smf = need_module("statsmodels.formula.api")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm("human ~ score", frame, groups=frame["phenomenon"],
                          re_formula="~score").fit(reml=True)
    g, s2 = np.asarray(fit.cov_re), fit.scale
    xtvx = np.zeros((2, 2))
    for _, part in frame.groupby("phenomenon"):
        x = np.column_stack([np.ones(len(part)), part["score"]])
        xtvx += x.T @ np.linalg.solve(x @ g @ x.T + s2 * np.eye(len(part)), x)
    se = np.sqrt(np.diag(np.linalg.inv(xtvx)))
    try:
        singular = bool((np.abs(np.diag(np.linalg.cholesky(g / s2))) < 1e-4).any())
    except np.linalg.LinAlgError:
        singular = True
    return {"estimate": fit.fe_params.to_numpy(), "se": se, "n": len(frame),
            "singular": singular}


def test_fits(tables, raw):
    t = tables["fits"]
    d = raw.data
    phenomenon = ind.components(d.types, d.good, d.bad)
    assert list(dict.fromkeys(t["model"])) and set(t["model"]) == set(LI_ADGER_MODELS)
    for model, rows in t.groupby("model", sort=False):
        frame = pd.DataFrame({"human": d.human, "score": d.models[model].z(),
                              "phenomenon": phenomenon}).dropna()
        fit = _lmm(frame)
        what = f"fits {model}"
        assert rows["term"].tolist() == ["(Intercept)", "score"], what
        ind.assert_close(rows["estimate"], fit["estimate"], f"{what} estimate", atol=2e-5)
        ind.assert_close(rows["se"], fit["se"], f"{what} se", atol=2e-5)
        ind.assert_close(rows["estimate_lower"], fit["estimate"] - Z95 * fit["se"],
                         f"{what} lower", atol=5e-5)
        ind.assert_close(rows["estimate_upper"], fit["estimate"] + Z95 * fit["se"],
                         f"{what} upper", atol=5e-5)
        assert (rows["n"] == fit["n"]).all() and (rows["singular"] == fit["singular"]).all()
    ind.assert_only(t, {"estimate", "se", "estimate_lower", "estimate_upper", "n",
                        "singular"}, "fits")


def test_comparisons(tables, raw, ours, boot, li_adger_report):
    """Compared on the ADC at delta 1 (the default where pairs carry human deltas): exact
    McNemar on the pairs' verdicts, paired bootstrap of the difference, Holm over the 3."""
    t = tables["comparisons"]
    d = raw.data
    pairs = list(combinations(LI_ADGER_MODELS, 2))
    assert sorted(zip(t["model_a"], t["model_b"], strict=True)) == sorted(pairs)
    n = max(N_BOOT, ind.resamples_for(len(pairs)))
    assert f"{n:,} resamples" in (li_adger_report / "report.md").read_text()
    dh = d.human[d.good] - d.human[d.bad]
    p_test = []
    for _, row in t.iterrows():
        a, b = row["model_a"], row["model_b"]
        what = f"comparisons {a} - {b}"
        za, zb = d.models[a].z(), d.models[b].z()
        dla, dlb = za[d.good] - za[d.bad], zb[d.good] - zb[d.bad]
        ok = np.isfinite(dh) & np.isfinite(dla) & np.isfinite(dlb)
        _, p = ind.mcnemar_exact(ind.adc_pass(dh[ok], dla[ok], 1.0),
                                 ind.adc_pass(dh[ok], dlb[ok], 1.0))
        p_test.append(p)
        ea, eb = ours.loc[a, "adc_1"], ours.loc[b, "adc_1"]
        ind.assert_close(row[["estimate_a", "estimate_b", "difference", "p_min", "p_test"]],
                         [ea, eb, ea - eb, 2 / (n + 1), p], what)
        assert row["test"] == "mcnemar_exact", what
        diff = column(boot, "adc_1", a) - column(boot, "adc_1", b)
        ind.assert_interval(row["difference_lower"], row["difference_upper"], ea - eb, diff, n,
                            what)
        ind.assert_p_boot(row["p_boot"], diff, n, what)
    ind.assert_close(t["p_boot_adj"], ind.holm(t["p_boot"]), "comparisons p_boot_adj")
    ind.assert_close(t["p_test_adj"], ind.holm(np.array(p_test)), "comparisons p_test_adj")
    ind.assert_only(t, {"estimate_a", "estimate_b", "difference", "difference_lower",
                        "difference_upper", "p_boot", "p_boot_adj", "p_min", "p_test",
                        "p_test_adj"}, "comparisons")


def test_evaluation(tables, ours, boot, li_adger_report):
    t = tables["evaluation"]
    checked = check_metrics(t, ours, boot, "evaluation")
    ind.assert_only(t, checked, "evaluation")
    assert set(ours.columns) <= checked
    plain = pd.read_csv(li_adger_report / "evaluation.csv")  # the run folder's, no intervals
    ind.assert_only(plain, check_metrics(plain, ours, {}, "evaluation.csv"), "evaluation.csv")


def test_evaluation_by_dataset(tables, raw):
    """Per source data set (LI, Adger), z-scores over all sentences; intervals of the BLiMP
    criterion and ADC from a bootstrap of each set's clusters within it."""
    t = tables["evaluation_by_dataset"]
    d = raw.data
    group = raw.sentences["dataset"].to_numpy()
    design = ind.cluster_design(d, group)
    unit = ind.components(d.types, d.good, d.bad)
    checked = {"model", "dataset", "ci_unit", "ci_n_units"}
    for name in pd.unique(group):
        pair_in = group[d.good] == name
        ours = d.evaluate(DELTAS, group == name, pair_in)
        part = t[t["dataset"] == name].reset_index(drop=True)
        dist = d.resampled(design, OUR_BOOT, OUR_SEED, DELTAS, pair_in,
                           only=("blimp", *(f"adc_{x:g}" for x in DELTAS)))
        checked |= check_metrics(part, ours, dist, f"evaluation_by_dataset {name}")
        assert (part["ci_unit"] == "type_id").all()
        assert (part["ci_n_units"] == len(np.unique(unit[d.good][pair_in]))).all()
    assert set(t["dataset"]) == set(group)
    ind.assert_only(t, checked, "evaluation_by_dataset")
    assert {"blimp_lower", "adc_5_upper", "r_pair", "variability", "mcc"} <= checked


def test_markdown_prints_the_csv_numbers(tables, li_adger_report):
    ind.assert_markdown_matches(li_adger_report, tables)


def test_fits_file_of_the_run_folder(tables, li_adger_report: Path):
    plain = pd.read_csv(li_adger_report / "fits.csv")
    shown = tables["fits"]
    for ours_col, col in (("estimate", "estimate"), ("se", "se"),
                          ("estimate_lower", "lower"), ("estimate_upper", "upper"), ("n", "n"),
                          ("singular", "singular")):
        ind.assert_close(plain[col], shown[ours_col], f"fits.csv {col}")
    assert plain["engine"].notna().all()
