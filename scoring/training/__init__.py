"""Training and fine-tuning language models: tokenizers and small causal/masked LMs from a
corpus and a fine-tuned acceptability classifier (`scoring.training.lm`). The experiments built
on them (restarts, training order, learning curves) are an application:
`reports.cli.training_experiments`."""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.scoring.training.lm import finetune, train_lm, train_tokenizer

__all__ = ["finetune", "train_lm", "train_tokenizer"]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
