"""A rating trial entered twice is refused (issue 43, item 10): two rows with the same
named participant and equal on every column count one judgment twice (ICC(k) rose from
0.969 to 0.985, and normalize_ratings' SE shrank by sqrt 2). The error names the file and
both lines, as for repeated sentence, pair and score ids (one check: data.tables.
refuse_repeats). Real data: MegaAcceptability v1 and Lau et al. 2020."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from acceptability.data import DataError, validate_ratings
from tests.conftest import need_data


@pytest.fixture(scope="module")
def mega_part() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The first 300 verb-frame sentences of MegaAcceptability and their 1,500 trials."""
    need_data("megaacceptability", "mega-acceptability-v1.zip")
    ds = data.load_megaacceptability()
    part = ds.subset(sentence_ids=ds.sentences["sentence_id"].iloc[:300])
    sentences = part.sentences[["sentence_id", "text", "verb", "frame"]]
    ratings = part.ratings.reset_index(drop=True)
    return sentences, pd.DataFrame(ratings)


def test_a_trial_entered_twice_names_the_file_and_both_lines(tmp_path, mega_part):
    sentences, ratings = mega_part
    twice = pd.concat([ratings.iloc[:900], ratings.iloc[[40]], ratings.iloc[900:]],
                      ignore_index=True)
    sentences.to_csv(tmp_path / "mega.csv", index=False)
    twice.to_csv(tmp_path / "mega_ratings.csv", index=False)
    with pytest.raises(DataError, match="a trial entered twice") as err:
        data.read_dataset(tmp_path / "mega.csv", ratings=tmp_path / "mega_ratings.csv",
                          scale="likert:1-7", human_scale="raw")
    message = str(err.value)
    assert err.value.source == str(tmp_path / "mega_ratings.csv")
    assert "lines 42 and 902" in message and err.value.row == "42 (line)"
    participant, sentence = ratings.loc[40, ["participant", "sentence_id"]]
    assert f"participant {participant!r}" in message and repr(sentence) in message
    assert "drop the repeated row" in message and "trial" in message.split("Fix:")[1]


def test_in_a_table_the_error_names_both_rows(mega_part):
    _, ratings = mega_part
    twice = pd.concat([ratings, ratings.iloc[[7]]], ignore_index=True)
    with pytest.raises(DataError, match=f"rows 7 and {len(ratings)}"):
        validate_ratings(twice, "likert:1-7")


def test_a_trial_entered_twice_changes_reliability(mega_part):
    """Why it is refused: ICC(k) of the 1,500 trials, computed from the one-way ANOVA in
    the test (McGraw & Wong 1996), is 0.707; with every trial entered twice, 0.870."""
    _, ratings = mega_part

    def icc_k(frame: pd.DataFrame) -> float:
        groups = [g.to_numpy(float) for _, g in frame.groupby("sentence_id")["response"]]
        grand = np.concatenate(groups).mean()
        n = sum(len(g) for g in groups)
        msb = sum(len(g) * (g.mean() - grand) ** 2 for g in groups) / (len(groups) - 1)
        msw = sum(((g - g.mean()) ** 2).sum() for g in groups) / (n - len(groups))
        return (msb - msw) / msb

    once = icc_k(ratings)
    assert round(once, 3) == 0.707 and round(icc_k(pd.concat([ratings, ratings])), 3) == 0.870
    row = stats.rater_reliability(validate_ratings(ratings, "likert:1-7"), "icc", ci=None)
    assert row.set_index("quantity").loc["ICC(k)", "estimate"] == pytest.approx(once)
    twice = pd.concat([ratings, ratings], ignore_index=True)
    twice.attrs["scale"] = "likert:1-7"
    with pytest.raises(DataError, match="a trial entered twice"):
        stats.rater_reliability(twice, "icc", ci=None)


def test_a_repeated_measure_with_a_trial_column_is_kept(mega_part):
    """A participant who rated a sentence twice by design: the presentation order tells
    the two trials apart, so they are two trials."""
    _, ratings = mega_part
    again = ratings.iloc[[3]].assign(presentationorder=ratings["presentationorder"].max() + 1)
    out = validate_ratings(pd.concat([ratings, again], ignore_index=True), "likert:1-7")
    assert len(out) == len(ratings) + 1


def test_equal_ratings_without_raters_are_kept():
    """Lau et al. 2020 publish each sentence's ratings without raters: equal rows there are
    different raters' equal ratings, not a repeated trial."""
    ds = data.load_lau2020(need_data("lau2020"), context="none")
    assert ds.ratings["participant"].isna().all() and ds.ratings.duplicated().any()
    assert len(ds.ratings) == 4107
