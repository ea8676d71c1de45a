"""The scoring methods: the one list every other place derives its method names from.

Each method names the backend module that computes it, the model kind it accepts, whether
it is one of BLiMP's pairs-level prefix methods (`scoring.prefix_scores`) and whether its
sentence score is a sum of natural-log token probabilities (then it has a perplexity).

`acceptability.data.tables.LOGPROB_METHODS` holds the log-probability names again for the
layers below scoring (``stats`` may not import scoring); ``tests/scoring/test_registry.py``
asserts it equals `LOGPROB_METHODS` here.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The model kinds, by what a method needs: a transformer with a causal LM, masked LM or
#: sequence-classification head, an encoder-decoder with an LM head (T5, BART;
#: `scoring.models.HEAD_SUFFIXES`), or an n-gram model.
KINDS = ("causal", "masked", "seq2seq", "classifier", "ngram")
#: The kinds that score a sentence after a context (`scoring.context`; Lau et al. 2020).
CONTEXT_KINDS = ("causal", "masked", "seq2seq")
#: The causal scorer both prefix methods run, log P(word | context); its cache entries are
#: keyed by this name, so `one_prefix` and `two_prefix` share them.
CONTINUATION = "continuation"
#: Lau et al.'s normalisations of a sentence's log-probability (`scoring.normalise`).
NORMALISATIONS = ("mean", "slor", "normlp", "penlp")


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
    """

    name: str
    backend: str
    kind: str
    prefix: bool
    logprob: bool
    description: str


_CAUSAL = "acceptability.scoring.backends.causal"
_MASKED = "acceptability.scoring.backends.masked"
_MNTP = "acceptability.scoring.backends.mntp"
_SEQ2SEQ = "acceptability.scoring.backends.seq2seq"

#: Every scoring method by name, in the order the documentation lists them.
REGISTRY: dict[str, Method] = {m.name: m for m in (
    Method("logprob", _CAUSAL, "causal", False, True,
           "causal LM log P(s) = sum_t log P(w_t | BOS, w_<t) (Lau et al. 2017)"),
    Method("pll", _MASKED, "masked", False, True,
           "masked LM pseudo-log-likelihood (Salazar et al. 2020; thesis eq. 3)"),
    Method("pll_word_l2r", _MASKED, "masked", False, True,
           "PLL masking the word's later pieces too (Kauf & Ivanova 2023)"),
    Method("mntp", _MNTP, "masked", False, True,
           "masked next-token prediction: log P(w_t) read at t-1, w_t masked (GPT-BERT; BabyLM)"),
    Method("mntp_word_l2r", _MNTP, "masked", False, True,
           "MNTP masking the word's later pieces too (as pll_word_l2r)"),
    Method("seq2seq", _SEQ2SEQ, "seq2seq", prefix=False, logprob=True, description=(
        "encoder-decoder log P(s | x): the sentence as the decoder's target (T5, BART)")),
    Method("seq2seq_pll", _SEQ2SEQ, "seq2seq", prefix=False, logprob=True, description=(
        "encoder-decoder PLL: each token masked in the encoder, read by the decoder (BabyLM)")),
    Method("classifier", "acceptability.scoring.backends.classifier", "classifier", False, False,
           "sequence classifier signed confidence (thesis eq. 2.3)"),
    Method("ngram", "acceptability.scoring.baselines.ngram", "ngram", False, True,
           "Kneser-Ney n-gram or ARPA model log-probability (Kneser & Ney 1995)"),
    Method("one_prefix", _CAUSAL, "causal", True, False,
           "log P(critical word | shared prefix) (BLiMP, Warstadt et al. 2020, sec. 6.4)"),
    Method("two_prefix", _CAUSAL, "causal", True, False,
           "log P(shared word | each prefix) (BLiMP, Warstadt et al. 2020, sec. 6.4)"),
)}

#: The sentence-scoring methods of `scoring.score` and `scoring.token_scores`.
METHODS = tuple(name for name, m in REGISTRY.items() if not m.prefix)
#: The pairs-level methods of `scoring.prefix_scores`.
PREFIX_METHODS = tuple(name for name, m in REGISTRY.items() if m.prefix)
#: The methods whose sentence score is a sum of token log-probabilities.
LOGPROB_METHODS = tuple(name for name, m in REGISTRY.items() if m.logprob)


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
