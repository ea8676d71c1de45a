"""bootMer(m, fun, nsim) against lme4 1.1-31's ``bootMer`` and boot 1.3-28's ``boot.ci``.

R's draws come from R's generator, so the two bootstraps are compared as distributions: on
sleepstudy's ``Reaction ~ Days + (Days | Subject)``, the mean and SD of each statistic of
250 refits (ours) and 1000 (lme4's) agree within 4.5 standard errors of their difference
(each SE from our sample: sd sqrt(1/250 + 1/1000) for a mean; for an SD, from the fourth
moment), with new random effects (``use.u = FALSE``) and given the modes (``use.u = TRUE``).
boot.ci's normal, basic and percentile intervals are compared exactly (1e-10) on the same
t: the 200 values of an lme4 bootMer that R wrote. R's numbers: tests/fixtures/
simulation_bootmer.csv and simulation_bootci.csv, written by benchmarks/simulation_reference.R.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed.fitted.bootmer import BootMer, bootMer
from acceptability.stats.mixed.fitted.simulation import Simulator
from tests.lme4_data import lme4_data

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
NSIM = 250


@pytest.fixture(scope="module")
def sleep():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.lmer("Reaction ~ Days + (Days | Subject)", lme4_data("sleepstudy"))


def statistic(fit) -> dict[str, float]:
    """R's fun: c(fixef(m), sigma = sigma(m), sd_int = the Subject intercept's SD)."""
    return {**fit.fixef.to_dict(), "sigma": fit.sigma, "sd_int": float(fit.VarCorr["sdcor"].iloc[0])}


@pytest.mark.parametrize("use_u", [False, True])
def test_bootstrap_distribution_matches_lme4(sleep, use_u):
    r = pd.read_csv(FIXTURES / "simulation_bootmer.csv")
    r = r[r["what"] == ("use_u" if use_u else "new_u")].set_index("stat")["value"]
    b = bootMer(sleep, statistic, nsim=NSIM, seed=11, use_u=use_u)
    n_r = r["nsim"]
    for name in b.t.columns:
        x = b.t[name].to_numpy()
        assert b.t0[name] == pytest.approx(r[f"t0|{name}"], rel=1e-6), name
        sd = x.std(ddof=1)
        se_mean = sd * np.sqrt(1 / NSIM + 1 / n_r)
        m4 = np.mean((x - x.mean()) ** 4)
        se_sd = np.sqrt((m4 - sd**4) / NSIM) / (2 * sd) * np.sqrt(1 + NSIM / n_r)
        assert abs(x.mean() - r[f"mean|{name}"]) < 4.5 * se_mean, (name, x.mean(), r[f"mean|{name}"])
        assert abs(sd - r[f"sd|{name}"]) < 4.5 * se_sd, (name, sd, r[f"sd|{name}"])


def test_fun_is_called_on_each_refitted_model(sleep):
    """Row i of t is fun of the model refitted to the i-th response drawn from the seed."""
    seen = []

    def fun(fit):
        seen.append(fit)
        return fit.fixef

    b = bootMer(sleep, fun, nsim=3, seed=5, n_jobs=1)
    assert seen[0] is sleep and len(seen) == 4  # t0 = fun(m), then the three refits
    rng = np.random.default_rng(5)
    sim = Simulator(sleep)
    for i, fit in enumerate(seen[1:]):
        y = sim.draw(rng)
        np.testing.assert_allclose(fit.design.y, y)
        np.testing.assert_allclose(b.t.iloc[i].to_numpy(), sleep.refit(y).fixef.to_numpy(), rtol=1e-7)
    assert list(b.t.columns) == ["(Intercept)", "Days"] and b.nsim == 3
    plain = bootMer(sleep, lambda fit: fit.sigma, nsim=2, seed=5, n_jobs=1)
    assert list(plain.t.columns) == ["t1"] and plain.t0["t1"] == sleep.sigma


def test_boot_ci_matches_boot(sleep):
    r = pd.read_csv(FIXTURES / "simulation_bootci.csv")
    t0 = r.loc[r["what"] == "t0", "lower"].iloc[0]
    t = r.loc[r["what"] == "t", "lower"].to_numpy(float)
    b = BootMer(pd.Series({"Days": t0}), pd.DataFrame({"Days": t}))
    for level in (0.95, 0.9):
        ours = b.ci("Days", level=level, type=("perc", "norm", "basic"))
        want = r[r["level"] == level].set_index("what")
        for ours_name, r_name in (("percent", "perc"), ("normal", "normal"), ("basic", "basic")):
            np.testing.assert_allclose(ours.loc[ours_name].to_numpy(float),
                                       want.loc[r_name, ["lower", "upper"]].to_numpy(float), rtol=1e-10)
    with pytest.raises(ValueError, match="bca"):
        b.ci(type="bca")
