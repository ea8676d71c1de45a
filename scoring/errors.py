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
