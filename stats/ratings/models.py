"""Trial-level judgment models: one row per rating, the language model's z-scored sentence
score ``lm_z`` as predictor, crossed random effects for participants and items (Baayen,
Davidson & Bates 2008, J. Mem. Lang. 59(4)).

Defaults, by design of the study (`default_formula`):

- sentences rated, no pairs (``lmer``): `RATING_FORMULA`, ``response_z ~ lm_z + (1 | item)``;
  ``response_z`` is each rating z-scored within its participant (Sprouse, Schütze & Almeida
  2013, Lingua 134; :func:`stats.ratings.normed_trials`) and ``item`` the rated sentence.
  No ``(1 | participant)``: every participant's z-scores have mean 0, so their means vary
  less than the residual alone would make them, and that variance's estimate is 0 (a
  singular fit by construction; docs/ratings.md, "The participant term");
- minimal pairs, the rated sentences in pairs (a Latin-square pair experiment; fillers in no
  pair are set aside, after norming):
  `RATING_PAIR_FORMULA`, ``response_z ~ condition + lm_z + (0 + condition | participant) +
  (1 + condition | pair_id)``: ``condition`` is +0.5 for the pair's good sentence and -0.5
  for its bad one (deviation coding), ``pair_id`` the pair, the item of the design. Random
  slopes of the within-unit factor by participant and by pair (Barr, Levy, Scheepers & Tily
  2013, J. Mem. Lang. 68(3), "keep it maximal"), less the participant intercept that the
  z-scores remove;
- raw ordinal responses (``clmm``, Christensen 2019): `RATING_CLMM_FORMULA`, ``response ~
  lm_z + (1 | participant) + (1 | item)``, or with pairs `RATING_PAIR_CLMM_FORMULA`,
  ``response ~ condition + lm_z + (1 | participant) + (1 | pair_id)`` (``clmm`` fits random
  intercepts only); ``response`` is an ordered Categorical over the scale's whole range
  (``likert:1-7``: 1..7), with each participant's intercept for their use of the scale.

``lm_z`` is the model's sentence score z-scored over the dataset's sentences
(:func:`stats.zscore`). Ratings that name no participant (Lau et al. 2020 publish each
sentence's ratings without who gave them) have no participant term, and their
``response_z`` is z-scored over all ratings at once.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from acceptability.data.ratings import rating_scale, validate_ratings
from acceptability.stats.mixed.formula import parse_formula
from acceptability.stats.mixed.lmm.lmer import lmer
from acceptability.stats.mixed.ordinal.cumulative_mixed import clmm
from acceptability.stats.ratings.judgment import one_model
from acceptability.stats.ratings.norming import exclusion_table, normed_trials
from acceptability.stats.zscore import exclusion_reason, zscore

__all__ = ["RATING_CLMM_FORMULA", "RATING_FORMULA", "RATING_PAIR_CLMM_FORMULA",
           "RATING_PAIR_FORMULA", "default_formula", "rating_model", "rating_model_frame"]

RATING_FORMULA = "response_z ~ lm_z + (1 | item)"
RATING_PAIR_FORMULA = ("response_z ~ condition + lm_z + (0 + condition | participant) + "
                       "(1 + condition | pair_id)")
RATING_CLMM_FORMULA = "response ~ lm_z + (1 | participant) + (1 | item)"
RATING_PAIR_CLMM_FORMULA = "response ~ condition + lm_z + (1 | participant) + (1 | pair_id)"
GOOD, BAD = 0.5, -0.5  # condition: deviation coding of the pair's good and bad sentence
ALL_RATINGS = "(all ratings)"  # the one pseudo-participant of ratings without participant ids
OWN_COLUMNS = ("item", "response_z", "lm_z", "raw_score", "model", "pair_id", "condition")
WITHIN = "response_z: each rating z-scored within its participant (normed_trials, method 'z')"
OVERALL = ("response_z: each rating z-scored over all ratings (they name no participant, so "
           "no participant term)")


def _normed(ratings: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """The ratings normed by ``normed_trials`` (z); ratings without any participant id as
    one pseudo-participant, so that they are z-scored over all ratings; and whether they
    were."""
    anonymous = bool(ratings["participant"].isna().all())
    if anonymous:  # a row number tells its equal ratings apart (else one trial twice)
        ratings = ratings.assign(participant=ALL_RATINGS, _rating=np.arange(len(ratings)))
    out = normed_trials(ratings, method="z").rename(columns={"response_norm": "response_z"})
    if anonymous:
        out = out.drop(columns="_rating")
        out["participant"] = pd.Series(pd.NA, index=out.index, dtype=object)
    return out, anonymous


def _unscored(ratings: pd.DataFrame, scored: pd.DataFrame, model: str) -> pd.DataFrame:
    """The exclusions row of ratings whose sentence has no z-scored score (its reason says
    why: `zscore.exclusion_reason`), with the sentence ids."""
    ids = pd.unique(ratings["sentence_id"])
    score = pd.Series(ids).map(scored["score"]).to_numpy(float)
    z = pd.Series(ids).map(scored["z"]).to_numpy(float)
    missing = np.isnan(z)
    lost = ratings["sentence_id"].isin(ids[missing])
    why = exclusion_reason(score, z)
    table = exclusion_table([("ratings", f"rating of a sentence without a z-scored score from "
                              f"{model!r} ({why})", int(lost.sum()))])
    return table.assign(ids=[tuple(ids[missing])])


def pair_conditions(dataset) -> pd.DataFrame | None:
    """``pair_id`` and ``condition`` (`GOOD` +0.5, `BAD` -0.5) of each sentence in exactly
    one of the dataset's pairs, indexed by ``sentence_id``; None without pairs. A sentence
    in several pairs (one good sentence against several bad ones) has neither."""
    pairs = getattr(dataset, "pairs", None)
    if pairs is None or pairs.empty:
        return None
    members = pd.concat([
        pd.DataFrame({"sentence_id": pairs[col], "pair_id": pairs["pair_id"], "condition": c})
        for col, c in (("good_id", GOOD), ("bad_id", BAD))])
    once = members[~members["sentence_id"].duplicated(keep=False)]
    return once.set_index("sentence_id")[["pair_id", "condition"]]


def rating_model_frame(dataset, scores: pd.DataFrame, model: str | None = None,
                       ratings: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per rating: ``participant``, ``sentence_id``, ``response`` (as rated),
    ``response_z`` (normed, module docstring), ``item`` (the sentence), ``lm_z`` (the
    model's z-scored score), ``raw_score``, ``model``; with pairs, ``pair_id`` and
    ``condition`` (+0.5 the pair's good sentence, -0.5 its bad one; missing for a sentence
    in no pair or in several: `pair_conditions`); then the ratings table's other columns
    and the sentences table's (one already taken, such as the sentences' ``item``, as
    ``sentence_<name>``, a ratings column such as ``condition`` as ``rating_<name>``), so a
    formula can use them.

    Ratings are normed before any is set aside, over each participant's every rating.
    Set aside and counted in ``attrs["exclusions"]`` (``table``, ``reason``, ``n`` =
    ratings, ``ids`` = sentences): ratings of participants whose z is undefined (one
    rating, or all equal) and ratings of sentences the model gave no z-score.
    ``attrs["norming"]`` says how ``response_z`` was computed, ``attrs["scale"]`` the scale.

    ``ratings`` defaults to ``dataset.ratings``; ``model`` picks one model of ``scores``
    (a long table ``sentence_id``, ``model``, ``score``).

    Examples
    --------
    Three raters of three sentences (illustrative numbers, not published judgments):

    >>> import pandas as pd
    >>> from acceptability import data, stats
    >>> sentences = pd.DataFrame({"sentence_id": ["s1", "s2", "s3"],
    ...                           "text": ["Who left?", "Who did leave?", "Left who?"]})
    >>> ratings = pd.DataFrame({"participant": ["p1"] * 3 + ["p2"] * 3 + ["p3"] * 2,
    ...                         "sentence_id": ["s1", "s2", "s3"] * 2 + ["s1", "s2"],
    ...                         "response": [7, 5, 1, 6, 6, 2, 4, 4]})
    >>> ds = data.from_frames(sentences, ratings=ratings, scale="likert:1-7")
    >>> lm = pd.DataFrame({"sentence_id": ["s1", "s2"], "model": "lm", "score": [-9.0, -13.0]})
    >>> frame = stats.rating_model_frame(ds, lm)
    >>> frame[["participant", "item", "response", "response_z", "lm_z"]].round(3)
      participant item  response  response_z  lm_z
    0          p1   s1       7.0       0.873   1.0
    1          p1   s2       5.0       0.218  -1.0
    2          p2   s1       6.0       0.577   1.0
    3          p2   s2       6.0       0.577  -1.0
    >>> for row in frame.attrs["exclusions"].itertuples():
    ...     print(row.n, row.reason)
    2 participant with constant ratings (z undefined)
    2 rating of a sentence without a z-scored score from 'lm' (no score for 1 sentence)
    """
    ratings = dataset.ratings if ratings is None else validate_ratings(
        ratings, sentences=dataset.sentences)
    if ratings is None:
        raise ValueError("no ratings: the dataset has none; pass ratings= (a ratings table)")
    one = one_model(scores, model)
    name = str(one["model"].iloc[0])
    scored = zscore(one, dataset).set_index("sentence_id")
    normed, anonymous = _normed(ratings.rename(columns={
        c: f"rating_{c}" for c in ratings.columns if c in OWN_COLUMNS}))
    lm_z = normed["sentence_id"].map(scored["z"])
    unscored = _unscored(normed, scored, name)
    out = normed[lm_z.notna()].assign(item=normed["sentence_id"], lm_z=lm_z,
                                      raw_score=normed["sentence_id"].map(scored["score"]),
                                      model=name)
    first = ["participant", "sentence_id", "response", "response_z", "item", "lm_z",
             "raw_score", "model"]
    pairs = pair_conditions(dataset)
    if pairs is not None:
        out = out.assign(**{c: out["sentence_id"].map(pairs[c]) for c in pairs.columns})
        first += list(pairs.columns)
    out = out[first + [c for c in out.columns if c not in first]]
    extra = dataset.sentences.set_index("sentence_id")
    for col in extra.columns:
        if col not in out.columns or col in OWN_COLUMNS:
            out[f"sentence_{col}" if col in out.columns else col] = out["sentence_id"].map(extra[col])
    out = out.reset_index(drop=True)
    exclusions = pd.concat([normed.attrs["exclusions"], unscored], ignore_index=True)
    out.attrs = {"scale": ratings.attrs["scale"], "norming": OVERALL if anonymous else WITHIN,
                 "exclusions": exclusions[exclusions["n"] > 0].reset_index(drop=True)}
    return out


def ordinal_ratings(frame: pd.DataFrame) -> pd.Series:
    """``frame["response"]`` as an ordered Categorical over the whole range of the scale
    the frame declares (``attrs["scale"]``), for ``clmm``; magnitude estimates are refused.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.ratings.models import ordinal_ratings
    >>> likert = pd.DataFrame({"response": [2.0, 4.0, 1.0]})
    >>> likert.attrs["scale"] = "likert:1-4"
    >>> list(ordinal_ratings(likert).cat.categories)
    [1, 2, 3, 4]
    """
    scale = rating_scale(frame)
    if not scale.ordinal:
        raise ValueError(f"scale {scale}: clmm models ordered categories (a Likert or binary "
                         "scale); fit magnitude estimates with engine='lmer'")
    low, high = (0, 1) if scale.task == "binary" else (scale.low, scale.high)
    return pd.Series(pd.Categorical(frame["response"].astype(int),
                                    categories=range(low, high + 1), ordered=True),
                     index=frame.index, name="response")


def default_formula(frame: pd.DataFrame, engine: str = "lmer") -> str:
    """The default model of `rating_model_frame`'s ``frame`` (module docstring): the pair
    design where rated sentences are in pairs (`rating_model` sets aside and counts the
    ratings of fillers, sentences in no pair), else the sentence design; without
    participant ids, no participant term.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.ratings.models import default_formula
    >>> frame = pd.DataFrame({"participant": ["p1", "p2"], "pair_id": ["a", "a"]})
    >>> default_formula(frame)
    'response_z ~ condition + lm_z + (0 + condition | participant) + (1 + condition | pair_id)'
    >>> default_formula(frame.assign(participant=None), "clmm")
    'response ~ condition + lm_z + (1 | pair_id)'
    """
    paired = "pair_id" in frame and bool(frame["pair_id"].notna().any())
    formula = {("lmer", False): RATING_FORMULA, ("lmer", True): RATING_PAIR_FORMULA,
               ("clmm", False): RATING_CLMM_FORMULA,
               ("clmm", True): RATING_PAIR_CLMM_FORMULA}[engine, paired]
    if frame["participant"].isna().all():
        formula = re.sub(r" \+ \([^()|]*\| participant\)", "", formula)
    return formula


def _complete(frame: pd.DataFrame, formula: str) -> pd.DataFrame:
    """The rows of ``frame`` with a value in every column ``formula`` uses; the others set
    aside and counted in ``attrs["exclusions"]`` (a sentence in no pair, or in several,
    has no ``pair_id`` or ``condition``)."""
    used = [c for c in parse_formula(formula).columns() if c in frame]
    lost = frame[used].isna().any(axis=1)
    if not lost.any():
        return frame
    empty = [c for c in used if frame.loc[lost, c].isna().any()]
    why = (" (its sentence is in no pair, or in several)"
           if {"pair_id", "condition"} & set(empty) else "")
    row = exclusion_table([("ratings", f"rating without {' or '.join(empty)}{why}",
                            int(lost.sum()))])
    attrs = dict(frame.attrs)
    attrs["exclusions"] = pd.concat([attrs["exclusions"], row], ignore_index=True)
    out = frame[~lost].reset_index(drop=True)
    out.attrs = attrs
    return out


def rating_model(dataset, scores: pd.DataFrame, model: str | None = None,
                 engine: str = "lmer", formula: str | None = None,
                 ratings: pd.DataFrame | None = None, **kwargs: Any):
    """Trial-level judgment model of `rating_model_frame`'s rows: ``engine="lmer"`` fits
    the normed ratings, ``engine="clmm"`` the raw ordinal responses (Laplace), by
    ``formula`` (any column of the frame) or the default for the study's design
    (`default_formula`: with pairs `RATING_PAIR_FORMULA` / `RATING_PAIR_CLMM_FORMULA`,
    else `RATING_FORMULA` / `RATING_CLMM_FORMULA`). Without participant ids the default
    formula has no participant term and ``response_z`` is z-scored over all ratings.
    Ratings without a value in a column the formula uses (``pair_id`` of a sentence in no
    pair) are set aside and counted. The fit's notes (printed by ``summary()``) say how the
    ratings were normed and what was set aside, and ``fit.frame.attrs`` holds the frame's
    ``exclusions``, ``norming`` and ``scale``. A ``(1 | participant)`` term on the
    within-participant z-scores is singular by construction (its variance 0; module
    docstring). ``kwargs`` go to ``stats.lmer`` / ``stats.clmm``.

    Examples
    --------
    >>> from acceptability.stats import RATING_FORMULA, RATING_PAIR_FORMULA
    >>> RATING_FORMULA
    'response_z ~ lm_z + (1 | item)'
    >>> RATING_PAIR_FORMULA
    'response_z ~ condition + lm_z + (0 + condition | participant) + (1 + condition | pair_id)'

    Needs the reference data: Lau et al. (2020)'s ratings without context, against the SLOR
    of a trigram model of AO-CHILDES (a real score built without the hub):

    >>> from acceptability import data, scoring, stats
    >>> ds = data.load_lau2020(context="none")  # doctest: +SKIP
    >>> words, _ = data.childes_corpus_text(data.load_childes())  # doctest: +SKIP
    >>> lm = scoring.train_ngram(words, order=3, tokenize=data.childes_tokenize)  # doctest: +SKIP
    >>> scores = scoring.score(ds, lm, "ngram", normalise="slor",
    ...                        unigram=lm.unigram())  # doctest: +SKIP
    >>> fit = stats.rating_model(ds, scores)  # doctest: +SKIP
    >>> fit.formula.text, fit.nobs, round(float(fit.fixef["lm_z"]), 4)  # doctest: +SKIP
    ('response_z ~ lm_z + (1 | item)', 4107, -0.005)
    """
    if engine not in ("lmer", "clmm"):
        raise ValueError(f"engine={engine!r}: use 'lmer' (normed ratings) or 'clmm' (ordinal)")
    frame = rating_model_frame(dataset, scores, model, ratings)
    anonymous = bool(frame["participant"].isna().all())
    if formula is None:
        formula = default_formula(frame, engine)
    elif anonymous and "participant" in parse_formula(formula).columns():
        raise ValueError(f"formula {formula!r} uses participant, but the ratings name no "
                         "participant: drop the participant term")
    frame = _complete(frame, formula)
    if engine == "clmm":
        frame["response"] = ordinal_ratings(frame)
        fit = clmm(formula, frame, **kwargs)
        about = (f"response: the ratings as ordered categories ({frame.attrs['scale']})"
                 + "; they name no participant" * anonymous)
    else:
        fit = lmer(formula, frame, **kwargs)
        about = frame.attrs["norming"]
    fit.notes = [*fit.notes, f"ratings: {about}"] + [
        f"set aside: {r.n} ratings, {r.reason}" for r in frame.attrs["exclusions"].itertuples()]
    return fit
