"""m.profile() (lme4's ``profile.merMod``) against lme4 1.1-31 on sleepstudy's
``Reaction ~ Days + (Days | Subject)``: zeta at points of lme4's own profile grid
(``as.data.frame(profile(m))``, tests/fixtures/simulation_profile.csv, written by
benchmarks/simulation_reference.R), the other parameters where the profile put them, the
tidy frame, its figure (``xyplot(profile(m))``) and its intervals.

Four of lme4's points per parameter (those nearest zeta = -2, -1, 1, 2) keep the test
short: each of our varying-parameter zetas is a bounded quasi-Newton minimisation (~0.2 s).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import stats
from acceptability.data.atomic import write_figure
from acceptability.reports.profile_figure import profile_figure
from acceptability.stats.mixed.profile import lme4_names
from tests.lme4_data import lme4_data

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "simulation_profile.csv"


def _lmer(formula: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return stats.lmer(formula, lme4_data("sleepstudy"))


@pytest.fixture(scope="module")
def sleep():
    return _lmer("Reaction ~ Days + (Days | Subject)")


@pytest.fixture(scope="module")
def small():
    """A model whose whole profile is quick: one random intercept."""
    return _lmer("Reaction ~ Days + (1 | Subject)")


def test_lme4_names(sleep):
    assert lme4_names(sleep) == {"sd_(Intercept)|Subject": ".sig01", "cor_Days.(Intercept)|Subject": ".sig02",
                                 "sd_Days|Subject": ".sig03", "sigma": ".sigma", "(Intercept)": "(Intercept)",
                                 "Days": "Days"}


def test_zeta_at_lme4s_profile_points(sleep):
    """zeta to 1e-6 absolute (measured: 1e-11); the other parameters where the profile put
    them to 1e-4 relative (correlations, absolute)."""
    r = pd.read_csv(FIXTURE).rename(columns={"Intercept": "(Intercept)"})
    ours = {v: k for k, v in lme4_names(sleep).items()}
    prof = sleep.profile()
    for par, rows in r.groupby(".par", sort=False):
        for target in (-2, -1, 1, 2):
            row = rows.iloc[(rows[".zeta"] - target).abs().argmin()]
            z, values = prof.point(ours[par], row[".focal"])
            assert z == pytest.approx(row[".zeta"], abs=1e-6), (par, row[".focal"])
            want = row[[lme4_names(sleep)[n] for n in prof.names]].to_numpy(float)
            np.testing.assert_allclose(values, want, rtol=1e-4, atol=1e-4, err_msg=f"{par} at {row['.focal']}")


def test_frame_figure_and_intervals(small, tmp_path):
    prof = small.profile()
    frame = prof.frame
    assert list(frame.columns) == [".zeta", *small.params().index, ".par", ".focal"]
    cutoff = np.sqrt(sps.chi2.ppf(0.99, len(prof.names)))
    for j, name in enumerate(prof.names):
        rows = frame[frame[".par"] == name].sort_values(".focal")
        assert (np.diff(rows[".zeta"]) > 0).all(), name  # zeta rises through the estimate
        assert rows.loc[rows[".focal"] == prof.estimates[j], ".zeta"].tolist() == [0.0]
        assert rows[".zeta"].max() == pytest.approx(cutoff, abs=1e-6) or name.startswith("sd_")
        np.testing.assert_allclose(rows[name], rows[".focal"])
    fig = profile_figure(frame)
    assert [ax.get_title() for ax in fig.axes] == prof.names  # one panel per parameter
    path = write_figure(fig, tmp_path / "profile.png")
    assert path.read_bytes()[:4] == b"\x89PNG"
    ci = prof.confint(0.95)  # the same profile's roots: zeta = -/+ 1.96 at the ends
    for name in prof.names:
        for end, z in zip(ci.loc[name], (-1.96, 1.96), strict=True):
            assert prof.zeta(name, end) == pytest.approx(z, abs=2e-3), name
    pd.testing.assert_frame_equal(ci, small.confint(method="profile").set_axis(["lower", "upper"], axis=1),
                                  rtol=1e-6)
