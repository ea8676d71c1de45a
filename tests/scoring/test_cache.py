"""Score cache: resume after a killed run without recomputation; keys; score files."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import scoring
from acceptability.scoring.backends import masked

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


class Killed(Exception):
    """Stands in for Ctrl-C / a killed job in the middle of a run."""


def _count_forwards(lm, fail_after=None):
    calls = []

    def hook(_module, _args):
        calls.append(1)
        if fail_after is not None and len(calls) > fail_after:
            raise Killed

    return calls, lm.model.register_forward_pre_hook(hook)


@pytest.mark.parametrize(("fixture", "kind", "method"), [("gpt2_dir", "causal", "logprob"), ("bert_dir", "masked", "pll")])
def test_killed_run_resumes_from_cache_without_recomputing(request, tmp_path, monkeypatch, fixture, kind, method,
                                                         sentences):
    # on the CPU, where batches are batch_size sentences (an accelerator fills token budgets)
    lm = scoring.load_model(request.getfixturevalue(fixture), kind, device="cpu")
    # PLL without a token budget: batches of two sentences, one forward pass each (on the CPU
    # its batches are cut to fill passes of 2048 tokens instead)
    monkeypatch.setattr(masked, "tokens_per_pass", lambda _lm, _tokens: None)
    kw = {"batch_size": 2, "cache": tmp_path, "progress": False}
    n_batches = -(-len(sentences) // 2)

    calls, handle = _count_forwards(lm, fail_after=2)
    with pytest.raises(Killed):
        scoring.score(sentences, lm, method, **kw)
    handle.remove()
    assert len(scoring.ScoreCache(tmp_path)) == 4  # two finished batches of two

    calls, handle = _count_forwards(lm)
    resumed = scoring.score(sentences, lm, method, **kw)
    assert len(calls) == n_batches - 2
    calls.clear()
    again = scoring.score(sentences, lm, method, **kw)
    handle.remove()
    assert calls == []
    fresh = scoring.score(sentences, lm, method, batch_size=2, cache=False, progress=False)
    np.testing.assert_allclose(resumed["score"], fresh["score"], atol=1e-5)
    pd.testing.assert_frame_equal(resumed, again)


def test_cache_key_separates_model_method_options_and_text(tmp_path, gpt2_dir, bert_dir, sentences):
    lm = scoring.load_model(gpt2_dir, "causal")
    kw = {"cache": tmp_path, "progress": False}
    scoring.score(sentences[:2], lm, "logprob", **kw)
    calls, handle = _count_forwards(lm)
    scoring.score(sentences[:2], lm, "logprob", start_token=None, **kw)
    scoring.score([sentences[2]], lm, "logprob", **kw)
    handle.remove()
    assert len(calls) == 2
    assert len(scoring.ScoreCache(tmp_path)) == 5
    assert lm.identity.startswith("dir:")
    assert scoring.load_model(gpt2_dir, "causal").identity == lm.identity
    assert scoring.load_model(gpt2_dir, "causal", dtype="bfloat16").identity != lm.identity


def test_duplicate_texts_are_scored_once(tmp_path, gpt2_dir, sentences):
    lm = scoring.load_model(gpt2_dir, "causal")
    calls, handle = _count_forwards(lm)
    got = scoring.score([sentences[0]] * 5, lm, "logprob", cache=tmp_path, progress=False)
    handle.remove()
    assert len(calls) == 1 and got["score"].nunique() == 1


def test_default_cache_dir_follows_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "c"))
    assert scoring.default_cache_dir() == tmp_path / "c"


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_write_then_read_scores(tmp_path, gpt2_dir, suffix, sentences):
    scores = scoring.score(sentences, gpt2_dir, "logprob", cache=False, progress=False)
    path = scoring.write_scores(scores, tmp_path / f"scores{suffix}")
    back = scoring.read_scores(path)
    pd.testing.assert_frame_equal(back, scores, check_dtype=False)


def test_hub_id_is_loaded_from_the_hub_cache_and_keyed_by_its_commit(monkeypatch, tmp_path):
    import huggingface_hub.constants

    from tests.scoring_fixtures import make_gpt2

    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "models--org--tiny"
    make_gpt2(repo / "snapshots" / commit)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    lm = scoring.load_model("org/tiny", "causal")
    assert lm.identity.startswith(f"hub:org/tiny@{commit}|causal")
    assert scoring.score(["A cat."], lm, cache=False, progress=False)["model"][0] == "org/tiny_logprob"


def test_one_cache_shared_by_threads(tmp_path):
    """A ScoreCache used from several threads (sqlite3 connections refuse that by default)."""
    from concurrent.futures import ThreadPoolExecutor

    from acceptability.scoring.results import Scored

    cache = scoring.ScoreCache(tmp_path)

    def work(t: int) -> dict:
        batches = [{f"{t}-{b}-{i}": Scored(float(t * 1000 + b * 10 + i), i) for i in range(10)}
                   for b in range(20)]
        for batch in batches:
            cache.put_many(batch)
            assert cache.get_many(batch) == batch
            len(cache)
        return {k: v for batch in batches for k, v in batch.items()}

    with ThreadPoolExecutor(4) as pool:
        written = [f.result() for f in [pool.submit(work, t) for t in range(4)]]
    everything = {k: v for w in written for k, v in w.items()}
    assert len(cache) == len(everything) == 800
    assert cache.get_many(everything) == everything
    cache.close()
