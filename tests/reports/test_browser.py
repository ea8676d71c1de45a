"""The HTML report in headless Chromium: it renders and no image fails to load."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from PIL import Image

from acceptability import data, reports
from tests.conftest import missing

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
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
    return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(autouse=True)
def need_chromium() -> None:
    """Required in CI (tests/conftest.py: a failure there, a skip elsewhere)."""
    if CHROMIUM is None:
        missing("headless Chromium not installed (Debian: apt-get install -y chromium)")


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
