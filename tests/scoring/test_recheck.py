"""bfloat16 scores with float32 verdicts (scoring.run.recheck): the pairs too close to call are
rescored in float32, on real BLiMP pairs and tiny models; and the margin's bookkeeping."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring
from acceptability.reports.cli import commands as cli
from acceptability.scoring.run.recheck import FIRST, SAFETY, recheck_pairs
from tests.conftest import need_data

pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures


@pytest.fixture(scope="module")
def blimp_pairs():
    """BLiMP's 1,000 determiner-noun agreement pairs (they fit the tiny models' 64 positions)."""
    need_data("blimp")
    return data.load_blimp(paradigms=["determiner_noun_agreement_2"])


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: `make test` runs two test processes on two cores, where these tests
    with two threads each took 17x as long as alone (400 s against 23 s)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _deltas(scores: pd.DataFrame, pairs: pd.DataFrame) -> np.ndarray:
    s = scores.set_index("sentence_id")["score"]
    return s[pairs["good_id"]].to_numpy() - s[pairs["bad_id"]].to_numpy()


# Scores of one sentence vary by ~1e-6 with the batch it is scored in (float32 and bfloat16)
JITTER = 1e-5


@pytest.mark.slow  # over 30 s on 2 cores
@pytest.mark.parametrize(("fixture", "method", "must_flip"), [("gpt2_dir", "logprob", True),
                                                          ("bert_dir", "pll", False)])
def test_rechecked_bfloat16_verdicts_are_float32_verdicts(request, fixture, method, must_flip,
                                                          blimp_pairs):
    """Plain bfloat16 flips a few of the 1,000 verdicts of the tiny random GPT-2 (its pairs are
    near ties); with the recheck none flips, the rescored sentences carry their
    float32 scores and the rest keep their bfloat16 ones. The tiny BERT's 110-piece vocabulary
    reads many of these pairs as two identical sentences ([UNK] words): float32 ties, left
    out of the comparison; which of its other pairs bfloat16 flips varies with the tokenizer
    trained for each test session (its vocabulary comes out different each time)."""
    path = request.getfixturevalue(fixture)
    run = {name: scoring.score(blimp_pairs, path, method, cache=False, progress=False, **kw)
           for name, kw in (("float32", {}), ("bfloat16", {"dtype": "bfloat16"}),
                            ("recheck", {"dtype": "bfloat16", "recheck": True}))}
    delta = {name: _deltas(s, blimp_pairs.pairs) for name, s in run.items()}
    decided = np.abs(delta["float32"]) > JITTER
    verdict = {name: d[decided] > 0 for name, d in delta.items()}
    if must_flip:
        assert (verdict["bfloat16"] != verdict["float32"]).sum() >= 1
    assert (verdict["recheck"] == verdict["float32"]).all()
    report, rechecked = run["recheck"].attrs["recheck"], run["recheck"]["rechecked"]
    assert report["pairs"] == 1000 and FIRST <= report["rescored_pairs"] < 1000
    assert rechecked.sum() == report["rescored_sentences"] and report["margin"] > 0
    for name, rows in (("float32", rechecked), ("bfloat16", ~rechecked)):
        np.testing.assert_allclose(run["recheck"]["score"][rows], run[name]["score"][rows],
                                   rtol=0, atol=JITTER)
    if "perplexity" in run["float32"]:
        np.testing.assert_allclose(run["recheck"]["perplexity"][rechecked],
                                   run["float32"]["perplexity"][rechecked], rtol=1e-6)


def test_the_margin_covers_every_pair_closer_than_twice_the_largest_error_bound():
    """Brute force on made-up scores: float32 ones, bfloat16 ones off by up to 0.05, 300 pairs
    of which the 40 closest are pairs of one sentence with itself (a tie in both dtypes, as
    for two sentences that tokenize alike): their sentences' errors still set the margin."""
    rng = np.random.default_rng(0)
    ids = [f"s{i}" for i in range(600)]
    exact = pd.Series(rng.normal(-30, 3, 600), index=ids)
    bf16 = exact + rng.uniform(-0.05, 0.05, 600)
    pairs = pd.DataFrame({"good_id": ids[:300], "bad_id": ids[:40] + ids[340:]})
    asked: list[str] = []

    def rescore(some: list[str]) -> pd.Series:
        assert not set(some) & set(asked)  # nothing rescored twice
        asked.extend(some)
        return exact[some]

    report = recheck_pairs(bf16, pairs, rescore)
    delta = bf16[pairs["good_id"]].to_numpy() - bf16[pairs["bad_id"]].to_numpy()
    error = (bf16 - exact).abs()
    bound = error[pairs["good_id"]].to_numpy() + error[pairs["bad_id"]].to_numpy()
    close = np.abs(delta) < report.margin
    rescored = pairs["good_id"].isin(asked).to_numpy() & pairs["bad_id"].isin(asked).to_numpy()
    assert report.margin > 0 and rescored[close].all() and sorted(asked) == sorted(report.sentence_ids)
    assert report.rescored_pairs == max(close.sum(), FIRST)
    assert report.max_pair_error == pytest.approx(bound[np.argsort(np.abs(delta), kind="stable")
                                                        [: report.rescored_pairs]].max())
    assert report.margin == pytest.approx(SAFETY * report.max_pair_error)


def test_recheck_refuses_what_it_cannot_do(gpt2_dir, blimp_pairs):
    with pytest.raises(scoring.ScoringError, match="runs in torch.float32"):
        scoring.score(blimp_pairs, gpt2_dir, "logprob", recheck=True, cache=False)
    with pytest.raises(scoring.ScoringError, match="give a Dataset with pairs"):
        scoring.score(["A cat sat."], gpt2_dir, "logprob", dtype="bfloat16", recheck=True)


@pytest.mark.usefixtures("private_cache")
def test_cli_score_rechecks_and_says_how_many(gpt2_dir, tmp_path, capsys):
    out = tmp_path / "s.parquet"
    assert cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--dtype", "bfloat16",
                     "--recheck", "--out", str(out)]) == 0
    assert "float32 recheck:" in capsys.readouterr().err
    assert data.read_scores(out)["rechecked"].any()
    assert cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--recheck",
                     "--out", str(out)]) == 2
    assert "recheck rescores close pairs of a bfloat16 run" in capsys.readouterr().err
