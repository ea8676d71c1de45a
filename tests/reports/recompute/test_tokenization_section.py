"""The report's tokenization section (issue 46, item 7): its table recomputed from the raw
sentences and scores with code written here; absent without a language column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from acceptability import reports
from acceptability.data import load_example
from acceptability.reports.render import sections


def _with_languages():
    """The example data with two languages and token counts (words + 1, as an n-gram's)."""
    ds, scores = load_example()
    ds.sentences["language"] = np.where(np.arange(len(ds.sentences)) % 3 == 0, "xx", "yy")
    words = ds.sentences.set_index("sentence_id")["text"].str.split().str.len()
    scores["n_tokens"] = scores["sentence_id"].map(words).to_numpy() + 1
    return ds, scores


def test_the_section_table_is_tokens_per_word_and_char(tmp_path):
    ds, scores = _with_languages()
    results = reports.analyse(ds, scores, n_boot=0)
    assert "tokenization" in [s.anchor for s in sections(results)]
    reports.build(results, tmp_path / "report")
    got = pd.read_csv(tmp_path / "report" / "tables" / "tokenization.csv")
    text = dict(zip(ds.sentences["sentence_id"], ds.sentences["text"], strict=True))
    language = dict(zip(ds.sentences["sentence_id"], ds.sentences["language"], strict=True))
    expected = {}
    for sid, model, n in zip(scores["sentence_id"], scores["model"], scores["n_tokens"], strict=True):
        row = expected.setdefault((language[sid], model), [0, 0, 0])
        row[0] += len(text[sid].split())
        row[1] += len(text[sid])
        row[2] += n
    assert len(got) == len(expected) == 2 * scores["model"].nunique()
    for r in got.itertuples():
        words, chars, tokens = expected[(r.language, r.model)]
        assert (r.words, r.characters, r.tokens) == (words, chars, tokens)
        assert np.isclose(r.tokens_per_word, tokens / words) and np.isclose(r.tokens_per_char, tokens / chars)


def test_no_language_column_no_section():
    ds, scores = load_example()
    scores["n_tokens"] = 5
    assert "tokenization" not in [s.anchor for s in sections(reports.analyse(ds, scores, n_boot=0))]
