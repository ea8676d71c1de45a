"""A response with nothing to estimate is refused before any fit, naming the response, why and
what to do (issue 43, item 11). Before: glmer on an all-0 or all-1 response died inside numpy
("zero-size array to reduction operation minimum"), glmer on cbind() counts of no success
gave an intercept of -51 without a word, poisson on all-0 counts "failed to converge" at
-35, Gamma on a constant NaN estimates, lmer on a constant response NaN and "failed to
converge"; clm and clmm on one category said only that they need two.

Every degenerate response is a real subset, as a filter leaves one: lme4's cbpp herds with no
new case (incidence 0) or with some, MegaAcceptability's ratings of 7 (the subset of
test_ordinal.py)."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed import clm, clmm
from tests.lme4_data import lme4_data
from tests.stats.mixed.test_ordinal import mega_frame


def cbpp(cases: bool) -> pd.DataFrame:
    """cbpp's herd-periods with (``cases``: 34) or without (22) new cases; ``any`` =
    incidence > 0."""
    d = lme4_data("cbpp")
    out = d[(d["incidence"] > 0) == cases].assign(any=lambda f: f["incidence"] > 0)
    assert len(out) == (34 if cases else 22) and out["herd"].nunique() > 1
    return out


@pytest.fixture(scope="module")
def sevens() -> pd.DataFrame:
    """MegaAcceptability's ratings of 7 (363 of the 3,000)."""
    s = mega_frame()
    out = s[s["response"] == 7].assign(response=lambda f: f["response"].astype(float))
    assert len(out) == 363
    return out


BINOMIAL = [
    ("any ~ period + (1 | herd)", False, r"response 'any' is 0 \(failure\) in all 22 rows used"),
    ("any ~ period + (1 | herd)", True, r"response 'any' is 1 \(success\) in all 34 rows used"),
    ("cbind(incidence, size - incidence) ~ period + (1 | herd)", False,
     r"response 'cbind\(incidence, size - incidence\)' is 0 \(failure\) in all 22 rows"),
]


@pytest.mark.parametrize(("formula", "cases", "message"), BINOMIAL)
def test_glmer_refuses_a_binomial_response_of_one_outcome(formula, cases, message):
    with pytest.raises(ValueError, match=message + r".*nothing to estimate.*needs rows of both"):
        stats.glmer(formula, cbpp(cases), "binomial")


def test_glmer_refuses_counts_that_are_all_zero():
    with pytest.raises(ValueError, match=r"glmer \(poisson\): response 'incidence' is 0 in all 22 "
                                         r"rows used.*nothing to estimate.*kept only zeros"):
        stats.glmer("incidence ~ period + (1 | herd)", cbpp(False), "poisson")


def test_glmer_takes_a_constant_nonzero_count():
    """Counts all equal but not 0 have a mean to estimate (log 1 here): no refusal."""
    d = cbpp(True)
    d = d[d["incidence"] == 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the herd variance is 0: a singular fit
        m = stats.glmer("incidence ~ 1 + (1 | herd)", d, "poisson")
    assert m.fixef["(Intercept)"] == pytest.approx(0.0, abs=1e-4)


def test_lmer_refuses_a_constant_response(sevens):
    with pytest.raises(ValueError, match=r"lmer: response 'response' is 7 in all 363 rows used: a "
                                         r"constant has no variation.*filter or join"):
        stats.lmer("response ~ passive + (1 | participant)", sevens)


def test_glmer_refuses_a_constant_response_of_a_family_with_a_scale(sevens):
    with pytest.raises(ValueError, match=r"glmer \(Gamma\): response 'response' is 7 in all 363"):
        stats.glmer("response ~ passive + (1 | participant)", sevens, "Gamma")


def test_lmer_refuses_a_response_its_fixed_effects_fit_exactly():
    d = lme4_data("sleepstudy").assign(hours=lambda f: 24.0 * f["Days"])
    with pytest.raises(ValueError, match=r"response 'hours' is an exact linear function of the "
                                         r"fixed effects \['\(Intercept\)', 'Days'\]"):
        stats.lmer("hours ~ Days + (1 | Subject)", d)


@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize("fit", ["clm", "clmm"])
def test_clm_and_clmm_refuse_one_category(sevens, fit, categorical):
    """Whole numbers, or an ordered Categorical of 1..7 with only 7 observed (the one
    category is named before the six empty ones)."""
    d = sevens.assign(rating=sevens["rating"]) if categorical else sevens.assign(rating=sevens["response"])
    formula = "rating ~ passive" + (" + (1 | participant)" if fit == "clmm" else "")
    with pytest.raises(ValueError, match=r"response 'rating' is '7' in all 363 rows used: with one "
                                         r"category there is no variation.*at least two categories"):
        (clm if fit == "clm" else clmm)(formula, d)


def test_fit_command_refuses_a_constant_response(li_adger, li_adger_scores, tmp_path, capsys):
    """``acceptability fit`` on LI-Adger's acceptable sentences (label 1, 2,089 of them) with
    ``label`` as the response: exit 2 and the reason, no table of NaN (before: rc 0 and
    NaN estimates for each of the 8 models)."""
    from acceptability.reports import cli

    good = li_adger.sentences[li_adger.sentences["label"] == 1]
    s, sc = tmp_path / "s.csv", tmp_path / "sc.csv"
    good.to_csv(s, index=False)
    li_adger_scores[li_adger_scores["sentence_id"].isin(good["sentence_id"])].to_csv(sc, index=False)
    out = tmp_path / "fits.csv"
    code = cli.main(["fit", "--sentences", str(s), "--scores", str(sc), "--formula",
                     "label ~ score + (1 | phenomenon)", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert "Traceback" not in err and "unexpected error" not in err
    assert f"lmer: response 'label' is 1 in all {len(good)} rows used: a constant has no variation" in err
    assert "filter or join that left one value" in err
