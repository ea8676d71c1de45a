"""BLiMP's raw human forced-choice (FC) responses as a trials table.

Warstadt et al. (2020), section 3 ("Data validation", human validation on MTurk): each
HIT shows five pairs, four BLiMP pairs and one attention-check item, to validators who
self-reported as native speakers; "A few had to be excluded due to ineligible annotators"
(footnote 9). The exclusion rule used here reproduces ``human_validation_summary.csv``
exactly (``count`` and ``total_mean`` for all 69 paradigms); see `EXCLUSION_REASONS`.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from acceptability.data.errors import DataError
from acceptability.data.io.sources import fetch, registry

NAME = "blimp"
RESPONSES_FILE = "raw_results/human_responses.csv"
SUMMARY_FILE = "raw_results/human_validation_summary.csv"
N_ITEMS = 5
ATTENTION = "attnchk"

#: Why a HIT assignment (all its trials) is excluded, in the order they are checked.
EXCLUSION_REASONS = {
    "attention_check_failed": "chose the wrong option on the HIT's attention-check item",
    "rejected": "AssignmentStatus is 'Rejected' (by the authors on MTurk; 9 of the 10 "
                "rejected assignments also failed the attention check, the 10th did not "
                "answer all five questions)",
    "ineligible": "answered 0 to both language questions (Answer.english and Answer.native) "
                  "and never 1 (Answer.navtive empty): not a self-reported native speaker",
}


def _columns() -> list[str]:
    items = [f"Input.{k}" for i in range(1, N_ITEMS + 1)
             for k in (f"item_{i}_condition", f"field_{i}_1", f"field_{i}_2")]
    answers = [f"Answer.Choice{i}" for i in range(1, N_ITEMS + 1)]
    return ["HITId", "AssignmentId", "AssignmentStatus", "SubmitTime", "Input.list", "anonCode",
            "Answer.english", "Answer.native", "Answer.navtive", *items, *answers]


def _read_responses(file: os.PathLike) -> pd.DataFrame:
    raw = pd.read_csv(file)
    missing = [c for c in _columns() if c not in raw.columns]
    if missing:
        raise DataError(f"missing column(s) {missing}", source=str(file),
                        column=missing[0],
                        fix="pass BLiMP's raw MTurk file (blimp_human_validation_rawMTurk.csv)")
    return raw


def _long(raw: pd.DataFrame, file: str) -> pd.DataFrame:
    """One row per (assignment, item): condition, texts, good position, choice."""
    parts = []
    for i in range(1, N_ITEMS + 1):
        cond = raw[f"Input.item_{i}_condition"].astype(str)
        choice = raw[f"Answer.Choice{i}"].astype("string").str.extract(r"^\s*([12])\.")[0]
        parts.append(pd.DataFrame({
            "assignment": raw["AssignmentId"], "position": i,
            "condition": cond.str.replace(r"ans[12]$", "", regex=True),
            "good_position": pd.to_numeric(cond.str.extract(r"ans([12])$")[0]),
            "text_1": raw[f"Input.field_{i}_1"], "text_2": raw[f"Input.field_{i}_2"],
            "choice": pd.to_numeric(choice),
        }))
    long = pd.concat(parts, ignore_index=True)
    bad = long["good_position"].isna()
    if bad.any():
        row = long.loc[bad].iloc[0]
        raise DataError(f"condition {row['condition']!r} does not end in 'ans1' or 'ans2'",
                        source=file, column=f"Input.item_{row['position']}_condition")
    first = long["good_position"] == 1
    long["good_text"] = long["text_1"].where(first, long["text_2"])
    long["bad_text"] = long["text_2"].where(first, long["text_1"])
    long["chose_good"] = (long["choice"] == long["good_position"]).astype(float)
    long.loc[long["choice"].isna(), "chose_good"] = np.nan
    return long.drop(columns=["text_1", "text_2"])


def _assignment_flags(raw: pd.DataFrame, long: pd.DataFrame) -> pd.DataFrame:
    """Per assignment: the exclusion reason (or empty), checked in EXCLUSION_REASONS order."""
    att = long[long["condition"] == ATTENTION].groupby("assignment")["chose_good"].min()
    flags = pd.DataFrame({
        "attention_check_failed": raw["AssignmentId"].map(att).fillna(0).eq(0).to_numpy(),
        "rejected": raw["AssignmentStatus"].eq("Rejected").to_numpy(),
        "ineligible": (raw["Answer.english"].eq(0) & raw["Answer.native"].eq(0)
                       & raw["Answer.navtive"].isna()).to_numpy(),
    }, index=raw["AssignmentId"])
    reason = pd.Series("", index=flags.index)
    for name in reversed(EXCLUSION_REASONS):  # the first matching reason wins
        reason = reason.mask(flags[name], name)
    return reason.rename("excluded")


def _pair_ids(trials: pd.DataFrame, blimp: pd.DataFrame) -> pd.Series:
    """``{UID}_{pairID}`` by text match; paradigms left out of public BLiMP get ``{UID}_fc{k}``."""
    key = blimp.set_index(["UID", "sentence_good", "sentence_bad"])["pairID"].astype(str)
    key = key[~key.index.duplicated()]
    idx = pd.MultiIndex.from_frame(trials[["paradigm", "good_text", "bad_text"]])
    pair = pd.Series(key.reindex(idx).to_numpy(), index=trials.index)
    local = trials.groupby("paradigm")["good_text"].rank(method="dense").astype(int) - 1
    return trials["paradigm"] + "_" + pair.fillna("fc" + local.astype(str))


def _blimp_pairs(paradigms: list[str], path: str | os.PathLike | None) -> pd.DataFrame:
    frames = []
    published = registry(NAME)  # the paradigms that failed validation are not in BLiMP
    for uid in paradigms:
        if f"data/{uid}.jsonl" in published:
            f = fetch(NAME, f"data/{uid}.jsonl", path)
            frames.append(pd.read_json(f, lines=True, dtype={"pairID": str}))
    cols = ["UID", "sentence_good", "sentence_bad", "pairID"]
    return pd.concat(frames, ignore_index=True)[cols] if frames else pd.DataFrame(columns=cols)


def load_blimp_trials(path: str | os.PathLike | None = None,
                      exclude: bool = True) -> pd.DataFrame:
    """BLiMP's human forced-choice responses (Warstadt et al. 2020, section 4), one row per (assignment, pair).

    Attention checks are not trials. Rows are in submission order, then position in
    the HIT.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The BLiMP folder (as for [load_blimp][acceptability.data.load_blimp]), holding
        ``raw_results/`` with the human validation responses.
    exclude : bool, default True
        Drop excluded assignments and unanswered items, counting them in
        ``df.attrs["exclusions"]`` (``table``, ``reason``, ``n``).

    Returns
    -------
    pandas.DataFrame
        The trials table: ``participant`` (anonymised worker, ``w<anonCode>``), ``pair_id``
        (``{UID}_{pairID}``, matched on the two texts), ``paradigm`` (UID), ``chose_good``
        (0/1), ``assignment``, ``hit``, ``list``, ``position`` (1-5 in the HIT),
        ``good_position`` (1/2 on screen), ``good_text``, ``bad_text``, ``in_blimp`` (False
        for the paradigms that failed validation and are not in public BLiMP),
        ``submitted`` and ``excluded`` (the reason, see `EXCLUSION_REASONS`, or empty).

    Examples
    --------
    Needs the data (BLiMP's ``raw_results``):

    >>> from acceptability.data import load_blimp_trials
    >>> trials = load_blimp_trials("blimp")  # doctest: +SKIP
    >>> trials["chose_good"].isin([0, 1]).all()  # doctest: +SKIP
    True
    """
    file = fetch(NAME, RESPONSES_FILE, path)
    raw = _read_responses(file)
    long = _long(raw, str(file))
    reason = _assignment_flags(raw, long)
    meta = pd.DataFrame({
        "assignment": raw["AssignmentId"], "hit": raw["HITId"], "list": raw["Input.list"],
        "participant": "w" + raw["anonCode"].astype(str),
        "submitted": pd.to_datetime(raw["SubmitTime"].str.replace(r" P[DS]T", "", regex=True),
                                    format="%a %b %d %H:%M:%S %Y"),
        "excluded": raw["AssignmentId"].map(reason),
    })
    trials = (long[long["condition"] != ATTENTION].rename(columns={"condition": "paradigm"})
              .merge(meta, on="assignment", how="left"))
    blimp = _blimp_pairs(sorted(trials["paradigm"].unique()), path)
    trials["pair_id"] = _pair_ids(trials, blimp)
    trials["in_blimp"] = trials["paradigm"].isin(blimp["UID"])
    trials = trials.sort_values(["submitted", "assignment", "position"], ignore_index=True)
    cols = ["participant", "pair_id", "paradigm", "chose_good", "assignment", "hit", "list",
            "position", "good_position", "good_text", "bad_text", "in_blimp", "submitted",
            "excluded"]
    trials = trials[cols]
    if not exclude:
        return trials
    counts = [("trials", f"assignment {name}: {EXCLUSION_REASONS[name]}",
               int((trials["excluded"] == name).sum())) for name in EXCLUSION_REASONS]
    trials = trials[trials["excluded"] == ""]
    unanswered = trials["chose_good"].isna()
    counts.append(("trials", "item left unanswered", int(unanswered.sum())))
    out = trials[~unanswered].astype({"chose_good": int}).reset_index(drop=True)
    out.attrs["exclusions"] = pd.DataFrame(counts, columns=["table", "reason", "n"])
    return out


def load_blimp_human_summary(path: str | os.PathLike | None = None) -> pd.DataFrame:
    """The paper's per-paradigm human results (BLiMP's ``human_validation_summary.csv``).

    Parameters
    ----------
    path : str or os.PathLike, optional
        The BLiMP folder (as for [load_blimp][acceptability.data.load_blimp]).

    Returns
    -------
    pandas.DataFrame
        ``paradigm``, ``accepted`` (pairs, of 5, where the majority chose the acceptable
        sentence), ``total_mean`` (individual accuracy), ``count`` (responses).

    Examples
    --------
    Needs the data (BLiMP's ``raw_results``):

    >>> from acceptability.data import load_blimp_human_summary
    >>> load_blimp_human_summary("blimp").columns.tolist()  # doctest: +SKIP
    ['paradigm', 'accepted', 'total_mean', 'count']
    """
    file = fetch(NAME, SUMMARY_FILE, path)
    df = pd.read_csv(file)
    missing = [c for c in ("Condition", "accepted", "total_mean", "count") if c not in df]
    if missing:
        raise DataError(f"missing column(s) {missing}", source=str(file), column=missing[0])
    return df.rename(columns={"Condition": "paradigm"})
