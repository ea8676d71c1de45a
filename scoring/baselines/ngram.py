"""Word (or POS-tag) n-gram models: interpolated Kneser-Ney trained here, or ARPA files through KenLM.

Written by hand because NLTK's `nltk.lm.KneserNeyInterpolated` is too slow to score with: measured
here at about 150 ms per word for a 5-gram model on a 20k-sentence corpus (an LI-Adger run would
take hours); these counts score a word in microseconds. Conventions follow KenLM/SRILM: one `<s>`
before and `</s>` after each sentence, unknown words map to `<unk>`, lower orders use KenLM's
adjusted (continuation) counts, one discount per order D = n1 / (n1 + 2 n2) (Ney et al. 1994).
All log-probabilities are natural logs. A POS-tag model is the same model over tag sequences:
pass a tagger as `tokenize`, or pre-tagged text with `tokenize=str.split`.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from acceptability.data.io.atomic import write_text
from acceptability.scoring.errors import ScoringError

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
LN10 = math.log(10)
Tokenize = Callable[[str], list[str]]


def default_tokenize(text: str) -> list[str]:
    """Penn Treebank word tokenization (NLTK's ``TreebankWordTokenizer``, no data download needed).

    Parameters
    ----------
    text : str
        A sentence as written.

    Returns
    -------
    list of str
        The Penn Treebank tokens, in order.

    Examples
    --------
    >>> from acceptability.scoring.baselines.ngram import default_tokenize
    >>> default_tokenize("The cats don't sleep.")
    ['The', 'cats', 'do', "n't", 'sleep', '.']
    """
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer().tokenize(text)


def _tokens(sentence: str | list[str], tokenize: Tokenize) -> list[str]:
    return list(sentence) if isinstance(sentence, list | tuple) else tokenize(sentence)


@dataclass
class UnigramModel:
    """A unigram model: log P_u(w) per word, for the SLOR and NormLP normalisations (Lau et al. 2017).

    Attributes
    ----------
    logprobs : dict of str to float
        Natural-log probability of each known word.
    unk_logprob : float
        The log-probability of an unknown word.
    tokenize : callable
        Splits a sentence into words.
    name : str
        The model's name in score tables.

    Examples
    --------
    >>> from acceptability.scoring.baselines.ngram import train_unigram
    >>> model = train_unigram(["the cat sleeps", "the dog"], tokenize=str.split)
    >>> round(model.logprob("the"), 3), round(model.logprob("zebra"), 3)
    (-1.204, -2.303)
    """

    logprobs: dict[str, float]
    unk_logprob: float
    tokenize: Tokenize = default_tokenize
    name: str = "unigram"

    def logprob(self, word: str) -> float:
        return self.logprobs.get(word, self.unk_logprob)

    def sentence_logprob(self, text: str | list[str]) -> tuple[float, int]:
        """Log P_u of a sentence and its length.

        Parameters
        ----------
        text : str or list of str
            A sentence, or its tokens.

        Returns
        -------
        logprob : float
            The sum of the words' log-probabilities (no sentence-end token).
        n_words : int
            The number of words.

        Examples
        --------
        >>> from acceptability.scoring.baselines.ngram import train_unigram
        >>> model = train_unigram([["a", "b"], ["a"]])
        >>> lp, n = model.sentence_logprob(["a", "a"])
        >>> round(lp, 3), n
        (-1.386, 2)
        """
        words = _tokens(text, self.tokenize)
        return sum(self.logprob(w) for w in words), len(words)


def unigram_from_frequencies(
    counts: Mapping[str, float], *, alpha: float = 1.0, tokenize: Tokenize = default_tokenize
) -> UnigramModel:
    """A unigram model from word frequency counts, add-``alpha`` smoothed (one extra type for unknowns).

    Parameters
    ----------
    counts : mapping of str to float
        Frequency of each word.
    alpha : float, default 1.0
        The count added to every type, the unknown-word type included.
    tokenize : callable, default default_tokenize
        Splits a sentence into words.

    Returns
    -------
    UnigramModel
        P(w) = (count(w) + alpha) / (total + alpha * (types + 1)).

    Raises
    ------
    ScoringError
        When the counts are empty.

    Examples
    --------
    >>> import math
    >>> from acceptability.scoring.baselines.ngram import unigram_from_frequencies
    >>> model = unigram_from_frequencies({"the": 3, "cat": 1})
    >>> round(math.exp(model.logprob("the")), 3), round(math.exp(model.unk_logprob), 3)
    (0.571, 0.143)
    """
    total = float(sum(counts.values())) + alpha * (len(counts) + 1)
    if total <= 0:
        raise ScoringError("unigram counts are empty; give word frequency counts > 0")
    return UnigramModel(
        {w: math.log((c + alpha) / total) for w, c in counts.items()},
        math.log(alpha / total) if alpha > 0 else -math.inf,
        tokenize,
    )


def train_unigram(
    corpus: Iterable[str | list[str]], *, alpha: float = 1.0, tokenize: Tokenize = default_tokenize
) -> UnigramModel:
    """A unigram model from a corpus of sentences (strings, or lists of tokens or tags).

    Parameters
    ----------
    corpus : iterable of str or list of str
        The training sentences.
    alpha : float, default 1.0
        Add-alpha smoothing, as in `unigram_from_frequencies`.
    tokenize : callable, default default_tokenize
        Splits string sentences into words.

    Returns
    -------
    UnigramModel
        The smoothed model.

    Examples
    --------
    >>> from acceptability.scoring.baselines.ngram import train_unigram
    >>> model = train_unigram(["The cat sleeps.", "The dog barks."])
    >>> sorted(model.logprobs)[:3]
    ['.', 'The', 'barks']
    """
    counts = Counter(w for s in corpus for w in _tokens(s, tokenize))
    return unigram_from_frequencies(counts, alpha=alpha, tokenize=tokenize)


@dataclass
class KneserNey:
    """An interpolated Kneser-Ney n-gram model over the counts of a training corpus.

    Counts follow KenLM: adjusted (continuation) counts below the top order, one
    discount per order D = n1 / (n1 + 2 n2) (Ney et al. 1994). Made by
    `train_ngram`.

    Examples
    --------
    >>> from acceptability.scoring.baselines.ngram import train_ngram
    >>> model = train_ngram(["the cat sleeps", "the dog sleeps"], 2, tokenize=str.split)
    >>> model.order, sorted(model.vocab)
    (2, ['</s>', '<unk>', 'cat', 'dog', 'sleeps', 'the'])
    """

    order: int
    adjusted: list[dict[tuple, int]]  # [k-1]: adjusted count of each k-gram
    totals: list[dict[tuple, int]]  # [k-1]: sum of adjusted k-gram counts per (k-1)-gram context
    types: list[dict[tuple, int]]  # [k-1]: distinct words after each context
    discounts: list[float]
    vocab: frozenset[str]  # predictable words: training words, </s>, <unk>
    word_counts: Counter
    tokenize: Tokenize = default_tokenize
    name: str = field(default="")

    def prob(self, word: str, context: tuple[str, ...]) -> float:
        """P(word | context), interpolating from the unigram level up to ``len(context) + 1``.

        Parameters
        ----------
        word : str
            The predicted word (an unknown word is ``<unk>``).
        context : tuple of str
            The words before it (only the last ``order - 1`` count).

        Returns
        -------
        float
            The probability.

        Examples
        --------
        >>> from acceptability.scoring.baselines.ngram import train_ngram
        >>> model = train_ngram(["the cat sleeps", "the dog sleeps"], 2, tokenize=str.split)
        >>> model.prob("sleeps", ("cat",)) > model.prob("sleeps", ("the",))
        True
        """
        word = word if word in self.vocab else UNK
        p = 1.0 / len(self.vocab)
        for k in range(1, min(len(context), self.order - 1) + 2):
            ctx = context[len(context) - k + 1 :] if k > 1 else ()
            total = self.totals[k - 1].get(ctx)
            if total:
                d = self.discounts[k - 1]
                seen = max(self.adjusted[k - 1].get((*ctx, word), 0) - d, 0.0)
                p = seen / total + d * self.types[k - 1][ctx] / total * p
        return p

    def word_logprobs(self, words: list[str]) -> list[float]:
        """ln P of each word and of ``</s>``, each given the previous ``order - 1`` words (from ``<s>``).

        Parameters
        ----------
        words : list of str
            The sentence's tokens.

        Returns
        -------
        list of float
            ``len(words) + 1`` natural-log probabilities; their sum is the sentence's log P.

        Examples
        --------
        >>> from acceptability.scoring.baselines.ngram import train_ngram
        >>> model = train_ngram(["the cat sleeps", "the dog sleeps"], 2, tokenize=str.split)
        >>> len(model.word_logprobs(["the", "cat"]))
        3
        """
        history = [BOS, *words]
        return [
            math.log(self.prob(w, tuple(history[max(0, i + 1 - (self.order - 1)) : i + 1])))
            for i, w in enumerate([*words, EOS])
        ]

    def unigram(self, alpha: float = 1.0) -> UnigramModel:
        """The training corpus's word frequencies as an add-``alpha`` unigram model.

        Parameters
        ----------
        alpha : float, default 1.0
            Add-alpha smoothing.

        Returns
        -------
        UnigramModel
            The unigram model (for SLOR).

        Examples
        --------
        >>> from acceptability.scoring.baselines.ngram import train_ngram
        >>> model = train_ngram(["the cat sleeps"], 2, tokenize=str.split)
        >>> sorted(model.unigram().logprobs)
        ['cat', 'sleeps', 'the']
        """
        return unigram_from_frequencies(self.word_counts, alpha=alpha, tokenize=self.tokenize)

    def write_arpa(self, path: str | Path) -> None:
        """Save as an ARPA file (log10 probabilities and back-off weights) that KenLM and SRILM read.

        Parameters
        ----------
        path : str or pathlib.Path
            The file to write.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> from acceptability.scoring.baselines.ngram import train_ngram
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "cats.arpa"
        >>> train_ngram(["the cat sleeps"], 2, tokenize=str.split).write_arpa(path)
        >>> path.read_text().splitlines()[2:4]
        ['ngram 1=6', 'ngram 2=4']
        """
        lines = ["", "\\data\\"]
        grams = [
            sorted(set(self.adjusted[k]) | ({(w,) for w in self.vocab} if k == 0 else set()))
            for k in range(self.order)
        ]
        grams[0] = [g for g in grams[0] if g != (BOS,)] + [(BOS,)]
        lines += [f"ngram {k + 1}={len(g)}" for k, g in enumerate(grams)]
        for k, level in enumerate(grams):
            lines += ["", f"\\{k + 1}-grams:"]
            for gram in level:
                lp = -99.0 if gram == (BOS,) else math.log10(self.prob(gram[-1], gram[:-1]))
                row = f"{lp:.7f}\t{' '.join(gram)}"
                if k + 1 < self.order and self.totals[k + 1].get(gram):
                    gamma = self.discounts[k + 1] * self.types[k + 1][gram] / self.totals[k + 1][gram]
                    row += f"\t{math.log10(gamma):.7f}"
                lines.append(row)
        lines += ["", "\\end\\", ""]
        write_text(path, "\n".join(lines))


def train_ngram(
    corpus: Iterable[str | list[str]],
    order: int = 3,
    *,
    tokenize: Tokenize = default_tokenize,
    name: str | None = None,
) -> KneserNey:
    """An interpolated Kneser-Ney ``order``-gram model of a corpus (Kneser & Ney 1995; Chen & Goodman 1999).

    Conventions follow KenLM/SRILM: one ``<s>`` before and ``</s>`` after each
    sentence, unknown words map to ``<unk>``, lower orders use adjusted (continuation)
    counts and one discount per order D = n1 / (n1 + 2 n2) (Ney et al. 1994).

    Parameters
    ----------
    corpus : iterable of str or list of str
        Sentences, or token or tag lists.
    order : int, default 3
        The n-gram order.
    tokenize : callable, default default_tokenize
        Splits string sentences (and, when scoring, the sentences scored) into tokens; a
        `Tagger` makes a POS-tag model.
    name : str, optional
        The model's name in score tables; default ``"<order>-gram"``.

    Returns
    -------
    KneserNey
        The model.

    Raises
    ------
    ScoringError
        For an order below 1 or an empty corpus.

    Examples
    --------
    >>> import math
    >>> from acceptability.scoring.baselines.ngram import train_ngram
    >>> model = train_ngram(["the cat sleeps", "the dog sleeps"], 2, tokenize=str.split)
    >>> model.name, round(math.exp(sum(model.word_logprobs(["the", "cat", "sleeps"]))), 3)
    ('2-gram', 0.132)
    """
    if order < 1:
        raise ScoringError(f"n-gram order must be >= 1, got {order}")
    raw = [Counter() for _ in range(order)]
    word_counts: Counter = Counter()
    for sentence in corpus:
        words = _tokens(sentence, tokenize)
        word_counts.update(words)
        padded = [BOS, *words, EOS]
        for k in range(1, order + 1):
            raw[k - 1].update(tuple(padded[i : i + k]) for i in range(len(padded) - k + 1))
    if not word_counts:
        raise ScoringError("n-gram training corpus is empty")
    # KenLM's adjusted counts: raw counts at the top order and for n-grams starting with <s>,
    # otherwise the number of distinct words preceding the n-gram (continuation count).
    adjusted = [dict(raw[-1])]
    for k in range(order - 1, 0, -1):
        preceding: Counter = Counter(g[1:] for g in raw[k])
        adjusted.insert(0, {g: raw[k - 1][g] if g[0] == BOS else preceding[g] for g in raw[k - 1]})
    adjusted[0].pop((BOS,), None)
    totals, types, discounts = [], [], []
    for level in adjusted:
        total: defaultdict = defaultdict(int)
        distinct: defaultdict = defaultdict(int)
        for gram, count in level.items():
            total[gram[:-1]] += count
            distinct[gram[:-1]] += 1
        totals.append(dict(total))
        types.append(dict(distinct))
        count_of_counts = Counter(level.values())
        n1, n2 = count_of_counts[1], count_of_counts[2]
        discounts.append(n1 / (n1 + 2 * n2) if n1 else 0.5)
    vocab = frozenset(word_counts) | {EOS, UNK}
    return KneserNey(
        order, adjusted, totals, types, discounts, vocab, word_counts, tokenize,
        name or f"{order}-gram",
    )


@dataclass
class ArpaModel:
    """An ARPA (or KenLM binary) n-gram model queried through the ``kenlm`` module; made by `load_arpa`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.scoring.baselines.ngram import load_arpa, train_ngram
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "cats.arpa"
    >>> train_ngram(["the cat sleeps"], 2, tokenize=str.split).write_arpa(path)
    >>> model = load_arpa(path, tokenize=str.split)
    >>> len(model.word_logprobs(["the", "cat"]))
    3
    """

    path: Path
    model: object
    tokenize: Tokenize = default_tokenize
    name: str = ""

    def word_logprobs(self, words: list[str]) -> list[float]:
        """ln P of each word and of ``</s>`` (KenLM's full-sentence scores, converted from log10).

        Parameters
        ----------
        words : list of str
            Non-empty tokens without whitespace.

        Returns
        -------
        list of float
            ``len(words) + 1`` natural-log probabilities.

        Raises
        ------
        ScoringError
            For an empty token or one holding whitespace.
        """
        if any(not w or any(c.isspace() for c in w) for w in words):
            raise ScoringError(f"KenLM tokens must be non-empty and contain no whitespace: {words}")
        scores = self.model.full_scores(" ".join(words), bos=True, eos=True)
        return [lp * LN10 for lp, _, _ in scores]

    def unigram(self) -> UnigramModel:
        """The ARPA file's 1-gram probabilities (``<unk>``'s for unknown words).

        Returns
        -------
        UnigramModel
            The unigram model (for SLOR).

        Raises
        ------
        ScoringError
            When the file has no ``\\1-grams:`` section (a KenLM binary file).
        """
        logprobs: dict[str, float] = {}
        with self.path.open(encoding="utf-8", errors="replace") as fh:
            in_unigrams = False
            for line in fh:
                line = line.strip()
                if line.startswith("\\"):
                    if in_unigrams:
                        break
                    in_unigrams = line == "\\1-grams:"
                elif in_unigrams and line:
                    parts = line.split()
                    logprobs[parts[1]] = float(parts[0]) * LN10
        if not logprobs:
            raise ScoringError(f"{self.path}: no \\1-grams: section; unigram() needs an ARPA text file")
        unk = logprobs.pop(UNK, min(logprobs.values()))
        for marker in (BOS, EOS):
            logprobs.pop(marker, None)
        return UnigramModel(logprobs, unk, self.tokenize, f"{self.name} unigram")


def load_arpa(path: str | Path, *, tokenize: Tokenize = default_tokenize, name: str | None = None) -> ArpaModel:
    """Load an ARPA or KenLM binary file (KenLM's lmplz, SRILM's ngram-count) with the ``kenlm`` module.

    Parameters
    ----------
    path : str or pathlib.Path
        The model file.
    tokenize : callable, default default_tokenize
        Splits the sentences scored into tokens.
    name : str, optional
        The model's name; default the file's stem.

    Returns
    -------
    ArpaModel
        The model.

    Raises
    ------
    ScoringError
        For a missing file, a missing ``kenlm`` module or a file KenLM cannot read.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.scoring.baselines.ngram import load_arpa, train_ngram
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> train_ngram(["a cat", "a dog"], 2, tokenize=str.split).write_arpa(folder / "cats.arpa")
    >>> load_arpa(folder / "cats.arpa").name
    'cats'
    """
    path = Path(path).expanduser()
    if not path.is_file():
        raise ScoringError(f"n-gram model file {str(path)!r} does not exist")
    try:
        import kenlm
    except ImportError:
        raise ScoringError("reading ARPA files needs the kenlm module: pip install kenlm") from None
    try:
        model = kenlm.Model(str(path))
    except (OSError, RuntimeError) as err:
        raise ScoringError(f"KenLM could not read {str(path)!r}: {err}") from None
    return ArpaModel(path, model, tokenize, name or path.stem)


NgramModel = KneserNey | ArpaModel
