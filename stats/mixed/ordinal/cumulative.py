"""Cumulative link models for ordinal ratings (R's ``ordinal::clm``; Christensen 2019,
"Cumulative link models for ordinal regression with the R package ordinal", sections 2-4;
Agresti 2010, Analysis of Ordinal Categorical Data, chapter 5).

Pr(Y <= j | x) = F(theta_j - x'beta): one threshold theta_j between each pair of adjacent
categories (``1|2``, ``2|3``, ...), no intercept, a latent distribution F chosen by the link.
The fit is Newton's method on the exact log-likelihood with its analytic gradient and
Hessian (ordinal's ``clm.fit.NR``), the standard errors come from that Hessian.
[OrdinalResult][acceptability.stats.mixed.ordinal.cumulative.OrdinalResult] holds what a fit of
``clm`` and of [clmm][acceptability.stats.mixed.ordinal.cumulative_mixed.clmm] share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability._warnings import warn
from acceptability.stats.arguments import check_ci
from acceptability.stats.mixed.lmm.pls import one_blas_thread
from acceptability.stats.mixed.mer import MerResult
from acceptability.stats.mixed.ordinal.clm_design import OrdinalDesign, ordinal_design
from acceptability.stats.mixed.ordinal.clm_newton import NewtonFit, clm_objective, newton_clm
from acceptability.stats.mixed.ordinal.ordinal_links import interval
from acceptability.stats.mixed.results import FittedRows, Summary
from acceptability.stats.mixed.transforms import formula_offset

__all__ = ["ClmResult", "NewtonFit", "OrdinalDesign", "OrdinalResult", "anova_clm", "clm", "clm_objective",
           "newton_clm", "ordinal_design"]


def _inverse_hessian(hess: np.ndarray) -> np.ndarray | None:
    """chol2inv(chol(H)) as ordinal's ``vcov``; None where H is not positive definite."""
    try:
        chol = np.linalg.cholesky(hess)
    except np.linalg.LinAlgError:
        return None
    inv = np.linalg.inv(chol)
    return inv.T @ inv


def category_probabilities(d: OrdinalDesign, par: np.ndarray, eta: np.ndarray) -> np.ndarray:
    """Pr(Y = j) for each row (linear predictor ``eta``) and category: F(theta_j - eta) -
    F(theta_{j-1} - eta), (n, K)."""
    theta = d.thresholds.tjac @ par[:d.nalpha]
    cuts = np.concatenate([[-np.inf], theta, [np.inf]])
    upper = cuts[None, 1:] - eta[:, None]
    lower = cuts[None, :-1] - eta[:, None]
    return interval(d.link, upper, lower).p


@dataclass(repr=False)
class OrdinalResult(FittedRows):
    """What fits of ``clm`` and ``clmm`` share: the coefficients as ordinal names them,
    the thresholds, the likelihood and its criteria, standard errors from the Hessian,
    predicted category probabilities and likelihood-ratio tests.

    ``hessian`` and ``gradient`` are those of the negative log-likelihood over the
    parameters ``hessian_names`` (``clmm`` adds its random-effect parameters)."""

    design: OrdinalDesign
    par: np.ndarray
    loglik: float
    gradient: np.ndarray
    hessian: np.ndarray
    hessian_names: list[str]
    niter: str
    converged: bool
    notes: list[str] = field(default_factory=list)

    # --- data ------------------------------------------------------------------------------
    @property
    def link(self) -> str:
        return self.design.link.name

    @property
    def threshold(self) -> str:
        return self.design.thresholds.kind

    @property
    def levels(self) -> tuple[str, ...]:
        """The response categories, in order."""
        return self.design.levels

    # --- coefficients ----------------------------------------------------------------------
    @property
    def coef(self) -> pd.Series:
        """Threshold parameters then regression coefficients (ordinal's ``coef``)."""
        return pd.Series(self.par, index=self.design.par_names)

    @property
    def alpha(self) -> pd.Series:
        """The threshold parameters (``1|2``, ... or ``threshold.1``, ``spacing``, ...)."""
        return self.coef.iloc[:self.design.nalpha]

    @property
    def beta(self) -> pd.Series:
        """The regression coefficients, named as R names them (``tempwarm``)."""
        return self.coef.iloc[self.design.nalpha:self.design.nloc]

    @property
    def zeta(self) -> pd.Series:
        """The scale effects (log sigma per unit; ordinal's ``zeta``), empty without ``scale``."""
        return self.coef.iloc[self.design.nloc:]

    @property
    def aliased(self) -> list[str]:
        """Regression columns the nominal effects span, left out (ordinal's NA coefficients)."""
        return list(self.design.aliased)

    @property
    def fixef(self) -> pd.Series:
        """The regression coefficients (``beta``)."""
        return self.beta

    @property
    def Theta(self) -> pd.Series | pd.DataFrame:
        """The K - 1 thresholds, ``1|2``, ``2|3``, ... (ordinal's ``Theta``); with nominal
        effects one row per combination of the nominal variables in the data, as ordinal."""
        d = self.design
        nt = d.thresholds.tjac.shape[1]
        alpha = self.alpha.to_numpy().reshape(-1, nt) @ d.thresholds.tjac.T
        if d.nominal is None:
            return pd.Series(alpha[0], index=d.thresholds.theta_names)
        cols = [c for c in d.nominal.part_columns if c in self.frame.columns]
        rows = self.frame[cols].drop_duplicates().sort_values(cols).reset_index(drop=True)
        theta = pd.DataFrame(d.nominal.new(rows) @ alpha, columns=d.thresholds.theta_names)
        return pd.concat([rows, theta], axis=1)

    @property
    def nobs(self) -> float:
        """Number of observations: the rows, or the sum of the case weights (ordinal's ``nobs``)."""
        if self.design.weights is None:
            return self.design.n
        total = float(self.design.weights.sum())
        return int(total) if total.is_integer() else total

    @cached_property
    def _vcov(self) -> np.ndarray | None:
        return _inverse_hessian(self.hessian)

    @property
    def vcov(self) -> pd.DataFrame:
        """Inverse of the Hessian of the negative log-likelihood (ordinal's ``vcov``);
        NaN where the Hessian is not positive definite."""
        v = self._vcov if self._vcov is not None else np.full(self.hessian.shape, np.nan)
        return pd.DataFrame(v, index=self.hessian_names, columns=self.hessian_names)

    @property
    def se(self) -> pd.Series:
        """Standard errors of the coefficients."""
        return pd.Series(np.sqrt(np.diag(self.vcov))[:len(self.par)], index=self.coef.index)

    @property
    def coefficients(self) -> pd.DataFrame:
        """Estimates, standard errors, z values and Pr(>|z|) (``summary(m)$coefficients``)."""
        z = self.coef / self.se
        return pd.DataFrame({"Estimate": self.coef, "Std. Error": self.se, "z value": z,
                             "Pr(>|z|)": 2 * sps.norm.sf(np.abs(z))})

    def confint(self, level: float = 0.95) -> pd.DataFrame:
        """Wald intervals of the coefficients (ordinal's ``confint(m, type = "Wald")``)."""
        check_ci(level, "level")
        z = sps.norm.ppf((1 + level) / 2)
        lo, hi = (1 - level) / 2, (1 + level) / 2
        return pd.DataFrame({f"{100 * lo:.1f} %": self.coef - z * self.se,
                             f"{100 * hi:.1f} %": self.coef + z * self.se})

    # --- likelihood -----------------------------------------------------------------------
    @property
    def edf(self) -> int:
        """Number of parameters (ordinal's ``edf``, anova's ``no.par``)."""
        return len(self.par)

    @property
    def logLik(self) -> float:
        return float(self.loglik)

    @property
    def AIC(self) -> float:
        return -2 * self.loglik + 2 * self.edf

    @property
    def BIC(self) -> float:
        return -2 * self.loglik + np.log(self.nobs) * self.edf

    @property
    def max_grad(self) -> float:
        """max |gradient| at the optimum (ordinal's ``max.grad``)."""
        return float(np.max(np.abs(self.gradient)))

    @property
    def cond_H(self) -> float:
        """Condition number of the Hessian, max / min eigenvalue (ordinal's ``cond.H``)."""
        ev = np.linalg.eigvalsh(self.hessian)
        return float(abs(ev.max() / ev.min()))

    # --- predictions ------------------------------------------------------------------------
    def _eta(self, newdata: pd.DataFrame | None) -> tuple[np.ndarray, pd.Index]:
        """x'beta + offset of the fitted rows or of ``newdata`` (there the formula's
        ``offset(...)`` terms evaluated on it, as ordinal's ``predict``)."""
        if newdata is None:
            return self.design.X[:, 1:] @ self.beta.to_numpy() + self.design.offset, self.frame.index
        x = MerResult._new_x(self, newdata)  # the fit's factor levels and contrasts
        offset = formula_offset(self.formula, newdata)
        return x[:, 1:] @ self.beta.to_numpy() + (0.0 if offset is None else offset), newdata.index

    def _probabilities(self, eta: np.ndarray, index: pd.Index) -> pd.DataFrame:
        prob = category_probabilities(self.design, self.par, eta)
        return pd.DataFrame(prob, index=index, columns=list(self.levels))

    def _predict(self, eta: np.ndarray, index: pd.Index, type: str) -> pd.DataFrame | pd.Series:
        if type not in ("prob", "class", "linear.predictor"):
            raise ValueError(f"type={type!r}: use 'prob', 'class' or 'linear.predictor'")
        if type == "linear.predictor":
            return pd.Series(eta, index=index)
        prob = self._probabilities(eta, index)
        if type == "class":
            return pd.Series(pd.Categorical(prob.idxmax(axis=1), categories=list(self.levels),
                                            ordered=True), index=index)
        return prob

    @property
    def fitted(self) -> pd.Series:
        """Fitted probability of each row's observed category (ordinal's ``fitted``)."""
        prob = self.predict().to_numpy()
        return pd.Series(prob[np.arange(self.design.n), self.design.y], index=self.frame.index)

    # --- output -----------------------------------------------------------------------------
    def anova(self, *others: OrdinalResult) -> pd.DataFrame:
        """Likelihood-ratio tests against ``others`` ([anova_clm][acceptability.stats.mixed.ordinal.cumulative.anova_clm])."""
        return anova_clm(self, *others)

    def emmeans(self, specs: str | list[str], level: float = 0.95, pairwise: bool = False,
                adjust: str = "tukey", *, by: str | list[str] | None = None,
                mode: str = "latent") -> pd.DataFrame:
        """emmeans' ``emmeans`` and ``pairs`` on the latent scale or as class probabilities
        ([emmeans][acceptability.stats.mixed.fitted.lsmeans.emmeans])."""
        from acceptability.stats.mixed.fitted.lsmeans import emmeans

        return emmeans(self, specs, level=level, pairwise=pairwise, adjust=adjust, by=by, mode=mode)

    @property
    def _kind(self) -> str:
        return "clm"

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.formula.text!r}: n={self.nobs}, link={self.link}, "
                f"threshold={self.threshold}, logLik={self.logLik:.3f}>")


@dataclass(repr=False)
class ClmResult(OrdinalResult):
    """A fitted [clm][acceptability.stats.mixed.ordinal.cumulative.clm]: ordinal's ``clm``
    object, with ``coef``, ``alpha``, ``beta``/``fixef``, ``Theta``, ``vcov``, ``se``,
    ``logLik``, ``AIC``, ``BIC``, ``predict``, ``anova`` and ``summary``."""

    def predict(self, newdata: pd.DataFrame | None = None,
                type: str = "prob") -> pd.Series | pd.DataFrame | dict[str, pd.DataFrame]:
        """ordinal's ``predict.clm``: ``type`` = ``"prob"``, ``"cum.prob"``,
        ``"linear.predictor"`` or ``"class"``, of the fitted rows (``newdata`` None) or new
        rows; rows with the response give their observed category's values, rows without
        one column per category (``ordinal_predict``
        gives the shapes)."""
        from acceptability.stats.mixed.ordinal.ordinal_predict import clm_predict

        return clm_predict(self, newdata, type)

    @property
    def fitted(self) -> pd.Series:
        """Fitted probability of each row's observed category (ordinal's ``fitted``)."""
        return self.predict()

    def confint(self, parm: list[str] | None = None, level: float = 0.95,
                type: str = "profile") -> pd.DataFrame:
        """Confidence intervals (ordinal's ``confint.clm``): by default profile-likelihood
        intervals of the regression and scale coefficients (scale rows named ``sca.x``),
        each end where the signed root of the likelihood-ratio statistic reaches the normal
        quantile, solved to 1e-8 (ordinal interpolates a spline through its profile);
        ``type="Wald"``: estimate -+ z SE for every parameter."""
        if type == "Wald":
            table = OrdinalResult.confint(self, level)
            return table if parm is None else table.loc[parm]
        if type != "profile":
            raise ValueError(f"type={type!r}: use 'profile' or 'Wald'")
        from acceptability.stats.mixed.ordinal.ordinal_profile import profile_confint

        return profile_confint(self, parm, level)

    def summary(self) -> Summary:
        """The fit printed as ordinal's ``summary(clm)`` prints it, with its tables."""
        from acceptability.stats.mixed.ordinal.ordinal_summary import clm_summary

        return clm_summary(self)


@one_blas_thread
def clm(formula: str, data: pd.DataFrame, link: str = "logit", threshold: str = "flexible", *,
        nominal: str | None = None, scale: str | None = None, weights: object = None,
        contrasts: dict[str, object] | None = None) -> ClmResult:
    """Fit a cumulative link model for an ordinal response (R's ``ordinal::clm``).

    Pr(Y <= j) = F(theta_j - x'beta) with F the inverse ``link`` (logit, probit,
    cloglog, loglog, cauchit) and thresholds ``flexible`` (one per pair of adjacent
    categories), ``equidistant``, ``symmetric`` or ``symmetric2`` (mirrored about 0). The response is an ordered pandas
    Categorical or whole-number ratings; an empty category is an error. Rows with
    missing values in the formula's columns are dropped and counted in ``n_dropped``.
    ``offset(v)`` terms add a known ``v`` to x'beta (ordinal's offset of the location).

    Parameters
    ----------
    formula
        ``rating ~ x + z``, ``rating ~ x + offset(v)``: fixed effects only (use ``clmm``
        for random effects).
    data
        One row per rating.
    link
        The inverse of the latent distribution F.
    threshold
        The threshold structure.
    nominal
        ``"~ x"``: effects of x on each threshold separately (partial proportional odds;
        coefficients ``1|2.(Intercept)``, ..., ``1|2.xb``, ...).
    scale
        ``"~ z"``: effects of z on the log of the latent scale (coefficients ``zeta``).
    weights
        Case weights: a column name or one positive value per row (ordinal's ``weights``).
    contrasts
        A coding per factor (``{"temp": "sum"}``; ordinal's ``contrasts``, as in
        [lmer][acceptability.stats.mixed.lmm.lmer.lmer]), for ``nominal`` and ``scale`` too.

    Returns
    -------
    ClmResult
        Coefficients, thresholds, their covariance and the likelihood.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import clm
    >>> ratings = pd.DataFrame({"rating": [1, 2, 2, 3, 1, 3, 3, 2, 1, 3], "x": [0, 0, 1, 1, 0, 1, 1, 0, 0, 0]})
    >>> m = clm("rating ~ x", ratings)
    >>> list(m.coef.index), round(m.logLik, 4)
    (['1|2', '2|3', 'x'], -8.5626)
    """
    d = ordinal_design(formula, data, link, threshold, weights=weights, nominal=nominal, scale=scale,
                       contrasts=contrasts)
    fit = newton_clm(d)
    notes = []
    if not fit.converged:
        notes.append(f"clm: Newton's method did not converge (max|gradient| "
                     f"{np.max(np.abs(fit.gradient)):.2g})")
        warn(notes[-1])
    return ClmResult(d, fit.par, -fit.nll, fit.gradient, fit.hessian, d.par_names,
                     f"{fit.iterations}({fit.halvings})", fit.converged, notes)


def anova_clm(*models: OrdinalResult) -> pd.DataFrame:
    """Likelihood-ratio tests between nested cumulative link (mixed) models (ordinal's
    ``anova.clm``): rows ordered by number of parameters, columns ``no.par``, ``AIC``,
    ``logLik``, ``LR.stat``, ``df``, ``Pr(>Chisq)``; ``attrs["models"]`` holds each
    model's formula, link and threshold.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import anova_clm, clm
    >>> df = pd.DataFrame({"rating": [1, 2, 2, 3, 1, 3, 3, 2, 1, 3],
    ...                    "x": [0, 0, 1, 1, 0, 1, 1, 0, 0, 0]})
    >>> table = anova_clm(clm("rating ~ 1", df), clm("rating ~ x", df))
    >>> table["no.par"].tolist(), round(float(table["LR.stat"].iloc[1]), 4)
    ([2, 3], 4.6527)
    """
    if len(models) < 2:
        raise ValueError("anova_clm needs at least two fitted models")
    if len({m.nobs for m in models}) > 1:
        raise ValueError("models were not all fitted to the same dataset "
                         f"({[m.nobs for m in models]} rows): fit them to the same rows")
    order = sorted(range(len(models)), key=lambda i: models[i].edf)  # stable, as R's order()
    ms = [models[i] for i in order]
    names = [f"m{i + 1}" for i in order]
    ll = np.array([m.logLik for m in ms])
    npar = np.array([m.edf for m in ms])
    stat = np.concatenate([[np.nan], 2 * np.diff(ll)])
    df = np.concatenate([[np.nan], np.diff(npar)]).astype(float)
    with np.errstate(invalid="ignore"):
        p = sps.chi2.sf(stat, df)
    p[0] = np.nan
    p[df == 0] = np.nan
    table = pd.DataFrame({"no.par": npar, "AIC": [m.AIC for m in ms], "logLik": ll,
                          "LR.stat": stat, "df": df, "Pr(>Chisq)": p}, index=names)
    table.attrs["models"] = pd.DataFrame(
        {"formula:": [m.formula.canonical() for m in ms], "link:": [m.link for m in ms],
         "threshold:": [m.threshold for m in ms]}, index=names)
    return table
