"""One class per GLM family (issue 45, item 2): each of R's families is one class of
``families`` holding its variance, deviance residuals, starting means (R's
``family$initialize``), whether it has a scale or a dispersion, its response checks and its
label; the other modules ask the family object and compare no family (or link) name. And
the own Laplace fit is an engine of its own, ``"laplace"``, which ``choose_engine`` names:
``engine="glmm"`` is glmm or a refusal that names the engine that fits the model.

The families' numbers are compared with statsmodels' families (statsmodels.genmod.families,
written elsewhere) and with R's ``family$initialize`` expressions, copied into the tests.
"""

from __future__ import annotations

import ast
import warnings

import numpy as np
import pytest
import statsmodels.api as sm

from acceptability.stats.mixed import (
    ENGINES,
    EngineRefused,
    FitSettings,
    choose_engine,
    fit,
    glmer,
    model_design,
)
from acceptability.stats.mixed.glmm import families
from acceptability.stats.mixed.glmm.families import FAMILY_LINKS, LINKS, Poisson, family
from tests.conftest import REPO
from tests.lme4_data import lme4_data

# R's families (R's stats::family, MASS::negative.binomial) and lme4's useSc
R_FAMILIES = ("binomial", "poisson", "Gamma", "gaussian", "inverse.gaussian", "negative.binomial")
SCALED = {"gaussian", "Gamma", "inverse.gaussian"}  # lme4: sigma = sqrt(phi)


def test_each_family_is_one_class():
    assert set(FAMILY_LINKS) == set(R_FAMILIES)
    classes = {}
    for name, links in FAMILY_LINKS.items():
        kinds = {type(family(name, link)) for link in links}
        assert len(kinds) == 1, (name, kinds)  # a link is a field, not a class
        classes[name] = kinds.pop()
    assert len(set(classes.values())) == len(R_FAMILIES)
    for name, cls in classes.items():
        assert cls.name == name and cls.links == FAMILY_LINKS[name]
        assert cls.__module__ == family.__module__
    assert type(family("bernoulli")) is classes["binomial"]  # R has no bernoulli: an alias


def test_scale_and_dispersion_as_lme4():
    for name in R_FAMILIES:
        f = family(name)
        assert f.scaled == (name in SCALED), name
        assert f.dispersion == (name in SCALED | {"negative.binomial"}), name
    assert family("gaussian").linear and not family("gaussian", "log").linear
    assert not any(family(name).linear for name in R_FAMILIES if name != "gaussian")


def _statsmodels(name: str, size: float):
    return {"binomial": sm.families.Binomial(), "poisson": sm.families.Poisson(),
            "Gamma": sm.families.Gamma(), "gaussian": sm.families.Gaussian(),
            "inverse.gaussian": sm.families.InverseGaussian(),
            "negative.binomial": sm.families.NegativeBinomial(alpha=1 / size)}[name]


@pytest.mark.parametrize("name", R_FAMILIES)
def test_variance_and_deviance_residuals_equal_statsmodels(name):
    rng = np.random.default_rng(7)
    mu = rng.uniform(0.05, 0.95, 40) if name == "binomial" else rng.uniform(0.3, 6.0, 40)
    y = {"binomial": rng.integers(0, 2, 40).astype(float), "poisson": rng.poisson(mu).astype(float),
         "negative.binomial": rng.poisson(mu).astype(float)}.get(name, rng.gamma(4.0, mu / 4.0))
    wt = rng.uniform(0.5, 2.0, 40)
    size = 2.5
    ours, theirs = family(name), _statsmodels(name, size)
    np.testing.assert_allclose(ours.variance(mu, size), theirs.variance(mu), rtol=1e-12)
    signed = theirs.resid_dev(y, mu, var_weights=wt)
    np.testing.assert_allclose(ours.dev_resids(y, mu, wt, size), signed**2, rtol=1e-10, atol=1e-12)


def test_starting_means_are_r_family_initialize():
    """R's ``family$initialize`` (R 4.3 stats/R/family.R): binomial ``(weights * y + 0.5) /
    (weights + 1)``, poisson ``y + 0.1``, Gamma, gaussian and inverse.gaussian ``y``."""
    y = np.array([0.0, 0.25, 0.5, 1.0, 0.75])
    wt = np.array([4.0, 4.0, 2.0, 1.0, 4.0])
    np.testing.assert_array_equal(family("binomial").initialize(y, wt), (wt * y + 0.5) / (wt + 1))
    counts = np.array([0.0, 3.0, 1.0, 7.0])
    np.testing.assert_array_equal(family("poisson").initialize(counts, np.ones(4)), counts + 0.1)
    for name in ("Gamma", "gaussian", "inverse.gaussian"):
        np.testing.assert_array_equal(family(name).initialize(counts + 1, np.ones(4)), counts + 1)


def test_response_checks_and_label_belong_to_the_family():
    bad, rule = family("poisson").outside(np.array([0.0, 1.5, -1.0, 2.0]), weighted=False)
    assert bad.tolist() == [False, True, True, False] and rule == "non-negative whole numbers"
    bad, _ = family("binomial").outside(np.array([0.0, 0.5, 1.0]), weighted=True)
    assert not bad.any()
    bad, rule = family("gaussian", "log").outside(np.array([1.0, 0.0]), weighted=False)
    assert bad.tolist() == [False, True] and "log link" in rule
    assert family("Gamma").label(1.0) == "Gamma"
    assert family("negative.binomial").label(2.345678) == "Negative Binomial(2.3457)"  # R's


def test_a_new_family_is_one_class(monkeypatch):
    """The recipe of docs/development.md: a family is a class registered in
    ``FAMILY_CLASSES``, and every stage follows. A copy of the poisson family under another
    name fits by the Laplace engine (glmm's table does not name it) with the poisson sqrt
    fit's likelihood and estimates, and its summary names it."""

    class Counts(Poisson):
        name = "counts"

    monkeypatch.setitem(families.FAMILY_CLASSES, "counts", Counts)
    cbpp = lme4_data("cbpp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new = glmer("incidence ~ period + (1 | herd)", cbpp, "counts", link="sqrt")
        known = glmer("incidence ~ period + (1 | herd)", cbpp, "poisson", link="sqrt")
    assert new.engine == known.engine and new.engine.startswith("acceptability Laplace")
    assert new.logLik == known.logLik
    np.testing.assert_array_equal(new.fixef, known.fixef)
    assert " Family: counts  ( sqrt )" in str(new.summary())


# --- no family or link named outside the family module ----------------------------------
FAMILY_WORDS = set(R_FAMILIES) | {"gamma", "inverse_gaussian", "negative_binomial", "nbinom2", "bernoulli"}
LINK_WORDS = set(LINKS)
OWNER = "families.py"


def _strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def _offences(path) -> list[str]:
    """Comparisons (==, !=, in) against a family name, or a link name beside a ``link``;
    and dict literals keyed by family names (a switch written as a table)."""
    tree = ast.parse(path.read_text())
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            words = set().union(*(_strings(c) for c in [node.left, *node.comparators]))
            text = ast.unparse(node)
            if words & FAMILY_WORDS or (words & LINK_WORDS and "link" in text):
                out.append(f"{path.name}:{node.lineno}: {text}")
        elif isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
            if keys & FAMILY_WORDS:
                out.append(f"{path.name}:{node.lineno}: a table keyed by family names")
    return out


def test_no_family_or_link_name_is_compared_outside_the_family_module():
    """A new family is one class in ``families`` (and a row of glmm's table if glmm fits
    it): no other module of the package switches on a family's or a link's name."""
    root = REPO / "stats"
    files = [p for p in root.rglob("*.py") if p.name != OWNER]
    assert len(files) > 50
    offences = [o for p in sorted(files) for o in _offences(p)]
    assert not offences, "\n".join(offences)


# --- the own Laplace fit is an engine ---------------------------------------------------
RF = "Reaction ~ Days + (1 | Subject)"
CF = "cbind(incidence, size - incidence) ~ period + (1 | herd)"


def test_the_laplace_fit_is_an_engine_that_choose_engine_names():
    assert {"glmm", "pls", "laplace", "bambi"} == set(ENGINES)
    inverse_gaussian = model_design(RF, lme4_data("sleepstudy"), "inverse.gaussian")
    assert choose_engine(inverse_gaussian).name == "laplace"
    for engine in ("glmm", "pls"):
        with pytest.raises(EngineRefused, match=f"engine '{engine}'.*engine 'laplace'"):
            choose_engine(inverse_gaussian, engine)
    with pytest.raises(EngineRefused, match="glmm has no inverse.gaussian.*engine 'laplace'"):
        fit(inverse_gaussian, REML=False, engine="glmm")
    cbpp = lme4_data("cbpp")
    binomial = model_design(CF, cbpp, "binomial")
    assert choose_engine(binomial).name == "glmm"
    weighted = model_design(CF, cbpp, "binomial", weights=np.tile([1.0, 2.0], 28))
    assert choose_engine(weighted).name == "laplace"  # glmm takes trials or weights, not both
    with pytest.raises(EngineRefused, match="prior weights.*engine 'laplace'"):
        choose_engine(weighted, "glmm")
    sqrt = model_design("incidence ~ period + (1 | herd)", cbpp, "poisson", link="sqrt")
    assert choose_engine(sqrt).name == "laplace"
    linear = model_design(RF, lme4_data("sleepstudy"))
    with pytest.raises(EngineRefused, match="linear mixed model.*engine 'glmm' fits it"):
        choose_engine(linear, "laplace")


def test_lme4s_fast_fit_is_the_laplace_engine_not_glmm():
    """nAGQ = 0 (lme4's fast fit: the fixed effects inside PIRLS) is the own code, which glmm
    has not: ``engine="glmm"`` refuses it, naming the engine that fits it."""
    binomial = model_design(CF, lme4_data("cbpp"), "binomial")
    assert choose_engine(binomial, settings=FitSettings(nAGQ=0)).name == "laplace"
    assert choose_engine(binomial, settings=FitSettings(nAGQ=1)).name == "glmm"
    with pytest.raises(EngineRefused, match="nAGQ=0.*engine 'laplace' fits it"):
        fit(binomial, REML=False, nAGQ=0, engine="glmm")
    assert fit(binomial, REML=False, nAGQ=0).engine.startswith("acceptability nAGQ=0")


def test_every_glmer_summary_names_the_engine_that_fitted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        own = glmer("incidence ~ period + (1 | herd)", lme4_data("cbpp"), "poisson", link="sqrt")
        by_glmm = glmer(CF, lme4_data("cbpp"))
    assert own.engine.startswith("acceptability Laplace")
    assert by_glmm.engine.startswith("glmm")
    for m in (own, by_glmm):
        assert f"Engine: {m.engine}" in str(m.summary())
