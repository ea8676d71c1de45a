"""Mixed models in lme4 syntax: ``lmer`` (linear) and ``glmer`` (binomial, poisson).

``lmer(formula, data, REML=True)`` and ``glmer(formula, data, family, nAGQ=1)`` mirror
lme4 (Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw. 67(1)). Every lme4
random-effects structure is accepted: crossed and nested factors, correlated slopes on any
factor, ``||``, ``(0 + x | g)``, ``g/h``, ``g:h``. Each is lme4's three stages in a row:
[model_design][acceptability.stats.mixed.stages.model_design] (``lFormula``),
[fit][acceptability.stats.mixed.stages.fit] with the engine
[choose_engine][acceptability.stats.mixed.engines.registry.choose_engine] picks (glmm, or lme4's
penalised least squares for the structures glmm refuses) and
[make_result][acceptability.stats.mixed.lmm.lmer.make_result] (``mkMerMod``). For a linear
model every reported quantity is computed from lme4's formulas at the optimum, whichever
engine found it; a GLMM's estimates, standard errors and Laplace / adaptive Gauss-Hermite
likelihood are glmm's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability._warnings import warn
from acceptability.stats.arguments import check_ci, check_whole
from acceptability.stats.mixed.checks import check_reml, parse, prepare_frame
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.protocol import FittedParameters
from acceptability.stats.mixed.fitted import ftests, kenward_roger, lsmeans, reform
from acceptability.stats.mixed.fitted.bootmer import BootMer, bootMer
from acceptability.stats.mixed.fitted.parametric import parametric_confint
from acceptability.stats.mixed.fitted.profile import MixedProfile, profile_confint
from acceptability.stats.mixed.fitted.simulation import simulate
from acceptability.stats.mixed.glmm import families
from acceptability.stats.mixed.glmm.families import Family
from acceptability.stats.mixed.glmm.laplace import DOMAIN_NOTE
from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.results import MixedResult, Summary
from acceptability.stats.mixed.stages import fit, model_design
from acceptability.stats.mixed.summary import lme4_summary
from acceptability.stats.mixed.transforms import fixed_part
from acceptability.stats.mixed.weights import total_offset

__all__ = ["ConvergenceWarning", "GlmerResult", "LmerResult", "SingularFitWarning", "anova",
           "glmer", "glmer_nb", "lmer", "make_result", "prepare_frame"]

_SINGULAR_TOL = 1e-4  # lme4::isSingular: a diagonal of a relative covariance factor below this

if TYPE_CHECKING:
    from acceptability.stats.mixed.fitted.allfit import AllFit
    from acceptability.stats.mixed.fitted.selection import StepResult


class SingularFitWarning(UserWarning):
    """A variance is ~0 or a correlation ~±1 (lme4: 'boundary (singular) fit')."""


class ConvergenceWarning(UserWarning):
    """The optimiser did not report convergence (lme4: 'Model failed to converge')."""


_R_RESERVED = frozenset({  # R's reserved words, which make.names gives a trailing "."
    "if", "else", "repeat", "while", "function", "for", "next", "break", "in", "TRUE", "FALSE",
    "NULL", "Inf", "NaN", "NA", "NA_integer_", "NA_real_", "NA_complex_", "NA_character_"})


def _varcorr_labels(groups: list[str]) -> list[str]:
    """lme4's labels of the terms' grouping factors in ``VarCorr`` (its ``mkVarCorr``): the
    factors' names, unless one is in several terms, as in ``(x || g)``; then R's
    ``make.names(groups, unique = TRUE)``: ``g``, ``g.1``, and ``g:h`` becomes ``g.h``."""
    if len(set(groups)) == len(groups):
        return groups
    valid = []
    for g in groups:  # make.names: "X" before a bad start, "." for a bad character
        if not (g[:1].isalpha() or (g[:1] == "." and not g[1:2].isdigit())):
            g = "X" + g
        g = "".join(c if c.isalnum() or c in "._" else "." for c in g)
        valid.append(g + "." if g in _R_RESERVED else g)
    taken, seen, out = set(valid), set(), []
    for g in valid:  # make.unique: the k-th repeat of g becomes g.k, skipping taken names
        if g in seen:
            k = 1
            while f"{g}.{k}" in taken:
                k += 1
            g = f"{g}.{k}"
            taken.add(g)
        seen.add(g)
        out.append(g)
    return out


@pls.one_blas_thread
def lmer(formula: str, data: pd.DataFrame, REML: bool = True, weights: object = None,
         offset: object = None, contrasts: dict[str, object] | None = None) -> LmerResult:
    """Fit a linear mixed model written in lme4 syntax (``lme4::lmer``).

    ``y ~ x + (1 + x | g) + (1 | h)``: crossed or nested factors, ``(1 | g/h)`` =
    ``(1 | g) + (1 | g:h)``, ``(0 + x | g)`` without intercept, ``(1 + x || g)``
    uncorrelated. Rows with missing values in used columns (or weights, offset) are dropped
    and counted in ``n_dropped``. The result has lme4's accessors and lmerTest's
    Satterthwaite tests.

    Parameters
    ----------
    formula
        lme4 syntax.
    data
        One row per observation.
    REML
        REML (default) or maximum likelihood (``REML=False``).
    weights
        Prior weights (a column name or one positive value per row): row i has residual
        variance sigma^2 / w_i, as in lme4 (weighted PLS; logLik adds sum(log w) / 2).
    offset
        A known term of the linear predictor (a column name or one value per row), added to
        the formula's ``offset(...)`` terms.
    contrasts
        A coding per factor, R's ``contrasts`` argument: ``{"A": "sum"}``, ``"helmert"``,
        ``"poly"``, ``"treatment"`` or a matrix with a row per level
        ([contrast][acceptability.stats.mixed.contrasts.contrast]). Other factors get R's
        defaults: treatment contrasts, ``contr.poly`` for an ordered Categorical.

    Returns
    -------
    LmerResult

    Examples
    --------
    >>> import warnings
    >>> from acceptability import data
    >>> from acceptability.stats import sentence_model_frame
    >>> from acceptability.stats.mixed import lmer
    >>> ds, scores = data.load_example()
    >>> frame = sentence_model_frame(ds, scores, model=scores["model"].iloc[0])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = lmer("human ~ score + (1 | phenomenon)", frame)
    >>> list(m.fixef.index), m.nobs + m.n_dropped == len(frame)
    (['(Intercept)', 'score'], True)
    """
    reml = check_reml(REML)
    d = model_design(formula, data, weights=weights, offset=offset, contrasts=contrasts)
    return make_result(d, fit(d, REML=reml), REML=reml)


@pls.one_blas_thread
def glmer(formula: str, data: pd.DataFrame, family: str | Family = "binomial", nAGQ: int = 1,
          link: str | None = None, weights: object = None, offset: object = None,
          contrasts: dict[str, object] | None = None) -> GlmerResult:
    """Fit a generalised linear mixed model in lme4 syntax (``lme4::glmer``).

    Any of R's families and links (``families.family``):
    ``"binomial"`` (logit, probit, cloglog, log; response 0/1, TRUE/FALSE, a two-level
    factor whose first level is failure, ``cbind(successes, failures)``, or proportions
    with the trials as ``weights``), ``"poisson"`` (log, sqrt, identity), ``"Gamma"``,
    ``"inverse.gaussian"``, ``"gaussian"`` with a log or inverse link, and
    ``"negative.binomial"`` (its size estimated: [glmer_nb][acceptability.stats.mixed.lmm.lmer.glmer_nb]).
    ``nAGQ=1`` is the Laplace approximation; ``nAGQ > 1`` (odd, at most 25) adaptive
    Gauss-Hermite quadrature, for a single scalar random effect as in lme4; ``nAGQ=0``
    lme4's fast fit (binomial and poisson: the fixed effects estimated inside PIRLS, only
    theta optimised; ``laplace_engine.fit_nagq0``). A grouping
    factor may have a level per row (an observation-level random effect for
    overdispersion): lme4's rule against it holds for linear models only. ``family``
    gaussian with the identity link is a linear model: an error pointing to ``lmer``.

    Parameters
    ----------
    formula
        lme4 syntax; a binomial response is 0/1, TRUE/FALSE or ``cbind(k, n - k)``.
    data
        The observations (trials, or counts of successes), one per row.
    family
        R's family name or a ``families.Family``.
    nAGQ
        1 (Laplace), an odd number of quadrature points up to 25, or 0 (lme4's fast fit).
    link
        The link, by R's name (None: the family's canonical link).
    weights
        Prior weights (a column name or one positive value per row): the binomial trials of
        a proportion, or multiples of each row's log-likelihood.
    offset
        A known term of the linear predictor (e.g. log exposure), added to the formula's
        ``offset(...)`` terms.
    contrasts
        A coding per factor, as in [lmer][acceptability.stats.mixed.lmm.lmer.lmer].

    Returns
    -------
    GlmerResult

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import glmer
    >>> df = pd.DataFrame({"k": [2, 5, 3, 8, 1, 6, 4, 9], "n": [10] * 8,
    ...                    "x": [0, 1, 0, 1, 0, 1, 0, 1], "g": list("aabbccdd")})
    >>> m = glmer("cbind(k, n - k) ~ x + (1 | g)", df)
    >>> list(m.coefficients.columns)
    ['Estimate', 'Std. Error', 'z value', 'Pr(>|z|)']
    """
    fam = families.family(family, link)
    if fam.name == "gaussian" and fam.canonical:
        raise ValueError("glmer: family='gaussian' with the identity link is a linear mixed model: "
                         "fit it with stats.lmer (lme4 deprecates glmer's shortcut to lmer)")
    nAGQ = check_whole("nAGQ", nAGQ, 0, 25, "nAGQ is 0 (lme4's fast fit), 1 (Laplace) or an odd "
                       "number of quadrature points up to 25", "use nAGQ=1 (lme4's default)")
    if nAGQ > 0 and nAGQ % 2 == 0:
        raise ValueError(f"nAGQ={nAGQ!r}: use 0, 1 (Laplace) or an odd number of quadrature points up to 25")
    parsed = parse(formula)
    if nAGQ > 1 and (len(parsed.random) != 1 or len(parsed.random[0].names) != 1):
        raise ValueError(f"nAGQ={nAGQ} needs a single scalar random effect, as in lme4 "
                         f"(the model has {[str(t) for t in parsed.random]}); use nAGQ=1 (Laplace)")
    d = model_design(formula, data, fam, weights=weights, offset=offset, contrasts=contrasts)
    return make_result(d, fit(d, REML=False, nAGQ=nAGQ), nAGQ=nAGQ)


def glmer_nb(formula: str, data: pd.DataFrame, link: str = "log", nAGQ: int = 1,
             weights: object = None, offset: object = None,
             contrasts: dict[str, object] | None = None) -> GlmerResult:
    """Fit a negative binomial GLMM, its size (R's ``theta``) estimated with the other
    parameters (``lme4::glmer.nb``): ``Var(y | b) = mu + mu^2 / size``. The size is the
    result's ``dispersion``; ``npar`` counts it, as lme4 does.

    Parameters
    ----------
    formula, data, nAGQ, weights, offset, contrasts
        As in [glmer][acceptability.stats.mixed.lmm.lmer.glmer]; the response holds counts.
    link
        ``"log"`` (default), ``"sqrt"`` or ``"identity"``.

    Returns
    -------
    GlmerResult
        With ``family == "negative.binomial"`` and the size in ``dispersion``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import stats
    >>> counts = {"y": [0, 3, 1, 8, 2, 12, 0, 5, 1, 9, 4, 15], "x": [0, 1] * 6, "g": list("aabbccddeeff")}
    >>> m = stats.glmer_nb("y ~ x + (1 | g)", pd.DataFrame(counts))
    >>> m.family, m.npar, bool(m.dispersion > 0)
    ('negative.binomial', 4, True)
    """
    return glmer(formula, data, "negative.binomial", nAGQ, link, weights, offset, contrasts)


def make_result(design: MixedDesign, fitted: FittedParameters, REML: bool = True,
                nAGQ: int = 1, quiet: bool = False) -> LmerResult:
    """The fitted model from a design and an engine's record (lme4's ``mkMerMod``): an
    [LmerResult][acceptability.stats.mixed.lmm.lmer.LmerResult] for a linear model, a
    [GlmerResult][acceptability.stats.mixed.lmm.lmer.GlmerResult] otherwise. Warns of a
    singular or unconverged fit unless ``quiet``.

    Parameters
    ----------
    design
        From [model_design][acceptability.stats.mixed.stages.model_design].
    fitted
        From [fit][acceptability.stats.mixed.stages.fit] on that design.
    REML
        Whether ``fitted`` maximised the REML criterion (linear models).
    nAGQ
        The quadrature points of a GLMM's fit.
    quiet
        No warnings (refits).

    Returns
    -------
    LmerResult
        (a ``GlmerResult`` for a GLMM: any family but gaussian with the identity link).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import fit, make_result, model_design
    >>> df = pd.DataFrame({"y": [1.0, 2.4, 2.9, 4.6, 5.1, 6.5], "x": [1, 2, 3, 4, 5, 6],
    ...                    "g": list("aabbcc")})
    >>> d = model_design("y ~ x + (1 | g)", df)
    >>> m = make_result(d, fit(d, REML=False), REML=False, quiet=True)
    >>> type(m).__name__, m.nobs
    ('LmerResult', 6)
    """
    if design.family == "gaussian" and design.link is None:
        return LmerResult(design, fitted, quiet, REML=REML)
    return GlmerResult(design, fitted, quiet, REML=False, nagq=nAGQ)


@dataclass(repr=False)
class LmerResult(MixedResult):
    """A fitted mixed model with lme4's accessors (``fixef``, ``ranef``, ``VarCorr``,
    ``vcov``, ``logLik``, ``predict``, ``confint``) and lmerTest's tests (``coefficients``)."""

    REML: bool = True

    def __post_init__(self) -> None:
        self.notes = [*self.parameters.notes, *self.notes]
        if self.singular:
            self.notes.append("boundary (singular) fit: see help('isSingular') in lme4")
            if not self.quiet:
                warn(f"{self._kind}: boundary (singular) fit: a variance is ~0 or a correlation "
                     "~±1; simplify the random effects", SingularFitWarning)
        if not self.converged:
            self.notes.append("Model failed to converge")
            if not self.quiet:
                warn(f"{self._kind}: model failed to converge"
                     + "".join(f"; {n}" for n in self.parameters.notes), ConvergenceWarning)
        elif not self.quiet:  # a caveat of the likelihood's domain (laplace.DOMAIN_NOTE)
            for n in self.parameters.notes:
                if n.startswith(DOMAIN_NOTE):
                    warn(f"{self._kind}: {n}", ConvergenceWarning)

    _kind = "lmer"
    _has_sigma = True
    _confint_methods = ("profile", "Wald", "boot")  # the first is the default

    # --- data and structure -----------------------------------------------------------
    @property
    def ngrps(self) -> pd.Series:
        """Levels per grouping factor (lme4 ``ngrps``), in lme4's order."""
        out = {t.group: t.nlev for t in self.design.terms}
        return pd.Series(out, dtype=int)

    @property
    def theta(self) -> np.ndarray:
        """lme4's ``getME(m, "theta")``: the relative covariance factors, column-major."""
        return self.parameters.theta

    @property
    def state(self) -> pls.PlsFit | None:
        """The PLS solution at the optimum (linear models)."""
        return self.parameters.state if isinstance(self.parameters.state, pls.PlsFit) else None

    @property
    def sigma(self) -> float:
        """Residual standard deviation (lme4 ``sigma``; 1 for a GLMM)."""
        return self.parameters.sigma

    def _covariances(self) -> list[np.ndarray]:
        return self.design.covariances(self.theta, self.sigma)

    @property
    def VarCorr(self) -> pd.DataFrame:
        """Variances, SDs and correlations, like ``as.data.frame(VarCorr(m))`` in lme4; a
        factor in several terms (``(x || g)``) is labelled as lme4 labels it (``g``, ``g.1``:
        :func:`_varcorr_labels`)."""
        return self._varcorr(_varcorr_labels([t.group for t in self.design.terms]))

    def _varcorr(self, labels: list[str]) -> pd.DataFrame:
        """:attr:`VarCorr` with ``labels[k]`` as the ``grp`` of term ``k``."""
        rows = []
        terms = zip(self.design.terms, self._covariances(), labels, strict=True)
        for term, cov, grp in terms:
            names, sd = term.names, np.sqrt(np.clip(np.diag(cov), 0, None))
            rows += [(grp, n, None, cov[i, i], sd[i]) for i, n in enumerate(names)]
            for i in range(len(names)):
                for j in range(i + 1, len(names)):
                    cor = cov[i, j] / (sd[i] * sd[j]) if sd[i] * sd[j] > 0 else np.nan
                    rows.append((grp, names[i], names[j], cov[i, j], cor))
        if self._has_sigma:
            rows.append(("Residual", None, None, self.sigma**2, self.sigma))
        return pd.DataFrame(rows, columns=["grp", "var1", "var2", "vcov", "sdcor"])

    @property
    def singular(self) -> bool:
        """lme4 ``isSingular``: a diagonal element of a relative covariance factor below 1e-4."""
        return self.isSingular(_SINGULAR_TOL)

    def isSingular(self, tol: float = _SINGULAR_TOL) -> bool:
        """lme4's ``isSingular(m, tol)``: whether a diagonal element of a relative covariance
        factor (theta with lower bound 0) is below ``tol``."""
        if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not tol >= 0:
            raise ValueError(f"tol={tol!r}: use a non-negative number (lme4's default 1e-4)")
        lower = self.design.theta_lower()
        return bool(np.any(self.theta[lower == 0] < tol))

    def _b(self) -> np.ndarray:
        return self.parameters.b

    @property
    def ranef(self) -> dict[str, pd.DataFrame]:
        """Conditional modes of the random effects per grouping factor (lme4 ``ranef``);
        a factor in several terms (``(1 | g) + (0 + x | g)``) gets one frame with all its
        columns."""
        out: dict[str, pd.DataFrame] = {}
        for t, frame in zip(self.design.terms, reform.mode_tables(self.design.terms, self._b()), strict=True):
            out[t.group] = out[t.group].join(frame) if t.group in out else frame
        return out

    def ranef_frame(self) -> pd.DataFrame:
        """``as.data.frame(ranef(m, condVar=TRUE))``: one row per group level and term with
        the conditional mode ``condval`` and its conditional SD ``condsd``."""
        b, off, rows = self._b(), 0, []
        for t, var in zip(self.design.terms, self._condvar_blocks, strict=True):
            block = b[off:off + t.nlev * t.nc].reshape(t.nlev, t.nc)
            off += t.nlev * t.nc
            for j, name in enumerate(t.names):
                rows.append(pd.DataFrame({"grpvar": t.group, "term": name, "grp": t.levels,
                                          "condval": block[:, j], "condsd": np.sqrt(var[:, j, j])}))
        return pd.concat(rows, ignore_index=True)

    def condvar(self) -> dict[str, np.ndarray]:
        """Conditional covariance matrices of each level's random effects, per term (lme4's
        ``attr(ranef(m, condVar=TRUE)[[g]], "postVar")``, levels first)."""
        return {str(t.term): v for t, v in zip(self.design.terms, self._condvar_blocks, strict=True)}

    @cached_property
    def _condvar_blocks(self) -> list[np.ndarray]:
        return self._condvar()

    def _condvar(self) -> list[np.ndarray]:
        return pls.cond_var(self.design, self.theta, self.sigma, factor=self.state.factor)

    # --- likelihood -------------------------------------------------------------------
    @property
    def npar(self) -> int:
        """Fixed effects + covariance parameters (+ residual variance): lme4's ``df`` of logLik."""
        return int(self.design.p + self.design.ntheta + self._has_sigma)

    @property
    def logLik(self) -> float:
        """Log-likelihood; for a REML fit, minus half the REML criterion (lme4 ``logLik``)."""
        return self.parameters.loglik

    @property
    def deviance(self) -> float:
        """-2 logLik (for REML fits, the REML criterion: lme4's ``REMLcrit``)."""
        return -2 * self.logLik

    @property
    def AIC(self) -> float:
        return self.deviance + 2 * self.npar

    @property
    def BIC(self) -> float:
        return self.deviance + np.log(self.nobs) * self.npar

    def refit(self, newresp: np.ndarray, quiet: bool = True) -> LmerResult:
        """The same model fitted to another response (lme4 ``refit``), started at this
        fit's estimates."""
        d = self.design.with_response(newresp)
        start = {"theta": list(self.theta)}
        if self._kind == "glmer":
            start["beta"] = list(self.fixef)
            if d.glm_family.dispersion:
                start["dispersion"] = self.parameters.dispersion
        return make_result(d, fit(d, REML=self.REML, nAGQ=self._nagq, start=start),
                           REML=self.REML, nAGQ=self._nagq, quiet=quiet)

    _nagq = 1

    def refit_ml(self) -> LmerResult:
        """The same model fitted by maximum likelihood (lme4 ``refitML``)."""
        if not self.REML:
            return self
        d = self.design
        return make_result(d, fit(d, REML=False, start={"theta": list(self.theta)}),
                           REML=False, quiet=True)

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

    def ls_means(self, which: str | list[str] | None = None, pairwise: bool = False,
                 ddf: str = "Satterthwaite", level: float = 0.95) -> pd.DataFrame:
        """lmerTest's ``ls_means`` ([ls_means][acceptability.stats.mixed.fitted.lsmeans.ls_means])."""
        return lsmeans.ls_means(self, which, pairwise, ddf, level)

    def emmeans(self, specs: str | list[str], lmer_df: str = "kenward-roger", level: float = 0.95,
                pairwise: bool = False, adjust: str = "tukey", *, by: str | list[str] | None = None,
                type: str = "link") -> pd.DataFrame:
        """emmeans' ``emmeans`` and ``pairs`` ([emmeans][acceptability.stats.mixed.fitted.lsmeans.emmeans])."""
        return lsmeans.emmeans(self, specs, lmer_df, level, pairwise, adjust, by=by, type=type)

    @property
    def coefficients(self) -> pd.DataFrame:
        """lmerTest's coefficient table: Estimate, Std. Error, df, t value, Pr(>|t|)."""
        est, se, df = self.fixef, self.se, self.df
        t = est / se
        return pd.DataFrame({"Estimate": est, "Std. Error": se, "df": df, "t value": t,
                             "Pr(>|t|)": 2 * sps.t.sf(np.abs(t), df)})

    def confint(self, level: float = 0.95, method: str | None = None, nsim: int = 500,
                seed: int = 0, n_jobs: int | None = None) -> pd.DataFrame:
        """Confidence intervals (lme4 ``confint.merMod``), rows as :meth:`params`.

        ``"profile"`` (lme4's default): likelihood-profile intervals for every parameter
        (`profile_confint`; a glmer fit's on lme4's Laplace / nAGQ deviance);
        ``"Wald"`` (the default of a glmer fit): fixed effects only, variance rows NaN as
        in lme4; ``"boot"``: parametric-bootstrap percentile intervals (lme4 ``bootMer``),
        ``nsim`` refits in ``n_jobs`` processes (default: one per core).
        """
        check_ci(level, "level")
        method = self._confint_methods[0] if method is None else method
        lo, hi = (1 - level) / 2, (1 + level) / 2
        cols = [f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"]
        if method == "Wald":
            out = pd.DataFrame(np.nan, index=self._varpars().index, columns=cols)
            return pd.concat([out, self._wald(level)])
        if method == "boot":
            return parametric_confint(self, level, nsim, seed, n_jobs)
        if method == "profile":
            return profile_confint(self, level).set_axis(cols, axis=1)
        raise ValueError(f"confint method {method!r}: use 'profile', 'Wald' or 'boot'")

    def _varpars(self) -> pd.Series:
        """SDs, correlations (and sigma) with lme4's names (``sd_(Intercept)|g`` ...): its
        ``tnames``, which keep the factor's own name where VarCorr says ``g.1``."""
        vc = self._varcorr([t.group for t in self.design.terms])
        body = vc.iloc[:-1] if self._has_sigma else vc
        names = [
            f"sd_{r.var1}|{r.grp}" if pd.isna(r.var2) else f"cor_{r.var2}.{r.var1}|{r.grp}"
            for r in body.itertuples()
        ]
        extra = [self.sigma] if self._has_sigma else []
        return pd.Series([*body.sdcor, *extra], index=[*names, *(["sigma"] if extra else [])])

    def params(self) -> pd.Series:
        """Variance parameters then fixed effects: the rows of ``confint``."""
        return pd.concat([self._varpars(), self.fixef])

    # --- prediction -------------------------------------------------------------------
    def predict(self, newdata: pd.DataFrame | None = None, re_form: str | None = None,
                allow_new_levels: bool = False, type: str = "link") -> pd.Series:
        """Predictions (lme4 ``predict.merMod``): ``re_form=None`` includes every random
        effect, ``re_form="~0"`` (or ``"NA"``) the fixed effects only, a formula such as
        ``"~(1 | g)"`` the random terms it names (lme4's ``re.form``:
        ``reform.select_terms``). Levels unseen in the
        fit raise unless ``allow_new_levels=True``, which gives them random effect 0, as in
        lme4. A random-slope factor of new rows is coded with the fit's levels; a level the
        fit did not have is an error. ``type="response"`` applies a GLMM's inverse link.
        The fitted rows' predictions include the offset; new rows' only the formula's
        ``offset(...)`` terms (lme4: the ``offset=`` argument is not evaluated in newdata)."""
        selection = reform.select_terms(self.design.terms, re_form)
        if type not in ("link", "response"):
            raise ValueError(f"type={type!r}: use 'link' or 'response'")
        data = self.frame if newdata is None else newdata
        x = self.design.X if newdata is None else self._new_x(newdata)
        eta = x @ self.fixef.to_numpy()
        offset = self.design.offset if newdata is None else total_offset(self.formula, newdata, None)
        if offset is not None:
            eta = eta + offset
        tables = reform.mode_tables(self.design.terms, self._b())
        eta = eta + reform.random_part(self.design.terms, data, newdata is None, tables, selection,
                                       allow_new_levels)
        out = self._inverse_link(eta) if type == "response" else eta
        return pd.Series(out, index=data.index)

    def simulate(self, nsim: int = 1, seed: int | None = None, re_form: object = "NA",
                 newdata: pd.DataFrame | None = None, allow_new_levels: bool = False) -> pd.DataFrame:
        """New responses from the fit, columns sim_1..sim_nsim (lme4's ``simulate``:
        [simulate][acceptability.stats.mixed.fitted.simulation.simulate])."""
        return simulate(self, nsim, seed, re_form, newdata, allow_new_levels)

    def bootMer(self, fun: Callable[[LmerResult], object] | None = None, nsim: int = 100, seed: int | None = 0,
                use_u: bool = False, n_jobs: int | None = None) -> BootMer:
        """lme4's ``bootMer`` ([bootMer][acceptability.stats.mixed.fitted.bootmer.bootMer])."""
        return bootMer(self, fun, nsim, seed, use_u=use_u, n_jobs=n_jobs)

    def profile(self) -> MixedProfile:
        """The likelihood profile (lme4's ``profile``:
        [MixedProfile][acceptability.stats.mixed.fitted.profile.MixedProfile])."""
        return MixedProfile(self)

    def _inverse_link(self, eta: np.ndarray) -> np.ndarray:
        return eta

    def _new_x(self, newdata: pd.DataFrame) -> np.ndarray:
        """The fixed-effects matrix of new rows, with the fit's factor levels, contrasts and
        transformations (``scale()``'s centre and scale, ``poly()``'s coefficients: R's
        ``makepredictcall``), from the design's
        [FixedPart][acceptability.stats.mixed.transforms.FixedPart]."""
        part = getattr(self.design, "fixed_part", None) or fixed_part(self.formula, self.frame)
        try:
            x, names = part.matrix(newdata)
        except (KeyError, ValueError) as err:
            raise type(err)(f"newdata: {err.args[0]}") from None
        if names != self.design.xnames:
            raise ValueError(f"newdata gives fixed-effect columns {names}, the fit has {self.design.xnames}")
        return x

    @property
    def fitted(self) -> pd.Series:
        return self.predict(type="response")

    @property
    def residuals(self) -> pd.Series:
        """Response minus fitted values (lme4 ``residuals``, type 'response')."""
        return pd.Series(self.design.y, index=self.frame.index) - self.fitted

    @property
    def scaled_residuals(self) -> np.ndarray:
        """Residuals x sqrt(prior weight) / sigma (lme4's summary: ``residuals(m, "pearson",
        scaled = TRUE)``); Pearson residuals for a GLMM."""
        w = 1.0 if self.design.weights is None else np.sqrt(self.design.weights)
        return self.residuals.to_numpy() * w / self.sigma

    # --- output -----------------------------------------------------------------------
    @property
    def provenance(self) -> dict[str, object]:
        """What produced this fit: engine and versions, formula, data size, settings."""
        from acceptability import __version__

        return {"engine": self.engine, "acceptability": __version__, "formula": self.formula.text,
                "nobs": self.nobs, "n_dropped": self.n_dropped, "REML": self.REML,
                "converged": self.converged, "singular": self.singular}

    def summary(self) -> Summary:
        """The fit printed like lme4's ``summary.merMod`` with lmerTest's t tests (a glmer
        fit: lme4's z tests); its tables: ``coefficients``, ``random`` (``VarCorr``),
        ``residuals`` and ``criteria``."""
        return lme4_summary(self)

    def anova(self, *others: LmerResult, refit: bool = True, type: int | str = 3,
              ddf: str = "Satterthwaite") -> pd.DataFrame:
        """Likelihood-ratio tests of this fit against ``others``; alone, lmerTest's F test of
        each fixed term ([anova][acceptability.stats.mixed.lmm.lmer.anova])."""
        return anova(self, *others, refit=refit, type=type, ddf=ddf)

    def ranova(self, reduce_terms: bool = True) -> pd.DataFrame:
        """lmerTest's ``ranova`` ([ranova][acceptability.stats.mixed.fitted.selection.ranova])."""
        from acceptability.stats.mixed.fitted import selection

        return selection.ranova(self, reduce_terms)

    def drop1(self, ddf: str = "Satterthwaite") -> pd.DataFrame:
        """lmerTest's ``drop1`` ([drop1][acceptability.stats.mixed.fitted.selection.drop1])."""
        from acceptability.stats.mixed.fitted import selection

        return selection.drop1(self, ddf)

    def step(self, ddf: str = "Satterthwaite", alpha_random: float = 0.1, alpha_fixed: float = 0.05,
             reduce_fixed: bool = True, reduce_random: bool = True,
             keep: tuple[str, ...] | list[str] = ()) -> StepResult:
        """lmerTest's ``step`` ([step][acceptability.stats.mixed.fitted.selection.step])."""
        from acceptability.stats.mixed.fitted import selection

        return selection.step(self, ddf, alpha_random, alpha_fixed, reduce_fixed, reduce_random, keep)

    def Anova(self, type: int | str = 2) -> pd.DataFrame:
        """car's ``Anova``: Wald chi-square tests ([wald_anova][acceptability.stats.mixed.fitted.wald.wald_anova])."""
        from acceptability.stats.mixed.fitted import wald

        return wald.wald_anova(self, type)

    def allFit(self, optimizers: list[str] | None = None) -> AllFit:
        """lme4's ``allFit`` ([all_fit][acceptability.stats.mixed.fitted.allfit.all_fit])."""
        from acceptability.stats.mixed.fitted import allfit

        return allfit.all_fit(self, optimizers)

    def __repr__(self) -> str:
        how = "REML" if self.REML else "ML"
        return f"<{type(self).__name__} {self.formula.text!r}: n={self.nobs}, {how} logLik={self.logLik:.3f}>"


@dataclass(repr=False)
class GlmerResult(LmerResult):
    """A fitted [glmer][acceptability.stats.mixed.lmm.lmer.glmer] model: the accessors of
    [LmerResult][acceptability.stats.mixed.lmm.lmer.LmerResult], z tests; ``sigma`` is
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
        return self.family in ("gaussian", "Gamma", "inverse.gaussian")

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


def anova(*models: LmerResult, refit: bool = True, type: int | str = 3,
          ddf: str = "Satterthwaite") -> pd.DataFrame:
    """Likelihood-ratio tests between nested models (lme4 ``anova.merMod``); with one linear
    model, lmerTest's ``anova(m, type, ddf)``: the F test of each fixed term, type III
    (default), II or I, with ``ddf="Satterthwaite"`` (default) or ``"Kenward-Roger"``
    (``ftests.anova_table``).

    As lme4 (>= 1.0) does with ``refit=TRUE``, every REML fit is refitted by ML first:
    REML likelihoods of models with different fixed effects are not comparable.
    ``refit=False`` compares the REML fits as they are (valid only when the fixed
    effects are the same). Rows are ordered by number of parameters.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from acceptability.stats.mixed import anova, lmer
    >>> df = pd.DataFrame({"y": [3.1, 4.0, 5.2, 5.9, 7.1, 8.2, 8.8, 10.1],
    ...                    "x": [1, 2, 3, 4, 5, 6, 7, 8], "g": list("aabbccdd")})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     table = anova(lmer("y ~ 1 + (1 | g)", df), lmer("y ~ x + (1 | g)", df))
    >>> list(table["npar"]), bool(table.attrs["refitted_ml"])
    ([3, 4], True)
    """
    if len(models) == 1:
        return ftests.anova_table(models[0], type, ddf)
    if not models:
        raise ValueError("anova needs a fitted model (F tests of its terms) or several (likelihood-ratio tests)")
    if len({m.nobs for m in models}) > 1:
        raise ValueError(
            "models were not all fitted to the same number of observations "
            f"({[m.nobs for m in models]}); fit them to the same rows"
        )
    refitted = refit and any(m.REML for m in models)
    if refitted:
        models = tuple(m.refit_ml() for m in models)
    order = sorted(range(len(models)), key=lambda i: models[i].npar)
    rows = []
    for pos, i in enumerate(order):
        m = models[i]
        row = {"npar": m.npar, "AIC": m.AIC, "BIC": m.BIC, "logLik": m.logLik, "deviance": m.deviance}
        if pos:
            prev = models[order[pos - 1]]
            df = m.npar - prev.npar
            chisq = max(prev.deviance - m.deviance, 0.0)
            row |= {"Chisq": chisq, "Df": df, "Pr(>Chisq)": sps.chi2.sf(chisq, df) if df else np.nan}
        rows.append(row)
    out = pd.DataFrame(rows, index=[f"m{i}" for i in order])
    out.attrs["refitted_ml"] = refitted
    out.attrs["formulas"] = {f"m{i}": models[i].formula.text for i in order}
    return out
