"""The guard's arithmetic for trial-level ratings (issue 32), written here from the papers'
definitions with numpy, scipy and pandas, never with ``acceptability``'s functions; the
mixed models by R (lme4, ordinal) through ``Rscript``.

- norming "mean": a sentence's mean rating; "z": each rating z-scored within its
  participant with the sample SD (Sprouse et al. 2013), averaged per sentence; "rank":
  Blom's normal scores Phi^-1((r - 3/8) / (n + 1/4)) of the participant's average ranks.
- split-half reliability: the ratings split at random into halves (within each sentence
  without participant ids: floor(k/2) into the first; by participant with them), Pearson r
  of the halves' sentence means, averaged over splits, Spearman-Brown 2r / (1 + r);
  ceiling = its square root. One vs. rest: one random rating per sentence against the mean
  of the others (Lau et al. 2020). ICC(1), ICC(k): one-way ANOVA (Shrout & Fleiss 1979),
  the unbalanced group size n0 = (N - sum k^2 / N) / (n - 1).
- context: a condition's mean rating is the mean of its sentences' means; thirds are cut at
  the 1/3 and 2/3 quantiles (numpy's linear rule; a value on a cut goes to the outer third).

Split-half and one-vs-rest are averages over random splits: :func:`assert_mc` compares the
package's average of its splits with ours within the Monte Carlo error of both.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import optimize, special

from tests.conftest import missing
from tests.reports.recompute import independent as ind
from tests.reports.recompute.independent import K_SD

N_SPLITS = 200  # the package's splits (stats.rater_reliability's default)
OUR_SPLITS = 400  # our splits where only their mean matters
SPLIT_SETS = 6  # independent sets of N_SPLITS splits behind an interval (assert_split_interval)


# ------------------------------------------------------------------ items and norming


@dataclass
class Items:
    """The ratings of each sentence: ``values`` flat, ``item`` the sentence's number (0..n-1)
    of each, ``rater`` its participant code (None without ids)."""

    values: np.ndarray
    item: np.ndarray
    rater: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.item.max()) + 1

    @property
    def k(self) -> np.ndarray:
        return np.bincount(self.item, minlength=self.n).astype(float)

    def means(self) -> np.ndarray:
        return np.bincount(self.item, self.values, minlength=self.n) / self.k


def items_of(ratings: pd.DataFrame, column: str = "response") -> Items:
    """``Items`` of a long table (``sentence_id``, ``column``, maybe ``participant``), the
    sentences numbered in order of appearance."""
    codes = pd.factorize(ratings["sentence_id"])[0]
    rater = (pd.factorize(ratings["participant"])[0] if "participant" in ratings
             and ratings["participant"].notna().all() else None)
    return Items(ratings[column].to_numpy(float), codes, rater)


def z_within(ratings: pd.DataFrame) -> pd.Series:
    """Each rating z-scored within its participant, sample SD (NaN where it is undefined)."""
    g = ratings.groupby("participant")["response"]
    return (ratings["response"] - g.transform("mean")) / g.transform("std", ddof=1)


def blom_within(ratings: pd.DataFrame) -> pd.Series:
    """Blom's normal scores of each participant's average ranks."""
    g = ratings.groupby("participant")["response"]
    rank, n = g.rank(method="average"), g.transform("size")
    return pd.Series(special.ndtri((rank - 3 / 8) / (n + 1 / 4)), index=ratings.index)


# ------------------------------------------------------------------ reliability


def icc(items: Items, weights: np.ndarray | None = None) -> np.ndarray:
    """ICC(1), ICC(k) of the one-way ANOVA; with ``weights`` (resamples x items: how often
    each sentence is drawn), of each resampled set of sentences (rows)."""
    k, s = items.k, np.bincount(items.item, items.values, minlength=items.n)
    within = np.bincount(items.item, (items.values - (s / k)[items.item]) ** 2,
                         minlength=items.n)
    w = np.ones((1, items.n)) if weights is None else weights
    n, big_n, k2, total = w.sum(1), w @ k, w @ k**2, w @ s
    msb = (w @ (s**2 / k) - total**2 / big_n) / (n - 1)
    msw = (w @ within) / (big_n - n)
    n0 = (big_n - k2 / big_n) / (n - 1)
    out = np.stack([(msb - msw) / (msb + (n0 - 1) * msw), (msb - msw) / msb])
    return out[:, 0] if weights is None else out


def halves(items: Items, method: str, n_splits: int, rng: np.random.Generator
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per split (rows) and sentence: count and sum of the ratings in the first part and in
    the rest. The first part: one random rating (one vs. rest), else floor(k/2) random ones
    of each sentence, or half the participants (rounded down) where they are named."""
    k = items.k
    in_first = np.empty((n_splits, len(items.values)), bool)
    for s in range(n_splits):
        if method == "split_half" and items.rater is not None:
            people = rng.permutation(items.rater.max() + 1) < (items.rater.max() + 1) // 2
            in_first[s] = people[items.rater]
            continue
        order = np.lexsort((rng.random(len(items.values)), items.item))
        rank = np.empty(len(order), int)
        start = np.concatenate([[0], np.cumsum(k)[:-1]]).astype(int)
        rank[order] = np.arange(len(order)) - start[items.item[order]]
        take = np.ones(items.n) if method == "one_vs_rest" else np.floor(k / 2)
        in_first[s] = rank < take[items.item]
    sums = []
    for mask in (in_first, ~in_first):
        c = np.stack([np.bincount(items.item, m, minlength=items.n) for m in mask.astype(float)])
        t = np.stack([np.bincount(items.item, m * items.values, minlength=items.n)
                      for m in mask.astype(float)])
        sums += [c, t]
    return tuple(sums)


def split_rs(parts, weights: np.ndarray | None = None) -> np.ndarray:
    """Pearson r of the parts' sentence means per split (the data: a vector over splits),
    or per resample and split (``weights``: resamples x sentences) from weighted sums."""
    c1, t1, c2, t2 = parts
    with np.errstate(invalid="ignore", divide="ignore"):
        a, b = t1 / c1, t2 / c2
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = np.where(ok, a, 0), np.where(ok, b, 0)
    w = np.ones((1, a.shape[1])) if weights is None else weights
    n, sa, sb = w @ ok.T, w @ a.T, w @ b.T
    saa, sbb, sab = w @ (a * a).T, w @ (b * b).T, w @ (a * b).T
    with np.errstate(invalid="ignore", divide="ignore"):
        var_a, var_b = saa / n - (sa / n) ** 2, sbb / n - (sb / n) ** 2
        r = (sab / n - sa * sb / n**2) / np.sqrt(var_a * var_b)
        # a part constant over the (resampled) sentences: r undefined, not rounding noise
        flat = (var_a <= 1e-10 * saa / n) | (var_b <= 1e-10 * sbb / n)
    r = np.where(flat, np.nan, r)
    return r[0] if weights is None else r


def spearman_brown(r):
    return 2 * r / (1 + r)


def item_weights(n_items: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """How often each sentence is drawn in each of ``n_boot`` resamples (resamples x
    sentences)."""
    return rng.multinomial(n_items, np.full(n_items, 1 / n_items), size=n_boot).astype(float)


def assert_mc(value: float, ours: np.ndarray, n_package: int, what: str) -> None:
    """A mean over the package's ``n_package`` random splits against the mean of ours: equal
    within K_SD standard errors of the difference (the per-split SD from ours)."""
    ours = ours[np.isfinite(ours)]
    se = np.std(ours, ddof=1) * math.sqrt(1 / n_package + 1 / len(ours))
    assert abs(value - ours.mean()) <= K_SD * se + 1e-12, (
        f"{what}: {value:.6g} vs our mean over splits {ours.mean():.6g} (tolerance "
        f"{K_SD * se:.2g})")


def _steps(r: np.ndarray) -> np.ndarray:
    """A mean split-half r (rows) and its Spearman-Brown step-up and square root."""
    return np.stack([r, spearman_brown(r), np.sqrt(spearman_brown(r))])


def assert_split_interval(lower: float, upper: float, boots: list[np.ndarray], n_package: int,
                          what: str) -> None:
    """Interval endpoints of a mean over random splits, the sentences resampled with the
    splits fixed: the package's depend on its draw of splits and of resamples, so they are
    compared with our bootstrap over ``SPLIT_SETS`` independent sets of as many splits, each
    with its own resamples (``boots``): within K_SD of the SD of our endpoints over the
    sets combined with the order-statistic error of the package's ``n_package`` resamples
    (sqrt(q (1 - q) / n) times the slope of our quantile function there)."""
    pooled = np.concatenate(boots)
    for value, level in ((lower, 0.025), (upper, 0.975)):
        got = np.array([np.nanquantile(b, level) for b in boots])
        slope = np.diff(np.nanquantile(pooled, [level - 0.01, level + 0.01]))[0] / 0.02
        sd = math.sqrt(np.var(got, ddof=1) * (1 + 1 / len(got))
                       + level * (1 - level) / n_package * slope**2)
        assert abs(value - got.mean()) <= K_SD * sd + 1e-9, (
            f"{what}: endpoint {value:.6g} against ours {got.mean():.6g} +- {sd:.2g} "
            f"({len(got)} sets of splits, {level})")


def check_reliability(rows: pd.DataFrame, items: Items, n_boot: int, seed: int,
                      what: str) -> dict[str, float]:
    """Every number of one condition's reliability rows (``method``, ``quantity``,
    ``estimate`` with its interval, counts) recomputed; returns the estimates by quantity."""
    rng = np.random.default_rng(seed)
    got = rows.set_index("quantity")
    weights = item_weights(items.n, 2000, rng)
    for method, names in (("split_half", ("r_half", "reliability", "ceiling")),
                          ("one_vs_rest", ("r",)), ("icc", ("ICC(1)", "ICC(k)"))):
        mine = got.loc[list(names)]
        assert (mine["method"] == method).all(), f"{what}: {method} rows"
        assert (mine["n_items"] == items.n).all(), what
        assert (mine["n_responses"] == len(items.values)).all(), what
        if method == "icc":
            for j, (est, dist) in enumerate(zip(icc(items), icc(items, weights), strict=True)):
                row = mine.iloc[j]
                ind.assert_close(row["estimate"], est, f"{what} {names[j]}")
                ind.assert_interval(row["estimate_lower"], row["estimate_upper"],
                                    row["estimate"], dist, n_boot, f"{what} {names[j]}")
            continue
        sets = [halves(items, method, N_SPLITS, rng) for _ in range(SPLIT_SETS)]
        rs = np.concatenate([split_rs(parts) for parts in sets])
        assert_mc(mine["estimate"].iloc[0], rs, N_SPLITS, f"{what} {names[0]}")
        r = mine["estimate"].iloc[0]  # the rest follow from the package's own mean r
        ind.assert_close(mine["estimate"], _steps(np.array(r))[:len(names)], f"{what} steps")
        boots = [_steps(np.nanmean(split_rs(parts, item_weights(items.n, 1000, rng)), 1))
                 for parts in sets]
        for j, name in enumerate(names):
            row = mine.loc[name]
            assert_split_interval(row["estimate_lower"], row["estimate_upper"],
                                  [b[j] for b in boots], n_boot, f"{what} {name}")
    assert (got["n_items_set_aside"] == 0).all()
    return got["estimate"].to_dict()


def resampled_pearson(x: np.ndarray, y: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Pearson r of ``x`` and ``y`` over ``n_boot`` resamples of their positions."""
    idx = np.random.default_rng(seed).integers(0, len(x), (n_boot, len(x)))
    a, b = x[idx], y[idx]
    a, b = a - a.mean(1, keepdims=True), b - b.mean(1, keepdims=True)
    return (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))


# ------------------------------------------------------------------ context


def thirds(x: np.ndarray) -> np.ndarray:
    lo, hi = np.quantile(x, [1 / 3, 2 / 3])
    return np.where(x <= lo, "low", np.where(x >= hi, "high", "middle"))


def paired_means(values: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Column means of ``values`` (sentences x columns) over ``n_boot`` resamples of the
    sentences (rows drawn with replacement), (resamples x columns)."""
    rng = np.random.default_rng(seed)
    return np.stack([values[rng.integers(0, len(values), len(values))].mean(0)
                     for _ in range(n_boot)])


# ------------------------------------------------------------------ clmm, one random intercept


def _logit_terms(y: np.ndarray, theta: np.ndarray, eta: np.ndarray):
    """log P(y | eta) of the cumulative logit P(Y <= j) = F(theta_j - eta) and its first
    and second derivatives in eta (F logistic, f = F(1 - F), f' = f(1 - 2F)); P as
    F(a) - F(b), or as (1 - F(b)) - (1 - F(a)) where both are near 1 (no cancellation)."""
    cuts = np.concatenate([[-np.inf], theta, [np.inf]])
    a, b = cuts[y] - eta, cuts[y - 1] - eta
    flip = a + b > 0
    p = np.where(flip, special.expit(-b) - special.expit(-a), special.expit(a) - special.expit(b))
    fa, fb = special.expit(a), special.expit(b)
    da, db = fa * (1 - fa), fb * (1 - fb)
    d1 = -(da - db) / p
    d2 = (da * (1 - 2 * fa) - db * (1 - 2 * fb)) / p - d1**2
    return np.log(p), d1, d2


def laplace_loglik(par: np.ndarray, y: np.ndarray, x: np.ndarray, item: np.ndarray,
                   n_items: int) -> float:
    """The Laplace approximation of the marginal log-likelihood of a cumulative logit model
    with one random intercept per item, u ~ N(0, sigma^2) (ordinal's clmm, nAGQ = 1):
    sum over items of log f(y | u) + log phi(u; sigma) at the mode u, minus half the log of
    the curvature there over 2 pi. ``par`` = thresholds, slope, log sigma."""
    theta, beta = par[:-2], par[-2]
    if np.any(np.diff(theta) <= 0) or not -10 < par[-1] < 5:
        return -np.inf
    sigma = math.exp(par[-1])
    u = np.zeros(n_items)
    for _ in range(100):  # Newton for every item's mode at once
        lp, d1, d2 = _logit_terms(y, theta, beta * x + u[item])
        grad = np.bincount(item, d1, n_items) - u / sigma**2
        curv = -np.bincount(item, d2, n_items) + 1 / sigma**2
        step = np.clip(grad / curv, -2.0, 2.0)  # damped: the mode lies in a concave bowl
        u += step
        if np.max(np.abs(step)) < 1e-12:
            break
    lp, _, d2 = _logit_terms(y, theta, beta * x + u[item])
    curv = -np.bincount(item, d2, n_items) + 1 / sigma**2
    prior = -0.5 * (u / sigma) ** 2 - math.log(sigma) - 0.5 * math.log(2 * math.pi)
    return float(lp.sum() + prior.sum() - 0.5 * np.log(curv / (2 * math.pi)).sum())


def _hessian(f, x: np.ndarray, h: float = 1e-4) -> np.ndarray:
    """Central finite-difference Hessian of ``f`` at ``x``."""
    k = len(x)
    out = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            e_i, e_j = np.eye(k)[i] * h, np.eye(k)[j] * h
            out[i, j] = out[j, i] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j)
                                     + f(x - e_i - e_j)) / (4 * h * h)
    return out


def clmm_intercepts(y: np.ndarray, x: np.ndarray, item: np.ndarray, levels: int
                    ) -> pd.DataFrame:
    """Maximum Laplace likelihood (`laplace_loglik`, BFGS from thresholds at the logits of
    the cumulative shares, slope 0, sigma 1) and Wald standard errors from the inverse of
    the finite-difference Hessian: estimate and se of the thresholds ``j|j+1`` and ``lm_z``."""
    codes, _ = pd.factorize(item)
    n = codes.max() + 1
    share = np.cumsum(np.bincount(y, minlength=levels + 1)[1:])[:-1] / len(y)
    start = np.concatenate([special.logit(share), [0.0, 0.0]])

    def nll(par):
        return -laplace_loglik(par, y, x, codes, n)

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # BFGS probes thresholds out of order: -inf there
        fit = optimize.minimize(nll, start, method="BFGS", options={"gtol": 1e-9})
        cov = np.linalg.inv(_hessian(nll, fit.x))
    names = [f"{j}|{j + 1}" for j in range(1, levels)] + ["lm_z"]
    return pd.DataFrame({"term": names, "estimate": fit.x[:-1],
                         "se": np.sqrt(np.diag(cov))[:-1]})


# ------------------------------------------------------------------ mixed models by R

R_SCRIPT = r"""
suppressPackageStartupMessages({library(lme4); library(ordinal); library(jsonlite)})
args <- commandArgs(TRUE)
d <- read.csv(args[1], colClasses = c(participant = "character", item = "character"))
spec <- fromJSON(args[2])
out <- list()
for (m in spec$models) {
  x <- d[d$model == m, ]
  f <- lmer(as.formula(spec$lmer), data = x, REML = TRUE,
            control = lmerControl(optimizer = "bobyqa"))
  ci <- confint(f, method = "Wald", parm = "beta_")
  out[[length(out) + 1]] <- data.frame(model = m, fit = "lmer", term = names(fixef(f)),
    estimate = unname(fixef(f)), se = unname(sqrt(diag(as.matrix(vcov(f))))),
    lower = ci[, 1], upper = ci[, 2], n = nobs(f), singular = isSingular(f))
  if (is.null(spec$clmm)) next
  x$response <- factor(x$response, levels = spec$levels, ordered = TRUE)
  g <- clmm(as.formula(spec$clmm), data = x, control = clmm.control(method = "nlminb"))
  b <- coef(g); se <- sqrt(diag(vcov(g)))[names(b)]
  out[[length(out) + 1]] <- data.frame(model = m, fit = "clmm", term = names(b),
    estimate = unname(b), se = unname(se), lower = unname(b - qnorm(0.975) * se),
    upper = unname(b + qnorm(0.975) * se), n = nrow(x), singular = FALSE)
}
write.csv(do.call(rbind, out), args[3], row.names = FALSE)
"""


def r_fits(frame: pd.DataFrame, lmer: str, folder: Path, clmm: str | None = None,
           levels: list[int] | None = None) -> pd.DataFrame:
    """lme4's ``lmer`` (REML, Wald intervals) and, with a formula, ordinal's ``clmm``
    (Laplace) of each model's rows of ``frame`` (one row per rating and model), by
    ``Rscript``. Optimizers bobyqa and nlminb: lme4's default nloptwrap stops at REML
    criterion 3971.0 on MegaAcceptability's first 300 sentences where bobyqa (and the
    package) reach 3952.9, and ordinal's default ucminf stops early on Lau's first 10."""
    folder.mkdir(parents=True, exist_ok=True)
    data, script, out = folder / "frame.csv", folder / "fits.R", folder / "fits.csv"
    frame.to_csv(data, index=False)
    script.write_text(R_SCRIPT)
    spec = json.dumps({"models": list(pd.unique(frame["model"])), "lmer": lmer, "clmm": clmm,
                       "levels": levels})
    _rscript([str(script), str(data), spec, str(out)])
    return pd.read_csv(out)


R_MODES = r"""
suppressPackageStartupMessages(library(ordinal))
args <- commandArgs(TRUE)
d <- read.csv(args[1], colClasses = c(participant = "character", sentence_id = "character"))
d$response <- factor(d$response, levels = sort(unique(d$response)), ordered = TRUE)
g <- clmm(response ~ 1 + (1 | participant) + (1 | sentence_id), data = d,
          control = clmm.control(method = "nlminb"))
u <- ranef(g)$sentence_id
write.csv(data.frame(sentence_id = rownames(u), mode = u[, 1]), args[2], row.names = FALSE)
"""


def r_ordinal_modes(ratings: pd.DataFrame, folder: Path) -> pd.Series:
    """Each sentence's conditional mode in ordinal's ``clmm(response ~ 1 + (1 | participant)
    + (1 | sentence_id))`` (Laplace, nlminb), by ``Rscript``: the ordinal norm."""
    folder.mkdir(parents=True, exist_ok=True)
    data, script, out = folder / "ratings.csv", folder / "modes.R", folder / "modes.csv"
    ratings[["participant", "sentence_id", "response"]].to_csv(data, index=False)
    script.write_text(R_MODES)
    _rscript([str(script), str(data), str(out)])
    return pd.read_csv(out, dtype={"sentence_id": str}).set_index("sentence_id")["mode"]


def _rscript(args: list[str]) -> None:
    """``Rscript ARGS``; a missing R or R package is reported as missing (tests.conftest)."""
    if shutil.which("Rscript") is None:
        missing("Rscript (R with lme4, ordinal, jsonlite) is not on PATH")
    run = subprocess.run(["Rscript", *args], capture_output=True, text=True)
    if run.returncode and "there is no package" in run.stderr:
        missing(f"an R package is missing: {run.stderr.strip()}")
    assert run.returncode == 0, run.stderr
