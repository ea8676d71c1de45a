"""Wald chi-square tests of the fixed terms of a mixed model: ``car::Anova(m, type)``.

Fox & Weisberg (2019), An R Companion to Applied Regression, 3rd ed., section 5.3.4 (car
3.1's ``Anova.II.mer`` and ``Anova.III.mer``, written out here). Each term gets a
hypothesis matrix L and the statistic (L b)' (L V L')^-1 (L b) on rank(L) df, b the fixed
effects and V their covariance (lme4's ``vcov``):

- type III: L picks the term's own coefficients, the intercept a row of its own; with
  treatment contrasts the main effects of factors in an interaction are tested at the other
  factors' first level, as car does (use sum contrasts for coding-free type III tests);
- type II: the term adjusted for every term but its relatives (those containing it): L spans
  the coefficients of the term and its relatives less those of the relatives, orthogonal
  under V (car's ``ConjComp``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import linalg
from scipy import stats as sps

from acceptability.stats.mixed.fitted import ftests

__all__ = ["wald_anova"]

_TYPES = {"2": "II", "II": "II", "3": "III", "III": "III"}


def _chisq(beta: np.ndarray, vcov: np.ndarray, L: np.ndarray) -> tuple[float, int]:
    """car's ``linearHypothesis``: the Wald statistic of L beta = 0 and its df (rows of L)."""
    lb = L @ beta
    return float(lb @ np.linalg.solve(L @ vcov @ L.T, lb)), L.shape[0]


def _type2(terms: ftests.FixedTerms, vcov: np.ndarray, term: str) -> np.ndarray:
    """car's type II hypothesis of ``term``: ``ConjComp`` of its relatives' coefficients
    within theirs and the term's, in V's inner product."""
    mine = set(terms.variables[term])
    relatives = [c for u in terms.labels if u != term and mine <= set(terms.variables[u])
                 for c in terms.columns[u]]
    eye = np.eye(vcov.shape[0])
    z = eye[relatives + terms.columns[term]].T
    if not relatives:
        return z.T
    x = eye[relatives].T
    return (z @ linalg.null_space(x.T @ vcov @ z)).T


def wald_anova(model, type: int | str = 2) -> pd.DataFrame:
    """``car::Anova(m, type)``: a Wald chi-square test of each fixed term of a glmer (or
    lmer) fit.

    Parameters
    ----------
    model
        A fitted [glmer][acceptability.stats.mixed.lmm.lmer.glmer] (or lmer) model.
    type
        2 (``"II"``, car's default) or 3 (``"III"``, with a row for the intercept).

    Returns
    -------
    pandas.DataFrame
        Index: the terms; columns Chisq, Df, Pr(>Chisq); ``attrs["heading"]`` car's title.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import glmer
    >>> from acceptability.stats.mixed.fitted.wald import wald_anova
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> list(wald_anova(glmer("cbind(k, n - k) ~ x + (1 | g)", df)).columns)
    ['Chisq', 'Df', 'Pr(>Chisq)']
    """
    kind = _TYPES.get(str(type).strip().upper())
    if kind is None or isinstance(type, bool):
        raise ValueError(f"type={type!r}: use 2 ('II', car's default) or 3 ('III')")
    terms = ftests.fixed_terms(model)
    beta, vcov = model.fixef.to_numpy(), model.vcov.to_numpy()
    eye = np.eye(len(beta))
    hyps = {}
    if kind == "III":
        if terms.intercept:
            hyps["(Intercept)"] = eye[[model.design.xnames.index("(Intercept)")]]
        hyps |= {t: eye[terms.columns[t]] for t in terms.labels}
    else:
        hyps = {t: _type2(terms, vcov, t) for t in terms.labels}
    rows = [_chisq(beta, vcov, L) for L in hyps.values()]
    table = pd.DataFrame(rows, columns=["Chisq", "Df"], index=pd.Index(list(hyps), dtype=object))
    table["Pr(>Chisq)"] = sps.chi2.sf(table["Chisq"], table["Df"])
    table.attrs["heading"] = (f"Analysis of Deviance Table (Type {kind} Wald chisquare tests)\n\n"
                              f"Response: {model.formula.response}")
    return table
