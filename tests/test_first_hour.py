"""A user's first hour (issue 11, item 8): one default resample count, warnings that point
at the caller's line, BLiMP paradigm selection, ``Dataset.subset``, the user's own files
through the command line, display names and report sections that fit the dataset."""

from __future__ import annotations

import inspect

from acceptability.reports import analysis, cli, experiment

from acceptability import stats


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
