"""The glmm engine's view of the fixed part (``glmm_engine._fixed_view``): its refusal is
exactly glmm's (a random slope must be one of glmm's fixed terms), and the design keeps the
user's formula and rows while glmm reads transformed variables as columns of ``X``.
R's numbers: tests/fixtures/engine_view_reference.csv, written by
benchmarks/engine_view_reference.R (lme4 1.1-31)."""

from __future__ import annotations

import warnings
from pathlib import Path

import glmm
import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import choose_engine, lmer, model_design
from acceptability.stats.mixed.brm import _design as brm_design
from acceptability.stats.mixed.engines.glmm_engine import (
    GlmmEngine,
    _fixed_view,
    _glmm_data,
    _glmm_formula,
)
from tests.lme4_data import lme4_data

REF = pd.read_csv(Path(__file__).resolve().parents[2] / "fixtures" / "engine_view_reference.csv",
                  keep_default_na=False)


def _ref(model: str, quantity: str) -> pd.Series:
    rows = REF[(REF.model == model) & (REF.quantity == quantity)]
    return pd.Series(rows.value.astype(float).to_numpy(), index=rows.name.to_numpy())


@pytest.fixture(scope="module")
def small() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    n, groups = 240, 20
    g = np.repeat(np.arange(groups), n // groups)
    d = pd.DataFrame({"g": [f"g{i}" for i in g], "x": rng.normal(size=n), "z": rng.normal(size=n),
                      "f": rng.choice(list("abc"), n), "h": rng.choice(list("pq"), n),
                      "b": rng.choice([True, False], n)})
    d["y"] = 1 + d.x + rng.normal(size=groups)[g] + rng.normal(size=n)
    d["w"] = np.exp(rng.normal(size=n))
    return d


def _glmm_takes(formula: str, data: pd.DataFrame) -> bool:
    """Whether glmm itself fits the design's view (no adapter in between)."""
    d = model_design(formula, data)
    fixed, frame = _fixed_view(d)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            glmm.fit(_glmm_data(frame, d.formula, {"_y_": d.y}),
                     _glmm_formula(d.formula, fixed, "_y_"), "gaussian", reml=True)
    except ValueError as err:
        assert "not a numeric fixed term" in str(err)
        return False
    return True


@pytest.mark.parametrize("formula", [
    "y ~ x + (1 + x | g)", "y ~ x * z + (1 + x | g)", "y ~ x:z + (1 + x | g)",
    "y ~ x:f + (1 + x | g)", "y ~ 0 + x + (1 + x | g)", "y ~ x + (1 + x + z | g)",
    "y ~ f + (1 + f | g)", "y ~ 0 + f + (1 + f | g)", "y ~ f * h + (1 + f | g)",
    "y ~ h + (1 + f | g)", "y ~ x + x:f + (1 + f | g)", "y ~ b + (1 + b | g)",
    "y ~ f + (1 + f | g) + (1 + x | h)",
    # transformed fixed parts: glmm reads each column of X, plain numerics by their name
    "y ~ x + I(x^2) + (1 + x | g)", "y ~ scale(x) + (1 + x | g)", "y ~ log(w) + x + (1 + x | g)",
    "y ~ poly(z, 2) + f + (1 + f | g)", "y ~ scale(z) + (1 + x | g)",
])
def test_refusal_is_exactly_glmms(formula, small):
    refusal = GlmmEngine().refusal(model_design(formula, small))
    assert (refusal is None) == _glmm_takes(formula, small), refusal
    if refusal is not None:
        assert "random slope" in refusal


def test_slope_of_an_interaction_term_is_fitted_by_glmm():
    """lmerTest's carrots: ``sens2`` is a fixed term of ``sens2*Homesize`` (the old check
    split the formula on "+" and sent it to the PLS path)."""
    f = "Preference ~ sens2*Homesize + Age + (1 + sens2 | Consumer)"
    data = lme4_data("carrots")
    assert choose_engine(model_design(f, data)).name == "glmm"
    m = lmer(f, data)
    assert m.engine.startswith("glmm")
    assert m.deviance == pytest.approx(_ref("carrots", "REML").iloc[0], abs=1e-6)
    np.testing.assert_allclose(m.theta, _ref("carrots", "theta"), atol=1e-5)
    fixef = _ref("carrots", "fixef")
    np.testing.assert_allclose(m.fixef[fixef.index], fixef, atol=1e-5)


def test_transformed_fixed_part_keeps_the_users_formula_and_rows():
    sleep = lme4_data("sleepstudy")
    m = lmer("Reaction ~ Days + I(Days^2) + (1 + Days | Subject)", sleep)
    assert m.engine.startswith("glmm")  # the slope Days is a plain column of X
    assert m.formula.fixed == "Days + I(Days^2)"
    assert set(m.frame.columns) <= set(sleep.columns)
    assert m.deviance == pytest.approx(_ref("sleep_quad", "REML").iloc[0], abs=1e-6)
    np.testing.assert_allclose(m.theta, _ref("sleep_quad", "theta"), atol=1e-5)
    fixef = _ref("sleep_quad", "fixef")
    np.testing.assert_allclose(m.fixef[fixef.index], fixef, rtol=1e-6)

    s = lmer("Reaction ~ scale(Days) + (1 | Subject)", sleep)
    assert s.formula.fixed == "scale(Days)"
    assert list(s.frame.columns) == ["Reaction", "Days", "Subject"]
    assert not any(c.startswith("_") for c in s.frame.columns)
    new = sleep.iloc[[3, 17, 40]]
    np.testing.assert_allclose(s.predict(new), s.predict().iloc[[3, 17, 40]], rtol=1e-12)


def test_bambi_gets_the_users_formula(small):
    """brm's design has no fixed columns (bambi builds X): formula and rows as written."""
    d = brm_design(model_design("y ~ x * f + (1 + x | g)", small).formula, small, "gaussian", 0)
    assert d.formula.fixed == "x * f" and d.fixed_part is None
    assert list(d.frame.columns) == list(small.columns)
