"""Seed 004's Tables 1, 3 and 5 for a benchmark (Vázquez Martínez et al. 2023): the n-gram
baselines of a child-directed corpus (``scoring.baselines``), their oracle and the linear
rules (``scoring.baselines.rules``), per paradigm beside the paper's printed columns. It
trains the baselines (a tagger, n-gram models), so it is an experiment: here in the
application layer, beside the commands."""

from __future__ import annotations

import pandas as pd

from acceptability import stats
from acceptability.data.loaders.published import seed_004_published
from acceptability.scoring.baselines.corpus import CorpusBaselines, baseline_scores, train_baselines
from acceptability.scoring.baselines.rules import rule_outcomes

REFERENCE = "BabyBERTa (seed 004)"
#: The tagger of the README's table: trained on every fifth utterance, 50 L-BFGS
#: iterations (about a minute; the whole corpus with seed 004's 100 iterations takes
#: about ten minutes on one core).
TAGGER = {"every": 5, "max_iterations": 50}


def quick_baselines(corpus: pd.DataFrame, order: int = 5) -> CorpusBaselines:
    """[train_baselines][acceptability.scoring.baselines.corpus.train_baselines] with the
    `TAGGER` settings (about a minute on the AO-CHILDES corpus)."""
    from acceptability.scoring.baselines.tagger import train_tagger

    sub = corpus.iloc[::TAGGER["every"]]
    tagger = train_tagger([s.split() for s in sub["text"]], [t.split() for t in sub["tags"]],
                          max_iterations=TAGGER["max_iterations"])
    return train_baselines(corpus, order, tagger=tagger)


def seed004_table(dataset, baselines: CorpusBaselines, ties: str = "half") -> pd.DataFrame:
    """Per paradigm accuracy (percent) of the word and tag n-grams, their oracle (a pair
    is correct when either is) and the rules, beside seed 004's printed columns, with
    the average and 'fraction >= BabyBERTa' rows (``stats.reference_table``).
    ``ties``: how an n-gram's exact ties count (``stats.pair_outcomes``); the oracle
    counts only outright wins."""
    scores = baseline_scores(dataset, baselines)
    out = stats.pair_outcomes(dataset, scores, ties=ties)
    out = pd.concat([out, stats.oracle_outcomes(out, list(baselines.names)),
                     rule_outcomes(dataset)], ignore_index=True)
    acc = stats.accuracy(out, published=seed_004_published(dataset), n_boot=0)
    return stats.reference_table(acc, REFERENCE, [*baselines.names, "oracle", "rules"],
                                 either=list(baselines.names))
