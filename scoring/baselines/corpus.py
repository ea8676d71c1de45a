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

from acceptability.data.childes import childes_tokenize
from acceptability.data.tables import require_columns
from acceptability.scoring.api import score, sentences_frame
from acceptability.scoring.baselines.ngram import KneserNey, train_ngram
from acceptability.scoring.errors import ScoringError


@dataclass
class CorpusBaselines:
    """The word and tag n-gram models of one corpus, and the tagger that tags the
    benchmark sentences for the tag model."""

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
    """``order``-gram word and tag models of ``corpus`` (``data.load_childes()``: columns
    ``text`` and ``tags``, space-separated and aligned), and a tagger trained on all of
    its tags unless one is given (``scoring.tagger.train_tagger``)."""
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
    """``sentence_id``, ``text`` and ``tags`` (space-separated, one per corpus token) of
    a dataset's sentences, tokenized as the corpus is (``data.childes.childes_tokenize``)."""
    frame = sentences_frame(data)
    frame["tags"] = [" ".join(tagger.tag(childes_tokenize(t))) for t in frame["text"]]
    return frame


def baseline_scores(data: Any, baselines: CorpusBaselines, progress: bool = False) -> pd.DataFrame:
    """Long scores table of the word and the tag model (``<order>-word``, ``<order>-tag``):
    log P of each sentence's tokens, and of its tags under the tag model. Not cached: the
    models are trained in memory, and an n-gram scores a benchmark in seconds."""
    tagged = tag_sentences(data, baselines.tagger)
    word = score(tagged, baselines.word, method="ngram", model_name=baselines.word.name,
                 cache=False, progress=progress)
    tag = score(tagged, baselines.tag, method="ngram", text_column="tags",
                model_name=baselines.tag.name, cache=False, progress=progress)
    return pd.concat([word, tag], ignore_index=True)
