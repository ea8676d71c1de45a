"""clm and clmm with ``offset(...)`` in the formula, against R's ordinal 2022.11.16 (issue 43,
item 6: the offset was dropped, and the fit was that of the model without it). Every constant
comes from benchmarks/ordinal_offset_reference.R (tests/fixtures/ordinal_offset_reference.csv):
the MegaAcceptability subset of test_ordinal.py (3000 ratings on 1-7) with a length penalty
``length = -0.3 * words`` (words of the rated sentence) as the offset of the location.

Tolerances as in test_ordinal.py: clm 1e-6, clmm 1e-4 (ordinal stops its clmm fits about
1e-5 from the optimum)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from acceptability.stats.mixed import clm, clmm
from tests.stats.mixed.test_ordinal import mega_frame

REF = pd.read_csv(Path(__file__).resolve().parents[2] / "fixtures" / "ordinal_offset_reference.csv",
                  keep_default_na=False)
FIXED = "rating ~ passive"
RANDOM = " + (1 | participant) + (1 | item)"


def ref(model: str, quantity: str) -> pd.Series:
    rows = REF[(REF.model == model) & (REF.quantity == quantity)]
    return pd.Series(rows.value.astype(float).to_numpy(), index=rows.name.to_numpy())


@pytest.fixture(scope="module")
def mega() -> pd.DataFrame:
    """The subset with R's columns ``words`` (runs of spaces split the sentence) and ``length``."""
    s = mega_frame()
    s["words"] = s["sentence"].str.strip().str.split(" +", regex=True).str.len()
    s["length"] = -0.3 * s["words"]
    assert s["words"].sum() == ref("data", "sum_words").iloc[0] and len(s) == ref("data", "nobs").iloc[0]
    return s


def check(m, model: str, atol: float) -> None:
    assert m.logLik == pytest.approx(ref(model, "logLik").iloc[0], abs=2 * atol)
    for quantity, ours in (("coef", m.coef), ("se", m.se), ("Theta", m.Theta)):
        theirs = ref(model, quantity)
        np.testing.assert_allclose(ours.reindex(theirs.index).to_numpy(), theirs.to_numpy(),
                                   rtol=0, atol=atol, err_msg=f"{model} {quantity}")
    if model.startswith("clmm"):
        theirs = ref(model, "ST")
        np.testing.assert_allclose(m.ST.reindex(theirs.index).to_numpy(), theirs.to_numpy(),
                                   rtol=0, atol=atol, err_msg=f"{model} ST")


def test_clm_offset_matches_ordinal(mega):
    m = clm(FIXED + " + offset(length)", mega)
    check(m, "clm_offset", 1e-6)
    check(clm(FIXED, mega), "clm_plain", 1e-6)  # the offset moves passive by 0.11
    # an offset of c shifts every linear predictor by c: the predictions of the fitted rows
    # and of new rows (the formula's offset evaluated on them) carry it
    # (ordinal's shapes: eta1 = theta_j - x'beta - offset, per category for rows without the response)
    eta = m.Theta["1|2"] - m.predict(mega.drop(columns="rating"), type="linear.predictor")["eta1"]["1"].to_numpy()
    x = (mega["passive"] == "yes").to_numpy(float)
    np.testing.assert_allclose(eta, m.beta["passiveyes"] * x + mega["length"].to_numpy(), atol=1e-12)
    fitted = m.predict(type="linear.predictor").to_numpy()
    np.testing.assert_allclose(m.predict(mega.iloc[:50], type="linear.predictor").to_numpy(), fitted[:50], atol=1e-12)


def test_clmm_offset_matches_ordinal_laplace(mega):
    check(clmm(FIXED + " + offset(length)" + RANDOM, mega), "clmm_offset", 1e-4)


def test_clmm_plain_matches_ordinal_laplace(mega):
    check(clmm(FIXED + RANDOM, mega), "clmm_plain", 1e-4)


def test_clmm_offset_matches_ordinal_quadrature(mega):
    m = clmm(FIXED + " + offset(length) + (1 | participant)", mega, nAGQ=10)
    check(m, "clmm_offset_judge", 1e-4)
    fitted = m.predict(type="linear.predictor").to_numpy()
    new = m.predict(mega, type="linear.predictor").to_numpy()
    np.testing.assert_allclose(new, fitted, atol=1e-12)
    assert np.ptp(fitted - m.beta["passiveyes"] * (mega["passive"] == "yes")) > 1  # the offset
