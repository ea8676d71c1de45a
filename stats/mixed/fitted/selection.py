"""Model selection for linear mixed models: lmerTest's ``ranova``, ``drop1`` and ``step``.

Kuznetsova, Brockhoff & Christensen (2017), "lmerTest package: tests in linear mixed effects
models", J. Stat. Softw. 82(13), section 5 (lmerTest 3.1-3's code, written out here):

- ``ranova``: a likelihood-ratio test of each random term, the model refitted without it (a
  term with slopes is reduced by one slope at a time, ``(1 + x | g)`` to ``(1 | g)``); the
  refits keep the fit's REML or ML criterion, a model left with no random term is R's ``lm``;
- ``drop1``: the F test (Satterthwaite or Kenward-Roger) of each marginal fixed term, the
  hypothesis being that term's own coefficients (``get_contrasts_marginal`` + ``contestMD``);
- ``step``: backward elimination, random terms first (``ranova``, the largest p above
  ``alpha_random`` out, until none is), then fixed terms (``drop1``, ``alpha_fixed``).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.mixed.fitted import ftests
from acceptability.stats.mixed.formula import (
    Formula,
    RandomTerm,
    _bar_term,
    _split_top,
    parse_formula,
)
from acceptability.stats.mixed.lmm.pls import one_blas_thread
from acceptability.stats.mixed.stages import fit, model_design
from acceptability.stats.mixed.weights import total_offset

__all__ = ["LinearModel", "StepResult", "drop1", "ranova", "step"]

_LR_COLUMNS = ["npar", "logLik", "AIC", "LRT", "Df", "Pr(>Chisq)"]


@dataclass(frozen=True)
class LinearModel:
    """A model left with no random term: R's ``lm`` of the same rows, its (REML)
    log-likelihood as R's ``logLik.lm`` computes it."""

    formula: str
    logLik: float
    npar: int
    nobs: int
    REML: bool


def _lm(model, text: str) -> LinearModel:
    """R's ``logLik(lm(...), REML)`` with the model's X, prior weights and offset:
    (sum log w - N (log 2 pi + 1 - log N + log RSS)) / 2, N = n (ML) or n - p (REML, less
    log|R| of the weighted X's QR)."""
    d = model.design
    w = np.ones(d.n) if d.weights is None else d.weights
    y = d.y if d.offset is None else d.y - d.offset
    xw, yw = d.X * np.sqrt(w)[:, None], y * np.sqrt(w)
    beta, *_ = np.linalg.lstsq(xw, yw, rcond=None)
    rss = float(np.sum((yw - xw @ beta) ** 2))
    p = int(np.linalg.matrix_rank(xw))
    n = d.n - p if model.REML else d.n
    val = 0.5 * (np.sum(np.log(w)) - n * (np.log(2 * np.pi) + 1 - np.log(n) + np.log(rss)))
    if model.REML:
        val -= np.sum(np.log(np.abs(np.diag(np.linalg.qr(xw, mode="r")))))[()]
    return LinearModel(text, float(val), p + 1, d.n, model.REML)


def _labels(formula: Formula) -> list[str]:
    """Each random term as R deparses ``findbars``' term (``Days | Subject``), from the
    formula's own text; a ``g/h`` or ``||`` term expanded, in the canonical form."""
    out = []
    rhs = formula.text.split("~", 1)[1]
    for piece in _split_top(rhs, "+"):
        terms = _bar_term(piece)
        if not terms:
            continue
        inner = piece.strip()[1:-1]
        lhs, _, group = inner.partition("|")
        if len(terms) == 1 and "/" not in group:
            lhs_text = " + ".join(p.strip() for p in lhs.split("+"))
            out.append(f"{lhs_text} | {group.replace(' ', '')}")
        else:
            out += [str(t)[1:-1] for t in terms]
    return out


def _text(formula: Formula, fixed: str, labels: list[str]) -> str:
    """The formula ``response ~ fixed + (label) + ...`` (with the formula's offsets)."""
    fixed_rhs = " + ".join([fixed, *(f"offset({o})" for o in formula.offsets)])
    return f"{formula.response} ~ " + " + ".join([fixed_rhs, *(f"({lab})" for lab in labels)])


def _reductions(formula: Formula) -> dict[str, str]:
    """lmerTest's ``get_newforms``: per row of ``ranova``, the reduced formula. A term
    without slopes goes; a term with slopes loses one slope at a time (``x in (x | g)``),
    ``(1 | g)`` when none would be left."""
    labels = _labels(formula)
    out = {}
    for i, (lab, term) in enumerate(zip(labels, formula.random, strict=True)):
        others = labels[:i] + labels[i + 1:]
        if not term.slopes:
            out[f"({lab})"] = _text(formula, formula.fixed, others)
            continue
        for s in term.slopes:
            rest = tuple(x for x in term.slopes if x != s)
            kept = RandomTerm(term.intercept or not rest, rest, term.factors)
            new = labels[:i] + [str(kept)[1:-1]] + labels[i + 1:]
            out[f"{s} in ({lab})"] = _text(formula, formula.fixed, new)
    return out


def _refit(model, text: str):
    """The model refitted to its own rows with the formula ``text`` (same REML or ML,
    weights and offset, no warnings: singular refits are in the result's ``notes``); an
    ``lm`` when ``text`` has no random term."""
    parsed = parse_formula(text)
    if not parsed.random:
        return _lm(model, text)
    d0 = model.design
    extra = d0.offset
    in_formula = total_offset(model.formula, model.frame, None)
    if extra is not None and in_formula is not None:
        extra = extra - in_formula
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = model_design(text, model.frame, weights=d0.weights, offset=extra)
        # warm start: the model's theta for the terms it keeps (ham's refit without
        # (1 | Consumer) took 1.2 s from lme4's start, 0.5 s from here; the same optimum)
        kept = dict(zip((t.term for t in d0.terms), d0.split_theta(model.theta), strict=True))
        start = [kept.get(t.term, s) for t, s in zip(d.terms, d.split_theta(d.theta_start()), strict=True)]
        params = fit(d, REML=model.REML, start={"theta": [float(v) for v in np.concatenate(start)]})
        refit = dataclasses.replace(model, design=d, parameters=params, quiet=True, notes=[])
    if refit.nobs != model.nobs:
        raise ValueError(f"refit of {text!r} used {refit.nobs} rows, the model {model.nobs}")
    return refit


def _lr_table(fits: dict[str, object]) -> pd.DataFrame:
    """lmerTest's ``mk_LRtab``: npar, logLik, AIC and the LRT of each row against the first."""
    names = list(fits)
    npar = np.array([f.npar for f in fits.values()], float)
    ll = np.array([f.logLik for f in fits.values()], float)
    out = pd.DataFrame({"npar": npar.astype(int), "logLik": ll, "AIC": -2 * ll + 2 * npar},
                       index=pd.Index(names, dtype=object))
    lrt, df = 2 * (ll[0] - ll[1:]), npar[0] - npar[1:]
    out["LRT"] = np.r_[np.nan, lrt]
    out["Df"] = np.r_[np.nan, df]
    with np.errstate(invalid="ignore"):
        out["Pr(>Chisq)"] = np.r_[np.nan, np.where(df > 0, sps.chi2.sf(lrt, np.where(df > 0, df, 1)), np.nan)]
    return out


# one BLAS thread for ranova, drop1 and step: their refits, PLS solves and Hessians are of
# small matrices, and OpenBLAS's threads on 2 busy cores made ham's ranova 0.83 s CPU (0.11 s
# with one thread; lmerTest 0.50 s) and step 1.22 s (0.40 s; lmerTest 0.97 s), AMD EPYC
@one_blas_thread
def ranova(model, reduce_terms: bool = True) -> pd.DataFrame:
    """lmerTest's ``ranova(m)``: the likelihood-ratio test of each random term.

    Parameters
    ----------
    model
        A linear mixed model ([lmer][acceptability.stats.mixed.lmm.lmer.lmer]).
    reduce_terms
        True (lmerTest's default): a term with slopes is reduced by one slope at a time
        (row ``x in (1 + x | g)``, the model with ``(1 | g)``); False removes whole terms.

    Returns
    -------
    pandas.DataFrame
        Rows ``<none>`` (the model) and one per reduction; columns npar, logLik, AIC, LRT,
        Df, Pr(>Chisq). ``attrs``: ``formulae`` (row -> the reduced formula), ``notes``
        (row -> the refit's notes, e.g. a singular fit), ``heading``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import lmer, ranova
    >>> y = [3.1, 4.0, 5.2, 5.9, 7.1, 8.2, 8.8, 10.1, 6.0, 7.2, 4.4, 5.1]
    >>> df = pd.DataFrame({"y": y, "x": range(12), "g": list("aabbccddeeff")})
    >>> list(ranova(lmer("y ~ x + (1 | g)", df)).index)
    ['<none>', '(1 | g)']
    """
    ftests.check_lmm(model, "ranova's likelihood-ratio tests")
    f = model.formula
    if reduce_terms:
        forms = _reductions(f)
    else:
        labels = _labels(f)
        forms = {f"({lab})": _text(f, f.fixed, [x for x in labels if x != lab]) for lab in labels}
    fits = {"<none>": model} | {row: _refit(model, text) for row, text in forms.items()}
    table = _lr_table(fits)
    table.attrs["formulae"] = forms
    table.attrs["notes"] = {row: list(getattr(m, "notes", [])) for row, m in fits.items() if row != "<none>"}
    table.attrs["heading"] = ("ANOVA-like table for random-effects: Single term deletions\n\nModel:\n"
                              + _text(f, f.fixed, _labels(f)))
    return table


def _marginal(terms: ftests.FixedTerms) -> list[str]:
    """R's ``drop.scope``: the terms whose variables no other term contains all of."""
    sets = {t: set(terms.variables[t]) for t in terms.labels}
    return [t for t in terms.labels if not any(sets[t] <= sets[u] for u in terms.labels if u != t)]


@one_blas_thread
def drop1(model, ddf: str = "Satterthwaite") -> pd.DataFrame:
    """lmerTest's ``drop1(m, ddf)``: the F test of each marginal fixed term (one no other
    term contains), its hypothesis the term's own coefficients (lmerTest's
    ``get_contrasts_marginal``; type I's when the model has one term or one column).

    Parameters
    ----------
    model
        A linear mixed model ([lmer][acceptability.stats.mixed.lmm.lmer.lmer]).
    ddf
        ``"Satterthwaite"`` (default) or ``"Kenward-Roger"``.

    Returns
    -------
    pandas.DataFrame
        One row per marginal term: Sum Sq, Mean Sq, NumDF, DenDF, F value, Pr(>F).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> rows = pd.DataFrame({"g": list("aaabbbcccddd"), "a": list("pqr" * 4), "x": range(1, 13),
    ...                      "y": [0.4, 1.4, 2.3, 2.3, 1.9, 2.2, 4.1, 5.0, 4.3, 5.0, 5.0, 5.8]})
    >>> m = stats.lmer("y ~ a * x + (1 | g)", rows)
    >>> stats.drop1(m).index.tolist()  # a and x are in a:x, so only a:x can go
    ['a:x']
    """
    ftests.check_lmm(model, "drop1's F tests")
    method = ftests.ddf_method(ddf)
    terms, x = ftests.fixed_terms(model), model.design.X
    scope = _marginal(terms)
    if x.shape[1] <= 1 or len(terms.labels) <= 1:
        hyps = {t: h.to_numpy() for t, h in ftests.hypotheses(model, 1).items()}
    else:
        hyps = {t: np.eye(x.shape[1])[terms.columns[t]] for t in scope}
    table = pd.DataFrame([ftests.contest_md(model, hyps[t], method) for t in scope],
                         index=pd.Index(scope, dtype=object))
    if len(table) and table["NumDF"].notna().all():
        table["NumDF"] = table["NumDF"].astype(int)
    table.attrs["heading"] = (f"Single term deletions using {method}'s method:\n\nModel:\n"
                              f"{model.formula.text}")
    return table


def _without(model, term: str) -> str:
    """The model's formula without the fixed term ``term`` (R's ``update(f, ~ . - term)``)."""
    terms = ftests.fixed_terms(model)
    rest = [t for t in terms.labels if t != term]
    if rest:
        fixed = " + ".join(rest if terms.intercept else ["0", *rest])
    else:
        fixed = "1" if terms.intercept else "0"
    return _text(model.formula, fixed, _labels(model.formula))


def _largest_above(table: pd.DataFrame, column: str, alpha: float, keep: tuple[str, ...] = ()) -> str | None:
    """The row (not kept) with the largest p value above ``alpha``, or None."""
    p = table[column].drop([k for k in keep if k in table.index])
    p = p[p.notna() & (p > alpha)]
    return None if p.empty else str(p.idxmax())


@dataclass
class StepResult:
    """lmerTest's ``step`` result: the backward-reduced random and fixed tables (column
    ``Eliminated``: the order of elimination, 0 for the terms kept) and the final model
    (``get_model(step(m))``)."""

    random: pd.DataFrame
    fixed: pd.DataFrame | None
    model: object

    @property
    def formula(self) -> str:
        """The final model's formula."""
        return self.model.formula if isinstance(self.model, LinearModel) else self.model.formula.text

    def __str__(self) -> str:
        fixed = "(no random term left: lmerTest goes on with lm's drop1, not done here)" \
            if self.fixed is None else self.fixed.to_string()
        return ("Backward reduced random-effect table:\n\n" + self.random.to_string()
                + "\n\nBackward reduced fixed-effect table:\n" + fixed
                + "\n\nModel found:\n" + self.formula)


def _reduce_random(model, alpha: float) -> tuple[pd.DataFrame, object]:
    """lmerTest's ``reduce_random`` and ``ran_redTable``."""
    table = ranova(model)
    rows, fitted = [table.iloc[[0]]], model
    while (row := _largest_above(table.iloc[1:], "Pr(>Chisq)", alpha)) is not None:
        rows.append(table.loc[[row]])
        fitted = _refit(fitted, table.attrs["formulae"][row])
        if isinstance(fitted, LinearModel):
            table = table.iloc[:0]
            break
        table = ranova(fitted)
    out = pd.concat([*rows, table.iloc[1:]])
    out.insert(0, "Eliminated", [np.nan, *range(1, len(rows)), *[0] * (len(out) - len(rows))])
    return out, fitted


def _reduce_fixed(model, ddf: str, alpha: float, keep: tuple[str, ...]) -> tuple[pd.DataFrame, object]:
    """lmerTest's ``reduce_fixed`` and ``fix_redTable``."""
    table, rows, fitted = drop1(model, ddf), [], model
    while (term := _largest_above(table, "Pr(>F)", alpha, keep)) is not None:
        rows.append(table.loc[[term]])
        fitted = _refit(fitted, _without(fitted, term))
        table = drop1(fitted, ddf)
    out = pd.concat([*rows, table])
    out.insert(0, "Eliminated", [*range(1, len(rows) + 1), *[0] * len(table)])
    return out, fitted


@one_blas_thread
def step(model, ddf: str = "Satterthwaite", alpha_random: float = 0.1, alpha_fixed: float = 0.05,
         reduce_fixed: bool = True, reduce_random: bool = True, keep: tuple[str, ...] | list[str] = ()) -> StepResult:
    """lmerTest's ``step(m)``: backward elimination of random terms (``ranova``, the term
    with the largest p above ``alpha_random`` first), then of fixed terms (``drop1``,
    marginal terms only, above ``alpha_fixed``; the terms in ``keep`` stay).

    Parameters
    ----------
    model
        A linear mixed model ([lmer][acceptability.stats.mixed.lmm.lmer.lmer]).
    ddf
        The F tests' denominator df: ``"Satterthwaite"`` or ``"Kenward-Roger"``.
    alpha_random, alpha_fixed
        lmerTest's ``alpha.random`` (0.1) and ``alpha.fixed`` (0.05).
    reduce_fixed, reduce_random
        False keeps every fixed (random) term (lmerTest sets its alpha to 1).
    keep
        Fixed terms never eliminated.

    Returns
    -------
    StepResult
        ``random`` and ``fixed`` tables and the final ``model``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"g": np.repeat(list("abcdef"), 4), "x": np.tile([0.0, 1, 2, 3], 6)})
    >>> df["y"] = 2 + 0.5 * df["x"] + np.repeat(rng.normal(0, 1, 6), 4) + rng.normal(0, 0.3, 24)
    >>> stats.step(stats.lmer("y ~ x + (1 | g)", df)).formula
    'y ~ x + (1 | g)'
    """
    ftests.check_lmm(model, "step's tests")
    unknown = [k for k in keep if k not in ftests.fixed_terms(model).labels]
    if unknown:
        raise ValueError(f"keep={list(keep)!r}: {unknown} are not fixed terms of the model "
                         f"({list(ftests.fixed_terms(model).labels)})")
    random, fitted = _reduce_random(model, alpha_random if reduce_random else 1.0)
    if isinstance(fitted, LinearModel):
        return StepResult(random, None, fitted)
    fixed, fitted = _reduce_fixed(fitted, ddf, alpha_fixed if reduce_fixed else 1.0, tuple(keep))
    return StepResult(random, fixed, fitted)
