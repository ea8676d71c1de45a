"""GLM families and links as R's ``family`` objects define them (McCullagh & Nelder 1989,
Generalized Linear Models, 2nd ed., tables 2.1 and 2.2; R's ``stats::family``).

A [Family][acceptability.stats.mixed.glmm.families.Family] carries the link (``linkfun``,
``linkinv``, ``mu_eta``), the variance function and the conditional log-density of one
observation with its prior weight and dispersion, which the Laplace likelihood of a GLMM
sums (lme4's ``aic()``, Bates et al. 2015, J. Stat. Softw. 67(1), section 5).
Written by hand: statsmodels' families lack R's names, the negative binomial's size as a
parameter and the weighted binomial density lme4 uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

__all__ = ["FAMILY_LINKS", "Family", "Link", "family", "LINKS"]

_EPS = np.finfo(float).eps


@dataclass(frozen=True)
class Link:
    """A link function g with its inverse and derivative d mu / d eta."""

    name: str
    linkfun: Callable[[np.ndarray], np.ndarray]
    linkinv: Callable[[np.ndarray], np.ndarray]
    mu_eta: Callable[[np.ndarray], np.ndarray]


_PROBIT_CLAMP = -float(special.ndtri(_EPS))  # R's probit linkinv clamps eta to +-8.12


def _pnorm_clip(eta: np.ndarray) -> np.ndarray:
    return special.ndtr(np.clip(eta, -_PROBIT_CLAMP, _PROBIT_CLAMP))  # scipy.special: no dispatch


def _dnorm(eta: np.ndarray) -> np.ndarray:
    return np.maximum(np.exp(-0.5 * eta * eta) / np.sqrt(2 * np.pi), _EPS)


LINKS: dict[str, Link] = {
    "identity": Link("identity", lambda m: m, lambda e: e, lambda e: np.ones_like(e)),
    "log": Link("log", np.log, lambda e: np.maximum(np.exp(e), _EPS), lambda e: np.maximum(np.exp(e), _EPS)),
    "logit": Link("logit", special.logit, lambda e: np.clip(special.expit(e), _EPS, 1 - _EPS),
                  lambda e: np.maximum(special.expit(e) * special.expit(-e), _EPS)),
    "probit": Link("probit", special.ndtri, _pnorm_clip, _dnorm),
    "cloglog": Link("cloglog", lambda m: np.log(-np.log1p(-m)),
                    lambda e: np.clip(-np.expm1(-np.exp(e)), _EPS, 1 - _EPS),
                    lambda e: np.maximum(np.exp(e - np.exp(np.minimum(e, 700))), _EPS)),
    "sqrt": Link("sqrt", np.sqrt, lambda e: e**2, lambda e: 2 * e),
    "inverse": Link("inverse", lambda m: 1 / m, lambda e: 1 / e, lambda e: -1 / e**2),
    "1/mu^2": Link("1/mu^2", lambda m: 1 / m**2, lambda e: 1 / np.sqrt(e), lambda e: -1 / (2 * e**1.5)),
}

# R's families, their default (canonical) link first, then the other links R allows
FAMILY_LINKS: dict[str, tuple[str, ...]] = {
    "gaussian": ("identity", "log", "inverse"),
    "binomial": ("logit", "probit", "cloglog", "log"),
    "poisson": ("log", "identity", "sqrt"),
    "Gamma": ("inverse", "identity", "log"),
    "inverse.gaussian": ("1/mu^2", "inverse", "identity", "log"),
    "negative.binomial": ("log", "sqrt", "identity"),
}
_ALIASES = {"gamma": "Gamma", "inverse_gaussian": "inverse.gaussian", "inversegaussian": "inverse.gaussian",
            "negative_binomial": "negative.binomial", "negativebinomial": "negative.binomial",
            "nbinom2": "negative.binomial", "bernoulli": "binomial"}


@dataclass(frozen=True)
class Family:
    """A distribution of the response given the linear predictor, with its link.

    ``dispersion``: whether the family has a free scale (gaussian, Gamma, inverse
    Gaussian: phi; the negative binomial: its size, R's ``theta``)."""

    name: str
    link: Link

    @property
    def dispersion(self) -> bool:
        return self.name not in ("binomial", "poisson")

    @property
    def canonical(self) -> bool:
        return self.link.name == FAMILY_LINKS[self.name][0]

    def variance(self, mu: np.ndarray, size: float = np.inf) -> np.ndarray:
        """V(mu): Var(y) = phi V(mu) / w (the negative binomial: mu + mu^2 / size)."""
        return {"gaussian": lambda: np.ones_like(mu), "binomial": lambda: mu * (1 - mu),
                "poisson": lambda: mu, "Gamma": lambda: mu**2,
                "inverse.gaussian": lambda: mu**3,
                "negative.binomial": lambda: mu + mu**2 / size}[self.name]()

    def logpdf(self, y: np.ndarray, mu: np.ndarray, weights: np.ndarray, phi: float = 1.0) -> np.ndarray:
        """log f(y | mu) of each row, as R's ``family$aic`` sums it (x -1/2): binomial ``y``
        is the proportion and ``weights`` the trials (times prior weights); gaussian, Gamma
        and inverse Gaussian take ``phi`` as the dispersion (sigma^2 for gaussian); the
        negative binomial takes its size as ``phi``."""
        w = weights
        if self.name == "binomial":
            k = np.round(y * w)
            return sps.binom.logpmf(k, np.round(w), mu)
        if self.name == "poisson":
            return w * sps.poisson.logpmf(y, mu)
        if self.name == "gaussian":
            return -0.5 * (np.log(2 * np.pi * phi / w) + w * (y - mu) ** 2 / phi)  # dnorm, sd^2 phi / w
        if self.name == "Gamma":
            shape = w / phi
            return sps.gamma.logpdf(y, shape, scale=mu / shape)
        if self.name == "inverse.gaussian":
            return -0.5 * (np.log(2 * np.pi * phi * y**3 / w) + w * (y - mu) ** 2 / (phi * y * mu**2))
        return w * sps.nbinom.logpmf(y, phi, phi / (phi + mu))  # negative binomial, size phi

    def sample(self, mu: np.ndarray, weights: np.ndarray, phi: float,
               rng: np.random.Generator) -> np.ndarray:
        """One draw of y given mu (R's ``family$simulate``): binomial proportions of
        ``weights`` trials, poisson counts, gaussian / Gamma / inverse Gaussian with variance
        phi V(mu) / w, negative binomial counts of size phi."""
        w = weights
        if self.name == "binomial":
            n = np.round(w).astype(np.int64)
            return rng.binomial(n, mu) / np.maximum(n, 1)
        if self.name == "poisson":
            return rng.poisson(mu).astype(float)
        if self.name == "gaussian":
            return rng.normal(mu, np.sqrt(phi / w))
        if self.name == "Gamma":
            shape = w / phi
            return rng.gamma(shape, mu / shape)
        if self.name == "inverse.gaussian":
            return rng.wald(mu, w / phi)  # shape lambda: Var = mu^3 / lambda
        return rng.negative_binomial(phi, phi / (phi + mu)).astype(float)


def family(name: str | Family = "binomial", link: str | None = None) -> Family:
    """R's ``binomial(link = "probit")``, ``Gamma(link = "log")``, ...: a checked family.

    Examples
    --------
    >>> from acceptability.stats.mixed.glmm.families import family
    >>> f = family("binomial", "probit")
    >>> f.name, f.link.name, f.canonical
    ('binomial', 'probit', False)
    """
    if isinstance(name, Family):
        if link is not None and link != name.link.name:
            raise ValueError(f"link={link!r} given beside family {name.name}({name.link.name!r}): give one")
        return name
    key = _ALIASES.get(name, name)
    if key not in FAMILY_LINKS:
        raise ValueError(f"family={name!r}: use one of {sorted(FAMILY_LINKS)}")
    link = FAMILY_LINKS[key][0] if link is None else link
    if link not in FAMILY_LINKS[key]:
        raise ValueError(f"family {key!r} has no link {link!r}: R allows {list(FAMILY_LINKS[key])}")
    return Family(key, LINKS[link])
