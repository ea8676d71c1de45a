"""Mixed models in lme4 syntax: ``lmer`` (linear) and ``glmer`` (binomial, poisson).

``lmer(formula, data, REML=True)`` and ``glmer(formula, data, family, nAGQ=1)`` mirror
lme4 (Bates, Mächler, Bolker & Walker 2015, J. Stat. Softw. 67(1)). Every lme4
random-effects structure is accepted: crossed and nested factors, correlated slopes on any
factor, ``||``, ``(0 + x | g)``, ``g/h``, ``g:h``.

Engine, chosen by measurement (``benchmarks/bench_lmm_engines.py``): the covariance
parameters are optimised by glmm (PyPI, Rust kernel; its optima equal lme4's to 1e-4 at a
fraction of lme4's time); the structures glmm refuses (``||``, ``(0 + x | g)``, a factor
in several terms) are optimised here by lme4's penalised least squares (:mod:`.pls`).
For a linear model every reported quantity is then computed from lme4's formulas at that
optimum (:mod:`.pls`), whichever engine found it; a GLMM's estimates, standard errors
and Laplace / adaptive Gauss-Hermite likelihood are glmm's.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import cached_property
from importlib.metadata import version

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability._warnings import warn
from acceptability.stats.mixed import pls
from acceptability.stats.mixed.checks import (
    check_reml,
    glmer_response,
    lmer_response,
    parse,
    prepare_frame,
)
from acceptability.stats.mixed.design import MixedDesign, group_key, mixed_design
from acceptability.stats.mixed.formula import Formula

__all__ = ["ConvergenceWarning", "GlmerResult", "LmerResult", "SingularFitWarning", "anova",
           "glmer", "lmer", "prepare_frame"]

_SINGULAR_TOL = 1e-4  # lme4::isSingular: a diagonal of a relative covariance factor below this
FAMILIES = {"binomial": "logit", "poisson": "log"}


class SingularFitWarning(UserWarning):
    """A variance is ~0 or a correlation ~±1 (lme4: 'boundary (singular) fit')."""


class ConvergenceWarning(UserWarning):
    """The optimiser did not report convergence (lme4: 'Model failed to converge')."""


def engine_version() -> str:
    return f"glmm {version('glmm')}"


def _glmm_groups(formula: Formula) -> dict[str, str]:
    """glmm's name of each grouping factor: an interaction ``g:h`` becomes a column of its
    own (glmm accepts slopes only on a plain column)."""
    groups = dict.fromkeys(t.group for t in formula.random)
    return {g: (g if ":" not in g else f"_grp{i}_") for i, g in enumerate(groups)}


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


def _glmm_formula(formula: Formula, response: str) -> str | None:
    """The formula as glmm writes it, or None where glmm refuses the structure: a term
    without intercept, a grouping factor in more than one term, or a random slope that is
    not also a fixed-effect term."""
    groups = [t.group for t in formula.random]
    fixed_terms = {t.strip() for t in formula.fixed.split("+")}
    if len(set(groups)) < len(groups) or not all(t.intercept for t in formula.random) \
            or any(s not in fixed_terms for t in formula.random for s in t.slopes):
        return None
    names = _glmm_groups(formula)
    terms = [f"({t.expr} | {names[t.group]})" for t in formula.random]
    return " + ".join([f"{response} ~ {formula.fixed}", *terms])


def _glmm_data(frame: pd.DataFrame, formula: Formula, extra: dict[str, np.ndarray]) -> pd.DataFrame:
    """Columns as glmm reads them: grouping factors as strings (R's factor())."""
    out = frame.copy()
    for term in formula.random:
        for f in term.factors:
            if not isinstance(out[f].dtype, pd.CategoricalDtype):
                out[f] = out[f].astype(str)
    for group, name in _glmm_groups(formula).items():
        if name != group:
            out[name] = group_key(frame, tuple(group.split(":")))
    for k, v in extra.items():
        out[k] = v
    return out


def _fixed_matrix(formula: Formula, frame: pd.DataFrame, check_rank: bool = True) -> tuple[np.ndarray, list[str]]:
    import glmm

    try:
        x, names = glmm.model_matrix(frame, f"~ {formula.fixed}")
    except ValueError as err:
        raise ValueError(f"fixed-effects part {formula.fixed!r} of {formula.text!r}: {err}") from None
    x = np.asarray(x, float)
    if check_rank and np.linalg.matrix_rank(x) < x.shape[1]:
        raise ValueError(
            f"fixed-effects model matrix of {formula.fixed!r} is rank deficient ({x.shape[1]} "
            f"columns {names}, rank {np.linalg.matrix_rank(x)}): drop the redundant term")
    return x, list(names)


def _check_separation(d: MixedDesign, formula: Formula) -> None:
    """Warn when a fixed-effect column separates 0/1 outcomes perfectly (estimates diverge)."""
    y = d.y
    if d.trials is not None or not set(np.unique(y)) <= {0.0, 1.0}:
        return
    for j, name in enumerate(d.xnames):
        x = d.X[:, j]
        if name == "(Intercept)" or np.ptp(x) == 0:
            continue
        if x[y == 1].min() > x[y == 0].max() or x[y == 0].min() > x[y == 1].max():
            warn(f"glmer: {name!r} separates the 0/1 responses of {formula.response!r} "
                 "perfectly: its estimate and standard error are not finite in truth "
                 "(complete separation); consider a penalised (Bayesian) fit, stats.brm")


def _fit_glmm(d: MixedDesign, formula: Formula, family: str, reml: bool, nagq: int,
              warm: dict | None = None):
    """glmm's fit on the design's rows; None where glmm refuses the structure."""
    import glmm

    extra = {"_y_": d.y} if d.trials is None else {"_s_": d.y * d.trials, "_f_": (1 - d.y) * d.trials}
    lhs = "_y_" if d.trials is None else "cbind(_s_, _f_)"
    text = _glmm_formula(formula, lhs)
    if text is None:
        return None
    # an LMM's SEs are computed here (pls), so glmm's Hessian would be wasted work
    kwargs = {"reml": reml, "wald_se": "rx"} if family == "gaussian" else {"nagq": nagq}
    if warm and "theta" in warm:  # glmm takes theta in formula order, ours is lme4's order
        pieces = dict(zip((t.term for t in d.terms), d.split_theta(warm["theta"]), strict=True))
        warm = warm | {"theta": [float(v) for t in formula.random for v in pieces[t]]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = glmm.fit(_glmm_data(d.frame, formula, extra), text, family,
                     satterthwaite=False, warm_start=warm, **kwargs)
    notes = [str(w.message) for w in caught if not issubclass(w.category, glmm.SingularFitWarning)]
    return g, notes


def _theta_from_glmm(d: MixedDesign, g, sigma: float) -> np.ndarray:
    if len(g.varcorr) != len(g.re_groups):  # glmm reports no covariances when it failed
        return np.full(d.ntheta, np.nan)
    ours = {v: k for k, v in _glmm_groups(d.formula).items()}
    by_group = {}
    for (name, terms), packed in zip(g.re_groups, g.varcorr, strict=True):
        name = ours.get(name, name)
        k = len(terms)
        cov = np.zeros((k, k))
        rows, cols = np.tril_indices(k)
        order = np.lexsort((rows, cols))  # glmm packs column-major lower triangles
        cov[rows[order], cols[order]] = packed
        by_group[name] = cov + np.tril(cov, -1).T
    return d.theta_from_covariances([by_group[t.group] for t in d.terms], sigma)


@pls.one_blas_thread
def lmer(formula: str, data: pd.DataFrame, REML: bool = True) -> LmerResult:
    """Fit a linear mixed model written in lme4 syntax (``lme4::lmer``).

    ``y ~ x + (1 + x | g) + (1 | h)``: crossed or nested factors, ``(1 | g/h)`` =
    ``(1 | g) + (1 | g:h)``, ``(0 + x | g)`` without intercept, ``(1 + x || g)``
    uncorrelated. Rows with missing values in used columns are dropped and counted in
    ``n_dropped``. The result has lme4's accessors and lmerTest's Satterthwaite tests.
    """
    reml = check_reml(REML)
    parsed = parse(formula)
    frame, n_dropped = prepare_frame(parsed, data)
    y = lmer_response(parsed, frame)
    x, names = _fixed_matrix(parsed, frame)
    d = mixed_design(parsed, frame, x, names, y)
    return _lmer_fit(d, reml, n_dropped)


def _lmer_fit(d: MixedDesign, reml: bool, n_dropped: int, start: np.ndarray | None = None,
              quiet: bool = False) -> LmerResult:
    glmm_fit = _fit_glmm(d, d.formula, "gaussian", reml, 1,
                         None if start is None else {"theta": list(start)})
    if glmm_fit is not None:
        g, notes = glmm_fit
        theta = _theta_from_glmm(d, g, float(np.sqrt(g.dispersion)))
        converged, engine = bool(g.converged), engine_version()
    else:
        theta, converged = pls.fit_theta(d, reml, start)
        notes, engine = [], "acceptability PLS (lme4's algorithm; glmm refuses this structure)"
    return LmerResult(d, reml, n_dropped, pls.pls(d, theta, reml), engine, converged, notes, quiet)


@pls.one_blas_thread
def glmer(formula: str, data: pd.DataFrame, family: str = "binomial", nAGQ: int = 1) -> GlmerResult:
    """Fit a generalised linear mixed model in lme4 syntax (``lme4::glmer``).

    ``family="binomial"`` (logit link; response 0/1, TRUE/FALSE or
    ``cbind(successes, failures)``) or ``"poisson"`` (log link). ``nAGQ=1`` is the
    Laplace approximation; ``nAGQ > 1`` (odd, at most 25) adaptive Gauss-Hermite
    quadrature, for a single scalar random effect as in lme4.
    """
    if family not in FAMILIES:
        raise ValueError(f"family={family!r}: glmer fits {sorted(FAMILIES)}; for a numeric "
                         "response use stats.lmer")
    if isinstance(nAGQ, bool) or not isinstance(nAGQ, (int, np.integer)) or not 1 <= nAGQ <= 25 \
            or nAGQ % 2 == 0:
        raise ValueError(f"nAGQ={nAGQ!r}: use 1 (Laplace) or an odd number of quadrature points up to 25")
    parsed = parse(formula)
    if nAGQ > 1 and (len(parsed.random) != 1 or len(parsed.random[0].names) != 1):
        raise ValueError(f"nAGQ={nAGQ} needs a single scalar random effect, as in lme4 "
                         f"(the model has {[str(t) for t in parsed.random]}); use nAGQ=1 (Laplace)")
    frame, n_dropped = prepare_frame(parsed, data)
    y, trials = glmer_response(parsed, frame, family)
    x, names = _fixed_matrix(parsed, frame)
    d = mixed_design(parsed, frame, x, names, y, trials)
    _check_separation(d, parsed)
    return _glmer_fit(d, family, int(nAGQ), n_dropped)


def _glmer_fit(d: MixedDesign, family: str, nagq: int, n_dropped: int, warm: dict | None = None,
               quiet: bool = False) -> GlmerResult:
    glmm_fit = _fit_glmm(d, d.formula, family, False, nagq, warm)
    if glmm_fit is None:
        raise ValueError(
            f"glmer: the random-effects structure of {d.formula.text!r} ({', '.join(map(str, d.formula.random))}) "
            "is not available for GLMMs here: write each grouping factor once, with an intercept "
            "(e.g. (1 + x | g) instead of (x || g))")
    g, notes = glmm_fit
    return GlmerResult(d, False, n_dropped, None, engine_version(), bool(g.converged), notes, quiet,
                       family=family, nagq=nagq, glmm_fit=g)


@dataclass
class LmerResult:
    """A fitted mixed model with lme4's accessors (``fixef``, ``ranef``, ``VarCorr``,
    ``vcov``, ``logLik``, ``predict``, ``confint``) and lmerTest's tests (``coefficients``)."""

    design: MixedDesign
    REML: bool
    n_dropped: int
    state: pls.PlsFit | None
    engine: str
    converged: bool
    notes: list[str] = field(default_factory=list)
    quiet: bool = False

    def __post_init__(self) -> None:
        if self.singular:
            self.notes.append("boundary (singular) fit: see help('isSingular') in lme4")
            if not self.quiet:
                warn(f"{self._kind}: boundary (singular) fit: a variance is ~0 or a correlation "
                     "~±1; simplify the random effects", SingularFitWarning)
        if not self.converged:
            self.notes.append("Model failed to converge")
            if not self.quiet:
                warn(f"{self._kind}: model failed to converge", ConvergenceWarning)

    _kind = "lmer"

    # --- data and structure -----------------------------------------------------------
    @property
    def formula(self) -> Formula:
        return self.design.formula

    @property
    def frame(self) -> pd.DataFrame:
        return self.design.frame

    @property
    def nobs(self) -> int:
        return self.design.n

    @property
    def ngrps(self) -> pd.Series:
        """Levels per grouping factor (lme4 ``ngrps``), in lme4's order."""
        out = {t.group: t.nlev for t in self.design.terms}
        return pd.Series(out, dtype=int)

    @property
    def theta(self) -> np.ndarray:
        """lme4's ``getME(m, "theta")``: the relative covariance factors, column-major."""
        return self.state.theta

    # --- parameters -------------------------------------------------------------------
    @property
    def fixef(self) -> pd.Series:
        """Fixed-effect estimates (lme4 ``fixef``)."""
        return pd.Series(self.state.beta, index=self.design.xnames)

    @property
    def vcov(self) -> pd.DataFrame:
        """Covariance of the fixed effects, sigma^2 (R_X'R_X)^-1 (lme4 ``vcov``)."""
        names = self.design.xnames
        return pd.DataFrame(self.state.vcov, index=names, columns=names)

    @property
    def se(self) -> pd.Series:
        return pd.Series(np.sqrt(np.diag(self.vcov)), index=self.fixef.index)

    @property
    def sigma(self) -> float:
        """Residual standard deviation (lme4 ``sigma``)."""
        return self.state.sigma

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

    _has_sigma = True

    @property
    def singular(self) -> bool:
        """lme4 ``isSingular``: a diagonal element of a relative covariance factor below 1e-4."""
        lower = self.design.theta_lower()
        return bool(np.any(self.theta[lower == 0] < _SINGULAR_TOL))

    def _b(self) -> np.ndarray:
        return self.state.b

    @property
    def ranef(self) -> dict[str, pd.DataFrame]:
        """Conditional modes of the random effects per grouping factor (lme4 ``ranef``);
        a factor in several terms (``(1 | g) + (0 + x | g)``) gets one frame with all its
        columns."""
        out: dict[str, pd.DataFrame] = {}
        b, off = self._b(), 0
        for t in self.design.terms:
            block = b[off:off + t.nlev * t.nc].reshape(t.nlev, t.nc)
            off += t.nlev * t.nc
            frame = pd.DataFrame(block, index=pd.Index(t.levels, name=t.group), columns=list(t.names))
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
        return -self.state.deviance / 2

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

    def refit_ml(self) -> LmerResult:
        """The same model fitted by maximum likelihood (lme4 ``refitML``)."""
        if not self.REML:
            return self
        return _lmer_fit(self.design, False, self.n_dropped, start=self.theta, quiet=True)

    # --- inference --------------------------------------------------------------------
    @cached_property
    def df(self) -> pd.Series:
        """Satterthwaite degrees of freedom of each fixed effect (lmerTest)."""
        return pd.Series(pls.satterthwaite_df(self.design, self.state, np.eye(self.design.p)),
                         index=self.design.xnames)

    @property
    def coefficients(self) -> pd.DataFrame:
        """lmerTest's coefficient table: Estimate, Std. Error, df, t value, Pr(>|t|)."""
        est, se, df = self.fixef, self.se, self.df
        t = est / se
        return pd.DataFrame({"Estimate": est, "Std. Error": se, "df": df, "t value": t,
                             "Pr(>|t|)": 2 * sps.t.sf(np.abs(t), df)})

    def confint(self, level: float = 0.95, method: str = "profile", nsim: int = 500,
                seed: int = 0, n_jobs: int | None = None) -> pd.DataFrame:
        """Confidence intervals (lme4 ``confint.merMod``), rows as :meth:`params`.

        ``"profile"`` (lme4's default): likelihood-profile intervals for every parameter
        (:mod:`.lmer_profile`); ``"Wald"``: fixed effects only, variance rows NaN as in
        lme4; ``"boot"``: parametric-bootstrap percentile intervals (lme4 ``bootMer``),
        ``nsim`` refits in ``n_jobs`` processes (default: one per core).
        """
        lo, hi = (1 - level) / 2, (1 + level) / 2
        cols = [f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"]
        if method == "Wald":
            z = sps.norm.ppf(hi)
            fe = np.column_stack([self.fixef - z * self.se, self.fixef + z * self.se])
            out = pd.DataFrame(np.nan, index=self._varpars().index, columns=cols)
            return pd.concat([out, pd.DataFrame(fe, index=self.fixef.index, columns=cols)])
        if method == "boot":
            from acceptability.stats.mixed.parametric import parametric_bootstrap

            draws = parametric_bootstrap(self, nsim, seed, n_jobs)
            return draws.quantile([lo, hi]).T.set_axis(cols, axis=1)
        if method == "profile":
            from acceptability.stats.mixed.profile import profile_confint

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
        effect, ``re_form="~0"`` (or ``"NA"``) the fixed effects only. Levels unseen in the
        fit raise unless ``allow_new_levels=True``, which gives them random effect 0, as in
        lme4. ``type="response"`` applies a GLMM's inverse link."""
        if re_form not in (None, "~0", "NA"):
            raise ValueError(f"re_form={re_form!r}: use None (all random effects) or '~0'")
        if type not in ("link", "response"):
            raise ValueError(f"type={type!r}: use 'link' or 'response'")
        data = self.frame if newdata is None else newdata
        x = self.design.X if newdata is None else self._new_x(newdata)
        eta = x @ self.fixef.to_numpy()
        if re_form is None:
            ranef = self.ranef
            for t in self.design.terms:
                keys = group_key(data, t.term.factors)
                tab = ranef[t.group]
                unseen = sorted(set(keys) - set(tab.index))
                if unseen and not allow_new_levels:
                    raise ValueError(
                        f"new level(s) {unseen[:5]} of {t.group!r} in newdata: pass "
                        "allow_new_levels=True to predict them with random effect 0")
                for name in t.names:
                    coef = keys.map(tab[name]).fillna(0.0).to_numpy()
                    col = 1.0 if name == "(Intercept)" else data[name].to_numpy(dtype=float)
                    eta = eta + coef * col
        out = self._inverse_link(eta) if type == "response" else eta
        return pd.Series(out, index=data.index)

    def _inverse_link(self, eta: np.ndarray) -> np.ndarray:
        return eta

    def _new_x(self, newdata: pd.DataFrame) -> np.ndarray:
        """The fixed-effects matrix of new rows, with the fit's factor levels and contrasts."""
        missing = [c for c in self.formula.fixed_columns() if c not in newdata.columns]
        if missing:
            raise KeyError(f"newdata lacks column(s) {missing} of the fixed effects {self.formula.fixed!r}")
        data = newdata.copy()
        for name in self.formula.fixed_columns():
            col = self.frame[name]
            if not pd.api.types.is_numeric_dtype(col) or pd.api.types.is_bool_dtype(col):
                levels = (list(col.cat.categories) if isinstance(col.dtype, pd.CategoricalDtype)
                          else sorted(col.astype(str).unique()))
                new = data[name].astype(str)
                unknown = sorted(set(new) - set(levels))
                if unknown:
                    raise ValueError(f"newdata: level(s) {unknown[:5]} of fixed factor {name!r} were "
                                     f"not in the fitted data ({levels[:10]})")
                data[name] = pd.Categorical(new, categories=levels)
        x, names = _fixed_matrix(self.formula, data, check_rank=False)
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
        """Residuals / sigma (lme4's summary); Pearson residuals for a GLMM."""
        return self.residuals.to_numpy() / self.sigma

    # --- output -----------------------------------------------------------------------
    @property
    def provenance(self) -> dict[str, object]:
        """What produced this fit: engine and versions, formula, data size, settings."""
        from acceptability import __version__

        return {"engine": self.engine, "acceptability": __version__, "formula": self.formula.text,
                "nobs": self.nobs, "n_dropped": self.n_dropped, "REML": self.REML,
                "converged": self.converged, "singular": self.singular}

    def summary(self) -> str:
        """The fit printed like lme4's ``summary.merMod`` with lmerTest's t tests."""
        from acceptability.stats.mixed.summary import format_summary

        return format_summary(self)

    def __repr__(self) -> str:
        how = "REML" if self.REML else "ML"
        return f"<{type(self).__name__} {self.formula.text!r}: n={self.nobs}, {how} logLik={self.logLik:.3f}>"


@dataclass(repr=False)
class GlmerResult(LmerResult):
    """A fitted :func:`glmer` model: the accessors of :class:`LmerResult`, z tests, no sigma."""

    family: str = "binomial"
    nagq: int = 1
    glmm_fit: object = None

    _kind = "glmer"
    _has_sigma = False

    @property
    def theta(self) -> np.ndarray:
        return _theta_from_glmm(self.design, self.glmm_fit, 1.0)

    @property
    def fixef(self) -> pd.Series:
        return pd.Series(np.asarray(self.glmm_fit.beta, float), index=self.design.xnames)

    @property
    def vcov(self) -> pd.DataFrame:
        names = self.design.xnames
        return pd.DataFrame(np.asarray(self.glmm_fit.vcov, float), index=names, columns=names)

    @property
    def sigma(self) -> float:
        return 1.0

    @property
    def logLik(self) -> float:
        """Laplace (nAGQ=1) or adaptive Gauss-Hermite log-likelihood, as lme4 reports it."""
        return float(self.glmm_fit.loglik)

    def refit_ml(self) -> GlmerResult:
        return self

    def _b(self) -> np.ndarray:
        ours = {v: k for k, v in _glmm_groups(self.formula).items()}
        blocks = {ours.get(b["group"], b["group"]): b for b in self.glmm_fit.ranef_blocks}
        out = []
        for t in self.design.terms:
            blk = blocks[t.group]
            frame = pd.DataFrame(np.asarray(blk["values"], float), index=list(blk["levels"]),
                                 columns=list(blk["terms"]))
            out.append(frame.loc[list(t.levels), list(t.names)].to_numpy().ravel())
        return np.concatenate(out)

    def _condvar(self) -> list[np.ndarray]:
        """Conditional variances from A = Lambda' Z' W Z Lambda + I at the fit, W the GLM
        working weights (dmu/deta)^2 / Var(y | b) (lme4: the final PIRLS factor)."""
        mu = self.fitted.to_numpy()
        dmu = mu * (1 - mu) if self.family == "binomial" else mu  # canonical links
        return pls.cond_var(self.design, self.theta, 1.0, weights=dmu**2 / self._response_variance())

    def _response_variance(self) -> np.ndarray:
        """Var(y | b) at the fit: mu (1 - mu) / n for binomial proportions, mu for poisson."""
        mu = self.fitted.to_numpy()
        if self.family == "poisson":
            return mu
        return mu * (1 - mu) / (self.design.trials if self.design.trials is not None else 1.0)

    def _inverse_link(self, eta: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-eta)) if self.family == "binomial" else np.exp(eta)

    @property
    def scaled_residuals(self) -> np.ndarray:
        """Pearson residuals (y - mu) / sqrt(Var(y | b)), as lme4's summary shows."""
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

    def confint(self, level: float = 0.95, method: str = "Wald", nsim: int = 500,
                seed: int = 0, n_jobs: int | None = None) -> pd.DataFrame:
        """``"Wald"`` (default here) or ``"boot"`` (parametric bootstrap); likelihood
        profiles are available for :func:`lmer` fits."""
        if method == "profile":
            raise ValueError("confint(method='profile') is available for lmer fits; for a glmer "
                             "fit use method='Wald' or method='boot'")
        return super().confint(level, method, nsim, seed, n_jobs)

    @property
    def provenance(self) -> dict[str, object]:
        return super().provenance | {"family": self.family, "nAGQ": self.nagq}


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
