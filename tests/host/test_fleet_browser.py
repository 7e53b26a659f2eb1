"""The fleet page (scripts/compare --html) in a real browser.

Debian's chromium, headless, loads the page with #selftest: the page's own
script then sorts every column of the verdict table both ways and writes
what it saw (sort order, script errors, CSP violations, script elements,
event-handler attributes, whether an injected script ran) into
<pre id="selftest-result">, which --dump-dom hands back.  The browser's
console goes to its stderr (--enable-logging=stderr): any line from the
page's console fails the test.  One input is a hostile report whose strings
carry <script>, an <img onerror>, formulas and control characters.

Skipped, with the reason, where no chromium is installed
(scripts/install-deps installs it for make test).  About 3-5 s.
"""

import html
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, load_script  # noqa: E402
import hostile  # noqa: E402
from cptools import frame  # noqa: E402

compare = load_script("compare")
BROWSERS = ("chromium", "chromium-browser")


def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class FleetPageBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.browser = find_browser()
        if not cls.browser:
            raise unittest.SkipTest(
                "no chromium here (scripts/install-deps installs Debian's "
                "chromium; install it to run the fleet page's browser test)")
        cls.tmp = tempfile.mkdtemp(prefix="fleetpage-")
        log = os.path.join(cls.tmp, "hostile.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(frame.frame_report(hostile.hostile_report()))
        page = os.path.join(cls.tmp, "fleet.html")
        out, err = io.StringIO(), io.StringIO()
        rc = compare.main(["--html", "-o", page, log] + [
            os.path.join(FIX, n) for n in (
                "kvm_good.json", "hyperv.json", "tcg_q35.json",
                "kvm_fallback.log")], stdout=out, stderr=err)
        assert rc == 3 or rc == 0, err.getvalue()
        # --no-sandbox: the sandbox needs user namespaces, which containers
        # and root often lack; the page is our own local file.
        argv = [cls.browser, "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--user-data-dir=" + os.path.join(
                    cls.tmp, "profile"),
                "--enable-logging=stderr", "--v=0",
                "--virtual-time-budget=5000", "--dump-dom",
                "file://" + page + "#selftest"]
        try:
            proc = subprocess.run(argv, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=90)
        except subprocess.TimeoutExpired:
            raise AssertionError("chromium did not finish in 90 s")
        cls.dom = proc.stdout.decode("utf-8", "replace")
        cls.stderr = proc.stderr.decode("utf-8", "replace")
        cls.rc = proc.returncode

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(getattr(cls, "tmp", ""), ignore_errors=True)

    def selftest(self):
        m = re.search(r'<pre id="selftest-result">(.*?)</pre>', self.dom,
                      re.S)
        self.assertIsNotNone(m, "no self-test result in the DOM; chromium "
                             "exit %d, stderr tail:\n%s"
                             % (self.rc, self.stderr[-2000:]))
        return json.loads(html.unescape(m.group(1)))

    def test_renders_and_sorts(self):
        res = self.selftest()
        self.assertEqual(res["rows"], 5)
        self.assertEqual(res["sorted"], {
            "label": True, "hypervisor": True, "clocksource": True,
            "vdso": True, "predicted": True, "warnings": True})
        # Ascending predicted read cost, as the fixtures (real captures but
        # hyperv.json) and the hostile report give it.
        cost = {}
        for name in ("kvm_good", "hyperv", "tcg_q35", "kvm_fallback"):
            with open(os.path.join(FIX, name + ".json")) as f:
                cost[name] = json.load(f)["verdict"]["predicted_read_ns"]
        hostile_cost = hostile.hostile_report()["verdict"]["predicted_read_ns"]
        self.assertLess(hostile_cost, min(cost.values()))
        self.assertEqual(res["order_by_predicted"],
                         [hostile.STRINGS["probe.label"]]
                         + sorted(cost, key=cost.get))

    def test_no_console_errors(self):
        res = self.selftest()
        self.assertEqual(res["errors"], [])
        console = [ln for ln in self.stderr.splitlines()
                   if ":CONSOLE" in ln]
        self.assertEqual(console, [])

    def test_no_injected_script_runs(self):
        res = self.selftest()
        self.assertIsNone(res["pwned"])
        self.assertEqual(res["scripts"], 1)     # the page's own, only
        self.assertEqual(res["handlers"], 0)    # no onerror=/onload= made it
        # The hostile strings are on the page as text.
        self.assertIn("&lt;script&gt;window.__pwned=1&lt;/script&gt;",
                      self.dom)


if __name__ == "__main__":
    unittest.main()
