"""Region surprisal of SyntaxGym suites on a tiny GPT-2 and a tiny BERT, against brute-force
loops written here: each token's log-probability from one forward pass (causal) or one
masked pass per token (PLL), placed in the region holding its first non-space character."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import scoring
from acceptability.data import load_syntaxgym, syntaxgym_regions
from acceptability.scoring.errors import ScoringError
from acceptability.stats import syntaxgym_accuracy, syntaxgym_outcomes
from tests.conftest import need_data
from tests.scoring_fixtures import make_bert, make_gpt2

TOL = 1e-4  # bits


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    import torch

    torch.manual_seed(0)
    return {"gpt2": make_gpt2(tmp_path_factory.mktemp("gpt2"), positions=128),
            "bert": make_bert(tmp_path_factory.mktemp("bert"), positions=128)}


@pytest.fixture(scope="module")
def suites():
    """number_prep (19 items); cleft (empty regions) and npz_obj (contents with a leading
    space), 2 items each; for the masked LM's brute force (a pass per token), 4 + 1 + 1."""
    folder = need_data("syntaxgym")
    ds = load_syntaxgym(folder, suites=["number_prep", "cleft", "npz_obj"])
    s = ds.sentences
    keep = (s["suite"] == "number_prep") | (s["item"] <= 2)
    small = (s["item"] <= 1) | ((s["suite"] == "number_prep") & (s["item"] <= 4))
    return {"gpt2": ds.subset(sentence_ids=s.loc[keep, "sentence_id"]),
            "bert": ds.subset(sentence_ids=s.loc[small, "sentence_id"])}


def _region_of(text: str, start: int, spans: list[tuple[int, int]]) -> int:
    """The region holding the first non-space character at or after ``start``."""
    p = start
    while text[p].isspace():
        p += 1
    return next(k for k, (a, b) in enumerate(spans) if a <= p < b)


def _brute_force(ds, path: str, masked: bool) -> pd.DataFrame:
    import torch
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    model = (AutoModelForMaskedLM if masked else AutoModelForCausalLM).from_pretrained(path).eval()
    regions = syntaxgym_regions(ds)
    sums = []
    for (sid, g), text in zip(regions.groupby("sentence_id", sort=False), ds.sentences["text"],
                              strict=True):
        spans = list(zip(g["start"], g["end"], strict=True))
        bits, count = np.zeros(len(spans)), np.zeros(len(spans), dtype=int)
        enc = tok(text, return_offsets_mapping=True, add_special_tokens=masked)
        ids = enc["input_ids"]
        with torch.no_grad():
            if masked:  # a copy per token, that token masked ([CLS] and [SEP] unscored)
                copies = torch.tensor([ids] * (len(ids) - 2))
                rows = torch.arange(len(ids) - 2)
                copies[rows, rows + 1] = tok.mask_token_id
                logprobs = model(copies).logits.log_softmax(-1)
                scored = [(enc["offset_mapping"][i + 1][0], logprobs[i, i + 1, ids[i + 1]])
                          for i in range(len(ids) - 2)]
            else:  # after GPT-2's BOS, every token read at the position before it
                full = torch.tensor([[tok.bos_token_id, *ids]])
                logprobs = model(full).logits.log_softmax(-1)[0]
                scored = [(enc["offset_mapping"][t][0], logprobs[t, ids[t]])
                          for t in range(len(ids))]
        for start, lp in scored:
            k = _region_of(text, start, spans)
            bits[k] -= float(lp) / math.log(2)
            count[k] += 1
        sums.append(pd.DataFrame({"sentence_id": sid, "region": g["region"].to_numpy(),
                                  "surprisal": bits, "n_tokens": count}))
    return pd.concat(sums, ignore_index=True)


@pytest.mark.parametrize(("name", "method"), [("gpt2", "logprob"), ("bert", "pll")])
def test_region_surprisal_equals_the_brute_force_loop(models, suites, name, method):
    suites = suites[name]
    got = scoring.region_surprisals(suites, models[name], method, cache=False, batch_size=7)
    expected = _brute_force(suites, models[name], masked=method == "pll")
    assert len(got) == len(expected) == len(syntaxgym_regions(suites))
    np.testing.assert_allclose(got["surprisal"], expected["surprisal"], atol=TOL)
    assert got["n_tokens"].tolist() == expected["n_tokens"].tolist()
    empty = got["content"] == ""
    assert empty.any() and (got.loc[empty, "surprisal"] == 0).all()  # cleft's empty regions
    assert (got.loc[empty, "n_tokens"] == 0).all()
    assert set(got["model"]) == {f"{Path(models[name]).name}_{method}"}  # as scoring.score
    # whole sentences: the regions add up to the sentence's score in bits
    score = scoring.score(suites, models[name], method, cache=False)
    per_sentence = got.groupby(syntaxgym_regions(suites)["sentence_id"], sort=False)["surprisal"]
    np.testing.assert_allclose(per_sentence.sum().to_numpy(),
                               -score["score"].to_numpy() / math.log(2), atol=TOL)


def test_the_whole_path_to_accuracy(models, suites):
    """number_prep's prediction, (6;%match_sing%) < (6;%mismatch_sing%) &
    (6;%match_plural%) < (6;%mismatch_plural%), evaluated here on the brute-force sums."""
    suites = suites["bert"]  # number_prep items 1-4
    got = pd.concat([scoring.region_surprisals(suites, models[n], m, cache=False, model_name=n)
                     for n, m in (("gpt2", "logprob"), ("bert", "pll"))], ignore_index=True)
    outcomes = syntaxgym_outcomes(got, suites)
    acc = syntaxgym_accuracy(got, suites, n_boot=200)
    for name, masked in (("gpt2", False), ("bert", True)):
        brute = _brute_force(suites, models[name], masked)
        verb = brute[(brute["region"] == 6) & brute["sentence_id"].str.startswith("number_prep:")]
        value = {tuple(sid.split(":")[1:]): v for sid, v in zip(verb["sentence_id"],
                                                                 verb["surprisal"], strict=True)}
        expected = [value[str(i), "match_sing"] < value[str(i), "mismatch_sing"]
                    and value[str(i), "match_plural"] < value[str(i), "mismatch_plural"]
                    for i in range(1, 5)]
        mine = outcomes[(outcomes["model"] == name) & (outcomes["suite"] == "number_prep")]
        assert mine.sort_values("item")["correct"].tolist() == expected
        row = acc[(acc["level"] == "suite") & (acc["model"] == name)
                  & (acc["group"] == "number_prep")].iloc[0]
        assert row["accuracy"] == pytest.approx(np.mean(expected))
        assert row["n_items"] == 4 and row["lower"] <= row["accuracy"] <= row["upper"]
    assert set(acc["level"]) == {"prediction", "suite", "circuit", "overall", "circuits"}


def test_corrected_boundaries_and_refusals(models, suites):
    suites = suites["bert"]
    plain = scoring.region_surprisals(suites, models["gpt2"], "logprob", cache=False)
    corrected = scoring.region_surprisals(suites, models["gpt2"], "logprob", cache=False,
                                          boundary="corrected")
    assert (corrected["boundary"] == "corrected").all()
    assert corrected["n_tokens"].tolist() == plain["n_tokens"].tolist()
    assert not np.allclose(corrected["surprisal"], plain["surprisal"])
    with pytest.raises(ScoringError, match="causal LM"):
        scoring.region_surprisals(suites, models["bert"], "pll", boundary="corrected",
                                  cache=False)
    with pytest.raises(ScoringError, match=r"suite metric\(s\) \['median'\]"):
        scoring.region_surprisals(suites.sentences.assign(metric="median"), models["gpt2"],
                                  cache=False)
    lm = scoring.train_ngram(["the author is good"], order=2, tokenize=str.split)
    with pytest.raises(ScoringError, match="n-gram"):
        scoring.region_surprisals(suites, lm, "ngram", cache=False)
