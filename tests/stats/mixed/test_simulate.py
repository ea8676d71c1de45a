"""simulate() (lme4's ``simulate.merMod``) against what lme4's fit says its draws target.

R's draws come from R's generator, which numpy does not reproduce, so the draws' moments are
checked instead, each within 5 Monte Carlo standard errors per row, from 4000 draws (the
seeds are fixed; the largest of the ~4,000 row z scores measured is 4.3, a variance of
grouseticks' counts, whose SE comes from a heavy-tailed fourth moment; means 3.6):

- given the random effects' modes (``re_form=None``, lme4's ``use.u = TRUE``): each row's
  mean is lme4's ``fitted(m)`` (times the trials of a cbind() response) and its variance the
  family's: sigma^2 (lmer), n mu (1 - mu) (binomial), mu (poisson);
- new random effects (``re_form="NA"``, lme4's default): an lmer row's mean is lme4's
  ``predict(m, re.form = NA)`` and its variance sigma^2 (Z Lambda Lambda' Z' + I)_ii; a
  glmer row's mean and variance (no closed form) equal those of 20000 draws of lme4's own
  ``simulate(m, re.form = NA)``, within the two samples' combined SE.

R's numbers: tests/fixtures/simulation_moments.csv, written by benchmarks/simulation_reference.R.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed.fitted.simulation import simulate
from tests.lme4_data import lme4_data

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "simulation_moments.csv"
NSIM, Z = 4000, 5.0
FORMULAS = {
    "sleepstudy": ("Reaction ~ Days + (Days | Subject)", None),
    "penicillin": ("diameter ~ 1 + (1 | plate) + (1 | sample)", None),
    "cbpp": ("cbind(incidence, size - incidence) ~ period + (1 | herd)", "binomial"),
    "grouseticks": ("TICKS ~ YEAR + cHEIGHT + (1 | BROOD) + (1 | LOCATION)", "poisson"),
}


def _fit(name: str):
    formula, family = FORMULAS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if family is None:
            return stats.lmer(formula, lme4_data(name))
        return stats.glmer(formula, lme4_data(name), family=family)


@pytest.fixture(scope="module")
def fits():
    return {name: _fit(name) for name in FORMULAS}


def r_moment(model: str, what: str) -> np.ndarray:
    r = pd.read_csv(FIXTURE)
    return r[(r["model"] == model) & (r["what"] == what)].sort_values("row")["value"].to_numpy(float)


def moments(draws: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each row's mean and variance over the draws, and their Monte Carlo SEs (the variance's
    from the sample's fourth central moment)."""
    x = draws.to_numpy(float)
    n = x.shape[1]
    mean, var = x.mean(1), x.var(1, ddof=1)
    m4 = ((x - mean[:, None]) ** 4).mean(1)
    return mean, var, np.sqrt(var / n), np.sqrt(np.maximum(m4 - var**2, 0) / n)


def assert_within(got, want, se, what: str) -> None:
    z = np.abs(got - want) / se
    assert z.max() < Z, f"{what}: row {z.argmax()} is {z.max():.1f} SE off ({got[z.argmax()]} vs {want[z.argmax()]})"


@pytest.mark.parametrize("name", list(FORMULAS))
def test_draws_given_the_modes_have_the_conditional_moments(fits, name):
    draws = simulate(fits[name], NSIM, seed=1, re_form=None)
    mean, var, se_mean, se_var = moments(draws)
    assert_within(mean, r_moment(name, "cond_mean"), se_mean, f"{name} conditional mean")
    assert_within(var, r_moment(name, "cond_var"), se_var, f"{name} conditional variance")


@pytest.mark.parametrize("name", ["sleepstudy", "penicillin"])
def test_lmer_draws_with_new_effects_have_lme4s_marginal_moments(fits, name):
    mean, var, se_mean, se_var = moments(simulate(fits[name], NSIM, seed=2))
    assert_within(mean, r_moment(name, "marg_mean"), se_mean, f"{name} marginal mean")
    assert_within(var, r_moment(name, "marg_var"), se_var, f"{name} marginal variance")


@pytest.mark.parametrize("name", ["cbpp", "grouseticks"])
def test_glmer_draws_with_new_effects_match_lme4s_draws(fits, name):
    mean, var, se_mean, se_var = moments(simulate(fits[name], NSIM, seed=3))
    n_r = r_moment(name, "sim_n")[0]
    r_mean, r_var = r_moment(name, "sim_mean"), r_moment(name, "sim_var")
    # R's SEs: its sample's spread, estimated by ours (same distribution)
    assert_within(mean, r_mean, np.sqrt(se_mean**2 + var / n_r), f"{name} mean")
    assert_within(var, r_var, np.sqrt(se_var**2 * (1 + NSIM / n_r)), f"{name} variance")


def test_a_formula_keeps_its_terms_and_draws_the_others(fits):
    """Penicillin, re_form='~(1 | plate)': mean = fixed part + plate's mode, variance =
    sigma^2 + the sample SD^2 (computed here from VarCorr)."""
    m = fits["penicillin"]
    mean, var, se_mean, se_var = moments(simulate(m, NSIM, seed=4, re_form="~(1 | plate)"))
    vc = m.VarCorr.set_index("grp")["vcov"]
    expected_mean = m.predict(re_form="NA") + m.frame["plate"].map(m.ranef["plate"]["(Intercept)"])
    assert_within(mean, expected_mean.to_numpy(), se_mean, "mean")
    assert_within(var, np.full(len(var), vc["Residual"] + vc["sample"]), se_var, "variance")


def test_newdata_new_levels_and_output_form(fits):
    m = fits["sleepstudy"]
    new = pd.DataFrame({"Days": [0.0, 5.0], "Subject": ["308", "new"]}, index=[10, 11])
    vc = m.VarCorr
    sd0, sd1, cor = vc["sdcor"].iloc[:3]
    mean, var, se_mean, se_var = moments(simulate(m, NSIM, seed=5, newdata=new, allow_new_levels=True))
    marginal = m.sigma**2 + sd0**2 + 25 * sd1**2 + 2 * 5 * cor * sd0 * sd1
    assert_within(mean, m.predict(new, re_form="NA").to_numpy(), se_mean, "mean")
    assert_within(var, np.array([m.sigma**2 + sd0**2, marginal]), se_var, "variance")
    kept = simulate(m, NSIM, seed=5, re_form=None, newdata=new, allow_new_levels=True)
    mean, var, se_mean, se_var = moments(kept)  # a new level's effect is 0 given the modes
    assert_within(mean, m.predict(new, allow_new_levels=True).to_numpy(), se_mean, "kept mean")
    assert_within(var, np.full(2, m.sigma**2), se_var, "kept variance")
    assert list(kept.columns[:2]) == ["sim_1", "sim_2"] and list(kept.index) == [10, 11]
    assert simulate(m, 3, seed=7).equals(simulate(m, 3, seed=7))
    with pytest.raises(ValueError, match="new level"):
        simulate(m, 1, newdata=new)
    with pytest.raises(ValueError, match="part of a random term"):
        simulate(m, 1, re_form="~(1 | Subject)")
    cbpp = simulate(fits["cbpp"], 5, seed=0)
    size = fits["cbpp"].frame["size"].to_numpy()[:, None]
    assert (cbpp.to_numpy() == np.round(cbpp.to_numpy())).all() and (cbpp.to_numpy() <= size).all()
