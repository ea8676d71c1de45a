"""stats.correlations on LI-Adger against pingouin, an implementation no one here wrote."""

from __future__ import annotations

import numpy as np
import pingouin as pg
import pytest

from acceptability import stats


@pytest.mark.needs_data
def test_correlations_match_pingouin(li_adger, li_adger_scores):
    ours = stats.correlations(li_adger, li_adger_scores).set_index(["model", "level"])
    sent = stats.sentence_frame(li_adger, li_adger_scores)
    pairs = stats.pair_deltas(li_adger, li_adger_scores)
    for model in ["bert-large-cased_acc", "trigram_slor"]:
        for level, frame, x, y in [("sentence", sent, "human", "z"), ("pair", pairs, "dh", "dlm")]:
            g = frame[frame["model"] == model].dropna(subset=[x, y])
            row = ours.loc[(model, level)]
            for method in ("pearson", "spearman"):
                ref = pg.corr(g[x], g[y], method=method)
                assert row["n"] == ref["n"].item()
                assert row[method] == pytest.approx(ref["r"].item(), abs=1e-12)
                assert np.isclose(row[f"{method}_p"], ref["p_val"].item(), rtol=1e-9, atol=0)
