"""A user's first hour with language models (issue 11, item 8): progress bars that stay out
of logs, warnings at the caller's line, a method per model, display names and the model
identity in provenance. Tiny models from tests/scoring_fixtures.py."""

from __future__ import annotations

import io
import sys

import pytest

from tests.conftest import need_module

need_module("torch")
need_module("transformers")
pytest_plugins = ["tests.scoring_fixtures"]  # the tiny model fixtures

from acceptability import scoring  # noqa: E402


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ACCEPTABILITY_CACHE_DIR", str(tmp_path / "cache"))


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_is_quiet_off_a_terminal(gpt2_dir, sentences, capsys, monkeypatch):
    scoring.score(sentences, gpt2_dir, cache=False, batch_size=2)
    assert "\r" not in capsys.readouterr().err  # a log file gets no redraws
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    scoring.score(sentences, gpt2_dir, cache=False, batch_size=2)
    assert "\r" in terminal.getvalue() and "logprob" in terminal.getvalue()


def test_scoring_warnings_point_at_the_callers_line(gpt2_dir, sentences, monkeypatch):
    from acceptability.scoring import prepack

    monkeypatch.setattr(prepack, "_free_memory", lambda: 1024)  # too little to pack
    with pytest.warns(UserWarning, match="not packing") as caught:
        scoring.score(sentences, gpt2_dir, cache=False, device="cpu")
    assert [w.filename for w in caught if "not packing" in str(w.message)] == [__file__]
