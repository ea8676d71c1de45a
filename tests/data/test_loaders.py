"""BLiMP, CoLA and the bundled example load into valid tables."""

from __future__ import annotations

import numpy as np
import pytest

from acceptability import data, stats
from tests.conftest import need_data


def test_blimp_all_paradigms():
    need_data("blimp")
    ds = data.load_blimp()
    assert len(ds.pairs) == 67_000 and len(ds.sentences) == 134_000
    assert ds.pairs["paradigm"].nunique() == 67
    # the paper groups paradigms into 12 phenomena; the files' linguistics_term has 13:
    # s-selection, which the paper (Table 4) and its results file count as argument structure
    assert ds.pairs["phenomenon"].nunique() == 12
    assert ds.pairs["linguistics_term"].nunique() == 13
    s_sel = ds.pairs[ds.pairs["linguistics_term"] == "s-selection"]
    assert set(s_sel["paradigm"]) == {"animate_subject_passive", "animate_subject_trans"}
    assert (s_sel["phenomenon"] == "argument_structure").all()
    one = ds.pairs[ds.pairs["one_prefix_method"].astype(bool)]
    assert one["one_prefix_word_good"].notna().all()
    assert len(ds.checksums) == 67


def test_blimp_subset_and_unknown_paradigm():
    need_data("blimp")
    ds = data.load_blimp(paradigms=["adjunct_island"])
    assert ds.pairs.loc[0, "good_id"] == "adjunct_island_0_good"
    assert ds.sentences.set_index("sentence_id").loc["adjunct_island_0_bad", "label"] == 0
    with pytest.raises(data.DataError, match="unknown BLiMP paradigm 'nope'"):
        data.load_blimp(paradigms=["nope"])


@pytest.mark.parametrize("split,n", [("in_domain_train", 8551), ("out_of_domain_test", 533),
                                     ("analysis_minor", 1043)])
def test_cola_splits(split, n):
    need_data("cola")
    ds = data.load_cola(split=split)
    assert len(ds.sentences) == n and ds.sentences["label"].isin([0, 1]).all()
    if split == "analysis_minor":
        assert "Island" in ds.sentences.columns


def test_cola_mcc_of_a_classifier_style_score():
    """MCC uses the sign of a classifier's signed confidence (eq. 2.3)."""
    need_data("cola")
    ds = data.load_cola(split="out_of_domain_test")
    s = ds.sentences
    # the expert labels themselves as a perfect signed-confidence "classifier"
    sc = s[["sentence_id"]].assign(model="oracle", method="classifier",
                                   score=np.where(s["label"] == 1, 0.9, -0.9))
    assert stats.evaluate(ds, sc).loc[0, "mcc"] == pytest.approx(1.0)


def test_bundled_example(example):
    ds, sc = example
    assert len(ds.pairs) == 29 and len(ds.sentences) == 57
    z = stats.zscore(sc, ds)
    assert np.allclose(z["z"], z["score"])  # printed values are already z-scores
    # Thesis Table 1.5 / seed 004 table 2: the Culicover pair's human delta
    d = stats.pair_deltas(ds, sc).drop_duplicates("pair_id").set_index("good_id")
    assert d.loc["32.3.Culicover.7a.g.01", "dh"] == pytest.approx(2.320552, abs=1e-6)


def test_example_matches_li_adger_human_values(example, li_adger):
    ds, _ = example
    ours = ds.sentences.set_index("sentence_id")["human"].dropna()
    full = li_adger.sentences.set_index("sentence_id")["human"]
    assert np.allclose(ours, full.loc[ours.index], atol=1e-6)


def test_li_adger_pairs_carry_their_sentences_phenomenon(li_adger, li_adger_scores):
    """A pair's phenomenon is the connected component both its sentences belong to
    (236 phenomena; 6 are single sentence types whose only pairs are discarded)."""
    s, p = li_adger.sentences, li_adger.pairs
    phen = s.set_index("sentence_id")["phenomenon"]
    assert (p["phenomenon"] == p["good_id"].map(phen)).all()
    assert (p["phenomenon"] == p["bad_id"].map(phen)).all()
    assert s["phenomenon"].nunique() == 236 and p["phenomenon"].nunique() == 230
    pairless = set(s["phenomenon"]) - set(p["phenomenon"])
    assert pairless == {"34.1.phillips.92b.g", "34.1.phillips.93b.?*", "34.4.lasnik.10a.*",
                        "34.4.lasnik.11a.g", "35.1.bhatt.94a.*", "35.1.bhatt.94b.g"}
    by = stats.evaluate(li_adger, li_adger_scores, by="phenomenon")
    assert (by.groupby("model").size() == 236).all()
    assert (by.groupby("model")["n_pairs"].apply(lambda n: (n == 0).sum()) == 6).all()


def test_li_adger_flags_pairs_with_identical_texts(li_adger, li_adger_dir):
    """Two kept pairs have the same text twice; they are flagged and kept, not dropped."""
    p, text = li_adger.pairs, li_adger.sentences.set_index("sentence_id")["text"]
    assert p["identical_text"].dtype == bool and len(p) == 2365
    assert sorted(p.loc[p["identical_text"], "pair_id"]) == [
        "34.4.boskovic.4c.g.01|34.4.boskovic.3c.*.01", "ch8.62.g.06|ch8.64.*.06"]
    same = p["good_id"].map(text) == p["bad_id"].map(text)
    assert (same == p["identical_text"]).all()
    assert "2 pairs with identical texts" in repr(li_adger)
    assert data.load_li_adger(li_adger_dir, keep_discarded=True).pairs["identical_text"].sum() == 2
