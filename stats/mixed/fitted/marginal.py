"""What emmeans computes on the reference grid of each kind of model: the prediction of
each grid row as a function of the coefficients (its value and gradient), their
covariance and the df of any linear combination (Lenth 2016, J. Stat. Softw. 69(1);
emmeans' ``emm_basis`` methods).

- lmer: x'beta; Kenward-Roger's adjusted covariance and df (pbkrtest), Satterthwaite's df
  (lmerTest) or ``asymptotic`` (lme4's covariance, df = Inf).
- glmer: x'beta on the link scale, df = Inf; ``type="response"`` back-transforms
  (delta-method SEs, intervals back-transformed from the link scale).
- clm, clmm (ordinal's and emmeans' ``mode="latent"``): x'beta - mean(theta_j), the
  latent variable's location less the mean threshold; ``mode="prob"``: Pr(Y = j) =
  F(theta_j - x'beta) - F(theta_{j-1} - x'beta) at each grid row, the response as one
  more grid factor, with its gradient in (alpha, beta) for delta-method SEs (clmm: at
  random effects 0, as emmeans). df = Inf.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.mixed import transforms
from acceptability.stats.mixed.fitted.adjust import adjust_p
from acceptability.stats.mixed.fitted.ftests import DDF_METHODS
from acceptability.stats.mixed.lmm.pls import PlsFit

if TYPE_CHECKING:
    from acceptability.stats.mixed.results import MixedResult

__all__ = ["Basis", "Scale", "adjust_note", "basis", "df_method", "means_table", "model_kind", "pairs_table",
           "response_scale", "with_response"]

LMER_DF = {**DDF_METHODS, "asymptotic": "asymptotic"}


@dataclass(frozen=True)
class Basis:
    """Grid predictions ``est`` with their gradient ``jac`` in the coefficients, the
    coefficients' covariance ``vcov`` and ``df`` of linear combinations (rows of jac)."""

    est: np.ndarray
    jac: np.ndarray
    vcov: np.ndarray
    df: Callable[[np.ndarray], np.ndarray]
    method: str  # emmeans' name of the df method


def _infinite(jac: np.ndarray) -> np.ndarray:
    return np.full(len(jac), np.inf)


def model_kind(model: Any) -> str:
    """``"lmer"``, ``"glmer"`` or ``"ordinal"`` (clm, clmm); anything else is refused."""
    if hasattr(getattr(model, "design", None), "thresholds"):
        return "ordinal"
    if isinstance(getattr(model, "state", None), PlsFit):
        return "lmer"
    if hasattr(getattr(model, "design", None), "glm_family") and hasattr(model, "_new_x"):
        return "glmer"
    raise ValueError(f"emmeans takes fits of lmer, glmer, clm or clmm, not a {type(model).__name__}")


def df_method(kind: str, lmer_df: str) -> str:
    """emmeans' ``lmer.df`` of an lmer fit ("Kenward-Roger", "Satterthwaite" or
    "asymptotic"); every other model is asymptotic."""
    key = str(lmer_df).strip().lower()
    if key not in LMER_DF:
        raise ValueError(f"lmer_df={lmer_df!r}: use 'kenward-roger', 'satterthwaite' or 'asymptotic'")
    return LMER_DF[key] if kind == "lmer" else "asymptotic"


def with_response(model: Any, grid: pd.DataFrame,
                  levels: dict[str, list[str]]) -> tuple[pd.DataFrame, dict[str, list[str]]]:
    """The grid of ``mode="prob"``: the reference grid repeated for each response
    category, the response a grid factor varying slowest (emmeans' ``mode = "prob"``)."""
    name, cats = model.formula.response, [str(c) for c in model.levels]
    out = pd.concat([grid.assign(**{name: c}) for c in cats], ignore_index=True)
    return out, {**levels, name: cats}


def _grid_x(model: Any, grid: pd.DataFrame) -> np.ndarray:
    """X of the grid rows, with the fit's levels, contrasts and transformations (its
    ``FixedPart``, as ``predict``)."""
    rows = grid.copy()
    for name in rows.columns:  # factor(x) of a numeric column: the grid holds its labels
        if name in model.frame.columns and pd.api.types.is_numeric_dtype(model.frame[name]) \
                and not pd.api.types.is_numeric_dtype(rows[name]):
            rows[name] = pd.to_numeric(rows[name]).astype(model.frame[name].dtype)
    part = getattr(model.design, "fixed_part", None) or transforms.fixed_part(model.formula, model.frame)
    return part.matrix(rows)[0]


def _ordinal(model: Any, grid: pd.DataFrame, mode: str) -> Basis:
    d = model.design
    if d.nominal is not None or d.scale is not None:
        raise ValueError("emmeans of a clm/clmm with nominal or scale effects: not available; "
                         "fit the model without nominal= and scale=")
    nloc, tjac = d.nloc, d.thresholds.tjac
    vcov = model.vcov.to_numpy()[:nloc, :nloc]
    par = np.asarray(model.par, float)[:nloc]
    if mode == "latent":
        x = _grid_x(model, grid)[:, 1:]
        jac = np.hstack([np.tile(-tjac.mean(axis=0), (len(x), 1)), x])
        return Basis(jac @ par, jac, vcov, _infinite, "asymptotic")
    name = model.formula.response
    base = grid[grid[name] == str(model.levels[0])].drop(columns=name)
    x = _grid_x(model, base)[:, 1:]
    eta, theta = x @ par[d.nalpha:], tjac @ par[:d.nalpha]
    u = theta[None, :] - eta[:, None]
    zeros = np.zeros((len(x), 1))
    cum = np.hstack([zeros, d.link.cdf(u), zeros + 1])
    dens = np.hstack([zeros, d.link.pdf(u), zeros])
    tpad = np.vstack([np.zeros((1, tjac.shape[1])), tjac, np.zeros((1, tjac.shape[1]))])
    k = len(model.levels)
    prob = cum[:, 1:] - cum[:, :-1]  # (rows, K)
    dalpha = dens[:, 1:, None] * tpad[None, 1:] - dens[:, :-1, None] * tpad[None, :-1]
    dbeta = -(dens[:, 1:] - dens[:, :-1])[:, :, None] * x[:, None, :]
    jac = np.concatenate([dalpha, dbeta], axis=2).transpose(1, 0, 2).reshape(k * len(x), nloc)
    return Basis(prob.T.reshape(-1), jac, vcov, _infinite, "asymptotic")


def basis(model: MixedResult, grid: pd.DataFrame, method: str, mode: str = "latent") -> Basis:
    """The ``Basis`` of ``model`` on ``grid``."""
    kind = model_kind(model)
    offset = getattr(model.design, "offset", None)
    if offset is not None and np.any(offset != 0):
        raise ValueError("emmeans of a fit with an offset: not available (emmeans puts offset terms on its "
                         "reference grid, this package does not yet); refit without the offset")
    if kind == "ordinal":
        return _ordinal(model, grid, mode)
    x = _grid_x(model, grid)
    est = x @ model.fixef.to_numpy()
    if method == "Kenward-Roger":
        kr = model._kenward_roger
        return Basis(est, x, kr.vcov_adjusted, lambda j: np.array([kr.ddf(r) for r in j]), "kenward-roger")
    if method == "Satterthwaite":
        return Basis(est, x, model.vcov.to_numpy(), model._satterthwaite.df, "satterthwaite")
    return Basis(est, x, model.vcov.to_numpy(), _infinite, "asymptotic")


@dataclass(frozen=True)
class Scale:
    """The scale of the estimates: emmeans' column name and, on a glmer's response scale,
    the link whose inverse back-transforms them (``ratio``: the name of exp of a
    difference, for a log or logit link)."""

    name: str = "emmean"
    link: Any = None
    ratio: str | None = None


def response_scale(model: Any, kind: str, type: str, mode: str) -> Scale:
    """Check ``type`` and ``mode`` against the model and give the estimates' scale."""
    if type not in ("link", "response") or (type == "response" and kind == "ordinal"):
        raise ValueError(f"type={type!r}: use 'link' or, for a glmer fit, 'response' (clm/clmm: mode=)")
    if mode not in ("latent", "prob") or (mode == "prob" and kind != "ordinal"):
        raise ValueError(f"mode={mode!r}: use 'latent' or, for a clm/clmm fit, 'prob'")
    if mode == "prob":
        return Scale("prob")
    if type == "link" or kind != "glmer" or model.design.glm_family.link.is_identity:
        return Scale()
    fam = model.design.glm_family
    return Scale(fam.response_scale, fam.link, fam.link.ratio)


def _errors(jac: np.ndarray, b: Basis) -> tuple[np.ndarray, np.ndarray]:
    """SE and df of the linear combinations ``jac`` of the coefficients."""
    se = np.sqrt(np.einsum("ij,jk,ik->i", jac, b.vcov, jac))
    return se, np.asarray(b.df(jac), float)


def means_table(est: np.ndarray, jac: np.ndarray, b: Basis, level: float, scale: Scale) -> pd.DataFrame:
    """emmeans' summary of the means: estimate, SE, df and the interval (``lower.CL``,
    ``upper.CL``; ``asymp.LCL``, ``asymp.UCL`` when df = Inf), back-transformed on a
    response scale (SE times dmu/deta)."""
    se, df = _errors(jac, b)
    half = np.where(np.isinf(df), sps.norm.ppf((1 + level) / 2),
                    sps.t.ppf((1 + level) / 2, np.where(np.isinf(df), 1, df))) * se
    lo, hi = est - half, est + half
    if scale.link is not None:
        inv = scale.link.linkinv
        se = se * np.abs(scale.link.mu_eta(est))
        est, lo, hi = inv(est), np.minimum(inv(lo), inv(hi)), np.maximum(inv(lo), inv(hi))
    names = ("asymp.LCL", "asymp.UCL") if np.all(np.isinf(df)) else ("lower.CL", "upper.CL")
    return pd.DataFrame({scale.name: est, "SE": se, "df": df, names[0]: lo, names[1]: hi})


def _contrast_labels(cells: list[tuple[str, ...]], factors: list[str],
                     levels: dict[str, list[str]], sep: str = " - ") -> list[str]:
    """emmeans' labels of the pairs of ``cells``, each difference ``a - b`` (``a / b`` for
    a ratio): a factor whose levels are all numbers gets its name in front of them, levels
    joined by a space, wrapped in parentheses when a label holds ``-``, ``+``, ``/`` or ``*``."""
    def numeric(levs: list[str]) -> bool:
        try:
            [float(v) for v in levs]
        except ValueError:
            return False
        return True

    enhance = {f: numeric(levels[f]) for f in factors}
    out = []
    for c in cells:
        label = " ".join(f"{f}{v}" if enhance[f] else v for f, v in zip(factors, c, strict=True))
        out.append(f"({label})" if re.search(r"[-+/*]", label) else label)
    return [f"{out[i]}{sep}{out[j]}" for i, j in itertools.combinations(range(len(out)), 2)]


def pairs_table(est: np.ndarray, jac: np.ndarray, b: Basis, cells: tuple, adjust: str,
                scale: Scale) -> pd.DataFrame:
    """emmeans' ``pairs``: every difference of two means within each by group (emmeans'
    ``pairwise.emmc``), each family's p-values adjusted; on a response scale with a log or
    logit link the ratios exp(difference) (SE by the delta method, tests on the link scale)."""
    rows, spec, by_vars, levels = cells
    groups = list(dict.fromkeys(c[len(spec):] for c in rows))
    k = len(rows) // len(groups)
    pairs = list(itertools.combinations(range(k), 2))
    ratio = scale.ratio if scale.link is not None else None
    labels = _contrast_labels([c[:len(spec)] for c in rows[:k]], spec, levels, " / " if ratio else " - ")
    blocks = []
    for g, key in enumerate(groups):
        C = np.zeros((len(pairs), len(rows)))
        for r, (i, j) in enumerate(pairs):
            C[r, g * k + i], C[r, g * k + j] = 1, -1
        e, L = C @ est, C @ jac
        se, df = _errors(L, b)
        t = e / se
        p = adjust_p(t, df, adjust, k, L @ b.vcov @ L.T)
        block = pd.DataFrame({"contrast": labels, **dict(zip(by_vars, key, strict=True))})
        stat = "z.ratio" if np.all(np.isinf(df)) else "t.ratio"
        if ratio:
            block = block.assign(**{ratio: np.exp(e), "SE": np.exp(e) * se, "df": df, "null": 1.0})
        else:
            block = block.assign(estimate=e, SE=se, df=df)
        blocks.append(block.assign(**{stat: t, "p.value": p}))
    return pd.concat(blocks, ignore_index=True) if blocks else pd.DataFrame()


def adjust_note(adjust: str, k: int) -> str:
    """emmeans' footnote of the adjustment of a family of pairs of ``k`` means."""
    m = k * (k - 1) // 2
    family = f"tukey method for comparing a family of {k} estimates" if adjust == "tukey" else \
        "none" if adjust == "none" else f"{adjust} method for {m} tests"
    return f"P value adjustment: {family}"
