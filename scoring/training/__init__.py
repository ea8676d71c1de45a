"""Training and fine-tuning language models: tokenizers and small causal/masked LMs from a
corpus, a fine-tuned acceptability classifier (:mod:`.lm`), and the experiments built on
them: restarts, training order and learning curves (:mod:`.experiments`)."""

from acceptability.scoring.training.lm import finetune, train_lm, train_tokenizer

__all__ = ["finetune", "train_lm", "train_tokenizer"]
