"""Baselines that need no neural model: n-gram models (Kneser-Ney, KenLM ARPA, unigram),
seed 004's child-directed word and tag 5-grams (`scoring.baselines.corpus`) with their CRF tagger
(`scoring.baselines.tagger`), and the linear-rule baselines of BLiMP and Zorro (`scoring.baselines.rules`)."""
