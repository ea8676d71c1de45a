"""Datasets as validated tables: sentences, pairs, scores, forced-choice trials, ratings."""

from typing import TYPE_CHECKING

from acceptability._lazy import lazy_exports

if TYPE_CHECKING:
    from acceptability.data.dataset import Dataset, from_frames
    from acceptability.data.errors import DataError
    from acceptability.data.io.files import read_dataset
    from acceptability.data.io.scores_io import read_scores, write_scores
    from acceptability.data.loaders.blimp import blimp_paradigms, load_blimp
    from acceptability.data.loaders.blimp_results import load_blimp_results
    from acceptability.data.loaders.childes import (
        childes_corpus_text,
        childes_tokenize,
        load_childes,
    )
    from acceptability.data.loaders.cola import load_cola
    from acceptability.data.loaders.example import load_example
    from acceptability.data.loaders.forced_choice import load_blimp_human_summary, load_blimp_trials
    from acceptability.data.loaders.lau2020 import load_lau2020
    from acceptability.data.loaders.li_adger import (
        load_li_adger,
        load_li_adger_scores,
        load_li_adger_thesis_labels,
    )
    from acceptability.data.loaders.marvin_linzen import (
        load_marvin_linzen,
        marvin_linzen_constructions,
    )
    from acceptability.data.loaders.megaacceptability import load_megaacceptability
    from acceptability.data.loaders.multilingual.clams import load_clams
    from acceptability.data.loaders.multilingual.multiblimp import (
        load_multiblimp,
        multiblimp_languages,
    )
    from acceptability.data.loaders.multilingual.rublimp import load_rublimp
    from acceptability.data.loaders.multilingual.sling import load_sling
    from acceptability.data.loaders.multilingual.turblimp import load_turblimp, turblimp_paradigms
    from acceptability.data.loaders.multilingual.turblimp_ratings import load_turblimp_ratings
    from acceptability.data.loaders.syntaxgym import (
        load_syntaxgym,
        read_syntaxgym_surprisals,
        syntaxgym_circuits,
        syntaxgym_predictions,
        syntaxgym_regions,
        syntaxgym_suites,
    )
    from acceptability.data.loaders.syntaxgym_results import load_syntaxgym_results
    from acceptability.data.loaders.zorro import (
        load_zorro,
        load_zorro_reference_scores,
        zorro_paradigms,
    )
    from acceptability.data.ratings import RatingScale, rating_scale, validate_ratings
    from acceptability.data.tables import (
        validate_pairs,
        validate_scores,
        validate_sentences,
        validate_trials,
    )

__all__ = [
    "DataError", "Dataset", "RatingScale", "rating_scale", "validate_ratings", "blimp_paradigms", "childes_corpus_text", "childes_tokenize",
    "from_frames", "load_blimp",
    "load_blimp_human_summary", "load_blimp_results", "load_blimp_trials", "load_childes",
    "load_cola",
    "load_example", "load_lau2020", "load_li_adger", "load_li_adger_scores", "load_li_adger_thesis_labels",
    "load_marvin_linzen", "load_megaacceptability", "load_turblimp_ratings", "load_zorro", "load_zorro_reference_scores",
    "marvin_linzen_constructions", "read_dataset", "read_scores", "write_scores",
    "zorro_paradigms",
    "load_clams", "load_multiblimp", "load_rublimp", "load_sling", "load_turblimp",
    "multiblimp_languages", "turblimp_paradigms",
    "load_syntaxgym", "load_syntaxgym_results", "read_syntaxgym_surprisals",
    "syntaxgym_circuits", "syntaxgym_predictions", "syntaxgym_regions", "syntaxgym_suites",
    "validate_pairs", "validate_scores", "validate_sentences", "validate_trials",
]

__getattr__, __dir__ = lazy_exports(__name__, __file__)  # the imports above, each on first use
