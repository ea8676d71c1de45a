"""GLM families and links as R's ``family`` objects define them (McCullagh & Nelder 1989,
Generalized Linear Models, 2nd ed., tables 2.1 and 2.2; R's ``stats::family``).

One class per family, as R and statsmodels keep a family in one object
(statsmodels.genmod.families): a [Family][acceptability.stats.mixed.glmm.families.Family]
carries its link (a [Link][acceptability.stats.mixed.glmm.families.Link]: ``linkfun``,
``linkinv``, ``mu_eta``, R's ``valideta``), the variance function, R's ``dev.resids``,
``initialize`` (the starting means), ``validmu``, whether it has a scale (lme4's ``useSc``)
or a dispersion, its response checks, its label, and the conditional log-density of one
observation with its prior weight and dispersion, which the Laplace likelihood of a GLMM
sums (lme4's ``aic()``, Bates et al. 2015, J. Stat. Softw. 67(1), section 5). The other
modules ask the family; a new family is a class here (docs/development.md, "Adding a GLM
family"). Written by hand: statsmodels' families lack R's names, the negative binomial's
size as a parameter and the weighted binomial density lme4 uses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy import special
from scipy import stats as sps

__all__ = ["FAMILY_CLASSES", "FAMILY_LINKS", "LINKS", "Binomial", "Family", "Gamma", "Gaussian",
           "InverseGaussian", "Link", "NegativeBinomial", "Poisson", "family"]

_EPS = np.finfo(float).eps


def _any_eta(eta: np.ndarray) -> bool:
    return True


def _positive_eta(eta: np.ndarray) -> bool:
    return bool((eta > 0).all())


def _nonzero_eta(eta: np.ndarray) -> bool:
    return bool((eta != 0).all())


@dataclass(frozen=True)
class Link:
    """A link function g with its inverse, its derivative d mu / d eta and R's
    ``valideta`` (which ``glm.fit`` enforces). ``even``: mu(eta) = mu(-eta) (the sqrt link:
    a row with y > 0 has a mode on each side of eta = 0); ``unimodal``: False where the
    Laplace integrand need not be log-concave (mu = eta^-1/2); ``ratio``: emmeans' name of
    exp(a difference) on this link's scale."""

    name: str
    linkfun: Callable[[np.ndarray], np.ndarray]
    linkinv: Callable[[np.ndarray], np.ndarray]
    mu_eta: Callable[[np.ndarray], np.ndarray]
    valideta: Callable[[np.ndarray], bool] = _any_eta
    even: bool = False
    unimodal: bool = True
    ratio: str | None = None

    @property
    def is_identity(self) -> bool:
        """Whether eta is mu (the response scale is the link's)."""
        return self.name == "identity"


_PROBIT_CLAMP = -float(special.ndtri(_EPS))  # R's probit linkinv clamps eta to +-8.12


def _pnorm_clip(eta: np.ndarray) -> np.ndarray:
    return special.ndtr(np.clip(eta, -_PROBIT_CLAMP, _PROBIT_CLAMP))  # scipy.special: no dispatch


def _dnorm(eta: np.ndarray) -> np.ndarray:
    return np.maximum(np.exp(-0.5 * eta * eta) / np.sqrt(2 * np.pi), _EPS)


LINKS: dict[str, Link] = {
    "identity": Link("identity", lambda m: m, lambda e: e, lambda e: np.ones_like(e)),
    "log": Link("log", np.log, lambda e: np.maximum(np.exp(e), _EPS), lambda e: np.maximum(np.exp(e), _EPS),
                ratio="ratio"),
    "logit": Link("logit", special.logit, lambda e: np.clip(special.expit(e), _EPS, 1 - _EPS),
                  lambda e: np.maximum(special.expit(e) * special.expit(-e), _EPS), ratio="odds.ratio"),
    "probit": Link("probit", special.ndtri, _pnorm_clip, _dnorm),
    "cloglog": Link("cloglog", lambda m: np.log(-np.log1p(-m)),
                    lambda e: np.clip(-np.expm1(-np.exp(e)), _EPS, 1 - _EPS),
                    lambda e: np.maximum(np.exp(e - np.exp(np.minimum(e, 700))), _EPS)),
    "sqrt": Link("sqrt", np.sqrt, lambda e: e**2, lambda e: 2 * e, _positive_eta, even=True),
    "inverse": Link("inverse", lambda m: 1 / m, lambda e: 1 / e, lambda e: -1 / e**2, _nonzero_eta),
    "1/mu^2": Link("1/mu^2", lambda m: 1 / m**2, lambda e: 1 / np.sqrt(e), lambda e: -1 / (2 * e**1.5),
                   _positive_eta, unimodal=False),
}


def _constant(y: np.ndarray, rows: str, less: str = "") -> str | None:
    """A constant response: no residual variance to estimate."""
    if np.ptp(y) == 0:
        return (f"{less} is {y[0]:g} {rows}: a constant has no variation, so there is nothing "
                "to estimate (the residual variance is 0). Check the column and any filter or "
                "join that left one value; a constant needs no model")
    return None


@dataclass(frozen=True)
class Family:
    """A distribution of the response given the linear predictor, with its link.

    Class attributes: ``name`` (R's), ``links`` (R's, the default (canonical) first),
    ``scaled`` (phi scales the likelihood: lme4's ``useSc``, sigma = sqrt(phi)),
    ``dispersion`` (a free dispersion: phi, or the negative binomial's size, R's
    ``theta``), ``binary`` (successes out of trials), ``natural`` (the default link is the
    natural parameter's: mu_eta / V constant), ``concave_links`` (the links under which
    log f is concave in eta: one conditional mode), ``edge`` (the end of the range a mean
    can reach, for messages) and ``response_scale`` (emmeans' name of the response scale).
    This base holds what the scaled families (Gamma, the inverse Gaussian) share."""

    link: Link
    name: ClassVar[str]
    links: ClassVar[tuple[str, ...]]
    scaled: ClassVar[bool] = True
    dispersion: ClassVar[bool] = True
    binary: ClassVar[bool] = False
    natural: ClassVar[bool] = True
    concave_links: ClassVar[frozenset[str]] = frozenset()
    edge: ClassVar[str] = "0"
    response_scale: ClassVar[str] = "response"

    @property
    def canonical(self) -> bool:
        return self.link.name == self.links[0]

    @property
    def linear(self) -> bool:
        """Whether the model is a linear mixed model (gaussian, identity link: lmer)."""
        return False

    @property
    def one_mode(self) -> bool:
        """log f concave in eta: the conditional mode is unique, a warm start cannot move it."""
        return self.link.name in self.concave_links

    @property
    def fisher_is_observed(self) -> bool:
        """mu_eta / V constant (a natural parameter's link): the expected information is
        the observed."""
        return self.canonical and self.natural

    def variance(self, mu: np.ndarray, size: float = np.inf) -> np.ndarray:
        """V(mu): Var(y) = phi V(mu) / w (the negative binomial: mu + mu^2 / size)."""
        raise NotImplementedError

    def dev_resids(self, y: np.ndarray, mu: np.ndarray, wt: np.ndarray, size: float = np.inf) -> np.ndarray:
        """R's ``family$dev.resids`` (binomial ``y`` a proportion; the negative binomial of
        ``size``, MASS's ``negative.binomial``)."""
        raise NotImplementedError

    def logpdf(self, y: np.ndarray, mu: np.ndarray, weights: np.ndarray, phi: float = 1.0) -> np.ndarray:
        """log f(y | mu) of each row, as R's ``family$aic`` sums it (x -1/2): binomial ``y``
        is the proportion and ``weights`` the trials (times prior weights); gaussian, Gamma
        and inverse Gaussian take ``phi`` as the dispersion (sigma^2 for gaussian); the
        negative binomial takes its size as ``phi``."""
        raise NotImplementedError

    def loglik(self, y: np.ndarray, mu: np.ndarray, wt: np.ndarray, m: np.ndarray, phi: float = 1.0) -> float:
        """sum log f(y | mu, phi) with the prior weights ``wt`` (lme4's ``aic()`` times
        -1/2); ``m``: the binomial trials as ``binomial()$aic`` reads them."""
        return float(np.sum(self.logpdf(y, mu, wt, phi)))

    def sample(self, mu: np.ndarray, weights: np.ndarray, phi: float, rng: np.random.Generator) -> np.ndarray:
        """One draw of y given mu (R's ``family$simulate``)."""
        raise NotImplementedError

    def initialize(self, y: np.ndarray, wt: np.ndarray) -> np.ndarray:
        """The starting means of the GLM fit (R's ``family$initialize``: ``mustart <- y``)."""
        return y

    def start_dispersion(self, y: np.ndarray, mu: np.ndarray, pearson: float) -> float:
        """The dispersion a fit starts from, given the GLM's means: Pearson's chi^2 / (n - p)."""
        return pearson

    def whole_counts(self, y: np.ndarray, m: np.ndarray) -> bool:
        """Whether log f = saturated - dev.resids / 2 exactly (whole binomial or poisson counts)."""
        return False

    def valid_mu(self, mu: np.ndarray) -> bool:
        """R's ``validmu``: mu > 0."""
        return bool((mu > 0).all())

    def on_boundary(self, mu: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The rows whose mean sits at the edge of the range, within 1e-6 (relative to the
        mean response): mu -> 0, reachable only by a link whose inverse can leave the range
        (identity, inverse); a row with y > 0 is held off by its density."""
        if self.link.name not in ("identity", "inverse"):
            return np.zeros(len(mu), bool)
        return mu < 1e-6 * max(float(np.mean(np.abs(y))), 1e-300)

    def outside(self, y: np.ndarray, weighted: bool) -> tuple[np.ndarray, str]:
        """Rows outside the family's (and link's) support, and the rule they break (R's
        ``family$initialize`` checks)."""
        return y <= 0, "positive"

    def no_variation(self, y: np.ndarray, offset: np.ndarray | None, rows: str) -> str | None:
        """What leaves the response nothing to estimate (a constant), or None."""
        return _constant(y, rows)

    def label(self, dispersion: float) -> str:
        """The family as R's summary prints it."""
        return self.name


@dataclass(frozen=True)
class Gaussian(Family):
    """R's ``gaussian()``: V(mu) = 1, phi = sigma^2; with the identity link a linear model."""

    name: ClassVar[str] = "gaussian"
    links: ClassVar[tuple[str, ...]] = ("identity", "log", "inverse")

    @property
    def linear(self) -> bool:
        return self.canonical

    def variance(self, mu, size=np.inf):
        return np.ones_like(mu)

    def dev_resids(self, y, mu, wt, size=np.inf):
        return wt * (y - mu) ** 2

    def logpdf(self, y, mu, weights, phi=1.0):
        return -0.5 * (np.log(2 * np.pi * phi / weights) + weights * (y - mu) ** 2 / phi)  # dnorm, sd^2 phi / w

    def sample(self, mu, weights, phi, rng):
        return rng.normal(mu, np.sqrt(phi / weights))

    def valid_mu(self, mu):
        return True

    def on_boundary(self, mu, y):
        return np.zeros(len(mu), bool)

    def outside(self, y, weighted):
        if self.link.name == "log":  # R's gaussian()$initialize finds no start
            return y <= 0, "positive with a log link"
        if self.link.name == "inverse":
            return y == 0, "non-zero with an inverse link"
        return np.zeros(len(y), bool), ""

    def no_variation(self, y, offset, rows):
        return _constant(y, rows) if offset is None else _constant(y - offset, rows, " less the offset")


@dataclass(frozen=True)
class Binomial(Family):
    """R's ``binomial()``: y a proportion of ``m`` trials, V(mu) = mu (1 - mu), no dispersion."""

    name: ClassVar[str] = "binomial"
    links: ClassVar[tuple[str, ...]] = ("logit", "probit", "cloglog", "log")
    scaled: ClassVar[bool] = False
    dispersion: ClassVar[bool] = False
    binary: ClassVar[bool] = True
    concave_links: ClassVar[frozenset[str]] = frozenset({"logit", "probit", "cloglog"})
    edge: ClassVar[str] = "1"
    response_scale: ClassVar[str] = "prob"

    def variance(self, mu, size=np.inf):
        return mu * (1 - mu)

    def dev_resids(self, y, mu, wt, size=np.inf):
        return 2 * wt * (special.xlogy(y, y / mu) + special.xlogy(1 - y, (1 - y) / (1 - mu)))

    def logpdf(self, y, mu, weights, phi=1.0):
        return sps.binom.logpmf(np.round(y * weights), np.round(weights), mu)

    def loglik(self, y, mu, wt, m, phi=1.0):
        """binomial()$aic: sum (wt / m) dbinom(round(m y), round(m), mu), rows with m > 0."""
        keep = m > 0
        return float(np.sum(wt[keep] / m[keep] * self.logpdf(y[keep], mu[keep], m[keep])))

    def sample(self, mu, weights, phi, rng):
        n = np.round(weights).astype(np.int64)
        return rng.binomial(n, mu) / np.maximum(n, 1)

    def initialize(self, y, wt):
        return (wt * y + 0.5) / (wt + 1)

    def whole_counts(self, y, m):
        counts = y * m
        return bool(np.all(counts == np.round(counts)))

    def valid_mu(self, mu):
        return bool(((mu > 0) & (mu < 1)).all())

    def on_boundary(self, mu, y):
        """mu -> 1: only the log link's inverse can leave (0, 1)."""
        return mu > 1 - 1e-6 if self.link.name == "log" else np.zeros(len(mu), bool)

    def outside(self, y, weighted):
        if weighted:
            return (y < 0) | (y > 1), "a proportion in [0, 1] when weights give the trials"
        return (y != 0) & (y != 1), ("0/1 (or TRUE/FALSE, or a two-level factor): for counts of "
                                     "successes out of n use cbind(successes, failures), or "
                                     "proportions with weights=n")

    def no_variation(self, y, offset, rows):
        if np.ptp(y) == 0 and y[0] in (0.0, 1.0):
            outcome = "0 (failure)" if y[0] == 0 else "1 (success)"
            return (f"is {outcome} {rows}: with one outcome there is nothing to estimate (the "
                    f"intercept runs to {'-' if y[0] == 0 else '+'}infinity). Check the column and "
                    "any filter that kept one outcome; a binomial model needs rows of both")
        return None


@dataclass(frozen=True)
class Poisson(Family):
    """R's ``poisson()``: counts, V(mu) = mu, no dispersion."""

    name: ClassVar[str] = "poisson"
    links: ClassVar[tuple[str, ...]] = ("log", "identity", "sqrt")
    scaled: ClassVar[bool] = False
    dispersion: ClassVar[bool] = False
    concave_links: ClassVar[frozenset[str]] = frozenset({"log", "sqrt"})  # sqrt: on its branch
    response_scale: ClassVar[str] = "rate"

    def variance(self, mu, size=np.inf):
        return mu

    def dev_resids(self, y, mu, wt, size=np.inf):
        return 2 * wt * (special.xlogy(y, y / mu) - (y - mu))

    def logpdf(self, y, mu, weights, phi=1.0):
        return weights * sps.poisson.logpmf(y, mu)

    def sample(self, mu, weights, phi, rng):
        return rng.poisson(mu).astype(float)

    def initialize(self, y, wt):
        return y + 0.1

    def whole_counts(self, y, m):
        return bool(np.all(y == np.round(y)))

    def outside(self, y, weighted):
        return (y < 0) | (y != np.round(y)), "non-negative whole numbers"

    def no_variation(self, y, offset, rows):
        return None if y.any() else (
            f"is 0 {rows}: with no counts there is nothing to estimate (the log of the "
            "mean runs to -infinity). Check the column and any filter that kept only zeros")


@dataclass(frozen=True)
class NegativeBinomial(Poisson):
    """MASS's ``negative.binomial`` with its size (R's ``theta``) a free parameter, as
    ``lme4::glmer.nb`` fits it; its log link is not the natural parameter's."""

    name: ClassVar[str] = "negative.binomial"
    links: ClassVar[tuple[str, ...]] = ("log", "sqrt", "identity")
    dispersion: ClassVar[bool] = True
    natural: ClassVar[bool] = False
    concave_links: ClassVar[frozenset[str]] = frozenset({"sqrt"})
    response_scale: ClassVar[str] = "response"

    def variance(self, mu, size=np.inf):
        return mu + mu**2 / size

    def dev_resids(self, y, mu, wt, size=np.inf):
        return 2 * wt * (special.xlogy(y, y / mu) - (y + size) * np.log((y + size) / (mu + size)))

    def logpdf(self, y, mu, weights, phi=1.0):
        return weights * sps.nbinom.logpmf(y, phi, phi / (phi + mu))  # size phi

    def sample(self, mu, weights, phi, rng):
        return rng.negative_binomial(phi, phi / (phi + mu)).astype(float)

    def initialize(self, y, wt):
        """y + 1/6 (MASS's ``negative.binomial`` adds 1/6 where y = 0 only)."""
        return y + 1 / 6

    def start_dispersion(self, y, mu, pearson):
        """The size by moments: Var = mu + mu^2 / size, within [0.1, 100]."""
        excess = np.mean((y - mu) ** 2 - mu)
        return float(np.clip(np.mean(mu**2) / excess, 0.1, 100.0) if excess > 0 else 100.0)

    def whole_counts(self, y, m):
        return False

    def label(self, dispersion):
        return f"Negative Binomial({round(dispersion, 4):.10g})"  # R's negative.binomial()


@dataclass(frozen=True)
class Gamma(Family):
    """R's ``Gamma()``: V(mu) = mu^2, shape w / phi."""

    name: ClassVar[str] = "Gamma"
    links: ClassVar[tuple[str, ...]] = ("inverse", "identity", "log")

    def variance(self, mu, size=np.inf):
        return mu**2

    def dev_resids(self, y, mu, wt, size=np.inf):
        return -2 * wt * (np.log(y / mu) - (y - mu) / mu)

    def logpdf(self, y, mu, weights, phi=1.0):
        shape = weights / phi
        return sps.gamma.logpdf(y, shape, scale=mu / shape)

    def sample(self, mu, weights, phi, rng):
        shape = weights / phi
        return rng.gamma(shape, mu / shape)


@dataclass(frozen=True)
class InverseGaussian(Family):
    """R's ``inverse.gaussian()``: V(mu) = mu^3, Var(y) = phi mu^3 / w."""

    name: ClassVar[str] = "inverse.gaussian"
    links: ClassVar[tuple[str, ...]] = ("1/mu^2", "inverse", "identity", "log")

    def variance(self, mu, size=np.inf):
        return mu**3

    def dev_resids(self, y, mu, wt, size=np.inf):
        return wt * (y - mu) ** 2 / (y * mu**2)

    def logpdf(self, y, mu, weights, phi=1.0):
        return -0.5 * (np.log(2 * np.pi * phi * y**3 / weights) + weights * (y - mu) ** 2 / (phi * y * mu**2))

    def sample(self, mu, weights, phi, rng):
        return rng.wald(mu, weights / phi)  # shape lambda: Var = mu^3 / lambda


# R's families by name; a new family is a class above and an entry here
FAMILY_CLASSES: dict[str, type[Family]] = {
    cls.name: cls for cls in (Gaussian, Binomial, Poisson, Gamma, InverseGaussian, NegativeBinomial)}
# R's families, their default (canonical) link first, then the other links R allows
FAMILY_LINKS: dict[str, tuple[str, ...]] = {name: cls.links for name, cls in FAMILY_CLASSES.items()}
_ALIASES = {"gamma": "Gamma", "inverse_gaussian": "inverse.gaussian", "inversegaussian": "inverse.gaussian",
            "negative_binomial": "negative.binomial", "negativebinomial": "negative.binomial",
            "nbinom2": "negative.binomial", "bernoulli": "binomial"}


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
    if key not in FAMILY_CLASSES:
        raise ValueError(f"family={name!r}: use one of {sorted(FAMILY_CLASSES)}")
    cls = FAMILY_CLASSES[key]
    link = cls.links[0] if link is None else link
    if link not in cls.links:
        raise ValueError(f"family {key!r} has no link {link!r}: R allows {list(cls.links)}")
    return cls(LINKS[link])
