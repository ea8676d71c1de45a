"""Trial-level judgment models of a rating data set, one pair of fits per language model:
``lmer`` on the ratings normed within participants and, where the scale is ordinal,
``clmm`` on the raw responses (``stats.rating_model``; the formulas there)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from acceptability import stats
from acceptability.data.errors import DataError
from acceptability.data.ratings import rating_scale
from acceptability.reports.fits import Fits

TRIAL_LEVEL = "trial-level"  # the formula setting that means stats.rating_model's defaults
TRIAL_RESPONSES = ("response_z", "response")  # a formula of these is fitted to each rating
LEVELS = ("auto", "trial", "sentence")  # Experiment.level; --level (reports.cli.choices)
ENGINES = {"lmer": "normed ratings (lmer)", "clmm": "raw ordinal ratings (clmm)"}


# What each column of stats.rating_model_frame that a formula may use is, for the report
COLUMNS = {"response_z": "the rating z-scored within its participant, or over all ratings "
                         "where they name none",
           "response": "the rating as given", "lm_z": "the model's z-score of the rated sentence",
           "condition": "+0.5 for a pair's good sentence, -0.5 for its bad one",
           "item": "the sentence", "pair_id": "the pair", "participant": "the rater"}


def legend(formula: str) -> str:
    """What the columns of ``stats.rating_model_frame`` in ``formula`` are.

    Examples
    --------
    >>> from acceptability.reports.ratings.fits import legend
    >>> for part in legend("response ~ condition + (1 + condition | pair_id)").split("; "):
    ...     print(part)
    response = the rating as given
    condition = +0.5 for a pair's good sentence, -0.5 for its bad one
    pair_id = the pair
    """
    used = [c for c in COLUMNS if re.search(rf"(?<![\w.]){c}(?![\w.])", formula)]
    return "; ".join(f"{c} = {COLUMNS[c]}" for c in used)


def is_trial_formula(formula: str | None) -> bool:
    """Whether ``formula`` models each rating: ``"trial-level"`` (the defaults) or a
    formula whose response is ``response_z`` or ``response`` (``stats.rating_model_frame``'s
    columns), as ``human ~ ...`` models each sentence and ``dh ~ ...`` each pair.

    Examples
    --------
    >>> from acceptability.reports.ratings.fits import is_trial_formula
    >>> [is_trial_formula(f) for f in ("trial-level", "response_z ~ condition + (1 | pair_id)",
    ...                                "human ~ score + (1 | phenomenon)")]
    [True, True, False]
    """
    return bool(formula) and (formula == TRIAL_LEVEL or formula.split("~", 1)[0].strip()
                              in TRIAL_RESPONSES)


def level_formula(formula: str, level: str, default: str) -> str:
    """The formula ``level`` asks for: ``"trial"`` fits each rating (``"auto"`` becomes
    ``"trial-level"``, a formula must model a trial column), ``"sentence"`` each sentence
    (``"auto"`` becomes ``default``, the sentence-level default), ``"auto"`` leaves
    ``formula`` as it is (``reports.analysis.resolve_formula``)."""
    if level not in LEVELS:
        raise DataError(f"unknown level {level!r}", fix=f"use one of {list(LEVELS)}")
    if level == "auto":
        return formula
    if not formula:
        raise DataError(f"level {level!r} asks for a mixed model and the formula is ''",
                        fix="give a formula, or leave out the level")
    if formula == "auto":
        return TRIAL_LEVEL if level == "trial" else default
    if is_trial_formula(formula) != (level == "trial"):
        want = (f"its response one of {' or '.join(TRIAL_RESPONSES)} (a column of "
                "stats.rating_model_frame)" if level == "trial"
                else "its response human (or dh for pairs)")
        raise DataError(f"formula {formula!r} does not fit the {level} level",
                        fix=f"at level {level!r} write a formula with {want}, or leave out "
                            "the level")
    return formula


def engines(dataset) -> list[str]:
    """lmer always; clmm where the scale is ordinal (Likert, binary)."""
    return ["lmer", "clmm"] if rating_scale(dataset.ratings).ordinal else ["lmer"]


def _rows(fit, model: str, engine: str) -> pd.DataFrame:
    """One row per coefficient (clmm: thresholds then slopes) with its Wald interval."""
    if engine == "clmm":
        est, ci = fit.coef, fit.confint()
    else:
        est, ci = fit.fixef, fit.confint(method="Wald").loc[fit.fixef.index]
    return pd.DataFrame({
        "model": model, "fit": ENGINES[engine], "term": est.index, "estimate": est.to_numpy(),
        "se": fit.se.loc[est.index].to_numpy(), "lower": ci.iloc[:, 0].to_numpy(),
        "upper": ci.iloc[:, 1].to_numpy(), "n": fit.nobs,
        "singular": bool(getattr(fit, "singular", False)), "engine": engine,
    })


def check_trial_formula(dataset, formula: str) -> None:
    """Raise ``ValueError`` naming the problem when a trial-level ``formula`` cannot be
    fitted: no ratings, a syntax error or a column ``stats.rating_model_frame`` lacks."""
    if dataset.ratings is None:
        raise ValueError(f"formula {formula!r} fits trial-level ratings, and "
                         f"{dataset.name!r} has none")
    if formula == TRIAL_LEVEL:
        return
    parsed = stats.parse_formula(formula)
    ids = dataset.sentences["sentence_id"]
    stand_in = pd.DataFrame({"sentence_id": ids, "model": "-",
                             "score": np.arange(len(ids), dtype=float)})
    try:
        parsed.check_columns(stats.rating_model_frame(dataset, stand_in))
    except KeyError as err:
        raise ValueError(f"formula {formula!r}: {err.args[0]}") from None


def fit_rating_models(dataset, scores: pd.DataFrame, formula: str = TRIAL_LEVEL):
    """``stats.rating_model`` per language model and engine (``engines``), as a
    ``reports.fits.Fits``: the coefficients with Wald 95% intervals, each fit's
    summary, and the fits that failed (``notes``). ``formula``: ``"trial-level"``, each
    engine's default for the study's design (``stats.ratings.models.default_formula``), or
    a formula on ``stats.rating_model_frame``'s columns, fitted by lmer alone.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.reports.ratings.fits import fit_rating_models
    >>> s = pd.DataFrame({"sentence_id": list("abcdef"), "text": list("ABCDEF")})
    >>> r = pd.DataFrame({"participant": ["p", "q"] * 6, "sentence_id": list("aabbccddeeff"),
    ...                   "response": [4, 3, 3, 4, 2, 2, 1, 2, 4, 4, 1, 1]})
    >>> ds = data.from_frames(s, ratings=r, scale="likert:1-4")
    >>> lm = pd.DataFrame({"sentence_id": list("abcdef"), "model": "lm",
    ...                    "score": [-3.0, -3.5, -5, -7, -2, -8]})
    >>> fits = fit_rating_models(ds, lm)
    >>> fits.table[["fit", "term"]].drop_duplicates("fit").values.tolist()
    [['normed ratings (lmer)', '(Intercept)'], ['raw ordinal ratings (clmm)', '1|2']]
    """
    rows, summaries, notes, formulas = [], {}, [], {}
    given = None if formula == TRIAL_LEVEL else formula
    for model in dict.fromkeys(scores["model"]):
        for engine in engines(dataset) if given is None else ["lmer"]:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # singular fits are flagged in the table
                    fit = stats.rating_model(dataset, scores, model=model, engine=engine,
                                             formula=given)
            except (ValueError, KeyError, ArithmeticError, RuntimeError) as err:
                notes.append(f"{model} ({engine}): not fitted ({err})")
                continue
            formulas[engine] = fit.formula.text
            rows.append(_rows(fit, model, engine))
            summaries[f"{model} ({engine})"] = str(fit.summary())
    if not rows:
        raise ValueError(f"no trial-level model could be fitted: {notes[0]}")
    formula = "; ".join(f"{ENGINES[e]}: {f}" for e, f in formulas.items())
    return Fits(formula=formula, table=pd.concat(rows, ignore_index=True),
                summaries=summaries, notes=notes)
