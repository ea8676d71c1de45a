"""BLiMP's published results (Warstadt et al. 2020): per-paradigm accuracies of the 5-gram,
LSTM, Transformer-XL and GPT-2 models (``raw_results/summary/models_summary.jsonl``) and of
the human validators (``human_validation_summary.csv``), and the paper's 12 phenomena.

The 12 phenomena are those of the paper's Tables 2-4. The jsonl data files label two
argument-structure paradigms (``animate_subject_passive``, ``animate_subject_trans``)
with a 13th ``linguistics_term``, ``s-selection``; the paper and its results file put
them under argument structure, and so does `PHENOMENON_LABELS`.
"""

from __future__ import annotations

import os

import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.io.sources import fetch
from acceptability.data.loaders.forced_choice import load_blimp_human_summary

NAME = "blimp"
RESULTS_FILE = "raw_results/models_summary.jsonl"

#: The paper's 12 phenomena in Table 3's column order, with its column headings.
PHENOMENON_LABELS = {
    "anaphor_agreement": "Ana. agr",
    "argument_structure": "Arg. str",
    "binding": "Binding",
    "control_raising": "Ctrl. rais.",
    "determiner_noun_agreement": "D-n agr",
    "ellipsis": "Ellipsis",
    "filler_gap_dependency": "Filler. gap",
    "irregular_forms": "Irregular",
    "island_effects": "Island",
    "npi_licensing": "NPI",
    "quantifiers": "Quantifiers",
    "subject_verb_agreement": "S-v agr",
}

#: The jsonl files' ``linguistics_term`` -> the paper's phenomenon (only where they differ).
TERM_TO_PHENOMENON = {"s-selection": "argument_structure"}

#: The systems of the results file, as the paper names them (its column -> name).
PUBLISHED_SYSTEMS = {"ngram": "5-gram", "lstm": "LSTM", "txl": "Transformer-XL",
                     "gpt2": "GPT-2"}
HUMAN = "Human"

#: BLiMP Table 3 as printed (percent accuracy): rows = systems, columns = "Overall" and
#: the 12 phenomena. Transcribed from the paper; tests compare it with the files.
TABLE_3_PRINTED = pd.DataFrame(
    [(61.2, 47.9, 71.9, 64.4, 68.5, 70.0, 36.9, 60.2, 79.5, 57.2, 45.5, 53.5, 60.3),
     (69.8, 91.7, 73.2, 73.5, 67.0, 85.4, 67.6, 73.9, 89.1, 46.6, 51.7, 64.5, 80.1),
     (69.6, 94.1, 69.5, 74.7, 71.5, 83.0, 77.2, 66.6, 78.2, 48.4, 55.2, 69.3, 76.0),
     (81.5, 99.6, 78.3, 80.1, 80.5, 93.3, 86.6, 81.3, 84.1, 70.6, 78.9, 71.3, 89.0),
     (88.6, 97.5, 90.0, 87.3, 83.9, 92.2, 85.0, 86.9, 97.0, 84.9, 88.1, 86.6, 90.9)],
    index=pd.Index(["5-gram", "LSTM", "Transformer-XL", "GPT-2", HUMAN], name="system"),
    columns=["overall", *PHENOMENON_LABELS],
)


def blimp_phenomenon(term: str) -> str:
    """The paper's phenomenon for a jsonl ``linguistics_term`` (``s-selection`` ->
    ``argument_structure``); an unknown term is an error."""
    phenomenon = TERM_TO_PHENOMENON.get(term, term)
    if phenomenon not in PHENOMENON_LABELS:
        raise DataError(f"unknown BLiMP linguistics_term {term!r}", source=NAME,
                        fix=f"use one of {sorted(PHENOMENON_LABELS)}")
    return phenomenon


def load_blimp_results(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """BLiMP's published per-paradigm accuracies (Warstadt et al. 2020, Table 3's sources) as a tidy table.

    Model accuracies are the results file's three-decimal values; the file's own
    ``overall`` summary rows are not paradigms and are returned in
    ``df.attrs["summary_rows"]`` (Table 3's "Overall" column reproduces them, not the
    mean of the 67 paradigms: see the tests). Human accuracy is the individual agreement
    (``total_mean``) of the 67 published paradigms; the two paradigms that failed
    validation are left out.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The BLiMP folder (as for [load_blimp][acceptability.data.load_blimp]), holding
        ``raw_results/``.

    Returns
    -------
    pandas.DataFrame
        ``system`` (5-gram, LSTM, Transformer-XL, GPT-2, Human), ``paradigm`` (UID),
        ``phenomenon`` (one of the 12), ``accuracy`` (0-1), ``source`` (the file it comes
        from): 67 paradigms x 5 systems.

    Raises
    ------
    DataError
        For an unreadable file, a missing field or an unknown phenomenon.

    Examples
    --------
    Needs the data (BLiMP's ``raw_results``):

    >>> from acceptability.data import load_blimp_results
    >>> results = load_blimp_results("blimp")  # doctest: +SKIP
    >>> results.groupby("system", sort=False).size().tolist()  # doctest: +SKIP
    [67, 67, 67, 67, 67]
    """
    file = fetch(NAME, RESULTS_FILE, path)
    try:
        raw = pd.read_json(file, lines=True)
    except ValueError as err:
        raise DataError(f"unreadable results file ({err})", source=str(file)) from None
    missing = [c for c in ("UID", "linguistics_term", *PUBLISHED_SYSTEMS) if c not in raw]
    if missing:
        raise DataError(f"missing field(s) {missing}", source=str(file), column=missing[0],
                        fix="use BLiMP's raw_results/summary/models_summary.jsonl")
    summary = raw["UID"] == "overall"
    rows = raw[~summary]
    bad = rows[~rows["linguistics_term"].isin(PHENOMENON_LABELS)]
    if len(bad):
        raise DataError(f"unknown phenomenon {bad['linguistics_term'].iloc[0]!r}",
                        source=str(file), row=f"{bad.index[0] + 1} (line)")
    models = rows.melt(id_vars=["UID", "linguistics_term"], value_vars=list(PUBLISHED_SYSTEMS),
                       var_name="system", value_name="accuracy")
    models["system"] = models["system"].map(PUBLISHED_SYSTEMS)
    models["source"] = RESULTS_FILE
    human = load_blimp_human_summary(path)
    phen = rows.set_index("UID")["linguistics_term"]
    human = human[human["paradigm"].isin(phen.index)]
    humans = pd.DataFrame({"UID": human["paradigm"], "linguistics_term":
                           human["paradigm"].map(phen), "system": HUMAN,
                           "accuracy": human["total_mean"],
                           "source": "raw_results/human_validation_summary.csv"})
    out = (pd.concat([models, humans], ignore_index=True)
           .rename(columns={"UID": "paradigm", "linguistics_term": "phenomenon"}))
    order = {s: i for i, s in enumerate([*PUBLISHED_SYSTEMS.values(), HUMAN])}
    out = out.sort_values(["system", "paradigm"], key=lambda c: c.map(order)
                          if c.name == "system" else c, ignore_index=True)
    out = out[["system", "paradigm", "phenomenon", "accuracy", "source"]]
    sums = raw[summary].rename(columns={"linguistics_term": "phenomenon"})
    out.attrs["summary_rows"] = sums.drop(columns="UID").rename(columns=PUBLISHED_SYSTEMS)
    return out

