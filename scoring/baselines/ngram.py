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

from acceptability.scoring.errors import ScoringError

BOS, EOS, UNK = "<s>", "</s>", "<unk>"
LN10 = math.log(10)
Tokenize = Callable[[str], list[str]]


def default_tokenize(text: str) -> list[str]:
    """Penn Treebank word tokenization (NLTK, no data download needed)."""
    from nltk.tokenize import TreebankWordTokenizer

    return TreebankWordTokenizer().tokenize(text)


def _tokens(sentence: str | list[str], tokenize: Tokenize) -> list[str]:
    return list(sentence) if isinstance(sentence, list | tuple) else tokenize(sentence)


@dataclass
class UnigramModel:
    """log P_u(w) per word, for the SLOR and NormLP normalisations."""

    logprobs: dict[str, float]
    unk_logprob: float
    tokenize: Tokenize = default_tokenize
    name: str = "unigram"

    def logprob(self, word: str) -> float:
        return self.logprobs.get(word, self.unk_logprob)

    def sentence_logprob(self, text: str | list[str]) -> tuple[float, int]:
        """(log P_u(s), |s|): the sum over words (no sentence-end token) and the word count."""
        words = _tokens(text, self.tokenize)
        return sum(self.logprob(w) for w in words), len(words)


def unigram_from_frequencies(
    counts: Mapping[str, float], *, alpha: float = 1.0, tokenize: Tokenize = default_tokenize
) -> UnigramModel:
    """Unigram model from word frequency counts, add-`alpha` smoothed (one extra type for unknowns)."""
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
    """Unigram model from a corpus of sentences (strings, or lists of tokens/tags)."""
    counts = Counter(w for s in corpus for w in _tokens(s, tokenize))
    return unigram_from_frequencies(counts, alpha=alpha, tokenize=tokenize)


@dataclass
class KneserNey:
    """Interpolated Kneser-Ney n-gram model over the counts of a training corpus."""

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
        """P(word | context), interpolating from the unigram level up to len(context) + 1."""
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
        """ln P of each word and of </s>, each given the previous order-1 words (from <s>)."""
        history = [BOS, *words]
        return [
            math.log(self.prob(w, tuple(history[max(0, i + 1 - (self.order - 1)) : i + 1])))
            for i, w in enumerate([*words, EOS])
        ]

    def unigram(self, alpha: float = 1.0) -> UnigramModel:
        """The training corpus's word frequencies as an add-`alpha` unigram model."""
        return unigram_from_frequencies(self.word_counts, alpha=alpha, tokenize=self.tokenize)

    def write_arpa(self, path: str | Path) -> None:
        """Save as an ARPA file (log10 probabilities and back-off weights) that KenLM/SRILM read."""
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
        Path(path).write_text("\n".join(lines), encoding="utf-8")


def train_ngram(
    corpus: Iterable[str | list[str]],
    order: int = 3,
    *,
    tokenize: Tokenize = default_tokenize,
    name: str | None = None,
) -> KneserNey:
    """Interpolated Kneser-Ney `order`-gram model of a corpus (sentences, or token/tag lists)."""
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
    """An ARPA (or KenLM binary) n-gram model queried through the `kenlm` module."""

    path: Path
    model: object
    tokenize: Tokenize = default_tokenize
    name: str = ""

    def word_logprobs(self, words: list[str]) -> list[float]:
        """ln P of each word and of </s> (KenLM full-sentence scores, converted from log10)."""
        if any(not w or any(c.isspace() for c in w) for w in words):
            raise ScoringError(f"KenLM tokens must be non-empty and contain no whitespace: {words}")
        scores = self.model.full_scores(" ".join(words), bos=True, eos=True)
        return [lp * LN10 for lp, _, _ in scores]

    def unigram(self) -> UnigramModel:
        """The ARPA file's 1-gram probabilities (<unk>'s for unknown words)."""
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
    """Load an ARPA/KenLM binary file (KenLM's lmplz, SRILM's ngram-count) with the `kenlm` module."""
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
