"""The user's own data at the seams (issue 28, item 11): each test here failed on the code
before its fix. Extra sentence columns in model formulas, a semicolon-separated CSV, and
the Lau et al. (2017) normalisations from the command line.

The own data are Lau et al. (2020)'s sentences without context (lau2020/
context-none-ratings.csv): 250 sentences, 200 of them round-trip machine translated
(``translated``), with their mean 1-4 ratings z-scored here.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf

from acceptability import data, stats
from acceptability.data.errors import DataError
from acceptability.reports.cli import commands as cli
from tests.conftest import need_data

pytestmark = pytest.mark.usefixtures("private_cache")  # conftest: a score cache per test

MIXED = "human ~ score + translated + (1 | source_language)"


@pytest.fixture(scope="module")
def lau_sentences() -> pd.DataFrame:
    """The sentences table of Lau et al. (2020), human = the mean ratings z-scored."""
    raw = pd.read_csv(need_data("lau2020") / "context-none-ratings.csv")
    rating = raw["mean-ratings"].to_numpy(dtype=float)
    return pd.DataFrame({
        "sentence_id": raw["ID"].astype(str), "text": raw["sentence"],
        "translated": raw["translated"], "source_language": raw["source-language"],
        "human": (rating - rating.mean()) / rating.std(ddof=0),
    })


@pytest.fixture(scope="module")
def length_scores(lau_sentences) -> pd.DataFrame:
    """A shallow predictor as the model score: minus the sentence's length in words."""
    words = lau_sentences["text"].str.split().str.len()
    return pd.DataFrame({"sentence_id": lau_sentences["sentence_id"], "model": "length",
                         "score": -words.astype(float)})


def _write(frame: pd.DataFrame, path: Path, sep: str = ",") -> str:
    frame.to_csv(path, index=False, sep=sep)
    return str(path)


# --- a: extra columns in formulas ----------------------------------------------------------

def test_fit_uses_an_extra_sentence_column(lau_sentences, length_scores, tmp_path, capsys):
    """`evaluate --by translated` worked, `fit --formula "... + translated"` said unknown
    column. The estimates equal statsmodels' MixedLM (REML) on a frame built here."""
    out = tmp_path / "fixef.csv"
    assert cli.main(["fit", "--sentences", _write(lau_sentences, tmp_path / "s.csv"),
                     "--scores", _write(length_scores, tmp_path / "sc.csv"),
                     "--formula", MIXED, "--out", str(out)]) == 0, capsys.readouterr().err
    ours = pd.read_csv(out).set_index("term")["estimate"]
    frame = lau_sentences.assign(score=length_scores["score"].to_numpy())
    frame["score"] = (frame["score"] - frame["score"].mean()) / frame["score"].std(ddof=0)
    ref = smf.mixedlm("human ~ score + translated", frame,
                      groups=frame["source_language"]).fit(reml=True)
    for term in ("Intercept", "score", "translated"):
        name = "(Intercept)" if term == "Intercept" else term
        assert ours[name] == pytest.approx(ref.fe_params[term], abs=1e-4), term


def test_sentence_model_frame_keeps_every_sentence_column(lau_sentences, length_scores):
    ds = data.from_frames(lau_sentences)
    frame = stats.sentence_model_frame(ds, length_scores)
    assert set(ds.sentences.columns) <= set(frame.columns)
    assert (frame.set_index("sentence_id")["source_language"]
            == lau_sentences.set_index("sentence_id")["source_language"]).all()


@pytest.fixture(scope="module")
def li_adger_own(li_adger_dir, tmp_path_factory):
    """LI-Adger as the user's own files, a sentence column ``block`` (the sentence's
    sub-dataset and phenomenon, equal for both sentences of a pair), an extra pairs
    column ``half`` and one model's published scores."""
    ds = data.load_li_adger(li_adger_dir)
    folder = tmp_path_factory.mktemp("li_adger_own")
    s = ds.sentences.assign(block=ds.sentences["dataset"] + "/" + ds.sentences["phenomenon"])
    p = ds.pairs.assign(half=np.arange(len(ds.pairs)) % 2)
    sc = data.load_li_adger_scores(li_adger_dir)
    sc = sc[sc["model"] == "bert-large-cased_mlm"]
    return (_write(s, folder / "s.csv"), _write(p, folder / "p.csv"),
            _write(sc, folder / "sc.csv"), data.read_dataset(folder / "s.csv", folder / "p.csv"),
            sc)


def test_pair_frame_carries_pair_columns_and_sentence_columns(li_adger_own):
    """Pair level: the pairs table's columns; a sentence column equal for both sentences
    of every pair under its own name (here ``block``); every sentence column as
    ``<column>_good`` and ``<column>_bad``."""
    *_, ds, sc = li_adger_own
    frame = stats.pair_model_frame(ds, sc)
    assert {"half", "dataset", "block", "type_id_good", "type_id_bad", "item_good"} <= set(frame)
    assert "type_id" not in frame  # it differs between the sentences of a pair
    s = ds.sentences.set_index("sentence_id")
    assert (frame["block"] == frame["good_id"].map(s["block"])).all()
    assert (frame["type_id_bad"] == frame["bad_id"].map(s["type_id"])).all()
    assert (frame["dh"] == frame["human_good"] - frame["human_bad"]).all()


def test_fit_at_pair_level_uses_pair_and_sentence_columns(li_adger_own, tmp_path, capsys):
    sentences, pairs, scores, ds, sc = li_adger_own
    out = tmp_path / "fixef.csv"
    formula = "dh ~ dlm + half + (1 | block)"
    assert cli.main(["fit", "--sentences", sentences, "--pairs", pairs, "--scores", scores,
                     "--formula", formula, "--out", str(out)]) == 0, capsys.readouterr().err
    ours = pd.read_csv(out).set_index("term")["estimate"]
    s = ds.sentences.set_index("sentence_id")
    z = sc.set_index("sentence_id")["score"]
    z = (z - z.mean()) / z.std(ddof=0)
    p = ds.pairs.assign(dh=ds.pairs["good_id"].map(s["human"]) - ds.pairs["bad_id"].map(s["human"]),
                        dlm=ds.pairs["good_id"].map(z) - ds.pairs["bad_id"].map(z),
                        block=ds.pairs["good_id"].map(s["block"])).dropna(subset=["dh", "dlm"])
    ref = smf.mixedlm("dh ~ dlm + half", p, groups=p["block"]).fit(reml=True)
    for term in ("dlm", "half"):
        assert ours[term] == pytest.approx(ref.fe_params[term], abs=1e-4), term


def test_a_sentence_column_that_differs_within_pairs_is_named_at_pair_level(li_adger_own,
                                                                            capsys):
    sentences, pairs, scores, *_ = li_adger_own
    assert cli.main(["fit", "--sentences", sentences, "--pairs", pairs, "--scores", scores,
                     "--formula", "dh ~ dlm + (1 | type_id)"]) == 2
    err = capsys.readouterr().err
    assert "'type_id' differs between the good and the bad sentence of pair" in err
    assert "type_id_good" in err and len(err.strip().splitlines()) == 1


# --- b: a semicolon-separated CSV ----------------------------------------------------------

def test_a_semicolon_separated_csv_is_named_as_such(lau_sentences, length_scores, tmp_path,
                                                    capsys):
    sentences = _write(lau_sentences, tmp_path / "s.csv", sep=";")
    with pytest.raises(DataError, match=r"separated by ';' \(semicolons\), not ','") as err:
        data.read_dataset(sentences)
    assert "s.csv" in str(err.value) and "Fix:" in str(err.value)
    assert cli.main(["evaluate", "--sentences", sentences, "--scores",
                     _write(length_scores, tmp_path / "sc.csv"), "--n-boot", "0"]) == 2
    assert "semicolons" in capsys.readouterr().err
    good = data.read_dataset(_write(lau_sentences, tmp_path / "ok.csv"))
    with pytest.raises(DataError, match="semicolons"):  # the scores file: the same reader
        data.read_scores(_write(length_scores, tmp_path / "sc2.csv", sep=";"), good)
    with pytest.raises(DataError, match=r"separated by ',' \(commas\), not tabs"):
        data.read_dataset(_write(lau_sentences, tmp_path / "s.tsv"))


# --- c: --normalise and --unigram -----------------------------------------------------------

@pytest.fixture(scope="module")
def long_gpt2(tmp_path_factory) -> str:
    """The tiny GPT-2 of the scoring tests with room for Lau et al.'s longest sentences."""
    from tests.conftest import need_module

    need_module("torch")
    need_module("transformers")
    from tests.scoring_fixtures import make_gpt2

    return make_gpt2(tmp_path_factory.mktemp("gpt2"), positions=512)


def _slor_by_hand(logprob: pd.Series, texts: pd.Series, corpus: list[str]) -> pd.Series:
    """SLOR (Lau et al. 2017) = (log P_lm(s) - log P_u(s)) / |s|, with an add-one unigram
    model of ``corpus`` counted here (one extra type for unknown words), Penn Treebank words."""
    from nltk.tokenize import TreebankWordTokenizer

    tok = TreebankWordTokenizer().tokenize
    counts = Counter(w for line in corpus for w in tok(line))
    total = sum(counts.values()) + len(counts) + 1
    words = texts.map(tok)
    unigram = words.map(lambda ws: sum(math.log((counts[w] + 1) / total) for w in ws))
    return (logprob - unigram) / words.str.len()


def test_score_normalises_from_the_command_line(long_gpt2, lau_sentences, tmp_path, capsys):
    sentences = _write(lau_sentences, tmp_path / "s.csv")
    corpus = list(lau_sentences["text"].iloc[::2])
    (tmp_path / "corpus.txt").write_text("\n".join(corpus) + "\n", encoding="utf-8")
    ds = data.read_dataset(sentences)
    got = {}
    for how in (None, "mean", "slor"):
        out = tmp_path / f"{how}.parquet"
        extra = [] if how is None else ["--normalise", how]
        extra += ["--unigram", str(tmp_path / "corpus.txt")] if how == "slor" else []
        assert cli.main(["score", "--sentences", sentences, "--model", f"{long_gpt2}:logprob",
                         *extra, "--out", str(out)]) == 0, capsys.readouterr().err
        got[how] = data.read_scores(out, ds).set_index("sentence_id")
    raw = got[None]["score"]
    assert set(got["slor"]["model"]) == {f"{Path(long_gpt2).name}_logprob_slor"}
    assert set(got["mean"]["method"]) == {"logprob_mean"}
    assert np.allclose(got["mean"]["score"], raw / got[None]["n_tokens"], rtol=1e-12)
    text = lau_sentences.set_index("sentence_id")["text"].loc[raw.index]
    assert np.allclose(got["slor"]["score"], _slor_by_hand(raw, text, corpus), rtol=1e-9)


def test_normalise_flags_refuse_what_cannot_run(long_gpt2, lau_sentences, tmp_path, capsys):
    from acceptability.reports.cli.commands import parser
    from acceptability.scoring.normalise import NORMALISATIONS

    for command in ("score", "run"):
        sub = parser()._subparsers._group_actions[0].choices[command]
        flag = next(a for a in sub._actions if "--normalise" in a.option_strings)
        assert tuple(flag.choices) == NORMALISATIONS
    sentences = _write(lau_sentences, tmp_path / "s.csv")
    base = ["score", "--sentences", sentences, "--model", long_gpt2, "--out",
            str(tmp_path / "x.parquet")]
    cases = {("--normalise", "slor"): "normalise 'slor' needs a unigram model. Fix: give "
                                      "--unigram FILE",
             ("--unigram", sentences): "unigram is used only by normalise slor or normlp",
             ("--normalise", "normlp", "--unigram", str(tmp_path / "none.txt")):
                 "no such unigram file"}
    for flags, message in cases.items():
        assert cli.main([*base, *flags]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    counts = tmp_path / "counts.csv"
    counts.write_text("word,count\nthe,10\ncat,x\n")
    assert cli.main([*base, "--normalise", "slor", "--unigram", str(counts)]) == 2
    err = capsys.readouterr().err
    assert "counts.csv" in err and "row 3" in err and "'count'" in err


def test_unigram_from_a_frequency_table(tmp_path):
    """A word,count table gives scoring.unigram_from_frequencies of its counts; words
    such as "null" and "NA" stay words."""
    from acceptability import scoring
    from acceptability.scoring.normalise import read_unigram

    path = tmp_path / "counts.tsv"
    path.write_text("word\tcount\nthe\t10\nnull\t3\nNA\t2\n")
    got = read_unigram(path)
    want = scoring.unigram_from_frequencies({"the": 10, "null": 3, "NA": 2})
    assert got.logprobs == want.logprobs and got.unk_logprob == want.unk_logprob


def test_toml_scores_section_normalises(long_gpt2, lau_sentences, tmp_path, capsys):
    """``[scores] normalise``/``unigram`` (relative to the file) in ``run``, recorded in
    the report's provenance with the unigram file's checksum."""
    _write(lau_sentences, tmp_path / "s.csv")
    (tmp_path / "corpus.txt").write_text("\n".join(lau_sentences["text"]) + "\n")
    config = tmp_path / "exp.toml"
    config.write_text(f'out = "run"\n[data]\nsentences = "s.csv"\n[scores]\nsource = "score"\n'
                      f'models = ["{long_gpt2}:logprob"]\nnormalise = "slor"\n'
                      f'unigram = "corpus.txt"\n[analysis]\nn_boot = 0\nformula = ""\n')
    assert cli.main(["run", "--config", str(config)]) == 0, capsys.readouterr().err
    ds = data.read_dataset(tmp_path / "s.csv")
    scores = data.read_scores(tmp_path / "run" / "scores.parquet", ds)
    assert set(scores["method"]) == {"logprob_slor"}
    html = (tmp_path / "run" / "report.html").read_text()
    assert "slor" in html and "corpus.txt" in html
