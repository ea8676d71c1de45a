"""Training and fine-tuning language models: tokenizers and small causal/masked LMs from a
corpus, a fine-tuned acceptability classifier (`scoring.training.lm`), and the experiments built on
them: restarts, training order and learning curves (`scoring.training.experiments`)."""

from acceptability.scoring.training.lm import finetune, train_lm, train_tokenizer

__all__ = ["finetune", "train_lm", "train_tokenizer"]
