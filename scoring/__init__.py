"""Sentence scores from language models: causal log-probability, masked-LM PLL, classifier signed
confidence, n-gram models, Lau et al. normalisations and BLiMP prefix methods, with an on-disk cache.

`scoring.registry` lists the methods (`METHODS` are the sentence methods of `score`);
`ScoringOptions` holds the settings of a run.

torch and transformers are imported only when a model is loaded, so `import scoring` is fast.
"""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.data import (  # the scores file format is data's (validated there)
        read_scores,
        write_scores,
    )
    from acceptability.scoring.api import score, sentences_frame, token_scores, word_scores
    from acceptability.scoring.baselines.corpus import (
        CorpusBaselines,
        baseline_scores,
        tag_sentences,
        train_baselines,
    )
    from acceptability.scoring.baselines.ngram import (
        ArpaModel,
        KneserNey,
        UnigramModel,
        load_arpa,
        train_ngram,
        train_unigram,
        unigram_from_frequencies,
    )
    from acceptability.scoring.baselines.tagger import (
        Tagger,
        evaluate_tagger,
        load_tagger,
        train_tagger,
    )
    from acceptability.scoring.errors import CacheError, CacheWarning, ScoringError
    from acceptability.scoring.models import LanguageModel, load_model
    from acceptability.scoring.normalise import mean_logprob, norm_lp, pen_logprob, slor
    from acceptability.scoring.options import ScoringOptions
    from acceptability.scoring.prefix import prefix_scores
    from acceptability.scoring.regions import region_surprisals
    from acceptability.scoring.registry import METHODS
    from acceptability.scoring.run.cache import ScoreCache, default_cache_dir
    from acceptability.scoring.tokenization import tokenization_stats
    from acceptability.scoring.training.lm import finetune, train_lm, train_tokenizer

__all__ = [
    "METHODS",
    "ArpaModel",
    "CorpusBaselines",
    "KneserNey",
    "LanguageModel",
    "ScoreCache",
    "CacheError",
    "CacheWarning",
    "ScoringError",
    "ScoringOptions",
    "Tagger",
    "UnigramModel",
    "baseline_scores",
    "default_cache_dir",
    "evaluate_tagger",
    "finetune",
    "load_arpa",
    "load_model",
    "load_tagger",
    "mean_logprob",
    "norm_lp",
    "pen_logprob",
    "prefix_scores",
    "read_scores",
    "region_surprisals",
    "score",
    "sentences_frame",
    "slor",
    "tag_sentences",
    "tokenization_stats",
    "token_scores",
    "train_baselines",
    "train_lm",
    "train_ngram",
    "train_tagger",
    "train_tokenizer",
    "train_unigram",
    "unigram_from_frequencies",
    "word_scores",
    "write_scores",
]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
