"""``summary()`` and ``VarCorr`` of every model of the lme4 reference set against lme4's own
print (issue 28): tests/fixtures/lme4_summaries.txt is lme4's printed ``summary(m)`` of each model
that benchmarks/lme4_reference.R describes, written by that script; tests/fixtures/lme4_reference.csv
holds the same models' ``as.data.frame(VarCorr(m))`` rows in lme4's order. A factor in
several terms, as in ``(Days || Subject)``, is labelled ``Subject``, ``Subject.1`` there.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import pytest

from acceptability import stats
from acceptability.stats.ratings.judgment import (
    SENTENCE_FORMULA,
    pair_model_frame,
    sentence_model_frame,
)
from tests.conftest import REPO, lme4_reference
from tests.lme4_data import lme4_data
from tests.stats.mixed.test_lmer import nested_frame

SUMMARIES = REPO / "tests" / "fixtures" / "lme4_summaries.txt"
# lme4 names the nested factor of g/h "h:g"; we keep the formula's order, "g:h"
NESTED = {"h:g": "g:h", "cask:batch": "batch:cask"}
CBPP = "cbind(incidence, size - incidence) ~ period + (1 | herd)"
FC_GF = "chose_good ~ dlm + good_first + (1 | participant) + (1 | pair_id) + (1 | paradigm)"
# prefix in the reference files: (fit, formula, frame, options), as lme4_reference.R fits it
MODELS: dict[str, tuple[Callable, str, str, dict]] = {
    "sentence|REML|": (stats.lmer, SENTENCE_FORMULA, "sentence", {}),
    "sentence|ML|": (stats.lmer, SENTENCE_FORMULA, "sentence", {"REML": False}),
    "pair|REML|": (stats.lmer, "dh ~ dlm + (1 | phenomenon)", "pair", {}),
    "nested_gh|REML|": (stats.lmer, "y ~ x + (1 | g/h)", "nested", {}),
    "nested_uncorr|REML|": (stats.lmer, "y ~ x + (1 + x || g) + (1 | g:h)", "nested", {}),
    "nested_g|REML|": (stats.lmer, "y ~ x + (1 | g)", "nested", {}),
    "sleepstudy|corr|": (stats.lmer, "Reaction ~ Days + (Days | Subject)", "sleepstudy", {}),
    "sleepstudy|uncorr|": (stats.lmer, "Reaction ~ Days + (Days || Subject)", "sleepstudy", {}),
    "sleepstudy|nointercept|": (
        stats.lmer, "Reaction ~ Days + (1 | Subject) + (0 + Days | Subject)", "sleepstudy", {}),
    "penicillin|": (stats.lmer, "diameter ~ 1 + (1 | plate) + (1 | sample)", "penicillin", {}),
    "pastes|": (stats.lmer, "strength ~ 1 + (1 | batch/cask)", "pastes", {}),
    "insteval|": (stats.lmer, "y ~ service + (1 | s) + (1 | d)", "insteval", {}),
    "cbpp|laplace|": (stats.glmer, CBPP, "cbpp", {}),
    "cbpp|agq9|": (stats.glmer, CBPP, "cbpp", {"nAGQ": 9}),
    "cbpp|poisson|": (stats.glmer, "incidence ~ period + (1 | herd)", "cbpp", {"family": "poisson"}),
    "fc|laplace|": (stats.glmer, stats.FC_FORMULA, "fc", {}),
    "fc_gf|laplace|": (stats.glmer, FC_GF, "fc", {}),
}


def lme4_summaries() -> dict[str, list[str]]:
    """lme4's printed summary of each model, by prefix (the lines after ``=== PREFIX``)."""
    out: dict[str, list[str]] = {}
    for line in SUMMARIES.read_text(encoding="utf-8").splitlines():
        if line.startswith("=== "):
            out[line[4:]] = []
        elif out:
            out[next(reversed(out))].append(line)
    return out


def random_effects(text: list[str]) -> tuple[list[tuple[str, str]], list[list[float]], str]:
    """The random-effects block of a printed summary (lme4's or ours): (Groups, Name) of each
    row, its numbers (Variance, Std.Dev., correlations) and the ``Number of obs`` line."""
    start = text.index("Random effects:") + 1
    end = next(i for i in range(start, len(text)) if text[i].startswith("Number of obs"))
    header = text[start]
    name_at, numbers_at = header.index("Name"), header.index("Variance")
    rows = [(r[:name_at].strip(), r[name_at:numbers_at].strip()) for r in text[start + 1:end]]
    numbers = [[float(v) for v in r[numbers_at:].split()] for r in text[start + 1:end]]
    return rows, numbers, text[end]


def fit(prefix: str, request: pytest.FixtureRequest):
    how, formula, frame, options = MODELS[prefix]
    if frame in ("sentence", "pair"):
        build = sentence_model_frame if frame == "sentence" else pair_model_frame
        ds, scores = request.getfixturevalue("li_adger"), request.getfixturevalue("li_adger_scores")
        data = build(ds, scores, model="bert-large-cased_mlm")  # as benchmarks/lme4_frames.py
    elif frame == "fc":
        data = request.getfixturevalue("blimp_fc_frame")
    else:
        data = nested_frame() if frame == "nested" else lme4_data(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # singular fits: their note is part of the summary
        return how(formula, data, **options)


def test_every_reference_model_is_here():
    assert list(MODELS) == list(lme4_summaries())


@pytest.mark.parametrize("prefix", list(MODELS))
def test_summary_and_varcorr_match_lme4(prefix, request):
    m = fit(prefix, request)
    # the random-effects block of summary(): rows, standard deviations, correlations
    rows, numbers, counts = random_effects(str(m.summary()).splitlines())
    lme4_rows, lme4_numbers, lme4_counts = random_effects(lme4_summaries()[prefix])
    assert rows == [(NESTED.get(g, g), name) for g, name in lme4_rows]
    for ours, lme4 in zip(numbers, lme4_numbers, strict=True):
        assert len(ours) == len(lme4)
        assert ours[:2] == pytest.approx(lme4[:2], rel=1e-3, abs=1e-4)  # lme4 prints 4 digits
        assert ours[2:] == pytest.approx(lme4[2:], abs=0.01)  # correlations, 2 decimals
    for alias, ours_name in NESTED.items():
        lme4_counts = lme4_counts.replace(f" {alias},", f" {ours_name},")
    assert counts == lme4_counts
    # VarCorr: lme4's rows, in lme4's order and with its labels (Subject, Subject.1, g.h)
    keys = [k.split("|")[1:] for k in lme4_reference(prefix) if k.startswith("vcov|")]
    theirs = [(NESTED.get(g, g), a, b) for g, a, b in keys]
    vc = m.VarCorr.fillna({"var1": "", "var2": ""})
    assert list(zip(vc.grp, vc.var1, vc.var2, strict=True)) == theirs


def test_glmer_refuses_uncorrelated_terms():
    """glmer has no ``||`` (glmm's structures only), so its summary never meets one."""
    cbpp = lme4_data("cbpp").assign(x=lambda d: d["size"] / 10)
    with pytest.raises(ValueError, match=r"instead of \(x \|\| g\)"):
        stats.glmer("cbind(incidence, size - incidence) ~ x + (x || herd)", cbpp)


def test_abbreviate_is_rs():
    """lme4 labels the correlation of fixed effects with R's abbreviate() (rows 11, columns
    6 characters); the names and R's output are in tests/fixtures/r_abbreviate.csv
    (benchmarks/r_abbreviate.R)."""
    import pandas as pd

    from acceptability.stats.mixed.summary import abbreviate

    r = pd.read_csv(REPO / "tests/fixtures/r_abbreviate.csv", comment="#", keep_default_na=False)
    assert abbreviate(list(r["name"]), 6) == list(r["min6"])
    assert abbreviate(list(r["name"]), 11) == list(r["min11"])


def test_fixed_correlation_prints_as_lme4():
    """cbpp's correlation block equals lme4's printed one character for character,
    trailing blanks included."""
    text = lme4_summaries()["cbpp|laplace|"]
    start = text.index("Correlation of Fixed Effects:")
    ours = str(stats.glmer("cbind(incidence, size - incidence) ~ period + (1 | herd)",
                           lme4_data("cbpp")).summary()).splitlines()
    at = ours.index("Correlation of Fixed Effects:")
    assert ours[at:at + 5] == text[start:start + 5]
