"""TurBLiMP's whole human study through the public loader (issue 46 item 2):
``data.load_turblimp_ratings`` (216 pairs, 6,480 ratings) with the seeded tiny GPT-2's
z-scored log-probabilities that R fitted (tests/fixtures/rating_models/latin_square.csv.gz,
``lm_z``: a predictor here, not a finding), run through norming, rater reliability with
intervals, ADC and r with the human ratings, the trial-level model with participants and
pairs as crossed random effects, and the report of it all; each number recomputed here with
numpy, the model against lme4 (benchmarks/latin_square_models.R).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from acceptability import data, reports, stats
from tests.conftest import need_data, need_module
from tests.stats.ratings.test_latin_square_model import FRAME, check_lmer

pytestmark = pytest.mark.needs_data("turblimp", "data/human_judgments/base_judgments.xlsx")
N_SPLITS = 200


@pytest.fixture(scope="module")
def study() -> tuple[data.Dataset, pd.DataFrame]:
    need_module("openpyxl")
    ds = data.load_turblimp_ratings(need_data("turblimp", "data/human_judgments/base_judgments.xlsx"))
    frame = pd.read_csv(FRAME, dtype={"sentence_id": str}).drop_duplicates("sentence_id")
    scores = pd.DataFrame({"sentence_id": frame["sentence_id"], "model": "tiny-gpt2",
                           "score": frame["lm_z"]})
    return ds, scores


def human(ds: data.Dataset) -> pd.Series:
    """Each rating z-scored within its participant (sample SD), averaged per sentence."""
    r = ds.ratings
    z = r.groupby("participant")["response"].transform(lambda x: (x - x.mean()) / x.std(ddof=1))
    return z.groupby(r["sentence_id"]).mean().reindex(ds.sentences["sentence_id"])


def test_norming_is_the_participant_z_mean(study):
    ds, _ = study
    normed = stats.with_norming(ds)
    assert normed.sentences.attrs["norming"] == "z" and normed.exclusions.empty
    np.testing.assert_allclose(normed.sentences["human"], human(ds), rtol=0, atol=1e-12)


def test_rater_reliability_with_intervals(study):
    """Split-half over participants against 2,000 random halves drawn here (Monte Carlo SE
    of the package's 200 splits: 0.001); ICC(1) and ICC(k) from the one-way ANOVA written
    out (15 ratings of each sentence); every interval holds its estimate."""
    ds, _ = study
    got = stats.rater_reliability(ds, n_splits=N_SPLITS, n_boot=200).set_index("quantity")
    wide = ds.ratings.pivot(index="sentence_id", columns="participant", values="response")
    rng, rs = np.random.default_rng(1), []
    for _ in range(2000):
        half = np.isin(np.arange(30), rng.permutation(30)[:15])
        a, b = wide.loc[:, half].mean(axis=1), wide.loc[:, ~half].mean(axis=1)
        rs.append(np.corrcoef(a, b)[0, 1])
    assert got.loc["r_half", "estimate"] == pytest.approx(np.mean(rs), abs=0.004)
    r = np.mean(rs)
    assert got.loc["reliability", "estimate"] == pytest.approx(2 * r / (1 + r), abs=0.003)
    icc = stats.rater_reliability(ds, method="icc", n_boot=200).set_index("quantity")
    y = ds.ratings.groupby("sentence_id")["response"]
    k, n = 15, y.ngroups
    msb = k * ((y.mean() - ds.ratings["response"].mean()) ** 2).sum() / (n - 1)
    msw = ((ds.ratings["response"] - y.transform("mean")) ** 2).sum() / (n * (k - 1))
    assert icc.loc["ICC(1)", "estimate"] == pytest.approx((msb - msw) / (msb + (k - 1) * msw),
                                                          rel=1e-12)
    assert icc.loc["ICC(k)", "estimate"] == pytest.approx((msb - msw) / msb, rel=1e-12)
    for table in (got, icc):
        assert (table["ci_low"] < table["estimate"]).all()
        assert (table["estimate"] < table["ci_high"]).all()


def by_hand(ds: data.Dataset, scores: pd.DataFrame) -> dict[str, float]:
    """ADC at 0.5, 1 and 5 (signs agree, |dh - dlm| < delta), r over sentences and over
    pairs, from the participant z means and the scores z-scored over the sentences."""
    h = human(ds).to_numpy()
    s = scores.set_index("sentence_id")["score"].reindex(ds.sentences["sentence_id"]).to_numpy()
    z = (s - s.mean()) / s.std()
    row = pd.Index(ds.sentences["sentence_id"])
    good, bad = row.get_indexer(ds.pairs["good_id"]), row.get_indexer(ds.pairs["bad_id"])
    dh, dlm = h[good] - h[bad], z[good] - z[bad]
    out = {f"adc_{d}": np.mean((np.sign(dh) == np.sign(dlm)) & (np.abs(dh - dlm) < d))
           for d in (0.5, 1, 5)}
    return {**out, "r_sentence": np.corrcoef(h, z)[0, 1], "r_pair": np.corrcoef(dh, dlm)[0, 1]}


def test_adc_and_r_with_the_human_ratings(study):
    ds, scores = study
    got = stats.evaluate(ds, scores).set_index("model").loc["tiny-gpt2"]
    for name, value in by_hand(ds, scores).items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    assert got["n_pairs_human"] == 216


def test_the_report_of_the_loaded_study(study, tmp_path):
    """reports.analyse and reports.build on the loader's Dataset: the pair and the rating
    sections in one report, its evaluation table's numbers those recomputed here."""
    ds, scores = study
    report = reports.build(reports.analyse(ds, scores, n_boot=100), tmp_path / "report",
                           title="TurBLiMP")
    titles = [line for line in report.markdown.read_text().splitlines() if line.startswith("## ")]
    for title in ("## BLiMP criterion and ADC", "## Human ratings: norming and reliability",
                  "## Correlations with human ratings, beside the human ceiling",
                  "## Mixed-effects judgment models"):
        assert title in titles
    table = pd.read_csv(tmp_path / "report" / "tables" / "evaluation.csv").set_index("model")
    for name, value in by_hand(ds, scores).items():
        assert table.loc["tiny-gpt2", name] == pytest.approx(value, abs=1e-12), name


def test_trial_model_with_crossed_participants_and_pairs(study):
    """The default trial-level model, participants and pairs crossed, equals lme4's fit of
    the frame R read (benchmarks/latin_square_models.R, model pair_z)."""
    ds, scores = study
    m = stats.rating_model(ds, scores)
    assert m.formula.text == ("response_z ~ condition + lm_z + (0 + condition | participant) + "
                              "(1 + condition | pair_id)")
    assert m.ngrps.to_dict() == {"participant": 30, "pair_id": 216}
    check_lmer(m, "pair_z")
