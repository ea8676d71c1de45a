"""Loading refuses what would score noise or cannot load: a checkpoint without the weights of
its scoring head (issue 42, item 9), and GGUF files transformers cannot read (item 7)."""

from __future__ import annotations

import json

import pytest

from acceptability import scoring

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


@pytest.mark.parametrize("claims_head", [False, True])
def test_masked_lm_without_its_mlm_head_is_an_error_naming_the_weights(tmp_path, claims_head):
    """A BERT saved as a BertModel (a sentence encoder such as all-MiniLM-L6-v2: no MLM head),
    as it is or with a config that claims BertForMaskedLM: transformers would initialise the
    head at random and PLL would be noise, so loading it for PLL names the missing weights."""
    from transformers import BertModel

    from tests.scoring_fixtures import _bert_config, _with_bert_tokenizer

    folder = _with_bert_tokenizer(tmp_path / "encoder", lambda fast: BertModel(_bert_config(len(fast))))
    if claims_head:
        config = json.loads((tmp_path / "encoder" / "config.json").read_text())
        config["architectures"] = ["BertForMaskedLM"]
        (tmp_path / "encoder" / "config.json").write_text(json.dumps(config))
    with pytest.raises(scoring.ScoringError, match=r"lacks \d+ weight.*cls\.predictions\.") as err:
        scoring.score(["The cat sat."], folder, "pll", cache=False, progress=False)
    assert "random" in str(err.value)


def test_complete_checkpoints_still_load(bert_dir, gpt2_dir):
    """The check passes models saved with their heads (the output layer tied to the input
    embeddings is no missing weight)."""
    assert scoring.load_model(bert_dir, "masked").kind == "masked"
    assert scoring.load_model(gpt2_dir, "causal").kind == "causal"


def _gguf_file(path, architecture: str) -> str:
    """A GGUF file of `architecture` holding one tensor (written with the gguf package)."""
    import numpy as np

    from tests.conftest import need_module

    gguf = need_module("gguf")
    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((4, 2), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return str(path)


def test_gguf_of_an_architecture_transformers_cannot_read_is_a_clear_error(tmp_path):
    from tests.conftest import need_module

    need_module("gguf")
    path = _gguf_file(tmp_path / "encoder.gguf", "bert")
    with pytest.raises(scoring.ScoringError, match=r"cannot load GGUF file .*encoder\.gguf.*bert"
                       r".* reads these architectures from GGUF: .*llama") as err:
        scoring.load_model(path, "causal")
    assert err.value.__cause__ is None


def test_missing_gguf_file_is_a_clear_error(tmp_path):
    with pytest.raises(scoring.ScoringError, match=r"GGUF file .*model\.gguf' does not exist"):
        scoring.load_model(str(tmp_path / "model.gguf"), "causal")
    with pytest.raises(scoring.ScoringError, match=r"GGUF file .*other\.gguf' does not exist"):
        scoring.load_model(str(tmp_path), "causal", gguf_file="other.gguf")
