"""The mixed-model stages, the engine protocol and the one results base (issue 29)."""

from __future__ import annotations

import ast
import warnings

import numpy as np
import pandas as pd
import pytest

from acceptability.stats import mixed
from acceptability.stats.mixed import (
    ENGINES,
    Engine,
    EngineRefused,
    GlmerResult,
    LmerResult,
    MerResult,
    MixedResult,
    Summary,
    choose_engine,
    fit,
    glmer,
    lmer,
    make_result,
    model_design,
)
from acceptability.stats.mixed.brm import BrmResult
from tests.conftest import REPO


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    g = np.repeat(np.arange(12), 10)
    x = rng.normal(size=g.size)
    y = 1 + 0.5 * x + rng.normal(0, 0.7, 12)[g] + rng.normal(0, 1, g.size)
    k = rng.binomial(8, 1 / (1 + np.exp(-(0.3 * x + rng.normal(0, 0.5, 12)[g]))))
    return pd.DataFrame({"y": y, "x": x, "g": [f"g{v}" for v in g], "k": k, "n": 8})


def test_every_adapter_follows_the_protocol():
    assert set(ENGINES) == {"glmm", "pls", "laplace", "bambi"}
    assert all(isinstance(e, Engine) for e in ENGINES.values())


def test_choosing_the_engine_is_explicit(frame):
    assert choose_engine(model_design("y ~ x + (1 + x | g)", frame)).name == "glmm"
    assert choose_engine(model_design("y ~ x + (x || g)", frame)).name == "pls"
    assert choose_engine(model_design("y ~ x + (1 | g)", frame), "pls").name == "pls"
    binomial = model_design("cbind(k, n - k) ~ x + (1 | g)", frame, family="binomial")
    assert choose_engine(binomial).name == "glmm"
    with pytest.raises(EngineRefused, match="linear models"):
        choose_engine(binomial, "pls")
    with pytest.raises(EngineRefused, match="not available for GLMMs"):
        choose_engine(model_design("cbind(k, n - k) ~ x + (x || g)", frame, family="binomial"))
    with pytest.raises(ValueError, match="engine='lme4'"):
        choose_engine(binomial, "lme4")


@pytest.mark.filterwarnings("ignore::acceptability.stats.mixed.SingularFitWarning")
def test_the_stages_in_a_row_are_lmer(frame):
    d = model_design("y ~ x + (1 + x | g)", frame)
    assert d.xnames == ["(Intercept)", "x"] and d.Z.shape == (120, 24) and d.n_dropped == 0
    by_stages = make_result(d, fit(d))
    whole = lmer("y ~ x + (1 + x | g)", frame)
    pd.testing.assert_series_equal(by_stages.fixef, whole.fixef)
    assert by_stages.logLik == whole.logLik and by_stages.engine == whole.engine


def test_glmm_and_pls_agree_on_a_linear_model(frame):
    d = model_design("y ~ x + (1 | g)", frame)
    a, b = fit(d, REML=False, engine="glmm"), fit(d, REML=False, engine="pls")
    assert type(a) is type(b)
    assert a.loglik == pytest.approx(b.loglik, abs=1e-6)
    np.testing.assert_allclose(a.beta, b.beta, rtol=1e-5)


def test_one_summary_type_that_prints_like_r(frame):
    m = lmer("y ~ x + (1 | g)", frame)
    g = glmer("cbind(k, n - k) ~ x + (1 | g)", frame)
    for fitted in (m, g):
        s = fitted.summary()
        assert type(s) is Summary and str(s) == repr(s) == s.text
        assert str(s).startswith(("Linear mixed model", "Generalized linear mixed model"))
        pd.testing.assert_frame_equal(s.coefficients, fitted.coefficients)
        pd.testing.assert_frame_equal(s.tables["random"], fitted.VarCorr)
        assert "Random effects:" in s


def test_results_share_one_base_and_glmer_reads_no_engine():
    assert issubclass(LmerResult, MixedResult) and issubclass(BrmResult, MixedResult)
    # a GLMM is no kind of LMM: the two are siblings under lme4's merMod (issue 45)
    assert issubclass(LmerResult, MerResult) and issubclass(GlmerResult, MerResult)
    assert not issubclass(GlmerResult, LmerResult) and not issubclass(LmerResult, GlmerResult)
    for name in ("summary", "fixef", "vcov", "confint", "anova", "predict"):
        assert all(hasattr(cls, name) for cls in (LmerResult, GlmerResult, BrmResult)), name
    engine_reads = {"theta", "fixef", "vcov", "sigma", "logLik", "_b", "se", "engine"}
    assert not engine_reads & set(vars(GlmerResult)), engine_reads & set(vars(GlmerResult))


def test_anova_and_confint_through_the_base(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m0 = lmer("y ~ 1 + (1 | g)", frame)
        m1 = lmer("y ~ x + (1 | g)", frame)
    assert m1.anova(m0).equals(mixed.anova(m1, m0))
    wald = m1.confint(method="Wald").loc[m1.fixef.index]
    pd.testing.assert_frame_equal(wald, MixedResult.confint(m1))


def test_no_import_inside_the_mixed_modules_goes_back_up():
    """No stats.mixed module imports one that imports it (imports inside functions and
    under TYPE_CHECKING count): the modules form layers."""
    folder = REPO / "stats" / "mixed"
    edges = {}
    for path in folder.glob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "acceptability.stats.mixed."):
                names.add(node.module.rsplit(".", 1)[1])
            elif isinstance(node, ast.ImportFrom) and node.module == "acceptability.stats.mixed":
                names |= {a.name for a in node.names if (folder / f"{a.name}.py").is_file()}
        edges[path.stem] = names - {path.stem}

    def reaches(a: str, b: str, seen: set[str]) -> bool:
        return a == b or any(reaches(n, b, seen | {a}) for n in edges.get(a, ()) if n not in seen)

    back = [(a, b) for a, ns in edges.items() for b in ns if a != "__init__" and reaches(b, a, set())]
    assert not back, back
