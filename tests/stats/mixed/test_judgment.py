"""Ready-made judgment models: sentence, pair and forced-choice frames and fits."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed.mer import SingularFitWarning
from acceptability.stats.ratings.judgment import (
    fc_model,
    fc_model_frame,
    pair_model,
    pair_model_frame,
    sentence_model_frame,
)
from tests.conftest import DATA_DIR, assert_matches_lme4

LI_ADGER, BLIMP = DATA_DIR / "li-adger", DATA_DIR / "blimp"
needs_li_adger = pytest.mark.needs_data("li-adger", "li-adger_min_pairs.csv")
needs_blimp = pytest.mark.needs_data("blimp", "raw_results/human_responses.csv")


@pytest.fixture(scope="module")
def li_adger():
    from acceptability import data

    return data.load_li_adger(LI_ADGER), data.load_li_adger_scores(LI_ADGER)


@needs_li_adger
def test_sentence_frame_uses_z_scores(li_adger):
    ds, scores = li_adger
    fr = sentence_model_frame(ds, scores, model="bert-large-cased_mlm")
    assert len(fr) == len(ds.sentences) == 4178
    assert abs(fr["score"].mean()) < 1e-9 and np.isclose(fr["score"].std(ddof=0), 1)
    assert fr["human"].isna().sum() == 2
    with pytest.raises(ValueError, match="pass model="):
        sentence_model_frame(ds, scores)
    with pytest.raises(KeyError, match="'gpt9'"):
        sentence_model_frame(ds, scores, model="gpt9")


@needs_li_adger
def test_pair_model_matches_lme4(li_adger):
    ds, scores = li_adger
    fr = pair_model_frame(ds, scores, model="bert-large-cased_mlm")
    assert len(fr) == 2365 and set(fr.columns) >= {"dh", "dlm", "phenomenon"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        m = pair_model(ds, scores, model="bert-large-cased_mlm")
    assert m.n_dropped == int(fr[["dh", "dlm"]].isna().any(axis=1).sum())
    assert len(m.ranef["phenomenon"]) == fr["phenomenon"].nunique()
    assert_matches_lme4(m, "pair|REML|")  # lme4 on the same frame (tests/conftest.py)


@pytest.fixture(scope="module")
def blimp_fc():
    from tests.blimp_fc import blimp_fc

    return blimp_fc(BLIMP)


@needs_blimp
def test_fc_frame_and_crossed_glmer(blimp_fc):
    ds, scores = blimp_fc
    fr = fc_model_frame(ds, scores)
    assert len(fr) == len(ds.trials) and fr["dlm"].notna().all()
    assert set(ds.trials.columns) <= set(fr.columns)  # any trial column may enter a model
    assert (fr["good_first"] == (fr["good_position"] == 1)).all()
    fit = fc_model(ds, scores)  # crossed participant, pair and paradigm intercepts (glmer)
    assert fit.n_dropped == 0 and dict(fit.ngrps) == {"pair_id": 348, "participant": 341, "paradigm": 70}
    # people choose the acceptable sentence most of the time: positive intercept (logit)
    assert fit.fixef["(Intercept)"] > 1
    assert "Family: binomial  ( logit )" in fit.summary()
    with pytest.raises(ValueError, match="engine='vb'"):
        fc_model(ds, scores, engine="vb")


@needs_blimp
def test_fc_bayesian_model_on_blimp_subset(blimp_fc):
    ds, scores = blimp_fc
    keep = sorted(ds.trials["paradigm"].unique())[:12]
    trials = ds.trials[ds.trials["paradigm"].isin(keep)]
    fit = fc_model(ds, scores, trials=trials, formula="chose_good ~ dlm + (1 | participant) + (1 | paradigm)",
                   engine="brm", draws=150, tune=150, chains=2, seed=3)
    summ = fit.summary().tables["posterior"]
    assert {"Intercept", "dlm", "1|participant_sigma", "1|paradigm_sigma"} <= set(summ.index)
    assert summ.loc["Intercept", "mean"] > 1
    assert fit.settings["family"] == "bernoulli" and fit.settings["seed"] == 3


def test_fc_frame_needs_trials():
    from acceptability import data

    s = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["A.", "B."]})
    p = pd.DataFrame({"pair_id": ["p"], "good_id": ["a"], "bad_id": ["b"]})
    ds = data.from_frames(s, p)
    scores = pd.DataFrame({"sentence_id": ["a", "b"], "model": "m", "score": [1.0, 0.0]})
    with pytest.raises(ValueError, match="no forced-choice trials"):
        fc_model_frame(ds, scores)
