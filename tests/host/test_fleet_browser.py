"""The fleet page (scripts/compare --html) in a real browser.

Debian's chromium, headless, loads the page with #selftest: the page's own
script then sorts every column of every table (the groups, each group's
runs) both ways, types into the filter box, and writes what it saw (sort
order, rows the filter kept, script errors, CSP violations, script
elements, event-handler attributes, whether an injected script ran) into
<pre id="selftest-result">, which --dump-dom hands back.  The browser's
console goes to its stderr (--enable-logging=stderr): any line from the
page's console fails the test.  One input is a hostile report whose strings
carry <script>, an <img onerror>, formulas and control characters.

The same page is also taken as a screenshot (build/host/fleet-page.png,
for a person to look at): a PNG of the page's size, not blank, and the DOM
has every source's read-cost histogram (the TSC's too) and the gap
timeline as inline SVG, the TSC's estimate in the cost table, and the
verdict over the kernel set in the verdict table.

Skipped, with the reason, where no chromium is installed
(scripts/install-deps installs it for make test).  About 5-10 s.
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
from hostlib import FIX, REPO, load_script  # noqa: E402
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
                "kvm_fallback.log", "real_q35_hpet_off_2026.log")],
            stdout=out, stderr=err)
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
        os.makedirs(os.path.join(REPO, "build", "host"), exist_ok=True)
        cls.png = os.path.join(REPO, "build", "host", "fleet-page.png")
        if os.path.exists(cls.png):
            os.unlink(cls.png)
        shot = argv[:argv.index("--dump-dom")] + [
            "--hide-scrollbars", "--window-size=1280,6000",
            "--screenshot=" + cls.png, "file://" + page]
        try:
            subprocess.run(shot, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=90)
        except subprocess.TimeoutExpired:
            pass

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
        self.assertEqual(res["rows"], 6)
        run_cols = {"label", "started", "hypervisor", "clocksource", "vdso",
                    "predicted", "kernels", "gate", "confidence", "risk",
                    "warnings"}
        group_cols = {"groups." + c for c in (
            "group", "runs", "fails", "unjudged", "worst", "clocksources",
            "p50", "p90", "max", "hypervisors", "started")}
        self.assertEqual(res["sorted"], {c: True for c in
                                         run_cols | group_cols})
        # Ascending predicted read cost within each group's table, as the
        # fixtures (real captures but hyperv.json) and the hostile report
        # give it; the groups are their SMBIOS products.
        cost, product = {}, {}
        for name in ("kvm_good", "hyperv", "tcg_q35", "kvm_fallback"):
            with open(os.path.join(FIX, name + ".json")) as f:
                r = json.load(f)
            cost[name] = r["verdict"]["predicted_read_ns"]
            product[name] = r["platform"]["smbios"]["product"]
        r = frame.load_report_file(os.path.join(
            FIX, "real_q35_hpet_off_2026.log"))[0]
        cost["real_q35_hpet_off_2026"] = r["verdict"]["predicted_read_ns"]
        product["real_q35_hpet_off_2026"] = r["platform"]["smbios"][
            "product"]
        hostile_cost = hostile.hostile_report()["verdict"]["predicted_read_ns"]
        self.assertLess(hostile_cost, min(cost.values()))
        # the bare .json inputs carry their "unverified" mark in the cell
        bare = ("kvm_good", "hyperv", "tcg_q35")
        shown = {n: n + " unverified" if n in bare else n for n in cost}
        want = [[shown[n] for n in sorted(
            (n for n in cost if product[n] == p), key=cost.get)]
            for p in set(product.values())]
        want.append([hostile.STRINGS["probe.label"]])
        self.assertEqual(sorted(res["order_by_predicted"]), sorted(want))

    def test_filter(self):
        """Typing a run's label keeps its row and group, a word no row
        holds hides every group, an empty box shows every row again."""
        res = self.selftest()
        f = res["filter"]
        self.assertTrue(f["word"])
        self.assertGreaterEqual(f["shown"], 1)
        self.assertEqual(f["groups"], 1)
        self.assertEqual(f["none"], 0)
        self.assertEqual(f["all"], 6 + 3)    # run rows and group rows

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


    def test_charts_and_kernel_set_on_the_page(self):
        dom = self.dom
        for name in ("tsc", "kvm-clock", "hpet", "acpi_pm", "pit",
                     "hyperv_clocksource_tsc_page", "gaps"):
            m = re.search(r'<figure id="chart-%s"><svg' % re.escape(
                name.replace("-", "-")), dom)
            self.assertIsNotNone(m, name)
        self.assertIn("tsc: read cost per call (below the TSC step", dom)
        # the TSC's cost row in the side-by-side table: its estimate
        self.assertRegex(dom, r"<th>estimate ns</th><td>[0-9.]+</td>")
        # the verdict over the kernels: 6.1 sent to acpi_pm on hpet=off
        self.assertIn("4.19-6.11 (Debian 12's 6.1): acpi_pm ~", dom)
        self.assertIn("unverified", dom)    # the bare .json fixtures

    def test_screenshot(self):
        self.assertTrue(os.path.exists(self.png), "no screenshot")
        from cptools.debpkg import import_debian
        try:
            image = import_debian("PIL.Image")
        except ImportError:
            self.skipTest("no python3-pil to read the screenshot")
        with image.open(self.png) as im:
            self.assertEqual(im.size, (1280, 6000))
            colours = im.convert("RGB").resize((64, 300)).getcolors(100000)
        # a page of charts and tables, not a blank or error page
        self.assertGreater(len(colours), 50)


if __name__ == "__main__":
    unittest.main()
