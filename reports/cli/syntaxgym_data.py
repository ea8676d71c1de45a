"""SyntaxGym suites on the command line and in a run: their scores are region surprisals
(``scoring.region_surprisals``), scored with the experiment's models or read from a file
(a region table that ``acceptability score --dataset syntaxgym`` wrote, or a suite that
SyntaxGym filled in, ``.json``).

A run's score step writes ``regions.parquet`` (each region's surprisal, what the report's
accuracies read), ``tokens.parquet`` (each token's surprisal, the regions' raw material,
when it scored them) and ``scores.parquet`` (each sentence's log-probability, the sum of its
regions': ``reports.syntaxgym.analysis.sentence_scores``), all through the score cache, so a rerun
or an interrupted run scores nothing twice.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from acceptability import data
from acceptability.data.errors import DataError
from acceptability.data.io.files import read_table
from acceptability.data.names import with_display_names
from acceptability.reports.cli.experiment import (
    SYNTAXGYM_SCORES,
    Experiment,
    kept,
    model_names,
    scoring_module,
    select_models,
)
from acceptability.reports.syntaxgym.analysis import REGION_COLUMNS, sentence_scores

REGIONS, TOKENS, SCORES = "regions.parquet", "tokens.parquet", "scores.parquet"


def score_regions(dataset, plan: list[tuple[str, str]], revision: str | None = None,
                  dtype: str | None = None, trust_remote_code: bool = False,
                  boundary: str = "sum", tokens: bool = False, hardware: dict | None = None
                  ) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    """Region surprisals of ``dataset`` by each (model, method) of ``plan``
    (``scoring.region_surprisals``, with ``model_source`` as ``scoring.score`` gives it),
    each model named ``<display name>_<method>`` (with ``_corrected`` for
    ``boundary="corrected"``); with ``tokens``, also each token's surprisal
    (``scoring.token_scores``, from the same cache entries); ``hardware``: where and in what
    batches models run (``Experiment.hardware``)."""
    scoring = scoring_module()
    names = model_names(plan, [] if boundary == "sum" else [boundary])
    regions, toks = [], []
    for (model, method), name in zip(plan, names, strict=True):
        settings = {"model_name": name, "revision": revision, "dtype": dtype,
                    "trust_remote_code": trust_remote_code, **(hardware or {})}
        table = scoring.region_surprisals(dataset, model, method, boundary=boundary, **settings)
        if isinstance(model, str):  # which weights: as scoring.score's model_source
            table["model_source"] = scoring.models.model_source(model, revision)
        regions.append(table)
        if tokens:
            toks.append(scoring.token_scores(dataset, model, method, context=False, **settings))
    return (pd.concat(regions, ignore_index=True),
            pd.concat(toks, ignore_index=True) if tokens else None)


def read_regions(path: str | Path, dataset) -> pd.DataFrame:
    """A region surprisal file: a table (.parquet, .csv, .tsv) with ``model, suite, item,
    condition, region, surprisal``, or a suite SyntaxGym filled in (.json,
    ``data.read_syntaxgym_surprisals``). Rows of suites the dataset lacks are set aside,
    counted in ``attrs["set_aside"]`` and said on stderr; none left is an error."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        regions = data.read_syntaxgym_surprisals(p)
    else:
        regions, _ = read_table(p, "region surprisals")
        missing = [c for c in REGION_COLUMNS if c not in regions]
        if missing:
            raise DataError(f"missing column(s) {missing}: SyntaxGym's scores are region "
                            "surprisals, not sentence scores", source=str(p), fix=SYNTAXGYM_SCORES)
    inside = regions["suite"].isin(set(dataset.sentences["suite"]))
    if not inside.any():
        raise DataError("no region surprisal of the selected suites", source=str(p),
                        fix="score the selected suites, or select the suites of the file "
                            "(--suite)")
    return kept(regions, inside, "region rows of suites not selected "
                f"({', '.join(sorted(set(regions.loc[~inside, 'suite'])))})")


def load_regions(exp: Experiment, dataset) -> pd.DataFrame:
    """The experiment's region surprisals: scored with its models, or read from its
    scores file (``read_regions``; ``models`` keeps some of its models)."""
    if exp.scores is None:
        return score_regions(dataset, exp.scoring_plan(), exp.revision, exp.dtype,
                             exp.trust_remote_code, exp.boundary, hardware=exp.hardware())[0]
    return with_display_names(select_models(read_regions(exp.scores, dataset), exp.models))


def write_run_scores(exp: Experiment, dataset, out: Path) -> list[str]:
    """A run's score step on SyntaxGym suites: ``regions.parquet``, ``tokens.parquet``
    (when scored here) and ``scores.parquet`` into ``out``; the names written."""
    tokens = None
    if exp.scores is None:
        regions, tokens = score_regions(dataset, exp.scoring_plan(), exp.revision, exp.dtype,
                                        exp.trust_remote_code, exp.boundary, tokens=True,
                                        hardware=exp.hardware())
    else:
        regions = load_regions(exp, dataset)
    written = [data.write_scores(sentence_scores(regions, dataset), out / SCORES),
               data.write_scores(regions, out / REGIONS)]
    if tokens is not None:
        written.append(data.write_scores(tokens, out / TOKENS))
    return [p.name for p in written]
