"""Seed 004's n-gram baselines (Vázquez Martínez et al. 2023, sec. 3.1.1, Table 1): a
5-gram word model and a 5-gram part-of-speech-tag model trained on child-directed speech
only (AO-CHILDES, ``data.load_childes``), the benchmark sentences tagged by a tagger
trained on the same corpus's tags, so that no knowledge from a larger corpus enters.

Both are the package's interpolated Kneser-Ney models (``scoring.train_ngram``). Seed 004
trained NLTK's ``KneserNeyInterpolated(5, discount=0.01)`` on GPoSTTL (Brill) tags; here
the discounts are estimated (Ney et al. 1994) and the tags are CHILDES's own MOR tags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from acceptability.data.loaders.childes import childes_tokenize
from acceptability.data.tables import require_columns
from acceptability.scoring.api import score, sentences_frame
from acceptability.scoring.baselines.ngram import KneserNey, train_ngram
from acceptability.scoring.errors import ScoringError


@dataclass
class CorpusBaselines:
    """The word and tag n-gram models of one corpus, and the tagger for the tag model (seed 004, sec. 3.1.1).

    Attributes
    ----------
    word : KneserNey
        The word model.
    tag : KneserNey
        The part-of-speech tag model.
    tagger : Tagger
        Tags the benchmark sentences for the tag model (``.tag(words) -> tags``).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.baselines.corpus import train_baselines
    >>> tagged = pd.DataFrame({"text": ["see it ."], "tags": ["v pro ."]})
    >>> train_baselines(tagged, order=3, max_iterations=10).names
    ('3-word', '3-tag')
    """

    word: KneserNey
    tag: KneserNey
    tagger: Any  # scoring.tagger.Tagger: .tag(words) -> tags

    @property
    def names(self) -> tuple[str, str]:
        return self.word.name, self.tag.name


def _split_tags(text: str) -> list[str]:
    return text.split()


def train_baselines(corpus: pd.DataFrame, order: int = 5, tagger: Any = None,
                    **tagger_options: Any) -> CorpusBaselines:
    """``order``-gram word and tag models of a tagged corpus, and a tagger trained on its tags.

    Parameters
    ----------
    corpus : pandas.DataFrame
        ``text`` and ``tags``, space-separated and aligned
        ([load_childes][acceptability.data.load_childes]).
    order : int, default 5
        The n-gram order (seed 004: 5).
    tagger : Tagger, optional
        A tagger to use; by default one is trained on all of the corpus's tags
        (`scoring.baselines.tagger.train_tagger`).
    **tagger_options
        Passed to ``train_tagger`` (``max_iterations``, ``c1``, ``c2``).

    Returns
    -------
    CorpusBaselines
        The models ``<order>-word`` and ``<order>-tag`` and the tagger.

    Raises
    ------
    ScoringError
        When a row's words and tags differ in number.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.baselines.corpus import train_baselines
    >>> corpus = pd.DataFrame({"text": ["you want the ball ?", "the dog is here ."],
    ...                        "tags": ["pro v det n ?", "det n cop adv ."]})
    >>> baselines = train_baselines(corpus, order=2, max_iterations=10)
    >>> baselines.tag.order, baselines.tagger.tag(["the", "ball"])
    (2, ['det', 'n'])
    """
    require_columns(corpus, ["text", "tags"], "corpus")
    words = [t.split() for t in corpus["text"]]
    tags = [t.split() for t in corpus["tags"]]
    bad = [i for i, (w, t) in enumerate(zip(words, tags, strict=True)) if len(w) != len(t)]
    if bad:
        raise ScoringError(f"{len(bad)} corpus rows have words and tags of different lengths "
                           f"(first: row {bad[0]}); load the corpus with data.load_childes")
    if tagger is None:
        from acceptability.scoring.baselines.tagger import train_tagger

        tagger = train_tagger(words, tags, **tagger_options)
    word = train_ngram(words, order, tokenize=childes_tokenize, name=f"{order}-word")
    tag = train_ngram(tags, order, tokenize=_split_tags, name=f"{order}-tag")
    return CorpusBaselines(word=word, tag=tag, tagger=tagger)


def tag_sentences(data: Any, tagger: Any) -> pd.DataFrame:
    """A dataset's sentences with their tags, tokenized as the corpus is.

    Parameters
    ----------
    data : Dataset or pandas.DataFrame
        The sentences to tag (``sentence_id``, ``text``).
    tagger : Tagger
        Tags a token list (tokens from [childes_tokenize][acceptability.data.childes_tokenize]).

    Returns
    -------
    pandas.DataFrame
        ``sentence_id``, ``text`` and ``tags`` (space-separated, one per corpus token).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.baselines.corpus import tag_sentences
    >>> from acceptability.scoring.baselines.tagger import train_tagger
    >>> tagger = train_tagger([["the", "dog"]], [["det", "n"]], max_iterations=10)
    >>> frame = pd.DataFrame({"sentence_id": ["s1"], "text": ["The dog!"]})
    >>> tag_sentences(frame, tagger)["tags"].tolist()
    ['det n !']
    """
    frame = sentences_frame(data)
    frame["tags"] = [" ".join(tagger.tag(childes_tokenize(t))) for t in frame["text"]]
    return frame


def baseline_scores(data: Any, baselines: CorpusBaselines, progress: bool = False) -> pd.DataFrame:
    """The long scores table of the word and the tag model: log P of each sentence's tokens, and of its tags.

    Not cached: the models are trained in memory, and an n-gram scores a benchmark in
    seconds.

    Parameters
    ----------
    data : Dataset or pandas.DataFrame
        The sentences to score.
    baselines : CorpusBaselines
        From `train_baselines`.
    progress : bool, default False
        Show a progress bar.

    Returns
    -------
    pandas.DataFrame
        Scores of the models ``<order>-word`` and ``<order>-tag`` (method ``"ngram"``).

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.data import load_example
    >>> from acceptability.scoring.baselines.corpus import baseline_scores, train_baselines
    >>> corpus = pd.DataFrame({"text": ["john tried to win .", "sarah counted ."],
    ...                        "tags": ["n:prop v inf v .", "n:prop v ."]})
    >>> baselines = train_baselines(corpus, order=2, max_iterations=10)
    >>> ds, _ = load_example()
    >>> scores = baseline_scores(ds.subset(["pair01"]), baselines)
    >>> scores.groupby("model").size().to_dict()
    {'2-tag': 2, '2-word': 2}
    """
    tagged = tag_sentences(data, baselines.tagger)
    word = score(tagged, baselines.word, method="ngram", model_name=baselines.word.name,
                 cache=False, progress=progress)
    tag = score(tagged, baselines.tag, method="ngram", text_column="tags",
                model_name=baselines.tag.name, cache=False, progress=progress)
    return pd.concat([word, tag], ignore_index=True)
