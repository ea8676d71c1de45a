"""A training run killed while ``Trainer`` wrote a checkpoint (issue 30, item 10: a kill
during every write): transformers writes checkpoint folders in place, ``trainer_state.json``
last, so the rerun drops the cut-short one and resumes from the last whole checkpoint to the
weights of an uninterrupted run; the final model folder is saved through the atomic writer."""

from __future__ import annotations

import json
import random
import shutil

import pytest

from acceptability.scoring.training.lm import train_lm
from tests.scoring_fixtures import CORPUS

TINY = {"hidden_size": 16, "layers": 1, "heads": 2, "intermediate_size": 32, "max_length": 64}


@pytest.fixture(scope="module")
def texts() -> list[str]:
    words = " ".join(CORPUS).lower().replace(".", "").replace("?", "").split()
    rng = random.Random(0)
    return [" ".join(rng.choices(words, k=rng.randint(3, 8))) for _ in range(80)]


def test_a_checkpoint_cut_short_is_dropped_and_training_resumes_to_the_same_weights(
        tmp_path, texts):
    pytest.importorskip("transformers")
    options = {"kind": "causal", "size": TINY, "vocab_size": 300, "epochs": 1,
               "batch_size": 4, "save_steps": 3, "progress": False, "dtype": "float32"}
    whole = train_lm(texts, tmp_path / "whole", **options)
    record = json.loads((whole / "training.json").read_text())
    last = whole / "checkpoints" / record["checkpoints"][-1]
    assert len(record["checkpoints"]) >= 3
    assert [p.name for p in whole.glob(".*")] == []  # the atomic writer left nothing

    cut = tmp_path / "cut"
    shutil.copytree(whole, cut)
    for name in ("training.json", "model.safetensors"):
        (cut / name).unlink()
    cut_short = cut / "checkpoints" / last.name
    (cut_short / "trainer_state.json").unlink()  # the kill came before Trainer wrote it
    weights = cut_short / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:100])
    train_lm(texts, cut, **options)
    resumed = json.loads((cut / "training.json").read_text())
    assert resumed["resumed"] is True and resumed["steps"] == record["steps"]
    assert (cut / "model.safetensors").read_bytes() == (whole / "model.safetensors").read_bytes()
