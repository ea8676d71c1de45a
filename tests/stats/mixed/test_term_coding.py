"""R's rule for coding a factor in a term (contrasts, or an indicator of every level),
written in transforms._indicator_coded, against glmm's own ``model_matrix`` (a Rust
implementation of R's ``model.matrix``, not written here): on every formula of up to three
terms over two factors and two numbers, with and without intercept, the model matrix and
its column names are glmm's, column for column."""

from __future__ import annotations

from itertools import combinations

import glmm
import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import parse_formula
from acceptability.stats.mixed.transforms import fit_matrix

RNG = np.random.default_rng(7)
DATA = pd.DataFrame({"y": RNG.normal(size=24),
                     "a": pd.Categorical(list("pqr") * 8),
                     "b": pd.Categorical(list("uuvv") * 6),
                     "x": RNG.normal(size=24), "z": RNG.normal(size=24)})
TERMS = ["a", "b", "x", "z", "a:b", "a:x", "b:x", "x:z", "a:b:x", "b:x:z"]
FORMULAS = [f"{lead}{' + '.join(t)}" for lead in ("", "0 + ")
            for k in (1, 2, 3) for t in combinations(TERMS, k)]


def test_the_formulas_cover_the_rule() -> None:
    assert len(FORMULAS) == 2 * (10 + 45 + 120)


@pytest.mark.parametrize("rhs", FORMULAS)
def test_model_matrix_is_glmms(rhs: str) -> None:
    want, names = glmm.model_matrix(DATA, f"y ~ {rhs}")
    x, part = fit_matrix(parse_formula(f"y ~ {rhs} + (1 | a)"), DATA.copy())
    assert part.xnames == list(names)
    np.testing.assert_array_equal(x, want)
