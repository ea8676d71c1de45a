"""A sentence scored after a preceding context (Lau et al. 2020): the join and the contexts.

The one rule joining a context and what follows it, for sentences in context (`scoring.score`)
and for BLiMP's prefix methods (`scoring.prefix_scores`) alike: the text is scored after the
context and a space, as Lau et al. (2020) join a paragraph and its sentence; a context that
ends in whitespace (or a text that starts with it) needs none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from acceptability.scoring.errors import ScoringError

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1

#: The sentences table's column read as each sentence's context when present.
CONTEXT_COLUMN = "context"
#: Separates the context from the text in a cache key (never in either, `cache_key`).
KEY_SEPARATOR = "\x1f"


def continuation(context: str, text: str) -> str:
    """`text` as scored after `context`: with a leading space unless either side has one.

    Parameters
    ----------
    context, text : str
        What is conditioned on, and what is scored after it.

    Returns
    -------
    str
        The text to tokenize after the context's tokens.

    Examples
    --------
    >>> from acceptability.scoring.context import continuation
    >>> continuation("The cat sat.", "It slept."), continuation("Hello\\n", "there")
    (' It slept.', 'there')
    """
    return text if not context or context[-1].isspace() or text[:1].isspace() else f" {text}"


def context_key(context: str, text: str) -> str:
    """The text a score is cached under: `text` alone without a context (so sentences
    scored before contexts existed keep their entries), else context and text."""
    return f"{context}{KEY_SEPARATOR}{text}" if context else text


def sentence_contexts(data: Any, n: int, context: str | Sequence[str] | bool | None = None) -> list[str]:
    """Each sentence's context ("" for none), from `data`'s sentences table or given.

    Parameters
    ----------
    data : Dataset, DataFrame or list of str
        What `scoring.sentences_frame` reads; its table's `context` column is used when
        `context` is None.
    n : int
        The number of sentences.
    context : None, False, str or sequence of str
        None: the `context` column if the table has one, else none; False: none (the
        column ignored); a str: the name of the column to read; a sequence: one context per
        sentence, in order. A missing, empty or all-whitespace context means none.

    Returns
    -------
    list of str

    Examples
    --------
    >>> import pandas as pd
    >>> from acceptability.scoring.context import sentence_contexts
    >>> table = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["It slept.", "Hi."],
    ...                       "context": ["The cat sat.", None]})
    >>> sentence_contexts(table, 2)
    ['The cat sat.', '']
    """
    if context is False:
        return [""] * n
    if context is None or isinstance(context, str):
        table = getattr(data, "sentences", data)
        column = context or CONTEXT_COLUMN
        if not isinstance(table, pd.DataFrame) or column not in table.columns:
            if context is None:
                return [""] * n
            raise ScoringError(f"no context column {column!r} in the sentences table; give a "
                               "column name it has, or one context per sentence")
        values = list(table[column])
    else:
        values = list(context)
    if len(values) != n:
        raise ScoringError(f"{len(values)} contexts for {n} sentences: give one per sentence")
    return [_context(v, i) for i, v in enumerate(values)]


def _context(value: Any, row: int) -> str:
    """One context as text: "" for a missing or blank one; anything but text is an error."""
    if value is None or (pd.api.types.is_scalar(value) and not isinstance(value, str) and pd.isna(value)):
        return ""
    if not isinstance(value, str):
        raise ScoringError(f"context of sentence {row} is {value!r}, not text; give text, or "
                           "leave it empty for none")
    return value if value.strip() else ""
