"""What lmer and glmer fits share (lme4's ``merMod``, the class that ``lmerMod`` and
``glmerMod`` extend; Bates et al. 2015, JSS 67(1)): the random effects' structure and modes
(``theta``, ``VarCorr``, ``ranef``), the likelihood's criteria, predictions, simulation,
bootstrap, profiles, confidence intervals and the tests of a fit. Its two kinds are siblings:
[LmerResult][acceptability.stats.mixed.lmm.result.LmerResult] (a linear model: PLS, REML,
lmerTest's t and F tests) and [GlmerResult][acceptability.stats.mixed.glmm.result.GlmerResult]
(a GLMM: family, link, dispersion, z tests). Each supplies ``_kind``, ``_has_sigma``,
``_nagq``, ``_confint_methods``, ``npar``, ``df``, ``coefficients``, ``scaled_residuals``,
``_condvar``, ``_inverse_link`` and ``refit_ml``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability._warnings import warn
from acceptability.stats.arguments import check_ci
from acceptability.stats.mixed.fitted import ftests, lsmeans, reform
from acceptability.stats.mixed.fitted.bootmer import BootMer, bootMer
from acceptability.stats.mixed.fitted.parametric import parametric_confint
from acceptability.stats.mixed.fitted.profile import MixedProfile, profile_confint
from acceptability.stats.mixed.fitted.simulation import simulate
from acceptability.stats.mixed.glmm.laplace import DOMAIN_NOTE
from acceptability.stats.mixed.lmm import pls
from acceptability.stats.mixed.results import MixedResult, Summary
from acceptability.stats.mixed.stages import fit
from acceptability.stats.mixed.summary import lme4_summary
from acceptability.stats.mixed.transforms import fixed_part
from acceptability.stats.mixed.weights import total_offset

__all__ = ["ConvergenceWarning", "MerResult", "SingularFitWarning", "anova"]

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




@dataclass(repr=False)
class MerResult(MixedResult):
    """A fitted lmer or glmer model with lme4's accessors (``fixef``, ``ranef``, ``VarCorr``,
    ``vcov``, ``logLik``, ``predict``, ``confint``): what the two kinds share."""

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

    # --- likelihood -------------------------------------------------------------------
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

    def refit(self, newresp: np.ndarray, quiet: bool = True) -> MerResult:
        """The same model fitted to another response (lme4 ``refit``), started at this
        fit's estimates."""
        d = self.design.with_response(newresp)
        fitted = fit(d, REML=self.REML, nAGQ=self._nagq, start=self._start())
        return replace(self, design=d, parameters=fitted, quiet=quiet, notes=[])

    def _start(self) -> dict[str, list[float]]:
        """Where a refit starts: this fit's covariance parameters (a GLMM's add its fixed
        effects and dispersion)."""
        return {"theta": list(self.theta)}

    # --- inference --------------------------------------------------------------------
    def ls_means(self, which: str | list[str] | None = None, pairwise: bool = False,
                 ddf: str = "Satterthwaite", level: float = 0.95) -> pd.DataFrame:
        """lmerTest's ``ls_means`` ([ls_means][acceptability.stats.mixed.fitted.lsmeans.ls_means])."""
        return lsmeans.ls_means(self, which, pairwise, ddf, level)

    def emmeans(self, specs: str | list[str], lmer_df: str = "kenward-roger", level: float = 0.95,
                pairwise: bool = False, adjust: str = "tukey", *, by: str | list[str] | None = None,
                type: str = "link") -> pd.DataFrame:
        """emmeans' ``emmeans`` and ``pairs`` ([emmeans][acceptability.stats.mixed.fitted.lsmeans.emmeans])."""
        return lsmeans.emmeans(self, specs, lmer_df, level, pairwise, adjust, by=by, type=type)

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

    def bootMer(self, fun: Callable[[MerResult], object] | None = None, nsim: int = 100, seed: int | None = 0,
                use_u: bool = False, n_jobs: int | None = None) -> BootMer:
        """lme4's ``bootMer`` ([bootMer][acceptability.stats.mixed.fitted.bootmer.bootMer])."""
        return bootMer(self, fun, nsim, seed, use_u=use_u, n_jobs=n_jobs)

    def profile(self) -> MixedProfile:
        """The likelihood profile (lme4's ``profile``:
        [MixedProfile][acceptability.stats.mixed.fitted.profile.MixedProfile])."""
        return MixedProfile(self)

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

    def anova(self, *others: MerResult, refit: bool = True, type: int | str = 3,
              ddf: str = "Satterthwaite") -> pd.DataFrame:
        """Likelihood-ratio tests of this fit against ``others``; alone, lmerTest's F test of
        each fixed term ([anova][acceptability.stats.mixed.mer.anova])."""
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


def anova(*models: MerResult, refit: bool = True, type: int | str = 3,
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
