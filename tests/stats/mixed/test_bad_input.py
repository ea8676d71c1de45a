"""Bad input to stats.lmer / stats.glmer: one clear error, or a warning that names the
problem, for each case of issue 12 (on lme4's sleepstudy and cbpp data)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from tests.lme4_data import lme4_data


@pytest.fixture(scope="module")
def sleep() -> pd.DataFrame:
    return lme4_data("sleepstudy")


@pytest.fixture(scope="module")
def cbpp() -> pd.DataFrame:
    return lme4_data("cbpp")


def test_missing_column_is_named(sleep):
    with pytest.raises(KeyError, match="unknown column 'Dayz'"):
        stats.lmer("Reaction ~ Dayz + (1 | Subject)", sleep)


def test_binomial_response_must_be_binary(sleep, cbpp):
    with pytest.raises(ValueError, match="must be 0/1.*cbind"):
        stats.glmer("incidence ~ period + (1 | herd)", cbpp)
    with pytest.raises(ValueError, match="not numeric"):
        stats.glmer("Subject ~ Days + (1 | Subject)", sleep.assign(Subject=sleep.Subject.astype(str)))


def test_cbind_counts_must_be_non_negative(cbpp):
    bad = cbpp.assign(failures=cbpp["failures"] - 13)
    with pytest.raises(ValueError, match="failures must be non-negative whole numbers"):
        stats.glmer("cbind(incidence, failures) ~ period + (1 | herd)", bad)


def test_perfect_separation_warns(sleep):
    df = sleep.assign(slow=(sleep["Days"] >= 5).astype(int))
    with pytest.warns(UserWarning, match="separates the 0/1 responses.*perfectly"):
        stats.glmer("slow ~ Days + (1 | Subject)", df)


def test_infinite_values_are_refused(sleep):
    df = sleep.copy()
    df.loc[3, "Reaction"] = np.inf
    with pytest.raises(ValueError, match=r"'Reaction' has 1 infinite value\(s\) \(rows \[3\]"):
        stats.lmer("Reaction ~ Days + (1 | Subject)", df)


@pytest.mark.parametrize("response", ["label", "flag"])
def test_character_or_boolean_response_in_lmer(sleep, response):
    df = sleep.assign(label=sleep["Subject"].astype(str) + "x", flag=sleep["Days"] > 4)
    with pytest.raises(ValueError, match=f"response '{response}' is .*not numeric.*glmer"):
        stats.lmer(f"{response} ~ Days + (1 | Subject)", df)


def test_reml_must_be_boolean(sleep):
    with pytest.raises(TypeError, match="REML='no'"):
        stats.lmer("Reaction ~ Days + (1 | Subject)", sleep, REML="no")


def test_fixed_factor_with_one_level(sleep):
    with pytest.raises(ValueError, match="fixed-effect factor 'lab' has one level"):
        stats.lmer("Reaction ~ Days + lab + (1 | Subject)", sleep.assign(lab="A"))


def test_as_many_levels_or_effects_as_rows(sleep):
    df = sleep.assign(row=np.arange(len(sleep)).astype(str))
    with pytest.raises(ValueError, match=r"\(1 \| row\) has 180 level\(s\) .* for 180 rows"):
        stats.lmer("Reaction ~ Days + (1 | row)", df)
    few = sleep.groupby("Subject").head(2)  # 36 rows, 18 subjects x 2 coefficients
    with pytest.raises(ValueError, match="unidentifiable"):
        stats.lmer("Reaction ~ Days + (Days | Subject)", few)


def test_same_term_twice_and_factor_slope(sleep):
    with pytest.raises(ValueError, match=r"\(1 \| Subject\) appears twice"):
        stats.lmer("Reaction ~ Days + (1 | Subject) + (1 | Subject)", sleep)
    df = sleep.assign(phase="early")  # a factor slope is fitted as lme4 does; one level is not
    with pytest.raises(ValueError, match="random slope factor 'phase' .* has one level"):
        stats.lmer("Reaction ~ Days + (phase | Subject)", df)


@pytest.mark.parametrize("formula, message", [
    ("Reaction ~ Days + ( | Subject)", "empty on one side"),
    ("Reaction ~ Days + (1 | Subject) +", "dangling '\\+'"),
    ("Reaction ~ Days * + (1 | Subject)", "fixed-effects part"),
])
def test_malformed_formulas(sleep, formula, message):
    with pytest.raises(ValueError, match=message):
        stats.lmer(formula, sleep)


def test_cbind_in_lmer_points_to_glmer(cbpp):
    with pytest.raises(ValueError, match=r"binomial count: fit it with stats.glmer"):
        stats.lmer("cbind(incidence, failures) ~ period + (1 | herd)", cbpp)


def test_binary_response_in_lmer_warns(sleep):
    df = sleep.assign(slow=(sleep["Reaction"] > 300).astype(int))
    with pytest.warns(UserWarning, match="linear probability model.*glmer"):
        stats.lmer("slow ~ Days + (1 | Subject)", df)


def test_glmer_family_and_nagq(cbpp):
    with pytest.raises(ValueError, match="family='gaussian'"):
        stats.glmer("cbind(incidence, failures) ~ period + (1 | herd)", cbpp, family="gaussian")
    with pytest.raises(ValueError, match="nAGQ=4"):
        stats.glmer("cbind(incidence, failures) ~ period + (1 | herd)", cbpp, nAGQ=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="single scalar random effect"):
            stats.glmer("cbind(incidence, failures) ~ size + (size | herd)", cbpp, nAGQ=5)
