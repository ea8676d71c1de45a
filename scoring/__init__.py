"""Sentence scores from language models: causal log-probability, masked-LM PLL, classifier signed
confidence, n-gram models, Lau et al. normalisations and BLiMP prefix methods, with an on-disk cache.

torch and transformers are imported only when a model is loaded, so `import scoring` is fast.
"""

from data import read_scores, write_scores  # the scores file format is data's (validated there)
from scoring.api import score, sentences_frame, token_scores
from scoring.cache import ScoreCache, default_cache_dir
from scoring.errors import ScoringError
from scoring.models import LanguageModel, load_model
from scoring.ngram import (
    ArpaModel,
    KneserNey,
    UnigramModel,
    load_arpa,
    train_ngram,
    train_unigram,
    unigram_from_frequencies,
)
from scoring.normalise import mean_logprob, norm_lp, slor
from scoring.prefix import prefix_scores
from scoring.runner import METHODS

__all__ = [
    "METHODS",
    "ArpaModel",
    "KneserNey",
    "LanguageModel",
    "ScoreCache",
    "ScoringError",
    "UnigramModel",
    "default_cache_dir",
    "load_arpa",
    "load_model",
    "mean_logprob",
    "norm_lp",
    "prefix_scores",
    "read_scores",
    "score",
    "sentences_frame",
    "slor",
    "token_scores",
    "train_ngram",
    "train_unigram",
    "unigram_from_frequencies",
    "write_scores",
]
