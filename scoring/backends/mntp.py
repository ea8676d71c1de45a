"""Masked next-token prediction (MNTP) scores, for masked LMs trained to predict the next token.

A model trained with MNTP (GPT-BERT, Charpentier & Samuel 2024; LTG-BERT-style models of the
BabyLM challenge) predicts a masked token from the output at the position before it:

    MNTP(s) = sum_t log P(w_t | s with w_t masked), read from the logits at position t - 1.

This is the "mntp" backend of the BabyLM 2025 evaluation pipeline
(``evaluation_pipeline/sentence_zero_shot/dataset.py``, ``process_mntp_sentences``, as of
commit d6e6797): the text is tokenized with the tokenizer's special tokens, every token of
the text is masked in turn (one copy each, special tokens never), and its log-probability
is read one position earlier, which may be the [CLS]/BOS token or a token of the context. A
token with no position before it (the first token, when the tokenizer adds nothing in front)
is not scored; a text of that one token is an error. ``mntp_word_l2r`` also masks the later pieces of the token's word, as
PLL-word-l2r does (Kauf & Ivanova 2023); the pipeline has no such variant.

The masked copies, their batching and the forward passes are the PLL backend's
(`backends.masked`), which reads each masked token one position earlier here.
"""

from __future__ import annotations

from collections.abc import Iterator

from acceptability.scoring.backends import masked
from acceptability.scoring.backends.masked import MaskedInput
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run.runner import Scorer, model_scorer, transformer

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

#: How many positions before a masked token its prediction is read (next-token prediction).
SHIFT = 1


def encode(lm: LanguageModel, text: str, word_l2r: bool = False, context: str = "") -> MaskedInput:
    """The masked copies of `text` (after `context`) that MNTP scores: those of PLL
    (`masked.encode`) but for a token at the very start of the input, which has no
    position before it to be read from (a ScoringError when it is the only one).

    Parameters
    ----------
    lm : LanguageModel
        A masked LM (it needs a mask token).
    text : str
        What is scored.
    word_l2r : bool
        Also mask the later pieces of each scored token's word.
    context : str
        Tokenized with `text` as one sequence, never masked or scored.

    Returns
    -------
    MaskedInput
        Token ids, the scored positions and the positions each copy masks.

    Examples
    --------
    A tokenizer that adds nothing in front leaves the first token unscored:

    >>> from types import SimpleNamespace
    >>> from tokenizers import Tokenizer, models, pre_tokenizers
    >>> from transformers import PreTrainedTokenizerFast
    >>> from acceptability.scoring.backends import mntp
    >>> words = Tokenizer(models.WordLevel({"[MASK]": 0, "cats": 1, "chase": 2, "mice": 3},
    ...                                    unk_token="[MASK]"))
    >>> words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    >>> tok = PreTrainedTokenizerFast(tokenizer_object=words, mask_token="[MASK]")
    >>> item = mntp.encode(SimpleNamespace(tokenizer=tok, max_length=8, name="toy"), "cats chase mice")
    >>> item.positions, item.tokens, item.masks
    ([1, 2], ['chase', 'mice'], [[1], [2]])
    """
    return next(encode_many(lm, [(context, text)], word_l2r))


def encode_many(lm: LanguageModel, pairs: list[tuple[str, str]],
                word_l2r: bool = False) -> Iterator[MaskedInput]:
    """`encode` of each (context, text) pair, in order, tokenized in one call
    (`masked.encode_many`)."""
    for (_, text), item in zip(pairs, masked.encode_many(lm, pairs, word_l2r), strict=True):
        yield _after_first(lm, text, item)


def _after_first(lm: LanguageModel, text: str, item: MaskedInput) -> MaskedInput:
    """`item` without a scored token at the very start of the input (MNTP reads none there)."""
    if item.positions[:1] == [0]:  # nothing before the first token to read it from
        if len(item.positions) == 1:
            raise ScoringError(
                f"{text!r} is one token and model {lm.name!r}'s tokenizer puts nothing before "
                "it, so MNTP has no position to predict it from; give a context or a longer text"
            )
        item.positions, item.masks = item.positions[1:], item.masks[1:]
        item.tokens, item.offsets = item.tokens[1:], item.offsets[1:]
    return item


def iter_mntp(
    lm: LanguageModel, items: list[MaskedInput], batches: list[list[int]], budget: int | None = None
) -> Iterator[tuple[list[int], list[Scored]]]:
    """MNTP scores of `items` in `batches` (`masked.pll_batches`): each masked token's
    log-probability read `SHIFT` positions before it.

    Parameters
    ----------
    lm : LanguageModel
        The masked LM.
    items : list of MaskedInput
        From `encode`.
    batches : list of list of int
        Indices into `items`, scored together.
    budget : int or None
        Tokens of masked copies per forward pass (`masked.tokens_per_pass`); None: a
        batch's copies in one pass.

    Yields
    ------
    (list of int, list of Scored)
        Each batch's indices and its sentences' scores.

    Examples
    --------
    With no batches nothing runs (tests/scoring/test_mntp.py scores tiny models):

    >>> from types import SimpleNamespace
    >>> from acceptability.scoring.backends.mntp import SHIFT, iter_mntp
    >>> bare = SimpleNamespace(tokenizer=SimpleNamespace(mask_token_id=4, pad_token_id=0), device="cuda")
    >>> list(iter_mntp(bare, [], [])), SHIFT
    ([], 1)
    """
    return masked.iter_pll(lm, items, batches, budget, shift=SHIFT)


def scorer(method: Method, options: ScoringOptions) -> Scorer:
    """MNTP scores of a masked LM (`iter_mntp`), batched as PLL's masked copies
    (`masked.pll_batches`); with `method.word_l2r` each token's word's later pieces masked too."""
    lm, _ = transformer(method, options)
    copies = masked.tokens_per_pass(lm, options.batch_tokens)
    return model_scorer(lm, method, lambda pairs: encode_many(lm, pairs, word_l2r=method.word_l2r),
                        lambda items, bs: masked.pll_batches(lm, items, bs, copies),
                        lambda items, batches: iter_mntp(lm, items, batches, copies))
