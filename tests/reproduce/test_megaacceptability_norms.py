"""The README's MegaAcceptability sentence: the Pearson correlations of
``stats.normalize_ratings`` (mean, z, rank, ordinal) with White & Rawlins' (2020) published
normalised values, on all 249,990 ratings, at the 3 decimals it prints. The norms come from
tests/stats/ratings/test_norming.py (computed once per process: the ordinal fit is the
clmm of all 50,000 sentences x 729 participants)."""

from __future__ import annotations

import pytest

from tests.conftest import REPO
from tests.stats.ratings.test_norming import MEGA, PRINTED, mega_norms, published_r


@pytest.mark.slow
@pytest.mark.needs_data(*MEGA)
def test_the_readme_states_the_four_correlations():
    r = {method: f"{published_r(mega_norms(method)):.3f}" for method in PRINTED}
    assert r == {method: f"{value:.3f}" for method, value in PRINTED.items()}
    readme = " ".join((REPO / "README.md").read_text().split())
    said = (f"is {r['mean']} for the plain mean rating, {r['z']} for per-participant z-scores, "
            f"{r['rank']} for the rank transform and {r['ordinal']} for the ordinal norm")
    assert said in readme
