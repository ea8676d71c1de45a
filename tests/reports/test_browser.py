"""The HTML report in headless Chromium: it renders, no image fails to load, and it reads at a
phone's width (390 px) and a laptop's (1280 px)."""

from __future__ import annotations

import re
import subprocess

import pytest
from PIL import Image

from acceptability import data, reports
from tests.reports.chromium import (
    EXECUTABLE,
    FLAGS,
    LAYOUT,
    Browser,
    assert_reads_well,
    need_chromium,
)

# Appended to a copy of the report: after load, write how many images failed into the DOM.
CHECK = """<script>
window.addEventListener("load", function () {
  var imgs = Array.from(document.images);
  var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  var d = document.createElement("div");
  d.id = "image-check";
  d.textContent = "IMAGES " + imgs.length + " BROKEN " + bad.length;
  document.body.appendChild(d);
});
</script>"""


def chromium(args: list[str], profile) -> subprocess.CompletedProcess:
    return subprocess.run([EXECUTABLE, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(autouse=True)
def chromium_installed() -> None:
    need_chromium()


def test_report_renders_in_chromium(tmp_path):
    ds, sc = data.load_example()
    report = reports.build(reports.analyse(ds, sc, n_boot=0, formula=None), tmp_path / "rep")
    n_figures = len(report.figures)

    probe = tmp_path / "rep" / "probe.html"
    probe.write_text(report.html.read_text().replace("</body>", CHECK + "</body>"))
    dom = chromium(["--virtual-time-budget=10000", "--dump-dom", probe.as_uri()],
                   tmp_path / "profile")
    found = re.search(r"IMAGES (\d+) BROKEN (\d+)", dom.stdout)
    assert found, f"no image check in the DOM; chromium said: {dom.stderr[-2000:]}"
    assert int(found.group(1)) == n_figures > 0
    assert int(found.group(2)) == 0

    shot = tmp_path / "screenshot.png"
    chromium(["--window-size=1280,3000", f"--screenshot={shot}", report.html.as_uri()],
             tmp_path / "profile")
    with Image.open(shot) as im:
        assert im.size == (1280, 3000)
        assert len(im.convert("L").getcolors(maxcolors=1 << 16) or range(1 << 16)) > 20


# Real model names as long as a user's: the published LI-Adger scores under other labels.
LONG_NAMES = {"bert-large-uncased_mlm": "bert-large-uncased_pll",
              "bert-base-uncased_mlm": "bert-base-uncased_pll",
              "trigram_logprob": "SmolLM2-135M-Instruct_logprob"}


@pytest.fixture(scope="module")
def long_named_report(li_adger, li_adger_scores, li_adger_dir, tmp_path_factory):
    """The report of LI-Adger's published scores (long model names, fits, 20 resamples, the
    command a user would type) and a Chromium to read it."""
    scores = li_adger_scores.assign(model=li_adger_scores["model"].replace(LONG_NAMES))
    out = tmp_path_factory.mktemp("long-names")
    command = (f"acceptability report --data {li_adger_dir} --scores {out}/scores.parquet "
               f"--n-boot 20 --out {out}/report --name 'LI-Adger with long model names'")
    results = reports.analyse(li_adger, scores, n_boot=20, command=command)
    report = reports.build(results, out / "report")
    browser = Browser(EXECUTABLE, out / "profile")
    yield report, browser
    browser.close()


@pytest.mark.parametrize("width", [390, 1280])
def test_report_reads_at_a_phones_and_a_laptops_width(long_named_report, width, tmp_path):
    report, browser = long_named_report
    page = browser.open(report.html.as_uri(), width, 844, mobile=width < 800)
    layout = page.evaluate(LAYOUT)
    assert_reads_well(layout, width)
    assert len(layout["tables"]) >= 8 and len(layout["pres"]) >= 2
    if width == 1280:  # every table of this study fits: none needs scrolling
        for table in layout["tables"]:
            assert table["scrollWidth"] <= table["width"], table
    shot = page.screenshot(tmp_path / f"report-{width}.png")
    with Image.open(shot) as im:
        assert im.size[0] == width and im.size[1] > 3000
