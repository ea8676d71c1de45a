"""Checks and set-up of the data of a mixed model: one clear error per problem, before any
fit, naming the column, term or rows at fault and how to fix them (lme4's own checks in
``lFormula``/``glFormula``, ``checkZdims``, ``checkNlevels``, plus the ones it lacks)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from scipy import linalg

from acceptability._warnings import warn
from acceptability.stats.mixed.design import MixedDesign, group_key
from acceptability.stats.mixed.formula import Formula, parse_formula
from acceptability.stats.mixed.glmm.families import Family
from acceptability.stats.mixed.slopes import factor_levels, is_factor, term_columns
from acceptability.stats.mixed.transforms import (
    PARAMS_KEY,
    expression_columns,
    learn_stateful,
    response_values,
)

__all__ = ["Response", "check_reml", "check_separation", "check_variation", "convergence_messages",
           "prepare_frame", "response"]

_CBIND = re.compile(r"^cbind\((.*)\)$")
_COUNT = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(?:-\s*([A-Za-z_][\w.]*)\s*)?$")


class Response:
    """The response of a model: one column, a transformation of columns (``log(rt)``:
    [transforms][acceptability.stats.mixed.transforms]), or ``cbind(successes, failures)``
    where ``failures`` may be written ``n - successes``."""

    def __init__(self, text: str) -> None:
        self.text = text.strip()
        m = _CBIND.match(self.text)
        self.cbind = m is not None
        if not self.cbind:
            plain = re.fullmatch(r"[A-Za-z_][\w.]*", self.text)
            self.columns = [self.text] if plain else expression_columns(self.text)
            return
        args = [a.strip() for a in m.group(1).split(",")]
        parsed = [_COUNT.match(a) for a in args]
        if len(args) != 2 or not all(parsed):
            raise ValueError(
                f"response {self.text!r}: write cbind(successes, failures) with column names, "
                "e.g. cbind(incidence, size - incidence)")
        self.parts = [(p.group(1), p.group(2)) for p in parsed]
        self.columns = [c for pair in self.parts for c in pair if c]

    def values(self, frame: pd.DataFrame) -> pd.Series:
        """The response column, or its expression evaluated on ``frame``'s rows."""
        return frame[self.text] if self.text in frame.columns else response_values(self.text, frame)

    def counts(self, frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """(successes, failures) of a cbind() response."""
        out = []
        for plus, minus in self.parts:
            v = frame[plus].to_numpy(dtype=float)
            out.append(v - frame[minus].to_numpy(dtype=float) if minus else v)
        return out[0], out[1]


def response(formula: Formula) -> Response:
    return Response(formula.response)


def check_reml(REML: object) -> bool:
    if not isinstance(REML, (bool, np.bool_)):
        raise TypeError(f"REML={REML!r}: use REML=True (the default) or REML=False (maximum likelihood)")
    return bool(REML)


def _check_terms(formula: Formula, frame: pd.DataFrame) -> None:
    seen = set()
    for term in formula.random:
        key = (term.intercept, term.slopes, term.factors)
        if key in seen:
            raise ValueError(f"random-effects term {term} appears twice in {formula.text!r}: remove one")
        seen.add(key)
        for s in term.slopes:
            if is_factor(frame[s]) and len(levels := factor_levels(frame[s])) < 2:
                raise ValueError(
                    f"random slope factor {s!r} in {term} has one level ({levels[0]!r}) in the "
                    "rows used: it has no contrast to estimate (R: 'contrasts can be applied only "
                    "to factors with 2 or more levels'); drop it from the term")
    for name in formula.fixed_columns():
        col = frame[name]
        factor = not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col)
        if factor and col.nunique() < 2:
            raise ValueError(
                f"fixed-effect factor {name!r} has one level ({col.iloc[0]!r}) in the rows "
                "used: it has no contrast to estimate; drop it from the formula")


def _check_finite(formula: Formula, frame: pd.DataFrame) -> None:
    for name in formula.columns():
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            bad = ~np.isfinite(col.to_numpy(dtype=float))
            if bad.any():
                rows = list(frame.index[bad][:5])
                raise ValueError(
                    f"column {name!r} has {int(bad.sum())} infinite value(s) (rows {rows}...): "
                    "remove or recode them; missing values (NaN) are dropped and counted instead")


def _check_levels(formula: Formula, frame: pd.DataFrame, n: int | None) -> None:
    for term in formula.random:
        nlev = group_key(frame, term.factors).nunique()
        if nlev < 2:
            raise ValueError(
                f"grouping factor {term.group!r} in {term} has {nlev} level(s); a random effect "
                "needs at least 2 (lme4: 'grouping factors must have > 1 sampled level'); "
                "drop the term or fit a fixed effect")
        ncoef = len(term_columns(term, frame)[1])
        if n is not None and nlev * ncoef >= n:
            raise ValueError(
                f"{term} has {nlev} level(s) x {ncoef} coefficient(s) for {n} rows: "
                "the random effects and the residual variance are unidentifiable (lme4: "
                "'number of levels of each grouping factor must be < number of observations'); "
                "drop the term or collect more than one row per level")


def prepare_frame(formula: Formula, data: pd.DataFrame, extra: tuple[str, ...] = (),
                  linear: bool = True) -> tuple[pd.DataFrame, int]:
    """Check columns and terms, drop rows with missing values in used columns and the
    ``extra`` ones (``(weights)``, ``(offset)``), counted; return (frame, n_dropped). Only a
    linear model (``linear``) needs fewer levels than rows in each term (lme4's
    ``check.nobs.vs.nlev``, which glmer ignores: observation-level random effects)."""
    formula.check_columns(data)
    cols = [*formula.columns(), *extra]
    # column by column in numpy, columns taken by position, rows selected only where some
    # are incomplete: pandas' frame-wide notna().all(), data[cols] and .loc copy were half
    # of clm's time on ordinal's wine
    keep = np.logical_and.reduce([data[c].notna().to_numpy() for c in cols], initial=True)
    pos = [data.columns.get_loc(c) for c in cols]
    frame = data.take(pos, axis=1) if all(isinstance(p, int) for p in pos) else data[cols]
    frame = frame if keep.all() else frame.loc[keep]
    frame.attrs[PARAMS_KEY] = learn_stateful(formula, data, strict=False)  # R: before na.omit
    if frame.empty:
        raise ValueError(f"no complete rows for formula {formula.text!r}: check columns {cols}")
    _check_finite(formula, frame)
    _check_terms(formula, frame)
    _check_levels(formula, frame, len(frame) if linear else None)
    return frame, int((~keep).sum())


def lmer_response(formula: Formula, frame: pd.DataFrame) -> np.ndarray:
    """The numeric response of a linear mixed model, or a clear error."""
    r = response(formula)
    if r.cbind:
        raise ValueError(
            f"response {r.text!r} is a binomial count: fit it with stats.glmer(..., family='binomial')")
    col = r.values(frame)
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        raise ValueError(
            f"response {r.text!r} is {col.dtype}, not numeric: lmer needs a numeric response; "
            "for a yes/no outcome use stats.glmer(..., family='binomial')")
    y = col.to_numpy(dtype=float)
    if set(np.unique(y)) <= {0.0, 1.0}:
        warn(f"lmer: response {r.text!r} holds only 0 and 1: a linear model of it is a linear "
             "probability model; for a binary outcome use stats.glmer(..., family='binomial')")
    return y


def _binary(col: pd.Series, name: str) -> pd.Series:
    """A binomial response as numbers: TRUE/FALSE, or a two-level factor (a pandas
    Categorical in its order of categories, strings sorted as R's factor() sorts them),
    whose first level is failure (0), as R's binomial family reads a factor."""
    if pd.api.types.is_bool_dtype(col):
        return col.astype(int)
    if pd.api.types.is_numeric_dtype(col):
        return col
    levels = (list(col.cat.categories) if isinstance(col.dtype, pd.CategoricalDtype)
              else sorted(col.astype(str).unique()))
    if len(levels) != 2:
        raise ValueError(
            f"binomial response {name!r} is not numeric and has {len(levels)} level(s) "
            f"{levels[:6]}: a factor response needs exactly two (the first is failure, as in "
            "R); recode it to 0/1, or use stats.clmm for ordered categories")
    codes = col.cat.codes if isinstance(col.dtype, pd.CategoricalDtype) else (col.astype(str) == levels[1])
    return pd.Series(np.asarray(codes, int), index=col.index)


def glmer_response(formula: Formula, frame: pd.DataFrame, family: Family,
                   weighted: bool = False) -> tuple[np.ndarray, np.ndarray | None]:
    """(response, trials) of a GLMM, checked as R's ``family$initialize`` checks it: for
    binomial, 0/1, TRUE/FALSE, a two-level factor or strings (first level = failure),
    ``cbind(successes, failures)`` or, with prior weights, proportions; whole counts for
    poisson and the negative binomial; positive values for Gamma, the inverse Gaussian and
    a gaussian log link; a clear error for anything else."""
    r = response(formula)
    if r.cbind:
        if not family.binary:
            raise ValueError(f"cbind() response {r.text!r} needs family='binomial'")
        s, f = r.counts(frame)
        for name, v in (("successes", s), ("failures", f)):
            if (v < 0).any() or (v != np.round(v)).any():
                rows = list(frame.index[(v < 0) | (v != np.round(v))][:5])
                raise ValueError(
                    f"cbind response {r.text!r}: {name} must be non-negative whole numbers; "
                    f"rows {rows} are not")
        n = s + f
        if (n == 0).any():
            raise ValueError(f"cbind response {r.text!r}: rows {list(frame.index[n == 0][:5])} have 0 trials")
        return s / n, n
    col = r.values(frame)
    if family.binary:
        col = _binary(col, r.text)
    if pd.api.types.is_bool_dtype(col) or not pd.api.types.is_numeric_dtype(col):
        raise ValueError(f"response {r.text!r} is {col.dtype}, not numeric: family "
                         f"{family.name!r} needs numbers")
    y = col.to_numpy(dtype=float)
    bad, rule = family.outside(y, weighted)
    if bad.any():
        raise ValueError(f"{family.name} response {r.text!r} must be {rule}; rows "
                         f"{list(frame.index[bad][:5])} hold {sorted(set(y[bad]))[:5]}")
    return y, None


def parse(formula: str) -> Formula:
    """Parse with the checks every mixed model needs (a random term is required)."""
    parsed = parse_formula(formula)
    if not parsed.random:
        raise ValueError(
            f"formula {formula!r} has no random-effects term (1 | group): a mixed model needs one; "
            "for fixed effects only use statsmodels' ols/glm")
    return parsed


def _no_variation(d: MixedDesign) -> str | None:
    """What leaves the response of ``d`` nothing to estimate, or None: a constant linear (or
    scaled-family) response, or one its fixed effects fit exactly (the residual variance is
    0); a binomial response of one outcome (the intercept runs to -+infinity); counts that
    are all 0 (the log of their mean runs to -infinity)."""
    rows = f"in all {d.n} rows used" + (f" ({d.n_dropped} dropped for missing values)" if d.n_dropped else "")
    if (why := d.glm_family.no_variation(d.y, d.offset, rows)) is not None or not d.glm_family.linear:
        return why
    y, less = (d.y, "") if d.offset is None else (d.y - d.offset, " less the offset")
    c, _ = d.centred_response
    if np.max(np.abs(c)) <= 64 * np.finfo(float).eps * np.max(np.abs(y)):
        return (f"{less} is an exact linear function of the fixed effects "
                f"{d.xnames}: the residual variance is 0, so there is nothing left to "
                "estimate. Check that the response is not computed from a predictor")
    return None


def check_variation(d: MixedDesign) -> None:
    """Refuse, naming the response and why, a response with nothing to estimate
    (``_no_variation``): lme4 fails on it with a numerical error or NaN estimates."""
    if (why := _no_variation(d)) is not None:
        kind = "lmer" if d.glm_family.linear else f"glmer ({d.family})"
        raise ValueError(f"{kind}: response {d.formula.response!r} {why.lstrip()}")


def check_separation(d: MixedDesign) -> None:
    """Warn when a fixed-effect column separates 0/1 outcomes perfectly (estimates diverge)."""
    y = d.y
    if d.trials is not None or not set(np.unique(y)) <= {0.0, 1.0}:
        return
    for j, name in enumerate(d.xnames):
        x = d.X[:, j]
        if name == "(Intercept)" or np.ptp(x) == 0:
            continue
        if x[y == 1].min() > x[y == 0].max() or x[y == 0].min() > x[y == 1].max():
            warn(f"glmer: {name!r} separates the 0/1 responses of {d.formula.response!r} "
                 "perfectly: its estimate and standard error are not finite in truth "
                 "(complete separation); consider a penalised (Bayesian) fit, stats.brm")


def _hessian_messages(h: np.ndarray, tol: float, kind: str = "") -> list[str]:
    """lme4's ``checkHess``: negative, zero or very large eigenvalues of a Hessian."""
    if not np.all(np.isfinite(h)):
        return ["Problem with Hessian check (infinite or missing values?)"]
    ev = np.linalg.eigvalsh((h + h.T) / 2)
    what = f"{kind} Hessian" if kind else "Hessian"
    if (neg := int(np.sum(ev < -tol))) > 0:
        return [f"Model failed to converge: degenerate {what} with {neg} negative eigenvalues"]
    if np.any(np.abs(ev) < tol) or ev.min() <= 0:
        return [f"{what} is numerically singular: parameters are not uniquely determined"]
    out = []
    if ev.max() * tol > 1:
        out.append("Model is nearly unidentifiable: very large eigenvalue - Rescale variables?")
    if ev.min() / ev.max() < tol:
        out.append("Model is nearly unidentifiable: large eigenvalue ratio - Rescale variables?")
    return out


def convergence_messages(gradient: np.ndarray, hessian: np.ndarray, ntheta: int,
                         grad_tol: float = 0.002, hess_tol: float = 1e-6) -> list[str]:
    """lme4's ``checkConv`` at an optimum: ``gradient`` and ``hessian`` of the deviance
    (-2 log L) in (theta, beta, ...), theta first. The scaled gradient ``solve(chol(H), g)``
    (the smaller of it and ``g``, elementwise) above ``grad_tol``: "Model failed to converge
    with max|grad| = ..."; then lme4's ``checkHess`` of the fixed-effect block and of the
    whole Hessian (tolerance ``hess_tol``). Empty when the fit passes (glmerControl's
    defaults, lme4 1.1-31)."""
    g = np.asarray(gradient, float)
    out = []
    try:
        scaled = linalg.solve_triangular(linalg.cholesky(hessian), g, lower=False)
    except (np.linalg.LinAlgError, ValueError):
        scaled = None
    if scaled is None or not np.all(np.isfinite(scaled)):
        out.append("unable to evaluate scaled gradient")
    else:
        small = np.minimum(np.abs(scaled), np.abs(g))
        if small.max(initial=0.0) > grad_tol:
            out.append(f"Model failed to converge with max|grad| = {small.max():.6g} (tol = {grad_tol:g}, "
                       f"component {int(np.argmax(small)) + 1})")
    if hessian.shape[0] > ntheta:
        out += _hessian_messages(hessian[ntheta:, ntheta:], hess_tol, "fixed-effect")
    return out + [m for m in _hessian_messages(hessian, hess_tol) if m not in out]
