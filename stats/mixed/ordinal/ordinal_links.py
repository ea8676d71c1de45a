"""The inverse links of cumulative link models and the per-row interval probabilities
with their derivatives (Christensen 2019, "Cumulative link models for ordinal regression
with the R package ordinal", section 2; ordinal's ``pfun``/``dfun``/``gfun``).

A row in category j has probability P = F(a) - F(b), a = theta_j - eta and
b = theta_{j-1} - eta (a = +inf in the top category, b = -inf in the bottom one). Newton's
method for ``clm`` needs f = F' and f'; the gradient of ``clmm``'s Laplace likelihood also
needs f''. Written here rather than taken from ``families.LINKS``: those clamp F and f away
from 0 and 1 (R's ``binomial()`` safeguards), which would make the derivatives disagree
with the function, and they lack f', f'', loglog and cauchit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

__all__ = ["CUMULATIVE_LINKS", "CumulativeLink", "Interval", "cumulative_link", "interval", "probability"]

_Fn = Callable[[np.ndarray], np.ndarray]
_INV_SQRT_2PI = 1 / np.sqrt(2 * np.pi)


@dataclass(frozen=True)
class CumulativeLink:
    """A latent distribution F with its upper tail S = 1 - F, density f and f', f''."""

    name: str
    cdf: _Fn
    sf: _Fn
    pdf: _Fn
    dpdf: _Fn
    d2pdf: _Fn


def _logistic() -> CumulativeLink:
    def pdf(x):
        p = special.expit(x)
        return p * (1 - p)

    def dpdf(x):
        p = special.expit(x)
        return p * (1 - p) * (1 - 2 * p)

    def d2pdf(x):
        p = special.expit(x)
        return p * (1 - p) * (1 - 6 * p + 6 * p * p)

    return CumulativeLink("logit", special.expit, lambda x: special.expit(-x), pdf, dpdf, d2pdf)


def _normal() -> CumulativeLink:
    def pdf(x):  # by hand: scipy.stats.norm.pdf checks its arguments, 4x the time
        return np.exp(-0.5 * x * x) * _INV_SQRT_2PI

    return CumulativeLink("probit", special.ndtr, lambda x: special.ndtr(-x), pdf,
                          lambda x: -x * pdf(x), lambda x: (x * x - 1) * pdf(x))


def _gumbel_min() -> CumulativeLink:
    """cloglog: F(x) = 1 - exp(-exp(x)) (ordinal's ``pgumbel(max = FALSE)``)."""
    def pdf(x):
        return np.exp(x - np.exp(x))

    return CumulativeLink("cloglog", lambda x: -np.expm1(-np.exp(x)), lambda x: np.exp(-np.exp(x)),
                          pdf, lambda x: pdf(x) * (1 - np.exp(x)),
                          lambda x: pdf(x) * ((1 - np.exp(x)) ** 2 - np.exp(x)))


def _gumbel_max() -> CumulativeLink:
    """loglog: F(x) = exp(-exp(-x)) (ordinal's ``pgumbel``)."""
    def pdf(x):
        return np.exp(-x - np.exp(-x))

    return CumulativeLink("loglog", lambda x: np.exp(-np.exp(-x)), lambda x: -np.expm1(-np.exp(-x)),
                          pdf, lambda x: pdf(x) * (np.exp(-x) - 1),
                          lambda x: pdf(x) * ((np.exp(-x) - 1) ** 2 - np.exp(-x)))


def _cauchy() -> CumulativeLink:
    return CumulativeLink("cauchit", lambda x: 0.5 + np.arctan(x) / np.pi,
                          lambda x: 0.5 - np.arctan(x) / np.pi,
                          lambda x: 1 / (np.pi * (1 + x * x)),
                          lambda x: -2 * x / (np.pi * (1 + x * x) ** 2),
                          lambda x: (6 * x * x - 2) / (np.pi * (1 + x * x) ** 3))


CUMULATIVE_LINKS: dict[str, CumulativeLink] = {
    link.name: link for link in (_logistic(), _normal(), _gumbel_min(), _gumbel_max(), _cauchy())}


def cumulative_link(name: str) -> CumulativeLink:
    """The link ``name`` (ordinal's ``link =``: logit, probit, cloglog, loglog, cauchit).

    Examples
    --------
    >>> from acceptability.stats.mixed.ordinal.ordinal_links import cumulative_link
    >>> float(cumulative_link("probit").cdf(0.0))
    0.5
    """
    if name not in CUMULATIVE_LINKS:
        raise ValueError(f"link={name!r}: use one of {list(CUMULATIVE_LINKS)} (ordinal's links)")
    return CUMULATIVE_LINKS[name]


@dataclass
class Interval:
    """P = F(a) - F(b) per row and the derivatives of f at a and b (0 at infinite ends)."""

    p: np.ndarray
    fa: np.ndarray
    fb: np.ndarray
    ga: np.ndarray  # f'(a)
    gb: np.ndarray
    ha: np.ndarray | None = None  # f''(a), computed when asked for
    hb: np.ndarray | None = None


def _at_finite(fn: _Fn, x: np.ndarray) -> np.ndarray:
    out = np.zeros_like(x)
    ok = np.isfinite(x)
    out[ok] = fn(x[ok])
    return out


def probability(link: CumulativeLink, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """P = F(a) - F(b) per row; where both ends lie in the upper half, S(b) - S(a), which
    keeps its digits (ordinal's ``get_fitted`` does the same).

    Examples
    --------
    >>> import numpy as np
    >>> from acceptability.stats.mixed.ordinal.ordinal_links import cumulative_link, probability
    >>> probability(cumulative_link("logit"), np.array([0.0, np.inf]), np.array([-np.inf, 0.0])).tolist()
    [0.5, 0.5]
    """
    upper = b > 0
    return np.where(upper, link.sf(np.where(upper, b, 0.0)) - link.sf(np.where(upper, a, 0.0)),
                    link.cdf(np.where(upper, 0.0, a)) - link.cdf(np.where(upper, 0.0, b)))


def interval(link: CumulativeLink, a: np.ndarray, b: np.ndarray, order: int = 1) -> Interval:
    """P = F(a) - F(b) (``probability``) and f, f' (``order`` 1) and f'' (``order`` 2) at
    a and b."""
    p = probability(link, a, b)
    out = Interval(p, _at_finite(link.pdf, a), _at_finite(link.pdf, b),
                   _at_finite(link.dpdf, a), _at_finite(link.dpdf, b))
    if order >= 2:
        out.ha, out.hb = _at_finite(link.d2pdf, a), _at_finite(link.d2pdf, b)
    return out
