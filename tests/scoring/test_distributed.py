"""Scoring split over two Dask worker processes equals one process, also when a worker dies."""

from __future__ import annotations

import pytest
import torch
from distributed import Client, LocalCluster

from acceptability import scoring
from acceptability.scoring.backends import masked
from acceptability.scoring.run import distributed
from acceptability.scoring.run.batches import length_sorted_batches

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

NOUNS = ["cat", "dog", "teacher", "children", "keys", "ideas", "students", "party"]
VERBS = ["sat on the mat", "chase cats", "wonder whether it rained", "are on the table", "sleep"]


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [f"The {n} {v}." for n in NOUNS for v in VERBS]  # 40 sentences, 5 to 9 words


@pytest.fixture(scope="module")
def client():
    def one_thread():  # the same threads as the reference run, so the same float sums
        import torch

        torch.set_num_threads(1)

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        client.run(one_thread)
        yield client


@pytest.fixture
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_two_workers_equal_one_process(client, gpt2_dir, texts, tmp_path, monkeypatch, one_thread):
    monkeypatch.setattr(distributed, "SHARD_SENTENCES", 8)  # 5 shards of 4 batches of 2
    alone = scoring.score(texts, gpt2_dir, "logprob", batch_size=2, cache=False, progress=False)
    split = scoring.score(texts, gpt2_dir, "logprob", batch_size=2, cache=tmp_path, progress=False,
                          client=client)
    assert split.equals(alone)
    assert len(scoring.ScoreCache(tmp_path)) == len(texts)
    words = scoring.token_scores(texts, gpt2_dir, "logprob", level="word", batch_size=2, cache=False,
                                 progress=False, client=client)
    assert words.equals(scoring.token_scores(texts, gpt2_dir, "logprob", level="word", batch_size=2,
                                             cache=False, progress=False))


def test_a_killed_workers_shard_is_redone(client, bert_dir, texts, tmp_path, monkeypatch, one_thread):
    """One worker dies on its second shard; its shard runs again elsewhere, finished ones do not."""
    monkeypatch.setattr(distributed, "SHARD_SENTENCES", 4)  # shards of whole batches, <= 4 sentences
    # PLL batches on the CPU fill passes of this many tokens: 1-3 of these sentences each; the
    # driver groups them, so the workers score the same batches whatever their own setting
    monkeypatch.setattr(masked, "CPU_TOKENS_PER_PASS", 600)

    def die_on_second_shard():
        import os

        from acceptability.scoring.run import distributed as d

        original, calls = d.score_shard, []

        def dying(*args, **kwargs):
            calls.append(1)
            if len(calls) == 2:
                os._exit(1)
            return original(*args, **kwargs)

        d.score_shard = dying

    doomed = sorted(client.scheduler_info()["workers"])[0]
    client.run(die_on_second_shard, workers=[doomed])
    alone = scoring.score(texts, bert_dir, "pll", batch_size=2, cache=False, progress=False)
    split = scoring.score(texts, bert_dir, "pll", batch_size=2, cache=tmp_path, progress=False,
                          client=client)
    assert doomed not in client.scheduler_info()["workers"]  # it did die midway
    assert split.equals(alone)
    assert len(scoring.ScoreCache(tmp_path)) == len(texts)


def test_shards_are_whole_batches_in_scoring_order(texts):
    batches = length_sorted_batches([len(t.split()) for t in texts], 3)
    parts = distributed.shards(batches, shard_size=7)
    assert sum(parts, []) == batches  # every batch once, whole, in single-process order
    assert all(len(p) == 2 for p in parts[:-1])  # 7 sentences round down to 2 batches of 3
    assert distributed.shards([[0, 1, 2]], shard_size=2) == [[[0, 1, 2]]]  # a batch is never cut


def test_a_client_needs_a_model_that_workers_can_load():
    with pytest.raises(scoring.ScoringError, match="needs a model id or folder"):
        distributed.worker_spec(scoring.ScoringOptions(model=object(), method="logprob"))


def _raise_causal_version(by: int) -> None:
    """On a worker: its causal backend's SCORER_VERSION raised `by`, its scorers rebuilt."""
    from acceptability.scoring.backends import causal
    from acceptability.scoring.run import distributed as d

    causal.SCORER_VERSION += by
    d._WORKER_SCORERS.clear()


def test_a_worker_running_other_scoring_code_refuses(client, gpt2_dir, texts, tmp_path):
    """Its scores would be cached under the driver's scorer version (issue 43 item 5)."""
    # every worker up first: the killed worker of the test before restarts in the background,
    # and one that joins after client.run would run the driver's version (a flake in the suite)
    client.wait_for_workers(2)
    client.run(_raise_causal_version, 1)
    try:
        with pytest.raises(scoring.ScoringError, match="scoring code is another version than the "
                                                       "driver's .*backends.causal=2"):
            scoring.score(texts[:4], gpt2_dir, "logprob", cache=tmp_path, progress=False,
                          client=client)
    finally:
        client.run(_raise_causal_version, -1)
    assert len(scoring.ScoreCache(tmp_path)) == 0
