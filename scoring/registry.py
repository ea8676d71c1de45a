"""The scoring methods: the one list every other place derives its method names from, and the
one place a method's name is compared. Code asks a method's properties here, never its name.

Each method names the backend module that computes it (`scoring.run.runner.make_scorer` calls
that module's ``scorer(method, options)``), the model kind it accepts, whether it is one of
BLiMP's pairs-level prefix methods (`scoring.prefix_scores`), whether its sentence score is a
sum of natural-log token probabilities (then it has a perplexity), and what its backend and
the token and word tables need to know (docs/development.md, "Adding a scoring method").

`acceptability.data.tables.LOGPROB_METHODS` holds the log-probability names again for the
layers below scoring (``stats`` may not import scoring); ``tests/scoring/test_registry.py``
asserts it equals `LOGPROB_METHODS` here.
"""

from __future__ import annotations

from dataclasses import dataclass

from acceptability.scoring.errors import ScoringError

#: The model kinds, by what a method needs: a transformer with a causal LM, masked LM or
#: sequence-classification head, an encoder-decoder with an LM head (T5, BART;
#: `scoring.models.HEAD_SUFFIXES`), or an n-gram model.
KINDS = ("causal", "masked", "seq2seq", "classifier", "ngram")
#: The kinds that score a sentence after a context (`scoring.context`; Lau et al. 2020).
CONTEXT_KINDS = ("causal", "masked", "seq2seq")
#: The causal scorer both prefix methods run, log P(word | context); its cache entries are
#: keyed by this name, so `one_prefix` and `two_prefix` share them.
CONTINUATION = "continuation"
#: The normalisations of a sentence's log-probability (`scoring.normalise`): Lau et al.'s, then
#: lm-evaluation-harness's per character (``acc_norm``) and per UTF-8 byte (``acc_bytes``).
NORMALISATIONS = ("mean", "slor", "normlp", "penlp", "chars", "bytes")


@dataclass(frozen=True)
class Method:
    """One scoring method.

    Parameters
    ----------
    name : str
        The `method` argument of `scoring.score` (or `scoring.prefix_scores`).
    backend : str
        The module that computes it.
    kind : str
        The model kind it accepts, one of `KINDS`.
    prefix : bool
        A BLiMP prefix method: a pairs-level table of words in context, not sentence scores.
    logprob : bool
        Its sentence score sums natural-log token probabilities (it has a perplexity).
    description : str
        One line, citing the paper.
    word_l2r : bool
        Masks the later pieces of a token's word too (Kauf & Ivanova 2023).
    pll : bool
        Scores each token in a copy of the input with it masked (a pseudo-log-likelihood,
        Salazar et al. 2020; the seq2seq backend's encoder copies).
    tokens : bool
        Has token and word scores (`scoring.token_scores`, `scoring.word_scores`); a
        classifier's score is of the sentence only.
    offsets : bool
        Its tokens carry character offsets in the text, so words and regions of the caller's
        choosing can be scored; an n-gram model's words are its own tokens.
    pair_fields : tuple of str
        A prefix method's pairs columns (BLiMP's fields): the good and bad prefixes, then the
        good and bad words read after them.
    """

    name: str
    backend: str
    kind: str
    prefix: bool
    logprob: bool
    description: str
    word_l2r: bool = False
    pll: bool = False
    tokens: bool = True
    offsets: bool = True
    pair_fields: tuple[str, ...] = ()

    @property
    def neural(self) -> bool:
        """Runs a transformer (it has a dtype and a device), not an n-gram model."""
        return self.kind != "ngram"


_CAUSAL = "acceptability.scoring.backends.causal"
_MASKED = "acceptability.scoring.backends.masked"
_MNTP = "acceptability.scoring.backends.mntp"
_SEQ2SEQ = "acceptability.scoring.backends.seq2seq"

#: Every scoring method by name, in the order the documentation lists them.
REGISTRY: dict[str, Method] = {m.name: m for m in (
    Method("logprob", _CAUSAL, "causal", False, True,
           "causal LM log P(s) = sum_t log P(w_t | BOS, w_<t) (Lau et al. 2017)"),
    Method("pll", _MASKED, "masked", False, True,
           "masked LM pseudo-log-likelihood (Salazar et al. 2020; thesis eq. 3)", pll=True),
    Method("pll_word_l2r", _MASKED, "masked", False, True,
           "PLL masking the word's later pieces too (Kauf & Ivanova 2023)", word_l2r=True,
           pll=True),
    Method("mntp", _MNTP, "masked", False, True,
           "masked next-token prediction: log P(w_t) read at t-1, w_t masked (GPT-BERT; BabyLM)",
           pll=True),
    Method("mntp_word_l2r", _MNTP, "masked", False, True,
           "MNTP masking the word's later pieces too (as pll_word_l2r)", word_l2r=True, pll=True),
    Method("seq2seq", _SEQ2SEQ, "seq2seq", prefix=False, logprob=True, description=(
        "encoder-decoder log P(s | x): the sentence as the decoder's target (T5, BART)")),
    Method("seq2seq_pll", _SEQ2SEQ, "seq2seq", prefix=False, logprob=True, description=(
        "encoder-decoder PLL: each token masked in the encoder, read by the decoder (BabyLM)"),
        pll=True),
    Method("classifier", "acceptability.scoring.backends.classifier", "classifier", False, False,
           "sequence classifier signed confidence (thesis eq. 2.3)", tokens=False),
    Method("ngram", "acceptability.scoring.backends.ngram", "ngram", False, True,
           "Kneser-Ney n-gram or ARPA model log-probability (Kneser & Ney 1995)", offsets=False),
    Method("one_prefix", _CAUSAL, "causal", True, False,
           "log P(critical word | shared prefix) (BLiMP, Warstadt et al. 2020, sec. 6.4)",
           pair_fields=("one_prefix_prefix", "one_prefix_prefix", "one_prefix_word_good",
                        "one_prefix_word_bad")),
    Method("two_prefix", _CAUSAL, "causal", True, False,
           "log P(shared word | each prefix) (BLiMP, Warstadt et al. 2020, sec. 6.4)",
           pair_fields=("two_prefix_prefix_good", "two_prefix_prefix_bad", "two_prefix_word",
                        "two_prefix_word")),
)}

#: The sentence-scoring methods of `scoring.score` and `scoring.token_scores`.
METHODS = tuple(name for name, m in REGISTRY.items() if not m.prefix)
#: The pairs-level methods of `scoring.prefix_scores`.
PREFIX_METHODS = tuple(name for name, m in REGISTRY.items() if m.prefix)
#: The methods whose sentence score is a sum of token log-probabilities.
LOGPROB_METHODS = tuple(name for name, m in REGISTRY.items() if m.logprob)


def lookup(name: str) -> Method:
    """The method called `name`; an unknown name is a ScoringError listing the methods.

    Examples
    --------
    >>> from acceptability.scoring.registry import lookup
    >>> lookup("pll_word_l2r").word_l2r
    True
    """
    if name not in REGISTRY:
        raise ScoringError(f"unknown scoring method {name!r}; use one of {', '.join(METHODS)}")
    return REGISTRY[name]


def methods_of_kind(kind: str) -> tuple[str, ...]:
    """The methods a model of `kind` computes.

    Parameters
    ----------
    kind : str
        One of `KINDS`.

    Returns
    -------
    tuple of str
        Method names, in registry order.

    Examples
    --------
    >>> from acceptability.scoring.registry import methods_of_kind
    >>> methods_of_kind("masked")
    ('pll', 'pll_word_l2r', 'mntp', 'mntp_word_l2r')
    """
    return tuple(name for name, m in REGISTRY.items() if m.kind == kind)
