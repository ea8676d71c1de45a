"""A part-of-speech tagger trained only on a corpus's own tags, for POS-tag n-gram models.

Seed 004 (section 3.1.1) tags AO-CHILDES, trains a CRF tagger on it and tags the benchmark
sentences with that tagger, so that no knowledge from a tagger trained on other corpora
reaches the benchmarks. The seed tagged AO-CHILDES with GPoSTTL (a Brill-style rule-based
tagger) first; here the training tags are the corpus's own CHILDES MOR tags
(``data.loaders.childes.load_childes``), so no outside tagger is involved at all, and the tagger is a linear-chain CRF (CRFsuite through
python-crfsuite: L-BFGS, L1 = L2 = 0.1, 100 iterations, all label transitions, as the seed's
sklearn-crfsuite CRF). Each word's features are its form, its first and last one to three
characters, the words before and after it, whether it is first or last, and whether it
holds a hyphen, an apostrophe or a digit (the corpus is lower-case, so no case features).

Why a CRF and not NLTK's averaged perceptron (``PerceptronTagger(load=False)``, 5
iterations): measured on the 154,876 utterances that ``load_childes`` keeps from the 21
registered corpora, holding out 10% of the transcripts (``transcript_split``, seed 0: 88
transcripts, 15,630 utterances, 62,412 words), both reach the same word accuracy when
trained on the other 139,246 utterances: CRF 95.50%, perceptron 95.51% (the
most-frequent-tag baseline: 88.56%). With less training data the CRF is ahead (10,000
utterances: 93.33% vs 92.19%, baseline 85.85%); it tags 6 times faster (1.1 s vs 6.5 s for
the held-out utterances), and it is the seed's model. Its cost is training time: 663 s vs
292 s on the whole training part (one core of a shared 2-core machine); with
``max_iterations=50`` it takes 326 s and reaches 95.43%.

Punctuation tokens (no letter or digit) are tagged as themselves, the CHILDES %mor
convention the corpus follows for its utterance-final marks; a mark the corpus never has
(a comma) gets the same treatment. Models are kept in CRFsuite's own binary format, never
pickled: `Tagger.save` and `load_tagger` write and read that format.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from acceptability.data.io.atomic import write_bytes
from acceptability.data.loaders.childes import childes_corpus_text, childes_tokenize
from acceptability.scoring.errors import ScoringError

DEFAULT_PARAMS = {"c1": 0.1, "c2": 0.1, "max_iterations": 100,
                  "feature.possible_transitions": True}


def _pycrfsuite():
    try:
        import pycrfsuite
    except ImportError:
        raise ScoringError("the POS tagger needs python-crfsuite: "
                           "pip install python-crfsuite") from None
    return pycrfsuite


def is_punctuation(token: str) -> bool:
    """True for a token with no letter or digit (such a token is tagged as itself).

    Parameters
    ----------
    token : str
        A token.

    Returns
    -------
    bool
        Whether it is punctuation.

    Examples
    --------
    >>> from acceptability.scoring.baselines.tagger import is_punctuation
    >>> is_punctuation("?"), is_punctuation("don't")
    (True, False)
    """
    return not any(ch.isalnum() for ch in token)


def word_features(words: Sequence[str]) -> list[dict[str, str | bool]]:
    """The CRF features of each word of a sentence (the module docstring lists them).

    Parameters
    ----------
    words : sequence of str
        The sentence's tokens.

    Returns
    -------
    list of dict
        One dict per word, from feature name (``w``, ``p1``, ``prev``, ``first``, ...)
        to its value.

    Examples
    --------
    >>> from acceptability.scoring.baselines.tagger import word_features
    >>> features = word_features(["where", "is", "it"])
    >>> features[1]["prev"], features[1]["s2"], features[2]["last"]
    ('where', 'is', True)
    """
    n = len(words)
    out = []
    for i, w in enumerate(words):
        out.append({
            "w": w, "p1": w[:1], "p2": w[:2], "p3": w[:3], "s1": w[-1:], "s2": w[-2:],
            "s3": w[-3:], "prev": words[i - 1] if i else "<s>",
            "next": words[i + 1] if i + 1 < n else "</s>", "first": i == 0,
            "last": i == n - 1, "hyphen": "-" in w, "apostrophe": "'" in w,
            "digit": any(ch.isdigit() for ch in w),
        })
    return out


@dataclass
class Tagger:
    """A trained CRF part-of-speech tagger (seed 004, section 3.1.1).

    ``tag(words)`` tags tokens; ``tag_text(text)`` and calling the tagger tokenize text as
    the corpus is tokenized first ([childes_tokenize][acceptability.data.childes_tokenize]),
    so ``train_ngram(tags, 5, tokenize=tagger)`` scores sentences as tag sequences.

    Parameters
    ----------
    model : bytes
        A model in CRFsuite's binary format.

    Raises
    ------
    ScoringError
        When ``model`` is not a CRFsuite model, or python-crfsuite is missing.

    Examples
    --------
    >>> from acceptability.scoring.baselines.tagger import train_tagger
    >>> words = [["the", "dog", "runs"], ["a", "cat", "sleeps"], ["the", "cat", "runs"]]
    >>> tagger = train_tagger(words, [["det", "n", "v"]] * 3)
    >>> tagger.tag(["a", "dog", "sleeps", "."])
    ['det', 'n', 'v', '.']
    >>> tagger("The dog runs?")
    ['det', 'n', 'v', '?']
    """

    model: bytes
    labels: list[str] = field(init=False, default_factory=list)
    _tagger: object = field(init=False, default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        tagger = _pycrfsuite().Tagger()
        try:
            tagger.open_inmemory(self.model)
        except (ValueError, OSError) as err:
            raise ScoringError(f"not a CRFsuite model ({err})") from None
        self._tagger = tagger
        self.labels = list(tagger.labels())

    def tag(self, words: Sequence[str]) -> list[str]:
        """One tag per word; punctuation tokens are their own tag.

        Parameters
        ----------
        words : sequence of str
            Tokens.

        Returns
        -------
        list of str
            Their tags.
        """
        words = list(words)
        if not words:
            return []
        tags = self._tagger.tag(word_features(words))
        return [w if is_punctuation(w) else t for w, t in zip(words, tags, strict=True)]

    def tag_sentences(self, sentences: Sequence[Sequence[str]]) -> list[list[str]]:
        """The tags of each of several token lists.

        Parameters
        ----------
        sentences : sequence of sequence of str
            Tokenized sentences.

        Returns
        -------
        list of list of str
            One tag list per sentence.
        """
        return [self.tag(s) for s in sentences]

    def __call__(self, text: str) -> list[str]:
        return self.tag(childes_tokenize(text))

    def tag_text(self, text: str) -> str:
        """The tags of ``text``'s tokens (``childes_tokenize``), space-separated.

        Parameters
        ----------
        text : str
            A sentence; it is tokenized as the corpus is.

        Returns
        -------
        str
            The tags, space-separated.
        """
        return " ".join(self(text))

    def save(self, path: str | os.PathLike) -> Path:
        """Write the model in CRFsuite's binary format (no pickle).

        Parameters
        ----------
        path : str or os.PathLike
            The file to write.

        Returns
        -------
        pathlib.Path
            The path written; `load_tagger` reads it.
        """
        return write_bytes(path, self.model)


def load_tagger(path: str | os.PathLike) -> Tagger:
    """A tagger written by ``Tagger.save`` (a CRFsuite model file).

    Parameters
    ----------
    path : str or os.PathLike
        The model file.

    Returns
    -------
    Tagger
        The tagger.

    Raises
    ------
    ScoringError
        For a missing file or one that is not a CRFsuite model.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.scoring.baselines.tagger import load_tagger, train_tagger
    >>> tagger = train_tagger([["the", "dog"]], [["det", "n"]], max_iterations=10)
    >>> path = tagger.save(pathlib.Path(tempfile.mkdtemp()) / "tagger.crfsuite")
    >>> load_tagger(path).labels
    ['det', 'n']
    """
    path = Path(path)
    if not path.is_file():
        raise ScoringError(f"tagger model file {str(path)!r} does not exist")
    return Tagger(path.read_bytes())


def _check_pairs(sentences, tags) -> None:
    if len(sentences) != len(tags):
        raise ScoringError(f"{len(sentences)} sentences but {len(tags)} tag sequences; "
                           "give one tag sequence per sentence")
    if not sentences:
        raise ScoringError("no training sentences; give tagged sentences to train on")
    for i, (s, t) in enumerate(zip(sentences, tags, strict=True)):
        if len(s) != len(t) or not s:
            raise ScoringError(f"sentence {i} has {len(s)} words but {len(t)} tags; "
                               "give one tag per word (and no empty sentence)")


def train_tagger(sentences: Sequence[Sequence[str]], tags: Sequence[Sequence[str]], *,
                 max_iterations: int = 100, c1: float = 0.1, c2: float = 0.1) -> Tagger:
    """A linear-chain CRF tagger trained on tagged sentences, with seed 004's parameters.

    CRFsuite through python-crfsuite: L-BFGS, L1 = ``c1``, L2 = ``c2``, all label
    transitions, as the seed's sklearn-crfsuite CRF.

    Parameters
    ----------
    sentences : sequence of sequence of str
        The training sentences' words, e.g. the first list of
        [childes_corpus_text][acceptability.data.childes_corpus_text]'s result.
    tags : sequence of sequence of str
        One tag per word.
    max_iterations : int, default 100
        L-BFGS iterations.
    c1 : float, default 0.1
        L1 penalty.
    c2 : float, default 0.1
        L2 penalty.

    Returns
    -------
    Tagger
        The trained tagger.

    Raises
    ------
    ScoringError
        For no sentences, or a sentence whose words and tags differ in number.

    Examples
    --------
    >>> from acceptability.scoring.baselines.tagger import train_tagger
    >>> tagger = train_tagger([["you", "see", "it"], ["i", "see", "you"]],
    ...                       [["pro", "v", "pro"], ["pro", "v", "pro"]], max_iterations=20)
    >>> tagger.tag_text("I see it.")
    'pro v pro .'
    """
    _check_pairs(sentences, tags)
    crf = _pycrfsuite()
    trainer = crf.Trainer(verbose=False)
    for s, t in zip(sentences, tags, strict=True):
        trainer.append(word_features(list(s)), list(t))
    trainer.select("lbfgs")
    trainer.set_params(DEFAULT_PARAMS | {"c1": c1, "c2": c2, "max_iterations": max_iterations})
    with tempfile.TemporaryDirectory() as tmp:  # CRFsuite trains into a file
        model = Path(tmp) / "tagger.crfsuite"
        trainer.train(str(model))
        return Tagger(model.read_bytes())


def most_frequent_tags(sentences, tags) -> tuple[dict[str, str], str]:
    """The baseline tagger: each word's most frequent training tag.

    Parameters
    ----------
    sentences : sequence of sequence of str
        Training words.
    tags : sequence of sequence of str
        Their tags.

    Returns
    -------
    per_word : dict of str to str
        Each (non-punctuation) word's most frequent tag; ties: the tag seen first.
    default : str
        The most frequent tag overall, for unknown words.

    Examples
    --------
    >>> from acceptability.scoring.baselines.tagger import most_frequent_tags
    >>> most_frequent_tags([["run", "run", "."], ["run"]], [["v", "n", "."], ["v"]])
    ({'run': 'v'}, 'v')
    """
    per_word: defaultdict[str, Counter] = defaultdict(Counter)
    overall: Counter = Counter()
    for s, t in zip(sentences, tags, strict=True):
        for w, g in zip(s, t, strict=True):
            if not is_punctuation(w):
                per_word[w][g] += 1
                overall[g] += 1
    return {w: c.most_common(1)[0][0] for w, c in per_word.items()}, overall.most_common(1)[0][0]


def transcript_split(table, test_size: float = 0.1, seed: int = 0) -> np.ndarray:
    """True for the rows of the held-out transcripts.

    Whole transcripts are held out, not utterances, since a transcript's utterances are
    alike. CHILDES transcript ids are unique across corpora.

    Parameters
    ----------
    table : pandas.DataFrame
        A [load_childes][acceptability.data.load_childes] table (``transcript_id``).
    test_size : float, default 0.1
        The share of transcripts held out (at least one).
    seed : int, default 0
        Seeds the draw.

    Returns
    -------
    numpy.ndarray
        A boolean mask over the rows.

    Raises
    ------
    ScoringError
        Without a ``transcript_id`` column, for ``test_size`` outside (0, 1), or with fewer
        than two transcripts.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.baselines.tagger import transcript_split
    >>> table = pd.DataFrame({"transcript_id": [1, 1, 2, 2, 3]})
    >>> int(transcript_split(table, test_size=0.3).sum()) in (1, 2)
    True
    """
    if "transcript_id" not in table.columns:
        raise ScoringError("the table has no 'transcript_id' column; pass a table made by "
                           "data.load_childes")
    key = table["transcript_id"].to_numpy()
    ids = np.unique(key)
    if not 0 < test_size < 1 or len(ids) < 2:
        raise ScoringError(f"cannot hold out {test_size} of {len(ids)} transcript(s); give "
                           "0 < test_size < 1 and at least two transcripts")
    n_test = max(1, round(test_size * len(ids)))
    held = np.random.default_rng(seed).permutation(ids)[:n_test]
    return np.isin(key, held)


def evaluate_tagger(table, *, test_size: float = 0.1, seed: int = 0,
                    train_size: int | None = None, **train_kwargs) -> dict:
    """Held-out accuracy of `train_tagger` on a CHILDES table, split by transcript.

    Accuracy counts word tokens only (punctuation tokens are tagged by rule). The split
    is `transcript_split`'s; the baseline is
    `most_frequent_tags`'s.

    Parameters
    ----------
    table : pandas.DataFrame
        A [load_childes][acceptability.data.load_childes] table.
    test_size : float, default 0.1
        The share of transcripts held out.
    seed : int, default 0
        Seeds the split (and, with ``train_size``, the training sample).
    train_size : int, optional
        Train on that many utterances of the training transcripts, drawn with ``seed``
        (all by default).
    **train_kwargs
        Passed to `train_tagger` (``max_iterations``, ``c1``, ``c2``).

    Returns
    -------
    dict
        ``accuracy``, ``baseline_accuracy``, ``n_train_utterances``, ``n_train_words``,
        ``n_test_utterances``, ``n_test_words``, ``n_test_transcripts``,
        ``train_seconds`` and the trained ``tagger``.

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.baselines.tagger import evaluate_tagger
    >>> table = pd.DataFrame({"transcript_id": [1, 1, 2, 2],
    ...                       "text": ["see it .", "see you .", "see it .", "get it ."],
    ...                       "tags": ["v pro .", "v pro .", "v pro .", "v pro ."]})
    >>> result = evaluate_tagger(table, test_size=0.5, max_iterations=20)
    >>> result["accuracy"], result["n_test_words"]
    (1.0, 4)
    """
    held = transcript_split(table, test_size, seed)
    words, tags = childes_corpus_text(table)
    train_rows = np.flatnonzero(~held)
    if train_size is not None and train_size < len(train_rows):
        rng = np.random.default_rng(seed + 1)
        train_rows = np.sort(rng.choice(train_rows, size=train_size, replace=False))
    test_rows = np.flatnonzero(held)
    train_w, train_t = [words[i] for i in train_rows], [tags[i] for i in train_rows]
    test_w, test_t = [words[i] for i in test_rows], [tags[i] for i in test_rows]
    start = time.perf_counter()
    tagger = train_tagger(train_w, train_t, **train_kwargs)
    seconds = time.perf_counter() - start
    known, top = most_frequent_tags(train_w, train_t)
    n = right = base = 0
    for s, gold in zip(test_w, test_t, strict=True):
        for w, g, p in zip(s, gold, tagger.tag(s), strict=True):
            if not is_punctuation(w):
                n += 1
                right += p == g
                base += known.get(w, top) == g
    n_train_words = sum(1 for s in train_w for w in s if not is_punctuation(w))
    keys = table["transcript_id"].to_numpy()[held]
    return {"accuracy": right / n, "baseline_accuracy": base / n,
            "n_train_utterances": len(train_w), "n_train_words": n_train_words,
            "n_test_utterances": len(test_w), "n_test_words": n,
            "n_test_transcripts": len(np.unique(keys)), "train_seconds": seconds,
            "tagger": tagger}
