"""The data shapes of the study matrix (issue 42, item 12): each is real data written as a user
brings it (files, or a bundled data set by name), with the same inputs for every entry point.

A shape knows its command-line data flags, the matching ``[data]`` table of an experiment file,
its Python Dataset (read from the same files by the public readers), and its scores. Scores
are shallow predictors computed here (``length``: minus the number of words; ``chars``: minus
the number of characters), so the matrix runs in seconds and every number is recomputable;
SyntaxGym's are the region surprisals a real model (GRNN) gave syntaxgym-core's test suite.
Adding a shape is adding an entry to ``SHAPES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from tests.conftest import need_data

LI_ADGER_PAIRS = 300  # the first pairs of LI-Adger (and their sentences)
MEGA_SENTENCES = 200  # the first MegaAcceptability sentences with their five ratings each
BLIMP_PARADIGM = "regular_plural_subject_verb_agreement_1"  # its human FC trials: pairs 0-4
BLIMP_PAIRS = 100
LAU_SENTENCES = 60  # Lau 2020's first sentences, rated after their real paragraph


@dataclass
class Inputs:
    """What every entry point of one shape reads."""

    flags: list[str]  # the command line's data flags (scores excluded)
    config: dict  # the experiment file's [data] table
    dataset: Callable[[], object]  # the Python Dataset, as a user builds it
    scores: Path  # the scores file
    python_scores: Callable[[], pd.DataFrame] = field(default=lambda: None)


def shallow_scores(sentences: pd.DataFrame) -> pd.DataFrame:
    """Two shallow "models": minus the number of words and minus the number of characters."""
    text = sentences["text"].astype(str)
    return pd.concat([
        pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "length",
                      "score": -text.str.split().str.len().astype(float)}),
        pd.DataFrame({"sentence_id": sentences["sentence_id"], "model": "chars",
                      "score": -text.str.len().astype(float)}),
    ], ignore_index=True)


def _files(out: Path, **tables: pd.DataFrame) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, table in tables.items():
        paths[name] = out / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    return paths


def _user_files(paths: dict[str, Path], scale: str | None = None,
                columns: dict[str, str] | None = None) -> Inputs:
    """Inputs of a shape held in the user's own sentences/pairs/ratings files."""
    from acceptability import data

    flags = ["--sentences", str(paths["sentences"])]
    config = {"sentences": str(paths["sentences"])}
    kwargs: dict = {}
    for key in ("pairs", "ratings"):
        if key in paths:
            flags += [f"--{key}", str(paths[key])]
            config[key] = str(paths[key])
            kwargs[key] = paths[key]
    if scale:
        flags += ["--scale", scale]
        config["scale"] = kwargs["scale"] = scale
    if columns:
        for old, new in columns.items():
            flags += ["--column", f"{old}={new}"]
        config["columns"] = dict(columns)
        kwargs["columns"] = dict(columns)
    return Inputs(flags=flags, config=config,
                  dataset=lambda: data.read_dataset(paths["sentences"], **kwargs),
                  scores=paths["scores"])


def pairs_human(out: Path) -> Inputs:
    """LI-Adger's first pairs with their sentences' mean ME z-scores (Sprouse et al. 2013)."""
    from acceptability import data

    ds = data.load_li_adger(need_data("li-adger"))
    ds = ds.subset(pair_ids=ds.pairs["pair_id"].iloc[:LI_ADGER_PAIRS])
    s = ds.sentences[["sentence_id", "text", "type_id", "phenomenon", "label", "human"]]
    return _user_files(_files(out, sentences=s, pairs=ds.pairs[["pair_id", "good_id", "bad_id"]],
                              scores=shallow_scores(s)))


def sentences_human(out: Path) -> Inputs:
    """The same LI-Adger sentences with their judgments and no pairs."""
    from acceptability import data

    ds = data.load_li_adger(need_data("li-adger"))
    ds = ds.subset(pair_ids=ds.pairs["pair_id"].iloc[:LI_ADGER_PAIRS])
    s = ds.sentences[["sentence_id", "text", "type_id", "phenomenon", "human"]]
    return _user_files(_files(out, sentences=s, scores=shallow_scores(s)))


def ratings(out: Path) -> Inputs:
    """MegaAcceptability's first sentences with their trial-level 1-7 ratings, no pairs."""
    from acceptability import data

    ds = data.load_megaacceptability(need_data("megaacceptability"))
    keep = ds.sentences["sentence_id"].iloc[:MEGA_SENTENCES]
    s = ds.sentences[ds.sentences["sentence_id"].isin(keep)][["sentence_id", "text"]]
    r = ds.ratings[ds.ratings["sentence_id"].isin(keep)][["participant", "sentence_id",
                                                          "response"]]
    return _user_files(_files(out, sentences=s, ratings=r, scores=shallow_scores(s)),
                       scale="likert:1-7")


def pairs_ratings(out: Path) -> Inputs:
    """TurBLiMP's human study: 216 pairs in two Latin-square lists, 6,480 Likert 1-7 trials
    whose rater column is ``subject`` (tests/latin_square.py)."""
    from tests.latin_square import write_study

    paths = write_study(need_data("turblimp", "data/human_judgments/base_judgments.xlsx"), out)
    paths["scores"] = out / "scores.csv"
    shallow_scores(pd.read_csv(paths["sentences"])).to_csv(paths["scores"], index=False)
    return _user_files(paths, scale="likert:1-7", columns={"subject": "participant"})


def forced_choice(out: Path) -> Inputs:
    """BLiMP's first pairs of one paradigm with the human forced-choice trials on them."""
    from acceptability import data

    folder = need_data("blimp", "raw_results/human_responses.csv")

    def dataset():
        ds = data.load_blimp(folder, paradigms=[BLIMP_PARADIGM])
        return ds.subset(pair_ids=ds.pairs["pair_id"].iloc[:BLIMP_PAIRS])

    paths = _files(out, scores=shallow_scores(dataset().sentences))
    flags = ["--dataset", "blimp", "--data-path", str(folder), "--paradigm", BLIMP_PARADIGM,
             "--max-pairs", str(BLIMP_PAIRS)]
    config = {"dataset": "blimp", "path": str(folder), "paradigms": [BLIMP_PARADIGM],
              "max_pairs": BLIMP_PAIRS}
    return Inputs(flags=flags, config=config, dataset=dataset, scores=paths["scores"])


def context(out: Path) -> Inputs:
    """Lau et al. (2020)'s first sentences with their real preceding paragraph as ``context``
    and their individual 1-4 ratings (no rater ids)."""
    from acceptability import data

    ds = data.load_lau2020(need_data("lau2020", "context-real-ratings.csv"), context="real")
    keep = ds.sentences["sentence_id"].iloc[:LAU_SENTENCES]
    s = ds.sentences[ds.sentences["sentence_id"].isin(keep)][["sentence_id", "text", "context"]]
    r = ds.ratings[ds.ratings["sentence_id"].isin(keep)][["sentence_id", "response"]]
    return _user_files(_files(out, sentences=s, ratings=r, scores=shallow_scores(s)),
                       scale="likert:1-4")


def syntaxgym(out: Path) -> Inputs:
    """syntaxgym-core's test suite with the region surprisals GRNN gave it (real output)."""
    from acceptability import data

    folder = need_data("syntaxgym", "syntaxgym-core-test/test_in.json") / "syntaxgym-core-test"
    suite, filled = folder / "test_in.json", folder / "test_out_grnn.json"
    flags = ["--dataset", "syntaxgym", "--suite", str(suite)]
    return Inputs(flags=flags, config={"dataset": "syntaxgym", "suites": [str(suite)]},
                  dataset=lambda: data.load_syntaxgym(suites=[suite]), scores=filled,
                  python_scores=lambda: data.read_syntaxgym_surprisals(filled))


SHAPES: dict[str, Callable[[Path], Inputs]] = {
    "pairs_human": pairs_human,
    "sentences_human": sentences_human,
    "ratings": ratings,
    "pairs_ratings": pairs_ratings,
    "forced_choice": forced_choice,
    "context": context,
    "syntaxgym": syntaxgym,
}
