"""A user's first hour (issue 11, item 8): one default resample count, warnings that point
at the caller's line, BLiMP paradigm selection, ``Dataset.subset``, the user's own files
through the command line, display names and report sections that fit the dataset."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from acceptability.reports import analysis, cli, experiment

from acceptability import data, stats


def test_one_default_resample_count():
    n = stats.DEFAULT_N_BOOT
    assert inspect.signature(stats.bootstrap).parameters["n"].default == n
    assert inspect.signature(stats.compare_all).parameters["n"].default == n
    assert inspect.signature(stats.evaluate).parameters["n_boot"].default == n
    assert inspect.signature(analysis.analyse).parameters["n_boot"].default == n
    assert experiment.Experiment().n_boot == n
    for command in ("evaluate", "report", "run"):
        args = cli.parser().parse_args([command, "--dataset", "example"])
        args.argv = []
        assert cli._experiment(args).n_boot == n, command
    assert cli.parser().parse_args(["demo"]).n_boot == n
    assert experiment.from_toml("examples/experiment.toml").n_boot == n


def no_group_effect() -> tuple[object, pd.DataFrame]:
    """60 sentences in 6 phenomena whose human judgments have no phenomenon effect at all
    (residuals centred within each phenomenon): a random intercept fits at the boundary."""
    rng = np.random.default_rng(0)
    group = np.repeat([f"p{i}" for i in range(6)], 10)
    score = rng.normal(size=60)
    noise = rng.normal(size=60)
    noise -= pd.Series(noise).groupby(group).transform("mean").to_numpy()
    ids = [f"s{i}" for i in range(60)]
    z = (score - score.mean()) / score.std(ddof=1)
    sentences = pd.DataFrame({"sentence_id": ids, "text": ids, "phenomenon": group,
                              "human": z + noise})
    ds = data.from_frames(sentences, pd.DataFrame())
    return ds, pd.DataFrame({"sentence_id": ids, "model": "m", "score": score})


def test_warnings_point_at_the_callers_line():
    ds, sc = no_group_effect()
    frame = stats.sentence_model_frame(ds, sc, model="m")
    with pytest.warns(stats.SingularFitWarning) as caught:
        stats.lmer("human ~ score + (1 | phenomenon)", frame)
    assert {w.filename for w in caught} == {__file__}
    with pytest.warns(stats.SingularFitWarning) as caught:  # three calls deeper
        stats.sentence_model(ds, sc, model="m", formula="human ~ score + (1 | phenomenon)")
    assert {w.filename for w in caught} == {__file__}
