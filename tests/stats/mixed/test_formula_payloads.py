"""No formula runs Python: code hidden in a formula given to lmer, glmer, clm, clmm, brm or
``acceptability fit --formula`` is refused as an unreadable term, and nothing executes (each
payload would create a marker file; on lme4's sleepstudy and cbpp, and LI-Adger's scores)."""

from __future__ import annotations

import pandas as pd
import pytest

from acceptability import stats
from acceptability.stats.mixed import clm, clmm
from tests.lme4_data import lme4_data

#: Each creates the file MARKER if any part of it is run as Python; RESPONSE and GROUP stand
#: for the fit's response column and grouping column.
PAYLOADS = [
    "RESPONSE ~ __import__('os').system('touch MARKER') + (1 | GROUP)",
    "RESPONSE ~ I(__import__('os').system('touch MARKER')) + (1 | GROUP)",
    "RESPONSE ~ X + eval(\"open('MARKER', 'w')\") + (1 | GROUP)",
    "RESPONSE ~ exec(\"open('MARKER', 'w').close()\") + (1 | GROUP)",
    "RESPONSE ~ C(X, __import__('os').system('touch MARKER')) + (1 | GROUP)",
    "RESPONSE ~ np.os.system('touch MARKER') + (1 | GROUP)",
    "RESPONSE ~ Q(\"__import__('os').system('touch MARKER')\") + (1 | GROUP)",
    "open('MARKER', 'w').write('x') ~ X + (1 | GROUP)",
    "RESPONSE ~ X + (1 | __import__('os').system('touch MARKER'))",
    "RESPONSE ~ X + offset(__import__('os').system('touch MARKER')) + (1 | GROUP)",
    "RESPONSE ~ log(X + __import__('os').system('touch MARKER')) + (1 | GROUP)",
    "RESPONSE ~ X + (1 | GROUP)\nimport os; os.system('touch MARKER')",
    "RESPONSE ~ {__import__('os').system('touch MARKER')} + (1 | GROUP)",
    "RESPONSE ~ poly(X, __import__('os').system('touch MARKER')) + (1 | GROUP)",
    "RESPONSE ~ X.__class__.__mro__ + (1 | GROUP)",
]


@pytest.fixture(scope="module")
def sleep() -> pd.DataFrame:
    """sleepstudy with an ordinal column for clm/clmm: Reaction in five equal-width bins."""
    frame = lme4_data("sleepstudy")
    return frame.assign(rating=pd.cut(frame["Reaction"], 5, labels=False) + 1)


def _formula(payload: str, marker, response: str, x: str, group: str, mixed: bool = True) -> str:
    text = payload.replace("RESPONSE", response).replace("GROUP", group).replace("X", x)
    text = text if mixed else text.replace(f" + (1 | {group})", "")
    return text.replace("MARKER", str(marker))


FITS = {  # name: (function, data, response, predictor, group, has random effects)
    "lmer": (stats.lmer, "sleep", "Reaction", "Days", "Subject", True),
    "glmer": (stats.glmer, "cbpp", "cbind(incidence, size - incidence)", "period", "herd", True),
    "clm": (clm, "sleep", "rating", "Days", "Subject", False),
    "clmm": (clmm, "sleep", "rating", "Days", "Subject", True),
    "brm": (stats.brm, "sleep", "Reaction", "Days", "Subject", True),
}


@pytest.mark.parametrize(("fit", "payload"), [
    (fit, payload) for fit in sorted(FITS) for payload in PAYLOADS
    if FITS[fit][5] or "| __import__" not in payload])  # clm has no grouping to hide code in
def test_a_formula_payload_is_refused_and_runs_nothing(fit, payload, sleep, tmp_path):
    function, data, response, x, group, mixed = FITS[fit]
    frame = sleep if data == "sleep" else lme4_data("cbpp")
    marker = tmp_path / "ran"
    formula = _formula(payload, marker, response, x, group, mixed)
    with pytest.raises((ValueError, KeyError)):
        function(formula, frame)
    assert not marker.exists()


@pytest.mark.parametrize("payload", PAYLOADS)
def test_fit_command_refuses_a_formula_payload(payload, li_adger, li_adger_scores, tmp_path, capsys):
    from acceptability.reports import cli

    s, sc, marker = tmp_path / "s.csv", tmp_path / "sc.csv", tmp_path / "ran"
    li_adger.sentences.to_csv(s, index=False)
    li_adger_scores.to_csv(sc, index=False)
    formula = _formula(payload, marker, "label", "score", "phenomenon")
    code = cli.main(["fit", "--sentences", str(s), "--scores", str(sc), "--formula", formula,
                     "--out", str(tmp_path / "fits.csv")])
    err = capsys.readouterr().err
    assert code == 2 and not marker.exists() and not (tmp_path / "fits.csv").exists()
    assert "Traceback" not in err and "unexpected error" not in err
