"""Within-type variability (Vázquez Martínez et al. 2023, seed 004 section on LI-Adger).

A sentence type's 8 lexical variants should get similar acceptability; the SD (ddof=1)
of the z-scores within a type, averaged over types, measures how much a model's scores
move with lexical content. Humans: 0.288 on LI-Adger.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.stats import metrics
from acceptability.stats.deltas import sentence_frame


@dataclass
class Variability:
    """The result of [variability][acceptability.stats.variability.variability]
    (Vázquez Martínez et al. 2023, seed 004 fig. 2).

    Its ``repr`` prints ``summary``.

    Attributes
    ----------
    types : pandas.DataFrame
        Per (``source``, ``type_id``): ``mean``, ``sd`` (ddof=1, NaN under two values)
        and ``n``; ``source`` is ``human`` or a model.
    summary : pandas.DataFrame
        One row per source, ``human`` first: ``variability`` (the mean of the type SDs),
        ``n_types`` (with an SD) and ``n_types_excluded``.
    mean_corr, sd_corr : pandas.DataFrame
        Pearson correlation matrices of the type means and of the type SDs across human
        and models (pairwise complete).

    Examples
    --------
    >>> from acceptability.stats import variability
    >>> from acceptability.data import load_example
    >>> result = variability(*load_example())
    >>> sorted(result.types["source"].unique()) == sorted(result.summary["source"])
    True
    >>> round(float(result.summary.set_index("source").loc["human", "variability"]), 3)
    0.372
    """

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


def variability(dataset: Dataset, scores: pd.DataFrame) -> Variability:
    """Within-type variability of model scores and human judgments (Vázquez Martínez et
    al. 2023, seed 004, LI-Adger).

    Per sentence type, the mean and SD (ddof=1) of the z-scored model scores and of the
    human judgments (used as given: already mean z-scores); their summary, the mean SD
    over types (as [type_sd_mean][acceptability.stats.metrics.type_sd_mean]); and the
    correlations across sources of the type means and of the type SDs.

    Parameters
    ----------
    dataset : Dataset
        Sentences with ``type_id`` and ``human``.
    scores : pandas.DataFrame
        Model scores of those sentences (z-scored per model here).

    Returns
    -------
    Variability
        ``types``, ``summary``, ``mean_corr`` and ``sd_corr``.

    Raises
    ------
    DataError
        If ``scores`` fails validation (a missing column, an unknown sentence).

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.stats import variability
    >>> dataset, scores = load_example()
    >>> variability(dataset, scores)
    Within-type variability (mean SD of z within types)
                  source  variability  n_types  n_types_excluded
                   human     0.371539        5                29
    bert-large-cased_mlm     0.467449        3                26
    bert-large-cased_acc     1.501111        2                36
            trigram_slor          NaN        0                16
    """
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
