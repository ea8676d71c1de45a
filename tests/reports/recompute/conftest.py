"""Runs of the real pipeline that the guard's modules recompute: the command line, in this
process, on LI-Adger with its published scores, on BLiMP and Zorro slices of three
paradigms, and on Lau et al.'s (2020) sentences without pairs (``score`` then ``report``).
Each runs once per test session, shared by xdist's workers (:func:`once`). Two tiny
models built here (tests/scoring_fixtures) score BLiMP and Lau's sentences."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.conftest import need_data, need_module

N_BOOT = 1000  # the package's resamples in these runs (intervals are checked against ours)
OUR_BOOT = 2000  # our resamples
OUR_SEED = 20261125  # our draws, independent of the package's seed 0
LI_ADGER_MODELS = ("bert-large-cased_acc", "bert-large-cased_mlm", "trigram_slor")
BLIMP_PARADIGMS = ("regular_plural_subject_verb_agreement_1",
                   "distractor_agreement_relative_clause", "distractor_agreement_relational_noun")
ZORRO_PARADIGMS = ("agreement_subject_verb-across_prepositional_phrase",
                   "agreement_subject_verb-across_relative_clause",
                   "filler-gap-wh_question_object")
BLIMP_PAIRS = 200  # --max-pairs: the first pairs of each paradigm (BLiMP's human pairs 0-4)
ZORRO_PAIRS = 300
MAX_POSITIONS = 512  # the tiny models' tokenizer splits BLiMP sentences into many pieces


def cli(*args: str) -> str:
    """``acceptability ARGS`` in this process; its stderr (the run fails on exit status)."""
    from acceptability.reports.cli import commands as command

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = command.main(list(args))
    assert code == 0, err.getvalue()
    return err.getvalue()


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Score with one torch thread: two threads of tiny models on a loaded 2-core machine
    spend their time waiting for each other (20x slower here)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """``build(folder)`` once per test session, also when xdist's workers share it (they
    share the parent of their temporary folders: a file lock there), with a score cache
    (and run key) of its own; the folder it built."""
    filelock = need_module("filelock")
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    folder = base / f"guard-{name}"
    with filelock.FileLock(f"{folder}.lock"):
        if not (folder / ".built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            with pytest.MonkeyPatch.context() as mp:
                mp.setenv("ACCEPTABILITY_CACHE_DIR", str(folder / "cache"))
                build(folder)
            (folder / ".built").touch()
    return folder


def tiny(tmp_path_factory, folder: str, positions: int, **kinds: str) -> dict[str, str]:
    """Tiny models as local folders by name, each made by ``scoring_fixtures.make_<kind>``
    with ``positions`` positions."""
    need_module("torch")
    need_module("transformers")
    from tests import scoring_fixtures

    root = tmp_path_factory.mktemp(folder)
    return {name: getattr(scoring_fixtures, f"make_{kind}")(root / name, positions=positions)
            for name, kind in kinds.items()}


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory) -> dict[str, str]:
    """A tiny GPT-2 (logprob) and a tiny BERT classifier, as local model folders."""
    return tiny(tmp_path_factory, "guard-models", MAX_POSITIONS, gpt2="gpt2", cls="classifier")


@pytest.fixture(scope="module")
def li_adger_report(tmp_path_factory) -> Path:
    """``run`` on LI-Adger with three of the published models."""
    need_data("li-adger")
    models = [a for m in LI_ADGER_MODELS for a in ("--model", m)]
    return once(tmp_path_factory, "li-adger", lambda out: cli(
        "run", "--dataset", "li-adger", "--scores", "published", *models,
        "--n-boot", str(N_BOOT), "--out", str(out)))


@pytest.fixture(scope="module")
def blimp_report(tmp_path_factory, tiny_models) -> Path:
    """``run`` on three BLiMP paradigms' first pairs, scoring with the two tiny models."""
    need_data("blimp", "raw_results/human_responses.csv")
    paradigms = [a for p in BLIMP_PARADIGMS for a in ("--paradigm", p)]

    def build(out: Path) -> None:
        with one_thread():
            cli("run", "--dataset", "blimp", *paradigms, "--max-pairs", str(BLIMP_PAIRS),
                "--model", f"{tiny_models['gpt2']}:logprob",
                "--model", f"{tiny_models['cls']}:classifier",
                "--n-boot", str(N_BOOT), "--out", str(out))
    return once(tmp_path_factory, "blimp", build)


@pytest.fixture(scope="module")
def zorro_report(tmp_path_factory) -> Path:
    """``run`` on three Zorro paradigms' first pairs with RoBERTa-base's published scores."""
    need_data("zorro")
    paradigms = [a for p in ZORRO_PARADIGMS for a in ("--paradigm", p)]
    return once(tmp_path_factory, "zorro", lambda out: cli(
        "run", "--dataset", "zorro", *paradigms, "--max-pairs", str(ZORRO_PAIRS),
        "--scores", "published", "--n-boot", str(N_BOOT), "--out", str(out)))


def lau_sentences(folder: Path) -> Path:
    """Lau et al.'s 250 sentences without context as a sentences file: ``human`` is their
    mean rating (1-4) z-scored over the sentences (population SD)."""
    ratings = pd.read_csv(need_data("lau2020", "context-none-ratings.csv")
                          / "context-none-ratings.csv")
    mean = ratings["mean-ratings"].to_numpy(float)
    path = folder / "lau2020.csv"
    pd.DataFrame({"sentence_id": "lau" + ratings["ID"].astype(str), "text": ratings["sentence"],
                  "human": (mean - mean.mean()) / mean.std(ddof=0)}).to_csv(path, index=False)
    assert np.isfinite(mean).all() and len(ratings) == 250
    return path


@pytest.fixture(scope="module")
def lau_report(tmp_path_factory, tiny_models) -> Path:
    """``score`` then ``report`` on Lau's sentences, with the two tiny models; the report's
    folder (the sentences and scores files beside it)."""

    def build(folder: Path) -> None:
        sentences = lau_sentences(folder)
        scores = folder / "scores.parquet"
        with one_thread():
            cli("score", "--sentences", str(sentences),
                "--model", f"{tiny_models['gpt2']}:logprob",
                "--model", f"{tiny_models['cls']}:classifier", "--out", str(scores))
        cli("report", "--sentences", str(sentences), "--scores", str(scores),
            "--n-boot", str(N_BOOT), "--out", str(folder / "report"))
    return once(tmp_path_factory, "lau2020", build) / "report"


CONTEXT_POSITIONS = 2048  # Lau et al.'s paragraphs and sentence: up to ~1,000 tiny-BPE tokens
LAU_MASKED = 10  # --max-sentences of the masked model's run (PLL in context: ~0.5 s each)


@pytest.fixture(scope="session")
def context_models(tmp_path_factory) -> dict[str, str]:
    """A tiny GPT-2 and a tiny BERT that take a paragraph of context before a sentence."""
    return tiny(tmp_path_factory, "guard-context-models", CONTEXT_POSITIONS, gpt2="gpt2",
                bert="bert")


@pytest.fixture(scope="module", params=["causal", "masked"])
def lau_ratings_report(request, tmp_path_factory, context_models) -> Path:
    """``run --dataset lau2020``: its 250 sentences in three context conditions, each
    scored in its context; "causal": all of them with the tiny GPT-2, "masked": the first
    ``LAU_MASKED`` of each condition with the tiny BERT (PLL, the context unmasked) and
    the tiny GPT-2."""
    need_data("lau2020", "context-real-ratings.csv")
    models = ["--model", f"{context_models['gpt2']}:logprob"]
    head = []
    if request.param == "masked":
        models = ["--model", f"{context_models['bert']}:pll", *models]
        head = ["--max-sentences", str(LAU_MASKED)]

    def build(out: Path) -> None:
        with one_thread():
            cli("run", "--dataset", "lau2020", *head, *models, "--n-boot", str(N_BOOT),
                "--out", str(out))
    return once(tmp_path_factory, f"lau2020-ratings-{request.param}", build)


MEGA_SENTENCES = 300  # --max-sentences: the first 6 lists of 50 sentences, 5 raters each


@pytest.fixture(scope="module")
def mega_report(tmp_path_factory, tiny_models) -> Path:
    """``run --dataset megaacceptability --max-sentences 300`` scored by the tiny GPT-2
    (logprob) and the tiny BERT classifier."""
    need_data("megaacceptability", "mega-acceptability-v1.zip")

    def build(out: Path) -> None:
        with one_thread():
            cli("run", "--dataset", "megaacceptability", "--max-sentences",
                str(MEGA_SENTENCES), "--model", f"{tiny_models['gpt2']}:logprob",
                "--model", f"{tiny_models['cls']}:classifier", "--n-boot", str(N_BOOT),
                "--out", str(out))
    return once(tmp_path_factory, "megaacceptability", build)
