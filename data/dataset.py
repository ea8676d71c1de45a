"""``Dataset``: sentences + pairs (+ forced-choice trials, trial-level ratings), and how they
were made."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.ratings import RatingScale, validate_ratings
from acceptability.data.tables import (
    ColumnMap,
    check_column_map,
    human_on_z_scale,
    member,
    rename_columns,
    validate_pairs,
    validate_sentences,
    validate_trials,
)

# the exclusions reason of what ``Dataset.subset`` leaves out (e.g. ``--max-pairs``)
SUBSET_REASON = "not in the subset (Dataset.subset)"
CONDITION = "condition"  # the sentences column that holds a context condition
LIST = "list"  # the ratings column of a list of sentences one set of participants rated


@dataclass
class Dataset:
    """A validated dataset with its provenance: the tables every loader returns.

    Attributes
    ----------
    name : str
        The dataset's name (``"blimp"``, ``"li-adger"``, ``"user"``, ...).
    sentences : pandas.DataFrame
        One row per sentence: ``sentence_id``, ``text``, ``label``, ``human``, ``type_id``,
        ``phenomenon`` and any further columns (docs/tables.md).
    pairs : pandas.DataFrame
        One row per minimal pair: ``pair_id``, ``good_id``, ``bad_id``, ``phenomenon``.
    trials : pandas.DataFrame or None
        Forced-choice trials (``participant``, ``pair_id``, ``chose_good``), where the
        dataset has them.
    ratings : pandas.DataFrame or None
        Trial-level ratings (``participant``, ``sentence_id``, ``response``; the scale in
        ``ratings.attrs["scale"]``, [validate_ratings][acceptability.data.validate_ratings]),
        where the dataset has them.
    source : str
        Where the data were read from.
    checksums : dict of str to str
        sha256 of each file read.
    exclusions : pandas.DataFrame
        What the loader set aside and why (one row per reason with ``table``,
        ``reason``, ``n``); nothing is dropped silently.
    human_standardised : dict or None
        With ``human_scale="raw"``: the mean and SD the raw human ratings were z-scored by.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> ds, _ = load_example()
    >>> ds
    <Dataset 'published example': 57 sentences, 29 pairs, 0 rows excluded; from data/examples (transcribed from the seed papers)>
    >>> ds.pairs.columns[:4].tolist()
    ['pair_id', 'good_id', 'bad_id', 'phenomenon']
    """

    name: str
    sentences: pd.DataFrame
    pairs: pd.DataFrame
    trials: pd.DataFrame | None = None
    ratings: pd.DataFrame | None = None
    source: str = "user frames"
    checksums: dict[str, str] = field(default_factory=dict)
    exclusions: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["table", "reason", "n"])
    )
    #: with ``human_scale="raw"``: the mean and SD the raw human ratings were z-scored by
    human_standardised: dict | None = None

    def __repr__(self) -> str:
        n_ex = int(self.exclusions["n"].sum()) if len(self.exclusions) else 0
        trials = f", {len(self.trials)} trials" if self.trials is not None else ""
        if self.ratings is not None:
            trials += f", {len(self.ratings)} ratings ({self.ratings.attrs.get('scale')})"
        same = int(self.pairs["identical_text"].sum()) if "identical_text" in self.pairs else 0
        flag = f" ({same} pairs with identical texts, kept)" if same else ""
        return (f"<Dataset {self.name!r}: {len(self.sentences)} sentences, "
                f"{len(self.pairs)} pairs{flag}{trials}, {n_ex} rows excluded; "
                f"from {self.source}>")

    def subset(self, pair_ids: Iterable[str] | None = None, *,
               sentence_ids: Iterable[str] | None = None) -> Dataset:
        """The same dataset restricted to some pairs and/or sentences.

        An unknown id is an error. ``exclusions`` stays
        consistent: what the subset leaves out is counted, and a row that lists its
        ``ids`` (sentences or pairs flagged but kept, such as a missing human judgment)
        is recounted over the rows kept. Trials follow their pairs, ratings their sentences (the
        ratings left out are counted too).

        Parameters
        ----------
        pair_ids : iterable of str, optional
            Keep these pairs and the sentences they use.
        sentence_ids : iterable of str, optional
            Keep these sentences and the pairs both of whose sentences are among them. With
            both given, the union of the two.

        Returns
        -------
        Dataset
            A new dataset; this one is unchanged.

        Raises
        ------
        TypeError
            When neither ``pair_ids`` nor ``sentence_ids`` is given.
        DataError
            For an unknown id, or when nothing would be kept.

        Examples
        --------
        >>> from acceptability.data import load_example
        >>> ds, _ = load_example()
        >>> small = ds.subset(["pair01", "pair02"])
        >>> len(small.pairs), len(small.sentences)
        (2, 4)
        >>> small.exclusions[["table", "n"]].to_dict("records")
        [{'table': 'pairs', 'n': 27}, {'table': 'sentences', 'n': 53}]
        """
        if pair_ids is None and sentence_ids is None:
            raise TypeError("subset() needs pair_ids and/or sentence_ids")
        keep_pairs = pd.Series(False, index=self.pairs.index)
        keep_sents = pd.Series(False, index=self.sentences.index)
        if pair_ids is not None:
            keep_pairs |= member(self.pairs["pair_id"], _known(pair_ids, self.pairs["pair_id"],
                                                               "pair"))
            used = self.pairs.loc[keep_pairs, ["good_id", "bad_id"]].stack()
            keep_sents |= member(self.sentences["sentence_id"], used)
        if sentence_ids is not None:
            keep_sents |= member(self.sentences["sentence_id"],
                _known(sentence_ids, self.sentences["sentence_id"], "sentence"))
            kept = self.sentences.loc[keep_sents, "sentence_id"]
            keep_pairs |= member(self.pairs["good_id"], kept) & member(self.pairs["bad_id"], kept)
        if not keep_sents.any():
            raise DataError("the subset keeps no sentences", source="Dataset.subset",
                            fix="pass some pair or sentence ids")
        pairs = self.pairs[keep_pairs].reset_index(drop=True)
        sentences = self.sentences[keep_sents].reset_index(drop=True)
        sentences.attrs = dict(self.sentences.attrs)  # e.g. the norming behind human
        trials = self.trials
        if trials is not None and "pair_id" in trials:
            trials = trials[member(trials["pair_id"].astype(str), pairs["pair_id"])]
            trials = trials.reset_index(drop=True)
        ratings = self.ratings
        if ratings is not None:  # ratings follow their sentences
            ratings = ratings[member(ratings["sentence_id"], sentences["sentence_id"])]
            ratings = ratings.reset_index(drop=True)
        exclusions = _recount(self.exclusions, {"sentences": self.sentences["sentence_id"],
                                                "pairs": self.pairs["pair_id"]},
                              {"sentences": sentences["sentence_id"],
                               "pairs": pairs["pair_id"]})
        if ratings is not None and len(ratings) < len(self.ratings):
            row = {"table": "ratings", "reason": SUBSET_REASON,
                   "n": len(self.ratings) - len(ratings)}
            exclusions = pd.concat([exclusions, pd.DataFrame([row])], ignore_index=True)
        return replace(self, sentences=sentences, pairs=pairs, trials=trials, ratings=ratings,
                       exclusions=exclusions)

    def head(self, n: int) -> Dataset:
        """The dataset with its first ``n`` sentences (as ``--max-sentences N``): of each
        context condition where the sentences have a ``condition`` column; where the
        ratings come in lists (a ``list`` column, as MegaAcceptability's: each list's
        sentences rated by the same participants), whole lists in order, as many as fit in
        ``n`` (at least one), so that every participant kept keeps all their ratings of a
        list. Pairs whose two sentences are kept stay; what is left out is counted in
        ``exclusions``, the ratings too ([subset][acceptability.data.Dataset.subset]).

        Examples
        --------
        >>> from acceptability.data import load_example
        >>> ds = load_example()[0].head(10)
        >>> len(ds.sentences), ds.exclusions[["table", "n"]].to_dict("records")[-1]
        (10, {'table': 'sentences', 'n': 47})
        """
        keep = _first(self, n)
        return self if len(keep) == len(self.sentences) else self.subset(sentence_ids=keep)


def _first(ds: Dataset, n: int) -> pd.Series:
    """The sentence ids ``Dataset.head`` keeps."""
    s, ratings = ds.sentences, ds.ratings
    if ratings is not None and LIST in ratings:  # whole lists, in order, as many as fit
        list_of = ratings.drop_duplicates("sentence_id").set_index("sentence_id")[LIST]
        lists = list_of.reindex(s["sentence_id"]).to_numpy()  # each sentence's list
        order = pd.unique(lists)
        fits = pd.Series(lists).value_counts().reindex(order).cumsum().to_numpy() <= n
        fits[0] = True
        kept = set(order[fits])
        return s.loc[[x in kept for x in lists], "sentence_id"]
    if CONDITION in s:
        return s.groupby(CONDITION, sort=False).head(n)["sentence_id"]
    return s["sentence_id"].head(n)


def _known(ids: Iterable[str], have: pd.Series, what: str) -> list[str]:
    """``ids`` as strings; one that ``have`` lacks is an error."""
    ids = [ids] if isinstance(ids, str) else [str(i) for i in ids]
    unknown = pd.Index(ids).difference(have)
    if len(unknown):
        raise DataError(f"unknown {what} id {unknown[0]!r} ({len(unknown)} such ids)",
                        source="Dataset.subset", fix=f"pass {what} ids of this dataset")
    return ids


def _recount(exclusions: pd.DataFrame, before: dict[str, pd.Series],
             after: dict[str, pd.Series]) -> pd.DataFrame:
    """Exclusions after a subset: rows with ``ids`` of rows still in a table recounted
    over the kept rows, plus one row per table for what the subset left out."""
    had = {table: set(ids) for table, ids in before.items()}
    kept = {table: set(ids) for table, ids in after.items()}
    rows = []
    for row in exclusions.to_dict("records"):
        ids, table = row.get("ids"), row.get("table")
        if isinstance(ids, (list, tuple, set, frozenset)) and set(ids) <= had.get(table, set()):
            ids = tuple(i for i in ids if i in kept[table])
            row |= {"ids": ids, "n": len(ids)}
        rows.append(row)
    for table in ("pairs", "sentences"):
        n = len(before[table]) - len(after[table])
        if n:
            rows.append({"table": table, "reason": SUBSET_REASON, "n": n})
    columns = list(dict.fromkeys([*exclusions.columns, "table", "reason", "n"]))
    return pd.DataFrame(rows, columns=columns)


def from_frames(sentences: pd.DataFrame, pairs: pd.DataFrame | None = None,
                trials: pd.DataFrame | None = None, name: str = "user",
                human_scale: str = "z", ratings: pd.DataFrame | None = None,
                scale: str | RatingScale | None = None, columns: ColumnMap = None) -> Dataset:
    """A Dataset from the user's own tables, validated (the columns are defined in docs/tables.md).

    Parameters
    ----------
    sentences : pandas.DataFrame
        ``sentence_id`` and ``text``; optionally ``label`` (1/0), ``human``, ``type_id``,
        ``phenomenon`` and any further columns.
    pairs : pandas.DataFrame, optional
        ``pair_id``, ``good_id``, ``bad_id`` (and optionally ``phenomenon``); None or empty
        for a sentence-only dataset.
    trials : pandas.DataFrame, optional
        Forced-choice trials: ``participant``, ``pair_id``, ``chose_good`` (0/1).
    name : str, default "user"
        The dataset's name.
    human_scale : {"z", "raw"}, default "z"
        ``"z"``: ``human`` holds z-scores (values all of one sign are an error); ``"raw"``:
        raw ratings, z-scored over the sentences (`data.tables.human_on_z_scale`).
    ratings : pandas.DataFrame, optional
        Trial-level ratings: ``sentence_id``, ``response``, optionally ``participant``.
    scale : str or RatingScale, optional
        The ratings' scale (``"likert:1-7"``, ``"me"``, ``"binary"``); needed with
        ``ratings`` unless ``ratings.attrs["scale"]`` declares it.
    columns : dict of str to str, optional
        Your column names -> the package's, for every table that has them, e.g.
        ``{"subject": "participant"}``; a name no table has is an error. Ratings without
        ``participant`` that hold another column are refused until it is mapped
        ([validate_ratings][acceptability.data.validate_ratings]).

    Returns
    -------
    Dataset
        The validated tables.

    Raises
    ------
    DataError
        For a missing column, a duplicate id, a pair naming an unknown sentence, a label
        other than 0/1, and the like; the message names the table, row and column.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import from_frames
    >>> sentences = pd.DataFrame({"sentence_id": ["s1", "s2"],
    ...                           "text": ["The cat sleeps.", "The cat sleep."],
    ...                           "human": [0.8, -0.6]})
    >>> pairs = pd.DataFrame({"pair_id": ["p1"], "good_id": ["s1"], "bad_id": ["s2"]})
    >>> from_frames(sentences, pairs, name="cats")
    <Dataset 'cats': 2 sentences, 1 pairs, 0 rows excluded; from user frames>
    """
    columns = check_column_map(columns, {"sentences": sentences, "pairs": pairs,
                                         "trials": trials, "ratings": ratings})
    sentences, pairs, trials = (rename_columns(t, columns, f"{name} {what}") if t is not None
                                else None for t, what in ((sentences, "sentences"),
                                                          (pairs, "pairs"), (trials, "trials")))
    s = validate_sentences(sentences, source=f"{name} sentences")
    s, standardised = human_on_z_scale(s, human_scale, source=f"{name} sentences")
    if pairs is None or len(pairs) == 0:
        p = pd.DataFrame(columns=["pair_id", "good_id", "bad_id", "phenomenon"])
    else:
        p = validate_pairs(pairs, s, source=f"{name} pairs")
    t = validate_trials(trials, source=f"{name} trials") if trials is not None else None
    r = (validate_ratings(ratings, scale, s, source=f"{name} ratings", columns=columns)
         .reset_index(drop=True) if ratings is not None else None)
    return Dataset(name=name, sentences=s.reset_index(drop=True), pairs=p.reset_index(drop=True),
                   trials=t, ratings=r, human_standardised=standardised)
