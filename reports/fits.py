"""``Fits``: what the report keeps of fitted mixed models (``reports.analysis.fit_models``,
``reports.ratings.fits``)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd


@dataclass
class Fits:
    """Mixed-model fits, one per model: ``table`` has ``model, term, estimate, se,
    lower, upper`` (Wald 95%); ``summaries`` the lme4-style printouts."""

    formula: str
    table: pd.DataFrame
    summaries: dict[str, str]
    notes: list[str] = field(default_factory=list)
