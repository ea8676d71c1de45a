"""New responses from a fitted lmer / glmer model (lme4's ``simulate.merMod``; Bates et al.
2015, J. Stat. Softw. 67(1), section 5.2).

Each draw is y ~ F(mu / sigma) at the linear predictor eta = X beta + offset + (the random
terms of ``re_form`` at their conditional modes) + (the other terms drawn anew: b = Lambda u,
u ~ N(0, sigma^2 I), one b per level, as lme4's ``.simulateFun``). ``re_form="NA"`` (lme4's
default ``re.form = NA``, its old ``use.u = FALSE``) draws every random effect anew: the
model's marginal distribution; ``re_form=None`` (``use.u = TRUE``) keeps all at their modes:
the response given the random effects; a formula such as ``"~(1 | plate)"`` keeps the terms
it names. R's draws come from R's generator, which numpy does not reproduce: the tests check
the draws' moments against the fit's (tests/stats/mixed/test_simulate.py).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.stats.arguments import check_count, check_seed
from acceptability.stats.mixed.design import group_key
from acceptability.stats.mixed.fitted import reform
from acceptability.stats.mixed.results import MixedResult

__all__ = ["Simulator", "simulate"]


class Simulator:
    """What every draw from ``m`` shares (the conditional part of eta, the terms to draw,
    their levels, the prior weights), prepared once; ``draw(rng)`` is one response."""

    def __init__(self, m: MixedResult, re_form: object = "NA", newdata: pd.DataFrame | None = None,
                 allow_new_levels: bool = False) -> None:
        d = m.design
        kept = reform.select_terms(d.terms, re_form)
        if any(len(cols) != d.terms[k].nc for k, cols in kept):
            raise ValueError(f"simulate: re_form={re_form!r} names part of a random term; name whole "
                             f"terms ({[str(t.term) for t in d.terms]})")
        self.m, self.data, self.fit_rows = m, d.frame if newdata is None else newdata, newdata is None
        self.allow_new_levels = allow_new_levels
        self.eta = m.predict(newdata, re_form=re_form, allow_new_levels=allow_new_levels).to_numpy()
        whole = {k for k, _ in kept}
        self.new = [k for k in range(len(d.terms)) if k not in whole]
        levels = {k: self._levels(k) for k in self.new}
        self.nlev = {k: len(levels[k]) for k in self.new}
        thetas = d.split_theta(m.theta)
        self.factors = {k: d.terms[k].lower(thetas[k]).T for k in self.new}  # T_k'
        self.rows = {k: reform.term_rows(d.terms[k], self.data, self.fit_rows, levels[k], allow_new_levels)
                     for k in self.new}
        self.weights = self._weights()

    def _levels(self, k: int) -> pd.Index:
        """The fit's levels of term k, then (allow_new_levels) newdata's unseen ones."""
        t = self.m.design.terms[k]
        levels = list(t.levels)
        if not self.fit_rows and self.allow_new_levels:
            levels += sorted(set(group_key(self.data, t.term.factors)) - set(levels))
        return pd.Index(levels)

    def _weights(self) -> np.ndarray:
        m, n = self.m, len(self.data)
        if self.fit_rows:
            w = np.ones(n) if m.design.weights is None else m.design.weights
            return m._prior_weights if m._kind == "glmer" else w
        if m._kind == "glmer" and m.design.glm_family.binary and not np.allclose(m._prior_weights, 1):
            raise ValueError("simulate(newdata=...) of a binomial fit with trials (cbind() or weights): "
                             "the trials of new rows are unknown; simulate the fitted rows (newdata=None)")
        return np.ones(n)

    def effects(self, rng: np.random.Generator) -> np.ndarray:
        """The drawn terms' part of eta: per level b_l = T_k u_l, u_l ~ N(0, sigma^2 I)."""
        d = self.m.design
        u = rng.standard_normal(sum(self.nlev[k] * d.terms[k].nc for k in self.new)) * self.m.sigma
        off, out = 0, np.zeros(len(self.data))
        for k in self.new:
            t, size = d.terms[k], self.nlev[k] * d.terms[k].nc
            b = u[off:off + size].reshape(-1, t.nc) @ self.factors[k]
            off += size
            out += reform.effects_part(b, *self.rows[k], list(range(t.nc)))
        return out

    def draw(self, rng: np.random.Generator) -> np.ndarray:
        """One response: a binomial one as the proportion of its trials (as ``family$simulate``)."""
        m = self.m
        eta = self.eta + self.effects(rng)
        if m._kind == "lmer":
            return eta + rng.normal(0.0, m.sigma / np.sqrt(self.weights), len(eta))
        return m.design.glm_family.sample(m._inverse_link(eta), self.weights, m.dispersion, rng)


def simulate(m: MixedResult, nsim: int = 1, seed: int | np.random.Generator | None = None,
             re_form: object = "NA", newdata: pd.DataFrame | None = None,
             allow_new_levels: bool = False) -> pd.DataFrame:
    """``nsim`` responses drawn from a fitted ``lmer`` / ``glmer`` model (lme4's
    ``simulate(m, nsim, seed, re.form, newdata, allow.new.levels)``).

    Parameters
    ----------
    m
        An lmer or glmer fit.
    nsim
        Number of responses.
    seed
        A whole number or numpy ``Generator`` (None: a fresh seed); numpy's draws, not R's.
    re_form
        ``"NA"`` (default, as lme4): new random effects for every term; ``None``: all at
        their conditional modes (lme4's ``use.u = TRUE``); a formula of whole terms, e.g.
        ``"~(1 | g)"``: those at their modes, the others drawn anew.
    newdata, allow_new_levels
        Rows to simulate instead of the fitted ones, and whether levels the fit lacks are
        allowed (a kept term gives them 0, a drawn one a new effect), as in ``predict``.

    Returns
    -------
    pandas.DataFrame
        Columns ``sim_1`` ... ``sim_<nsim>`` (R's names), rows as the data's. A binomial
        fit to ``cbind(k, n - k)`` gives the successes k (R's first column); to 0/1, 0/1;
        to proportions with weights, proportions.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats import lmer
    >>> from acceptability.stats.mixed.fitted.simulation import simulate
    >>> df = pd.DataFrame({"y": [1.0, 2.4, 2.9, 4.6, 5.1, 6.5, 6.9, 8.8], "x": [1, 2, 3, 4] * 2,
    ...                    "g": list("aabbccdd")})
    >>> sims = simulate(lmer("y ~ x + (1 | g)", df), nsim=3, seed=1)
    >>> list(sims.columns), sims.shape
    (['sim_1', 'sim_2', 'sim_3'], (8, 3))
    """
    nsim = check_count("nsim", nsim)
    rng = np.random.default_rng(check_seed(seed))
    sim = Simulator(m, re_form, newdata, allow_new_levels)
    draws = np.column_stack([sim.draw(rng) for _ in range(nsim)])
    if m._kind == "glmer" and m.design.trials is not None:  # cbind(k, n - k): the successes
        draws = np.round(draws * np.round(sim.weights)[:, None])
    return pd.DataFrame(draws, index=sim.data.index, columns=[f"sim_{i + 1}" for i in range(nsim)])
