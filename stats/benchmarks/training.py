"""Statistics of training experiments: fine-tuning restarts with degenerate runs removed
(thesis §2.2, Table 2.1; Warstadt & Bowman 2019), MCC by grammatical feature of the CoLA
analysis sets (thesis Figs 2-1/2-2), the training-order experiment's flipping predictions
(thesis §2.3, Fig 2-3) and learning-curve slopes per doubling of the training data (BLiMP
§6.3, Fig 5).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from acceptability.data.errors import DataError
from acceptability.data.tables import require_columns
from acceptability.stats.arguments import check_ci
from acceptability.stats.metrics import mcc

PREDICTION_COLUMNS = ["run", "split", "sentence_id", "label", "prediction"]
# Columns of a sentences table that are not grammatical features (CoLA analysis sets).
NOT_FEATURES = {"sentence_id", "text", "label", "phenomenon", "dataset", "type_id", "item",
                "human", "marginal", "label_raw", "Domain", "Source"}


def _mcc(pred: pd.Series, label: pd.Series) -> float:
    return float(mcc(pred.to_numpy(float), label.to_numpy(float)))


def degenerate(predictions: pd.DataFrame, split: str | None = None) -> pd.Series:
    """Which fine-tuning restarts are degenerate: predictions of one class only.

    The restarts Warstadt & Bowman (2019) and thesis §2.2 discard (their MCC is 0).

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``run``, ``split``, ``sentence_id``, ``label``, ``prediction`` (0/1).
    split : str, optional
        Judge the runs on this split only; by default on all their predictions.

    Returns
    -------
    pandas.Series
        True for each degenerate run, indexed by ``run``.

    Raises
    ------
    DataError
        If a column is missing or ``split`` has no predictions.

    Examples
    --------
    Run ``r1`` calls every sentence acceptable:

    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import degenerate
    >>> predictions = pd.DataFrame({"run": ["r0"] * 3 + ["r1"] * 3, "split": "dev",
    ...     "sentence_id": ["s0", "s1", "s2"] * 2, "label": [1, 0, 1] * 2,
    ...     "prediction": [1, 0, 0, 1, 1, 1]})
    >>> degenerate(predictions).to_dict()
    {'r0': False, 'r1': True}
    """
    require_columns(predictions, PREDICTION_COLUMNS, "predictions")
    rows = predictions if split is None else predictions[predictions["split"] == split]
    if rows.empty:
        raise DataError(f"no predictions on split {split!r}",
                        fix=f"use one of {sorted(predictions['split'].unique())}")
    return rows.groupby("run", sort=False)["prediction"].nunique() < 2


def restart_summary(predictions: pd.DataFrame, select_on: str) -> pd.DataFrame:
    """MCC over fine-tuning restarts, degenerate runs left out (thesis Table 2.1).

    Per split: MCC ``mean``, ``sd`` (ddof 1) and ``max`` over the non-degenerate runs
    ([degenerate][acceptability.stats.benchmarks.training.degenerate] on `select_on`),
    ``ensemble`` (the majority vote of those runs per sentence; a tie votes acceptable,
    1) and ``selected`` (the run with the best MCC on `select_on`; the first on ties).

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``run``, ``split``, ``sentence_id``, ``label``, ``prediction`` (0/1).
    select_on : str
        The split that selects a run (e.g. ``"dev"``).

    Returns
    -------
    pandas.DataFrame
        One row per split: ``split``, ``n_runs``, ``n_degenerate``, ``mean``, ``sd``,
        ``max``, ``ensemble``, ``selected``. ``attrs``: ``selected_run``,
        ``degenerate_runs``.

    Raises
    ------
    DataError
        If a column is missing, `select_on` has no predictions or every run is degenerate.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import restart_summary
    >>> predictions = pd.DataFrame({"run": ["r0"] * 4 + ["r1"] * 4 + ["r2"] * 4,
    ...     "split": "dev", "sentence_id": ["s0", "s1", "s2", "s3"] * 3,
    ...     "label": [1, 1, 0, 0] * 3, "prediction": [1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0]})
    >>> table = restart_summary(predictions, select_on="dev")
    >>> print(table.round(3).to_string(index=False))
    split  n_runs  n_degenerate  mean    sd  max  ensemble  selected
      dev       2             1 0.789 0.299  1.0     0.577       1.0
    >>> table.attrs["selected_run"], table.attrs["degenerate_runs"]
    ('r2', ['r1'])
    """
    bad = degenerate(predictions, select_on)
    kept = predictions[~predictions["run"].map(bad)]
    if kept.empty:
        raise DataError(f"all {len(bad)} runs are degenerate (one class on {select_on!r})",
                        fix="train more restarts or use another learning rate or more epochs")
    runs = list(dict.fromkeys(kept["run"]))
    per_run = kept.groupby(["split", "run"], sort=False).apply(
        lambda g: _mcc(g["prediction"], g["label"]), include_groups=False).unstack("run")[runs]
    best = per_run.loc[select_on].idxmax()
    rows = []
    for split, scores in per_run.iterrows():
        part = kept[kept["split"] == split]
        votes = part.groupby("sentence_id", sort=False).agg(
            share=("prediction", "mean"), label=("label", "first"))
        rows.append({"split": split, "n_runs": len(runs), "n_degenerate": int(bad.sum()),
                     "mean": scores.mean(), "sd": scores.std(ddof=1), "max": scores.max(),
                     "ensemble": _mcc((votes["share"] >= 0.5).astype(int), votes["label"]),
                     "selected": scores[best]})
    out = pd.DataFrame(rows)
    out.attrs["selected_run"] = best
    out.attrs["degenerate_runs"] = [r for r in bad.index if bad[r]]
    return out


def feature_mcc(predictions: pd.DataFrame, features: pd.DataFrame) -> pd.DataFrame:
    """MCC of each run on the sentences that have each grammatical feature (thesis Figs
    2-1/2-2; Warstadt & Bowman 2019, Figs 1-2).

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``run``, ``split``, ``sentence_id``, ``label``, ``prediction`` (0/1).
    features : pandas.DataFrame
        A sentences table whose 0/1 numeric columns other than the standard ones are
        features (CoLA's analysis sets, ``data.load_cola(split="analysis_major")``).

    Returns
    -------
    pandas.DataFrame
        ``run``, ``feature``, ``n`` (sentences with the feature), ``mcc``
        ([mcc][acceptability.stats.metrics.mcc]; NaN for fewer than 3 sentences or
        constant labels).

    Raises
    ------
    DataError
        If a column is missing or ``features`` has no 0/1 feature column.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import feature_mcc
    >>> ids = [f"s{i}" for i in range(6)]
    >>> predictions = pd.DataFrame({"run": "r0", "split": "dev", "sentence_id": ids,
    ...     "label": [1, 1, 0, 1, 0, 0], "prediction": [1, 0, 0, 1, 1, 0]})
    >>> features = pd.DataFrame({"sentence_id": ids, "passive": [1, 1, 1, 0, 0, 0],
    ...                          "question": [0, 1, 1, 1, 1, 1]})
    >>> print(feature_mcc(predictions, features).round(3).to_string(index=False))
    run  feature  n   mcc
     r0  passive  3 0.500
     r0 question  5 0.167
    """
    require_columns(predictions, PREDICTION_COLUMNS, "predictions")
    require_columns(features, ["sentence_id"], "features")
    names = [c for c in features.columns if c not in NOT_FEATURES
             and pd.api.types.is_numeric_dtype(features[c])
             and set(features[c].dropna().unique()) <= {0, 1}]
    if not names:
        raise DataError("the features table has no 0/1 feature columns",
                        fix="pass a CoLA analysis set (data.load_cola(split='analysis_major'))")
    table = features.set_index("sentence_id")[names]
    rows = []
    for run, part in predictions.groupby("run", sort=False):
        has = table.reindex(part["sentence_id"]).to_numpy() == 1
        for j, name in enumerate(names):
            sub = part[has[:, j]]
            rows.append({"run": run, "feature": name, "n": len(sub),
                         "mcc": _mcc(sub["prediction"], sub["label"]) if len(sub) else np.nan})
    return pd.DataFrame(rows)


def _wide(predictions: pd.DataFrame) -> pd.DataFrame:
    """Predictions as sentence x shuffle, every shuffle covering the same sentences."""
    require_columns(predictions, ["shuffle", "sentence_id", "label", "prediction"],
                    "predictions")
    counts = predictions.groupby("shuffle")["sentence_id"].nunique()
    wide = predictions.pivot(index="sentence_id", columns="shuffle", values="prediction")
    missing = wide.isna().sum()
    if missing.any():
        k = missing.idxmax()
        raise DataError(f"shuffle {k} predicts {counts[k]} of the {len(wide)} sentences",
                        fix="every shuffle must predict the same sentences")
    return wide.sort_index(axis=1)


def flip_curve(predictions: pd.DataFrame) -> pd.DataFrame:
    """Acrobatic sentences after each training order (thesis §2.3, Fig 2-3).

    After each of the K training orders (in ``shuffle`` order): how many sentences are
    "acrobatic" (their predicted label changed between consecutive orders at least once
    so far), that as a percent of all sentences and its complement (the "unathletic"),
    this order's MCC and accuracy against the labels (unlabelled sentences left out) and
    the majority-class accuracy.

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``shuffle``, ``sentence_id``, ``label``, ``prediction`` (0/1); every shuffle
        predicts the same sentences.

    Returns
    -------
    pandas.DataFrame
        One row per shuffle: ``shuffle``, ``n_shuffles``, ``acrobatic``,
        ``acrobatic_pct``, ``unathletic_pct``, ``mcc``, ``accuracy``,
        ``majority_accuracy``.

    Raises
    ------
    DataError
        If a column is missing or the shuffles predict different sentences.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import flip_curve
    >>> predictions = pd.DataFrame({"shuffle": [0] * 4 + [1] * 4 + [2] * 4,
    ...     "sentence_id": ["s0", "s1", "s2", "s3"] * 3, "label": [1, 1, 0, 0] * 3,
    ...     "prediction": [1, 1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0]})
    >>> curve = flip_curve(predictions)
    >>> print(curve[["shuffle", "acrobatic", "acrobatic_pct", "mcc", "accuracy"]].round(3)
    ...       .to_string(index=False))
     shuffle  acrobatic  acrobatic_pct   mcc  accuracy
           0          0            0.0 0.577      0.75
           1          1           25.0 0.000      0.50
           2          2           50.0 1.000      1.00
    """
    wide = _wide(predictions)
    labels = predictions.groupby("sentence_id")["label"].first().reindex(wide.index)
    changed = (wide.diff(axis=1).fillna(0) != 0).cummax(axis=1)
    known = labels.notna()
    share = labels[known].mean()
    majority = max(share, 1 - share)
    acrobatic = changed.sum()
    return pd.DataFrame({
        "shuffle": wide.columns, "n_shuffles": np.arange(1, wide.shape[1] + 1),
        "acrobatic": acrobatic.to_numpy(int),
        "acrobatic_pct": 100 * acrobatic.to_numpy(float) / len(wide),
        "unathletic_pct": 100 - 100 * acrobatic.to_numpy(float) / len(wide),
        "mcc": [_mcc(wide[k], labels) for k in wide.columns],
        "accuracy": [float((wide.loc[known, k] == labels[known]).mean()) for k in wide.columns],
        "majority_accuracy": majority})


def acrobatic_sentences(predictions: pd.DataFrame) -> pd.DataFrame:
    """Per sentence, how often its prediction flips across training orders (thesis §2.3).

    Parameters
    ----------
    predictions : pandas.DataFrame
        The 0/1 ``prediction`` of each (``shuffle``, ``sentence_id``) and the ``label``,
        as for [flip_curve][acceptability.stats.benchmarks.training.flip_curve].

    Returns
    -------
    pandas.DataFrame
        ``sentence_id``, ``label``, ``n_flips`` (label changes between consecutive
        training orders), ``share_acceptable`` (mean prediction) and ``acrobatic`` (any
        flip).

    Raises
    ------
    DataError
        If the table lacks a column, or a shuffle misses a sentence another predicts.

    Examples
    --------
    Sentence ``b`` flips at every new training order:

    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import acrobatic_sentences
    >>> predictions = pd.DataFrame({"shuffle": [1, 1, 2, 2, 3, 3, 4, 4],
    ...     "sentence_id": ["a", "b"] * 4, "label": [1, 0] * 4,
    ...     "prediction": [1, 0, 1, 1, 1, 0, 1, 1]})
    >>> print(acrobatic_sentences(predictions).to_string(index=False))
    sentence_id  label  n_flips  share_acceptable  acrobatic
              a      1        0               1.0      False
              b      0        3               0.5       True
    """
    wide = _wide(predictions)
    labels = predictions.groupby("sentence_id")["label"].first().reindex(wide.index)
    flips = (wide.diff(axis=1).iloc[:, 1:] != 0).sum(axis=1)
    return pd.DataFrame({"sentence_id": wide.index, "label": labels.to_numpy(),
                         "n_flips": flips.to_numpy(int),
                         "share_acceptable": wide.mean(axis=1).to_numpy(),
                         "acrobatic": flips.to_numpy() > 0}).reset_index(drop=True)


def learning_slopes(curve: pd.DataFrame, size: str = "n_tokens", level: float = 0.95,
                    value: str = "accuracy") -> pd.DataFrame:
    """Learning-curve slopes per doubling of the training data (BLiMP §6.3, Fig 5).

    Per phenomenon, the OLS slope of `value` on log2(`size`) with a two-sided t interval
    (n - 2 df), by ``scipy.stats.linregress``; ``overall`` fits the mean over phenomena at
    each size (and ``replicate``, if present): Fig 5's grey line.

    Parameters
    ----------
    curve : pandas.DataFrame
        ``phenomenon``, `size`, `value` (and optionally ``replicate``), one row per point.
    size : str
        The column of training sizes, positive.
    level : float
        Confidence level of the interval.
    value : str
        The column of the curve's values.

    Returns
    -------
    pandas.DataFrame
        ``phenomenon, n_points, slope, se, lower, upper, intercept, r2``, ``overall``
        last.

    Raises
    ------
    DataError
        If a column is missing, a size is not positive, or a phenomenon has fewer than 3
        sizes.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import learning_slopes
    >>> curve = pd.DataFrame({"phenomenon": ["agreement"] * 3 + ["islands"] * 3,
    ...     "n_tokens": [1e6, 2e6, 4e6] * 2, "accuracy": [0.6, 0.7, 0.8, 0.5, 0.52, 0.57]})
    >>> slopes = learning_slopes(curve)
    >>> print(slopes[["phenomenon", "n_points", "slope", "lower", "upper"]].round(3)
    ...       .to_string(index=False))
    phenomenon  n_points  slope  lower  upper
     agreement         3  0.100  0.100  0.100
       islands         3  0.035 -0.075  0.145
       overall         3  0.068  0.012  0.123
    """
    level = check_ci(level, "level")
    require_columns(curve, [size, "phenomenon", value], "learning curve")
    if (curve[size] <= 0).any():
        raise DataError(f"training sizes ({size}) must be positive", fix="drop size 0 rows")
    keys = [size] + (["replicate"] if "replicate" in curve else [])
    overall = curve.groupby(keys, as_index=False)[value].mean().assign(phenomenon="overall")
    rows = []
    for phen, part in pd.concat([curve, overall]).groupby("phenomenon", sort=False):
        if part[size].nunique() < 3:
            raise DataError(f"phenomenon {phen!r} has {part[size].nunique()} training sizes",
                            fix="a slope with an interval needs 3 or more sizes")
        x, y = np.log2(part[size].to_numpy(float)), part[value].to_numpy(float)
        fit = sps.linregress(x, y)
        # a flat line (e.g. chance everywhere) fits exactly: se 0, where linregress gives NaN
        se = 0.0 if np.ptp(y) == 0 else fit.stderr
        half = sps.t.ppf(0.5 + level / 2, len(part) - 2) * se
        rows.append({"phenomenon": phen, "n_points": len(part), "slope": fit.slope,
                     "se": se, "lower": fit.slope - half, "upper": fit.slope + half,
                     "intercept": fit.intercept, "r2": fit.rvalue ** 2})
    return pd.DataFrame(rows)
