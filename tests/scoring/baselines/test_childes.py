"""AO-CHILDES (data.loaders.childes) and the CRF tagger trained on its MOR tags (scoring.tagger):
exact counts from the 21 registered CSV files, age order, one tag per word, the tagger's
held-out accuracy (split by transcript), and one clear error per kind of bad input."""

from __future__ import annotations

import csv
import re
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from acceptability.data.errors import DataError
from acceptability.data.io.sources import registry
from acceptability.data.loaders.childes import (
    EXCLUSION_REASONS,
    childes_corpus_text,
    childes_tokenize,
    final_mark,
    load_childes,
)
from acceptability.scoring.errors import ScoringError
from tests.conftest import need_data, need_module

# Utterances set aside per reason, in EXCLUSION_REASONS order, from the 208,123 read.
EXCLUDED = {"target_child": 0, "child": 3543, "collection": 1010, "age_missing": 34149,
            "age_over_6": 793, "empty": 3595, "untranscribed": 2904, "no_tags": 675,
            "misaligned": 6578}
KEPT = 154_876
PER_CORPUS = {"Bates": 9483, "Bernstein": 8040, "Bliss": 910, "Bohannon": 6293,
              "Demetras1": 7900, "Demetras2": 10436, "Higginson": 9472, "McCune": 9923,
              "McMillan": 103, "Morisset": 17244, "Nelson": 1478, "Rollins": 15803,
              "Sachs": 11642, "Snow": 18929, "Tardif": 13345, "VanHouten": 8956,
              "Warren": 4919}  # Bloom73, Garvey, Gathercole and Sawyer have no ages


@pytest.fixture(scope="module")
def childes_dir() -> Path:
    return need_data("aochildes", "original_transcripts/Nelson.csv")


@pytest.fixture(scope="module")
def childes(childes_dir):
    return load_childes(childes_dir)


def _brute_force(folder: Path) -> tuple[Counter, list[tuple]]:
    """Plain Python (csv module): the first exclusion reason of every row, and the kept
    rows as (age, transcript, order, corpus, gloss, part_of_speech, type), sorted."""
    reasons: Counter = Counter()
    kept = []
    for f in sorted(folder.glob("*.csv")):
        with f.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                gloss, pos, age = row["gloss"], row["part_of_speech"], row["target_child_age"]
                if row["speaker_role"] in ("Target_Child", "Child"):
                    reason = "target_child" if row["speaker_role"] == "Target_Child" else "child"
                elif row["collection_name"] != "Eng-NA":
                    reason = "collection"
                elif age in ("", "NA"):
                    reason = "age_missing"
                elif float(age) > 365 * 6:
                    reason = "age_over_6"
                elif not gloss.split():
                    reason = "empty"
                elif any(s in gloss for s in ("xxx", "yyy", "www", "\ufffd")):
                    reason = "untranscribed"
                elif not pos.split():
                    reason = "no_tags"
                elif len(gloss.split()) != len(pos.split()) or "+" in gloss:
                    reason = "misaligned"
                else:
                    reason = "kept"
                    kept.append((float(age), int(row["transcript_id"]),
                                 int(row["utterance_order"]), f.stem, gloss, pos, row["type"]))
                reasons[reason] += 1
    kept.sort(key=lambda k: k[:3])
    return reasons, kept


def test_counts_and_exclusions(childes):
    ex = childes.attrs["exclusions"]
    assert list(ex.columns) == ["table", "reason", "n"] and set(ex["table"]) == {"utterances"}
    assert dict(zip(EXCLUSION_REASONS, ex["n"], strict=True)) == EXCLUDED
    assert ex["reason"].tolist() == list(EXCLUSION_REASONS.values())
    assert len(childes) == KEPT and childes.attrs["n_read"] == 208_123 == KEPT + ex["n"].sum()
    assert childes.groupby("corpus").size().to_dict() == PER_CORPUS
    assert childes["transcript_id"].nunique() == 876
    words, tags = childes_corpus_text(childes)
    tokens = [w for s in words for w in s]
    assert len(tokens) == 772_810 and len(tokens) - KEPT == 617_934  # words, then the marks
    assert Counter(s[-1] for s in words) == {".": 96_415, "?": 53_509, "!": 4_952}
    assert len({t for s in tags for t in s}) == 54  # 51 MOR tags and the three marks
    assert set(childes.attrs["checksums"]) == set(registry("aochildes"))
    assert childes.attrs["checksums"] == {k: v for k, (v, _) in registry("aochildes").items()}


def test_rows_match_a_plain_reading_of_the_csv_files(childes_dir, childes):
    reasons, kept = _brute_force(childes_dir / "original_transcripts")
    assert reasons == Counter({"kept": KEPT, **{k: n for k, n in EXCLUDED.items() if n}})
    got = childes[["target_child_age", "transcript_id", "utterance_order", "corpus"]]
    assert list(got.itertuples(index=False, name=None)) == [k[:4] for k in kept]
    for (*_, gloss, pos, utype), text, tags in zip(kept, childes["text"], childes["tags"],
                                                   strict=True):
        # compounds split at _ (and +), each part keeping the compound's tag
        parts = [(p, t) for w, t in zip(gloss.lower().split(), pos.split(), strict=True)
                 for p in re.split("[_+]", w) if p]
        mark = final_mark(gloss, utype)
        assert text.split() == [p for p, _ in parts] + [mark]
        assert tags.split() == [t for _, t in parts] + [mark]


def test_ordered_by_age_then_transcript_then_utterance(childes):
    key = childes[["target_child_age", "transcript_id", "utterance_order"]]
    assert key.equals(key.sort_values(list(key.columns), ignore_index=True))
    assert not key.duplicated().any()
    first, last = childes.iloc[0], childes.iloc[-1]
    assert (first["corpus"], first["transcript_id"], first["utterance_order"],
            first["target_child_age"]) == ("Rollins", 7200, 1, 91.3125)
    assert first["text"] == "just like your book at home ."
    assert first["tags"] == "adv prep det:poss n prep n ."
    assert last["target_child_age"] == 2130.625 and last["corpus"] == "Warren"
    assert not childes["speaker_role"].isin(["Target_Child", "Child"]).any()


def test_tags_align_with_words(childes):
    words, tags = childes_corpus_text(childes)
    assert all(len(w) == len(t) for w, t in zip(words, tags, strict=True))
    assert all(w[-1] == t[-1] and w[-1] in ".?!" for w, t in zip(words, tags, strict=True))
    rows = dict(zip(childes["text"], childes["tags"], strict=False))
    assert rows["what's that ?"] == "pro:int pro:dem ?"  # a clitic keeps its host's tag
    assert rows["you'll have to tackle her and get them away from her ."].split()[1:3] == [
        "mod:aux", "mod:aux"]  # have_to, split
    assert not childes["text"].str.contains(r"[A-Z_+]").any()


def test_final_mark_and_tokenizer():
    assert final_mark("what's that", "declarative") == "?"
    assert final_mark("what a mess", "declarative") == "."
    assert final_mark("whole thing", "declarative") == "?"  # AO-CHILDES's prefix test
    assert final_mark("do you see", "declarative") == "?"
    assert final_mark("go", "imperative_emphatic") == "!"
    assert final_mark("you go", "trail off question") == "?"
    assert final_mark("fine", "trail off") == "."
    assert final_mark("fine", "missing CA terminator") == "."  # a type AO-CHILDES lacks
    assert childes_tokenize("Is it Sarah's?") == ["is", "it", "sarah's", "?"]
    assert childes_tokenize("The t-shirt, isn\u2019t it.") == ["the", "t-shirt", ",", "isn't",
                                                              "it", "."]
    assert childes_tokenize("Big_Bird and kitty+cat") == ["big", "bird", "and", "kitty", "cat"]


def test_corpora_selection(childes_dir, tmp_path, monkeypatch):
    nelson = load_childes(childes_dir, corpora="Nelson")
    assert len(nelson) == PER_CORPUS["Nelson"] and set(nelson["corpus"]) == {"Nelson"}
    assert list(nelson.attrs["checksums"]) == ["original_transcripts/Nelson.csv"]
    # the folder of the CSV files itself; every CSV there is read, registered or not
    shutil.copy(childes_dir / "original_transcripts" / "Nelson.csv", tmp_path / "Mine.csv")
    mine = load_childes(tmp_path)
    assert set(mine["corpus"]) == {"Mine"} and mine["text"].tolist() == nelson["text"].tolist()
    with pytest.raises(DataError, match="unknown corpus 'Nelsen'; did you mean 'Nelson'"):
        load_childes(childes_dir, corpora=["Nelsen"])
    # no local folder: the registered files are fetched (here from the local copy)
    monkeypatch.setenv("ACCEPTABILITY_DATA_DIR", str(tmp_path / "empty"))
    fetched = []

    def fetch(dataset, rel, path):
        fetched.append((dataset, rel, path))
        return childes_dir / rel

    monkeypatch.setattr("acceptability.data.loaders.childes.fetch", fetch)
    assert load_childes(corpora=["Nelson"])["text"].tolist() == nelson["text"].tolist()
    assert fetched == [("aochildes", "original_transcripts/Nelson.csv", None)]
    with pytest.raises(DataError, match="unknown corpus 'Mine'"):
        load_childes(corpora="Mine")


def _nelson_head(childes_dir: Path, folder: Path, n: int = 30) -> Path:
    lines = (childes_dir / "original_transcripts" / "Nelson.csv").read_text().splitlines()
    folder.mkdir(exist_ok=True)
    (folder / "Nelson.csv").write_text("\n".join(lines[: n + 1]) + "\n")
    return folder / "Nelson.csv"


def test_bad_input_is_one_clear_error(childes_dir, tmp_path):
    with pytest.raises(DataError, match="no CSV files in"):
        load_childes(tmp_path)
    f = _nelson_head(childes_dir, tmp_path / "ok")
    assert len(load_childes(f.parent)) > 10
    header, *rows = f.read_text().splitlines()
    cols = header.split(",")
    for name in ("gloss", "part_of_speech"):
        i = cols.index(name)
        f.write_text("\n".join(",".join(c for j, c in enumerate(r.split(",")) if j != i)
                               for r in [header, *rows]) + "\n")
        with pytest.raises(DataError, match=rf"Nelson.csv, column '{name}': "
                                            rf"missing column\(s\) \['{name}'\]"):
            load_childes(f.parent)
    f.write_text(header + "\n")
    with pytest.raises(DataError, match="the CSV files hold no utterances"):
        load_childes(f.parent)
    f.write_text("")
    with pytest.raises(DataError, match=r"Nelson.csv: empty file"):
        load_childes(f.parent)
    # no utterance has tags: nothing to train on
    i = cols.index("part_of_speech")
    untagged = [",".join("" if j == i else c for j, c in enumerate(r.split(",")))
                for r in rows]
    f.write_text("\n".join([header, *untagged]) + "\n")
    with pytest.raises(DataError, match=r"no utterance is kept from 30 read .*no "
                                        r"part-of-speech tags: \d+"):
        load_childes(f.parent)
    bad = rows[0].split(",")
    bad[cols.index("transcript_id")] = "three"
    f.write_text("\n".join([header, ",".join(bad), *rows[1:]]) + "\n")
    with pytest.raises(DataError, match=r"Nelson.csv, row 2 \(line\), column 'transcript_id': "
                                        "'three' is not a number"):
        load_childes(f.parent)
    with pytest.raises(DataError, match="does not exist"):
        load_childes(tmp_path / "nowhere")
    with pytest.raises(DataError, match=r"row 0, column 'tags': 2 words but 1 tags"):
        childes_corpus_text(load_childes(childes_dir, corpora="Nelson").head(1)
                            .assign(text="two words", tags="n"))


# The tagger, trained on 5,000 utterances drawn from the training transcripts (the test's
# time budget), 50 iterations: 92.17% on the 62,412 words of the 88 held-out transcripts;
# the most-frequent-tag baseline trained on the same 5,000 reaches 84.27%. The floor, 90%,
# lies 2 points under the measured accuracy (room for CRFsuite and platform differences)
# and 6 over the baseline. Trained on the whole training part
# (139,246 utterances, 100 iterations) it reaches 95.50%, the baseline 88.56%.
TAGGER_FLOOR = 0.90


@pytest.fixture(scope="module")
def evaluation(childes):
    need_module("pycrfsuite")
    from acceptability.scoring.baselines.tagger import evaluate_tagger

    return evaluate_tagger(childes, train_size=5000, max_iterations=50)


def test_tagger_held_out_accuracy(evaluation):
    from acceptability.scoring.baselines.tagger import transcript_split

    assert evaluation["n_train_utterances"] == 5000 and evaluation["n_test_transcripts"] == 88
    assert evaluation["n_test_words"] == 62_412
    assert evaluation["baseline_accuracy"] == pytest.approx(0.8427, abs=5e-5)
    assert evaluation["accuracy"] == pytest.approx(0.9217, abs=5e-5)  # docs/baselines.md's 92.2%
    assert evaluation["accuracy"] > TAGGER_FLOOR
    assert evaluation["accuracy"] > evaluation["baseline_accuracy"] + 0.05
    held = transcript_split(pd.DataFrame({"transcript_id": [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}),
                            test_size=0.2, seed=0)
    assert held.sum() in (2, 3) and held[0] == held[1]  # whole transcripts


def test_tagger_tags_zorro_sentences(evaluation, tmp_path):
    zorro = need_data("zorro", "sentences/binding-principle_a.txt") / "sentences"
    tagger = evaluation["tagger"]
    for name in ("binding-principle_a.txt", "agreement_subject_verb-in_question_with_aux.txt",
                 "island-effects-adjunct_island.txt"):
        for line in (zorro / name).read_text().splitlines()[:50]:
            tokens = childes_tokenize(line)
            tags = tagger.tag_text(line).split()
            assert len(tags) == len(tokens) == len(line.split()) and tags == tagger(line)
            assert tags[-1] == tokens[-1] in (".", "?")
            assert set(tags) <= set(tagger.labels) | {",", ".", "?", "!"}
    tags = tagger.tag_text("Look at the dog, Sarah!").split()
    assert len(tags) == 7 and tags[4] == "," and tags[6] == "!"
    assert tagger.tag([]) == []
    from acceptability.scoring.baselines.tagger import load_tagger

    again = load_tagger(tagger.save(tmp_path / "tagger.crfsuite"))
    assert again.tag_text("is the dog happy ?") == tagger.tag_text("is the dog happy ?")
    (tmp_path / "junk.crfsuite").write_bytes(b"not a model")
    with pytest.raises(ScoringError, match="not a CRFsuite model"):
        load_tagger(tmp_path / "junk.crfsuite")


def test_tagger_bad_input():
    need_module("pycrfsuite")
    from acceptability.scoring.baselines.tagger import train_tagger

    with pytest.raises(ScoringError, match="2 sentences but 1 tag sequences"):
        train_tagger([["a"], ["b"]], [["det:art"]])
    with pytest.raises(ScoringError, match="sentence 0 has 2 words but 1 tags"):
        train_tagger([["the", "dog"]], [["det:art"]])
    with pytest.raises(ScoringError, match="no training sentences"):
        train_tagger([], [])
