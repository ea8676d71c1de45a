"""A report on sentences without pairs or types (``acceptability score`` then ``report``
on Lau et al.'s (2020) 250 sentences rated without context, two tiny models): every table
recomputed from context-none-ratings.csv (``human`` = the mean rating z-scored with the
population SD) and the scores file ``score`` wrote. The models are compared on
r_sentence by Steiger's z, written out in independent.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import need_data
from tests.reports.recompute import independent as ind
from tests.reports.recompute.conftest import N_BOOT, OUR_BOOT, OUR_SEED

pytestmark = pytest.mark.needs_data("lau2020", "context-none-ratings.csv")
MODELS = ("gpt2_logprob", "cls_classifier")


@pytest.fixture(scope="module")
def sentences(lau_report) -> pd.DataFrame:
    """The sentences file the runs read, its ``human`` checked against the raw ratings."""
    ratings = need_data("lau2020", "context-none-ratings.csv") / "context-none-ratings.csv"
    mean = pd.read_csv(ratings)["mean-ratings"].to_numpy(float)
    frame = pd.read_csv(lau_report.parent / "lau2020.csv")
    ind.assert_close(frame["human"], ind.zscore(mean), "human = z of the mean ratings",
                     atol=1e-12)
    return frame


@pytest.fixture(scope="module")
def data(lau_report, sentences) -> ind.Data:
    scores = pd.read_parquet(lau_report.parent / "scores.parquet")
    ids = sentences["sentence_id"]
    models = ind.models_of(scores, ids, classifiers=("cls_classifier",))
    assert tuple(models) == MODELS
    none = np.arange(0)
    return ind.Data(sentences["human"].to_numpy(float), np.full(len(ids), np.nan),
                    ids.to_numpy(), none, none, models)


@pytest.fixture(scope="module")
def tables(lau_report) -> dict[str, pd.DataFrame]:
    return ind.read_tables(lau_report)


@pytest.fixture(scope="module")
def boot(data) -> dict[str, np.ndarray]:
    """Every sentence its own cluster: the plain bootstrap of sentences."""
    design = ind.sentence_design(len(data.human))
    ind.assert_statistic_is_the_estimate(data, design, (0.5, 1.0, 5.0))
    return data.resampled(design, OUR_BOOT, OUR_SEED, only=("r_sentence",))


def test_the_report_writes_the_tables_this_module_checks(tables):
    assert set(tables) == {"data_summary", "exclusions", "counts", "correlations",
                           "comparisons", "evaluation"}


def test_data_summary(tables, data):
    got = tables["data_summary"].set_index("quantity")["value"]
    expected = {"dataset": "lau2020", "sentences": 250, "sentences with a human judgment": 250,
                "minimal pairs": 0, "models": 2,
                "scores (all models)": sum(int(np.isfinite(m.x).sum())
                                                     for m in data.models.values())}
    assert set(got.index) == {*expected, "source", "sentence types", "phenomena"}
    for key, value in expected.items():
        assert str(got[key]) == str(value), f"data summary {key!r}: {got[key]} != {value}"
    assert got["sentence types"].startswith("none given")
    assert got["phenomena"].startswith("none given")


def test_exclusions(tables):
    t = tables["exclusions"]
    assert t["n"].tolist() == [0] and t["reason"].str.contains("nothing").all()


def test_counts(tables, data):
    t = tables["counts"]
    ind.assert_only(t, ind.check_metrics(t, data.evaluate(), {}, "counts", N_BOOT), "counts")


def test_correlations(tables, data, boot):
    t = tables["correlations"]
    assert t["model"].tolist() == list(MODELS) and (t["level"] == "sentence").all()
    for k, row in t.iterrows():
        z = data.models[row["model"]].z()
        ok = np.isfinite(data.human) & np.isfinite(z)
        r, p = sps.pearsonr(data.human[ok], z[ok])
        rho, p_rho = sps.spearmanr(data.human[ok], z[ok])
        what = f"correlations {row['model']}"
        ind.assert_close([row["n"], row["n_excluded"], row["pearson"], row["spearman"]],
                         [ok.sum(), len(ok) - ok.sum(), r, rho], what)
        ind.assert_close([row["pearson_p"], row["spearman_p"]], [p, p_rho], what, atol=0,
                         rtol=1e-6)
        ind.assert_interval(row["pearson_lower"], row["pearson_upper"], r,
                            boot["r_sentence"][:, k], N_BOOT, what)
    ind.assert_only(t, {"n", "n_excluded", "pearson", "pearson_lower", "pearson_upper",
                        "pearson_p", "spearman", "spearman_p"}, "correlations")


def test_comparisons_by_steiger(tables, data, boot, lau_report):
    """r_sentence of the two models: Steiger's z over the 250 sentences (its p is 1.0
    whatever the data when n = 3 is passed), the paired bootstrap of the difference."""
    n_cases, n = ind.check_r_comparison(tables["comparisons"], data, boot["r_sentence"], N_BOOT)
    assert n_cases == 250
    assert f"{n:,} resamples" in (lau_report / "report.md").read_text()


def test_evaluation(tables, data, boot):
    t = tables["evaluation"]
    ours = data.evaluate()
    checked = ind.check_metrics(t, ours, boot, "evaluation", N_BOOT)
    ind.assert_only(t, checked, "evaluation")
    assert set(ours.columns) <= checked and "r_sentence_lower" in checked


def test_markdown_prints_the_csv_numbers(tables, lau_report):
    ind.assert_markdown_matches(lau_report, tables)
