"""F tests of each fixed term of a linear mixed model: lmerTest's ``anova(m)``.

Kuznetsova, Brockhoff & Christensen (2017), "lmerTest package: tests in linear mixed
effects models", J. Stat. Softw. 82(13). Each term gets a hypothesis matrix
L (lmerTest's ``get_contrasts_type1/type2_unfolded/type3``, written out below) and the test
of L beta = 0 (``contestMD``): with Satterthwaite's method the F statistic is the mean of
the squared t statistics of the eigen-directions of L C L' and its denominator df combines
their Satterthwaite df (Fai & Cornelius 1996); with Kenward-Roger's, pbkrtest's scaled F and df
(``KRmodcomp``; [kenward_roger][acceptability.stats.mixed.fitted.kenward_roger]).

Type III hypotheses do not depend on the contrast coding: they are built on the full
("rank-deficient") indicator coding of each term and made orthogonal to every term that
contains it (lmerTest's containment of terms: a term is contained in another that has all
its variables and more, with the same numeric ones). Type II tests a term adjusted for
every term that does not contain it; type I is sequential (Doolittle's decomposition of X'X).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.mixed import transforms
from acceptability.stats.mixed.design import fixed_matrix
from acceptability.stats.mixed.lmm.pls import PlsFit
from acceptability.stats.mixed.transforms import FixedPart

if TYPE_CHECKING:
    from acceptability.stats.mixed.results import MixedResult

__all__ = ["FixedTerms", "anova_table", "check_lmm", "contest_1d", "contest_md", "ddf_method",
           "fixed_part", "fixed_terms", "hypotheses"]

DDF_METHODS = {"satterthwaite": "Satterthwaite", "kenward-roger": "Kenward-Roger"}
_TYPES = {"1": 1, "I": 1, "2": 2, "II": 2, "3": 3, "III": 3}
_ROMAN = {1: "I", 2: "II", 3: "III"}
_EPS = np.sqrt(np.finfo(float).eps)  # lmerTest's eps for the eigenvalues of L C L'


def ddf_method(ddf: str) -> str:
    """lmerTest's name of a denominator-df method: ``"Satterthwaite"`` or ``"Kenward-Roger"``
    (any case; emmeans writes ``"satterthwaite"``, ``"kenward-roger"``).

    Examples
    --------
    >>> from acceptability.stats.mixed.fitted.ftests import ddf_method
    >>> ddf_method("kenward-roger")
    'Kenward-Roger'
    """
    key = str(ddf).strip().lower()
    if key not in DDF_METHODS:
        raise ValueError(f"ddf={ddf!r}: use 'Satterthwaite' or 'Kenward-Roger'")
    return DDF_METHODS[key]


def check_lmm(model: MixedResult, what: str) -> None:
    """Raise unless ``model`` is a linear mixed model fitted by ``lmer`` (whose PLS solution
    the df methods differentiate)."""
    if not isinstance(getattr(model, "state", None), PlsFit):
        raise ValueError(f"{what} are for linear mixed models fitted by lmer, not a {type(model).__name__} "
                         f"({getattr(model.design, 'family', 'ordinal')}): compare fits with anova(m0, m1)")


def _anova_type(type: int | str) -> int:
    key = str(type).strip().upper()
    if isinstance(type, bool) or key not in _TYPES:
        raise ValueError(f"type={type!r}: use 3 (or 'III', lmerTest's default), 2 ('II') or 1 ('I')")
    return _TYPES[key]


def _split_term(label: str) -> tuple[str, ...]:
    """The variables of a term label, split at ``:`` outside parentheses."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(label):
        depth += (ch == "(") - (ch == ")")
        if ch == ":" and depth == 0:
            out.append(label[start:i])
            start = i + 1
    return (*out, label[start:])


@dataclass(frozen=True)
class FixedTerms:
    """The fixed terms of a model as R's ``terms`` describes them: labels, intercept, the
    columns of X of each term (R's ``assign``), each term's variables (``coded``: those with
    a 1 in R's ``factors`` matrix; the others are coded without contrasts), the factors and
    the numeric variables (R's ``dataClasses`` "numeric": not a factor, not ``poly()``)."""

    labels: tuple[str, ...]
    intercept: bool
    columns: dict[str, list[int]]
    variables: dict[str, tuple[str, ...]]
    coded: dict[str, tuple[str, ...]]
    factors: frozenset[str]
    numerics: frozenset[str]

    def containing(self, term: str) -> list[str]:
        """The terms that contain ``term`` (lmerTest's ``containment``/``term_contain``): all
        its coded variables and more, with the same numeric ones."""
        def numeric(t: str) -> set[str]:
            return {v for v in self.coded[t] if v in self.numerics}

        mine = set(self.coded[term])
        return [t for t in self.labels if mine < set(self.coded[t]) and numeric(term) == numeric(t)]


def _matrix(model: MixedResult, rhs: str) -> tuple[np.ndarray, list[str]]:
    """The model matrix of the right-hand side ``rhs`` (R's syntax, transformations
    included) on the fitted rows."""
    return fixed_matrix(dataclasses.replace(model.formula, fixed=rhs), model.frame, check_rank=False)


def fixed_part(model: MixedResult) -> FixedPart:
    """The design's [FixedPart][acceptability.stats.mixed.transforms.FixedPart] (labels,
    ``assign``, factor levels, transformations)."""
    return model.design.fixed_part or transforms.fixed_part(model.formula, model.frame)


def fixed_terms(model: MixedResult) -> FixedTerms:
    """R's ``terms`` of the fixed part of ``model``, with the columns of X of each term."""
    return _terms(fixed_part(model))


def _terms(part: FixedPart) -> FixedTerms:
    labels, assign = tuple(part.labels), np.asarray(part.assign)
    columns = {t: np.flatnonzero(assign == k + 1).tolist() for k, t in enumerate(labels)}
    variables = {t: _split_term(t) for t in labels}
    sets = [frozenset(v) for v in variables.values()]
    coded = {t: tuple(v for v in vs if len(vs) == 1 or frozenset(vs) - {v} in sets)
             for t, vs in variables.items()}
    factors = frozenset(part.levels)
    matrices = {v.name for v in part.variables if v.kind == "poly"}
    numerics = frozenset(v for vs in variables.values() for v in vs) - factors - matrices
    return FixedTerms(labels, bool(np.any(assign == 0)), columns, variables, coded, factors, numerics)


def _zapsmall(x: np.ndarray, digits: int = 7) -> np.ndarray:
    """R's ``zapsmall``: round to ``digits`` significant digits of the largest entry."""
    mx = np.max(np.abs(x)) if x.size else 0.0
    return np.round(x, max(0, digits - int(np.ceil(np.log10(mx)))) if mx > 0 else digits)


def _doolittle(x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """The unit lower-triangular L of Doolittle's x = L U (lmerTest's ``doolittle``, with its
    zeroing of entries below ``eps``)."""
    n = len(x)
    low, up = np.eye(n), np.zeros((n, n))
    for i in range(n):
        up[i] = x[i] - low[i, :i] @ up[:i]
        col = x[i + 1:, i] - low[i + 1:, :i] @ up[:i, i]
        low[i + 1:, i] = 0.0 if abs(up[i, i]) < eps else col / up[i, i]
    low[np.abs(low) < eps] = 0.0
    return low


def _type1(x: np.ndarray, terms: FixedTerms) -> dict[str, np.ndarray]:
    """lmerTest's ``get_contrasts_type1``: rows of t(L), L from Doolittle's decomposition of X'X."""
    p = x.shape[1]
    if p == 1:
        lt = np.zeros((0, 1)) if terms.intercept else np.ones((1, 1))
        return {t: lt for t in terms.labels}
    lt = _doolittle(x.T @ x).T
    return {t: lt[terms.columns[t]] for t in terms.labels}


def _type2(x: np.ndarray, terms: FixedTerms) -> dict[str, np.ndarray]:
    """lmerTest's ``get_contrasts_type2_unfolded``: a term no other term contains is tested
    on its own columns; the others adjusted for every term that does not contain them
    (``get_contrasts_type2``)."""
    p = x.shape[1]
    out = {}
    for t in terms.labels:
        outer = terms.containing(t)
        if not outer:
            out[t] = np.eye(p)[terms.columns[t]]
            continue
        last = [c for u in (t, *outer) for c in terms.columns[u]]
        order = [c for c in range(p) if c not in last] + last
        lt = _doolittle(x[:, order].T @ x[:, order]).T
        rows = [i for i, c in enumerate(order) if c in terms.columns[t]]
        back = np.argsort(order)  # columns back in X's order
        out[t] = lt[rows][:, back]
    return out


def _type3(model: MixedResult, x: np.ndarray, terms: FixedTerms) -> dict[str, np.ndarray]:
    """lmerTest's ``get_contrasts_type3``: with a factor coded otherwise than by treatment
    contrasts (``contrasts=``, an ordered factor's ``contr.poly``), the hypotheses of the
    treatment-coded X mapped to X's coding by ``ginv(X_treatment) X``."""
    part = fixed_part(model)
    if all(c.kind == "contr.treatment" for c in part.contrasts.values()):
        return _type3_treatment(model, x, terms, list(model.design.xnames))
    xt, treatment = part.recoded(model.frame, "treatment")
    mapping = _zapsmall(np.linalg.pinv(xt) @ x)
    ls = _type3_treatment(model, xt, _terms(treatment), list(treatment.xnames))
    return {t: lt @ mapping for t, lt in ls.items()}


def _type3_treatment(model: MixedResult, x: np.ndarray, terms: FixedTerms,
                     xnames: list[str]) -> dict[str, np.ndarray]:
    """lmerTest's ``extract_contrasts_type3`` for a treatment-coded X:
    each term's full indicator coding (its ``get_rdX``) expressed in X's columns, made
    orthogonal to the terms containing it, highest order first."""
    blocks, names = ([np.ones((len(x), 1))], ["(Intercept)"]) if terms.intercept else ([], [])
    for t in terms.labels:
        m, n = _matrix(model, f"0 + {t}")
        blocks.append(m)
        names += n
    rdx = np.column_stack(blocks)
    lmat = _zapsmall((np.linalg.pinv(x) @ rdx).T)  # rows: rdX's columns; columns: X's
    degree = {t: len(terms.variables[t]) for t in terms.labels}
    for t in sorted(terms.labels, key=lambda t: -degree[t]):  # stable, as R's order()
        outer = [c for u in terms.containing(t) for c in terms.columns[u]]
        if outer:
            y, a = lmat[:, terms.columns[t]], lmat[:, outer]
            lmat[:, terms.columns[t]] = _zapsmall(y - a @ np.linalg.lstsq(a, y, rcond=None)[0])
    missing = [n for n in xnames if n not in names]
    if missing:
        raise ValueError(f"type III hypotheses: the columns {missing} of X are not columns of the "
                         "terms' indicator coding; use type=2 or type=1")
    lmat = lmat[[names.index(n) for n in xnames]]
    out = {}
    for t in terms.labels:
        h = lmat[:, terms.columns[t]].T
        out[t] = h[np.sum(np.abs(h), axis=1) > 1e-8]
    return out


def hypotheses(model: MixedResult, type: int | str = 3) -> dict[str, pd.DataFrame]:
    """The hypothesis matrix L of each fixed term that ``anova`` tests (lmerTest's
    ``show_tests``): rows are the term's tests, columns the fixed effects."""
    kind = _anova_type(type)
    terms, x = fixed_terms(model), model.design.X
    if kind == 1 or x.shape[1] <= 1 or len(terms.labels) <= 1:
        ls = _type1(x, terms)  # lmerTest falls back to type I for a single term
    else:
        ls = _type2(x, terms) if kind == 2 else _type3(model, x, terms)
    xnames = list(model.design.xnames)
    return {t: pd.DataFrame(lt, columns=xnames) for t, lt in ls.items()}


def contest_1d(model: MixedResult, contrast: np.ndarray, ddf: str = "Satterthwaite") -> tuple[float, float, float]:
    """Estimate, standard error and denominator df of ``contrast @ beta`` (lmerTest's
    ``contest1D``); with Kenward-Roger's method the error comes from the adjusted covariance."""
    method = ddf_method(ddf)
    l = np.asarray(contrast, float)  # noqa: E741 - lmerTest's name
    est = float(l @ model.fixef.to_numpy())
    if method == "Kenward-Roger":
        kr = model._kenward_roger
        return est, float(np.sqrt(l @ kr.vcov_adjusted @ l)), kr.ddf(l)
    var = float(l @ model.vcov.to_numpy() @ l)
    return est, np.sqrt(var), float(model._satterthwaite.df(l)[0])


def _fstat_ddf(nu: np.ndarray, tol: float = 1e-8) -> float:
    """lmerTest's ``get_Fstat_ddf``: the df of a mean of F(1, nu_m) variables (Kuznetsova et
    al. 2017; 2 when any nu_m is at most 2)."""
    if len(nu) == 1:
        return float(nu[0])
    if np.all(np.abs(np.diff(nu)) < tol):
        return float(np.mean(nu))
    if np.any(nu <= 2):
        return 2.0
    e = np.sum(nu / (nu - 2))
    return float(2 * e / (e - len(nu)))


def contest_md(model: MixedResult, L: np.ndarray, ddf: str = "Satterthwaite") -> dict[str, float]:
    """lmerTest's ``contestMD``: the F test of ``L beta = 0`` as a row of the anova table
    (``Sum Sq``, ``Mean Sq``, ``NumDF``, ``DenDF``, ``F value``, ``Pr(>F)``); NaN when L
    has no rows."""
    method = ddf_method(ddf)
    L = np.atleast_2d(np.asarray(L, float))
    beta, sigma2 = model.fixef.to_numpy(), model.sigma**2
    nan = dict.fromkeys(["Sum Sq", "Mean Sq", "NumDF", "DenDF", "F value", "Pr(>F)"], np.nan)
    if L.shape[0] == 0:
        return nan
    if method == "Kenward-Roger":
        kr = model._kenward_roger.ftest(L, beta)
        ms, f, ndf, den = kr["F_unscaled"] * sigma2, kr["F"], kr["ndf"], kr["ddf"]
    else:
        values, vectors = np.linalg.eigh(L @ model.vcov.to_numpy() @ L.T)
        values, vectors = values[::-1], vectors[:, ::-1]  # decreasing, as R's eigen()
        q = int(np.sum(values > max(_EPS * values[0], 0)))
        if q == 0:
            return nan
        ptl = (vectors.T @ L)[:q]
        f = float(np.sum((ptl @ beta) ** 2 / values[:q]) / q)
        den = _fstat_ddf(model._satterthwaite.df(ptl))
        ms, ndf = f * sigma2, q
    return {"Sum Sq": ms * ndf, "Mean Sq": ms, "NumDF": ndf, "DenDF": den, "F value": f,
            "Pr(>F)": float(sps.f.sf(f, ndf, den))}


def anova_table(model: MixedResult, type: int | str = 3, ddf: str = "Satterthwaite") -> pd.DataFrame:
    """lmerTest's ``anova(m, type, ddf)``: one F test per fixed term.

    Parameters
    ----------
    model
        A linear mixed model (``lmer``).
    type
        3 (``"III"``, the default), 2 (``"II"``) or 1 (``"I"``).
    ddf
        ``"Satterthwaite"`` (the default) or ``"Kenward-Roger"`` (REML fits).

    Returns
    -------
    pandas.DataFrame
        Index: the terms (R's labels); columns ``Sum Sq``, ``Mean Sq``, ``NumDF``,
        ``DenDF``, ``F value``, ``Pr(>F)``; ``attrs["heading"]`` is lmerTest's title.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import lmer
    >>> from acceptability.stats.mixed.fitted import ftests
    >>> y = [0.4, 1.4, 2.3, 2.3, 1.9, 2.2, 4.1, 5.0, 4.3, 5.0, 5.0, 5.8]
    >>> df = pd.DataFrame({"y": y, "a": list("pqr" * 4), "x": range(1, 13), "g": list("aaabbbcccddd")})
    >>> t = ftests.anova_table(lmer("y ~ a + x + (1 | g)", df))
    >>> t.attrs["heading"], list(t.index), list(t.columns)[-2:]
    ("Type III Analysis of Variance Table with Satterthwaite's method", ['a', 'x'], ['F value', 'Pr(>F)'])
    """
    check_lmm(model, "F tests of the fixed terms")
    kind, method = _anova_type(type), ddf_method(ddf)
    hyps = hypotheses(model, kind)
    table = pd.DataFrame([contest_md(model, h.to_numpy(), method) for h in hyps.values()],
                         index=pd.Index(list(hyps), dtype=object))
    if table["NumDF"].notna().all():
        table["NumDF"] = table["NumDF"].astype(int)
    table.attrs["heading"] = (f"Type {_ROMAN[kind]} Analysis of Variance Table with "
                              f"{method}'s method")
    return table
