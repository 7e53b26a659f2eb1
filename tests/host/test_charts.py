"""The charts (cptools/charts.py and the watch's cptools/watchchart.py,
matplotlib SVG) read back as a person would read them: each SVG parses,
its tick labels are at the data's scale, every source (the TSC too) has
its histogram, and the watch chart has evenly spaced time ticks for
1.5 s steps and a hpet line that does not hide an acpi_pm line under it.

Skipped, with the reason, where Debian's python3-matplotlib is missing
(scripts/install-deps test installs it).
"""

import os
import re
import resource
import sys
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, load_script  # noqa: E402
import hostile  # noqa: E402
from cptools import charts, fleetpage, frame, watchchart, watchlog  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
HPET_OFF = "real_q35_hpet_off_2026.log"


def report(name):
    return frame.load_report_file(os.path.join(FIX, name))[0]


def number(label):
    """A tick label as a number: "−1.25" (matplotlib's minus), "100 ns"."""
    m = re.match(r"([−-]?[0-9.]+)", label)
    return float(m.group(1).replace("−", "-")) if m else None


def tick_positions(svg_text, axis):
    """[(label, position)] of an axis: the position of each tick mark (the
    <use> in the tick's group), x for the x axis, y for the y axis."""
    root = ET.fromstring(svg_text)
    out = []
    for g in root.iter(SVG + "g"):
        if not re.fullmatch(r"%stick_\d+" % axis, g.get("id") or ""):
            continue
        use = next(g.iter(SVG + "use"), None)
        label = " ".join("".join(t.itertext()).strip()
                         for t in g.iter(SVG + "text")).strip()
        if use is not None and label:    # minor ticks carry no label
            out.append((label, float(use.get(axis))))
    return out


class ChartTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            charts.pyplot()
        except charts.ChartError as e:
            raise unittest.SkipTest(str(e))
        cls.runs = [(n, report(f)) for n, f in (
            ("hpet_off", HPET_OFF), ("kvm_good", "kvm_good.json"),
            ("make_run", "real_make_run.log"))]

    def parse(self, svg):
        root = ET.fromstring(svg)    # well-formed, one element
        self.assertEqual(root.tag, SVG + "svg")
        self.assertFalse(svg.lstrip().startswith("<?xml"))  # embeddable
        return root

    def test_every_source_has_its_histogram_the_tsc_too(self):
        compare = load_script("compare")
        drawn = {name: svg for name, svg, _ in compare.build_charts(
            [n for n, _ in self.runs], [r for _, r in self.runs])}
        for name in ("tsc", "kvm-clock", "hpet", "acpi_pm", "pit", "gaps"):
            self.assertIn(name, drawn)
            self.parse(drawn[name])
        tsc = drawn["tsc"]
        # below the TSC step: the bound shaded, the estimate named
        self.assertIn("below 2 TSC steps (&lt; ", tsc)
        self.assertIn("the dotted line is the estimate", tsc)

    def test_histogram_ticks_at_the_datas_scale(self):
        svg = charts.read_cost_histogram("acpi_pm", self.runs[:1])
        self.parse(svg)
        xs = tick_positions(svg, "x")
        labels = [lab for lab, _ in xs]
        # acpi_pm costs ~90 ns here: the decades around it are labelled in
        # words, one decade per equal step (a log axis)
        self.assertIn("100 ns", labels)
        self.assertIn("1 us", labels)
        pos = [p for _, p in xs]
        steps = [b - a for a, b in zip(pos, pos[1:])]
        self.assertTrue(all(abs(s - steps[0]) < 0.01 * steps[0]
                            for s in steps), steps)
        # the y axis is a share: 0 % to at most 100 %
        ys = [number(lab) for lab, _ in tick_positions(svg, "y")]
        self.assertEqual(ys[0], 0)
        self.assertLessEqual(max(ys), 100)
        d = charts.histogram_data(self.runs[0][1], "acpi_pm")
        peak = max(d[1])
        self.assertGreater(max(ys), peak * 0.8)   # the axis fits the bars

    def test_watch_ticks_for_one_and_a_half_second_steps(self):
        # Records every 1.5 s (the old chart labelled them 0 s, 2 s, 3 s,
        # 4 s, 6 s at even spacing); offsets of a few microseconds.
        series = {"hpet": [(1.5 * i, -100.0 * i) for i in range(1, 6)],
                  "acpi_pm": [(1.5 * i, -100.0 * i - 3) for i in
                              range(1, 6)]}
        svg = watchchart.watch_offsets(series, [], "w")
        self.parse(svg)
        xs = [(number(lab), p) for lab, p in tick_positions(svg, "x")]
        # every tick's position is linear in its value
        (v0, p0), (v1, p1) = xs[0], xs[-1]
        scale = (p1 - p0) / (v1 - v0)
        for v, p in xs:
            self.assertAlmostEqual(p, p0 + (v - v0) * scale, delta=0.5)
        self.assertGreaterEqual(v1, 7.5 - 1.5)
        # y: nice, evenly stepped ticks in the data's unit (ns here)
        ys = sorted(number(lab) for lab, _ in tick_positions(svg, "y"))
        steps = {round(b - a, 6) for a, b in zip(ys, ys[1:])}
        self.assertEqual(len(steps), 1, ys)
        step = steps.pop()
        mant = step / 10 ** int(f"{step:e}".split("e")[1])
        self.assertIn(round(mant, 6), (1.0, 2.0, 2.5, 5.0))
        self.assertIn("offset, ns", svg)
        # two lines, told apart by style: acpi_pm is not hidden under hpet
        self.assertIn("tsc vs hpet", svg)
        self.assertIn("tsc vs acpi_pm", svg)
        dashes = set(re.findall(r"stroke-dasharray: ([0-9., ]+)", svg))
        self.assertGreaterEqual(len(dashes), 1)

    def test_watch_chart_of_a_stopped_vm_gives_the_rtc_its_own_panel(self):
        c = watchlog.check(watchlog.load(
            [os.path.join(os.path.dirname(FIX), "watch",
                          "tcg-stop-cont.log")]))
        svg = load_script("watch").svg(c["records"], "stop/cont")
        self.parse(svg)
        self.assertIn("offset, ms", svg)     # the RTC: 3 s stopped
        self.assertIn("offset, us", svg)     # hpet, acpi_pm: microseconds

    def test_untrusted_labels(self):
        r = hostile.hostile_report()
        svg = charts.strip_chart("t", "ns", [(hostile.SCRIPT_TAG, [
            ("$x^2$ " + hostile.CONTROL, 5.0)])])
        self.parse(svg)
        self.assertNotIn("<script", svg)
        self.assertEqual(ET.fromstring(svg).findall(".//" + SVG + "script"),
                         [])
        self.assertIsNotNone(r)

    def test_same_data_same_file(self):
        a = charts.read_cost_histogram("tsc", self.runs)
        b = charts.read_cost_histogram("tsc", self.runs)
        self.assertEqual(a, b)


if __name__ == "__main__":
    unittest.main()


class BoundedChartsTest(unittest.TestCase):
    """Issue 41: charts cost ~0.2-0.5 s each, and one was drawn per source
    (209 sources: 102 s).  At most charts.MAX_SOURCE_CHARTS are drawn --
    the regressions first, then the largest read cost -- and the page says
    how many were left out."""

    SOURCES = 5000

    def big_report(self):
        import copy
        import json
        with open(os.path.join(FIX, "kvm_good.json")) as f:
            r = json.load(f)
        base = [s for s in r["sources"] if s["name"] == "acpi_pm"][0]
        for i in range(self.SOURCES - len(r["sources"])):
            s = copy.deepcopy(base)
            s["name"] = "src%05d" % i
            # above every real source's; the last: the largest
            s["read_cost"]["estimate_ns"] = 1e9 + i
            r["sources"].append(s)
        return r

    def test_html_of_5000_sources_is_bounded_and_says_so(self):
        import json
        import subprocess
        import tempfile
        import time
        from hostlib import SCRIPTS
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "big.json")
            with open(path, "w") as f:
                json.dump(self.big_report(), f)
            out = os.path.join(tmp, "page.html")
            t0 = time.monotonic()
            cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            p = subprocess.run([sys.executable, os.path.join(SCRIPTS,
                                                             "compare"),
                                "--html", path, "-o", out],
                               capture_output=True, timeout=120)
            took = time.monotonic() - t0
            cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime -
                                                     cpu0.ru_stime)
            self.assertEqual(p.returncode, 0, p.stderr.decode())
            with open(out, encoding="utf-8") as f:
                page = f.read()
        print("\n    compare --html, %d sources: %.1f s wall, %.1f s CPU"
              % (self.SOURCES, took, cpu), file=sys.stderr)
        # Issue 41: <= 10 s.  The process is single-threaded, so its CPU
        # time is its wall time on an idle machine (4.4-7.2 s measured)
        # and grows only a little when other builds share the cores (cache
        # contention, steal charged as user time: 5.4 s under the suite).
        # Twice the 10 s, so a slower or busier clean clone does
        # not fail on CPU it did not control; a quadratic would still.
        self.assertLess(cpu, 20.0)
        self.assertIn("showing %d of 5,000 sources" % charts.MAX_SOURCE_CHARTS,
                      page)
        # the side-by-side table is capped too, and says so
        self.assertIn("The table shows %d of 5,000 sources"
                      % fleetpage.DETAILS_MAX_SOURCES, page)
        self.assertEqual(page.count("<h3>Source "),
                         fleetpage.DETAILS_MAX_SOURCES)
        figures = re.findall(r'<figure id="chart-([^"]+)"', page)
        self.assertEqual(len(figures), charts.MAX_SOURCE_CHARTS + 1)  # gaps
        # The largest read cost first.
        self.assertEqual(figures[0], "src%05d" % (self.SOURCES - 9))

    def test_regressions_first_then_the_largest(self):
        compare = load_script("compare")
        reps = [self.big_report()]
        names = compare.source_names(reps)
        chosen, note = compare.chart_plan(["a"], reps, flagged={"tsc"},
                                          limit=3)
        self.assertEqual(chosen[0], "tsc")
        self.assertEqual(chosen[1:], ["src04991", "src04990"])
        self.assertIn("showing 3 of 5,000 sources", note)
        self.assertIn("regression", note)
        few, none = compare.chart_plan(["a"], reps, limit=len(names))
        self.assertEqual((few, none), (names, None))

    def test_runs_past_the_cap_are_named(self):
        with open(os.path.join(FIX, "kvm_good.json")) as f:
            import json
            r = json.load(f)
        n = charts.MAX_GAP_ROWS + 3
        pairs = [("run%d" % i, r) for i in range(n)]
        svg = charts.gap_timeline(pairs)
        self.assertIn("showing %d of %d runs" % (charts.MAX_GAP_ROWS, n), svg)
        svg = charts.read_cost_histogram("tsc", pairs)
        self.assertIn("showing %d of %d runs" % (charts.MAX_RUNS_PER_CHART,
                                                 n), svg)
        # and the page names them, under the chart (issue 38)
        compare = load_script("compare")
        drawn = {name: note for name, _, note in compare.build_charts(
            [lab for lab, _ in pairs], [r for _, r in pairs], ["tsc"])}
        self.assertEqual(
            drawn["tsc"], "%d runs not drawn (at most %d a chart): %s" % (
                n - charts.MAX_RUNS_PER_CHART, charts.MAX_RUNS_PER_CHART,
                ", ".join("run%d" % i for i in range(
                    charts.MAX_RUNS_PER_CHART, n))))
        self.assertTrue(drawn["gaps"].startswith(
            "3 runs not drawn (at most %d rows): run%d, "
            % (charts.MAX_GAP_ROWS, charts.MAX_GAP_ROWS)))

    def test_side_by_side_table_is_capped_regressions_first(self):
        """Issue 41: the details table's rows for 100,000 sources took
        16.8 s; the page shows DETAILS_MAX_SOURCES of them -- with a
        baseline those whose estimate regressed first, then the largest
        read cost -- and names the cap.  20,000 tiny sources here (the
        cap makes the table's time independent of their number)."""
        import copy
        import time
        compare = load_script("compare")
        base = report("real_make_run.log")
        base["sources"] += [{"name": "t%05d" % i, "status": "ok",
                             "read_cost": {"estimate_ns": 10.0 + i % 50}}
                            for i in range(20000)]
        other = copy.deepcopy(base)
        for s in other["sources"]:
            if s["name"] in ("t00007", "t19999"):
                s["read_cost"]["estimate_ns"] *= 3     # past x2
        t0 = time.process_time()
        t = compare.Table(["a", "b"], [base, other], 0, 2.0,
                          fleetpage.DETAILS_MAX_SOURCES)
        took = time.process_time() - t0
        sections = [sec for sec, _ in t.sections()
                    if sec.startswith("Source ")]
        self.assertEqual(len(sections), fleetpage.DETAILS_MAX_SOURCES)
        # the regressed first, the larger cost (59 x 3 ns) before
        self.assertEqual(sections[:2], ["Source t19999", "Source t00007"])
        self.assertIn("The table shows 100 of 20,009 sources (those whose "
                      "estimate regressed first", t.source_note)
        self.assertEqual({sec for _, _, sec in t.regressions},
                         {"Source t00007", "Source t19999"})
        self.assertLess(took, 3.0)
        # no cap (Markdown, --wide-csv): every source, no note
        small = compare.Table(["a"], [report("real_make_run.log")])
        self.assertIsNone(small.source_note)
