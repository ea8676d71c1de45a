"""emmeans everywhere (issue 44, items 4 and 7) against emmeans 1.8.4-1 in R: `by` groups,
every p-value adjustment of pairs(), lmer's three df methods, glmer on the link and response
scales, clm and clmm on the latent scale and as class probabilities, factor(x) of an integer
column. The R numbers are in tests/fixtures/emmeans_reference.csv, written by
benchmarks/emmeans_reference.R (its header names the models and versions); MASS's oats is
tests/fixtures/emmeans_oats.csv (nitro: N in tenths of a cwt, an integer column)."""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from acceptability import stats
from tests.lme4_data import lme4_data
from tests.stats.mixed.test_ordinal import wine

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
LABELS = ("contrast", "N", "V", "nitro", "period", "temp", "contact", "rating")
ADJUST = ("tukey", "bonferroni", "holm", "sidak", "none", "mvt")
# Tolerances per model: (estimates, SEs, statistics and interval ends relative; df relative;
# p values absolute), each the worst difference measured rounded up to a power of ten or
# its half (in brackets: estimates, df, p). oats, nitro: the lmer optima agree to ~1e-8
# (2.8e-8, 1.4e-7, 1.6e-9); cbpp: lme4 stops its glmer 1e-6 from ours (1.5e-6, -, 1.3e-6);
# clm (1.0e-14, -, 5.6e-16); clmm: ordinal stops its clmm fits about 1e-5 from the optimum and
# its SEs come from a numerical Hessian (5.0e-5, -, 1.1e-5).
TOL = {"oats": (1e-7, 5e-7, 1e-8), "nitro": (1e-7, 5e-7, 1e-8), "cbpp": (5e-6, 0, 5e-6),
       "clm": (1e-10, 0, 1e-10), "clmm": (1e-4, 0, 5e-5)}
MVT_TOL = 1e-3  # emmeans' own mvt p-values: mvtnorm::pmvt with its default abseps = 0.001


@cache
def reference() -> pd.DataFrame:
    return pd.read_csv(FIXTURES / "emmeans_reference.csv", dtype=str, keep_default_na=False)


def r_case(case: str) -> pd.DataFrame:
    r = reference()
    rows = r[r["case"] == case]
    assert len(rows), f"no R rows for {case}: rerun benchmarks/emmeans_reference.R"
    wide = rows.pivot(index="row", columns="column", values="value")
    wide.index = wide.index.astype(int)
    wide = wide.sort_index()
    return wide.apply(lambda c: c if c.name in LABELS else c.astype(float)).reset_index(drop=True)


@cache
def fits() -> dict[str, object]:
    oats = pd.read_csv(FIXTURES / "emmeans_oats.csv", dtype={"B": str, "V": str, "N": str})
    return {"oats": stats.lmer("Y ~ N * V + (1 | B/V)", oats),
            "nitro": stats.lmer("Y ~ factor(nitro) + V + (1 | B/V)", oats),
            "cbpp": stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)",
                                lme4_data("cbpp")),
            "clm": stats.clm("rating ~ temp * contact", wine()),
            "clmm": stats.clmm("rating ~ temp * contact + (1 | judge)", wine())}


def assert_matches(ours: pd.DataFrame, case: str, worst: dict | None = None) -> None:
    """Our table against R's: the same columns (R's names) and labels, numbers within the
    model's tolerances."""
    theirs = r_case(case)
    est_tol, df_tol, p_tol = TOL[case.split("|")[0]]
    assert set(ours.columns) == set(theirs.columns) - {"p.precise"}, case
    assert len(ours) == len(theirs), case
    for col in ours.columns:
        a, b = ours[col].to_numpy(), theirs[col].to_numpy()
        if col in LABELS:
            assert list(a) == list(b), (case, col)
            continue
        a, b = a.astype(float), b.astype(float)
        if col == "df":
            assert np.allclose(a, b, rtol=df_tol, atol=0), (case, col, a, b)
        elif col == "p.value":
            tol = MVT_TOL if case.endswith("|mvt") else p_tol
            assert np.allclose(a, b, rtol=0, atol=tol), (case, col, np.abs(a - b).max())
        else:
            scale = np.abs(b) + (theirs["SE"].to_numpy() if col.endswith(("CL", "LCL", "UCL")) else 0)
            assert np.all(np.abs(a - b) <= est_tol * scale + 1e-12), (case, col, np.max(np.abs(a - b) / scale))


def test_emmeans_of_a_clmm_fit_is_not_an_attribute_error():
    """Issue 44 item 4: stats.emmeans on a clmm fit raised AttributeError: 'OrdinalDesign'
    object has no attribute 'family'."""
    table = stats.emmeans(fits()["clmm"], "temp")
    assert list(table["temp"]) == ["cold", "warm"]


def test_fits_are_rs():
    logliks = r_case_loglik()
    for name, m in fits().items():
        assert m.logLik == pytest.approx(logliks[name], abs=5e-6 if name == "clmm" else 2e-6), name


def r_case_loglik() -> dict[str, float]:
    r = reference()
    rows = r[r["column"] == "logLik"]
    return dict(zip(rows["case"], rows["value"].astype(float), strict=True))


@pytest.mark.parametrize("lmer_df", ["kenward-roger", "satterthwaite", "asymptotic"])
def test_lmer_means_by_groups_each_df_method(lmer_df):
    m = fits()["oats"]
    means = stats.emmeans(m, "~ N | V", lmer_df=lmer_df)
    assert_matches(means, f"oats|N|V|means|{lmer_df}")
    pd.testing.assert_frame_equal(stats.emmeans(m, "N", by="V", lmer_df=lmer_df), means)
    assert_matches(m.emmeans("V", lmer_df=lmer_df), f"oats|V||means|{lmer_df}")
    assert means.attrs["notes"][0] == f"Degrees-of-freedom method: {lmer_df}"


@pytest.mark.parametrize(("lmer_df", "adjust"), [*(("kenward-roger", a) for a in ADJUST),
                                                 *itertools.product(["satterthwaite", "asymptotic"],
                                                                    ["tukey", "mvt"])])
def test_lmer_pairs_by_groups_each_adjustment(lmer_df, adjust):
    pairs = stats.emmeans(fits()["oats"], "N", by="V", lmer_df=lmer_df, pairwise=True, adjust=adjust)
    assert_matches(pairs, f"oats|N|V|{lmer_df}|pairs|{adjust}")


def test_mvt_is_the_precise_multivariate_t_probability():
    """mvt p-values within 5e-5 of mvtnorm::pmvt at abseps 1e-6 (column p.precise of the R
    rows; emmeans' own, at pmvt's default abseps 1e-3, within MVT_TOL); on the balanced
    oats design the family's correlation is the studentized range's, so mvt and tukey
    agree there too."""
    calls = {"oats|N|V|kenward-roger|pairs|mvt": ("oats", {"specs": "N", "by": "V"}),
             "oats|N|V|asymptotic|pairs|mvt": ("oats", {"specs": "N", "by": "V", "lmer_df": "asymptotic"}),
             "cbpp|period||link|pairs|mvt": ("cbpp", {"specs": "period"}),
             "clm|temp:contact||latent|pairs|mvt": ("clm", {"specs": "temp:contact"}),
             "clmm|temp:contact||latent|pairs|mvt": ("clmm", {"specs": "temp:contact"})}
    emmeans_own = max(np.abs(r_case(case)["p.value"] - r_case(case)["p.precise"]).max() for case in calls)
    assert emmeans_own == pytest.approx(3.8e-4, abs=5e-5)  # R's error, as the docs say
    for case, (name, kwargs) in calls.items():
        ours = stats.emmeans(fits()[name], pairwise=True, adjust="mvt", **kwargs)
        np.testing.assert_allclose(ours["p.value"], r_case(case)["p.precise"], rtol=0, atol=5e-5, err_msg=case)
        if name == "cbpp":  # docs/mixed/emmeans.md: mvt 0.0063 against Tukey's 0.0066
            tukey = stats.emmeans(fits()[name], pairwise=True, **kwargs)
            assert (round(ours["p.value"][0], 4), round(tukey["p.value"][0], 4)) == (0.0063, 0.0066)
        if name == "oats":
            tukey = stats.emmeans(fits()[name], pairwise=True, **kwargs)
            np.testing.assert_allclose(ours["p.value"], tukey["p.value"], rtol=0, atol=5e-5)


def test_adjustments_recomputed_from_the_unadjusted_p():
    """bonferroni, sidak and holm written out here from the unadjusted two-sided p-values of
    each by group (m = 6 pairs of 4 means)."""
    m = fits()["oats"]
    raw = stats.emmeans(m, "N", by="V", pairwise=True, adjust="none")
    assert np.allclose(raw["p.value"], 2 * sps.t.sf(np.abs(raw["t.ratio"]), raw["df"]))
    for adjust in ("bonferroni", "sidak", "holm"):
        ours = stats.emmeans(m, "N", by="V", pairwise=True, adjust=adjust)
        for _, group in raw.groupby("V"):
            p = group["p.value"].to_numpy()
            if adjust == "bonferroni":
                want = np.minimum(1, 6 * p)
            elif adjust == "sidak":
                want = 1 - (1 - p) ** 6
            else:
                ranked = sorted(p)
                holm = [min(1, max((6 - i) * ranked[i] for i in range(r + 1))) for r in range(6)]
                want = np.array([holm[ranked.index(v)] for v in p])
            np.testing.assert_allclose(ours.loc[group.index, "p.value"], want, rtol=1e-12)
        assert ours.attrs["notes"][-1] == f"P value adjustment: {adjust} method for 6 tests"


@pytest.mark.parametrize("spec", ["nitro", "factor(nitro)"])
def test_factor_of_an_integer_column(spec):
    m = fits()["nitro"]
    assert_matches(m.emmeans(spec), "nitro|nitro||means|kenward-roger")
    assert_matches(m.emmeans(spec, pairwise=True), "nitro|nitro||kenward-roger|pairs|tukey")


def test_glmer_link_scale():
    g = fits()["cbpp"]
    assert_matches(stats.emmeans(g, "period"), "cbpp|period||means|link")
    for adjust in ADJUST:
        assert_matches(stats.emmeans(g, "period", pairwise=True, adjust=adjust),
                       f"cbpp|period||link|pairs|{adjust}")


def test_glmer_response_scale_by_the_delta_method():
    g = fits()["cbpp"]
    means = stats.emmeans(g, "period", type="response")
    assert_matches(means, "cbpp|period||means|response")
    link = stats.emmeans(g, "period")  # recomputed: plogis of the link scale, SE * p (1 - p)
    p = 1 / (1 + np.exp(-link["emmean"]))
    np.testing.assert_allclose(means["prob"], p, rtol=1e-12)
    np.testing.assert_allclose(means["SE"], link["SE"] * p * (1 - p), rtol=1e-12)
    np.testing.assert_allclose(means["asymp.UCL"], 1 / (1 + np.exp(-link["asymp.UCL"])), rtol=1e-12)
    odds = stats.emmeans(g, "period", type="response", pairwise=True)
    assert_matches(odds, "cbpp|period||response|pairs|tukey")


@pytest.mark.parametrize("name", ["clm", "clmm"])
def test_ordinal_latent_scale(name):
    m = fits()[name]
    latent = stats.emmeans(m, "~ temp | contact")
    assert_matches(latent, f"{name}|temp|contact|means|latent")
    # recomputed: x'beta less the mean threshold
    beta, theta = m.beta, m.Theta.to_numpy()
    x = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 1]], float)
    np.testing.assert_allclose(latent["emmean"], x @ beta.to_numpy() - theta.mean(), rtol=1e-12)
    assert_matches(stats.emmeans(m, "temp", by="contact", pairwise=True), f"{name}|temp|contact|latent|pairs|tukey")
    for adjust in ("tukey", "mvt"):
        assert_matches(stats.emmeans(m, "temp:contact", pairwise=True, adjust=adjust),
                       f"{name}|temp:contact||latent|pairs|{adjust}")


@pytest.mark.parametrize("name", ["clm", "clmm"])
def test_ordinal_class_probabilities(name):
    m = fits()[name]
    prob = stats.emmeans(m, "~ rating | temp", mode="prob")
    assert_matches(prob, f"{name}|rating|temp|means|prob")
    assert np.allclose(prob.groupby("temp")["prob"].sum(), 1)
    cold_no = m.predict(pd.DataFrame({"temp": ["cold"], "contact": ["no"]})).to_numpy()[0]
    cold_yes = m.predict(pd.DataFrame({"temp": ["cold"], "contact": ["yes"]})).to_numpy()[0]
    np.testing.assert_allclose(prob["prob"][:5], (cold_no + cold_yes) / 2, rtol=1e-10)
    assert_matches(stats.emmeans(m, "contact", by="rating", mode="prob"), f"{name}|contact|rating|means|prob")


def test_bad_arguments_say_what_to_use():
    m, c = fits()["oats"], fits()["clm"]
    for call, message in [(lambda: m.emmeans("N", pairwise=True, adjust="scheffe"), "adjust='scheffe'"),
                          (lambda: m.emmeans("N", lmer_df="kr"), "lmer_df='kr'"),
                          (lambda: stats.emmeans(m, "N", mode="prob"), "mode='prob'"),
                          (lambda: stats.emmeans(c, "temp", type="response"), "type='response'"),
                          (lambda: m.emmeans("N | V", by="V"), "by="),
                          (lambda: m.emmeans("N", by="N"), "by='N'"),
                          (lambda: m.emmeans("B"), "specs='B'"),
                          (lambda: stats.glmer("incidence ~ period + (1 | herd)", lme4_data("cbpp"), "poisson",
                                               offset=np.log(lme4_data("cbpp")["size"])).emmeans("period"),
                           "offset")]:
        with pytest.raises(ValueError, match=message):
            call()


def test_mvt_integration_is_the_mean_over_every_direction():
    """adjust.mvt_p interpolates the conditional probability between 1,025 of its 65,536
    sorted directions; written out here over every direction (the spherical-radial
    decomposition: given u, R^2 / r over s^2 is F(r, df)), and by plain simulation of the
    contrasts' maximum |t| (200,000 draws, within 4 standard errors)."""
    from scipy import special

    from acceptability.stats.mixed.fitted.adjust import _directions, mvt_p

    rng = np.random.default_rng(44)
    for k, df in [(3, 5.0), (4, 30.0), (5, np.inf), (6, 12.0)]:
        v = rng.normal(size=(k, k))
        v = v @ v.T + 0.5 * np.eye(k)
        c = np.array([np.eye(k)[i] - np.eye(k)[j] for i, j in itertools.combinations(range(k), 2)])
        cov = c @ v @ c.T
        t = rng.uniform(0.5, 3.5, len(c))
        ours = mvt_p(t, np.full(len(c), df), cov)
        sd = np.sqrt(np.diag(cov))
        values, vectors = np.linalg.eigh(cov / np.outer(sd, sd))
        root = vectors[:, values > 1e-10] * np.sqrt(values[values > 1e-10])
        reach = np.abs(_directions(k - 1, 2**16) @ root.T).max(axis=1)
        x = (t[:, None] / reach[None, :]) ** 2 / (k - 1)
        full = 1 - (special.chdtr(k - 1, x * (k - 1)) if np.isinf(df) else special.fdtr(k - 1, df, x)).mean(axis=1)
        np.testing.assert_allclose(ours, full, rtol=0, atol=5e-6)
        z = rng.multivariate_normal(np.zeros(len(c)), cov / np.outer(sd, sd), size=200_000, method="eigh")
        scale = 1.0 if np.isinf(df) else np.sqrt(rng.chisquare(df, 200_000) / df)
        top = np.abs(z).max(axis=1) / scale
        simulated = (top[None, :] >= t[:, None]).mean(axis=1)
        assert np.all(np.abs(ours - simulated) <= 4 * np.sqrt(simulated * (1 - simulated) / 2e5) + 1e-4)


def test_tukey_is_rs_ptukey():
    """ptukey.tukey_sf, R's ptukey algorithm, against scipy's adaptive integration of the
    studentized range (to 2e-9 from 12 df up; R's 16-node quadrature is less exact at a few
    df, as is this port of it); its p-values against R's are in every tukey row above."""
    from acceptability.stats.mixed.fitted.ptukey import tukey_sf

    q = np.array([0.1, 0.5, 1, 2, 3.4, 5, 8])
    for k, df in itertools.product([3, 4, 6, 10], [12.3, 45, 150, 1000, 9000, np.inf]):
        np.testing.assert_allclose(tukey_sf(q, k, np.full(len(q), df)), sps.studentized_range.sf(q, k, df),
                                   rtol=0, atol=2e-9, err_msg=f"k={k}, df={df}")
