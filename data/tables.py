"""The tables that flow between packages (docs/tables.md), and their validation.

Every check raises [DataError][acceptability.data.DataError] naming the table (or file), the row
and the column, and saying how to fix it. ``line_offset`` turns a row position into a
file line number (2 for a CSV with a header line); without it rows are index labels.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError

SENTENCE_COLUMNS = ["sentence_id", "text", "dataset", "type_id", "item", "phenomenon",
                    "label", "human"]
PAIR_COLUMNS = ["pair_id", "good_id", "bad_id", "phenomenon"]
SCORE_COLUMNS = ["sentence_id", "model", "score"]
#: The one scoring method whose score is not a sum of token log-probabilities (natural
#: logs) but a classifier's signed confidence (thesis eq. 2.3); every other method's score
#: has a perplexity exp(-score / n_tokens) (pseudo-perplexity for PLL; BLiMP sec. 5.2).
#: scoring.registry is the list of methods; tests/scoring/test_registry.py asserts that
#: this is its only method without log-probabilities.
SIGNED_CONFIDENCE_METHOD = "classifier"
TRIAL_COLUMNS = ["participant", "pair_id", "chose_good", "paradigm"]


def _where(df: pd.DataFrame, mask: pd.Series | np.ndarray, line_offset: int | None) -> object:
    pos = int(np.flatnonzero(np.asarray(mask))[0])
    return f"{pos + line_offset} (line)" if line_offset is not None else df.index[pos]


def member(values: pd.Series, ids) -> np.ndarray:
    """``values.isin(ids)`` as a boolean array, by a hash lookup: pandas 3's ``isin`` on
    string columns builds one Python object per value (9 s against 0.5 s for the
    337,000 Marvin & Linzen sentence ids)."""
    return pd.Index(pd.unique(pd.Series(ids, dtype=object))).get_indexer(
        pd.Series(values, dtype=object)) >= 0


def require_columns(df: pd.DataFrame, columns: list[str], source: str) -> None:
    """Raise if any of ``columns`` is missing, suggesting near matches."""
    if not isinstance(df, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame, got {type(df).__name__}", source=source)
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise DataError(
            f"missing column(s) {missing}; found {list(df.columns)}",
            source=source,
            fix="rename the columns to the names above (the tables are defined in docs/tables.md)",
        )
    if df.empty:
        raise DataError("the table is empty", source=source, fix="pass at least one row")


def numeric_column(df: pd.DataFrame, column: str, source: str,
                   line_offset: int | None = None, owner: str | None = None) -> pd.Series:
    """``df[column]`` as float; a non-numeric or non-finite (inf, -inf) entry is an error
    naming the row (and the value of column ``owner``, e.g. the model), an empty one NaN.
    Infinities stop here: one of them would turn a whole model's z-scores into NaN."""
    values = pd.to_numeric(df[column], errors="coerce")
    bad = values.isna() & df[column].notna() & (df[column].astype(str).str.strip() != "")
    if bad.any():
        row = _where(df, bad, line_offset)
        raise DataError(
            f"non-numeric value {df[column][bad].iloc[0]!r}", source=source, row=row,
            column=column, fix="use a number, or leave the cell empty for a missing value",
        )
    values = values.astype(float)
    infinite = np.isinf(values.to_numpy())
    if infinite.any():
        pos = int(np.flatnonzero(infinite)[0])
        whose = f" of {owner} {df[owner].iloc[pos]!r}" if owner else ""
        raise DataError(
            f"non-finite value {values.iloc[pos]!r}{whose} ({int(infinite.sum())} such rows)",
            source=source, row=_where(df, infinite, line_offset), column=column,
            fix="replace it with a finite number, or leave the cell empty: a missing value is "
                "excluded from the metrics and counted",
        )
    return values


def _unique(df: pd.DataFrame, column: str, source: str, line_offset: int | None) -> None:
    dup = df[column].duplicated(keep=False)
    if dup.any():
        first = df[column][dup].iloc[0]
        raise DataError(
            f"duplicate {column} {first!r} ({int(dup.sum())} rows share a value)",
            source=source, row=_where(df, dup, line_offset), column=column,
            fix=f"make {column} unique, e.g. by appending a suffix",
        )


def validate_sentences(df: pd.DataFrame, source: str = "sentences",
                       line_offset: int | None = None) -> pd.DataFrame:
    """Check and normalise a sentences table; optional columns are added as missing.

    Parameters
    ----------
    df : pandas.DataFrame
        At least ``sentence_id`` and ``text``.
    source : str, default "sentences"
        The table's name in error messages.
    line_offset : int, optional
        Added to a row's position to give its file line (2 for a CSV with a header).

    Returns
    -------
    pandas.DataFrame
        A copy with string ids and texts, ``label`` and ``human`` numeric, ``type_id``
        defaulting to the sentence id and ``phenomenon`` to the type; the standard columns
        first.

    Raises
    ------
    DataError
        For a missing column or id, a duplicate id, an empty text or a label not 0/1.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_sentences
    >>> out = validate_sentences(pd.DataFrame({"sentence_id": [1, 2], "text": ["a b.", "b a."]}))
    >>> out[["sentence_id", "type_id", "phenomenon"]].to_dict("list")
    {'sentence_id': ['1', '2'], 'type_id': ['1', '2'], 'phenomenon': ['1', '2']}
    """
    require_columns(df, ["sentence_id", "text"], source)
    out = df.copy()
    if out["sentence_id"].isna().any():
        raise DataError("missing sentence_id", source=source,
                        row=_where(out, out["sentence_id"].isna(), line_offset),
                        column="sentence_id", fix="give every sentence an id")
    out["sentence_id"] = out["sentence_id"].astype(str)
    _unique(out, "sentence_id", source, line_offset)
    empty = out["text"].isna() | (out["text"].astype(str).str.strip() == "")
    if empty.any():
        raise DataError("empty sentence text", source=source, row=_where(out, empty, line_offset),
                        column="text", fix="remove the row or fill in the sentence")
    out["text"] = out["text"].astype(str)
    for col in SENTENCE_COLUMNS:
        if col not in out.columns:
            out[col] = out["sentence_id"] if col == "type_id" else np.nan
    for col in ("label", "human"):
        out[col] = numeric_column(out, col, source, line_offset)
    bad_label = out["label"].notna() & ~out["label"].isin([0.0, 1.0])
    if bad_label.any():
        raise DataError(f"label {out['label'][bad_label].iloc[0]:g} is not 0 or 1",
                        source=source, row=_where(out, bad_label, line_offset), column="label",
                        fix="use 1 (acceptable), 0 (unacceptable) or leave it empty")
    out["type_id"] = out["type_id"].fillna(out["sentence_id"]).astype(str)
    out["phenomenon"] = out["phenomenon"].astype(object).fillna(out["type_id"]).astype(str)
    return out[SENTENCE_COLUMNS + [c for c in out.columns if c not in SENTENCE_COLUMNS]]


HUMAN_SCALES = ("z", "raw")


def human_on_z_scale(sentences: pd.DataFrame, human_scale: str = "z",
                     source: str = "sentences") -> tuple[pd.DataFrame, dict | None]:
    """The sentences with ``human`` on the z scale that the ADC needs (thesis 1.3.3: it
    compares good-minus-bad differences of human judgments and of z-scored model scores).

    ``human_scale="z"`` (default): ``human`` already holds z-scores (LI-Adger: each
    participant's ratings z-scored, then averaged per sentence); values that are all of
    one sign (mean ratings on a 1-7 scale, proportions) cannot be, and are an error.
    ``"raw"``: ``human`` holds raw sentence ratings; they are z-scored over the dataset's
    sentences (population SD, as model scores are), and the mean and SD used are returned
    (else None) for the record. Per-participant z-scoring of trial-level ratings, the
    field's standard, is better where the trials exist.
    """
    if human_scale not in HUMAN_SCALES:
        raise DataError(f"human_scale {human_scale!r} is not one of {list(HUMAN_SCALES)}",
                        source=source, fix="'z' for z-scored judgments, 'raw' to standardise")
    human = sentences["human"].astype(float)
    known = human.dropna()
    if len(known) < 2:
        return sentences, None
    if human_scale == "raw":
        mean, sd = float(known.mean()), float(known.std(ddof=0))
        if not sd > 0:
            raise DataError(f"every human value is {mean:g}: they cannot be standardised",
                            source=source, column="human", fix="check the human column")
        return sentences.assign(human=(human - mean) / sd), {"mean": mean, "sd": sd}
    if known.min() >= 0 or known.max() <= 0:
        raise DataError(
            f"human values run from {known.min():g} to {known.max():g}, all of one sign: "
            "they are not z-scores, which the ADC needs (it compares human and z-scored model "
            "differences)", source=source, column="human",
            fix="z-score each participant's ratings and average them per sentence, or "
                "declare the values raw ratings (human_scale='raw', command line "
                "--human-scale raw) to have them z-scored over the dataset's sentences")
    return sentences, None


def validate_pairs(df: pd.DataFrame, sentences: pd.DataFrame, source: str = "pairs",
                   line_offset: int | None = None) -> pd.DataFrame:
    """Check a pairs table against its sentences; ``phenomenon`` defaults to the good sentence's.

    Parameters
    ----------
    df : pandas.DataFrame
        ``pair_id``, ``good_id``, ``bad_id`` (and optionally ``phenomenon``).
    sentences : pandas.DataFrame
        The validated sentences table the ids refer to.
    source : str, default "pairs"
        Names the table in errors.
    line_offset : int, optional
        Turns row positions into file lines.

    Returns
    -------
    pandas.DataFrame
        A copy with string ids and a ``phenomenon`` column, the standard columns first.

    Raises
    ------
    DataError
        For a missing column, a duplicate pair id, an id that names no sentence, or a
        pair of a sentence with itself.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_pairs, validate_sentences
    >>> s = validate_sentences(pd.DataFrame({"sentence_id": ["g", "b"], "text": ["Yes.", "No."],
    ...                                      "phenomenon": ["agreement", "agreement"]}))
    >>> validate_pairs(pd.DataFrame({"pair_id": ["p"], "good_id": ["g"], "bad_id": ["b"]}),
    ...                s).to_dict("records")
    [{'pair_id': 'p', 'good_id': 'g', 'bad_id': 'b', 'phenomenon': 'agreement'}]
    """
    require_columns(df, ["pair_id", "good_id", "bad_id"], source)
    out = df.copy()
    for col in ("pair_id", "good_id", "bad_id"):
        out[col] = out[col].astype(str)
    _unique(out, "pair_id", source, line_offset)
    known = pd.Index(sentences["sentence_id"])
    for col in ("good_id", "bad_id"):
        unknown = ~member(out[col], known)
        if unknown.any():
            raise DataError(
                f"{col} {out[col][unknown].iloc[0]!r} names no sentence "
                f"({int(unknown.sum())} such pairs)",
                source=source, row=_where(out, unknown, line_offset), column=col,
                fix="add the sentence to the sentences table or drop the pair",
            )
    same = out["good_id"] == out["bad_id"]
    if same.any():
        raise DataError("a pair compares a sentence with itself", source=source,
                        row=_where(out, same, line_offset), column="bad_id",
                        fix="give the pair two different sentences")
    phen = out["good_id"].map(sentences.set_index("sentence_id")["phenomenon"])
    out["phenomenon"] = out["phenomenon"].astype(object).fillna(phen) if "phenomenon" in out else phen
    out["phenomenon"] = out["phenomenon"].astype(str)
    return out[PAIR_COLUMNS + [c for c in out.columns if c not in PAIR_COLUMNS]]


def validate_scores(df: pd.DataFrame, sentences: pd.DataFrame | None = None,
                    source: str = "scores", line_offset: int | None = None) -> pd.DataFrame:
    """Check a long scores table: numeric scores, one per (sentence, model), known ids.

    NaN scores are kept (metrics exclude and count them); non-numeric ones are errors.

    Parameters
    ----------
    df : pandas.DataFrame
        ``sentence_id``, ``model``, ``score`` (optionally ``method``, ``n_tokens``,
        ``ref_mean``, ``ref_sd``).
    sentences : pandas.DataFrame, optional
        When given, every ``sentence_id`` must be one of its sentences.
    source, line_offset
        As in [validate_sentences][acceptability.data.validate_sentences].

    Returns
    -------
    pandas.DataFrame
        A copy with string ids and numeric scores.

    Raises
    ------
    DataError
        For a missing id, a non-numeric score, two scores of one sentence by one model,
        or a sentence that ``sentences`` lacks.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_scores
    >>> scores = pd.DataFrame({"sentence_id": ["s1", "s2"], "model": "gpt2",
    ...                        "score": ["-12.5", None]})
    >>> validate_scores(scores)["score"].tolist()
    [-12.5, nan]
    """
    require_columns(df, SCORE_COLUMNS, source)
    out = df.copy()
    for col in ("sentence_id", "model"):  # a row without them belongs to no model/sentence
        blank = out[col].isna() | (out[col].astype(str).str.strip() == "")
        if blank.any():
            raise DataError(f"missing {col} ({int(blank.sum())} rows)", source=source,
                            row=_where(out, blank, line_offset), column=col,
                            fix=f"fill in the {col} of every score, or drop those rows")
    out["sentence_id"] = out["sentence_id"].astype(str)
    out["model"] = out["model"].astype(str)
    out["score"] = numeric_column(out, "score", source, line_offset, owner="model")
    for col in ("ref_mean", "ref_sd"):
        if col in out.columns:
            out[col] = numeric_column(out, col, source, line_offset, owner="model")
    dup = out.duplicated(["model", "sentence_id"], keep=False)
    if dup.any():
        row = out[dup].iloc[0]
        raise DataError(
            f"model {row['model']!r} has several scores for sentence {row['sentence_id']!r}",
            source=source, row=_where(out, dup, line_offset), column="sentence_id",
            fix="keep one score per sentence and model (use distinct model names for methods)",
        )
    if sentences is not None:
        unknown = ~member(out["sentence_id"], sentences["sentence_id"])
        if unknown.any():
            raise DataError(
                f"score for unknown sentence {out['sentence_id'][unknown].iloc[0]!r} "
                f"({int(unknown.sum())} such rows)",
                source=source, row=_where(out, unknown, line_offset), column="sentence_id",
                fix="score the dataset's own sentences, or filter the scores to them",
            )
    return out


def validate_trials(df: pd.DataFrame, source: str = "trials", line_offset: int | None = None,
                    columns: tuple[str, ...] = ("participant", "pair_id", "chose_good"),
                    ) -> pd.DataFrame:
    """Check a forced-choice trials table: ``chose_good`` must be 0/1.

    The one check of forced-choice trials: loaders, [from_frames][acceptability.data.from_frames]
    and every statistic of trials use it.

    Parameters
    ----------
    df : pandas.DataFrame
        One row per trial.
    source : str, default "trials"
        The name errors give the table.
    line_offset : int, optional
        Added to row positions (a CSV file's header line makes it 2).
    columns : tuple of str, default ("participant", "pair_id", "chose_good")
        The columns the table must have.

    Returns
    -------
    pandas.DataFrame
        A copy with ``chose_good`` as int.

    Raises
    ------
    DataError
        For a missing column or a ``chose_good`` other than 0 or 1.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import validate_trials
    >>> trials = pd.DataFrame({"participant": ["w1", "w2"], "pair_id": ["p1", "p1"],
    ...                        "chose_good": [1.0, 0.0]})
    >>> validate_trials(trials)["chose_good"].tolist()
    [1, 0]
    """
    require_columns(df, list(columns), source)
    out = df.copy()
    out["chose_good"] = numeric_column(out, "chose_good", source, line_offset)
    bad = ~out["chose_good"].isin([0.0, 1.0])
    if bad.any():
        raise DataError(f"chose_good {out['chose_good'][bad].iloc[0]:g} is not 0 or 1",
                        source=source, row=_where(out, bad, line_offset), column="chose_good",
                        fix="code the choice as 1 (acceptable chosen) or 0, and drop "
                            "unanswered trials")
    out["chose_good"] = out["chose_good"].astype(int)
    return out
