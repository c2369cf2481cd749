"""tools/docs/browser_check.py HTML_DIR SHOTS_DIR: the built site in headless Chromium.

Loads the front page, the Python API page and a search for "uuid7" in
Debian's chromium, driven over the DevTools protocol on a pipe (no
dependency beyond the stdlib), and fails when a page logs a console error
or warning, throws, fails to load a resource, lacks the search box, or the
search finds nothing.  Each page's screenshot goes to SHOTS_DIR/*.png.
--self-test first loads a page made to log an error, and fails unless that
is caught: the check can fail.
"""
import base64
import fcntl
import functools
import http.server
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PAGES = [("index", "index.html"), ("api-python", "api/python.html"),
         ("search", "search.html?q=uuid7")]
SEARCH_BOX = "document.querySelector('input[name=q]') !== null"
SEARCH_HITS = "document.querySelectorAll('#search-results li').length"


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="monostamp-docs-chromium-")
        # Its chatter to a file, read if it dies: a pipe left unread would
        # stall it once full.
        self.log = tempfile.TemporaryFile()
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()
        # The child's ends above 4 (and below 10, for sh), so that moving them
        # to 3 and 4 overwrites neither.
        to_child_r, from_child_w = (self.above_4(fd) for fd in (to_child_r, from_child_w))
        # fds 3 and 4 are --remote-debugging-pipe's (commands in, replies
        # out): the shell puts the pipes there, whatever numbers they have here.
        argv = [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--user-data-dir=" + self.profile, "--hide-scrollbars", "about:blank"]
        self.proc = subprocess.Popen(
            ["sh", "-c", 'exec "$@" 3<&%d 4>&%d %d<&- %d>&-' % (
                to_child_r, from_child_w, to_child_r, from_child_w), "sh"] + argv,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log,
            pass_fds=(to_child_r, from_child_w))
        os.close(to_child_r)
        os.close(from_child_w)
        self.buffer, self.next_id, self.events = b"", 0, []

    @staticmethod
    def above_4(fd):
        high = fcntl.fcntl(fd, fcntl.F_DUPFD, 5)
        os.close(fd)
        return high

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_child, json.dumps(message).encode() + b"\0")
        want = self.next_id
        while True:
            reply = self.read(30)
            if reply.get("id") == want:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def read(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_child], [], [], left)[0]:
                raise TimeoutError("chromium said nothing for %d s" % timeout)
            chunk = os.read(self.from_child, 1 << 20)
            if not chunk:
                self.log.seek(0)
                raise RuntimeError("chromium exited: %s"
                                   % self.log.read().decode(errors="replace")[-2000:])
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_event(self, method, session, timeout):
        deadline = time.monotonic() + timeout
        for event in self.events:
            if event.get("method") == method and event.get("sessionId") == session:
                return
        while time.monotonic() < deadline:
            event = self.read(max(0.1, deadline - time.monotonic()))
            self.events.append(event)
            if event.get("method") == method and event.get("sessionId") == session:
                return
        raise TimeoutError("no %s within %d s" % (method, timeout))

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def problems_of(events, session):
    """Console errors and warnings, exceptions and failed loads of a page."""
    found = []
    for event in events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning",
                                                                             "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            found.append("console.%s: %s" % (params["type"], text))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            found.append("exception: %s" % details.get("exception", {}).get(
                "description", details.get("text")))
        elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning") \
                and not params["entry"].get("url", "").endswith("/favicon.ico"):
            # (the browser asks every site for /favicon.ico; the pages name none)
            entry = params["entry"]
            found.append("%s: %s %s" % (entry["level"], entry["text"], entry.get("url", "")))
    return found


def visit(browser, url, shot, checks):
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target,
                                                     "flatten": True})["sessionId"]
    for domain in ("Page", "Runtime", "Log"):
        browser.send(domain + ".enable", session=session)
    browser.send("Emulation.setDeviceMetricsOverride", {
        "width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session)
    browser.send("Page.navigate", {"url": url}, session)
    browser.wait_event("Page.loadEventFired", session, 30)
    faults = []
    for what, expression, ok in checks:
        deadline = time.monotonic() + 15  # the search fills its results after load
        while True:
            value = browser.send("Runtime.evaluate", {"expression": expression,
                                                      "returnByValue": True},
                                 session)["result"].get("value")
            if ok(value) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if not ok(value):
            faults.append("%s: got %r" % (what, value))
    png = browser.send("Page.captureScreenshot", {"format": "png"}, session)["data"]
    Path(shot).write_bytes(base64.b64decode(png))
    faults += problems_of(browser.events, session)
    browser.send("Target.closeTarget", {"targetId": target})
    return faults


def main(args):
    self_test = "--self-test" in args
    args = [a for a in args if a != "--self-test"]
    html, shots = Path(args[0]).resolve(), Path(args[1])
    chromium = shutil.which("chromium") or sys.exit("browser_check: no chromium (apt-get "
                                                    "install chromium; tools/install-deps.sh "
                                                    "--docs)")
    shots.mkdir(parents=True, exist_ok=True)
    # Served over HTTP on the loopback, as a reader's server would: the
    # search fetches pages for its summaries, which file:// forbids.
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=str(html))
    class Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request, client_address):
            # A page closed while its fetches were in flight (the search
            # page's summaries) is no fault of the site.
            if not isinstance(sys.exc_info()[1], ConnectionError):
                super().handle_error(request, client_address)
    server = Server(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    browser = Browser(chromium)
    failed = False
    try:
        if self_test:
            bad = Path(tempfile.mkdtemp(prefix="monostamp-docs-")) / "bad.html"
            bad.write_text("<html><body><script>console.error('planted')</script>"
                           "<img src='missing.png'></body></html>")
            caught = visit(browser, bad.as_uri(), shots / "self-test.png",
                           [("search box", SEARCH_BOX, bool)])
            shutil.rmtree(bad.parent)
            if not any("planted" in c for c in caught) or not any("search box" in c
                                                                  for c in caught):
                print("browser_check: the self-test page's faults were not all caught: %s"
                      % caught)
                return 1
            print("browser_check: self-test: a planted console error and a missing search "
                  "box both caught")
        for name, page in PAGES:
            checks = [("the search box", SEARCH_BOX, bool)]
            if page.startswith("search.html"):
                checks.append(("search results for uuid7", SEARCH_HITS,
                               lambda v: isinstance(v, int) and v > 0))
            url = base + page
            faults = visit(browser, url, shots / (name + ".png"), checks)
            for fault in faults:
                print("browser_check: %s: %s" % (page, fault))
            failed |= bool(faults)
            if not faults:
                print("browser_check: %s: loaded, search box there, no console error "
                      "(%s)" % (page, shots / (name + ".png")))
    finally:
        browser.close()
        server.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
