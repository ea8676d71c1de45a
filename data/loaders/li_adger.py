"""LI-Adger (Sprouse et al. 2013; Sprouse & Almeida 2012) as used in the ADC thesis.

Human data: mean z-scored Magnitude Estimation ratings for 4178 sentences (thesis 1.3.2).
Sentence ids: ``32.3.Culicover.7a.g.01`` (LI volume.issue.author.example.label.token) or
``ch8.150.*.01`` (Adger chapter.example.label.token). The label is ``g`` (acceptable),
``*`` (unacceptable), or a marginal mark (``?``, ``??``, ``?*``, ``??(*)``); a sentence
type is the id without its token number.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from acceptability.data.dataset import Dataset
from acceptability.data.errors import DataError
from acceptability.data.graph import components
from acceptability.data.io.sources import checksum, fetch
from acceptability.data.tables import (
    require_columns,
    validate_pairs,
    validate_scores,
    validate_sentences,
)

NAME = "li-adger"
HUMAN_FILE = "human_ME_results_li-adger_sentences.csv"
PAIRS_FILE = "li-adger_min_pairs.csv"
MLM_FILE = "bert_mlm_results_li-adger_sentences.csv"
ACC_FILE = "bert_acc_results_li-adger_sentences.csv"
ALL_MODELS_FILE = "li-adger_min_pairs_all_models.csv"
BERTS = ("bert-base-uncased", "bert-large-uncased", "bert-large-cased")
LABELS = {"g": 1.0, "*": 0.0}


def parse_id(ids: pd.Series, source: str = HUMAN_FILE) -> pd.DataFrame:
    """Split LI-Adger ids into ``type_id``, ``item`` (token number) and ``label_raw``."""
    parts = ids.str.rsplit(".", n=2)
    bad = parts.str.len() != 3
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise DataError(f"sentence id {ids.iloc[pos]!r} is not '<example>.<label>.<token>'",
                        source=source, row=f"{pos + 2} (line)", column="id")
    item = pd.to_numeric(parts.str[2], errors="coerce")
    if item.isna().any():
        pos = int(np.flatnonzero(item.isna())[0])
        raise DataError(f"sentence id {ids.iloc[pos]!r} does not end in a token number",
                        source=source, row=f"{pos + 2} (line)", column="id")
    return pd.DataFrame({"type_id": ids.str.rsplit(".", n=1).str[0],
                         "item": item.astype(int), "label_raw": parts.str[1]})


def phenomena(type_ids: pd.Series, pairs: pd.DataFrame, sentence_type: pd.Series) -> pd.Series:
    """Group sentence types into phenomena: connected components of the type graph.

    Two types are linked when a minimal pair joins one of their sentences (thesis 1.3.1:
    an LI pairwise phenomenon or an Adger multi-condition phenomenon). A component is
    named after its first type id.
    """
    types = pd.Index(sorted(type_ids.unique()))
    a = types.get_indexer(pairs["good_id"].map(sentence_type))
    b = types.get_indexer(pairs["bad_id"].map(sentence_type))
    comp = components(len(types), a, b)
    first = pd.Series(types, index=types).groupby(comp).transform("min")
    return type_ids.map(pd.Series(first.to_numpy(), index=types))


def load_li_adger(path: str | os.PathLike | None = None, keep_discarded: bool = False) -> Dataset:
    """The LI-Adger sentences with human magnitude-estimation judgments, and its expert minimal pairs (thesis ch. 1).

    Marginal sentences (``?``/``??``) get ``label`` NaN and ``marginal`` True: they stay
    in pairs but leave label-based metrics (MCC). Pairs column ``identical_text`` flags
    pairs whose good and bad sentences have the same text (2 kept pairs:
    ``34.4.boskovic.4c.g.01|34.4.boskovic.3c.*.01`` and ``ch8.62.g.06|ch8.64.*.06``).
    They stay, as in the thesis; every model scores their two sentences alike (model
    delta exactly 0), so whether they pass the ADC depends on its sign convention
    (`stats.metrics.adc_pass`). ``repr(dataset)`` counts them.

    Parameters
    ----------
    path : str or os.PathLike, optional
        A folder with the LI-Adger CSVs; default ``$ACCEPTABILITY_DATA_DIR/li-adger``,
        else a checksummed download from github.com/hjvm/acceptability_delta_criterion.
    keep_discarded : bool, default False
        Keep the 28 pairs marked ``discard=X`` (without them: Table 3.1's 2365 pairs).

    Returns
    -------
    Dataset
        4178 sentences with ``human`` (z-scored judgments), and the pairs.

    Examples
    --------
    Needs the data (the LI-Adger CSVs, or a download):

    >>> from acceptability.data import load_li_adger
    >>> len(load_li_adger().pairs)  # doctest: +SKIP
    2365
    """
    human_f, pairs_f = fetch(NAME, HUMAN_FILE, path), fetch(NAME, PAIRS_FILE, path)
    raw = pd.read_csv(human_f)
    require_columns(raw, ["id", "sentence", "judgement", "dataset"], str(human_f))
    parsed = parse_id(raw["id"].astype(str), str(human_f))
    sentences = pd.DataFrame({
        "sentence_id": raw["id"].astype(str), "text": raw["sentence"],
        "dataset": raw["dataset"], "type_id": parsed["type_id"], "item": parsed["item"],
        "phenomenon": np.nan, "label": parsed["label_raw"].map(LABELS),
        "human": raw["judgement"], "label_raw": parsed["label_raw"],
        "marginal": ~parsed["label_raw"].isin(list(LABELS)),
        "notes": raw.get("notes"), "typo": raw.get("typo?"),
    })
    sentences = validate_sentences(sentences, source=str(human_f), line_offset=2)

    rawp = pd.read_csv(pairs_f)
    require_columns(rawp, ["gramm_id", "ungramm_id", "discard"], str(pairs_f))
    discard = rawp["discard"].astype(str).str.strip().str.upper().eq("X")
    pairs = pd.DataFrame({
        "pair_id": rawp["gramm_id"].astype(str) + "|" + rawp["ungramm_id"].astype(str),
        "good_id": rawp["gramm_id"], "bad_id": rawp["ungramm_id"],
        "phenomenon": np.nan, "dataset": rawp["dataset"], "notes": rawp.get("notes"),
        "discard": discard,
    })
    pairs = validate_pairs(pairs, sentences, source=str(pairs_f), line_offset=2)
    by_id = sentences.set_index("sentence_id")
    text = by_id["text"]
    pairs["identical_text"] = pairs["good_id"].map(text).eq(pairs["bad_id"].map(text))
    kept = pairs if keep_discarded else pairs[~pairs["discard"]].copy()
    sentences["phenomenon"] = phenomena(sentences["type_id"], kept, by_id["type_id"])
    kept["phenomenon"] = kept["good_id"].map(sentences.set_index("sentence_id")["phenomenon"])

    ids = {"discarded": () if keep_discarded else tuple(pairs.loc[discard, "pair_id"]),
           "no human": tuple(sentences.loc[sentences["human"].isna(), "sentence_id"]),
           "marginal": tuple(sentences.loc[sentences["marginal"], "sentence_id"])}
    exclusions = pd.DataFrame([  # ids: Dataset.subset recounts the rows it keeps
        {"table": "pairs", "reason": "discard=X in li-adger_min_pairs.csv",
         "ids": ids["discarded"]},
        {"table": "sentences", "reason": "missing human judgment (pairs using them are "
         "left out of human-based metrics)", "ids": ids["no human"]},
        {"table": "sentences", "reason": "marginal expert label (?, ??): left out of "
         "label-based metrics (MCC)", "ids": ids["marginal"]},
    ]).assign(n=lambda e: e["ids"].map(len))
    return Dataset(
        name=NAME, sentences=sentences.reset_index(drop=True),
        pairs=kept.reset_index(drop=True), source=str(human_f.parent),
        checksums={HUMAN_FILE: checksum(human_f), PAIRS_FILE: checksum(pairs_f)},
        exclusions=exclusions,
    )


def _bert_scores(file, suffix: str, method: str) -> pd.DataFrame:
    df = pd.read_csv(file)
    cols = [f"{m}_{suffix}" for m in BERTS]
    require_columns(df, ["id", *cols], str(file))
    long = df.melt(id_vars="id", value_vars=cols, var_name="model", value_name="score")
    return long.rename(columns={"id": "sentence_id"}).assign(method=method)


def _trigram_scores(file) -> pd.DataFrame:
    """Trigram SLOR and log-prob (Sprouse et al. 2018, BNC), recovered per sentence.

    They exist only in the pairs file. The thesis z-scored them over a larger population
    than LI-Adger, so the reference mean and SD are recovered exactly from the published
    (raw, z) pairs and kept as ``ref_mean``/``ref_sd`` for ``stats.zscore``.
    """
    df = pd.read_csv(file)
    frames = []
    for key, model in (("slor", "trigram_slor"), ("logProb", "trigram_logprob")):
        cols = [f"{key}_gramm", f"{key}_zscores_gramm", f"{key}_ungramm", f"{key}_zscores_ungramm"]
        require_columns(df, ["gramm_id", "ungramm_id", *cols], str(file))
        both = pd.concat([
            df[["gramm_id", cols[0], cols[1]]].set_axis(["sentence_id", "score", "z"], axis=1),
            df[["ungramm_id", cols[2], cols[3]]].set_axis(["sentence_id", "score", "z"], axis=1),
        ])
        conflict = both.dropna().groupby("sentence_id")["score"].nunique() > 1
        if conflict.any():
            raise DataError(f"sentence {conflict.index[conflict][0]!r} has two different "
                            f"{key} scores", source=str(file), column=cols[0])
        both = both.drop_duplicates("sentence_id")
        ok = both.dropna()
        slope, intercept = np.polyfit(ok["score"], ok["z"], 1)
        resid = np.abs(ok["z"] - (slope * ok["score"] + intercept)).max()
        if resid > 1e-8:
            raise DataError(f"published {key} z-scores are not an affine map of the raw "
                            f"scores (max residual {resid:.2g})", source=str(file))
        frames.append(both.drop(columns="z").assign(
            model=model, method=key.lower(), ref_mean=-intercept / slope, ref_sd=1 / slope))
    return pd.concat(frames, ignore_index=True)


def load_li_adger_scores(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The thesis' published model scores of the LI-Adger sentences, long format.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The LI-Adger folder (as for [load_li_adger][acceptability.data.load_li_adger]).

    Returns
    -------
    pandas.DataFrame
        ``sentence_id, model, score, method`` for the models
        ``bert-{base-uncased,large-uncased,large-cased}_mlm`` (PLL, thesis ch. 3),
        ``..._acc`` (BERT_CoLA signed confidence, eq. 2.3), ``trigram_slor`` and
        ``trigram_logprob`` (only for sentences that appear in some pair).

    Examples
    --------
    Needs the data (the LI-Adger CSVs, or a download):

    >>> from acceptability.data import load_li_adger_scores
    >>> load_li_adger_scores()["model"].nunique()  # doctest: +SKIP
    8
    """
    mlm, acc, allm = (fetch(NAME, f, path) for f in (MLM_FILE, ACC_FILE, ALL_MODELS_FILE))
    scores = pd.concat([_bert_scores(mlm, "mlm", "pll"), _bert_scores(acc, "acc", "classifier"),
                        _trigram_scores(allm)], ignore_index=True)
    return validate_scores(scores, source="li-adger published scores")


def load_li_adger_thesis_labels(path: str | os.PathLike | None = None) -> pd.Series:
    """The 0/1 labels the thesis scored BERT_CoLA's MCC against (Table 2.2).

    They are the published ``label`` column of the BERT_CoLA results, not the expert
    labels of [load_li_adger][acceptability.data.load_li_adger]: the thesis' code set 1
    iff the sentence id contains the letter "g" anywhere, so the 128 unacceptable (``*``)
    sentences of authors whose names contain a g (Bruening, Caponigro, Haegeman,
    McGinnis, Panagiotidis, Sigurdsson) count as acceptable and the 112 marginal ones as
    unacceptable: 2217 ones and 1961 zeros, the counts thesis section 2.4 quotes. MCC
    over all 4178 sentences against them is Table 2.2's; with the expert labels (``g`` 1,
    ``*`` 0, marginal sentences left out) it is higher (tests/reproduce/test_thesis.py).

    Parameters
    ----------
    path : str or os.PathLike, optional
        Where the LI-Adger CSVs are; default as for
        [load_li_adger][acceptability.data.load_li_adger].

    Returns
    -------
    pandas.Series
        Float labels indexed by sentence id.

    Examples
    --------
    Needs the data (the LI-Adger CSVs, or a download):

    >>> from acceptability.data import load_li_adger_thesis_labels
    >>> load_li_adger_thesis_labels().value_counts().to_dict()  # doctest: +SKIP
    {1.0: 2217, 0.0: 1961}
    """
    f = fetch(NAME, ACC_FILE, path)
    df = pd.read_csv(f)
    require_columns(df, ["id", "label"], str(f))
    bad = ~df["label"].isin([0, 1])
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise DataError(f"label {df['label'].iloc[pos]!r} is not 0 or 1", source=str(f),
                        row=f"{pos + 2} (line)", column="label")
    return pd.Series(df["label"].to_numpy(float), index=pd.Index(df["id"].astype(str),
                     name="sentence_id"), name="thesis_label")
