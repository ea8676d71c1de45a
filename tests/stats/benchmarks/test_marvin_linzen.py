"""Marvin & Linzen (2018): the 22 released pickles load, safely, into Table 1's rows."""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil

import numpy as np
import pandas as pd
import pytest

from acceptability.data.errors import DataError
from acceptability.data.io.safe_pickle import load_restricted
from acceptability.data.io.sources import registry
from acceptability.data.loaders.marvin_linzen import (
    ML_CONDITIONS,
    ML_TABLE1_PUBLISHED,
    ML_TABLE1_ROWS,
    PHENOMENA,
    load_marvin_linzen,
    marvin_linzen_constructions,
)
from acceptability.stats.benchmarks.marvin_linzen import ml_table1
from tests.conftest import need_data

# Pairs per Table 1 row counted from the released files (NPI: the contrast Table 1 reports;
# each NPI triple gives one more pair, the other contrast). Table 1's "# sents" is 2x these
# (3x for the NPI rows), checked against ML_TABLE1_PUBLISHED below.
PAIRS_PER_ROW = {
    ("Subject-verb agreement", "Simple"): 140,
    ("Subject-verb agreement", "In a sentential complement"): 1680,
    ("Subject-verb agreement", "Short VP coordination"): 840,
    ("Subject-verb agreement", "Long VP coordination"): 400,
    ("Subject-verb agreement", "Across a prepositional phrase"): 22400,
    ("Subject-verb agreement", "Across a subject relative clause"): 11200,
    ("Subject-verb agreement", "Across an object relative clause"): 22400,
    ("Subject-verb agreement", "Across an object relative (no that)"): 22400,
    ("Subject-verb agreement", "In an object relative clause"): 22400,
    ("Subject-verb agreement", "In an object relative (no that)"): 22400,
    ("Reflexive anaphora", "Simple"): 280,
    ("Reflexive anaphora", "In a sentential complement"): 3360,
    ("Reflexive anaphora", "Across a relative clause"): 22400,
    ("Negative polarity items", "Simple"): 264,
    ("Negative polarity items", "Across a relative clause"): 10560,
}
SMALL = ["simple_agrmt", "simple_reflexives", "long_vp_coord", "simple_npi_anim",
         "simple_npi_inanim", "npi_across_anim"]


@pytest.fixture(scope="module")
def folder():
    return need_data("marvin-linzen")


@pytest.fixture(scope="module")
def raw(folder):
    """The pickles as plain dicts, read without the loader: {construction: {condition: [...]}}."""
    return {rel.removeprefix("templates/").removesuffix(".pickle"): load_restricted(folder / rel, h)
            for rel, (h, _) in registry("marvin-linzen").items()}


@pytest.fixture(scope="module")
def ml(folder):
    return load_marvin_linzen(folder)


def test_release_is_22_files_of_163124_tuples_all_mapped(raw):
    assert len(raw) == 22 and sorted(raw) == marvin_linzen_constructions()
    assert sum(len(t) for d in raw.values() for t in d.values()) == 163_124
    found = {(stem, cond) for stem, d in raw.items() for cond in d}
    assert found == set(ML_CONDITIONS)  # every condition mapped, none invented
    assert set(ML_CONDITIONS.values()) == {
        (ph, row) for ph in PHENOMENA for (sec, row) in ML_TABLE1_ROWS if sec == PHENOMENA[ph]}


def test_pairs_per_table1_row(ml):
    p = ml.pairs
    assert len(ml.sentences) == 337_072 and len(p) == 173_948 and len(ml.checksums) == 22
    counts = p[p["in_table1"]].groupby(["section", "table1_row"], sort=False).size()
    assert counts.to_dict() == PAIRS_PER_ROW
    assert list(counts.index) == list(ML_TABLE1_ROWS)  # pairs come in Table 1 order
    # Table 1's "# sents": 2 sentences per pair, 3 per NPI triple; animate + inanimate pooled
    n_sents = ML_TABLE1_PUBLISHED.set_index(["section", "condition"])["n_sents"]
    width = {sec: 3 if sec == PHENOMENA["npi"] else 2 for sec in PHENOMENA.values()}
    assert {k: v * width[k[0]] for k, v in PAIRS_PER_ROW.items()} == n_sents.to_dict()


def test_npi_triples_give_two_pairs_each(ml):
    npi = ml.pairs[ml.pairs["phenomenon"] == "npi"]
    assert len(npi) == 2 * 10_824
    per_triple = npi.groupby(["construction", "condition", "item"])["contrast"].agg(sorted)
    assert (per_triple.map(tuple) == ("intrusive", "ungrammatical")).all()
    text = ml.sentences.set_index("sentence_id")["text"]
    one = npi[npi["pair_id"] == "npi_across_anim:past:0:intrusive"].iloc[0]
    assert text[one["good_id"]].startswith("no authors that the")
    assert text[one["bad_id"]].startswith("the authors that no")  # the intrusive licensor
    assert one["in_table1"] and one["paradigm"] == "npi: Across a relative clause"
    simple = npi[npi["pair_id"] == "simple_npi_anim:past:0:ungrammatical"].iloc[0]
    assert text[simple["bad_id"]].startswith("most authors")  # Table 1's no/*most
    assert simple["in_table1"]
    assert ml.sentences["sentence_id"].is_unique
    assert ml.sentences.groupby("role")["label"].agg(set).to_dict() == {
        "grammatical": {1.0}, "intrusive": {0.0}, "ungrammatical": {0.0}}


def test_prediction_setting_fields(ml):
    p = ml.pairs
    one = p[p["one_prefix_method"]]
    assert len(one) == 152_300 and set(one["phenomenon"]) == {"agreement", "reflexives"}
    assert not p.loc[p["phenomenon"] == "npi", "one_prefix_method"].any()
    text = ml.sentences.set_index("sentence_id")["text"]
    good = one["good_id"].map(text)
    start = one["one_prefix_prefix"] + " " + one["one_prefix_word_good"] + " "
    assert all((g + " ").startswith(s) for g, s in zip(good, start, strict=True))
    row = p.set_index("pair_id").loc["obj_rel_within_anim:sing_ES_EV_sing_MS_MV:0"]
    assert (row["one_prefix_prefix"], row["one_prefix_word_good"], row["one_prefix_word_bad"]) == (
        "the author that the security guard", "likes", "like")


def _brute_force(raw, stems, score, word_score):
    """Table 1 counts by a plain loop over the pickles: {(section, row): [n, correct, ties]}."""
    sent, pred = {}, {}
    for stem in stems:
        for cond, tuples in raw[stem].items():
            phen, row = ML_CONDITIONS[stem, cond]
            key = (PHENOMENA[phen], row)
            for t in tuples:
                bad = t[1] if len(t) == 2 or row == "Across a relative clause" else t[2]
                g, b = score(t[0]), score(bad)
                c = sent.setdefault(key, [0, 0, 0])
                c[0], c[1], c[2] = c[0] + 1, c[1] + (g > b), c[2] + (g == b)
                if len(t) == 2:
                    gw, bw = [(x, y) for x, y in zip(t[0].split(), t[1].split(), strict=True)
                              if x != y][0]
                    c = pred.setdefault(key, [0, 0, 0])
                    g, b = word_score(gw), word_score(bw)
                    c[0], c[1], c[2] = c[0] + 1, c[1] + (g > b), c[2] + (g == b)
    return sent, pred


def test_ml_table1_matches_a_plain_loop(folder, raw):
    ds = load_marvin_linzen(folder, constructions=SMALL)
    s = ds.sentences
    scores = pd.concat([
        s[["sentence_id"]].assign(model="minus_len", score=-s["text"].str.len().astype(float)),
        s[["sentence_id"]].assign(model="count_s", score=s["text"].str.count("s").astype(float)),
    ])
    p = ds.pairs[ds.pairs["one_prefix_method"]]
    prefix = pd.DataFrame({"pair_id": p["pair_id"], "model": "minus_len",
                           "good_score": -p["one_prefix_word_good"].str.len().astype(float),
                           "bad_score": -p["one_prefix_word_bad"].str.len().astype(float)})
    tab = ml_table1(ds, scores, prefix)
    want_len, want_pred = _brute_force(raw, SMALL, lambda x: -len(x), lambda w: -len(w))
    want_s, _ = _brute_force(raw, SMALL, lambda x: x.count("s"), len)
    for setting, model, want in [("sentence", "minus_len", want_len),
                                 ("sentence", "count_s", want_s),
                                 ("prediction", "minus_len", want_pred)]:
        got = tab[(tab["setting"] == setting) & (tab["model"] == model)]
        assert {(r.section, r.condition): [r.n_pairs, r.n_correct, r.ties]
                for r in got.itertuples()} == want
        assert np.allclose(got["accuracy"], got["n_correct"] / got["n_pairs"])
    rows = tab.loc[tab["setting"] == "sentence", ["section", "condition"]].drop_duplicates()
    assert list(rows.itertuples(index=False, name=None)) == [
        r for r in ML_TABLE1_ROWS if r in want_len]  # Table 1 order
    # ties are errors: equal lengths in "no authors that the ..." vs "the authors that no ..."
    across = tab[(tab["condition"] == "Across a relative clause") & (tab["model"] == "minus_len")
                 & (tab["section"] == "Negative polarity items")].iloc[0]
    assert across["ties"] == across["n_pairs"] == 4800 and across["accuracy"] == 0.0
    # a missing score leaves its pair out, counted
    dropped = ml_table1(ds, scores.iloc[1:])
    assert dropped["n_missing"].sum() == 1 and dropped["n_pairs"].sum() == tab.loc[
        tab["setting"] == "sentence", "n_pairs"].sum() - 1


class _Attack:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def _malicious(marker) -> bytes:
    """A protocol-0 pickle that calls os.system('touch <marker>') when loaded."""
    return b"cos\nsystem\n(S'touch " + str(marker).encode() + b"'\ntR."


def test_forbidden_global_is_refused_and_not_run(tmp_path):
    marker = tmp_path / "pwned"
    bad = tmp_path / "evil.pickle"
    bad.write_bytes(_malicious(marker))
    digest = hashlib.sha256(bad.read_bytes()).hexdigest()  # even when its hash is the expected one
    with pytest.raises(DataError, match=r"evil\.pickle: refused global os\.system"):
        load_restricted(bad, f"sha256:{digest}")
    # the same attack as pickle.dumps writes it (protocol 5, STACK_GLOBAL posix.system)
    bad.write_bytes(pickle.dumps(_Attack(marker), protocol=5))
    with pytest.raises(DataError, match=r"refused global (posix|os)\.system"):
        load_restricted(bad, hashlib.sha256(bad.read_bytes()).hexdigest())
    assert not marker.exists()
    bad.write_bytes(pickle.dumps({"past": [("a", "b", "c")]}, protocol=2)[:-5])
    with pytest.raises(DataError, match="not a readable pickle"):
        load_restricted(bad, hashlib.sha256(bad.read_bytes()).hexdigest())


def test_loader_refuses_a_file_with_another_hash(folder, tmp_path):
    (tmp_path / "templates").mkdir()
    target = tmp_path / "templates" / "simple_agrmt.pickle"
    marker = tmp_path / "pwned"
    target.write_bytes(_malicious(marker))
    with pytest.raises(DataError, match=r"sha256 mismatch: expected sha256:d10585.*not unpickled"):
        load_marvin_linzen(tmp_path, constructions="simple_agrmt")
    assert not marker.exists()
    # an edited copy of the real file: same error, with the fix
    target.write_bytes((folder / "templates" / "simple_agrmt.pickle").read_bytes() + b"\n")
    with pytest.raises(DataError, match=r"sha256 mismatch.*Fix: replace it with the published "
                                        r"file \(https://raw\.githubusercontent\.com/BeckyMarvin"):
        load_marvin_linzen(tmp_path, constructions="simple_agrmt")
    shutil.copy(folder / "templates" / "simple_agrmt.pickle", target)
    assert len(load_marvin_linzen(tmp_path, constructions="simple_agrmt").pairs) == 140


def test_unknown_construction():
    with pytest.raises(DataError, match=r"unknown Marvin & Linzen construction "
                                        r"'obj_rel_acros_anim'; did you mean 'obj_rel_across_anim'"):
        load_marvin_linzen(constructions=["simple_agrmt", "obj_rel_acros_anim"])


def test_published_table1_is_in_row_order():
    assert list(ML_TABLE1_PUBLISHED[["section", "condition"]].itertuples(
        index=False, name=None)) == list(ML_TABLE1_ROWS)
    assert ML_TABLE1_PUBLISHED.loc[13, ["rnn", "multitask", "ngram", "humans"]].tolist() == [
        0.40, 0.48, 0.06, 0.98]


def test_unknown_condition_in_a_file(tmp_path, monkeypatch):
    """A file whose hash is the registered one but which holds a condition the Table 1
    mapping does not know (a later release, say): one error naming the condition."""
    import acceptability.data.loaders.marvin_linzen as ml

    (tmp_path / "templates").mkdir()
    target = tmp_path / "templates" / "simple_agrmt.pickle"
    good = {"sing_MS_MV": [("the author laughs", "the author laugh")],
            "plur_MS_MV": [("the authors laugh", "the authors laughs")],
            "sing_MS_XX": [("the author smiles", "the author smile")]}
    target.write_bytes(pickle.dumps(good, protocol=2))
    digest = "sha256:" + hashlib.sha256(target.read_bytes()).hexdigest()
    rel = "templates/simple_agrmt.pickle"
    monkeypatch.setattr(ml, "registry", lambda name: {rel: (digest, "https://example.org/x")})
    with pytest.raises(DataError, match=r"conditions \['sing_MS_XX'\] are not mapped to "
                                        r"Table 1, \[\] are missing"):
        ml.load_marvin_linzen(tmp_path, constructions="simple_agrmt")
