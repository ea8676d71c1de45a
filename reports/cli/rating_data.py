"""Rating data sets as the command line analyses them: Lau et al.'s (2020) three context
conditions as one dataset, and a dataset's first sentences (``--max-sentences``)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from acceptability import data

CONDITIONS = ("none", "random", "real")  # Lau et al. 2020: no, a random, the real context
GROUP = "condition"  # the sentences column that holds a context condition
LIST = "list"  # MegaAcceptability: the list of sentences one set of participants rated


def combine_conditions(datasets: dict[str, data.Dataset], name: str) -> data.Dataset:
    """One dataset of the sentence-condition rows of ``datasets`` (condition -> dataset):
    ``sentence_id`` "<condition>/<id>", ``condition``, and ``type_id`` the sentence's own id,
    so that a sentence's conditions share a type (a cluster of the bootstrap); ratings and
    exclusions follow their sentences.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability import data
    >>> from acceptability.reports.cli.rating_data import combine_conditions
    >>> one = data.from_frames(pd.DataFrame({"sentence_id": ["s1", "s2"],
    ...                                      "text": ["A cat sleeps.", "Cat a sleeps."]}),
    ...                        ratings=pd.DataFrame({"sentence_id": ["s1", "s2"],
    ...                                              "response": [4, 1]}), scale="likert:1-4")
    >>> both = combine_conditions({"none": one, "real": one}, "mine")
    >>> both.sentences[["sentence_id", "type_id", "condition"]].values.tolist()[1:3]
    [['none/s2', 's2', 'none'], ['real/s1', 's1', 'real']]
    >>> both.ratings["sentence_id"].tolist()
    ['none/s1', 'none/s2', 'real/s1', 'real/s2']
    """
    sentences, ratings, exclusions, checksums = [], [], [], {}
    for condition, ds in datasets.items():
        s = ds.sentences.copy()
        s["type_id"] = s["sentence_id"]
        s["sentence_id"] = f"{condition}/" + s["sentence_id"]
        s[GROUP] = condition
        sentences.append(s.drop(columns=["phenomenon"]))  # from_frames: one per type
        r = ds.ratings.copy()
        r["sentence_id"] = f"{condition}/" + r["sentence_id"]
        ratings.append(r)
        ex = ds.exclusions.copy()
        ex["reason"] = f"{condition}: " + ex["reason"].astype(str)
        if "ids" in ex:
            ex["ids"] = [tuple(f"{condition}/{i}" for i in ids) if isinstance(ids, tuple | list)
                         else ids for ids in ex["ids"]]
        exclusions.append(ex)
        checksums |= ds.checksums
    first = next(iter(datasets.values()))
    out = data.from_frames(pd.concat(sentences, ignore_index=True), name=name,
                           ratings=pd.concat(ratings, ignore_index=True),
                           scale=first.ratings.attrs["scale"])
    ex = pd.concat([e for e in exclusions if len(e)], ignore_index=True) \
        if any(len(e) for e in exclusions) else out.exclusions
    return replace(out, source=first.source, checksums=checksums, exclusions=ex)


def lau2020_conditions(path: str | None = None) -> data.Dataset:
    """Lau et al.'s (2020) 250 sentences in their three context conditions (``CONDITIONS``),
    750 sentence-condition rows (``combine_conditions``) with the ``context`` each was
    rated after, which scoring reads: the paragraph's sentences joined by a space where
    the files separate them by tabs, as Lau et al.'s scoring code does
    (``context.replace("\\t", " ")``)."""
    ds = combine_conditions({c: data.load_lau2020(path, context=c) for c in CONDITIONS},
                            "lau2020")
    s = ds.sentences.assign(context=ds.sentences["context"].str.replace("\t", " "))
    return replace(ds, sentences=s)


def _first(ds: data.Dataset, n: int) -> pd.Series:
    """The sentence ids ``head_sentences`` keeps."""
    s = ds.sentences
    ratings = ds.ratings
    if ratings is not None and LIST in ratings:  # whole lists, in order, as many as fit
        list_of = ratings.drop_duplicates("sentence_id").set_index("sentence_id")[LIST]
        lists = list_of.reindex(s["sentence_id"]).to_numpy()  # each sentence's list
        order = pd.unique(lists)
        fits = pd.Series(lists).value_counts().reindex(order).cumsum().to_numpy() <= n
        fits[0] = True
        kept = set(order[fits])
        return s.loc[[x in kept for x in lists], "sentence_id"]
    if GROUP in s:
        return s.groupby(GROUP, sort=False).head(n)["sentence_id"]
    return s["sentence_id"].head(n)


def head_sentences(ds: data.Dataset, n: int) -> data.Dataset:
    """``ds`` with its first ``n`` sentences: of each context condition where there are
    conditions; where the ratings come in lists (MegaAcceptability: each list's sentences
    rated by the same participants), whole lists in order, as many as fit in ``n`` (at
    least one), so that every participant kept keeps all their ratings of a list. Pairs
    whose two sentences are kept stay; what is left out is counted in ``exclusions``, the
    ratings too.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.reports.cli.rating_data import head_sentences
    >>> ds = head_sentences(load_example()[0], 10)
    >>> len(ds.sentences), ds.exclusions[["table", "n"]].to_dict("records")[-1]
    (10, {'table': 'sentences', 'n': 47})
    """
    keep = _first(ds, n)
    if len(keep) == len(ds.sentences):
        return ds
    return ds.subset(sentence_ids=keep)
