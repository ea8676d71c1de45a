"""SyntaxGym suites (Hu et al. 2020) and their published outcomes load from the raw files:
sentences as SyntaxGym joins them, region spans, predictions, Hu et al.'s circuits, the
registry's checksums, and bad suites refused naming the file and item."""

from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pandas as pd
import pytest

from acceptability.data import DataError, load_syntaxgym, load_syntaxgym_results
from acceptability.data.io.sources import registry
from acceptability.data.loaders import syntaxgym as sg
from tests.conftest import need_data

SUITE_ITEMS = {"center_embed": 28, "center_embed_mod": 28, "cleft": 40, "cleft_modifier": 40,
               "fgd-embed3": 21, "fgd-embed4": 21, "fgd_hierarchy": 24, "fgd_object": 24,
               "fgd_pp": 24, "fgd_subject": 24, "mvrr": 28, "mvrr_mod": 28, "nn-nv-rpl": 1,
               "npi_orc_any": 38, "npi_orc_ever": 38, "npi_src_any": 38, "npi_src_ever": 38,
               "npz_ambig": 24, "npz_ambig_mod": 24, "npz_obj": 24, "npz_obj_mod": 24,
               "number_orc": 19, "number_prep": 19, "number_src": 19}
SUITE_ITEMS |= {f"reflexive_{a}_{b}": 19 for a in ("orc", "prep", "src") for b in ("fem", "masc")}
SUITE_ITEMS |= {s: 23 for s in ("subordination", "subordination_orc-orc",
                                "subordination_pp-pp", "subordination_src-src")}


@pytest.fixture(scope="module")
def folder():
    return need_data("syntaxgym")


@pytest.fixture(scope="module")
def suites(folder):
    return load_syntaxgym(folder)


def test_the_registry_holds_each_file_with_its_checksum(folder):
    entries = registry("syntaxgym")
    assert len(entries) == 34 + 37 + 1 + 4
    for rel, (digest, url) in entries.items():
        assert digest == "sha256:" + hashlib.sha256((folder / rel).read_bytes()).hexdigest(), rel
        assert re.match(r"https://raw\.githubusercontent\.com/cpllab/(syntactic-generalization|"
                        r"syntaxgym-core)/[0-9a-f]{40}/", url), url
    assert sg.syntaxgym_suites() == sorted(SUITE_ITEMS)


def test_sentences_are_the_regions_joined_as_syntaxgym_joins_them(folder, suites):
    """Written from the suite files here: each condition's region contents, stripped,
    joined by one space, empty ones skipped; each region's span holds its content."""
    s = suites.sentences.set_index("sentence_id")
    text = s["text"].to_dict()
    r = sg.syntaxgym_regions(suites)
    regions = dict(zip(zip(r["sentence_id"], r["region"], strict=True), r["content"], strict=True))
    n_sentences = lstrip_only_differs = 0
    for name in SUITE_ITEMS:
        raw = json.loads((folder / "suites" / f"{name}.json").read_text())
        assert [item["item_number"] for item in raw["items"]] == list(
            range(1, SUITE_ITEMS[name] + 1))
        for item in raw["items"]:
            for cond in item["conditions"]:
                sid = f"{name}:{item['item_number']}:{cond['condition_name']}"
                contents = [r["content"].strip() for r in cond["regions"]]
                assert text[sid] == " ".join(c for c in contents if c)
                for region, content in zip(cond["regions"], contents, strict=True):
                    assert regions[sid, region["region_number"]] == content
                syntaxgym = " ".join(r["content"].lstrip() for r in cond["regions"]
                                     if r["content"].strip())
                lstrip_only_differs += syntaxgym != text[sid]
                n_sentences += 1
    assert n_sentences == len(s) == 3304
    # syntaxgym-core strips leading spaces only: 14 sentences keep a trailing space there
    # (fgd-embed3/4, subordination_pp-pp), which its Region class then refuses
    assert lstrip_only_differs == 14
    assert int(s["stripped"].sum()) == 1416


def test_sentence_columns_and_predictions(suites):
    s = suites.sentences
    assert s.groupby("suite")["item"].nunique().to_dict() == SUITE_ITEMS
    assert len(suites.pairs) == 0 and s["label"].isna().all()
    row = s.set_index("sentence_id").loc["number_prep:1:mismatch_sing"]
    assert row["text"] == "The author next to the senators are good"
    assert row[["type_id", "condition", "circuit", "phenomenon", "metric"]].tolist() == [
        "number_prep:mismatch_sing", "mismatch_sing", "Agreement", "Agreement", "sum"]
    preds = sg.syntaxgym_predictions(suites)
    assert len(preds) == 36  # fgd_hierarchy and nn-nv-rpl have two predictions each
    assert preds.groupby("suite").size().max() == 2
    assert preds.set_index(["suite", "prediction"]).loc[("number_prep", 0), "formula"] == (
        "[(6;%match_sing%) < (6;%mismatch_sing%)] & [(6;%match_plural%) < (6;%mismatch_plural%)]")
    assert s.loc[s["suite"] == "nn-nv-rpl", "phenomenon"].eq("nn-nv-rpl").all()  # no circuit


def test_regions_survive_a_csv_round_trip(folder, tmp_path):
    ds = load_syntaxgym(folder, suites=["mvrr", "cleft"])
    ds.sentences.to_csv(tmp_path / "s.csv", index=False)
    back = pd.read_csv(tmp_path / "s.csv")
    pd.testing.assert_frame_equal(sg.syntaxgym_regions(back), sg.syntaxgym_regions(ds),
                                  check_dtype=False)
    pd.testing.assert_frame_equal(sg.syntaxgym_predictions(back), sg.syntaxgym_predictions(ds))
    empty = sg.syntaxgym_regions(ds).query("content == ''")
    assert len(empty) == 81 and (empty["start"] == empty["end"]).all()  # cleft 80, mvrr 1


def test_circuits_are_hu_et_al_s_six():
    c = sg.syntaxgym_circuits()
    assert sorted(c["suite"]) == sorted(SUITE_ITEMS)
    assert sorted(c["circuit"].dropna().unique()) == [
        "Agreement", "Center Embedding", "Garden-Path Effects", "Gross Syntactic State",
        "Licensing", "Long-Distance Dependencies"]
    assert sorted(c.loc[~c["in_paper"], "suite"]) == ["fgd-embed3", "fgd-embed4", "nn-nv-rpl"]


def test_published_outcomes(folder):
    r = load_syntaxgym_results(folder)
    assert len(r) == 213_868 and r["file"].nunique() == 37
    per_run = r.groupby(["model_id", "suite"])["item"].agg(["size", "min", "max"])
    items = per_run.index.get_level_values("suite").map(SUITE_ITEMS)
    assert (per_run["size"] == items).all() and (per_run["min"] == 0).all()
    assert (per_run["max"] == items - 1).all()  # 0-based: item_number - 1
    runs = r.groupby("model")["model_id"].nunique().to_dict()
    assert runs == {"1gram": 4, "gpt-2": 5, "gpt-2-pretrained": 1, "gpt-2-xl-pretrained": 1,
                    "grnn": 1, "jrnn": 1, "ngram": 204, "ngram-no-rand": 4,
                    "ordered-neurons": 9, "rnng": 11, "transformer-xl": 1, "vanilla": 12}
    kept = r[r["in_paper"]]
    assert sorted(kept["model"].unique()) == sorted(set(runs) - {"1gram", "ngram-no-rand"})
    assert kept["suite"].nunique() == 31
    assert not r.loc[r["model"] == "1gram", "correct"].any()  # the unigram fails every item


def test_filled_in_suite_values(folder):
    grnn = sg.read_syntaxgym_surprisals(folder / "syntaxgym-core-test" / "test_out_grnn.json")
    assert len(grnn) == 24 and set(grnn["model"]) == {"grnn"} and set(grnn["metric"]) == {"sum"}
    row = grnn.set_index(["item", "condition", "region"]).loc[(2, "what", 3)]
    assert row["content"] == "caught" and row["surprisal"] == 11.379337
    means = sg.read_syntaxgym_surprisals(folder / "syntaxgym-core-test" / "test_out_grnn.json",
                                      metric="mean")
    assert means["surprisal"].iloc[0] == pytest.approx(8.630147 / 3)  # "I know that"


def _write(tmp_path, suite: dict, name: str = "bad.json"):
    file = tmp_path / name
    file.write_text(json.dumps(suite))
    return file


def _suite(**change) -> dict:
    def cond(name, verb):
        return {"condition_name": name, "regions": [
            {"region_number": 1, "content": "The dog"}, {"region_number": 2, "content": verb}]}

    items = [{"item_number": k, "conditions": [cond("good", "barks"), cond("bad", "bark")]}
             for k in (1, 2)]
    suite = {"meta": {"name": "toy", "metric": "sum"}, "region_meta": {"1": "np", "2": "v"},
             "predictions": [{"type": "formula", "formula": "(2;%good%) < (2;%bad%)"}],
             "items": items}
    return suite | change


def test_an_own_suite_file_loads_beside_a_published_one(folder, tmp_path):
    ds = load_syntaxgym(folder, suites=[_write(tmp_path, _suite(), "toy.json"), "mvrr"])
    assert list(dict.fromkeys(ds.sentences["suite"])) == ["toy", "mvrr"]
    assert ds.sentences["text"].iloc[:2].tolist() == ["The dog barks", "The dog bark"]
    assert "suites/mvrr.json" in ds.checksums


@pytest.mark.parametrize(("change", "message"), [
    ({"items": [{"item_number": 1, "conditions": [{"condition_name": "good", "regions": [
        {"region_number": 1, "content": "The dog"}, {"region_number": 2, "content": "x"}]}]},
        {"item_number": 2, "conditions": [{"condition_name": "bad", "regions": [
            {"region_number": 1, "content": "The dog"}, {"region_number": 2, "content": "x"}]}]}
    ]}, r"item 2: conditions \['bad'\], but the suite's are \['good'\]"),
    ({"region_meta": {"1": "np", "2": "v", "3": "end"}}, r"item 1: condition 'good' has regions"),
    ({"region_meta": {"1": "np", "3": "v"}}, r"region numbers \[1, 3\] are not 1..2"),
    ({"predictions": [{"type": "formula", "formula": "(2;%good%) << (2;%bad%)"}]},
     r"prediction 0: a term expected, not '<' at character 13"),
    ({"predictions": [{"type": "formula", "formula": "(3;%good%) < (2;%bad%)"}]},
     r"prediction 0 \('\(3;%good%\) < \(2;%bad%\)'\) reads \(3;%good%\)"),
    ({"predictions": [{"type": "formula", "formula": "(2;%good%) < (2;%worse%)"}]},
     r"reads \(2;%worse%\), but the suite has conditions \['bad', 'good'\]"),
    ({"predictions": [{"relation": "about", "region_number": 2}]}, r"prediction 0 is neither"),
    ({"meta": {"name": "toy", "metric": "mode"}}, r"unknown metric 'mode'"),
])
def test_a_bad_suite_names_its_file_and_item(tmp_path, change, message):
    file = _write(tmp_path, _suite(**change))
    with pytest.raises(DataError, match=message) as err:
        load_syntaxgym(suites=[file])
    assert str(file) in str(err.value)


def test_unknown_suites_and_files(tmp_path):
    with pytest.raises(DataError, match=r"unknown SyntaxGym suite 'mvr'; did you mean 'mvrr'"):
        load_syntaxgym(suites="mvr")
    with pytest.raises(DataError, match="no suite file"):
        load_syntaxgym(suites=[tmp_path / "none.json"])
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(DataError, match="not a JSON file"):
        load_syntaxgym(suites=[tmp_path / "x.json"])
    twice = _write(tmp_path, _suite(), "toy.json")
    with pytest.raises(DataError, match="also that of"):
        load_syntaxgym(suites=[twice, _write(tmp_path, _suite(), "copy.json")])
    items = _suite()["items"]
    with pytest.raises(DataError, match=r"item 1: item_number 1 is not a new integer"):
        load_syntaxgym(suites=[_write(tmp_path, _suite(items=[items[0], items[0]]))])


def test_region_spans_outside_the_text_are_refused(folder):
    ds = load_syntaxgym(folder, suites="number_prep")
    broken = ds.sentences.assign(text="short")
    with pytest.raises(DataError, match=r"sentence 'number_prep:1:match_sing'.*outside"):
        sg.syntaxgym_regions(broken)
    assert np.isnan(ds.sentences["human"]).all()
