"""What every fitted mixed model shares, whichever engine fitted it: the base class of
``LmerResult``, ``GlmerResult`` and ``BrmResult`` and the type ``summary()`` returns.

The base reads the engine's [FittedParameters][acceptability.stats.mixed.engines.protocol.FittedParameters]
record: ``fixef``, ``vcov``, ``se`` and Wald intervals (``confint``) are the same code for
all three; ``summary``, ``predict`` and ``anova`` are each model's own (lme4's
``summary.merMod``, ``predict.merMod`` and ``anova.merMod``; brms' ``summary.brmsfit``,
``posterior_epred`` and ``loo_compare``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.stats.arguments import check_ci
from acceptability.stats.mixed.design import MixedDesign
from acceptability.stats.mixed.engines.protocol import FittedParameters
from acceptability.stats.mixed.formula import Formula

__all__ = ["MixedResult", "Summary"]


class Summary:
    """A fit's summary: ``print`` shows it as R prints it (lme4's ``summary.merMod`` with
    lmerTest's tests, or brms' ``summary.brmsfit``); ``tables`` holds its parts as
    DataFrames (``coefficients`` for every model).
    """

    def __init__(self, text: str, tables: dict[str, pd.DataFrame]) -> None:
        self.text = text
        self.tables = tables

    @property
    def coefficients(self) -> pd.DataFrame:
        """The fixed effects' table (estimates, errors, tests or posterior summaries)."""
        return self.tables["coefficients"]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text

    def __contains__(self, item: object) -> bool:
        """Whether the printed summary contains the text ``item``."""
        return isinstance(item, str) and item in self.text


class FittedRows:
    """What every fitted model reads from its design (``design.formula``, ``.frame``, ``.n``,
    ``.n_dropped``): mixed and ordinal results alike."""

    @property
    def formula(self) -> Formula:
        return self.design.formula

    @property
    def frame(self) -> pd.DataFrame:
        """The rows fitted (complete in the formula's columns)."""
        return self.design.frame

    @property
    def nobs(self) -> int:
        """Number of observations fitted."""
        return self.design.n

    @property
    def n_dropped(self) -> int:
        """Rows of the data left out for missing values (lme4 and ordinal drop them:
        ``na.action = na.omit``)."""
        return self.design.n_dropped


@dataclass(repr=False)
class MixedResult(FittedRows):
    """A fitted mixed model: its design, the engine's record and what is derived from
    them the same way for every engine."""

    design: MixedDesign
    parameters: FittedParameters
    quiet: bool = False
    notes: list[str] = field(default_factory=list)

    # --- engine ----------------------------------------------------------------------
    @property
    def engine(self) -> str:
        """The engine that fitted the model, with its version."""
        return self.parameters.engine

    @property
    def converged(self) -> bool:
        """Whether the optimiser reported convergence (a sampler: no divergent
        transitions)."""
        return self.parameters.converged

    # --- fixed effects ----------------------------------------------------------------
    @property
    def _xnames(self) -> list[str]:
        return self.design.xnames if self.parameters.xnames is None else self.parameters.xnames

    @property
    def fixef(self) -> pd.Series:
        """Fixed-effect estimates (lme4 ``fixef``; a posterior's means)."""
        return pd.Series(self.parameters.beta, index=self._xnames, dtype=float)

    @property
    def vcov(self) -> pd.DataFrame:
        """Covariance of the fixed effects (lme4 ``vcov``; a posterior's covariance)."""
        return pd.DataFrame(self.parameters.vcov, index=self._xnames, columns=self._xnames)

    @property
    def se(self) -> pd.Series:
        """Standard errors of the fixed effects (posterior SDs)."""
        return pd.Series(np.sqrt(np.diag(self.vcov)), index=self.fixef.index)

    def _wald(self, level: float) -> pd.DataFrame:
        """Wald intervals of the fixed effects, columns named as lme4 names them."""
        lo, hi = (1 - level) / 2, (1 + level) / 2
        z = sps.norm.ppf(hi)
        fe = np.column_stack([self.fixef - z * self.se, self.fixef + z * self.se])
        return pd.DataFrame(fe, index=self.fixef.index,
                            columns=[f"{100 * lo:.1f} %", f"{100 * hi:.1f} %"])

    def confint(self, level: float = 0.95, method: str = "Wald") -> pd.DataFrame:
        """Confidence (credible) intervals; the base gives Wald intervals of the fixed
        effects, each model adds its own methods."""
        check_ci(level, "level")
        if method != "Wald":
            raise ValueError(f"confint method {method!r}: use 'Wald'")
        return self._wald(level)

    # --- each model's own -------------------------------------------------------------
    def summary(self) -> Summary:
        """The fit printed as R prints it, with its tables."""
        raise NotImplementedError

    def predict(self, newdata: pd.DataFrame | None = None, **kwargs: Any) -> pd.Series:
        """Predictions for the fitted rows or ``newdata``."""
        raise NotImplementedError

    def anova(self, *others: MixedResult, **kwargs: Any) -> pd.DataFrame:
        """Comparison with other fits of the same rows."""
        raise NotImplementedError
