"""Forced-choice (FC) trials: per-pair preferences, per-paradigm human accuracy (BLiMP,
Warstadt et al. 2020, section 3 and Table 4) and Elo ratings of sentences (Sprouse et al.
2018, as in thesis Table 1.1)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.tables import validate_trials
from acceptability.stats.arguments import check_number, check_positive, check_seed, check_whole


def pair_preferences(trials: pd.DataFrame) -> pd.DataFrame:
    """Per pair, the share of forced-choice responses choosing the acceptable sentence.

    The human preference a model delta can be compared to (BLiMP's human validation,
    Warstadt et al. 2020, section 3).

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per response: ``pair_id``, ``paradigm``, ``chose_good`` (0/1), as from
        [load_blimp_trials][acceptability.data.loaders.forced_choice.load_blimp_trials].

    Returns
    -------
    pandas.DataFrame
        ``paradigm``, ``pair_id``, ``n`` responses, ``n_good`` choosing the acceptable
        sentence and ``prop_good`` = n_good / n, sorted by paradigm and pair.

    Raises
    ------
    DataError
        If ``pair_id``, ``paradigm`` or ``chose_good`` is missing, or a choice is not 0
        or 1.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import pair_preferences
    >>> trials = pd.DataFrame({"participant": ["w1", "w2", "w3"] * 2,
    ...                        "paradigm": "anaphor_gender_agreement",
    ...                        "pair_id": ["p1"] * 3 + ["p2"] * 3,
    ...                        "chose_good": [1, 1, 0, 1, 1, 1]})
    >>> print(pair_preferences(trials).round(3).to_string(index=False))
                    paradigm pair_id  n  n_good  prop_good
    anaphor_gender_agreement      p1  3       2      0.667
    anaphor_gender_agreement      p2  3       3      1.000
    """
    trials = validate_trials(trials, columns=("pair_id", "paradigm", "chose_good"))
    g = trials.groupby(["paradigm", "pair_id"], sort=True)["chose_good"]
    out = g.agg(n="size", n_good="sum").reset_index()
    out["prop_good"] = out["n_good"] / out["n"]
    return out


def fc_accuracy(trials: pd.DataFrame) -> pd.DataFrame:
    """Human accuracy per paradigm as in BLiMP's ``human_validation_summary.csv``.

    Warstadt et al. (2020), section 3 and Table 4. ``accuracy`` is the mean over the
    paradigm's pairs of the proportion choosing the acceptable sentence (the paper's
    individual agreement, ``total_mean``); ``accuracy_trials`` pools the trials instead;
    ``majority`` counts pairs where more than half chose the acceptable sentence
    (``accepted``, section 3: a paradigm needs 4 of 5); ``n_trials`` is the paper's
    ``count``.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per response: ``pair_id``, ``paradigm``, ``chose_good`` (0/1).

    Returns
    -------
    pandas.DataFrame
        One row per paradigm: ``paradigm``, ``n_pairs``, ``n_trials``, ``accuracy``,
        ``accuracy_trials``, ``majority``.

    Raises
    ------
    DataError
        As [pair_preferences][acceptability.stats.benchmarks.forced_choice.pair_preferences]:
        a missing column or a choice other than 0/1.

    Examples
    --------
    >>> from acceptability.stats.benchmarks import fc_accuracy
    >>> import pandas as pd
    >>> trials = pd.DataFrame({"paradigm": ["gender"] * 4 + ["number"] * 4,
    ...     "pair_id": ["g1", "g1", "g2", "g2", "n1", "n1", "n2", "n2"],
    ...     "participant": ["w1", "w2"] * 4, "chose_good": [1, 1, 1, 0, 1, 0, 0, 0]})
    >>> print(fc_accuracy(trials).to_string(index=False))
    paradigm  n_pairs  n_trials  accuracy  accuracy_trials  majority
      gender        2         4      0.75             0.75         1
      number        2         4      0.25             0.25         0
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

    The standard update (Elo 1978): expected score
    ``E_w = 1 / (1 + 10**((R_l - R_w) / 400))``, then ``R_w += k (1 - E_w)`` and
    ``R_l -= k (1 - E_w)`` (the sum of ratings is conserved). Sprouse et al. (2018) rate
    sentences this way from forced choices (thesis Table 1.1). Elo depends on the order of
    matches: with ``n_orders=0`` they are played in the given order; with ``n_orders=n``
    the ratings are averaged over n random orders drawn with ``seed``.

    Parameters
    ----------
    winners, losers : numpy.ndarray or pandas.Series
        1-d, of equal length: the ids of each match's winner and loser.
    k : float
        The update step (K-factor).
    initial : float
        Every id's rating before its first match.
    n_orders : int
        0: play the matches in the given order; n: average over n random orders.
    seed : int
        Seed of the random orders.

    Returns
    -------
    pandas.DataFrame
        One row per id, sorted: ``sentence_id``, ``elo``, ``elo_sd`` (SD over orders; NaN
        for one order), ``n_trials``, ``wins``.

    Raises
    ------
    ValueError
        If ``winners`` and ``losers`` are not 1-d of equal length, or an id plays against
        itself.

    Examples
    --------
    >>> from acceptability.stats.benchmarks import elo_ratings
    >>> ratings = elo_ratings(["s1", "s1", "s2"], ["s2", "s3", "s3"])
    >>> print(ratings.round(1).to_string(index=False))
    sentence_id    elo  elo_sd  n_trials  wins
             s1 1531.3     NaN         2     2
             s2 1500.0     NaN         2     1
             s3 1468.7     NaN         2     0
    """
    # Hand-written: the update is one line, and running all random orders at once as
    # numpy rows is what libraries with one rating object per player (elote, skelo) lack.
    k, initial = check_positive("k", k, 1e6), check_number("initial", initial, -1e9, 1e9)
    n_orders, seed = check_whole("n_orders", n_orders, 0, 10_000), check_seed(seed)
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
    (Sprouse et al. 2018; thesis Table 1.1).

    Trials are played in row order (``n_orders=0``;
    [load_blimp_trials][acceptability.data.loaders.forced_choice.load_blimp_trials] gives
    submission order) or averaged over random orders; see
    [elo_ratings][acceptability.stats.benchmarks.forced_choice.elo_ratings]. Here a
    sentence only meets its pair partner, so ratings compare a pair's two sentences; for
    designs where sentences meet many others (Sprouse et al. 2018: all 7140 pairs of 120
    sentences) call [elo_ratings][acceptability.stats.benchmarks.forced_choice.elo_ratings]
    with sentence ids.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per response: ``pair_id``, ``chose_good`` (0/1), optionally ``good_text``
        and ``bad_text``.
    k, initial, n_orders, seed
        As in [elo_ratings][acceptability.stats.benchmarks.forced_choice.elo_ratings].

    Returns
    -------
    pandas.DataFrame
        The columns of ``elo_ratings``, sentence ids ``{pair_id}_good`` and
        ``{pair_id}_bad``, and ``text`` after ``sentence_id`` when the trials have the
        texts.

    Raises
    ------
    DataError
        If ``pair_id`` or ``chose_good`` is missing or a choice is not 0/1.

    Examples
    --------
    Three judgments of one pair, two for the acceptable sentence:

    >>> import pandas as pd
    >>> from acceptability.stats.benchmarks import fc_elo
    >>> trials = pd.DataFrame({"pair_id": "p1", "chose_good": [1, 1, 0],
    ...                        "good_text": "She left.", "bad_text": "She leaved."})
    >>> print(fc_elo(trials).round(1).to_string(index=False))
    sentence_id        text    elo  elo_sd  n_trials  wins
         p1_bad She leaved. 1488.3     NaN         3     1
        p1_good   She left. 1511.7     NaN         3     2
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
