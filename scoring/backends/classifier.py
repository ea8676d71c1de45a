"""Sequence classifier signed confidence (thesis eq. 2.3): out_i = c_hat * P(c_hat | h_i), c_hat in {+1, -1}."""

from __future__ import annotations

from collections.abc import Iterator

from acceptability.scoring.errors import ScoringError
from acceptability.scoring.models import LanguageModel
from acceptability.scoring.options import ScoringOptions
from acceptability.scoring.registry import Method
from acceptability.scoring.results import Scored
from acceptability.scoring.run.batches import inference, pad, pad_id
from acceptability.scoring.run.runner import Scorer, by_length, model_scorer, transformer

#: The version of this module's arithmetic, in the cache key of every score it helps compute:
#: raise it with each change that can alter a score (`scoring.run.versions`).
SCORER_VERSION = 1


def encode(lm: LanguageModel, text: str) -> list[int]:
    """Token ids with the model's special tokens; errors instead of truncating."""
    ids = lm.tokenizer(text)["input_ids"]
    if len(ids) > lm.max_length:
        raise ScoringError(
            f"{len(ids)} tokens, more than the {lm.max_length} model {lm.name!r} accepts; "
            "shorten or split the sentence (scoring never truncates)"
        )
    return ids


def iter_signed_confidence(
    lm: LanguageModel, items: list[list[int]], batches: list[list[int]], acceptable_label: int = 1
) -> Iterator[tuple[list[int], list[Scored]]]:
    """+P(label) when the predicted label is `acceptable_label` (CoLA: 1), else -P(label)."""
    n_labels = lm.model.config.num_labels
    if n_labels != 2 or acceptable_label not in (0, 1):
        raise ScoringError(
            f"classifier scoring needs a binary classifier and acceptable_label 0 or 1; model "
            f"{lm.name!r} has {n_labels} labels and acceptable_label={acceptable_label}"
        )
    padding = pad_id(lm.tokenizer)
    for batch in batches:
        ids, mask = pad([items[i] for i in batch], padding)
        with inference(lm):
            logits = lm.model(input_ids=ids.to(lm.device), attention_mask=mask.to(lm.device)).logits
        confidence, label = logits.float().softmax(-1).max(-1)
        signs = (label == acceptable_label).float() * 2 - 1
        yield batch, [
            Scored(score=s, n_tokens=len(items[i]))
            for s, i in zip((signs * confidence).cpu().tolist(), batch, strict=True)
        ]


def scorer(method: Method, options: ScoringOptions) -> Scorer:
    """A sequence classifier's signed confidence (thesis eq. 2.3, `iter_signed_confidence`) for
    `options.acceptable_label`."""
    lm, budget = transformer(method, options)
    label = options.acceptable_label
    return model_scorer(lm, method, lambda texts: (encode(lm, text) for text in texts), by_length(lm, budget),
                        lambda items, batches: iter_signed_confidence(lm, items, batches, label),
                        {"acceptable_label": label})
