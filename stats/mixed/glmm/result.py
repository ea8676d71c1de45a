"""A fitted generalised linear mixed model (lme4's ``glmerMod``): family, link and
dispersion, the GLM weights of the conditional variances, Pearson residuals and Wald z tests;
what it shares with a linear mixed model is
[MerResult][acceptability.stats.mixed.mer.MerResult]'s."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.mer import MerResult

__all__ = ["GlmerResult"]


@dataclass(repr=False)
class GlmerResult(MerResult):
    """A fitted [glmer][acceptability.stats.mixed.lmm.lmer.glmer] model: the accessors of
    [MerResult][acceptability.stats.mixed.mer.MerResult], z tests; ``sigma`` is
    sqrt(phi) for a family with a scale (Gamma, inverse Gaussian, gaussian), else 1, as
    lme4's ``sigma``, and the random effects' covariances are sigma^2 Lambda Lambda' (lme4's
    ``VarCorr``)."""

    nagq: int = 1

    _kind = "glmer"
    _confint_methods = ("Wald", "profile", "boot")

    @property
    def family(self) -> str:
        """R's name of the family (``"binomial"``, ``"Gamma"``, ...)."""
        return self.design.family

    @property
    def link(self) -> str:
        """R's name of the link."""
        return self.design.glm_family.link.name

    @property
    def _has_sigma(self) -> bool:
        """Whether the family has a scale (lme4's ``useSc``; not the negative binomial's size)."""
        return self.design.glm_family.scaled

    @property
    def dispersion(self) -> float:
        """phi of a family with a scale (sigma^2), the negative binomial's size (R's
        ``theta``, ``getME(m, "glmer.nb.theta")``), 1 for binomial and poisson."""
        return float(self.parameters.dispersion)

    @property
    def npar(self) -> int:
        """Fixed effects + covariance parameters + a dispersion (phi or the negative
        binomial's size), as lme4's ``df`` of logLik counts them."""
        return int(self.design.p + self.design.ntheta + self.design.glm_family.dispersion)

    @property
    def _nagq(self) -> int:
        return self.nagq

    def refit_ml(self) -> GlmerResult:
        return self

    def _start(self) -> dict[str, list[float]]:
        start = super()._start() | {"beta": list(self.fixef)}
        if self.design.glm_family.dispersion:
            start["dispersion"] = self.parameters.dispersion
        return start

    @property
    def _prior_weights(self) -> np.ndarray:
        """lme4's ``weights(m)``: prior weights times binomial trials (1 where neither)."""
        w = np.ones(self.nobs) if self.design.weights is None else self.design.weights
        return w if self.design.trials is None else w * self.design.trials

    def _condvar(self) -> list[np.ndarray]:
        """Conditional variances from A = Lambda' Z' W Z Lambda + I at the fit, W the GLM
        weights w (dmu/deta)^2 / V(mu) (lme4: the final PIRLS factor), times sigma^2."""
        fam = self.design.glm_family
        eta = self.predict().to_numpy()
        mu = fam.link.linkinv(eta)
        w = self._prior_weights * fam.link.mu_eta(eta) ** 2 / fam.variance(mu, self.dispersion)
        return pls.cond_var(self.design, self.theta, self.sigma, weights=w)

    def _response_variance(self) -> np.ndarray:
        """Var(y | b) at the fit: sigma^2 V(mu) / w (a binomial proportion: mu (1 - mu) / n)."""
        mu = self.fitted.to_numpy()
        var = self.design.glm_family.variance(mu, self.dispersion)
        return self.sigma**2 * var / self._prior_weights

    def _inverse_link(self, eta: np.ndarray) -> np.ndarray:
        return self.design.glm_family.link.linkinv(eta)

    @property
    def scaled_residuals(self) -> np.ndarray:
        """Pearson residuals (y - mu) / sqrt(Var(y | b)), as lme4's summary shows
        (``residuals(m, "pearson", scaled = TRUE)``)."""
        return (self.design.y - self.fitted.to_numpy()) / np.sqrt(self._response_variance())

    @property
    def df(self) -> pd.Series:
        return pd.Series(np.inf, index=self.design.xnames)

    @property
    def coefficients(self) -> pd.DataFrame:
        """Estimate, Std. Error, z value, Pr(>|z|) (lme4's Wald z tests)."""
        est, se = self.fixef, self.se
        z = est / se
        return pd.DataFrame({"Estimate": est, "Std. Error": se, "z value": z,
                             "Pr(>|z|)": 2 * sps.norm.sf(np.abs(z))})

    @property
    def provenance(self) -> dict[str, object]:
        return super().provenance | {"family": self.family, "link": self.link, "nAGQ": self.nagq}
