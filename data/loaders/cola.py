"""CoLA (Warstadt et al. 2019): sentences with expert acceptability labels (no pairs,
no gradient human judgments), as used in thesis chapter 2."""

from __future__ import annotations

import os

import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.io.sources import checksum, fetch
from acceptability.data.tables import require_columns, validate_sentences

NAME = "cola"
SPLITS = {
    "in_domain_train": "cola_in_domain_train.csv",
    "out_of_domain_dev": "cola_out_of_domain_dev.csv",
    "out_of_domain_test": "cola_out_of_domain_test.csv",
    "analysis_major": "CoLA_grammatical_annotations_major_features.csv",
    "analysis_minor": "CoLA_grammatical_annotations_minor_features.csv",
}


def load_cola(path: str | os.PathLike | None = None, split: str = "out_of_domain_test") -> Dataset:
    """One CoLA split (Warstadt et al. 2019) as a sentences-only Dataset (``label`` 1 acceptable / 0 not).

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder holding CoLA's CSV files; default ``$ACCEPTABILITY_DATA_DIR/cola``, else
        a checksummed download.
    split : str, default "out_of_domain_test"
        ``in_domain_train``, ``out_of_domain_dev``, ``out_of_domain_test``, or one of the
        grammatically annotated analysis sets ``analysis_major``/``analysis_minor`` (their
        feature columns are kept, for MCC by feature as in Warstadt & Bowman 2019).

    Returns
    -------
    Dataset
        Sentences ``cola_<split>_<i>`` with ``label`` and ``phenomenon`` (the source),
        and no pairs.

    Raises
    ------
    DataError
        For an unknown split name, or a file that is missing or lacks a column.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from acceptability.data import load_cola
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "cola_out_of_domain_dev.csv").write_text(
    ...     "sentence_source,label,sentence\\nclc95,1,Somebody just left.\\nclc95,0,Left just.\\n")
    >>> ds = load_cola(folder, split="out_of_domain_dev")
    >>> ds.sentences[["sentence_id", "label"]].to_dict("list")
    {'sentence_id': ['cola_out_of_domain_dev_0', 'cola_out_of_domain_dev_1'], 'label': [1.0, 0.0]}
    """
    if split not in SPLITS:
        raise DataError(f"unknown CoLA split {split!r}", source=NAME, fix=f"use one of {list(SPLITS)}")
    f = fetch(NAME, SPLITS[split], path)
    raw = pd.read_csv(f)
    if split.startswith("analysis"):
        require_columns(raw, ["Source", "Acceptability", "Sentence"], str(f))
        features = raw.drop(columns=["Source", "Domain", "Acceptability", "Sentence"],
                            errors="ignore")
        base = pd.DataFrame({"text": raw["Sentence"], "label": raw["Acceptability"],
                             "phenomenon": raw["Source"]})
        base = pd.concat([base, features], axis=1)
    else:
        require_columns(raw, ["sentence_source", "label", "sentence"], str(f))
        base = pd.DataFrame({"text": raw["sentence"], "label": raw["label"],
                             "phenomenon": raw["sentence_source"]})
    base.insert(0, "sentence_id", [f"cola_{split}_{i}" for i in range(len(base))])
    base["dataset"] = f"cola_{split}"
    sentences = validate_sentences(base, source=str(f), line_offset=2)
    pairs = pd.DataFrame(columns=["pair_id", "good_id", "bad_id", "phenomenon"])
    return Dataset(name=f"{NAME}:{split}", sentences=sentences, pairs=pairs,
                   source=str(f.parent), checksums={SPLITS[split]: checksum(f)})
