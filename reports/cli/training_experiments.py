"""Training experiments, end to end: restarts of a fine-tuned acceptability classifier with
degenerate runs removed (thesis §2.2, Table 2.1, Figs 2-1/2-2), the training-order
experiment (thesis §2.3, Fig 2-3) and learning curves of small LMs trained on nested subsets
of a corpus (BLiMP §6.3, Fig 5).

Each writes its tables as CSV into its output folder as it goes, so a rerun picks up where
an interrupted one stopped: finished training runs are not redone (scoring.training) and
scores come from the score cache.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from acceptability import stats
from acceptability.data.io.atomic import write_csv, write_text
from acceptability.data.io.cells import unescape_frame
from acceptability.scoring import score
from acceptability.scoring.errors import ScoringError
from acceptability.scoring.registry import methods_of_kind
from acceptability.scoring.training.lm import claim, finetune, texts_checksum, train_lm

MAX_TRIES = 3  # restarts until N non-degenerate runs: at most 3N seeds


def classifier_predictions(model_dir: str | os.PathLike, datasets: Mapping[str, Any], *,
                           cache: Any = True, batch_size: int = 64) -> pd.DataFrame:
    """Signed confidence (thesis eq. 2.3) of a fine-tuned classifier on each dataset and its
    0/1 prediction: ``split, sentence_id, label, score, prediction``."""
    frames = []
    for split, ds in datasets.items():
        sc = score(ds, model=str(model_dir), method="classifier", cache=cache,
                   batch_size=batch_size, progress=False)
        labels = ds.sentences.set_index("sentence_id")["label"]
        frames.append(pd.DataFrame({
            "split": split, "sentence_id": sc["sentence_id"].to_numpy(),
            "label": sc["sentence_id"].map(labels).to_numpy(float),
            "score": sc["score"].to_numpy(), "prediction": (sc["score"] > 0).astype(int)}))
    return pd.concat(frames, ignore_index=True)


@dataclass
class Restarts:
    """Fine-tuning restarts: every run's ``predictions`` (``run, seed, split, sentence_id,
    label, score, prediction``), Table 2.1's ``summary`` (`stats.restart_summary`), MCC by
    analysis-set ``features`` and the ``selected`` model folder."""

    predictions: pd.DataFrame
    summary: pd.DataFrame
    features: pd.DataFrame
    selected: Path


def finetune_restarts(model: str, train: Any, evaluate: Mapping[str, Any],
                      out: str | os.PathLike, *, restarts: int = 10,
                      select_on: str = "out_of_domain_dev", until_kept: bool = False,
                      analysis: Mapping[str, Any] | None = None, first_seed: int = 0,
                      cache: Any = True, **options: Any) -> Restarts:
    """Fine-tune `model` on `train` with seeds ``first_seed, first_seed + 1, ...`` (thesis
    §2.2: 10 restarts of BERT-base, 20 of BERT-large), drop degenerate runs (constant
    predictions on `select_on`) and select the run with the highest MCC on `select_on`.

    evaluate: named labelled datasets (CoLA's ``out_of_domain_dev``/``_test``); `select_on`
    must be one. until_kept: go on with new seeds until `restarts` runs are not degenerate
    (the thesis' practice; W&B 2019 dropped them), at most 3 x `restarts` seeds.
    analysis: datasets with 0/1 feature columns (CoLA's analysis sets) for MCC by feature.
    options: [finetune][acceptability.scoring.training.finetune]'s (epochs, learning_rate, batch_size, ...).
    """
    if select_on not in evaluate:
        raise ScoringError(f"select_on={select_on!r} is not one of the evaluation splits "
                           f"{list(evaluate)}; name the split to choose the best run on")
    out = Path(out)
    datasets = {**evaluate, **(analysis or {})}
    frames: list[pd.DataFrame] = []
    kept = 0
    tries = MAX_TRIES * restarts if until_kept else restarts
    for seed in range(first_seed, first_seed + tries):
        if until_kept and kept == restarts:
            break
        run = f"seed-{seed}"
        folder = finetune(model, train, out / run, seed=seed, **options)
        pred = classifier_predictions(folder, datasets, cache=cache)
        pred.insert(0, "seed", seed)
        pred.insert(0, "run", run)
        frames.append(pred)
        kept += not bool(stats.degenerate(pred, select_on).iloc[0])
    if until_kept and kept < restarts:
        raise ScoringError(f"only {kept} of {tries} restarts were not degenerate; try "
                           "another learning rate or more epochs")
    predictions = pd.concat(frames, ignore_index=True)
    on_eval = predictions[predictions["split"].isin(list(evaluate))]
    summary = stats.restart_summary(on_eval, select_on=select_on)
    features = _features(predictions, analysis or {})
    selected = out / summary.attrs["selected_run"]
    write_csv(predictions, out / "predictions.csv", index=False)
    write_csv(summary, out / "summary.csv", index=False)
    write_csv(features, out / "features.csv", index=False)
    write_text(out / "selected.json", json.dumps({"selected": str(selected),
                                                  "select_on": select_on}))
    return Restarts(predictions, summary, features, selected)


def _features(predictions: pd.DataFrame, analysis: Mapping[str, Any]) -> pd.DataFrame:
    frames = []
    for split, ds in analysis.items():
        rows = predictions[predictions["split"] == split]
        table = stats.feature_mcc(rows, ds.sentences)
        frames.append(table.assign(split=split))
    if not frames:
        return pd.DataFrame(columns=["run", "feature", "n", "mcc", "split"])
    return pd.concat(frames, ignore_index=True)


@dataclass
class TrainingOrder:
    """The training-order experiment: per-shuffle ``predictions`` (``shuffle, sentence_id,
    label, score, prediction``), Fig 2-3's ``curve`` (`stats.flip_curve`) and
    per-sentence ``sentences`` (`stats.acrobatic_sentences`)."""

    predictions: pd.DataFrame
    curve: pd.DataFrame
    sentences: pd.DataFrame


def training_order(model: str, train: Any, test: Any, out: str | os.PathLike, *,
                   shuffles: int = 10, seed: int = 0, keep_models: bool = False,
                   cache: Any = True, **options: Any) -> TrainingOrder:
    """Thesis §2.3: fine-tune one initialisation of `model` (head and dropout seeded by
    `seed`) on `train` in `shuffles` training orders (order seeds 1..K) and predict every
    labelled sentence of `test` (LI-Adger) after each; sentences whose predicted label
    changes between consecutive shuffles are the "acrobatic" ones. Each shuffle's
    predictions are saved as it finishes (a rerun skips it); its model folder is removed
    unless `keep_models`.
    """
    out = Path(out)
    texts = [f"{t}\t{y}" for ds in (train, test) for t, y in
             zip(ds.sentences["text"], ds.sentences["label"], strict=True)]
    settings = {k: v for k, v in options.items() if k != "progress"}
    claim(out, {"model": str(model), "seed": seed, "options": settings,
                "data_sha256": texts_checksum(texts)})  # saved predictions are of this run
    done = out / "predictions"
    done.mkdir(parents=True, exist_ok=True)
    frames = []
    for k in range(1, shuffles + 1):
        path = done / f"shuffle-{k}.csv"
        if not path.is_file():
            folder = finetune(model, train, out / f"shuffle-{k}", seed=seed, order_seed=k,
                              **options)
            pred = classifier_predictions(folder, {"test": test}, cache=cache)
            write_csv(pred.drop(columns="split"), path, index=False)
            if not keep_models:
                shutil.rmtree(folder)
        saved = unescape_frame(pd.read_csv(path, dtype={"sentence_id": str}))  # write_csv's '
        frames.append(saved.assign(shuffle=k))
    predictions = pd.concat(frames, ignore_index=True)
    curve = stats.flip_curve(predictions)
    sentences = stats.acrobatic_sentences(predictions)
    write_csv(curve, out / "flips.csv", index=False)
    write_csv(sentences, out / "sentences.csv", index=False)
    return TrainingOrder(predictions, curve, sentences)


def nested_subsets(texts: Sequence[str], sizes: Sequence[int], seed: int = 0) -> list[list[str]]:
    """Nested training sets for a learning curve (BLiMP §6.3).

    The texts are shuffled once (``seed``); each set is the shortest prefix holding at
    least its size in words (whitespace tokens).

    Parameters
    ----------
    texts : sequence of str
        The corpus.
    sizes : sequence of int
        Training sizes in words.
    seed : int, default 0
        Seeds the shuffle.

    Returns
    -------
    list of list of str
        One set per size, smallest first; each contains the smaller ones.

    Raises
    ------
    ScoringError
        When a size is larger than the corpus.

    Examples
    --------
    >>> from acceptability.reports.cli.training_experiments import nested_subsets
    >>> small, large = nested_subsets(["a b", "c d e", "f", "g h"], [2, 6])
    >>> set(small) <= set(large), sum(len(t.split()) for t in large) >= 6
    (True, True)
    """
    sizes = sorted(int(s) for s in sizes)
    order = np.random.default_rng(seed).permutation(len(texts))
    shuffled = [texts[i] for i in order]
    words = np.cumsum([len(t.split()) for t in shuffled])
    if not len(words) or sizes[-1] > words[-1]:
        have = int(words[-1]) if len(words) else 0
        raise ScoringError(f"the corpus has {have} words, fewer than the largest size "
                           f"{sizes[-1]}; use smaller sizes")
    return [shuffled[: int(np.searchsorted(words, s)) + 1] for s in sizes]


def benchmark_accuracy(ds: Any, scores: pd.DataFrame) -> pd.DataFrame:
    """Accuracy per phenomenon under the BLiMP criterion (the good sentence scores higher).

    Parameters
    ----------
    ds : Dataset
        The benchmark.
    scores : pandas.DataFrame
        One model's long scores table.

    Returns
    -------
    pandas.DataFrame
        ``phenomenon, accuracy, n_pairs``.

    Examples
    --------
    >>> from acceptability.data import load_example
    >>> from acceptability.reports.cli.training_experiments import benchmark_accuracy
    >>> ds, scores = load_example()
    >>> table = benchmark_accuracy(ds, scores[scores["model"] == "bert-large-cased_mlm"])
    >>> table.columns.tolist(), len(table)
    (['phenomenon', 'accuracy', 'n_pairs'], 14)
    """
    outcomes = stats.pair_outcomes(ds, scores)
    grouped = outcomes.groupby("phenomenon", sort=True)["correct"]
    return grouped.agg(accuracy="mean", n_pairs="size").reset_index()


def learning_curve(texts: Sequence[str], sizes: Sequence[int], benchmarks: Mapping[str, Any],
                   out: str | os.PathLike, *, kind: str = "causal", replicates: int = 1,
                   save_steps: int | None = None, cache: Any = True,
                   **options: Any) -> pd.DataFrame:
    """BLiMP §6.3 on your corpus: for each replicate r (its own shuffle and seed) and size
    n, train a small `kind` LM from scratch on the first n words (nested subsets,
    `nested_subsets`), score every benchmark with it (log-probability for causal,
    PLL for masked models; also at each checkpoint when `save_steps` is set) and record
    accuracy per phenomenon.

    Returns (and writes to ``curve.csv``) ``benchmark, replicate, n_words, n_tokens, step,
    final, phenomenon, accuracy, n_pairs``; `stats.learning_slopes` on its
    final rows gives the slopes per doubling of the training data.
    options: [train_lm][acceptability.scoring.training.train_lm]'s (epochs, size, vocab_size, ...).
    """
    out = Path(out)
    method = methods_of_kind(kind)[0]  # the kind's first method: logprob, or PLL
    rows = []
    for rep in range(replicates):
        for n, subset in zip(sorted(sizes), nested_subsets(texts, sizes, seed=rep), strict=True):
            folder = train_lm(subset, out / f"replicate-{rep}" / f"words-{n}", kind=kind,
                              seed=rep, save_steps=save_steps, **options)
            record = json.loads((folder / "training.json").read_text())
            models = [(folder / "checkpoints" / c, int(c.split("-")[1]), False)
                      for c in record["checkpoints"]
                      if int(c.split("-")[1]) < record["steps"]]  # the last is the final
            models.append((folder, record["steps"], True))
            for path, step, final in models:
                for name, ds in benchmarks.items():
                    sc = score(ds, model=str(path), method=method, cache=cache, progress=False)
                    acc = benchmark_accuracy(ds, sc)
                    rows.append(acc.assign(benchmark=name, replicate=rep, n_words=n,
                                           n_tokens=record["n_tokens"], step=step, final=final))
            curve = pd.concat(rows, ignore_index=True)
            curve = curve[["benchmark", "replicate", "n_words", "n_tokens", "step", "final",
                           "phenomenon", "accuracy", "n_pairs"]]
            write_csv(curve, out / "curve.csv", index=False)
    return curve


def curve_slopes(curve: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """Per benchmark, `stats.learning_slopes` of the final models' accuracy
    on log2 of the training words (BLiMP §6.3's slopes per doubling)."""
    frames = []
    for name, part in curve[curve["final"]].groupby("benchmark", sort=False):
        fit = stats.learning_slopes(part, size="n_words", level=level)
        frames.append(fit.assign(benchmark=name))
    return pd.concat(frames, ignore_index=True)
