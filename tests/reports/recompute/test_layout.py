"""Every report the guard builds (conftest.py: LI-Adger, BLiMP, Zorro, Lau et al. without and
with context, MegaAcceptability; test_syntaxgym.py's SyntaxGym suites and
test_latin_square.py's pairs-with-ratings study, their fixtures imported so each run is
shared) reads at a phone's and a laptop's width in headless Chromium
(tests/reports/chromium.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reports.chromium import LAYOUT, Browser, assert_reads_well, need_chromium
from tests.reports.recompute.test_latin_square import study  # noqa: F401 (a fixture)
from tests.reports.recompute.test_syntaxgym import gpt2, report  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = Browser(need_chromium(), tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


def _reads_well(browser: Browser, folder: Path) -> None:
    for width in (390, 1280):
        page = browser.open((folder / "report.html").as_uri(), width, 844, mobile=width < 800)
        assert_reads_well(page.evaluate(LAYOUT), width)


# The fixtures that build each report (a folder; the study's is under "out").
REPORTS = ["li_adger_report", "blimp_report", "zorro_report", "lau_report", "mega_report",
           pytest.param("report", marks=pytest.mark.needs_data("syntaxgym"), id="syntaxgym"),
           pytest.param("study", marks=pytest.mark.needs_data(
               "turblimp", "data/human_judgments/base_judgments.xlsx"), id="pairs-with-ratings")]


@pytest.mark.parametrize("fixture", REPORTS)
def test_the_report_reads_on_a_phone_and_a_laptop(request, browser, fixture):
    built = request.getfixturevalue(fixture)
    _reads_well(browser, built["out"] if fixture == "study" else built)


def test_the_rating_report_reads_on_a_phone_and_a_laptop(browser, lau_ratings_report):
    _reads_well(browser, lau_ratings_report)  # a fixture with parameters: requested by name
