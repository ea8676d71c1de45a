"""Ready-made judgment models relating z-scored LM scores to human judgments.

- sentence level (ME): ``human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)``
- pair level (ME deltas, thesis 1.3.3): ``dh ~ dlm + (1 | phenomenon)``
- forced choice: a mixed logistic model of choosing the acceptable sentence on the model's
  z-scored delta, with participant and paradigm effects (crossed: Bayesian via
  :func:`stats.brm`, or statsmodels' variational ``BinomialBayesMixedGLM`` as a fast
  alternative).

Frames are built with :func:`stats.sentence_frame` / :func:`stats.pair_deltas`; in them
``score`` / ``dlm`` are the z-scored model score / delta.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from .deltas import pair_deltas, sentence_frame
from .formula import parse_formula
from .lmer import lmer, prepare_frame

__all__ = [
    "FCVBResult", "FC_FORMULA", "PAIR_FORMULA", "SENTENCE_FORMULA", "fc_model", "fc_model_frame",
    "fc_model_vb", "pair_model", "pair_model_frame", "sentence_model", "sentence_model_frame",
]

SENTENCE_FORMULA = "human ~ score + (1 + score | phenomenon) + (1 | phenomenon:type_id)"
PAIR_FORMULA = "dh ~ dlm + (1 | phenomenon)"
FC_FORMULA = "chose_good ~ dlm + (1 | participant) + (1 | paradigm)"


def _one_model(scores: pd.DataFrame, model: str | None) -> pd.DataFrame:
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
    ``phenomenon``, ``type_id``, ``sentence_id``, ``model``."""
    fr = sentence_frame(dataset, _one_model(scores, model))
    fr = fr.rename(columns={"score": "raw_score"}).rename(columns={"z": "score"})
    cols = ["sentence_id", "model", "phenomenon", "type_id", "human", "score", "raw_score"]
    return fr[cols].reset_index(drop=True)


def pair_model_frame(dataset, scores: pd.DataFrame, model: str | None = None) -> pd.DataFrame:
    """One row per pair: ``dh``, ``dlm`` (z-score delta), ``phenomenon``, ``pair_id``, ``model``."""
    d = pair_deltas(dataset, _one_model(scores, model))
    return d[["pair_id", "model", "phenomenon", "dh", "dlm"]].reset_index(drop=True)


def fc_model_frame(
    dataset, scores: pd.DataFrame, model: str | None = None, trials: pd.DataFrame | None = None
) -> pd.DataFrame:
    """One row per forced-choice trial with the pair's ``dlm`` (z-scored model delta).

    ``trials`` defaults to ``dataset.trials`` (columns ``participant``, ``pair_id``,
    ``chose_good``, ``paradigm``); pairs the model did not score get ``dlm`` NaN.
    """
    trials = dataset.trials if trials is None else trials
    if trials is None:
        raise ValueError("no forced-choice trials: the dataset has none; pass trials=")
    missing = [c for c in ("participant", "pair_id", "chose_good", "paradigm") if c not in trials]
    if missing:
        raise KeyError(f"trials table lacks column(s) {missing}")
    d = pair_model_frame(dataset, scores, model).set_index("pair_id")
    out = trials[["participant", "pair_id", "paradigm", "chose_good"]].copy()
    out["dlm"] = out["pair_id"].map(d["dlm"])
    out["model"] = d["model"].iloc[0] if len(d) else model
    return out.reset_index(drop=True)


def _fit(formula: str, frame: pd.DataFrame, engine: str, **kwargs: Any):
    if engine == "lmer":
        return lmer(formula, frame, **kwargs)
    if engine == "brm":
        from .brm import brm

        return brm(formula, frame, **kwargs)
    raise ValueError(f"engine={engine!r}: use 'lmer' or 'brm'")


def sentence_model(dataset, scores: pd.DataFrame, model: str | None = None,
                   engine: str = "lmer", formula: str = SENTENCE_FORMULA, **kwargs: Any):
    """Sentence-level judgment model (default :data:`SENTENCE_FORMULA`) by ``lmer`` or ``brm``."""
    return _fit(formula, sentence_model_frame(dataset, scores, model), engine, **kwargs)


def pair_model(dataset, scores: pd.DataFrame, model: str | None = None,
               engine: str = "lmer", formula: str = PAIR_FORMULA, **kwargs: Any):
    """Pair-level model of human deltas on model deltas (default :data:`PAIR_FORMULA`)."""
    return _fit(formula, pair_model_frame(dataset, scores, model), engine, **kwargs)


def fc_model(dataset, scores: pd.DataFrame, model: str | None = None,
             trials: pd.DataFrame | None = None, formula: str = FC_FORMULA, **kwargs: Any):
    """Bayesian mixed logistic model of forced choices (``brm``, family bernoulli)."""
    from .brm import brm

    frame = fc_model_frame(dataset, scores, model, trials)
    return brm(formula, frame, family="bernoulli", **kwargs)


@dataclass
class FCVBResult:
    """A variational forced-choice fit: the statsmodels result, its frame, rows dropped."""

    result: Any
    frame: pd.DataFrame
    n_dropped: int

    @property
    def fixef(self) -> pd.Series:
        """Posterior means of the fixed effects (logit scale)."""
        return pd.Series(self.result.fe_mean, index=self.result.model.exog_names)

    @property
    def fixef_sd(self) -> pd.Series:
        return pd.Series(self.result.fe_sd, index=self.result.model.exog_names)

    def summary(self) -> str:
        return str(self.result.summary())


def fc_model_vb(dataset, scores: pd.DataFrame, model: str | None = None,
                trials: pd.DataFrame | None = None, formula: str = FC_FORMULA) -> FCVBResult:
    """Fast variational alternative to :func:`fc_model`: statsmodels
    ``BinomialBayesMixedGLM.fit_vb`` with one variance component per random intercept
    (crossed intercepts allowed; no random slopes)."""
    from statsmodels.genmod.bayes_mixed_glm import BinomialBayesMixedGLM

    parsed = parse_formula(formula)
    frame, n_dropped = prepare_frame(parsed, fc_model_frame(dataset, scores, model, trials))
    vc = {}
    for term in parsed.random:
        if term.slopes:
            raise ValueError(f"fc_model_vb fits random intercepts only; drop {term} or use fc_model")
        key = "_vc_" + "_".join(term.factors)
        frame[key] = frame[list(term.factors)].astype(str).agg(":".join, axis=1)
        vc[term.group] = f"0 + C({key})"
    model = BinomialBayesMixedGLM.from_formula(parsed.fixed_formula, vc, frame)
    return FCVBResult(model.fit_vb(), frame, n_dropped)
