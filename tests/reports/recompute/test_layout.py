"""Every report the guard builds (conftest.py: LI-Adger, BLiMP, Zorro, Lau et al. without and
with context, MegaAcceptability) reads at a phone's and a laptop's width in headless Chromium
(tests/reports/chromium.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reports.chromium import LAYOUT, Browser, assert_reads_well, need_chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = Browser(need_chromium(), tmp_path_factory.mktemp("chromium-profile"))
    yield chromium
    chromium.close()


def _reads_well(browser: Browser, folder: Path) -> None:
    for width in (390, 1280):
        page = browser.open((folder / "report.html").as_uri(), width, 844, mobile=width < 800)
        assert_reads_well(page.evaluate(LAYOUT), width)


@pytest.mark.parametrize("report", ["li_adger_report", "blimp_report", "zorro_report",
                                    "lau_report", "mega_report"])
def test_the_report_reads_on_a_phone_and_a_laptop(request, browser, report):
    _reads_well(browser, request.getfixturevalue(report))


def test_the_rating_report_reads_on_a_phone_and_a_laptop(browser, lau_ratings_report):
    _reads_well(browser, lau_ratings_report)
