"""The n-gram backend: sentence log-probabilities of a Kneser-Ney or ARPA model
(`scoring.baselines.ngram`), word by word with the end of sentence."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from acceptability.scoring.baselines.ngram import ArpaModel, KneserNey, load_arpa
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run.runner import Batches, Scorer

NGRAM_CHUNK = 1000  # sentences per progress-bar step for n-gram models


def scorer(method: Method, options: ScoringOptions) -> Scorer:
    """Sentence log-probabilities of an n-gram model (`options.model`: a `train_ngram` model or
    an ARPA file path), word by word with the end of sentence; not cached (fast, and a model
    in memory has no identity)."""
    model = options.model
    if isinstance(model, str | Path):
        model = load_arpa(model)
    if not isinstance(model, KneserNey | ArpaModel):
        raise ScoringError(
            f"method {method.name!r} needs a model from scoring.train_ngram() or an ARPA file path, "
            f"got {type(model).__name__}"
        )

    def chunks(items: list[list[str]], _batch_size: int) -> Batches:
        starts = range(0, len(items), NGRAM_CHUNK)
        return [list(range(s, min(s + NGRAM_CHUNK, len(items)))) for s in starts]

    def run(items: list[list[str]], batches: Batches) -> Iterator[tuple[list[int], list[Scored]]]:
        for batch in batches:
            yield batch, [
                Scored.from_tokens([*items[i], "</s>"], [], model.word_logprobs(items[i]))
                for i in batch
            ]

    return Scorer(model.name, method.name, lambda texts: map(model.tokenize, texts), chunks, run)
