"""Headless Chromium driven through the DevTools protocol over ``--remote-debugging-pipe``
(JSON messages ending in NUL on file descriptors 3 and 4): no package beyond the standard
library. Used by test_browser.py to lay the report out at a phone's and a laptop's width."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import missing

EXECUTABLE = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]
TIMEOUT = 120  # seconds to wait for any one message from Chromium


def need_chromium() -> str:
    """Chromium's executable; required in CI (tests/conftest.py: a failure there, a skip
    elsewhere)."""
    if EXECUTABLE is None:
        missing("headless Chromium not installed (Debian: apt-get install -y chromium)")
    return EXECUTABLE


class Browser:
    """One Chromium process; ``open`` a page in it at a given window size."""

    def __init__(self, executable: str, profile: Path) -> None:
        child_in, self._out = os.pipe()
        self._in, child_out = os.pipe()

        def on_fds_3_and_4() -> None:  # in the child, before exec
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (child_in, child_out)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.process = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "about:blank"], pass_fds=(3, 4, child_in, child_out), preexec_fn=on_fds_3_and_4,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(child_in)
        os.close(child_out)
        self._buffer, self._id, self._events = b"", 0, []

    def _message(self) -> dict:
        while b"\0" not in self._buffer:
            if not select.select([self._in], [], [], TIMEOUT)[0]:
                raise TimeoutError(f"Chromium said nothing for {TIMEOUT} s")
            chunk = os.read(self._in, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe: "
                                   + self.process.stderr.read().decode()[-2000:])
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method: str, session: str | None = None, **params: Any) -> dict:
        """Call ``method`` and return its result (events that come first are kept)."""
        self._id += 1
        message = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        while (reply := self._message()).get("id") != self._id:
            self._events.append(reply)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def _wait(self, event: str, session: str) -> None:
        def wanted(m: dict) -> bool:
            return m.get("method") == event and m.get("sessionId") == session

        if any(wanted(m) for m in self._events):
            self._events = [m for m in self._events if not wanted(m)]
            return
        while not wanted(message := self._message()):
            self._events.append(message)

    def open(self, url: str, width: int, height: int, mobile: bool) -> Page:
        """A new tab showing ``url`` in a ``width`` x ``height`` CSS-pixel window, loaded;
        ``mobile`` as a phone (the page's viewport tag decides its layout width)."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride", session, width=width, height=height,
                  deviceScaleFactor=1, mobile=mobile)
        self.send("Page.enable", session)
        self.send("Page.navigate", session, url=url)
        self._wait("Page.loadEventFired", session)
        return Page(self, session)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        finally:
            self.process.wait(60)


class Page:
    """A loaded tab."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression."""
        result = self.browser.send("Runtime.evaluate", self.session, expression=expression,
                                   returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(json.dumps(result["exceptionDetails"])[:2000])
        return result["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        """A PNG of the whole page, as wide as the window."""
        width, height = self.evaluate("[innerWidth, document.documentElement.scrollHeight]")
        shot = self.browser.send("Page.captureScreenshot", self.session, format="png",
                                 captureBeyondViewport=True,
                                 clip={"x": 0, "y": 0, "width": width, "height": height,
                                       "scale": 1})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path


# Run in the page with every <details> opened: what a reader at this width would find wrong.
LAYOUT = r"""(() => {
  document.querySelectorAll("details").forEach(d => { d.open = true; });
  const scrolls = el => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const inScrollBox = el => {
    for (let p = el.parentElement; p; p = p.parentElement) if (scrolls(p)) return true;
    return false;
  };
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + ": "
    + (el.textContent || "").trim().slice(0, 60);
  const all = [...document.body.querySelectorAll("*")].filter(el => el.getClientRects().length);
  const wider = all.filter(el => !inScrollBox(el)).filter(el => {
    const r = el.getBoundingClientRect(), p = el.parentElement.getBoundingClientRect();
    return r.left < p.left - 0.5 || r.right > p.right + 0.5;
  }).map(name);
  const cut = all.filter(el => !scrolls(el) && el.clientWidth > 0
                         && el.scrollWidth > el.clientWidth + 1).map(name);
  const withText = all.filter(el => [...el.childNodes].some(
    n => n.nodeType === Node.TEXT_NODE && n.textContent.trim()));
  // a number, an interval after it, "< 1e-300" or the missing dash, as the report writes them
  const NUMBER = /^((< )?[-−]?(\d+(\.\d+)?(e[-+]?\d+)?|inf)( \[[^\]]*\])?|–)$/i;
  const tables = [...document.querySelectorAll("table")].map(t => {
    const box = t.parentElement, firsts = [...t.rows].map(r => r.cells[0]);
    box.scrollLeft = box.scrollWidth;  // scrolled to its end: the first column stays
    const left = box.getBoundingClientRect().left;
    const table = {caption: box.previousElementSibling.textContent.trim().slice(0, 40),
                   scrollBox: scrolls(box), width: box.clientWidth, scrollWidth: box.scrollWidth,
                   firstColumnStays: firsts.every(
                     c => Math.abs(c.getBoundingClientRect().left - left) <= 1),
                   columns: [...t.rows[0].cells].map((_, k) => {
                     const cells = [...t.tBodies[0].rows].map(r => r.cells[k]);
                     return {numeric: cells.every(c => NUMBER.test(c.textContent.trim())),
                             align: [...new Set(cells.map(c => getComputedStyle(c).textAlign))]};
                   })};
    box.scrollLeft = 0;
    return table;
  });
  const pres = [...document.querySelectorAll("pre")].map(p => ({
    title: p.parentElement.querySelector("summary").textContent, scrollBox: scrolls(p),
    width: p.clientWidth, scrollWidth: p.scrollWidth}));
  return {innerWidth, scale: visualViewport.scale,
          scrollWidth: document.documentElement.scrollWidth,
          viewport: (document.querySelector("meta[name=viewport]") || {}).content || null,
          smallestFont: Math.min(...withText.map(el => parseFloat(getComputedStyle(el).fontSize))),
          wider, cut, tables, pres};
})()"""


def assert_reads_well(layout: dict, width: int) -> None:
    """What ``LAYOUT`` measured in a ``width``-pixel window (a phone's below 800) is a page
    that reads there: laid out at the window's width, unscaled (the viewport tag), so text
    keeps its size; no sideways page; nothing wider than its container or overflowing it,
    but inside a scroll box; every table in its own scroll box with its first column in
    view, its text columns left-aligned and its numbers right; the provenance block
    wrapped; at a laptop's width no block of program output needs scrolling."""
    assert "width=device-width" in (layout["viewport"] or "")
    assert (layout["innerWidth"], layout["scale"]) == (width, 1)
    assert layout["scrollWidth"] == width
    assert layout["smallestFont"] >= 12
    assert layout["wider"] == [] and layout["cut"] == []
    for table in layout["tables"]:
        assert table["scrollBox"] and table["firstColumnStays"], table
        # the first column and text left, numbers right
        assert [c["align"] for c in table["columns"][:1]] == [["left"]], table["caption"]
        for k, column in enumerate(table["columns"][1:], 2):
            assert column["align"] == ["right" if column["numeric"] else "left"], (
                table["caption"], k, column)
    provenance = [p for p in layout["pres"] if p["title"] == "provenance"]
    assert len(provenance) == 1 and provenance[0]["scrollWidth"] <= provenance[0]["width"]
    for pre in layout["pres"]:
        assert pre["scrollBox"] or pre["scrollWidth"] <= pre["width"], pre
    if width >= 800:  # program output fits a laptop's width (a table may still scroll)
        for pre in layout["pres"]:
            assert pre["scrollWidth"] <= pre["width"], pre
