"""Within-type variability (Vázquez Martínez et al. 2023, seed 004 section on LI-Adger).

A sentence type's 8 lexical variants should get similar acceptability; the SD (ddof=1)
of the z-scores within a type, averaged over types, measures how much a model's scores
move with lexical content. Humans: 0.288 on LI-Adger.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from acceptability.stats import metrics
from acceptability.stats.deltas import sentence_frame


@dataclass
class Variability:
    """``types``: per (source, type) mean, SD and n; ``summary``: one row per model and a
    ``human`` row (mean of the type SDs); ``mean_corr``/``sd_corr``: correlation
    matrices of type means and of type SDs across human and models (seed 004 fig. 2)."""

    types: pd.DataFrame
    summary: pd.DataFrame
    mean_corr: pd.DataFrame
    sd_corr: pd.DataFrame

    def __repr__(self) -> str:
        return "Within-type variability (mean SD of z within types)\n" + self.summary.to_string(
            index=False)


def _per_type(values: pd.DataFrame, source_col: str, value_col: str) -> pd.DataFrame:
    kept = values.dropna(subset=[value_col])
    g = kept.groupby([source_col, "type_id"], sort=False)[value_col]
    out = g.agg(mean="mean", n="size").reset_index()
    out.insert(len(out.columns) - 1, "sd", metrics.type_sds(
        kept[value_col].to_numpy(float), g.ngroup().to_numpy(), len(out)))
    return out


def _corr(wide: pd.DataFrame) -> pd.DataFrame:
    """Pearson r of the columns (``metrics.pearson_matrix``: pairwise complete)."""
    r = metrics.pearson_matrix(wide.to_numpy(float).T)
    return pd.DataFrame(r, index=wide.columns, columns=wide.columns)


def variability(dataset, scores: pd.DataFrame) -> Variability:
    """Per-type mean and SD of z-scored model scores and of human judgments (used as
    given: already mean z-scores), their summary, and the cross-source correlations."""
    f = sentence_frame(dataset, scores)
    human = dataset.sentences.assign(model="human", z=dataset.sentences["human"])
    long = pd.concat([human[["model", "type_id", "z"]], f[["model", "type_id", "z"]]])
    types = _per_type(long, "model", "z").rename(columns={"model": "source"})
    summary = types.groupby("source", sort=False).agg(
        variability=("sd", "mean"), n_types=("sd", "count"),
        n_types_excluded=("sd", lambda s: int(s.isna().sum())),
    ).reset_index()
    wide_mean = types.pivot(index="type_id", columns="source", values="mean")
    wide_sd = types.pivot(index="type_id", columns="source", values="sd")
    order = list(summary["source"])
    return Variability(types=types, summary=summary,
                       mean_corr=_corr(wide_mean[order]), sd_corr=_corr(wide_sd[order]))
