"""Two scorers sharing one cache split the work: each claims the keys of a group of batches
before computing them, computes only what it claimed, then reads what the other computed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from acceptability import scoring
from tests.conftest import REPO

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

ADJECTIVES = ["old", "young", "tall", "small", "happy", "quiet", "clever", "tired", "brave", "busy"]
NOUNS = ["cat", "dog", "teacher", "child", "farmer", "doctor", "bird", "king", "student", "baker"]
VERBS = ["sleeps", "sings", "runs away", "sat on the mat"]

# Each scorer: loads the model, says it is ready, waits for "go", scores every text into the
# shared cache (a short sleep per batch stands in for a larger model), and writes how many
# sentences it computed and the scores it returned.
WORKER = """
import json, os, sys, time
from pathlib import Path
import torch
from acceptability import scoring
from acceptability.scoring.backends import causal

torch.set_num_threads(1)
model, cache, texts, go, out = sys.argv[1:]
texts = Path(texts).read_text().splitlines()
lm = scoring.load_model(model, "causal")
computed = []
real = causal.iter_logprobs

def counted(lm, items, batches):
    for batch, scored in real(lm, items, batches):
        computed.append(len(batch))
        time.sleep(0.05)
        yield batch, scored

causal.iter_logprobs = counted
Path(f"{out}.ready").touch()
while not Path(go).exists():
    time.sleep(0.005)
scores = scoring.score(texts, lm, "logprob", batch_size=8, cache=cache, progress=False)
Path(out).write_text(json.dumps({"computed": sum(computed), "scores": list(scores["score"])}))
"""


def _texts() -> list[str]:
    return [f"The {a} {n} {v}." for a in ADJECTIVES for n in NOUNS for v in VERBS]  # 400


@pytest.mark.slow
def test_two_scorers_sharing_a_cache_compute_each_sentence_once(gpt2_dir, tmp_path):
    texts = _texts()
    (tmp_path / "texts.txt").write_text("\n".join(texts))
    (tmp_path / "worker.py").write_text(WORKER)
    go, outs = tmp_path / "go", [tmp_path / f"out{i}.json" for i in range(2)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1"}
    procs = [subprocess.Popen([sys.executable, str(tmp_path / "worker.py"), gpt2_dir,
                               str(tmp_path / "cache"), str(tmp_path / "texts.txt"), str(go),
                               str(out)], env=env) for out in outs]
    deadline = time.monotonic() + 300
    while not all(out.with_name(out.name + ".ready").exists() for out in outs):
        assert time.monotonic() < deadline and all(p.poll() is None for p in procs)
        time.sleep(0.01)
    go.touch()
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    results = [json.loads(out.read_text()) for out in outs]
    computed = [r["computed"] for r in results]
    print(f"computed {computed} of {len(texts)} sentences")
    alone = scoring.score(texts, gpt2_dir, "logprob", batch_size=8, cache=False, progress=False)
    for r in results:
        np.testing.assert_allclose(r["scores"], alone["score"], rtol=1e-5)
    assert len(texts) <= sum(computed) <= len(texts) + 8  # slack: one batch
    assert len(scoring.ScoreCache(tmp_path / "cache")) == len(texts)


def _claims(folder) -> list[tuple]:
    import sqlite3

    with sqlite3.connect(folder / "scores.sqlite") as conn:
        return conn.execute("SELECT key, owner FROM claims ORDER BY key").fetchall()


def test_a_claimed_key_is_not_claimed_again_until_scored(tmp_path):
    from acceptability.scoring.results import Scored

    cache = scoring.ScoreCache(tmp_path)
    assert cache.claim(["k1", "k2", "k3"], "a") == {"k1", "k2", "k3"}
    assert cache.claim(["k2", "k3", "k4"], "b") == {"k4"}
    cache.put_many({"k1": Scored(-1.0, 1)}, "a")
    assert cache.claim(["k1"], "b") == set()  # scored: nothing to claim
    cache.release("a")
    assert cache.claim(["k2", "k3"], "b") == {"k2", "k3"}
    assert _claims(tmp_path) == [("k2", "b"), ("k3", "b"), ("k4", "b")]
    cache.close()


def test_a_claim_of_a_dead_process_or_a_silent_one_is_taken_over(tmp_path, monkeypatch):
    import socket
    import sqlite3

    from acceptability.scoring.run import claims

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    cache = scoring.ScoreCache(tmp_path)
    host = socket.gethostname()
    with sqlite3.connect(tmp_path / "scores.sqlite") as conn:
        conn.executemany("INSERT INTO owners VALUES (?, ?, ?, ?)", [
            ("x", dead.pid, host, time.time()),
            ("y", os.getpid(), host, time.time()),
            ("z", 1, "another-host", time.time()),
            ("s", 1, "another-host", time.time() - claims.CLAIM_TIMEOUT - 1),
        ])
        conn.executemany("INSERT INTO claims VALUES (?, ?)", [
            ("dead", "x"), ("alive", "y"), ("elsewhere", "z"), ("silent", "s"), ("orphan", "o"),
        ])
    conn.close()
    got = cache.claim(["dead", "alive", "elsewhere", "silent", "orphan"], "me")
    assert got == {"dead", "silent", "orphan"}
    with sqlite3.connect(tmp_path / "scores.sqlite") as conn:
        owners = conn.execute("SELECT owner FROM owners ORDER BY owner").fetchall()
    conn.close()
    assert owners == [("me",), ("y",), ("z",)]  # the stale ones gone with their last claim
    cache.close()


def test_a_scorer_waits_for_what_another_claimed_and_reads_it(tmp_path, gpt2_dir, sentences,
                                                              monkeypatch):
    """Another scorer holds a claim on one sentence and writes its score 0.5 s later: this one
    scores the others, waits, and returns the other's score without computing it."""
    import threading

    from acceptability.scoring.results import Scored
    from acceptability.scoring.run.cache import cache_key
    from acceptability.scoring.run.versions import scorer_version

    lm = scoring.load_model(gpt2_dir, "causal")
    key = cache_key(lm.identity, "logprob", {"start_token": lm.tokenizer.bos_token}, sentences[0],
                    scorer_version("backends.causal"))
    other = scoring.ScoreCache(tmp_path)
    assert other.claim([key], "other") == {key}
    writer = threading.Timer(0.5, other.put_many, ({key: Scored(-1.5, 2)}, "other"))
    writer.start()
    calls = []
    handle = lm.model.register_forward_pre_hook(lambda _m, _a: calls.append(1))
    got = scoring.score(sentences, lm, "logprob", batch_size=100, cache=tmp_path, progress=False)
    handle.remove()
    writer.join()
    assert got["score"][0] == -1.5 and len(calls) == 1  # one batch: the sentences it claimed
    assert _claims(tmp_path) == []  # and its owner row
    assert len(scoring.ScoreCache(tmp_path)) == len(sentences)


def test_a_scorer_that_stops_releases_its_claims(tmp_path, gpt2_dir, sentences):
    lm = scoring.load_model(gpt2_dir, "causal")

    def fail(_module, _args):
        raise KeyboardInterrupt

    handle = lm.model.register_forward_pre_hook(fail)
    with pytest.raises(KeyboardInterrupt):
        scoring.score(sentences, lm, "logprob", cache=tmp_path, progress=False)
    handle.remove()
    assert _claims(tmp_path) == []
