"""Headless Chromium for the report tests: open a local page, collect what
its console and network did, measure its figures, take a screenshot.

Chromium is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages ended by NUL on file descriptors 3
and 4), so nothing beyond the Debian package `chromium` is needed: no
driver, no WebSocket library, no port.

    python tests/headless.py report.html [shot.png]     # prints what the test checks
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

#: Binaries tried in order (HPCBENCH_CHROMIUM first, when set).
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: The viewport pages are laid out in (CSS pixels).
WIDTH, HEIGHT = 1280, 900
#: Figures as the page shows them: size on screen and decoded size of the image.
FIGURES_JS = """JSON.stringify(Array.from(document.querySelectorAll('figure img')).map(function (i) {
  var r = i.getBoundingClientRect();
  return {alt: i.alt, width: r.width, height: r.height, natural_width: i.naturalWidth,
          natural_height: i.naturalHeight, complete: i.complete};
}))"""


class Unavailable(Exception):
    """Chromium cannot run here; the message says why (a test skips with it)."""


@dataclass
class PageResult:
    """What loading one page gave."""

    url: str
    console_errors: list = field(default_factory=list)     #: console.error, exceptions, error log entries
    requests: list = field(default_factory=list)           #: every URL the page asked for (itself included)
    figures: list = field(default_factory=list)            #: dicts from FIGURES_JS
    screenshot: bytes = b""                                #: PNG of the whole page
    title: str = ""

    def external_requests(self) -> list:
        """Requests other than the page itself and data: URIs."""
        return [u for u in self.requests if u != self.url and not u.startswith("data:")]


def find_chromium() -> str:
    """The Chromium binary, or Unavailable."""
    names = [os.environ["HPCBENCH_CHROMIUM"]] if os.environ.get("HPCBENCH_CHROMIUM") else []
    for name in names + list(CANDIDATES):
        path = shutil.which(name)
        if path:
            return path
    raise Unavailable("no Chromium found (tried " + ", ".join(names + list(CANDIDATES)) +
                      "); install the Debian package chromium (tools/install.sh does)")


class Chromium:
    """One headless Chromium; `load(path)` opens a page in a fresh tab."""

    def __init__(self, timeout: float = 60.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="hpcb-chromium-")
        binary = find_chromium()
        to_child, self._to_chrome = os.pipe()          # Chromium reads fd 3
        self._from_chrome, from_child = os.pipe()      # and writes fd 4

        def pipes() -> None:          # in the child: its ends on 3 and 4 (copied first: they may be 3 or 4)
            read, write = os.dup(to_child), os.dup(from_child)
            os.dup2(read, 3)
            os.dup2(write, 4)

        # --no-sandbox: root in CI containers; --disable-dev-shm-usage: containers with a tiny /dev/shm
        args = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--hide-scrollbars",
                f"--user-data-dir={self.profile}", f"--window-size={WIDTH},{HEIGHT}", "about:blank"]
        self.stderr = tempfile.TemporaryFile()
        try:
            self.process = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=pipes,
                                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr)
        except OSError as e:
            raise Unavailable(f"{binary} does not start: {e}") from None
        finally:
            os.close(to_child)
            os.close(from_child)
        self._buffer = b""
        self._next = 0
        self._events: list = []
        try:
            self.call("Browser.getVersion")
        except Unavailable:
            self.close()
            raise

    # ---- the protocol -------------------------------------------------------------------------

    def _stderr_tail(self) -> str:
        self.stderr.seek(0)
        lines = [x for x in self.stderr.read().decode(errors="replace").splitlines() if x.strip()]
        return lines[-1] if lines else "no message"

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._next += 1
        message = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to_chrome, data):]
        except OSError:
            raise Unavailable(f"Chromium stopped: {self._stderr_tail()}") from None
        return self._next

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Unavailable(f"Chromium did not answer within {self.timeout:.0f} s")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise Unavailable(f"Chromium stopped: {self._stderr_tail()}")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        """Send a command and wait for its answer (events meanwhile are kept)."""
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self._events.append(message)

    def wait_event(self, method: str, session: str) -> dict:
        deadline = time.monotonic() + self.timeout
        for i, event in enumerate(self._events):
            if event.get("method") == method and event.get("sessionId") == session:
                return self._events.pop(i)
        while True:
            message = self._read(deadline)
            if message.get("method") == method and message.get("sessionId") == session:
                return message
            self._events.append(message)

    # ---- one page -----------------------------------------------------------------------------

    def load(self, path: str) -> PageResult:
        """Open a local file, wait for its load event, and gather what the page did."""
        url = "file://" + os.path.abspath(path)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        try:
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.call(f"{domain}.enable", session=session)
            self.call("Emulation.setDeviceMetricsOverride",
                      {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False}, session)
            self._events.clear()
            self.call("Page.navigate", {"url": url}, session)
            self.wait_event("Page.loadEventFired", session)
            result = PageResult(url)
            value = self.call("Runtime.evaluate", {"expression": FIGURES_JS, "returnByValue": True}, session)
            result.figures = json.loads(value["result"]["value"])
            title = self.call("Runtime.evaluate", {"expression": "document.title", "returnByValue": True}, session)
            result.title = title["result"].get("value", "")
            size = self.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
            shot = self.call("Page.captureScreenshot", {
                "format": "png", "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": max(size["width"], 1), "height": max(size["height"], 1),
                         "scale": 1}}, session)
            result.screenshot = base64.b64decode(shot["data"])
            self._collect(result, session)
            return result
        finally:
            self.call("Target.closeTarget", {"targetId": target})

    def _collect(self, result: PageResult, session: str) -> None:
        for event in self._events:
            if event.get("sessionId") != session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                result.console_errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                                      for a in params.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                result.console_errors.append(params.get("exceptionDetails", {}).get("text", "exception"))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                result.console_errors.append(params["entry"].get("text", "error"))
            elif method == "Network.requestWillBeSent":
                result.requests.append(params.get("request", {}).get("url", ""))
        self._events = [e for e in self._events if e.get("sessionId") != session]

    def close(self) -> None:
        """Stop Chromium (politely, then by force) and remove its profile."""
        try:
            self.send("Browser.close")
            self.process.wait(timeout=10)
        except (Unavailable, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)
        self.stderr.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def main(argv: list) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip())
        return 2
    browser = Chromium()
    try:
        page = browser.load(argv[0])
    finally:
        browser.close()
    print(f"title: {page.title}")
    print(f"console errors: {page.console_errors or 'none'}")
    print(f"requests beyond the page: {page.external_requests() or 'none'}")
    for f in page.figures:
        print(f"figure {f['alt']!r}: {f['width']:.0f} x {f['height']:.0f} px on the page, "
              f"{f['natural_width']} x {f['natural_height']} decoded")
    if len(argv) > 1:
        with open(argv[1], "wb") as out:
            out.write(page.screenshot)
        print(f"screenshot: {argv[1]} ({len(page.screenshot)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
