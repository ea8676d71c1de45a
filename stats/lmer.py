"""Linear mixed models with lme4 syntax, fitted by statsmodels ``MixedLM``.

``lmer(formula, data, REML=True)`` mirrors ``lme4::lmer`` (Bates, Mächler, Bolker &
Walker 2015, "Fitting linear mixed-effects models using lme4", J. Stat. Softw. 67(1)).
Random terms nested in one grouping factor map to statsmodels' ``groups`` (the outermost
factor), ``re_formula`` (its correlated term) and ``vc_formula`` (one variance component
per further term). Crossed designs are refused with a pointer to :func:`stats.brm`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats as sps
from statsmodels.regression.mixed_linear_model import MixedLM, MixedLMResults
from statsmodels.tools.sm_exceptions import ConvergenceWarning

from acceptability._warnings import warn

from .formula import Formula, RandomTerm, parse_formula

__all__ = ["LmerResult", "SingularFitWarning", "lmer", "prepare_frame"]

_SINGULAR_TOL = 1e-4  # lme4::isSingular default tolerance on the relative covariance factor


class SingularFitWarning(UserWarning):
    """A variance is ~0 or a correlation ~±1 (lme4: 'boundary (singular) fit')."""


@dataclass(frozen=True)
class _Spec:
    """How the lme4 terms map onto one statsmodels MixedLM."""

    formula: Formula
    outer: tuple[str, ...]  # the grouping factor statsmodels calls ``groups``
    re_term: RandomTerm | None  # the correlated term on ``outer`` (re_formula)
    vc_terms: tuple[RandomTerm, ...]  # one variance component each (vc_formula)

    def vc_formula(self) -> dict[str, str]:
        out = {}
        for i, term in enumerate(self.vc_terms):
            key = f"_re{i}"
            out[str(term)] = f"0 + C({key})" + (f":{term.slopes[0]}" if term.slopes else "")
        return out


def _key(data: pd.DataFrame, factors: tuple[str, ...]) -> pd.Series:
    """Level labels of an interaction ``g:h`` as strings ``'a:b'``."""
    out = data[factors[0]].astype(str)
    for f in factors[1:]:
        out = out + ":" + data[f].astype(str)
    return out


def _nested(inner: pd.Series, outer: pd.Series) -> bool:
    return bool(outer.groupby(inner, sort=False).nunique().max() == 1)


def prepare_frame(formula: Formula, data: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """Check columns, drop rows with missing values in used columns; return (frame, n_dropped)."""
    formula.check_columns(data)
    cols = formula.columns()
    frame = data.loc[data[cols].notna().all(axis=1), cols].reset_index(drop=True)
    if frame.empty:
        raise ValueError(f"no complete rows for formula {formula.text!r}: check columns {cols}")
    for term in formula.random:
        n = _key(frame, term.factors).nunique()
        if n < 2:
            raise ValueError(
                f"grouping factor {term.group!r} in {term} has {n} level(s); a random effect "
                "needs at least 2 (lme4: 'grouping factors must have > 1 sampled level'); "
                "drop the term or fit a fixed effect"
            )
    return frame, len(data) - len(frame)


def _spec(formula: Formula, frame: pd.DataFrame) -> _Spec:
    """Map lme4 terms to groups / re_formula / vc_formula, or explain why not."""
    terms = formula.random
    if not terms:
        raise ValueError(
            f"formula {formula.text!r} has no random-effects term (1 | group); "
            "use statsmodels OLS for a fixed-effects model"
        )
    keys = {t.factors: _key(frame, t.factors) for t in terms}
    candidates = list(keys) + [(f,) for t in terms for f in t.factors if (f,) not in keys]
    outer = next(
        (c for c in candidates if all(_nested(k, _key(frame, c)) for k in keys.values())), None
    )
    if outer is None:
        crossed = ", ".join(sorted({t.group for t in terms}))
        raise ValueError(
            f"random effects of {crossed} are crossed, not nested in one grouping factor: "
            "statsmodels MixedLM fits only effects nested in one grouping factor; use "
            f"stats.brm({formula.canonical()!r}, data) for crossed effects"
        )
    on_outer = [t for t in terms if _nested(_key(frame, outer), keys[t.factors])]
    re_term = on_outer[0] if on_outer else None
    vc_terms = tuple(t for t in terms if t is not re_term)
    for t in vc_terms:
        if len(t.names) > 1:
            raise ValueError(
                f"random-effects term {t}: statsmodels MixedLM fits correlated effects only "
                f"for the outermost grouping factor {':'.join(outer)!r}; split it into "
                f"uncorrelated terms ({t.expr} || {t.group}) "
                "or use stats.brm(...)"
            )
    return _Spec(formula, outer, re_term, vc_terms)


def _build(spec: _Spec, frame: pd.DataFrame, response: str | None = None) -> MixedLM:
    work = frame.copy()
    work["_G"] = _key(frame, spec.outer)
    for i, term in enumerate(spec.vc_terms):
        work[f"_re{i}"] = _key(frame, term.factors)
    fixed = spec.formula.fixed_formula
    if response is not None:
        fixed = f"{response} ~ {spec.formula.fixed}"
    return MixedLM.from_formula(
        fixed,
        work,
        groups="_G",
        re_formula=spec.re_term.expr if spec.re_term else "0",
        vc_formula=spec.vc_formula() or None,
    )


def _fit(model: MixedLM, reml: bool, start=None) -> tuple[MixedLMResults, list[str]]:
    """Fit; statsmodels' convergence warnings become notes (summary, ``notes``)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = model.fit(reml=reml, start_params=start)
    for w in caught:
        if not issubclass(w.category, ConvergenceWarning):
            warn(w.message, w.category)  # at the user's line
    notes = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    return res, list(dict.fromkeys(notes))


def lmer(formula: str, data: pd.DataFrame, REML: bool = True) -> LmerResult:
    """Fit a linear mixed model written in lme4 syntax (lme4::lmer).

    ``y ~ x + (1 + x | g) + (1 | g:h)``; ``(1 | g/h)`` means ``(1 | g) + (1 | g:h)``;
    ``(0 + x | g)`` drops the intercept; ``(1 + x || g)`` is uncorrelated. All random
    terms must be nested in one grouping factor (statsmodels MixedLM); rows with missing
    values in used columns are dropped and counted in ``n_dropped``.
    """
    parsed = parse_formula(formula)
    frame, n_dropped = prepare_frame(parsed, data)
    spec = _spec(parsed, frame)
    res, notes = _fit(_build(spec, frame), REML)
    return LmerResult(spec, frame, REML, n_dropped, res, notes)


@dataclass
class LmerResult:
    """A fitted :func:`lmer` model with lme4's accessors (``fixef``, ``ranef``, ``VarCorr``...)."""

    spec: _Spec
    frame: pd.DataFrame
    REML: bool
    n_dropped: int
    result: MixedLMResults
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.singular:
            self.notes.append("boundary (singular) fit: see help('isSingular') in lme4")
            warn(f"lmer: {self.notes[-1]}", SingularFitWarning)
        if not self.result.converged:
            self.notes.append("model failed to converge")
            warn("lmer: model failed to converge", ConvergenceWarning)

    # --- parameters -------------------------------------------------------------------
    @property
    def formula(self) -> Formula:
        return self.spec.formula

    @property
    def nobs(self) -> int:
        return int(self.result.nobs)

    @property
    def fixef(self) -> pd.Series:
        """Fixed-effect estimates (lme4 ``fixef``)."""
        return _lme4_names(self.result.fe_params)

    @property
    def se(self) -> pd.Series:
        return pd.Series(np.sqrt(np.diag(self.vcov)), index=self.fixef.index)

    @property
    def sigma(self) -> float:
        """Residual standard deviation."""
        return float(np.sqrt(self.result.scale))

    def _blocks(self) -> list[tuple[RandomTerm, np.ndarray]]:
        """Each random term with its covariance matrix (original scale)."""
        out = []
        if self.spec.re_term is not None:
            out.append((self.spec.re_term, np.asarray(self.result.cov_re)))
        vc_names = list(self.result.model.exog_vc.names)
        for term in self.spec.vc_terms:
            out.append((term, np.array([[self.result.vcomp[vc_names.index(str(term))]]])))
        return out

    @property
    def VarCorr(self) -> pd.DataFrame:
        """Variances, SDs and correlations, like ``as.data.frame(VarCorr(m))`` in lme4."""
        rows = []
        for term, cov in self._order(self._blocks()):
            names, sd = term.names, np.sqrt(np.clip(np.diag(cov), 0, None))
            rows += [(term.group, n, None, cov[i, i], sd[i]) for i, n in enumerate(names)]
            for i in range(len(names)):
                for j in range(i + 1, len(names)):
                    cor = cov[i, j] / (sd[i] * sd[j]) if sd[i] * sd[j] > 0 else np.nan
                    rows.append((term.group, names[i], names[j], cov[i, j], cor))
        rows.append(("Residual", None, None, self.result.scale, self.sigma))
        return pd.DataFrame(rows, columns=["grp", "var1", "var2", "vcov", "sdcor"])

    def _order(self, blocks):
        """lme4 lists terms by decreasing number of grouping levels."""
        levels = {t.group: _key(self.frame, t.factors).nunique() for t, _ in blocks}
        return sorted(blocks, key=lambda b: -levels[b[0].group])

    @property
    def singular(self) -> bool:
        """lme4 ``isSingular`` (a diagonal of the relative Cholesky factor below 1e-4), or
        statsmodels' warning that the estimate lies on the boundary of the parameter space."""
        if any("boundary of the parameter space" in n for n in self.notes):
            return True
        for _, cov in self._blocks():
            rel = cov / self.result.scale
            try:
                diag = np.diag(np.linalg.cholesky(rel))
            except np.linalg.LinAlgError:
                return True
            if np.any(diag < _SINGULAR_TOL):
                return True
        return False

    def _groups(self):
        """Per group: index, label, X, Z (re then vc columns), D = Cov(b), y - X beta."""
        res, model = self.result, self.result.model
        vc_names = list(model.exog_vc.names)
        vc_pos = [vc_names.index(str(t)) for t in self.spec.vc_terms]
        k_re = model.k_re
        beta = res.fe_params.to_numpy()
        for gi, g in enumerate(model.group_labels):
            mats = [model.exog_vc.mats[k][gi] for k in vc_pos]
            z = np.hstack([np.asarray(model.exog_re_li[gi]).reshape(len(model.endog_li[gi]), k_re), *mats])
            dvec = [res.vcomp[k] for k, m in zip(vc_pos, mats, strict=True) for _ in range(m.shape[1])]
            d = np.zeros((z.shape[1],) * 2)
            d[:k_re, :k_re] = np.asarray(res.cov_re)
            d[k_re:, k_re:] = np.diag(dvec)
            x = model.exog_li[gi]
            yield gi, g, x, z, d, model.endog_li[gi] - x @ beta, mats

    @property
    def vcov(self) -> pd.DataFrame:
        """Covariance of the fixed effects, (X' V^-1 X)^-1 as lme4 ``vcov`` gives it.

        By hand: statsmodels' ``cov_params`` inverts the Hessian of all parameters, which
        is not positive definite at boundary (singular) fits.
        """
        k = self.result.k_fe
        info = np.zeros((k, k))
        for _, _, x, z, d, r, _ in self._groups():
            v = self.result.scale * np.eye(len(r)) + z @ d @ z.T
            info += x.T @ np.linalg.solve(v, x)
        names = self.fixef.index
        return pd.DataFrame(np.linalg.inv(info), index=names, columns=names)

    @property
    def ranef(self) -> dict[str, pd.DataFrame]:
        """Conditional modes of the random effects per grouping factor (lme4 ``ranef``).

        Computed as D Z' V^-1 (y - X b) per group by hand: statsmodels' ``random_effects``
        inverts the covariance matrix and fails on singular fits.
        """
        k_re = self.result.model.k_re
        tables: dict[str, dict[str, dict[str, float]]] = {}
        for _, g, _, z, d, r, mats in self._groups():
            v = self.result.scale * np.eye(len(r)) + z @ d @ z.T
            b = d @ z.T @ np.linalg.solve(v, r)
            if self.spec.re_term is not None:
                row = tables.setdefault(self.spec.re_term.group, {}).setdefault(str(g), {})
                row.update(zip(self.spec.re_term.names, b[:k_re], strict=True))
            rows = self.frame.index[self.result.model.row_indices[g]]
            start = k_re
            for term, m in zip(self.spec.vc_terms, mats, strict=True):
                keys = _key(self.frame.loc[rows], term.factors).to_numpy()
                for j in range(m.shape[1]):
                    hit = np.flatnonzero(m[:, j])
                    if hit.size:
                        tab = tables.setdefault(term.group, {}).setdefault(keys[hit[0]], {})
                        tab[term.names[0]] = b[start + j]
                start += m.shape[1]
        return {g: pd.DataFrame.from_dict(t, orient="index").sort_index() for g, t in tables.items()}

    # --- likelihood -------------------------------------------------------------------
    @property
    def npar(self) -> int:
        """Fixed effects + covariance parameters + residual variance (lme4 ``df`` of logLik)."""
        n_cov = sum(len(t.names) * (len(t.names) + 1) // 2 for t, _ in self._blocks())
        return int(self.result.k_fe + n_cov + 1)

    @property
    def logLik(self) -> float:
        """Log-likelihood, REML criterion / -2 for REML fits (lme4 ``logLik``)."""
        return float(self.result.llf)

    @property
    def deviance(self) -> float:
        return -2 * self.logLik

    @property
    def AIC(self) -> float:
        return self.deviance + 2 * self.npar

    @property
    def BIC(self) -> float:
        return self.deviance + np.log(self.nobs) * self.npar

    def refit_ml(self) -> LmerResult:
        """The same model fitted by maximum likelihood (lme4 ``refitML``)."""
        if not self.REML:
            return self
        res, notes = _fit(_build(self.spec, self.frame), False, start=self.result.params_object)
        return LmerResult(self.spec, self.frame, False, self.n_dropped, res, notes)

    # --- inference and prediction -----------------------------------------------------
    def confint(
        self, level: float = 0.95, method: str = "Wald", nsim: int = 500, seed: int = 0
    ) -> pd.DataFrame:
        """Confidence intervals (lme4 ``confint.merMod``).

        ``method="Wald"``: fixed effects only (variance parameters NaN, as in lme4).
        ``method="boot"``: parametric bootstrap percentile intervals for all parameters
        (lme4 ``bootMer``), ``nsim`` refits.
        """
        lo, hi = (1 - level) / 2, (1 + level) / 2
        cols = [f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"]
        theta = self._theta()
        if method == "Wald":
            z = sps.norm.ppf(hi)
            fe = np.column_stack([self.fixef - z * self.se, self.fixef + z * self.se])
            out = pd.DataFrame(np.nan, index=theta.index, columns=cols)
            return pd.concat([out, pd.DataFrame(fe, index=self.fixef.index, columns=cols)])
        if method == "boot":
            from .lmer_boot import parametric_bootstrap

            draws = parametric_bootstrap(self, nsim, seed)
            return draws.quantile([lo, hi]).T.set_axis(cols, axis=1)
        raise ValueError(f"confint method {method!r}: use 'Wald' or 'boot'")

    def _theta(self) -> pd.Series:
        """SDs, correlations and sigma with lme4's names (``sd_(Intercept)|g`` ...)."""
        vc = self.VarCorr
        names = [
            f"sd_{r.var1}|{r.grp}" if pd.isna(r.var2) else f"cor_{r.var2}.{r.var1}|{r.grp}"
            for r in vc.iloc[:-1].itertuples()
        ]
        return pd.Series([*vc.sdcor.iloc[:-1], self.sigma], index=[*names, "sigma"])

    def params(self) -> pd.Series:
        """Variance parameters then fixed effects, the rows of ``confint``."""
        return pd.concat([self._theta(), self.fixef])

    def predict(self, newdata: pd.DataFrame | None = None, re_form: str | None = None) -> pd.Series:
        """Predictions (lme4 ``predict.merMod``): ``re_form=None`` includes all random
        effects, ``re_form="~0"`` gives population-level predictions. Unseen levels
        contribute 0 (lme4's ``allow.new.levels=TRUE``)."""
        if re_form not in (None, "~0", "NA"):
            raise ValueError(f"re_form={re_form!r}: use None (all random effects) or '~0'")
        data = self.frame if newdata is None else newdata
        fixed = np.asarray(self.result.predict(exog=data))
        pred = pd.Series(fixed, index=data.index)
        if re_form is not None:
            return pred
        ranef = self.ranef
        for term in self.formula.random:
            keys = _key(data, term.factors)
            for name in term.names:
                coef = keys.map(ranef[term.group][name]).fillna(0.0).to_numpy()
                x = 1.0 if name == "(Intercept)" else data[name].to_numpy(dtype=float)
                pred += coef * x
        return pred

    @property
    def residuals(self) -> pd.Series:
        return pd.Series(np.asarray(self.result.resid), index=self.frame.index)

    def summary(self) -> str:
        """The fit printed like lme4's ``summary.merMod``."""
        from .lmer_summary import format_summary

        return format_summary(self)

    def __repr__(self) -> str:
        return (
            f"<LmerResult {self.formula.text!r}: n={self.nobs}, "
            f"{'REML' if self.REML else 'ML'} logLik={self.logLik:.3f}>"
        )


def _lme4_names(s: pd.Series) -> pd.Series:
    return s.rename(index=lambda n: "(Intercept)" if n == "Intercept" else n)


def anova(*models: LmerResult, refit: bool = True) -> pd.DataFrame:
    """Likelihood-ratio tests between nested models (lme4 ``anova.merMod``).

    As lme4 (>= 1.0) does with ``refit=TRUE``, every REML fit is refitted by ML first:
    REML likelihoods of models with different fixed effects are not comparable.
    ``refit=False`` compares the REML fits as they are (valid only when the fixed
    effects are the same). Rows are ordered by number of parameters.
    """
    if len(models) < 2:
        raise ValueError("anova needs at least two fitted models")
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
