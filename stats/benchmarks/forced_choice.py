"""Forced-choice (FC) trials: per-pair preferences, per-paradigm human accuracy (BLiMP,
Warstadt et al. 2020, section 3 and Table 4) and Elo ratings of sentences (Sprouse et al.
2018, as in thesis Table 1.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.tables import validate_trials


def pair_preferences(trials: pd.DataFrame) -> pd.DataFrame:
    """Per pair: ``n`` responses, ``n_good`` choosing the acceptable sentence and
    ``prop_good`` = n_good / n (the human preference a model delta can be compared to)."""
    trials = validate_trials(trials, columns=("pair_id", "paradigm", "chose_good"))
    g = trials.groupby(["paradigm", "pair_id"], sort=True)["chose_good"]
    out = g.agg(n="size", n_good="sum").reset_index()
    out["prop_good"] = out["n_good"] / out["n"]
    return out


def fc_accuracy(trials: pd.DataFrame) -> pd.DataFrame:
    """Human accuracy per paradigm as in BLiMP's ``human_validation_summary.csv``.

    ``accuracy`` is the mean over the paradigm's pairs of the proportion choosing the
    acceptable sentence (the paper's individual agreement, ``total_mean``);
    ``accuracy_trials`` pools the trials instead; ``majority`` counts pairs where more than
    half chose the acceptable sentence (``accepted``, section 3: a paradigm needs 4 of 5);
    ``n_trials`` is the paper's ``count``.
    """
    p = pair_preferences(trials)
    g = p.groupby("paradigm", sort=True)
    out = pd.DataFrame({
        "n_pairs": g.size(),
        "n_trials": g["n"].sum(),
        "accuracy": g["prop_good"].mean(),
        "accuracy_trials": g["n_good"].sum() / g["n"].sum(),
        "majority": g["prop_good"].agg(lambda s: int((s > 0.5).sum())),
    })
    return out.reset_index()


def elo_ratings(winners: np.ndarray | pd.Series, losers: np.ndarray | pd.Series,
                k: float = 32.0, initial: float = 1500.0, n_orders: int = 0,
                seed: int = 0) -> pd.DataFrame:
    """Elo ratings from a sequence of matches ``winners[i]`` beat ``losers[i]``.

    The standard update: expected score ``E_w = 1 / (1 + 10**((R_l - R_w) / 400))``, then
    ``R_w += k (1 - E_w)`` and ``R_l -= k (1 - E_w)`` (the sum of ratings is conserved).
    Elo depends on the order of matches: with ``n_orders=0`` they are played in the given
    order; with ``n_orders=n`` the ratings are averaged over n random orders drawn with
    ``seed`` (``elo_sd`` is their SD over orders). Returns ``sentence_id``, ``elo``,
    ``elo_sd``, ``n_trials``, ``wins``.
    """
    # Hand-written: the update is one line, and running all random orders at once as
    # numpy rows is what libraries with one rating object per player (elote, skelo) lack.
    winners, losers = np.asarray(winners), np.asarray(losers)
    if winners.shape != losers.shape or winners.ndim != 1:
        raise ValueError("winners and losers must be 1-d and of equal length")
    if (winners == losers).any():
        raise ValueError("a sentence cannot play against itself")
    ids, codes = np.unique(np.concatenate([winners, losers]), return_inverse=True)
    win, lose = codes[: len(winners)], codes[len(winners):]
    rng = np.random.default_rng(seed)
    orders = (np.arange(len(win))[None, :] if n_orders == 0
              else np.argsort(rng.random((n_orders, len(win))), axis=1))
    ratings = np.full((len(orders), len(ids)), float(initial))
    rows = np.arange(len(orders))
    for t in range(len(win)):
        wi, li = win[orders[:, t]], lose[orders[:, t]]
        gain = k * (1.0 - 1.0 / (1.0 + 10.0 ** ((ratings[rows, li] - ratings[rows, wi]) / 400.0)))
        ratings[rows, wi] += gain
        ratings[rows, li] -= gain
    return pd.DataFrame({
        "sentence_id": ids,
        "elo": ratings.mean(axis=0),
        "elo_sd": ratings.std(axis=0, ddof=1) if len(orders) > 1 else np.nan,
        "n_trials": np.bincount(codes, minlength=len(ids)),
        "wins": np.bincount(win, minlength=len(ids)),
    })


def fc_elo(trials: pd.DataFrame, k: float = 32.0, initial: float = 1500.0,
           n_orders: int = 0, seed: int = 0) -> pd.DataFrame:
    """Elo ratings of sentences, each FC trial a match won by the chosen sentence
    (Sprouse et al. 2018; thesis Table 1.1). Sentence ids are ``{pair_id}_good`` and
    ``{pair_id}_bad``; ``text`` comes from ``good_text``/``bad_text`` when present.
    Trials are played in row order (``n_orders=0``; ``data.load_blimp_trials`` gives
    submission order) or averaged over random orders; see
    :func:`elo_ratings`. Here a sentence only meets its pair partner, so ratings compare
    a pair's two sentences; for designs where sentences meet many others (Sprouse et al.
    2018: all 7140 pairs of 120 sentences) call :func:`elo_ratings` with sentence ids.
    """
    trials = validate_trials(trials, columns=("pair_id", "chose_good"))
    good = trials["pair_id"].astype(str) + "_good"
    bad = trials["pair_id"].astype(str) + "_bad"
    chose = trials["chose_good"].astype(bool).to_numpy()
    out = elo_ratings(np.where(chose, good, bad), np.where(chose, bad, good), k=k,
                      initial=initial, n_orders=n_orders, seed=seed)
    if {"good_text", "bad_text"} <= set(trials.columns):
        text = pd.concat([pd.Series(trials["good_text"].to_numpy(), index=good),
                          pd.Series(trials["bad_text"].to_numpy(), index=bad)])
        out.insert(1, "text", out["sentence_id"].map(text[~text.index.duplicated()]))
    return out
