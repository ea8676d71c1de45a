"""Baselines that need no neural model: n-gram models (Kneser-Ney, KenLM ARPA, unigram),
seed 004's child-directed word and tag 5-grams (`scoring.baselines.corpus`) with their CRF tagger
(`scoring.baselines.tagger`), and the linear-rule baselines of BLiMP and Zorro (`scoring.baselines.rules`)."""

from acceptability._moved import package_getattr

__getattr__ = package_getattr(__name__)  # 0.1's scoring.baselines module is now .corpus
