"""Ready-made judgment models relating z-scored LM scores to human judgments.

- sentence level (ME): ``human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)``
- pair level (ME deltas, thesis 1.3.3): ``dh ~ dlm + (1 | phenomenon)``
- forced choice: a mixed logistic model of choosing the acceptable sentence on the model's
  z-scored delta, with crossed participant, item (pair) and paradigm effects
  (Baayen, Davidson & Bates 2008): by :func:`stats.glmer` (Laplace) or Bayesian by
  :func:`stats.brm`.

Frames are built with :func:`stats.sentence_frame` / :func:`stats.pair_deltas`; in them
``score`` / ``dlm`` are the z-scored model score / delta.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from acceptability.data.tables import validate_trials
from acceptability.stats.deltas import pair_deltas, sentence_frame
from acceptability.stats.mixed.lmm.lmer import glmer, lmer

__all__ = [
    "FC_FORMULA", "PAIR_FORMULA", "SENTENCE_FORMULA", "differing_pairs", "fc_model",
    "fc_model_frame", "pair_model", "pair_model_frame", "sentence_model", "sentence_model_frame",
]

SENTENCE_FORMULA = "human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)"
PAIR_FORMULA = "dh ~ dlm + (1 | phenomenon)"
FC_FORMULA = "chose_good ~ dlm + (1 | participant) + (1 | pair_id) + (1 | paradigm)"


def one_model(scores: pd.DataFrame, model: str | None) -> pd.DataFrame:
    """The rows of ``model`` in a long scores table (the only model when None); a table of
    several models without ``model``, or an unknown one, is a ValueError."""
    models = list(pd.unique(scores["model"]))
    if model is None:
        if len(models) != 1:
            raise ValueError(f"scores hold {len(models)} models {models}; pass model=<one of them>")
        model = models[0]
    if model not in models:
        raise KeyError(f"model {model!r} is not in the scores; they hold {models}")
    return scores[scores["model"] == model]


def sentence_model_frame(dataset, scores: pd.DataFrame, model: str | None = None) -> pd.DataFrame:
    """One row per sentence: ``human``, ``score`` (the model's z-score), ``raw_score``,
    ``phenomenon``, ``type_id``, ``sentence_id``, ``model``, then every other column of the
    sentences table (``dataset``, ``label``, the user's own such as ``translated``), so a
    formula can use them.

    Examples
    --------
    >>> from acceptability import data
    >>> from acceptability.stats import sentence_model_frame
    >>> ds, scores = data.load_example()
    >>> list(sentence_model_frame(ds, scores, model="trigram_slor").columns[:6])
    ['sentence_id', 'model', 'phenomenon', 'type_id', 'human', 'score']
    """
    fr = sentence_frame(dataset, one_model(scores, model))
    fr = fr.rename(columns={"score": "raw_score"}).rename(columns={"z": "score"})
    cols = ["sentence_id", "model", "phenomenon", "type_id", "human", "score", "raw_score"]
    cols += [c for c in dataset.sentences.columns if c not in cols]
    return fr[cols].reset_index(drop=True)


def pair_model_frame(dataset, scores: pd.DataFrame, model: str | None = None) -> pd.DataFrame:
    """One row per pair: ``pair_id``, ``model``, ``phenomenon``, ``dh``, ``dlm`` (human and
    z-score deltas, thesis 1.3.3), then every column of the pairs table and of
    :func:`stats.pair_deltas`, and the sentences' columns, so a formula can use them: each
    as ``<column>_good`` and ``<column>_bad`` (``human_good``, ``type_id_bad``, ...), and
    under its own name where the two sentences of every pair agree (`differing_pairs`
    finds none); a column of the pairs table keeps its name and its values.

    Examples
    --------
    >>> from acceptability import data, stats
    >>> frame = stats.pair_model_frame(*data.load_example(), model="trigram_slor")
    >>> list(frame.columns[:5])
    ['pair_id', 'model', 'phenomenon', 'dh', 'dlm']
    """
    d = pair_deltas(dataset, one_model(scores, model))
    s = dataset.sentences.set_index("sentence_id")
    extra: dict[str, pd.Series] = {}
    for col in s.columns:
        for side in ("good", "bad"):
            extra[f"{col}_{side}"] = d[f"{side}_id"].map(s[col])
        if differing_pairs(dataset, col).empty:
            extra[col] = extra[f"{col}_good"]
    d = d.assign(**{k: v for k, v in extra.items() if k not in d})
    first = ["pair_id", "model", "phenomenon", "dh", "dlm"]
    return d[first + [c for c in d.columns if c not in first]].reset_index(drop=True)


def differing_pairs(dataset, column: str) -> pd.Series:
    """The ``pair_id`` of each pair whose good and bad sentences differ in the sentences
    table's ``column`` (two missing values agree)."""
    values = dataset.sentences.set_index("sentence_id")[column]
    p = dataset.pairs
    good, bad = p["good_id"].map(values), p["bad_id"].map(values)
    return p.loc[(good != bad) & ~(good.isna() & bad.isna()), "pair_id"]


def fc_model_frame(
    dataset, scores: pd.DataFrame, model: str | None = None, trials: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per forced-choice trial: every column of the trials table, the pair's ``dlm``
    (z-scored model delta) and, where the table has ``good_position``, ``good_first``
    (1 when the acceptable sentence was shown first).

    ``trials`` defaults to ``dataset.trials`` (columns ``participant``, ``pair_id``,
    ``chose_good``, ``paradigm``); pairs the model did not score get ``dlm`` NaN.

    Examples
    --------
    Needs the reference data: BLiMP's raw forced-choice responses, in a dataset built
    with ``data.from_frames(sentences, pairs, trials=trials)`` (docs: Benchmarks).

    >>> from acceptability import data
    >>> from acceptability.stats import fc_model_frame
    >>> trials = data.load_blimp_trials()  # doctest: +SKIP
    >>> frame = fc_model_frame(ds, scores)  # doctest: +SKIP
    >>> len(frame) == len(trials), frame["dlm"].notna().all()  # doctest: +SKIP
    (True, True)
    """
    trials = dataset.trials if trials is None else trials
    if trials is None:
        raise ValueError("no forced-choice trials: the dataset has none; pass trials=")
    trials = validate_trials(trials, columns=("participant", "pair_id", "chose_good", "paradigm"))
    d = pair_model_frame(dataset, scores, model).set_index("pair_id")
    out = trials.copy()
    if "good_position" in out:
        out["good_first"] = (out["good_position"] == 1).astype(int)
    out["dlm"] = out["pair_id"].map(d["dlm"])
    out["model"] = d["model"].iloc[0] if len(d) else model
    return out.reset_index(drop=True)


def _fit(formula: str, frame: pd.DataFrame, engine: str, **kwargs: Any):
    if engine == "lmer":
        return lmer(formula, frame, **kwargs)
    if engine == "brm":
        from acceptability.stats.mixed.brm import brm

        return brm(formula, frame, **kwargs)
    raise ValueError(f"engine={engine!r}: use 'lmer' or 'brm'")


def sentence_model(dataset, scores: pd.DataFrame, model: str | None = None,
                   engine: str = "lmer", formula: str = SENTENCE_FORMULA, **kwargs: Any):
    """Sentence-level judgment model (default `SENTENCE_FORMULA`) by ``lmer`` or ``brm``.

    Examples
    --------
    The bundled example has too few sentences per phenomenon for the default random
    slopes; a random intercept per phenomenon fits:

    >>> from acceptability import data
    >>> from acceptability.stats import sentence_model
    >>> ds, scores = data.load_example()
    >>> m = sentence_model(ds, scores, model="bert-large-cased_mlm",
    ...                    formula="human ~ score + (1 | phenomenon)")
    >>> print(m.fixef.round(3).to_string())
    (Intercept)    0.263
    score          0.092
    """
    return _fit(formula, sentence_model_frame(dataset, scores, model), engine, **kwargs)


def pair_model(dataset, scores: pd.DataFrame, model: str | None = None,
               engine: str = "lmer", formula: str = PAIR_FORMULA, **kwargs: Any):
    """Pair-level model of human deltas on model deltas (default `PAIR_FORMULA`).

    Examples
    --------
    >>> import warnings
    >>> from acceptability import data
    >>> from acceptability.stats import pair_model
    >>> ds, scores = data.load_example()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     m = pair_model(ds, scores, model="bert-large-cased_mlm")
    >>> list(m.fixef.index)
    ['(Intercept)', 'dlm']
    """
    return _fit(formula, pair_model_frame(dataset, scores, model), engine, **kwargs)


def fc_model(dataset, scores: pd.DataFrame, model: str | None = None,
             trials: pd.DataFrame | None = None, formula: str = FC_FORMULA,
             engine: str = "glmer", **kwargs: Any):
    """Mixed logistic model of forced choices (default `FC_FORMULA`, crossed
    participant, pair and paradigm intercepts; any column of `fc_model_frame`, e.g.
    ``good_first``, may enter the formula): ``engine="glmer"`` (Laplace, lme4's estimator)
    or ``"brm"`` (Bayesian, family bernoulli).

    Examples
    --------
    Needs the reference data: BLiMP's forced-choice trials in a dataset with its scores
    (``ds, scores``, as for `fc_model_frame`); with every trial:

    >>> from acceptability.stats import fc_model
    >>> fit = fc_model(ds, scores)  # doctest: +SKIP
    >>> dict(fit.ngrps)  # doctest: +SKIP
    {'pair_id': 348, 'participant': 341, 'paradigm': 70}
    """
    frame = fc_model_frame(dataset, scores, model, trials)
    if engine == "glmer":
        return glmer(formula, frame, family="binomial", **kwargs)
    if engine == "brm":
        from acceptability.stats.mixed.brm import brm

        return brm(formula, frame, family="bernoulli", **kwargs)
    raise ValueError(f"engine={engine!r}: use 'glmer' or 'brm'")
