"""Trial-level judgment models of a rating data set, one pair of fits per language model:
``lmer`` on the ratings normed within participants and, where the scale is ordinal,
``clmm`` on the raw responses (``stats.rating_model``; the formulas there)."""

from __future__ import annotations

import warnings

import pandas as pd

from acceptability import stats
from acceptability.data.ratings import rating_scale
from acceptability.reports.fits import Fits

TRIAL_LEVEL = "trial-level"  # the formula setting that means stats.rating_model's defaults
ENGINES = {"lmer": "normed ratings (lmer)", "clmm": "raw ordinal ratings (clmm)"}


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


def fit_rating_models(dataset, scores: pd.DataFrame):
    """``stats.rating_model`` per language model and engine (``engines``), as a
    ``reports.fits.Fits``: the coefficients with Wald 95% intervals, each fit's
    summary, and the fits that failed (``notes``).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.reports.rating_fits import fit_rating_models
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
    for model in dict.fromkeys(scores["model"]):
        for engine in engines(dataset):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # singular fits are flagged in the table
                    fit = stats.rating_model(dataset, scores, model=model, engine=engine)
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
