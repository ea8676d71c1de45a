"""The report on MegaAcceptability's trial-level ratings (``acceptability run --dataset
megaacceptability --max-sentences 300``: its first six lists of 50 sentences, each list
rated by five participants; a tiny GPT-2 and a tiny BERT classifier): every number of every
table recomputed from the raw archive (read here with zipfile and pandas) and the scores
file the run wrote. The human value of a sentence is the mean of its ratings z-scored
within participant (sample SD); the norms, reliability and the trial-level models as
defined in ratings.py, the ordinal norm and the models by R."""

from __future__ import annotations

import zipfile

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import LME4_TOL, need_data
from tests.reports.recompute import independent as ind
from tests.reports.recompute import ratings as rat
from tests.reports.recompute.conftest import MEGA_SENTENCES, N_BOOT, OUR_BOOT, OUR_SEED

pytestmark = pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
FOLDER = "mega-acceptability-v1/"
MODELS = ("gpt2_logprob", "cls_classifier")
LMER = "response_z ~ lm_z + (1 | item)"  # stats.RATING_FORMULA: no (1 | participant) on z-scores
CLMM = "response ~ lm_z + (1 | participant) + (1 | item)"
CLMM_TOL = 1e-3  # ordinal's clmm (nlminb) against the package's: ~1e-5 apart, SEs ~1e-4
TRIALS_IN_ARCHIVE = 250_000
NORMS_WITHOUT_TRIALS = 350  # the normalised file's rows of verbs that v1 has no trials of


@pytest.fixture(scope="module")
def archive() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The trials and the normalised values, as published."""
    path = need_data("megaacceptability", "mega-acceptability-v1.zip") / \
        "mega-acceptability-v1.zip"
    with zipfile.ZipFile(path) as z:
        trials = pd.read_csv(z.open(FOLDER + "mega-acceptability-v1.tsv"), sep="\t")
        norms = pd.read_csv(z.open(FOLDER + "mega-acceptability-v1-normalized.tsv"), sep="\t")
    for t in (trials, norms):
        t["sentence_id"] = t["verb"] + " | " + t["frame"]
    return trials, norms


@pytest.fixture(scope="module")
def ratings(archive) -> pd.DataFrame:
    """The answered trials of the first lists (in the file's order) whose 50 sentences fit
    in ``MEGA_SENTENCES``; ``participant`` as text."""
    trials, _ = archive
    lists = pd.unique(trials["list"])[: MEGA_SENTENCES // 50]
    kept = trials[trials["list"].isin(lists) & trials["response"].notna()]
    assert kept["sentence_id"].nunique() == MEGA_SENTENCES
    return kept.assign(participant=kept["participant"].astype(str)).reset_index(drop=True)


@pytest.fixture(scope="module")
def sentences(ratings, archive) -> pd.DataFrame:
    """One row per sentence in order of first appearance: the z norm (``human``), the
    published normalised value."""
    z = ratings.assign(z=rat.z_within(ratings)).groupby("sentence_id", sort=False)["z"].mean()
    published = archive[1].set_index("sentence_id")["responsenorm"]
    return pd.DataFrame({"sentence_id": z.index, "human": z.to_numpy(),
                         "published": published.reindex(z.index).to_numpy()})


@pytest.fixture(scope="module")
def data(mega_report, sentences) -> ind.Data:
    scores = pd.read_parquet(mega_report / "scores.parquet")
    ids = sentences["sentence_id"]
    models = ind.models_of(scores, ids, classifiers=("cls_classifier",))
    assert tuple(models) == MODELS
    none = np.arange(0)
    return ind.Data(sentences["human"].to_numpy(), np.full(len(ids), np.nan), ids.to_numpy(),
                    none, none, models)


@pytest.fixture(scope="module")
def tables(mega_report) -> dict[str, pd.DataFrame]:
    return ind.read_tables(mega_report)


def test_the_report_has_a_table_for_every_section(tables):
    assert set(tables) == {"data_summary", "exclusions", "counts", "reliability", "norms",
                           "rating_correlations", "fits", "comparisons", "evaluation"}


def test_data_summary(tables, ratings, data):
    got = tables["data_summary"].set_index("quantity")["value"]
    per = ratings.groupby("sentence_id").size()
    expected = {"dataset": "megaacceptability", "sentences": MEGA_SENTENCES,
                "sentences with a human judgment": MEGA_SENTENCES,
                "ratings (trial level)": len(ratings), "rating scale": "likert:1-7",
                "participants": ratings["participant"].nunique(),
                "ratings per sentence (min, median, max)":
                    f"{per.min()}, {per.median():g}, {per.max()}",
                "minimal pairs": 0, "models": 2,
                "scores (all models)": sum(int(np.isfinite(m.x).sum())
                                           for m in data.models.values())}
    assert set(got.index) == {*expected, "source", "sentence types", "phenomena",
                              "human judgment (norming)"}
    for key, value in expected.items():
        assert str(got[key]) == str(value), f"data summary {key!r}: {got[key]} != {value}"
    assert got["human judgment (norming)"].startswith("z: each rating z-scored within")


def test_exclusions(tables, archive, ratings):
    """The loader's two rows, then what --max-sentences leaves out."""
    trials, norms = archive
    answered = int(trials["response"].notna().sum())
    assert len(trials) == TRIALS_IN_ARCHIVE
    assert (~norms["sentence_id"].isin(trials["sentence_id"])).sum() == NORMS_WITHOUT_TRIALS
    t = tables["exclusions"]
    assert t[["table", "n"]].values.tolist() == [
        ["sentences", NORMS_WITHOUT_TRIALS], ["ratings", TRIALS_IN_ARCHIVE - answered],
        ["sentences", trials["sentence_id"].nunique() - MEGA_SENTENCES],
        ["ratings", answered - len(ratings)]]
    assert t["reason"].iloc[2:].str.startswith("not in the subset").all()


def test_counts(tables, data):
    t = tables["counts"]
    ind.assert_only(t, ind.check_metrics(t, data.evaluate(), {}, "counts", N_BOOT), "counts")


def test_reliability_of_the_normed_ratings(tables, ratings):
    """On the ratings z-scored within participant, the participants split in halves."""
    t = tables["reliability"]
    assert (t["condition"] == "all").all()
    z = ratings.assign(response=rat.z_within(ratings)).dropna(subset=["response"])
    rat.check_reliability(t, rat.items_of(z), N_BOOT, OUR_SEED, "reliability")
    split = t.set_index("quantity")["split"]
    assert (split[["r_half", "reliability", "ceiling"]] == "participants").all()
    assert split["r"] == "within_item"
    ind.assert_only(t, {"estimate", "estimate_lower", "estimate_upper", "n_items",
                        "n_items_set_aside", "n_responses"}, "reliability")


def test_norms_against_the_published_values(tables, ratings, sentences, tmp_path):
    """Each norming's values (z, Blom's rank scores, the clmm modes by R, the mean) against
    the published normalised values."""
    t = tables["norms"].set_index("norming")
    assert t.index.tolist() == ["z", "rank", "ordinal", "mean"]
    ids = sentences["sentence_id"]
    by = ratings.groupby("sentence_id")
    values = {"z": sentences.set_index("sentence_id")["human"].reindex(ids),
              "rank": ratings.assign(v=rat.blom_within(ratings)).groupby("sentence_id")["v"]
              .mean().reindex(ids),
              "ordinal": rat.r_ordinal_modes(ratings, tmp_path).reindex(ids),
              "mean": by["response"].mean().reindex(ids)}
    y = sentences["published"].to_numpy()
    for method, x in values.items():
        x, row = x.to_numpy(float), t.loc[method]
        what = f"norm {method}"
        tol = 1e-4 if method == "ordinal" else 1e-9  # R's and the package's clmm modes
        ind.assert_close([row["n"], row["pearson"], row["spearman"]],
                         [len(x), sps.pearsonr(x, y)[0], sps.spearmanr(x, y)[0]], what, atol=tol)
        dist = rat.resampled_pearson(x, y, OUR_BOOT, OUR_SEED)
        ind.assert_interval(row["pearson_lower"], row["pearson_upper"], row["pearson"], dist,
                            N_BOOT, what)
    ind.assert_only(t.reset_index(), {"n", "pearson", "pearson_lower", "pearson_upper",
                                      "spearman"}, "norms")


def test_correlations_beside_the_ceiling(tables, data):
    t = tables["rating_correlations"]
    ceiling = tables["reliability"].set_index("quantity").loc["ceiling"]
    boot = data.resampled(ind.sentence_design(len(data.human)), OUR_BOOT, OUR_SEED,
                          only=("r_sentence",))
    assert t["model"].tolist() == list(MODELS) and (t["condition"] == "all").all()
    for k, row in t.iterrows():
        x, what = data.models[row["model"]].x, f"correlation {row['model']}"
        ind.assert_close([row["n"], row["pearson"], row["spearman"]],
                         [len(x), sps.pearsonr(x, data.human)[0],
                          sps.spearmanr(x, data.human)[0]], what)
        ind.assert_interval(row["pearson_lower"], row["pearson_upper"], row["pearson"],
                            boot["r_sentence"][:, k], N_BOOT, what)
        ind.assert_close(row[["ceiling", "ceiling_lower", "ceiling_upper"]],
                         ceiling[["estimate", "estimate_lower", "estimate_upper"]],
                         f"{what}: the ceiling is the reliability table's")
    ind.assert_only(t, {"n", "pearson", "pearson_lower", "pearson_upper", "spearman",
                        "ceiling", "ceiling_lower", "ceiling_upper"}, "rating_correlations")


def test_trial_level_models_against_r(tables, ratings, data, sentences, tmp_path):
    """lme4's lmer and ordinal's clmm: response_z = the rating z-scored within its
    participant, lm_z = the model's score z-scored over the sentences (ddof 0)."""
    z = ratings.assign(response_z=rat.z_within(ratings)).dropna(subset=["response_z"])
    ids = sentences["sentence_id"]
    frame = pd.concat([pd.DataFrame({
        "model": name, "participant": "p" + z["participant"], "item": z["sentence_id"],
        "response": z["response"].astype(int), "response_z": z["response_z"],
        "lm_z": z["sentence_id"].map(pd.Series(m.z(), index=ids)).to_numpy()})
        for name, m in data.models.items()], ignore_index=True)
    ours = rat.r_fits(frame, LMER, tmp_path, clmm=CLMM, levels=list(range(1, 8)))
    t = tables["fits"]
    assert t[["model", "term"]].values.tolist() == ours[["model", "term"]].values.tolist()
    assert t["fit"].tolist() == ours["fit"].map({"lmer": "normed ratings (lmer)",
                                                  "clmm": "raw ordinal ratings (clmm)"}).tolist()
    cols = ["estimate", "se", "estimate_lower", "estimate_upper"]
    theirs = ours[["estimate", "se", "lower", "upper"]]
    lmer = (ours["fit"] == "lmer").to_numpy()
    ind.assert_close(t.loc[lmer, cols], theirs[lmer], "lmer against lme4", atol=LME4_TOL)
    ind.assert_close(t.loc[~lmer, cols], theirs[~lmer], "clmm against ordinal", atol=CLMM_TOL)
    assert (t["n"] == len(z)).all()
    assert t["singular"].tolist() == ours["singular"].tolist()
    ind.assert_only(t, {"estimate", "se", "estimate_lower", "estimate_upper", "n",
                        "singular"}, "fits")


def test_comparisons(tables, data):
    """r_sentence of the two models, the sentences resampled; Steiger's z."""
    boot = data.resampled(ind.sentence_design(len(data.human)), OUR_BOOT, OUR_SEED,
                          only=("r_sentence",))
    n_cases, _ = ind.check_r_comparison(tables["comparisons"], data, boot["r_sentence"], N_BOOT)
    assert n_cases == MEGA_SENTENCES


def test_evaluation(tables, data, ratings):
    """Every metric; r_ceiling = sqrt of the split-half reliability of the raw ratings
    (participant halves)."""
    t = tables["evaluation"]
    boot = data.resampled(ind.sentence_design(len(data.human)), OUR_BOOT, OUR_SEED,
                          only=("r_sentence", "mcc"))
    checked = ind.check_metrics(t, data.evaluate(), boot, "evaluation", N_BOOT)
    rs = rat.split_rs(rat.halves(rat.items_of(ratings), "split_half", rat.OUR_SPLITS,
                                 np.random.default_rng(OUR_SEED)))
    assert np.ptp(t["r_ceiling"]) == 0, "one ceiling for the dataset"
    c = t["r_ceiling"].iloc[0]
    rat.assert_mc(c**2 / (2 - c**2), rs, rat.N_SPLITS, "evaluation r_ceiling (its mean r)")
    ind.assert_only(t, checked | {"r_ceiling"}, "evaluation")


def test_markdown_prints_the_csv_numbers(tables, mega_report):
    ind.assert_markdown_matches(mega_report, tables)
