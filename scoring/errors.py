"""The one exception scoring raises for user mistakes."""


class ScoringError(ValueError):
    """Bad input to scoring: says what, where (sentence id, model, file) and how to fix it."""
