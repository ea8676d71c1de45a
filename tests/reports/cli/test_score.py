"""``acceptability score`` and ``run`` with a model to score: a tiny GPT-2 built from a
config (tests/scoring_fixtures.py), loaded through ``from_pretrained`` as users do."""

from __future__ import annotations

import pytest

from tests.conftest import need_module

need_module("torch")
need_module("transformers")
pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

from acceptability import data  # noqa: E402
from acceptability.reports.cli import commands as cli  # noqa: E402

pytestmark = pytest.mark.usefixtures("private_cache")  # conftest: a cache per test


def test_score_writes_a_scores_file(gpt2_dir, tmp_path, capsys):
    out = tmp_path / "gpt2.parquet"
    assert cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--out",
                     str(out)]) == 0
    ds, _ = data.load_example()
    scores = data.read_scores(out, ds)
    assert len(scores) == len(ds.sentences) and set(scores["method"]) == {"logprob"}


def test_run_scores_then_reports(gpt2_dir, tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["run", "--dataset", "example", "--model", gpt2_dir, "--n-boot", "0",
                     "--formula", "", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "[1/4] score: scores for published example (scoring" in err
    html = (out / "report.html").read_text()
    assert "scored with scoring.score" in html and "logprob" in html


def test_an_unknown_out_suffix_fails_before_scoring(tmp_path, capsys, monkeypatch):
    from acceptability.reports.cli import experiment

    monkeypatch.setattr(experiment, "score_models", lambda *a, **k: pytest.fail("scored"))
    assert cli.main(["score", "--dataset", "example", "--model", "gpt2", "--out",
                     str(tmp_path / "scores.txt")]) == 2
    err = capsys.readouterr().err
    assert "unknown file type '.txt'" in err and len(err.strip().splitlines()) == 1


def test_score_in_bfloat16(gpt2_dir, tmp_path, capsys):
    ds, _ = data.load_example()
    got = {}
    for dtype in ("float32", "bfloat16"):
        out = tmp_path / f"{dtype}.parquet"
        assert cli.main(["score", "--dataset", "example", "--model", gpt2_dir, "--dtype", dtype,
                         "--out", str(out)]) == 0
        got[dtype] = data.read_scores(out, ds).set_index("sentence_id")["score"]
    diff = (got["float32"] - got["bfloat16"]).abs()
    assert 0 < diff.max() < 0.5  # bfloat16 products, not the float32 scores from the cache


def test_run_records_the_dtype_and_refuses_an_unknown_one(gpt2_dir, tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main(["run", "--dataset", "example", "--model", gpt2_dir, "--dtype", "bfloat16",
                     "--n-boot", "0", "--formula", "", "--out", str(out)]) == 0
    assert "bfloat16" in (out / "report.html").read_text()
    config = tmp_path / "x.toml"
    config.write_text(f'[scores]\nsource = "score"\nmodels = ["{gpt2_dir}"]\ndtype = "float16"\n')
    assert cli.main(["run", "--config", str(config), "--out", str(tmp_path / "bad")]) == 2
    err = capsys.readouterr().err
    assert "unknown dtype 'float16'" in err and "float32" in err
