"""Datasets as validated tables: sentences, pairs, scores, forced-choice trials."""

from data.dataset import Dataset, from_frames
from data.errors import DataError
from data.li_adger import load_li_adger, load_li_adger_scores
from data.tables import validate_pairs, validate_scores, validate_sentences, validate_trials

__all__ = [
    "DataError", "Dataset", "from_frames", "load_li_adger", "load_li_adger_scores",
    "validate_pairs", "validate_scores", "validate_sentences", "validate_trials",
]
