"""A fitted linear mixed model (lme4's ``lmerMod``, with lmerTest's tests): the penalised
least-squares solution at the optimum, REML or ML, Satterthwaite and Kenward-Roger degrees of
freedom and t tests; what it shares with a GLMM is
[MerResult][acceptability.stats.mixed.mer.MerResult]'s."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.mixed.fitted import kenward_roger
from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.mer import MerResult
from acceptability.stats.mixed.stages import fit

__all__ = ["LmerResult"]


@dataclass(repr=False)
class LmerResult(MerResult):
    """A fitted [lmer][acceptability.stats.mixed.lmm.lmer.lmer] model: the accessors of
    [MerResult][acceptability.stats.mixed.mer.MerResult] and lmerTest's tests
    (``coefficients``: t tests with Satterthwaite's degrees of freedom)."""

    _kind = "lmer"
    _has_sigma = True
    _confint_methods = ("profile", "Wald", "boot")  # the first is the default
    _nagq = 1

    def _condvar(self) -> list[np.ndarray]:
        return pls.cond_var(self.design, self.theta, self.sigma, factor=self.state.factor)

    # --- likelihood -------------------------------------------------------------------
    @property
    def npar(self) -> int:
        """Fixed effects + covariance parameters (+ residual variance): lme4's ``df`` of logLik."""
        return int(self.design.p + self.design.ntheta + self._has_sigma)

    def refit_ml(self) -> LmerResult:
        """The same model fitted by maximum likelihood (lme4 ``refitML``)."""
        if not self.REML:
            return self
        d = self.design
        return LmerResult(d, fit(d, REML=False, start={"theta": list(self.theta)}), True, REML=False)

    # --- inference --------------------------------------------------------------------
    @cached_property
    def df(self) -> pd.Series:
        """Satterthwaite degrees of freedom of each fixed effect (lmerTest)."""
        return pd.Series(self._satterthwaite.df(np.eye(self.design.p)), index=self.design.xnames)

    @cached_property
    def _satterthwaite(self) -> pls.Satterthwaite:
        return pls.satterthwaite(self.design, self.state)

    @cached_property
    def _kenward_roger(self) -> kenward_roger.KenwardRoger:
        return kenward_roger.kenward_roger(self)

    @property
    def coefficients(self) -> pd.DataFrame:
        """lmerTest's coefficient table: Estimate, Std. Error, df, t value, Pr(>|t|)."""
        est, se, df = self.fixef, self.se, self.df
        t = est / se
        return pd.DataFrame({"Estimate": est, "Std. Error": se, "df": df, "t value": t,
                             "Pr(>|t|)": 2 * sps.t.sf(np.abs(t), df)})

    def _inverse_link(self, eta: np.ndarray) -> np.ndarray:
        return eta

    @property
    def scaled_residuals(self) -> np.ndarray:
        """Residuals x sqrt(prior weight) / sigma (lme4's summary: ``residuals(m, "pearson",
        scaled = TRUE)``)."""
        w = 1.0 if self.design.weights is None else np.sqrt(self.design.weights)
        return self.residuals.to_numpy() * w / self.sigma
