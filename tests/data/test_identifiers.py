"""Identifiers, one rule for every table (issue 30, item 7): surrounding whitespace is
stripped, an empty id or one with a control character is a DataError naming file, row and
column; a pair whose labels contradict its good/bad roles is refused; errors after a quoted
newline name the line where the record starts. Each test failed on the code before."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import data, stats
from acceptability.data import DataError


def _write(folder, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


def test_an_id_with_trailing_space_is_the_same_sentence(tmp_path):
    """``s0g`` and ``s0g `` loaded as two sentences."""
    s = _write(tmp_path, "s.csv", "sentence_id,text\ns0g,A cat sat.\n\"s0g \",A cat sit.\n")
    with pytest.raises(DataError, match=r"s\.csv, row 2 \(line\), column 'sentence_id'.*"
                                        r"duplicate sentence_id 's0g'"):
        data.read_dataset(s)


def test_ids_are_stripped_in_every_table(tmp_path):
    s = _write(tmp_path, "s.csv", "sentence_id,text,label\n\" g1 \",A cat sat.,1\n"
                                  "b1\t,A cat sit.,0\n")
    p = _write(tmp_path, "p.csv", "pair_id,good_id,bad_id\n\" p1\",g1 ,\" b1\"\n")
    ds = data.read_dataset(s, p)
    assert ds.sentences["sentence_id"].tolist() == ["g1", "b1"]
    assert ds.pairs[["pair_id", "good_id", "bad_id"]].values.tolist() == [["p1", "g1", "b1"]]
    sc = _write(tmp_path, "sc.csv", "sentence_id,model,score\n g1 ,\" lm \",-3\nb1,lm,-5\n")
    scores = data.read_scores(sc, ds)
    assert scores["sentence_id"].tolist() == ["g1", "b1"]
    assert scores["model"].tolist() == ["lm", "lm"]
    assert stats.evaluate(ds, scores)["blimp"].tolist() == [1.0]
    trials = data.validate_trials(pd.DataFrame({"participant": [" w1"], "pair_id": ["p1 "],
                                                "chose_good": [1]}))
    assert trials[["participant", "pair_id"]].values.tolist() == [["w1", "p1"]]


@pytest.mark.parametrize("table, column", [("sentences", "sentence_id"), ("pairs", "pair_id"),
                                           ("pairs", "good_id"), ("scores", "sentence_id"),
                                           ("scores", "model")])
def test_a_blank_id_is_refused_in_every_table(tmp_path, table, column):
    """An id of " " was accepted in sentences and pairs but refused in scores."""
    sentences = pd.DataFrame({"sentence_id": ["a", "b"], "text": ["x.", "y."]})
    pairs = pd.DataFrame({"pair_id": ["p"], "good_id": ["a"], "bad_id": ["b"]})
    scores = pd.DataFrame({"sentence_id": ["a", "b"], "model": ["m", "m"], "score": [1, 2]})
    frames = {"sentences": sentences, "pairs": pairs, "scores": scores}
    frames[table].loc[0, column] = " "
    paths = {}
    for name, frame in frames.items():
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], index=False)
    with pytest.raises(DataError, match=rf"{table}\.csv, row 2 \(line\), column '{column}': "
                                        rf"missing {column} \(1 rows\): an empty id.*Fix:"):
        ds = data.read_dataset(paths["sentences"], paths["pairs"])
        data.read_scores(paths["scores"], ds)


@pytest.mark.parametrize("bad", ["a\x00", "a\tb", "a\nb", "a\rb", "\x7f", "a\x85b", "\x1b[31m"])
@pytest.mark.parametrize("column", ["sentence_id", "type_id"])
def test_control_characters_in_sentence_ids_are_refused(bad, column):
    s = pd.DataFrame({"sentence_id": ["ok", "fine"], "text": ["x.", "y."]})
    s.loc[1, column] = bad
    with pytest.raises(DataError, match=rf"row 1, column '{column}': {column} .* holds a "
                                        r"control character"):
        data.validate_sentences(s)


@pytest.mark.parametrize("validate", [
    lambda v: data.validate_pairs(pd.DataFrame({"pair_id": [v], "good_id": ["a"],
                                                "bad_id": ["b"]}),
                                  data.validate_sentences(pd.DataFrame(
                                      {"sentence_id": ["a", "b"], "text": ["x", "y"]}))),
    lambda v: data.validate_scores(pd.DataFrame({"sentence_id": ["a"], "model": [v],
                                                 "score": [1.0]})),
    lambda v: data.validate_trials(pd.DataFrame({"participant": [v], "pair_id": ["p"],
                                                 "chose_good": [1]})),
])
def test_control_characters_are_refused_in_every_table(validate):
    with pytest.raises(DataError, match=r"row 0, column '\w+': .*control character"):
        validate("x\x00y")


def test_a_control_character_in_a_file_names_file_line_and_column(tmp_path):
    s = _write(tmp_path, "s.csv", "sentence_id,text\na,x.\n\"b\nc\",y.\n")
    with pytest.raises(DataError, match=r"s\.csv, row 3 \(line\), column 'sentence_id': "
                                        r"sentence_id 'b\\nc' holds a control character"):
        data.read_dataset(s)


def test_a_pair_contradicting_the_labels_is_refused(tmp_path):
    s = _write(tmp_path, "s.csv", "sentence_id,text,label\na,A cat sat.,1\nb,A cat sit.,0\n"
                                  "c,Dogs bark.,1\nd,Dogs barks.,0\n")
    p = _write(tmp_path, "p.csv", "pair_id,good_id,bad_id\np1,a,b\np2,d,c\n")
    with pytest.raises(DataError, match=r"p\.csv, row 3 \(line\), column 'good_id': pair 'p2'"
                                        r".*good sentence 'd' is labelled unacceptable \(0\) "
                                        r"and its bad sentence 'c' acceptable \(1\)"):
        data.read_dataset(s, p)


def test_pairs_with_missing_or_equal_labels_are_kept():
    s = data.validate_sentences(pd.DataFrame({"sentence_id": list("abcd"), "text": list("wxyz"),
                                              "label": [1, np.nan, 0, 0]}))
    pairs = pd.DataFrame({"pair_id": ["p1", "p2"], "good_id": ["b", "c"], "bad_id": ["a", "d"]})
    assert len(data.validate_pairs(pairs, s)) == 2


def test_errors_after_a_quoted_newline_name_the_line_of_the_record(tmp_path):
    """The error named row 7 for the record on line 9 (two quoted newlines above it)."""
    text = ("sentence_id,text,human\n"
            "s1,\"A text\nover two lines.\",0.5\n"
            "s2,Plain.,-0.5\n"
            "s3,\"Another\nbroken one.\",0.1\n"
            "s4,Plain again.,-0.1\n"
            "s5,Still fine.,0.2\n"
            "s6,Bad judgment.,abc\n")
    s = _write(tmp_path, "s.csv", text)
    assert text.splitlines()[8].startswith("s6")  # line 9 of the file
    with pytest.raises(DataError, match=r"s\.csv, row 9 \(line\), column 'human'"):
        data.read_dataset(s)


def test_line_numbers_skip_blank_lines_and_work_compressed(tmp_path):
    import gzip

    text = "sentence_id,model,score,note\n\na,m,1,\"two\nlines\"\n\nb,m,x,\n"
    path = tmp_path / "scores.csv.gz"
    path.write_bytes(gzip.compress(text.encode()))
    with pytest.raises(DataError, match=r"row 6 \(line\), column 'score'.*'x'"):
        data.read_scores(path)
