"""The start token of a causal LM is a choice (issue 42, item 8): BOS, end-of-text, a given
token or none, with a default per tokenizer family; it is in the cache key, the scores
table and the run's provenance."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from acceptability import data, scoring
from acceptability.scoring.backends.causal import start_token

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


def _tokenizer(bos, eos, *others):
    """What start_token reads of a tokenizer: its BOS and EOS and its vocabulary."""
    vocab = {t: i for i, t in enumerate(t for t in (bos, eos, *others, "cat") if t)}
    return SimpleNamespace(bos_token=bos, eos_token=eos, get_vocab=lambda: vocab)


GPT2 = _tokenizer("<|endoftext|>", "<|endoftext|>")
CHATML = _tokenizer("<|im_start|>", "<|im_end|>", "<|endoftext|>")  # SmolLM2-Instruct
QWEN = _tokenizer(None, "<|endoftext|>")  # Qwen2.5: no BOS
GEMMA = _tokenizer("<bos>", "<eos>")


@pytest.mark.parametrize(("tokenizer", "choice", "token"), [
    (GPT2, "auto", "<|endoftext|>"), (GPT2, "bos", "<|endoftext|>"), (GPT2, "eos", "<|endoftext|>"),
    (CHATML, "auto", "<|endoftext|>"), (CHATML, "bos", "<|im_start|>"),
    (CHATML, "eos", "<|endoftext|>"), (CHATML, "<|im_end|>", "<|im_end|>"),
    (QWEN, "auto", "<|endoftext|>"), (QWEN, "eos", "<|endoftext|>"),
    (GEMMA, "auto", "<bos>"), (GEMMA, "eos", "<eos>"), (GEMMA, "cat", "cat"),
    (GEMMA, None, None), (GEMMA, "none", None),
])
def test_start_token_by_family(tokenizer, choice, token):
    """auto: BOS, unless there is none (Qwen2.5) or it opens a chat turn (ChatML); then
    end-of-text, which eos means wherever the vocabulary has <|endoftext|>."""
    assert start_token(tokenizer, choice) == token


@pytest.mark.parametrize(("tokenizer", "choice", "message"), [
    (QWEN, "bos", r"has no BOS token .* give start_token 'eos' \(<\|endoftext\|>\) or a token"),
    (GEMMA, "<|endoftext|>", r"has no token '<\|endoftext\|>' .*'bos' \(<bos>\) or 'eos'"),
])
def test_a_start_token_the_tokenizer_lacks_is_a_clear_error(tokenizer, choice, message):
    with pytest.raises(scoring.ScoringError, match=message):
        start_token(tokenizer, choice, "m")


def _loop(model, ids: list[int]) -> float:
    """log P(ids[1:] | ids[0]) one sentence at a time: log-softmax and gather."""
    import torch

    with torch.no_grad():
        logprobs = model(torch.tensor([ids])).logits.double().log_softmax(-1)[0]
    return sum(logprobs[t - 1, ids[t]].item() for t in range(1, len(ids)))


def test_a_given_start_token_conditions_the_first_word(gpt2_dir, sentences, tmp_path):
    """Scores after a token of the vocabulary equal a plain loop's after that token; the
    cache keeps them apart from the default's; the table says which token it was."""
    lm = scoring.load_model(gpt2_dir, "causal")
    tok = lm.tokenizer
    given = tok.convert_ids_to_tokens(7)
    default = scoring.score(sentences, lm, cache=tmp_path, progress=False)
    chosen = scoring.score(sentences, lm, start_token=given, cache=tmp_path, progress=False)
    expected = [_loop(lm.model, [7, *tok(s)["input_ids"]]) for s in sentences]
    np.testing.assert_allclose(chosen["score"], expected, atol=1e-4)
    assert not np.allclose(chosen["score"], default["score"])
    assert set(default["start_token"]) == {"<|endoftext|>"} and set(chosen["start_token"]) == {given}
    none = scoring.score(sentences, lm, start_token=None, cache=tmp_path, progress=False)
    assert set(none["start_token"]) == {"none"}
    assert list(none["n_tokens"]) == list(default["n_tokens"] - 1)


def test_start_token_from_the_command_line_and_an_experiment_file(gpt2_dir, tmp_path):
    """--start-token and [scores] start_token reach the scores and the provenance."""
    from acceptability.reports.cli import commands
    from acceptability.reports.cli.experiment import from_toml

    token = "<|endoftext|>"
    out = tmp_path / "scores.csv"
    assert commands.main(["score", "--dataset", "example", "--model", gpt2_dir,
                          "--start-token", "none", "--out", str(out)]) == 0
    ds, _ = data.load_example()
    got = data.read_scores(out, ds).set_index("sentence_id")
    plain = scoring.score(ds, gpt2_dir, start_token=None, cache=False, progress=False)
    np.testing.assert_allclose(got["score"], plain.set_index("sentence_id")["score"][got.index],
                               atol=1e-5)
    toml = tmp_path / "exp.toml"
    toml.write_text(f'out = "{tmp_path / "r"}"\n[data]\ndataset = "example"\n[scores]\n'
                    f'source = "score"\nmodels = ["{gpt2_dir}"]\nstart_token = "{token}"\n')
    exp = from_toml(toml)
    assert exp.start_token == token and exp.hardware()["start_token"] == token
    assert exp.scores_settings()["start_token"] == token
