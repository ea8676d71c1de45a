"""The one exception scoring raises for user mistakes."""


class ScoringError(ValueError):
    """Bad input to scoring: says what, where (sentence id, model, file) and how to fix it.

    A `ValueError`, so code that catches those catches it too.

    Examples
    --------
    >>> from acceptability import scoring
    >>> try:
    ...     scoring.sentences_frame("one string")
    ... except scoring.ScoringError as err:
    ...     print(err)
    give a list of sentences, not one string (wrap it: [text])
    """


class CacheError(ScoringError):
    """The score cache cannot be used: a damaged or foreign file, a full disk, a lock held
    too long. The message names the file and how to clear or free it.

    Examples
    --------
    >>> from acceptability.scoring.errors import CacheError, ScoringError
    >>> issubclass(CacheError, ScoringError)
    True
    """


class CacheWarning(UserWarning):
    """Cached scores that failed their checks and were recomputed (said once per lookup).

    Examples
    --------
    >>> from acceptability.scoring.errors import CacheWarning
    >>> issubclass(CacheWarning, UserWarning)
    True
    """
