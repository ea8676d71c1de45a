"""The report on Lau et al.'s (2020) trial-level ratings in three context conditions
(``acceptability run --dataset lau2020``, the sentences scored in their context by a tiny
GPT-2, and on the first sentences also by a tiny BERT): every number of every table
recomputed from the raw context-*-ratings.csv and the scores file the run wrote. The human
value of a sentence is its mean rating (the ratings name no participant); reliability,
correlations and context shifts as defined in ratings.py; the trial-level models by R."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from tests.conftest import LME4_TOL, need_data
from tests.reports.recompute import independent as ind
from tests.reports.recompute import ratings as rat
from tests.reports.recompute.conftest import LAU_MASKED, N_BOOT, OUR_BOOT, OUR_SEED, cli

pytestmark = pytest.mark.needs_data("lau2020", "context-real-ratings.csv")
CONDITIONS = ("none", "random", "real")
LMER, CLMM = "response_z ~ lm_z + (1 | item)", "response ~ lm_z + (1 | item)"
CLMM_TOL = 1e-4  # both optimise to ~1e-6; the SEs come from finite-difference Hessians


@pytest.fixture(scope="module")
def raw(lau_ratings_report) -> pd.DataFrame:
    """One row per sentence and condition, in the files' order: ``sentence_id``
    "<condition>/<ID>", ``id``, ``condition``, ``translated`` and the list of its
    ratings (``full-ratings``, in order), the first ``LAU_MASKED`` of each file for the
    masked model's run."""
    folder = need_data("lau2020", "context-real-ratings.csv")
    frames = []
    for c in CONDITIONS:
        f = pd.read_csv(folder / f"context-{c}-ratings.csv", dtype={"ID": str})
        if "masked" in lau_ratings_report.name:
            f = f.head(LAU_MASKED)
        ratings = [[float(x) for x in str(v).split(",")] for v in f["full-ratings"]]
        np.testing.assert_allclose([np.mean(r) for r in ratings], f["mean-ratings"], atol=1e-12)
        frames.append(pd.DataFrame({"sentence_id": c + "/" + f["ID"], "id": f["ID"],
                                    "condition": c, "translated": f["translated"],
                                    "ratings": ratings}))
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def long(raw) -> pd.DataFrame:
    """One row per rating: sentence, condition, response, its position in the sentence's
    list of ratings."""
    out = raw.explode("ratings").rename(columns={"ratings": "response"})
    out["response"] = out["response"].astype(float)
    out["position"] = out.groupby("sentence_id").cumcount()
    return out.reset_index(drop=True)


@pytest.fixture(scope="module")
def data(lau_ratings_report, raw) -> ind.Data:
    """Human = the mean rating; types = the sentence across its conditions."""
    scores = pd.read_parquet(lau_ratings_report / "scores.parquet")
    ids = raw["sentence_id"]
    models = ind.models_of(scores, ids)
    none = np.arange(0)
    return ind.Data(np.array([np.mean(r) for r in raw["ratings"]]), np.full(len(ids), np.nan),
                    raw["id"].to_numpy(), none, none, models)


@pytest.fixture(scope="module")
def tables(lau_ratings_report) -> dict[str, pd.DataFrame]:
    return ind.read_tables(lau_ratings_report)


def test_the_report_has_a_table_for_every_section(tables, data):
    expected = {"data_summary", "exclusions", "counts", "reliability", "rating_correlations",
                "condition_means", "quality_shifts", "fits", "evaluation"}
    assert set(tables) == expected | ({"comparisons"} if len(data.models) > 1 else set())


def test_data_summary(tables, raw, long, data):
    got = tables["data_summary"].set_index("quantity")["value"]
    per = raw["ratings"].map(len)
    expected = {"dataset": "lau2020", "sentences": len(raw),
                "sentences with a human judgment": len(raw), "sentence types": raw["id"].nunique(),
                "ratings (trial level)": len(long), "rating scale": "likert:1-4",
                "participants": "not given (the ratings name no participant)",
                "ratings per sentence (min, median, max)":
                    f"{per.min()}, {per.median():g}, {per.max()}",
                "conditions": "none, random, real", "minimal pairs": 0,
                "models": len(data.models),
                "scores (all models)": sum(int(np.isfinite(m.x).sum())
                                           for m in data.models.values())}
    assert set(got.index) == {*expected, "source", "phenomena", "human judgment (norming)"}
    for key, value in expected.items():
        assert str(got[key]) == str(value), f"data summary {key!r}: {got[key]} != {value}"
    assert got["human judgment (norming)"].startswith("mean: the mean rating")


def test_exclusions(tables, raw, long):
    t = tables["exclusions"]
    if len(raw) == 750:
        assert t["n"].tolist() == [0] and t["reason"].str.contains("nothing").all()
        return
    every = sum(len(pd.read_csv(need_data("lau2020") / f"context-{c}-ratings.csv"))
                for c in CONDITIONS)
    all_ratings = sum(len(str(v).split(",")) for c in CONDITIONS for v in pd.read_csv(
        need_data("lau2020") / f"context-{c}-ratings.csv")["full-ratings"])
    assert t[["table", "n"]].values.tolist() == [["sentences", every - len(raw)],
                                                ["ratings", all_ratings - len(long)]]
    assert t["reason"].str.startswith("not in the subset").all()


def test_counts(tables, data):
    t = tables["counts"]
    ind.assert_only(t, ind.check_metrics(t, data.evaluate(), {}, "counts", N_BOOT), "counts")


def test_reliability(tables, long):
    t = tables["reliability"]
    assert list(pd.unique(t["condition"])) == list(CONDITIONS)
    for k, c in enumerate(CONDITIONS):
        rows = t[t["condition"] == c]
        items = rat.items_of(long[long["condition"] == c])
        rat.check_reliability(rows, items, N_BOOT, OUR_SEED + k, f"reliability {c}")
        split = rows.set_index("quantity")["split"]
        assert (split[["r_half", "reliability", "ceiling", "r"]] == "within_item").all()
        assert split[["ICC(1)", "ICC(k)"]].isna().all()
    ind.assert_only(t, {"estimate", "estimate_lower", "estimate_upper", "n_items",
                        "n_items_set_aside", "n_responses"}, "reliability")


def test_correlations_beside_the_ceiling(tables, raw, data):
    t = tables["rating_correlations"]
    ceiling = tables["reliability"].query("quantity == 'ceiling'").set_index("condition")
    for c in CONDITIONS:
        inside = (raw["condition"] == c).to_numpy()
        sub = ind.Data(data.human[inside], data.label[inside], data.types[inside], data.good,
                       data.bad, {m: ind.Model(v.x[inside]) for m, v in data.models.items()})
        boot = sub.resampled(ind.sentence_design(inside.sum()), OUR_BOOT, OUR_SEED,
                             only=("r_sentence",))
        rows = t[t["condition"] == c]
        assert rows["model"].tolist() == list(data.models)
        for k, (_, row) in enumerate(rows.iterrows()):
            x, y = sub.models[row["model"]].x, sub.human
            what = f"correlation {row['model']} {c}"
            ind.assert_close([row["n"], row["pearson"], row["spearman"]],
                             [inside.sum(), sps.pearsonr(x, y)[0], sps.spearmanr(x, y)[0]],
                             what)
            ind.assert_interval(row["pearson_lower"], row["pearson_upper"], row["pearson"],
                                boot["r_sentence"][:, k], N_BOOT, what)
            ind.assert_close(row[["ceiling", "ceiling_lower", "ceiling_upper"]],
                             ceiling.loc[c, ["estimate", "estimate_lower", "estimate_upper"]],
                             f"{what}: the ceiling is the reliability table's")
    ind.assert_only(t, {"n", "pearson", "pearson_lower", "pearson_upper", "spearman",
                        "ceiling", "ceiling_lower", "ceiling_upper"}, "rating_correlations")


@pytest.fixture(scope="module")
def means(raw) -> pd.DataFrame:
    """Mean rating per sentence (rows) and condition (columns)."""
    raw = raw.assign(mean=raw["ratings"].map(np.mean))
    return raw.pivot(index="id", columns="condition", values="mean")[list(CONDITIONS)]


def test_condition_means(tables, means, long):
    t = tables["condition_means"].set_index("condition")
    m = means.to_numpy()
    values = np.column_stack([m, m[:, 1:] - m[:, :1]])
    dist = rat.paired_means(values, OUR_BOOT, OUR_SEED)
    for j, c in enumerate(CONDITIONS):
        row, what = t.loc[c], f"condition means {c}"
        ind.assert_close([row["n_sentences"], row["n_ratings"], row["mean_rating"]],
                         [len(m), (long["condition"] == c).sum(), m[:, j].mean()], what)
        ind.assert_interval(row["mean_rating_lower"], row["mean_rating_upper"],
                            row["mean_rating"], dist[:, j], N_BOOT, what)
        if j == 0:
            assert t.loc[c, ["shift", "shift_lower", "shift_upper"]].isna().all()
            continue
        ind.assert_close(row["shift"], m[:, j].mean() - m[:, 0].mean(), f"{what} shift")
        ind.assert_interval(row["shift_lower"], row["shift_upper"], row["shift"],
                            dist[:, 2 + j], N_BOOT, f"{what} shift")
    ind.assert_only(t.reset_index(), {"n_sentences", "n_ratings", "mean_rating",
                                      "mean_rating_lower", "mean_rating_upper", "shift",
                                      "shift_lower", "shift_upper"}, "condition_means")


def _groups(raw, means, long) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """(group, classified by, which sentences, their baseline means) in the table's order."""
    translated = raw[raw["condition"] == "none"].set_index("id")["translated"].reindex(means.index)
    none = long[long["condition"] == "none"]
    first = none[none["position"] % 2 == 0].groupby("id")["response"].mean().reindex(means.index)
    second = none[none["position"] % 2 == 1].groupby("id")["response"].mean().reindex(means.index)
    out = [(label, "translation", (translated == v).to_numpy(), means["none"].to_numpy())
           for v, label in ((0, "original"), (1, "round-trip translated"))]
    same = rat.thirds(means["none"].to_numpy())
    held = (first.notna() & second.notna()).to_numpy()
    split = np.full(len(means), "", dtype=object)
    split[held] = rat.thirds(first.to_numpy()[held])
    for by, groups, base in (("none rating (same ratings)", same, means["none"].to_numpy()),
                             ("none rating (other half)", split, second.to_numpy())):
        out += [(f"{g} third", by, groups == g, base) for g in ("low", "middle", "high")]
    return [g for g in out if g[2].sum() >= 2]


def test_quality_shifts(tables, raw, means, long):
    t = tables["quality_shifts"]
    groups = _groups(raw, means, long)
    assert t[["group", "classified_by"]].values.tolist() == [[g, b] for g, b, _, _ in groups]
    m = means.to_numpy()
    for (_, row), (group, by, keep, base) in zip(t.iterrows(), groups, strict=True):
        what = f"quality shifts {group} by {by}"
        b = base[keep]
        shifts = m[keep][:, 1:] - b[:, None]
        ind.assert_close(row[["n_sentences", "none", "random", "real", "random_minus_none",
                              "real_minus_none"]],
                         [keep.sum(), b.mean(), *m[keep][:, 1:].mean(0), *shifts.mean(0)], what)
        dist = rat.paired_means(shifts, OUR_BOOT, OUR_SEED)
        for j, col in enumerate(("random_minus_none", "real_minus_none")):
            ind.assert_interval(row[f"{col}_lower"], row[f"{col}_upper"], row[col], dist[:, j],
                                N_BOOT, f"{what} {col}")
    ind.assert_only(t, {"n_sentences", "none", "random", "real", "random_minus_none",
                        "random_minus_none_lower", "random_minus_none_upper", "real_minus_none",
                        "real_minus_none_lower", "real_minus_none_upper", "classified_by",
                        "group"}, "quality_shifts")


def test_context_captions_name_the_sentences_resampled(lau_ratings_report, raw, means, long):
    """Item 4 of issue 42: the context tables' captions say how many sentences the
    bootstrap resampled, as the engine drew them: every sentence rated in all three
    conditions for the condition means, each group's sentences (recomputed here) for the
    shifts, their range where the groups differ in size."""
    md = (lau_ratings_report / "report.md").read_text(encoding="utf-8").splitlines()
    caption = {key: next(line for line in md if line.startswith("**Table") and key in line)
               for key in ("Mean rating per condition", "by group of sentences")}
    n = len(means.dropna())
    assert f"{N_BOOT:,} bootstrap resamples of {n} sentences" in \
        caption["Mean rating per condition"]
    sizes = [int(keep.sum()) for _, _, keep, _ in _groups(raw, means, long)]
    assert f"{N_BOOT:,} bootstrap resamples of {min(sizes)} to {max(sizes)} sentences (in " \
           "each group)" in caption["by group of sentences"]
    assert "resamples of the sentences" not in "\n".join(md)


def test_trial_level_models(tables, long, data, tmp_path):
    """lmer by lme4; clmm by the Laplace likelihood written in ratings.py (ordinal's clmm
    takes minutes on these 12,386 ratings and its Hessian fails there). response_z: the
    ratings z-scored over all of them (sample SD: they name no participant); lm_z: the
    model's scores z-scored over the sentences."""
    t = tables["fits"]
    r = long["response"].to_numpy()
    ids = pd.unique(long["sentence_id"])  # the sentences in the order of the data's rows
    frame = pd.concat([pd.DataFrame({
        "model": name, "item": long["sentence_id"], "response": r.astype(int),
        "response_z": (r - r.mean()) / r.std(ddof=1),
        "lm_z": long["sentence_id"].map(pd.Series(m.z(), index=ids)).to_numpy()})
        for name, m in data.models.items()], ignore_index=True)
    lme4 = rat.r_fits(frame, LMER, tmp_path)
    cols = ["estimate", "se", "estimate_lower", "estimate_upper"]
    for name, rows in frame.groupby("model", sort=False):
        ours = t[t["model"] == name]
        lmer = ours[ours["fit"] == "normed ratings (lmer)"]
        r_rows = lme4[lme4["model"] == name]
        assert lmer["term"].tolist() == r_rows["term"].tolist() == ["(Intercept)", "lm_z"]
        ind.assert_close(lmer[cols], r_rows[["estimate", "se", "lower", "upper"]],
                         f"lmer of {name} against lme4", atol=LME4_TOL)
        assert lmer["singular"].tolist() == r_rows["singular"].tolist()
        clmm = ours[ours["fit"] == "raw ordinal ratings (clmm)"]
        mine = rat.clmm_intercepts(rows["response"].to_numpy(), rows["lm_z"].to_numpy(),
                                   rows["item"].to_numpy(), 4)
        assert clmm["term"].tolist() == mine["term"].tolist()
        z = 1.959963984540054
        ind.assert_close(clmm[cols], np.column_stack([
            mine["estimate"], mine["se"], mine["estimate"] - z * mine["se"],
            mine["estimate"] + z * mine["se"]]), f"clmm of {name}", atol=CLMM_TOL)
        assert not clmm["singular"].any()
    assert (t["n"] == len(long)).all()
    assert set(t["fit"]) == {"normed ratings (lmer)", "raw ordinal ratings (clmm)"}
    ind.assert_only(t, {"estimate", "se", "estimate_lower", "estimate_upper", "n",
                        "singular"}, "fits")


def test_comparisons(tables, data):
    """r_sentence of the two models over all sentence-condition rows, each sentence with its
    three conditions one cluster; Steiger's z over the rows."""
    if "comparisons" not in tables:
        assert len(data.models) == 1
        return
    boot = data.resampled(ind.cluster_design(data), OUR_BOOT, OUR_SEED, only=("r_sentence",))
    n_cases, _ = ind.check_r_comparison(tables["comparisons"], data, boot["r_sentence"], N_BOOT)
    assert n_cases == len(data.human)


def test_evaluation(tables, data, long):
    """Every metric over all rows, clustered by sentence; r_ceiling = sqrt of the
    split-half reliability of all ratings (within sentence-condition rows)."""
    t = tables["evaluation"]
    boot = data.resampled(ind.cluster_design(data), OUR_BOOT, OUR_SEED,
                          only=("r_sentence", "variability"))
    checked = ind.check_metrics(t, data.evaluate(), boot, "evaluation", N_BOOT)
    rs = rat.split_rs(rat.halves(rat.items_of(long), "split_half", rat.OUR_SPLITS,
                                 np.random.default_rng(OUR_SEED)))
    ceiling = t["r_ceiling"].to_numpy()
    assert np.ptp(ceiling) == 0, "one ceiling for the dataset"
    r = ceiling[0] ** 2 / (2 - ceiling[0] ** 2)  # the mean r whose sqrt(2r / (1 + r)) it is
    rat.assert_mc(r, rs, rat.N_SPLITS, "evaluation r_ceiling (its mean split-half r)")
    ind.assert_only(t, checked | {"r_ceiling"}, "evaluation")


def test_markdown_prints_the_csv_numbers(tables, lau_ratings_report):
    ind.assert_markdown_matches(lau_ratings_report, tables)


def test_fit_command_fits_the_trial_level_models(lau_ratings_report, tables, tmp_path):
    """``acceptability fit`` on the rating dataset fits the report's trial-level models."""
    head = ["--max-sentences", str(LAU_MASKED)] if "masked" in lau_ratings_report.name else []
    out = tmp_path / "fits.csv"
    cli("fit", "--dataset", "lau2020", *head, "--scores",
        str(lau_ratings_report / "scores.parquet"), "--out", str(out))
    fits = pd.read_csv(out).rename(columns={"lower": "estimate_lower",
                                            "upper": "estimate_upper"})
    report = tables["fits"]
    assert fits[["model", "fit", "term"]].values.tolist() == \
        report[["model", "fit", "term"]].values.tolist()
    ind.assert_close(fits[["estimate", "se", "estimate_lower", "estimate_upper"]],
                     report[["estimate", "se", "estimate_lower", "estimate_upper"]],
                     "fit command against the report", atol=1e-12)


def test_own_trial_level_files(lau_ratings_report, raw, data, tmp_path):
    """The no-context condition as a user's own files (``--sentences``, ``--ratings``,
    ``--scale``): ``evaluate`` norms the ratings by their mean (no participant ids) and
    prints r_sentence and the ceiling of these ratings."""
    none = raw[raw["condition"] == "none"]
    sentences, ratings, scores = (tmp_path / f"{n}.csv" for n in ("s", "r", "scores"))
    pd.DataFrame({"sentence_id": none["id"], "text": none["id"]}).to_csv(sentences, index=False)
    long = none.explode("ratings")
    pd.DataFrame({"sentence_id": long["id"], "response": long["ratings"]}).to_csv(
        ratings, index=False)
    inside = (raw["condition"] == "none").to_numpy()
    pd.concat([pd.DataFrame({"sentence_id": none["id"], "model": name, "score": m.x[inside]})
               for name, m in data.models.items()]).to_csv(scores, index=False)
    out = tmp_path / "evaluation.csv"
    cli("evaluate", "--sentences", str(sentences), "--ratings", str(ratings), "--scale",
        "likert:1-4", "--scores", str(scores), "--n-boot", "0", "--out", str(out))
    got = pd.read_csv(out).set_index("model")
    human = data.human[inside]
    for name, m in data.models.items():
        ind.assert_close(got.loc[name, "r_sentence"], sps.pearsonr(human, m.x[inside])[0],
                         f"own files: r_sentence of {name}")
    items = rat.items_of(pd.DataFrame({"sentence_id": long["id"],
                                       "response": long["ratings"].astype(float)}))
    c = got["r_ceiling"].iloc[0]
    rat.assert_mc(c**2 / (2 - c**2), rat.split_rs(rat.halves(
        items, "split_half", rat.OUR_SPLITS, np.random.default_rng(OUR_SEED))), rat.N_SPLITS,
        "own files: r_ceiling")
