"""Files that are not UTF-8, and ids that look alike (issue 43, item 13). A CSV/TSV in
Latin-1 or UTF-16 is refused naming the file, line and byte, with "save it as UTF-8"; a
UTF-8 byte-order mark is skipped silently. An id holding a zero-width character is refused
naming the character; ids are compared in Unicode NFC, so a sentences file written in NFD
and a pairs file in NFC join; sentence text is kept as written. Real data: the published
example (seed papers)."""

from __future__ import annotations

import unicodedata

import pandas as pd
import pytest

from acceptability import data
from acceptability.data import DataError
from acceptability.reports.cli import main

ZERO_WIDTH = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"]
NFC, NFD = "caf\u00e9", "cafe\u0301"  # "café" composed, and e + combining acute accent


@pytest.fixture
def example() -> tuple[pd.DataFrame, pd.DataFrame]:
    """The published example's sentences and pairs, a fresh copy for each test."""
    ds, _ = data.load_example()
    return (ds.sentences[["sentence_id", "text", "type_id", "label", "human"]].copy(),
            ds.pairs[["pair_id", "good_id", "bad_id"]].copy())


def _with_accent(sentences: pd.DataFrame) -> pd.DataFrame:
    """The example's sentences with a non-ASCII letter in row 5's text (line 7)."""
    out = sentences.copy()
    out.loc[5, "text"] = out.loc[5, "text"].replace("the", "the na\u00efve", 1) + " \u00e9"
    return out


def test_a_latin1_file_names_the_line_and_byte(tmp_path, example):
    sentences, _ = example
    path = tmp_path / "mine.csv"
    _with_accent(sentences).to_csv(path, index=False, encoding="latin-1")
    with pytest.raises(DataError, match=r"not UTF-8 text: byte 0x(ef|e9) at byte \d+ \(line 7\)"
                       r".*Fix: save it as UTF-8") as err:
        data.read_dataset(path)
    assert err.value.source == str(path) and err.value.row == "7 (line)"


@pytest.mark.parametrize("what", ["sentences", "pairs"])
def test_a_utf16_file_says_so(tmp_path, example, what):
    sentences, pairs = example
    sentences.to_csv(tmp_path / "mine.csv", index=False)
    pairs.to_csv(tmp_path / "mine_pairs.csv", index=False)
    path = tmp_path / ("mine.csv" if what == "sentences" else "mine_pairs.csv")
    frame = sentences if what == "sentences" else pairs
    frame.to_csv(path, index=False, encoding="utf-16")
    with pytest.raises(DataError, match=rf"the {what} file is not UTF-8 text: byte 0xff at "
                       r"byte 0 \(line 1\) \(it starts with a UTF-16 byte-order mark\)"):
        data.read_dataset(tmp_path / "mine.csv", tmp_path / "mine_pairs.csv")


def test_a_latin1_file_on_the_command_line_is_one_line(tmp_path, example, capsys):
    sentences, _ = example
    _with_accent(sentences).to_csv(tmp_path / "mine.csv", index=False, encoding="latin-1")
    code = main(["evaluate", "--sentences", str(tmp_path / "mine.csv"), "--scores", "x.csv"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "mine.csv" in err and "line 7" in err and "save it as UTF-8" in err


def test_a_utf8_byte_order_mark_is_skipped(tmp_path, example):
    """Excel's "CSV UTF-8" starts with a byte-order mark: read as if it had none, and an
    error still names the right line."""
    sentences, pairs = example
    sentences = _with_accent(sentences)
    sentences.to_csv(tmp_path / "plain.csv", index=False)
    sentences.to_csv(tmp_path / "bom.csv", index=False, encoding="utf-8-sig")
    assert (tmp_path / "bom.csv").read_bytes().startswith(b"\xef\xbb\xbfsentence_id,")
    pairs.to_csv(tmp_path / "pairs.csv", index=False)
    plain = data.read_dataset(tmp_path / "plain.csv", tmp_path / "pairs.csv")
    bom = data.read_dataset(tmp_path / "bom.csv", tmp_path / "pairs.csv")
    pd.testing.assert_frame_equal(plain.sentences, bom.sentences)
    sentences.loc[9, "sentence_id"] = sentences.loc[3, "sentence_id"]
    sentences.to_csv(tmp_path / "bom.csv", index=False, encoding="utf-8-sig")
    with pytest.raises(DataError, match=r"lines 5 and 11") as err:
        data.read_dataset(tmp_path / "bom.csv")
    assert err.value.row == "5 (line)"


@pytest.mark.parametrize("char", ZERO_WIDTH)
def test_a_zero_width_character_in_an_id_is_refused(tmp_path, example, char):
    sentences, pairs = example
    good = pairs.loc[3, "good_id"]
    pairs.loc[3, "good_id"] = good[:4] + char + good[4:]
    sentences.to_csv(tmp_path / "mine.csv", index=False)
    pairs.to_csv(tmp_path / "mine_pairs.csv", index=False)
    code = rf"U\+{ord(char):04X}"
    with pytest.raises(DataError, match=rf"mine_pairs\.csv, row 5 \(line\), column 'good_id': "
                       rf"good_id .* holds the invisible character {code} "
                       rf"{unicodedata.name(char)} \(1 rows\).*Fix: delete it") as err:
        data.read_dataset(tmp_path / "mine.csv", tmp_path / "mine_pairs.csv")
    assert repr(char)[1:-1] in str(err.value)  # shown escaped, as \u200b


@pytest.mark.parametrize("validate", [
    lambda v: data.validate_sentences(pd.DataFrame({"sentence_id": ["a", v], "text": ["x", "y"]})),
    lambda v: data.validate_scores(pd.DataFrame({"sentence_id": ["a"], "model": [v],
                                                 "score": [1.0]})),
    lambda v: data.validate_ratings(pd.DataFrame({"participant": [v], "sentence_id": ["a"],
                                                  "response": [1]}), "binary"),
])
def test_zero_width_characters_are_refused_in_every_table(validate):
    with pytest.raises(DataError, match=r"holds the invisible character U\+200B"):
        validate("gpt2\u200b")


def test_nfd_sentences_and_nfc_pairs_join(tmp_path, example):
    """The same id, its accent composed in the pairs file and decomposed in the sentences
    file (as macOS file names and some editors write it): one id, in NFC."""
    sentences, pairs = example
    old = pairs.loc[0, "good_id"]
    sentences["sentence_id"] = sentences["sentence_id"].replace({old: f"{NFD}-{old}"})
    pairs["good_id"] = pairs["good_id"].replace({old: f"{NFC}-{old}"})
    sentences.to_csv(tmp_path / "mine.csv", index=False)
    pairs.to_csv(tmp_path / "mine_pairs.csv", index=False)
    assert NFD.encode() in (tmp_path / "mine.csv").read_bytes()
    ds = data.read_dataset(tmp_path / "mine.csv", tmp_path / "mine_pairs.csv")
    assert ds.pairs.loc[0, "good_id"] == f"{NFC}-{old}" in set(ds.sentences["sentence_id"])
    assert not (ds.sentences["sentence_id"].str.contains("\u0301")).any()


def test_nfc_and_nfd_of_one_id_are_one_id(example):
    sentences, _ = example
    sentences.loc[[0, 1], "sentence_id"] = [NFC, NFD]
    with pytest.raises(DataError, match=r"duplicate sentence_id 'caf\u00e9' \(rows 0 and 1;.*"
                       r"Unicode NFC"):
        data.validate_sentences(sentences)


def test_sentence_text_is_kept_as_written(tmp_path, example):
    """Text is not normalised: a model scores the characters it is given (GPT-2's byte BPE
    gives "café" composed and decomposed different tokens), so the bytes stay."""
    sentences, _ = example
    sentences.loc[2, "text"] = f"The {NFD} is open."
    sentences.to_csv(tmp_path / "mine.csv", index=False)
    ds = data.read_dataset(tmp_path / "mine.csv")
    assert ds.sentences.loc[2, "text"] == f"The {NFD} is open."
