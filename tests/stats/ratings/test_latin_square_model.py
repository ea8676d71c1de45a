"""The trial-level model of a Latin-square pair experiment (issue 42): TurBLiMP's human study
as a user brings it (tests/latin_square.py: 30 participants, 216 minimal pairs in two
Latin-square lists, each participant rating one member of every pair, 6,480 Likert 1-7
ratings) with the log-probabilities of the seeded tiny GPT-2 of tests/scoring_fixtures.py
(``lm_z`` is a predictor here, not a finding).

Every R constant comes from benchmarks/latin_square_models.R
(tests/fixtures/rating_models_latin_square.csv), fitted to the frame that
benchmarks/latin_square_frame.py wrote (tests/fixtures/rating_models/latin_square.csv.gz);
the tests build that frame again and check it equal first. Tolerances as in
test_rating_model.py: lme4 1e-4 absolute (variances 1e-4 relative), ordinal 1e-4.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability import data, scoring, stats
from acceptability.reports.cli import commands as cli
from acceptability.stats.mixed import SingularFitWarning
from tests.conftest import LME4_TOL, VARIANCE_RTOL, need_data, need_module
from tests.latin_square import N_PAIRS, N_PARTICIPANTS, N_TRIALS, write_study
from tests.scoring_fixtures import make_gpt2

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
FRAME = FIXTURES / "rating_models" / "latin_square.csv.gz"
REFERENCE = FIXTURES / "rating_models_latin_square.csv"
CROSSED = "response_z ~ lm_z + (1 | participant) + (1 | item)"  # the former default
CONDITION = ("response_z ~ condition + (1 + condition | participant) + "
             "(1 + condition | pair_id)")  # docs/ratings.md's, no model score
WITH_INTERCEPT = ("response_z ~ condition + lm_z + (1 + condition | participant) + "
                  "(1 + condition | pair_id)")
RAW = "response ~ condition + lm_z + (1 + condition | participant) + (1 + condition | pair_id)"
CLMM_TOL = 1e-4
EXPERIMENT = """out = "{folder}/run"
[data]
sentences = "{folder}/sentences.csv"
pairs = "{folder}/pairs.csv"
ratings = "{folder}/ratings.csv"
scale = "likert:1-7"
columns = {{ subject = "participant" }}
[scores]
source = "{folder}/scores.csv"
[analysis]
level = "trial"
n_boot = 0
"""
LM_Z_TOL = 1e-6  # a float32 model's scores: summation order may move the last digits


def latin_square(folder: Path) -> tuple:
    """(dataset, scores): the study's three CSV files read as a user reads them, the rater
    column ``subject`` mapped to ``participant``, and the tiny GPT-2's log-probabilities."""
    need_module("openpyxl")
    files = write_study(need_data("turblimp", "data/human_judgments/base_judgments.xlsx"),
                        folder)
    ds = data.read_dataset(files["sentences"], pairs=files["pairs"], ratings=files["ratings"],
                           scale="likert:1-7", columns={"subject": "participant"})
    model = make_gpt2(folder / "gpt2", positions=512)
    return ds, scoring.score(ds, model, "logprob", cache=False)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    folder = tmp_path_factory.mktemp("latin-square-model")
    ds, scores = latin_square(folder)
    return folder, ds, scores


def reference(model: str, quantity: str) -> pd.Series:
    """R's numbers of one fit (benchmarks/latin_square_models.R), by name."""
    table = pd.read_csv(REFERENCE, keep_default_na=False)
    rows = table[(table["model"] == model) & (table["quantity"] == quantity)]
    assert len(rows), f"no {model} {quantity} in {REFERENCE}: rerun the R script"
    return pd.Series(rows["value"].astype(float).to_numpy(), index=rows["name"].to_numpy())


def quiet_fit(ds, scores, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingularFitWarning)
        return stats.rating_model(ds, scores, **kwargs)


def vcov_by_name(fit) -> pd.Series:
    """lme4's as.data.frame(VarCorr) rows named ``grp/var1/var2`` as the R script names
    them (a factor in several terms, ``g.1``, is not used here)."""
    vc = fit.VarCorr
    names = [f"{g}/{'' if pd.isna(a) else a}/{'' if pd.isna(b) else b}"
             for g, a, b in zip(vc["grp"], vc["var1"], vc["var2"], strict=True)]
    return pd.Series(vc["vcov"].to_numpy(float), index=names)


def check_lmer(m, model: str) -> None:
    """Fixed effects, SEs, Satterthwaite df, variance components, REML logLik, groups and
    singularity against lme4 (bobyqa) / lmerTest."""
    assert m.nobs == reference(model, "nobs").item() == N_TRIALS
    assert m.logLik == pytest.approx(reference(model, "logLik").item(), abs=LME4_TOL)
    assert -2 * m.logLik <= reference(model, "REMLcrit_default").item() + LME4_TOL
    assert m.ngrps.to_dict() == reference(model, "ngrps").astype(int).to_dict()
    assert bool(m.singular) == bool(reference(model, "singular").item())
    for what, ours in (("fixef", m.fixef), ("se", m.se)):
        theirs = reference(model, what)
        np.testing.assert_allclose(ours[theirs.index], theirs, rtol=0, atol=LME4_TOL,
                                   err_msg=what)
    theirs = reference(model, "df")
    np.testing.assert_allclose(m.summary().coefficients["df"][theirs.index], theirs,
                               rtol=1e-4)
    theirs = reference(model, "vcov")  # a covariance near 0 (pair_raw's 0.0097): 2.3e-6 apart
    np.testing.assert_allclose(vcov_by_name(m)[theirs.index], theirs, rtol=VARIANCE_RTOL,
                               atol=1e-5)


def test_frame_is_the_one_r_fitted(study):
    _, ds, scores = study
    ours = stats.rating_model_frame(ds, scores)
    theirs = pd.read_csv(FRAME, dtype={"participant": str, "sentence_id": str, "pair_id": str})
    assert len(ours) == len(theirs) == N_TRIALS
    for col in ("participant", "sentence_id", "pair_id", "condition"):
        assert ours[col].tolist() == theirs[col].tolist(), col
    for col in ("response", "response_z"):
        np.testing.assert_allclose(ours[col], theirs[col], rtol=1e-15, atol=0, err_msg=col)
    np.testing.assert_allclose(ours["lm_z"], theirs["lm_z"], rtol=0, atol=LM_Z_TOL)


def test_frame_of_a_latin_square_pair_experiment(study):
    """pair_id and condition from the pairs file read here; each participant rates 108 good
    and 108 bad sentences, one of each pair; response_z recomputed with numpy (ddof 1)."""
    folder, ds, scores = study
    frame = stats.rating_model_frame(ds, scores)
    pairs = pd.read_csv(folder / "pairs.csv")
    good = dict(zip(pairs["good_id"], pairs["pair_id"], strict=True))
    bad = dict(zip(pairs["bad_id"], pairs["pair_id"], strict=True))
    expected = [good.get(s, bad.get(s)) for s in frame["sentence_id"]]
    assert frame["pair_id"].tolist() == expected
    assert frame["condition"].tolist() == [0.5 if s in good else -0.5 for s in frame["sentence_id"]]
    assert (frame["condition"] == frame["label"] - 0.5).all()  # the sentences' own labels
    per = frame.groupby("participant")
    assert per.size().eq(N_PAIRS).all() and per["pair_id"].nunique().eq(N_PAIRS).all()
    assert per["condition"].sum().eq(0).all() and frame["participant"].nunique() == N_PARTICIPANTS
    for _, rows in per:
        r = rows["response"].to_numpy(float)
        np.testing.assert_allclose(rows["response_z"], (r - r.mean()) / r.std(ddof=1),
                                   rtol=1e-12)
    assert frame.attrs["exclusions"].empty


def test_a_participant_intercept_on_z_scores_is_zero(study):
    """Each participant's z-scores have mean 0 (to 1e-15 here), so their means vary less than
    the residual alone would make them: the participant intercept's variance is 0, ours and
    lme4's (1e-9), in the former default and in the maximal models; the default has none."""
    _, ds, scores = study
    frame = stats.rating_model_frame(ds, scores)
    assert frame.groupby("participant")["response_z"].mean().abs().max() < 1e-15
    for name, formula in (("crossed_z", CROSSED), ("pair_z_intercept", WITH_INTERCEPT),
                          ("condition_z", CONDITION)):
        with pytest.warns(SingularFitWarning):
            m = stats.rating_model(ds, scores, formula=formula)
        assert vcov_by_name(m)["participant/(Intercept)/"] == 0 and m.singular
        assert reference(name, "singular").item() == 1
        assert reference(name, "vcov")["participant/(Intercept)/"] < 1e-8
        check_lmer(m, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SingularFitWarning)  # the default is not singular
        m = stats.rating_model(ds, scores)
    assert m.formula.text == stats.RATING_PAIR_FORMULA and not m.singular


def test_pair_default_matches_lme4(study):
    _, ds, scores = study
    m = stats.rating_model(ds, scores)
    assert m.formula.text == stats.RATING_PAIR_FORMULA == (
        "response_z ~ condition + lm_z + (0 + condition | participant) + "
        "(1 + condition | pair_id)")
    check_lmer(m, "pair_z")
    assert "each rating z-scored within its participant" in m.summary()


def test_raw_ratings_with_participant_intercepts_match_lme4(study):
    _, ds, scores = study
    check_lmer(quiet_fit(ds, scores, formula=RAW), "pair_raw")


def test_pair_clmm_default_matches_ordinal(study):
    _, ds, scores = study
    m = stats.rating_model(ds, scores, engine="clmm")
    assert m.formula.text == stats.RATING_PAIR_CLMM_FORMULA
    assert m.nobs == reference("pair_clmm", "nobs").item()
    assert m.logLik == pytest.approx(reference("pair_clmm", "logLik").item(), abs=2 * CLMM_TOL)
    se = pd.Series(np.sqrt(np.diag(m.vcov)), index=m.vcov.index)
    for what, ours in (("coef", m.coef), ("se", se), ("ST", m.ST)):
        theirs = reference("pair_clmm", what)
        np.testing.assert_allclose(ours[theirs.index], theirs, rtol=0, atol=CLMM_TOL,
                                   err_msg=what)


def test_ratings_of_sentences_in_no_pair_are_set_aside_and_counted(study):
    """A pair left out of the pairs table: its two sentences are fillers; their 30 ratings
    still count in their raters' z-scores, then are set aside, counted and noted."""
    _, ds, scores = study
    first = ds.pairs["pair_id"].iloc[0]
    fewer = data.from_frames(ds.sentences.drop(columns="human", errors="ignore"),
                             pairs=ds.pairs[ds.pairs["pair_id"] != first],
                             ratings=ds.ratings, scale="likert:1-7")
    full = stats.rating_model_frame(ds, scores)
    lost = full["pair_id"] == first
    frame = stats.rating_model_frame(fewer, scores)
    assert frame["pair_id"].isna().sum() == lost.sum() == N_TRIALS // N_PAIRS
    np.testing.assert_array_equal(frame["response_z"], full["response_z"])
    m = stats.rating_model(fewer, scores)
    assert m.formula.text == stats.RATING_PAIR_FORMULA and m.nobs == N_TRIALS - lost.sum()
    assert ("set aside: 30 ratings, rating without condition or pair_id (its sentence is in "
            "no pair, or in several)") in m.summary()


def run_cli(args: list) -> int:
    try:
        return cli.main([str(a) for a in args])
    except SystemExit as exit_:  # argparse usage errors
        return int(exit_.code or 0)


def files_args(folder: Path) -> list:
    return ["--sentences", folder / "sentences.csv", "--pairs", folder / "pairs.csv",
            "--ratings", folder / "ratings.csv", "--scale", "likert:1-7",
            "--column", "subject=participant", "--scores", folder / "scores.csv"]


def python_table(ds, scores, formula: str | None = None) -> pd.DataFrame:
    """Each engine's coefficients by ``stats.rating_model`` (lmer alone with a formula)."""
    rows = []
    for engine in ("lmer", "clmm") if formula is None else ("lmer",):
        m = stats.rating_model(ds, scores, engine=engine, formula=formula)
        est = m.fixef if engine == "lmer" else m.coef
        rows.append(pd.DataFrame({"engine": engine, "term": est.index,
                                  "estimate": est.to_numpy(),
                                  "se": m.se.loc[est.index].to_numpy()}))
    return pd.concat(rows, ignore_index=True)


def same_numbers(table: pd.DataFrame, ours: pd.DataFrame) -> None:
    assert table[["engine", "term"]].values.tolist() == ours[["engine", "term"]].values.tolist()
    np.testing.assert_allclose(table[["estimate", "se"]], ours[["estimate", "se"]],
                               rtol=1e-12, atol=1e-12)


def test_python_command_line_and_experiment_file_fit_the_same_models(study, capsys):
    """``stats.rating_model``, ``acceptability fit --level trial`` (and with a formula of
    trial columns, which failed with "unknown column 'response_z'"), ``acceptability run``
    from an experiment file with ``level = "trial"`` and ``acceptability report --level
    trial``, with the report's own tables: the same numbers."""
    folder, ds, scores = study
    scores.to_csv(folder / "scores.csv", index=False)
    assert run_cli(["fit", *files_args(folder), "--level", "trial",
                    "--out", folder / "fit.csv"]) == 0
    same_numbers(pd.read_csv(folder / "fit.csv"), python_table(ds, scores))
    formula = "response_z ~ condition + lm_z + (0 + condition | participant) + (1 | pair_id)"
    assert run_cli(["fit", *files_args(folder), "--formula", formula,
                    "--out", folder / "formula.csv"]) == 0
    same_numbers(pd.read_csv(folder / "formula.csv"), python_table(ds, scores, formula))
    toml = folder / "experiment.toml"
    toml.write_text(EXPERIMENT.format(folder=folder.as_posix()))
    assert run_cli(["run", "--config", toml]) == 0
    same_numbers(pd.read_csv(folder / "run" / "fits.csv"), python_table(ds, scores))
    assert run_cli(["report", *files_args(folder), "--level", "trial", "--n-boot", 0,
                    "--out", folder / "report"]) == 0
    for report in (folder / "run", folder / "report"):  # the report's own table
        table = pd.read_csv(report / "tables" / "fits.csv")
        engine = table["fit"].map({"normed ratings (lmer)": "lmer",
                                   "raw ordinal ratings (clmm)": "clmm"})
        same_numbers(table.assign(engine=engine), python_table(ds, scores))
        text = (report / "report.md").read_text()
        assert stats.RATING_PAIR_FORMULA in text
        assert "condition = +0.5 for a pair's good sentence, -0.5 for its bad one" in text
    capsys.readouterr()


def test_level_and_formula_say_what_is_wrong(study, capsys):
    folder, ds, scores = study
    scores.to_csv(folder / "scores.csv", index=False)
    assert run_cli(["fit", *files_args(folder), "--level", "trial",
                    "--formula", "human ~ score + (1 | phenomenon)"]) == 2
    assert "does not fit the trial level" in capsys.readouterr().err
    assert run_cli(["fit", *files_args(folder), "--formula",
                    "response_z ~ conditon + (1 | pair_id)"]) == 2
    err = capsys.readouterr().err
    assert "unknown column 'conditon'" in err and "condition" in err
    sentences_only = ["--sentences", folder / "sentences.csv", "--scores", folder / "scores.csv"]
    assert run_cli(["fit", *sentences_only, "--level", "trial"]) == 2
    assert "fits trial-level ratings" in capsys.readouterr().err


def test_the_level_of_an_experiment_file():
    """``[analysis] level``: "trial" turns formula "auto" into the trial-level defaults,
    "sentence" into the sentence-level default; a formula of the other level, no formula
    or an unknown level is refused with the fix."""
    from acceptability.data.errors import DataError
    from acceptability.reports.analysis import DEFAULT_FORMULA
    from acceptability.reports.cli.choices import LEVELS
    from acceptability.reports.cli.experiment import Experiment
    from acceptability.reports.ratings.fits import LEVELS as LEVELS_CHECKED

    assert LEVELS == LEVELS_CHECKED  # --level offers what the experiment file takes

    assert Experiment(level="trial").formula == "trial-level"
    assert Experiment(level="sentence").formula == DEFAULT_FORMULA
    given = "response_z ~ condition + (1 | pair_id)"
    assert Experiment(level="trial", formula=given).formula == given
    assert Experiment(formula=given).formula == given  # the response says the level
    for bad, says in ((dict(level="trial", formula=""), "formula is ''"),
                      (dict(level="sentence", formula=given), "does not fit the sentence level"),
                      (dict(level="pair"), "unknown level 'pair'")):
        with pytest.raises(DataError, match=says):
            Experiment(**bad)


def test_a_ratings_column_named_as_a_frame_column_is_kept_under_another_name(study):
    """A ratings file's own ``condition`` (here the Latin-square list each trial came
    from, read off its sentence id) is not overwritten: it is ``rating_condition``."""
    _, ds, scores = study
    lists = ds.ratings["sentence_id"].str[:2]
    frame = stats.rating_model_frame(ds, scores, ratings=ds.ratings.assign(condition=lists))
    assert frame["rating_condition"].tolist() == frame["sentence_id"].str[:2].tolist()
    assert set(frame["condition"]) == {0.5, -0.5}
