"""Text and label cells keep their text (issue 43, item 8): "NA", "None", "null", "NaN",
"N/A" and "nan" (pandas' default missing-value strings) in an id, text or label column of
a user's file are that text, not a missing value; only numeric columns read them as
missing. Real data: the published example (seed papers), LI-Adger and Lau et al. 2020."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from tests.conftest import need_data

NA_STRINGS = ["NA", "None", "null", "NaN", "N/A", "nan"]


@pytest.fixture(scope="module")
def example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The published example's sentences and pairs as a user's two tables."""
    ds, _ = data.load_example()
    sentences = ds.sentences[["sentence_id", "text", "type_id", "phenomenon", "label", "human"]]
    return sentences.assign(condition="plain"), ds.pairs[["pair_id", "good_id", "bad_id",
                                                           "phenomenon"]]


def _write(frame: pd.DataFrame, path) -> None:
    if path.suffix == ".parquet":  # real nulls: a string "NA" is text there already
        frame.to_parquet(path)
    else:
        frame.to_csv(path, index=False, sep="\t" if path.suffix == ".tsv" else ",")


@pytest.mark.parametrize("value", NA_STRINGS)
@pytest.mark.parametrize("column", ["sentence_id", "text", "type_id", "phenomenon", "condition"])
@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".csv.gz", ".parquet"])
def test_sentences_file_keeps_the_text(tmp_path, example, column, value, suffix):
    sentences, _ = example
    sentences = sentences.copy()
    sentences.loc[3, column] = value
    path = tmp_path / f"mine{suffix}"
    _write(sentences, path)
    ds = data.read_dataset(path)
    assert ds.sentences.loc[3, column] == value
    assert ds.sentences["human"].isna().sum() == sentences["human"].isna().sum()


@pytest.mark.parametrize("value", NA_STRINGS)
@pytest.mark.parametrize("column", ["pair_id", "good_id", "bad_id", "phenomenon"])
def test_pairs_file_keeps_the_text(tmp_path, example, column, value):
    sentences, pairs = example
    sentences, pairs = sentences.copy(), pairs.copy()
    if column in ("good_id", "bad_id"):  # the sentence it names is renamed everywhere
        renamed = {pairs.loc[2, column]: value}
        sentences["sentence_id"] = sentences["sentence_id"].replace(renamed)
        pairs[["good_id", "bad_id"]] = pairs[["good_id", "bad_id"]].replace(renamed)
    pairs.loc[2, column] = value
    _write(sentences, tmp_path / "mine.csv")
    _write(pairs, tmp_path / "mine_pairs.csv")
    ds = data.read_dataset(tmp_path / "mine.csv", tmp_path / "mine_pairs.csv")
    assert ds.pairs.loc[2, column] == value
    assert len(ds.pairs) == len(pairs)


def test_a_phenomenon_na_is_its_own_group(tmp_path, example):
    """A phenomenon "NA" was read as missing and regrouped under its sentence's type."""
    sentences, pairs = example
    pairs = pairs.assign(phenomenon=["NA"] * 10 + ["agreement"] * (len(pairs) - 10))
    _write(sentences, tmp_path / "mine.csv")
    _write(pairs, tmp_path / "mine_pairs.csv")
    ds = data.read_dataset(tmp_path / "mine.csv", tmp_path / "mine_pairs.csv")
    assert ds.pairs["phenomenon"].value_counts().to_dict() == {"agreement": len(pairs) - 10,
                                                               "NA": 10}


def test_a_sentence_id_na_is_an_id(tmp_path, example):
    """A sentence id "NA" was refused as an empty id."""
    sentences, pairs = example
    good = pairs.loc[0, "good_id"]
    sentences = sentences.replace({"sentence_id": {good: "NA"}})
    pairs = pairs.replace({"good_id": {good: "NA"}})
    _write(sentences, tmp_path / "mine.csv")
    _write(pairs, tmp_path / "mine_pairs.csv")
    ds = data.read_dataset(tmp_path / "mine.csv", tmp_path / "mine_pairs.csv")
    assert "NA" in set(ds.sentences["sentence_id"]) and ds.pairs.loc[0, "good_id"] == "NA"


def test_a_type_none_keeps_the_variability(tmp_path, li_adger):
    """LI-Adger's real sentences with one type renamed "None": the within-type variability
    is the mean over types of the SD of the human z-scores (seed 004), brute-forced here
    from the original types; a type "None" read as missing split into one type per
    sentence and changed it."""
    s = li_adger.sentences[["sentence_id", "text", "type_id", "human"]]
    counts = s.dropna(subset=["human"]).groupby("type_id").size()
    renamed = counts.index[counts == 8][0]
    s.assign(type_id=s["type_id"].replace({renamed: "None"})).to_csv(
        tmp_path / "li.csv", index=False)
    ds = data.read_dataset(tmp_path / "li.csv")
    assert (ds.sentences["type_id"] == "None").sum() == 8
    sds = [np.std(g.dropna().to_numpy(), ddof=1) for _, g in s.groupby("type_id")["human"]
           if g.notna().sum() > 1]
    scores = data.load_li_adger_scores(need_data("li-adger"))
    scores = scores[scores["model"] == scores["model"].iloc[0]]
    human = stats.variability(ds, scores).summary.set_index("source").loc["human"]
    assert human["n_types"] == len(sds)
    assert human["variability"] == pytest.approx(np.mean(sds), rel=1e-12)


@pytest.mark.parametrize("value", NA_STRINGS)
@pytest.mark.parametrize("column", ["participant", "sentence_id", "list"])
def test_ratings_file_keeps_the_text(tmp_path, column, value):
    """Lau et al.'s no-context ratings as a user's file, one cell set to the string (a
    rated sentence renamed with its ratings); the response column reads "NA" as missing."""
    folder = need_data("lau2020", "context-none-ratings.csv")
    raw = pd.read_csv(folder / "context-none-ratings.csv", dtype=str, keep_default_na=False)
    sentences = pd.DataFrame({"sentence_id": raw["ID"], "text": raw["sentence"]})
    ratings = pd.DataFrame([(i, r) for i, rs in zip(raw["ID"], raw["full-ratings"], strict=True)
                            for r in rs.split(",")], columns=["sentence_id", "response"])
    ratings = ratings.assign(participant=[f"w{i}" for i in range(len(ratings))], list="a")
    if column == "sentence_id":
        sentences.loc[sentences["sentence_id"] == ratings.loc[5, column], "sentence_id"] = value
        ratings.loc[ratings["sentence_id"] == ratings.loc[5, column], column] = value
    ratings.loc[5, column] = value
    sentences.to_csv(tmp_path / "lau.csv", index=False)
    ratings.to_csv(tmp_path / "lau_ratings.csv", index=False)
    ds = data.read_dataset(tmp_path / "lau.csv", ratings=tmp_path / "lau_ratings.csv",
                           scale="likert:1-4")
    assert ds.ratings.loc[5, column] == value and len(ds.ratings) == len(ratings)
    ratings.loc[5, "response"] = value
    ratings.to_csv(tmp_path / "lau_ratings.csv", index=False)
    with pytest.raises(data.DataError, match="missing response") as err:
        data.read_dataset(tmp_path / "lau.csv", ratings=tmp_path / "lau_ratings.csv",
                          scale="likert:1-4")
    assert err.value.row == "7 (line)"


@pytest.mark.parametrize("value", NA_STRINGS)
def test_a_numeric_column_reads_them_as_missing(tmp_path, example, value):
    """R writes a missing number as NA: ``human`` and ``label`` take the six as missing."""
    sentences, _ = example
    sentences = sentences.astype({"human": object, "label": object})
    sentences.loc[0, ["human", "label"]] = value
    _write(sentences, tmp_path / "mine.csv")
    ds = data.read_dataset(tmp_path / "mine.csv")
    assert np.isnan(ds.sentences.loc[0, "human"]) and np.isnan(ds.sentences.loc[0, "label"])
    assert ds.sentences["human"].isna().sum() == sentences["human"].isna().sum() + (
        not pd.isna(example[0].loc[0, "human"]))


def test_an_extra_numeric_column_with_na_stays_numeric(tmp_path, example):
    """A further column of numbers with R's NA is numbers and missing values; one holding
    words beside "NA" is text, its "NA" kept."""
    sentences, _ = example
    sentences = sentences.assign(rt=[str(i) for i in range(len(sentences))],
                                 group=["a"] * len(sentences))
    sentences.loc[1, ["rt", "group"]] = "NA"
    _write(sentences, tmp_path / "mine.csv")
    ds = data.read_dataset(tmp_path / "mine.csv")
    assert ds.sentences["rt"].dtype == float and np.isnan(ds.sentences.loc[1, "rt"])
    assert ds.sentences.loc[1, "group"] == "NA"


@pytest.mark.parametrize("value", NA_STRINGS)
def test_a_scores_file_keeps_a_model_named_so(tmp_path, value):
    """The published example's scores with one model renamed: its name stays, and a score
    written as the string is a missing score."""
    ds, scores = data.load_example()
    scores = scores[["sentence_id", "model", "score"]].astype({"score": object})
    first = scores["model"].iloc[0]
    scores["model"] = scores["model"].replace({first: value})
    scores.iloc[0, 2] = value
    scores.to_csv(tmp_path / "scores.csv", index=False)
    out = data.read_scores(tmp_path / "scores.csv", ds)
    assert (out["model"] == value).sum() == (scores["model"] == value).sum() > 0
    assert np.isnan(out["score"].iloc[0]) and out["score"].iloc[1:].notna().all()


def test_the_strings_are_the_ones_pandas_reads_as_missing():
    """`NA_STRINGS` (missing in numeric columns) are what pandas itself reads as missing,
    so a number column reads as it did; six of them are the issue's."""
    from acceptability.data.io.files import NA_STRINGS as ours

    column = pd.read_csv(io.StringIO("x\n" + "\n".join(f'"{s}"' for s in ours)))["x"]
    assert column.isna().all() and len(column) == len(ours) and set(NA_STRINGS) <= set(ours)
