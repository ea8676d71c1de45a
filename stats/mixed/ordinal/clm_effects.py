"""Nominal and scale effects of a cumulative link model (ordinal's ``clm(nominal = ~ ...,
scale = ~ ...)``; Christensen 2019, "Cumulative link models for ordinal regression with the
R package ordinal", sections 2.4-2.5; Peterson & Harrell 1990 for partial proportional odds).

Nominal effects make the thresholds depend on covariates: theta_ij = sum_k s_ik (J alpha_k)_j
for the nominal model matrix S (with its intercept), one set of threshold parameters per
column of S, named ``1|2.(Intercept)``, ..., ``1|2.contactyes``, ... as ordinal names them.
Scale effects divide the location by sigma_i = exp(z_i'zeta) (Z without intercept):
Pr(Y <= j) = F((theta_j - x'beta) / sigma_i). A column of X that the nominal effects already
span is aliased (ordinal sets it to NA): it is left out of the fit and listed in ``aliased``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from acceptability.stats.mixed.design import fixed_design
from acceptability.stats.mixed.formula import Formula, parse_formula
from acceptability.stats.mixed.ordinal.ordinal_links import interval
from acceptability.stats.mixed.transforms import FixedPart

__all__ = ["EffectMatrix", "aliased_columns", "effect_formula", "effect_matrix",
           "nominal_blocks", "scale_objective"]


@dataclass
class EffectMatrix:
    """The model matrix of a nominal or scale formula on the fitted rows, its column names
    and the [FixedPart][acceptability.stats.mixed.transforms.FixedPart] that rebuilds it on
    new rows."""

    text: str  # the one-sided formula as given ("~ contact")
    M: np.ndarray
    names: list[str]
    part: FixedPart
    part_columns: list[str]  # the data columns it reads

    def new(self, data: pd.DataFrame) -> np.ndarray:
        """The matrix of new rows with the fit's levels and contrasts."""
        try:
            m, names = self.part.matrix(data)
        except (KeyError, ValueError) as err:
            raise type(err)(f"newdata ({self.text}): {err.args[0]}") from None
        full = list(self.part.xnames)
        return m[:, [full.index(n) for n in self.names]]


def effect_formula(text: str | None, response: str, what: str) -> Formula | None:
    """Parse a one-sided formula ``~ x + z`` of ``nominal`` or ``scale`` (None: none)."""
    if text is None:
        return None
    if not isinstance(text, str) or not text.strip().startswith("~"):
        raise ValueError(f"{what}={text!r}: give a one-sided formula such as '~ contact'")
    f = parse_formula(f"{response} {text.strip()}")
    if f.random or f.offsets:
        raise ValueError(f"{what}={text!r}: random-effect and offset(...) terms are not "
                         "allowed there; write fixed terms only")
    return f


def effect_matrix(f: Formula, frame: pd.DataFrame, what: str) -> EffectMatrix:
    """The model matrix of ``f`` on the fitted rows: with its intercept for ``nominal``,
    without for ``scale`` (ordinal drops it: sigma = 1 is the reference)."""
    x, part = fixed_design(f, frame)
    names = list(part.xnames)
    if not names or names[0] != "(Intercept)":
        raise ValueError(f"{what}='~ {f.fixed}' has no intercept: remove '0 +' or '- 1' "
                         "(ordinal needs it there)")
    keep = slice(None) if what == "nominal" else slice(1, None)
    columns = [c for c in f.columns() if c != f.response]
    return EffectMatrix(f"~{f.fixed}", x[:, keep], names[keep], part, columns)


def aliased_columns(X: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Which columns of X (after its intercept) lie in the span of the nominal matrix S and
    the X columns before them: ordinal's ``drop.coef`` sets their coefficients to NA."""
    kept = S
    out = np.zeros(X.shape[1] - 1, bool)
    for j in range(1, X.shape[1]):
        trial = np.column_stack([kept, X[:, j]])
        if np.linalg.matrix_rank(trial) < trial.shape[1]:
            out[j - 1] = True
        else:
            kept = trial
    return out


def nominal_blocks(S: np.ndarray, upper: np.ndarray, lower: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d a / d alpha and d b / d alpha with nominal effects: row i's threshold Jacobian rows
    (``upper`` = J's row of its category, ``lower`` of the one below) times each s_ik,
    parameters grouped by column of S (ordinal's order)."""
    n = len(S)
    return ((S[:, :, None] * upper[:, None, :]).reshape(n, -1),
            (S[:, :, None] * lower[:, None, :]).reshape(n, -1))


def scale_objective(d, par: np.ndarray, order: int = 0):
    """Negative (weighted) log-likelihood with scale effects, a = (B1 loc - o) / sigma,
    sigma = exp(Z zeta), and its exact gradient and Hessian (ordinal's ``clm.nll`` etc.
    with ``k > 0``): with J_a = [B1 / sigma, -a z'], dP = f(a) J_a - f(b) J_b and the second
    derivatives of a (d2a / dloc dzeta = -B1 z' / sigma, d2a / dzeta2 = a z z')."""
    nloc = d.nloc
    loc, zeta = par[:nloc], par[nloc:]
    Z = d.scale.M
    sigma = np.exp(Z @ zeta)
    top, bottom = d.end_rows
    a = np.where(top, np.inf, (d.B1 @ loc - d.offset) / sigma)
    b = np.where(bottom, -np.inf, (d.B2 @ loc - d.offset) / sigma)
    iv = interval(d.link, a, b)
    p = iv.p
    if not np.all(p > 0):
        return np.inf if order == 0 else (np.inf, *[None] * order)
    w = d.case_weights
    nll = float(-np.sum(w * np.log(p)))
    if order == 0:
        return nll
    af, bf = np.where(np.isfinite(a), a, 0.0), np.where(np.isfinite(b), b, 0.0)
    ja = np.hstack([d.B1 / sigma[:, None], -af[:, None] * Z])
    jb = np.hstack([d.B2 / sigma[:, None], -bf[:, None] * Z])
    dp = ja * iv.fa[:, None] - jb * iv.fb[:, None]
    c = w / p
    grad = -dp.T @ c
    if order == 1:
        return nll, grad
    hess = -(ja.T @ (ja * (c * iv.ga)[:, None]) - jb.T @ (jb * (c * iv.gb)[:, None]))
    hess += dp.T @ (dp * (c / p)[:, None])
    cross = (d.B1 * (c * iv.fa / sigma)[:, None] - d.B2 * (c * iv.fb / sigma)[:, None]).T @ Z
    hess[:nloc, nloc:] += cross
    hess[nloc:, :nloc] += cross.T
    hess[nloc:, nloc:] -= Z.T @ (Z * (c * (iv.fa * af - iv.fb * bf))[:, None])
    return nll, grad, hess
