"""Trial-level judgment models (stats.rating_model) on real ratings against lme4 and ordinal.

Ratings: Lau et al. (2020)'s 4,107 ratings without context (no participant ids) and
MegaAcceptability v1 (729 participants, 50,000 sentences). Model scores: the SLOR of a
Kneser-Ney trigram model of AO-CHILDES (``scoring.train_ngram``), real scores built without
the hub. Every R constant comes from benchmarks/rating_models.R
(tests/fixtures/rating_models.csv), fitted to the frames benchmarks/rating_models_frames.py
wrote (tests/fixtures/rating_models/); the tests rebuild those frames and check them equal
first, so both sides fit the same rows. Tolerances as in test_lmer_lme4.py (lme4: 1e-4
absolute, variances 1e-4 relative) and test_ordinal.py (ordinal's clmm stops about 1e-5
from the optimum: 1e-4). Missing reference data fail in CI (tests/conftest.py).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring, stats
from acceptability.stats.mixed import SingularFitWarning
from acceptability.stats.ratings.models import ordinal_ratings
from tests.conftest import LME4_TOL, VARIANCE_RTOL, need_data

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FRAMES = FIXTURES / "rating_models"
REFERENCE = FIXTURES / "rating_models.csv"
COLUMNS = ["participant", "item", "response", "response_z", "lm_z"]
MEGA_VERBS = 40  # the subset R fits: the verbs first by name, all their frames
# R's formula on MegaAcceptability: the crossed intercepts of the package's former default,
# whose participant variance on within-participant z-scores is 0 (docs/ratings.md)
CROSSED = "response_z ~ lm_z + (1 | participant) + (1 | item)"
CLMM_TOL = 1e-4


def childes_trigram():
    """A Kneser-Ney trigram model of AO-CHILDES's adult utterances (the shared data's 22
    corpora), tokenised as the corpus is."""
    corpus = data.load_childes(need_data("aochildes", "original_transcripts/Nelson.csv"))
    words, _ = data.childes_corpus_text(corpus)
    return scoring.train_ngram(words, order=3, tokenize=data.childes_tokenize,
                               name="childes-3gram")


def slor_scores(ds, lm) -> pd.DataFrame:
    """The trigram's SLOR of every sentence of ``ds`` (Lau et al. 2017)."""
    return scoring.score(ds, lm, "ngram", normalise="slor", unigram=lm.unigram(), cache=False)


def mega_subset(ds) -> pd.DataFrame:
    """MegaAcceptability's ratings of the `MEGA_VERBS` verbs first by name."""
    verbs = sorted(ds.sentences["verb"].unique())[:MEGA_VERBS]
    ids = ds.sentences.loc[ds.sentences["verb"].isin(verbs), "sentence_id"]
    return ds.ratings[ds.ratings["sentence_id"].isin(ids)].reset_index(drop=True)


def fixture_datasets() -> dict[str, tuple]:
    """name -> (dataset, scores, ratings or None) of each frame R fits."""
    lm = childes_trigram()
    lau = data.load_lau2020(need_data("lau2020", "context-none-ratings.csv"), context="none")
    mega = data.load_megaacceptability(need_data("megaacceptability",
                                                 "mega-acceptability-v1.zip"))
    return {"lau2020_none": (lau, slor_scores(lau, lm), None),
            "mega_40verbs": (mega, slor_scores(mega, lm), mega_subset(mega))}


@pytest.fixture(scope="module")
def datasets():
    return fixture_datasets()


def reference(model: str, quantity: str) -> pd.Series:
    """R's numbers of one fit (benchmarks/rating_models.R), by name."""
    table = pd.read_csv(REFERENCE, keep_default_na=False)
    rows = table[(table["model"] == model) & (table["quantity"] == quantity)]
    assert len(rows), f"no {model} {quantity} in {REFERENCE}: rerun benchmarks/rating_models.R"
    return pd.Series(rows["value"].astype(float).to_numpy(), index=rows["name"].to_numpy())


def fit(datasets, name: str, engine: str, formula: str | None = None):
    ds, scores, ratings = datasets[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        return stats.rating_model(ds, scores, engine=engine, ratings=ratings, formula=formula)


@pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
@pytest.mark.parametrize("name", ["lau2020_none", "mega_40verbs"])
def test_frames_are_the_ones_r_fitted(datasets, name):
    ds, scores, ratings = datasets[name]
    ours = stats.rating_model_frame(ds, scores, ratings=ratings)
    theirs = pd.read_csv(FRAMES / f"{name}.csv.gz", dtype={"participant": str, "item": str})
    assert len(ours) == len(theirs)
    for col in ("participant", "item"):
        assert ours[col].fillna("").astype(str).tolist() == theirs[col].fillna("").tolist(), col
    for col in ("response", "response_z", "lm_z"):
        np.testing.assert_allclose(ours[col], theirs[col], rtol=1e-15, atol=0, err_msg=col)


def test_lm_z_is_the_z_scored_score_and_response_z_the_normed_rating(datasets):
    """Recomputed here with numpy: lm_z = (score - mean) / SD (ddof 0) over the dataset's
    sentences; Lau's response_z over all ratings (ddof 1, R's scale())."""
    ds, scores, _ = datasets["lau2020_none"]
    frame = stats.rating_model_frame(ds, scores)
    s = scores.set_index("sentence_id")["score"]
    np.testing.assert_allclose(frame["lm_z"], ((s - s.mean()) / s.std(ddof=0))[frame["item"]],
                               rtol=1e-12)
    r = ds.ratings["response"].to_numpy()
    np.testing.assert_allclose(frame["response_z"], (r - r.mean()) / r.std(ddof=1), rtol=1e-12)
    assert frame["participant"].isna().all() and len(frame) == len(ds.ratings) == 4107
    assert frame["response"].tolist() == ds.ratings["response"].tolist()
    assert {"hit", "translated", "text"} <= set(frame.columns)  # any column may enter a formula
    assert frame.attrs["scale"] == "likert:1-4" and "over all ratings" in frame.attrs["norming"]
    assert frame.attrs["exclusions"].empty


def check_lmer(m, model: str) -> None:
    """fixef, SEs, Satterthwaite df (numerical derivatives on both sides: 1e-6 relative),
    variance components, REML logLik and sizes against lme4 (bobyqa) / lmerTest; and never
    worse than lme4's default optimiser, which stops early on MegaAcceptability."""
    assert m.nobs == reference(model, "nobs").item()
    assert m.logLik == pytest.approx(reference(model, "logLik").item(), abs=LME4_TOL)
    assert -2 * m.logLik <= reference(model, "REMLcrit_default").item() + LME4_TOL
    assert m.ngrps.to_dict() == reference(model, "ngrps").astype(int).to_dict()
    for what, ours in (("fixef", m.fixef), ("se", m.se)):
        theirs = reference(model, what)
        np.testing.assert_allclose(ours[theirs.index], theirs, rtol=0, atol=LME4_TOL,
                                   err_msg=what)
    theirs = reference(model, "df")
    np.testing.assert_allclose(m.summary().coefficients["df"][theirs.index], theirs, rtol=1e-6)
    vc = m.VarCorr.set_index("grp")["vcov"]
    theirs = reference(model, "vcov")
    np.testing.assert_allclose(vc[theirs.index], theirs, rtol=VARIANCE_RTOL, atol=1e-10)


def check_clmm(m, model: str) -> None:
    """Coefficients (thresholds, lm_z), their SEs, the random-intercept SDs and logLik
    against ordinal::clmm."""
    assert m.nobs == reference(model, "nobs").item()
    assert m.logLik == pytest.approx(reference(model, "logLik").item(), abs=2 * CLMM_TOL)
    assert m.ngrps.to_dict() == reference(model, "ngrps").astype(int).to_dict()
    se = pd.Series(np.sqrt(np.diag(m.vcov)), index=m.vcov.index)
    for what, ours in (("coef", m.coef), ("se", se), ("ST", m.ST)):
        theirs = reference(model, what)
        np.testing.assert_allclose(ours[theirs.index], theirs, rtol=0, atol=CLMM_TOL,
                                   err_msg=what)


def test_lau2020_without_participant_ids_matches_lme4(datasets):
    m = fit(datasets, "lau2020_none", "lmer")
    assert m.formula.text == "response_z ~ lm_z + (1 | item)"
    check_lmer(m, "lau2020_none_lmer")
    assert "ratings: response_z: each rating z-scored over all ratings" in m.summary()


def test_lau2020_clmm_matches_ordinal(datasets):
    m = fit(datasets, "lau2020_none", "clmm")
    assert m.formula.text == "response ~ lm_z + (1 | item)" and m.levels == ("1", "2", "3", "4")
    check_clmm(m, "lau2020_none_clmm")  # ordinal with gradTol 1e-8: its default stops early
    assert m.logLik > reference("lau2020_none_clmm", "logLik_default").item() + 1e-4
    assert "they name no participant" in str(m.summary())


@pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
def test_megaacceptability_subset_matches_lme4(datasets):
    m = fit(datasets, "mega_40verbs", "lmer", CROSSED)
    assert m.formula.text == CROSSED and m.singular
    check_lmer(m, "mega_40verbs_lmer")
    assert m.VarCorr.set_index("grp").loc["participant", "vcov"] == 0  # z within participant
    same_without_participants(fit(datasets, "mega_40verbs", "lmer"), "mega_40verbs_lmer")


def same_without_participants(m, model: str) -> None:
    """The default, without (1 | participant), is lme4's crossed fit: the same REML logLik,
    fixed effects and SEs, since the participant variance there is 0."""
    assert m.formula.text == stats.RATING_FORMULA == "response_z ~ lm_z + (1 | item)"
    assert not m.singular
    assert m.logLik == pytest.approx(reference(model, "logLik").item(), abs=LME4_TOL)
    for what, ours in (("fixef", m.fixef), ("se", m.se)):
        theirs = reference(model, what)
        np.testing.assert_allclose(ours[theirs.index], theirs, rtol=0, atol=LME4_TOL,
                                   err_msg=what)
    assert "each rating z-scored within its participant" in m.summary()


@pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
def test_megaacceptability_subset_clmm_matches_ordinal(datasets):
    m = fit(datasets, "mega_40verbs", "clmm")
    assert m.formula.text == stats.RATING_CLMM_FORMULA
    assert m.levels == tuple(str(k) for k in range(1, 8))
    check_clmm(m, "mega_40verbs_clmm")


@pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
def test_all_of_megaacceptability_matches_lme4(datasets):
    """All 249,990 ratings, 50,000 items crossed with 729 participants (fit time:
    benchmarks/bench_rating_models.py). R fitted the same frame (its fingerprint checked
    here) with optimizer bobyqa: lme4's default stops early on it, at a REML criterion
    2,677 above the optimum that both reach."""
    ds, scores, _ = datasets["mega_40verbs"]
    frame = stats.rating_model_frame(ds, scores)
    sums = reference("mega_full_lmer", "sum")
    assert len(frame) == sums["rows"] == len(ds.ratings) and frame.attrs["exclusions"].empty
    for col in ("response", "response_z", "lm_z"):
        assert frame[col].sum() == pytest.approx(sums[col], abs=1e-8), col
    assert (frame["response_z"] * frame["lm_z"]).sum() == pytest.approx(
        sums["response_z*lm_z"], rel=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        m = stats.rating_model(ds, scores, formula=CROSSED)
    check_lmer(m, "mega_full_lmer")
    assert -2 * m.logLik < reference("mega_full_lmer", "REMLcrit_default").item() - 2600
    assert m.VarCorr.set_index("grp").loc["participant", "vcov"] == 0  # z within participant
    same_without_participants(stats.rating_model(ds, scores), "mega_full_lmer")


@pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
def test_participants_set_aside_in_a_subset_are_counted(datasets):
    """Normed over the subset alone, participants with one rating in it (or all ratings
    equal) have no z: counted, and the counts add up to the subset's ratings."""
    ds, scores, ratings = datasets["mega_40verbs"]
    frame = stats.rating_model_frame(ds, scores, ratings=ratings)
    counts = ratings.groupby("participant")["response"].agg(["size", "std"])
    one = counts.loc[counts["size"] == 1].index
    constant = counts.loc[(counts["size"] > 1) & (counts["std"] == 0)].index
    ex = frame.attrs["exclusions"].set_index("reason")["n"]
    expected = {"participant with one rating (z undefined)": len(one),
                "participant with constant ratings (z undefined)":
                    int(ratings["participant"].isin(constant).sum())}
    assert ex.to_dict() == {k: v for k, v in expected.items() if v}
    assert len(frame) + ex.sum() == len(ratings)
    assert not frame["participant"].isin(one.union(constant)).any()


def test_sentences_without_a_score_are_counted_and_noted(datasets):
    """Scores of the 50 original English sentences missing (a real score table, cut): their
    ratings are set aside, counted with their ids, and the fit says so."""
    ds, scores, _ = datasets["lau2020_none"]
    english = ds.sentences.loc[ds.sentences["translated"] == 0, "sentence_id"]
    cut = scores[~scores["sentence_id"].isin(english)]
    frame = stats.rating_model_frame(ds, cut)
    lost = ds.ratings["sentence_id"].isin(english)
    row = frame.attrs["exclusions"].iloc[0]
    assert len(frame.attrs["exclusions"]) == 1 and row["n"] == lost.sum() == len(ds.ratings) - len(frame)
    assert set(row["ids"]) == set(english) and len(english) == 50
    assert "no score for 50 sentences" in row["reason"]
    m = stats.rating_model(ds, cut)
    assert m.nobs == len(frame) and f"set aside: {lost.sum()} ratings" in m.summary()


def test_one_model_at_a_time(datasets):
    ds, scores, _ = datasets["lau2020_none"]
    both = pd.concat([scores, scores.assign(model="negated", score=-scores["score"])])
    with pytest.raises(ValueError, match="pass model="):
        stats.rating_model_frame(ds, both)
    one = stats.rating_model_frame(ds, both, model="negated")
    np.testing.assert_allclose(one["lm_z"], -stats.rating_model_frame(ds, scores)["lm_z"])
    assert set(one["model"]) == {"negated"}


def test_bad_requests_say_what_to_do(datasets):
    ds, scores, _ = datasets["lau2020_none"]
    with pytest.raises(ValueError, match="engine='brm'"):
        stats.rating_model(ds, scores, engine="brm")
    with pytest.raises(ValueError, match="name no participant"):
        stats.rating_model(ds, scores, formula=CROSSED)
    frame = stats.rating_model_frame(ds, scores)
    frame.attrs["scale"] = "me"
    with pytest.raises(ValueError, match="engine='lmer'"):
        ordinal_ratings(frame)
    no_ratings = data.from_frames(ds.sentences)
    with pytest.raises(ValueError, match="pass ratings="):
        stats.rating_model_frame(no_ratings, scores)
