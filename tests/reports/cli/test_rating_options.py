"""The command line's options for trial-level ratings (issue 32): the rating data sets,
``--ratings``/``--scale``, ``--max-sentences`` and ``--norming``, from flags and TOML alike,
and their refusals (one line, exit status 2)."""

from __future__ import annotations

import pandas as pd
import pytest

from acceptability.data.errors import DataError
from acceptability.reports.cli import main
from acceptability.reports.cli.experiment import Experiment, from_toml, load_dataset
from tests.conftest import need_data


def test_toml_and_flags_give_the_same_experiment(tmp_path):
    toml = tmp_path / "experiment.toml"
    toml.write_text('[data]\nsentences = "s.csv"\nratings = "r.csv"\nscale = "likert:1-7"\n'
                    'max_sentences = 20\n[scores]\nsource = "scores.csv"\n'
                    '[analysis]\nnorming = "rank"\n')
    exp = from_toml(toml)
    assert (exp.dataset, exp.scale, exp.max_sentences, exp.norming) == \
        ("user", "likert:1-7", 20, "rank")
    assert exp.ratings == str(tmp_path / "r.csv")


@pytest.mark.parametrize(("settings", "message"), [
    ({"dataset": "lau2020", "ratings": "r.csv", "scale": "likert:1-4"},
     "a ratings file needs its sentences file"),
    ({"sentences": "s.csv", "ratings": "r.csv"}, "a ratings file and its scale come together"),
    ({"sentences": "s.csv", "scale": "likert:1-7"}, "a ratings file and its scale"),
    ({"dataset": "lau2020", "norming": "median"}, "unknown norming 'median'"),
    ({"dataset": "lau2020", "max_sentences": 0}, "max_sentences must be an integer >= 1, got 0"),
])
def test_refusals(settings, message):
    with pytest.raises(DataError, match=message):
        Experiment(scores="published", **settings)


def test_a_bad_scale_is_one_line(tmp_path, capsys):
    code = main(["evaluate", "--sentences", str(tmp_path / "s.csv"), "--ratings",
                 str(tmp_path / "r.csv"), "--scale", "likert:7", "--scores", "x.csv"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "likert:7" in err


@pytest.mark.needs_data("lau2020", "context-real-ratings.csv")
def test_max_sentences_keeps_the_first_of_each_condition_and_counts_the_rest():
    need_data("lau2020", "context-real-ratings.csv")
    ds = load_dataset(Experiment(dataset="lau2020", max_sentences=3, scores="published"))
    s = ds.sentences
    assert s["sentence_id"].tolist() == [f"{c}/{i}" for c in ("none", "random", "real")
                                         for i in ("10037", "10213", "10286")]
    assert s["type_id"].tolist() == ["10037", "10213", "10286"] * 3
    assert not s["context"].str.contains("\t").any() and s["context"].str.len().gt(0).sum() == 6
    ex = ds.exclusions.set_index("table")["n"]
    every = load_dataset(Experiment(dataset="lau2020", scores="published"))
    assert ex["sentences"] == 750 - 9
    assert ex["ratings"] == len(every.ratings) - len(ds.ratings)
    assert s.attrs["norming"] == "mean"  # no participant ids
    means = ds.ratings.groupby("sentence_id")["response"].mean()
    pd.testing.assert_series_equal(s.set_index("sentence_id")["human"], means.reindex(
        s["sentence_id"]).rename("human"), check_names=False)


@pytest.mark.needs_data("megaacceptability", "mega-acceptability-v1.zip")
def test_max_sentences_of_megaacceptability_keeps_whole_lists():
    need_data("megaacceptability", "mega-acceptability-v1.zip")
    ds = load_dataset(Experiment(dataset="megaacceptability", max_sentences=120,
                                 scores="published"))
    per_list = ds.ratings.groupby("list")["sentence_id"].nunique()
    assert len(ds.sentences) == 100 and per_list.tolist() == [50, 50]
    assert ds.sentences.attrs["norming"] == "z"
