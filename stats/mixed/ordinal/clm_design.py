"""The design of a cumulative link model (R's ``ordinal::clm`` and ``clmm``; Christensen
2019, "Cumulative link models for ordinal regression with the R package ordinal", section 3):
the ordinal response, the threshold structure, the location's model matrix, offset, case
weights and the nominal and scale effects, and the matrices B1, B2 that map the location
parameters to each row's interval ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from acceptability.stats.mixed.checks import prepare_frame
from acceptability.stats.mixed.design import fixed_matrix
from acceptability.stats.mixed.formula import Formula, parse_formula
from acceptability.stats.mixed.ordinal.clm_effects import (
    EffectMatrix,
    aliased_columns,
    effect_formula,
    effect_matrix,
    nominal_blocks,
)
from acceptability.stats.mixed.ordinal.ordinal_links import CumulativeLink, cumulative_link
from acceptability.stats.mixed.ordinal.thresholds import (
    Thresholds,
    make_thresholds,
    ordinal_response,
)
from acceptability.stats.mixed.transforms import formula_offset
from acceptability.stats.mixed.weights import pop_row_values, with_row_values

__all__ = ["OrdinalDesign", "ordinal_design"]


@dataclass
class OrdinalDesign:
    """Response categories, fixed effects and thresholds of a cumulative link model.

    ``X`` is the model matrix with its ``(Intercept)`` column (the thresholds take its
    place in the model: ``beta`` has the other columns). A row in category j has ends
    a = theta_j - x'beta and b = theta_{j-1} - x'beta, linear in the location parameters
    (alpha, beta): a = B1 par, b = B2 par (ordinal's ``B1``, ``B2``), a = +inf in the top
    category and b = -inf in the bottom one. ``offset`` is the known part of the location,
    x'beta + offset (the formula's ``offset(...)`` terms, zeros without; ordinal's ``offset``):
    both ends less it. ``weights`` are case weights (ordinal's ``weights``: row i counts
    w_i times; None: 1). ``nominal`` makes the thresholds depend on covariates and
    ``scale`` divides both ends by exp(z'zeta) ([clm_effects][acceptability.stats.mixed.ordinal.clm_effects]);
    the parameters are (alpha, beta, zeta)."""

    formula: Formula
    frame: pd.DataFrame
    y: np.ndarray  # category codes 0..K-1
    X: np.ndarray
    xnames: list[str]
    thresholds: Thresholds
    link: CumulativeLink
    offset: np.ndarray
    n_dropped: int = 0
    weights: np.ndarray | None = None
    nominal: EffectMatrix | None = None
    scale: EffectMatrix | None = None
    aliased: list[str] = field(default_factory=list)  # X columns the nominal effects span

    @property
    def levels(self) -> tuple[str, ...]:
        return self.thresholds.levels

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def case_weights(self) -> np.ndarray:
        """The case weights, ones without ``weights``."""
        return np.ones(self.n) if self.weights is None else self.weights

    @property
    def nalpha(self) -> int:
        nom = 1 if self.nominal is None else self.nominal.M.shape[1]
        return nom * self.thresholds.tjac.shape[1]

    @property
    def nloc(self) -> int:
        """Number of location parameters (alpha, beta): the columns of B1 and B2."""
        return self.nalpha + self.X.shape[1] - 1

    @property
    def nzeta(self) -> int:
        return 0 if self.scale is None else self.scale.M.shape[1]

    @property
    def npar(self) -> int:
        return self.nloc + self.nzeta

    @property
    def alpha_names(self) -> list[str]:
        """ordinal's names: ``1|2``, ... or, with nominal effects, ``1|2.(Intercept)``, ...,
        ``1|2.contactyes``, ..."""
        if self.nominal is None:
            return list(self.thresholds.names)
        return [f"{a}.{s}" for s in self.nominal.names for a in self.thresholds.names]

    @property
    def par_names(self) -> list[str]:
        zeta = [] if self.scale is None else self.scale.names
        return [*self.alpha_names, *self.xnames[1:], *zeta]

    @cached_property
    def _b_matrices(self) -> tuple[np.ndarray, np.ndarray]:
        tjac = self.thresholds.tjac
        upper = np.vstack([tjac, np.zeros((1, tjac.shape[1]))])[self.y]
        lower = np.vstack([np.zeros((1, tjac.shape[1])), tjac])[self.y]
        if self.nominal is not None:
            upper, lower = nominal_blocks(self.nominal.M, upper, lower)
        minus_x = -self.X[:, 1:]
        return np.hstack([upper, minus_x]), np.hstack([lower, minus_x])

    @property
    def B1(self) -> np.ndarray:
        """d a / d par (zero rows in the top category)."""
        return self._b_matrices[0]

    @property
    def B2(self) -> np.ndarray:
        """d b / d par (zero rows in the bottom category)."""
        return self._b_matrices[1]

    @cached_property
    def end_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows in the top category (a = +inf) and in the bottom one (b = -inf)."""
        return self.y == len(self.levels) - 1, self.y == 0

    def ends(self, par: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(a, b) of every row at the location parameters ``par`` (no scale effects)."""
        top, bottom = self.end_rows
        a = np.where(top, np.inf, self.B1 @ par - self.offset)
        b = np.where(bottom, -np.inf, self.B2 @ par - self.offset)
        return a, b

    def start(self) -> np.ndarray:
        """ordinal's start: threshold quantiles for the intercept's thresholds, zeros for
        the nominal, regression and scale parameters."""
        out = np.zeros(self.npar)
        out[:self.thresholds.tjac.shape[1]] = self.thresholds.start()
        return out


def ordinal_design(formula: str, data: pd.DataFrame, link: str = "logit",
                   threshold: str = "flexible", random: bool = False, *,
                   weights: object = None, nominal: str | None = None,
                   scale: str | None = None, contrasts: dict[str, object] | None = None) -> OrdinalDesign:
    """Check and set up a cumulative link model: the formula (random intercept terms only
    when ``random``), the rows complete in its columns (and those of ``nominal``, ``scale``
    and ``weights``: a column name or one positive value per row), the ordinal response,
    the fixed effects without intercept, the offset and the threshold structure. Fixed
    effects are coded as elsewhere in this package (R's ``model.matrix``, treatment
    contrasts)."""
    parsed = parse_formula(formula)
    if parsed.random and not random:
        raise ValueError(f"formula {formula!r} has random-effects terms: fit it with clmm")
    if random and not parsed.random:
        raise ValueError(f"formula {formula!r} has no random-effects term (1 | group): "
                         "clmm needs one; without random effects use clm")
    if not parsed.response.isidentifier():
        raise ValueError(f"response {parsed.response!r} is not a column name: create it as a "
                         "column (an ordered Categorical or whole-number ratings) first")
    link_obj = cumulative_link(link)
    effects = {k: effect_formula(v, parsed.response, k) for k, v in (("nominal", nominal), ("scale", scale))}
    for f in effects.values():
        if f is not None:
            f.check_columns(data)
    data, added = with_row_values(data, weights=weights)
    used = set(parsed.columns())
    extra = [c for f in effects.values() if f is not None for c in f.columns() if c not in used]
    frame, n_dropped = prepare_frame(parsed, data, (*dict.fromkeys(extra), *added))
    w, _ = pop_row_values(frame)
    y, levels = ordinal_response(frame[parsed.response], parsed.response, n_dropped)
    thresholds = make_thresholds(levels, threshold)
    x, names = fixed_matrix(parsed, frame, contrasts=contrasts)  # kept in frame.attrs
    if not names or names[0] != "(Intercept)":
        raise ValueError(
            f"fixed part {parsed.fixed!r} has no intercept: in a cumulative link model the "
            "thresholds are the intercepts, so write the formula with its intercept (drop "
            "'0 +' or '- 1')")
    offset = formula_offset(parsed, frame)
    offset = np.zeros(len(y)) if offset is None else offset
    built = {k: None if f is None else effect_matrix(f, frame, k) for k, f in effects.items()}
    aliased: list[str] = []
    if built["nominal"] is not None:
        drop = aliased_columns(x, built["nominal"].M)
        aliased = [n for n, a in zip(names[1:], drop, strict=True) if a]
        x = x[:, np.concatenate([[True], ~drop])]
        names = [names[0], *(n for n, a in zip(names[1:], drop, strict=True) if not a)]
    return OrdinalDesign(parsed, frame, y, x, names, thresholds, link_obj, offset, n_dropped,
                         w, built["nominal"], built["scale"], aliased)
