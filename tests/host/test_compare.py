"""Host tests for scripts/compare on the fixture reports (incl. broken ones).

Run: python3 -m unittest discover -s tests/host -v   (from the repo root)
"""

import csv
import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS, load_script  # noqa: E402



compare = load_script("compare")


def fx(name):
    return os.path.join(FIX, name)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    rc = compare.main(list(argv), stdout=out, stderr=err)
    return rc, out.getvalue(), err.getvalue()


def md_row(text, label):
    """The cells of the first Markdown table row whose label is `label`."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("|") and cells[0] == label:
            return cells[1:]
    raise AssertionError("no row %r" % label)


def md_section(text, title):
    start = text.index("## " + title + "\n")
    nxt = text.find("\n## ", start + 3)
    return text[start:nxt if nxt >= 0 else len(text)]


class CompareTableTest(unittest.TestCase):
    def test_markdown_side_by_side(self):
        rc, out, err = run(fx("tcg_q35.json"), fx("kvm_good.json"),
                           fx("hyperv.json"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")
        ident = md_section(out, "Identity")
        self.assertIn("| | tcg_q35 | kvm_good | hyperv |", ident)
        self.assertEqual(md_row(ident, "hypervisor"),
                         ["tcg", "kvm", "hyperv"])
        self.assertEqual(md_row(out, "CPU vendor"),
                         ["AuthenticAMD", "AuthenticAMD", "GenuineIntel"])
        # 2_445_432_xxx Hz = 2445.432 MHz (MHz with three decimals).
        self.assertEqual(md_row(md_section(out, "TSC frequency"), "chosen"),
                         ["2445.432 MHz", "2445.429 MHz", "2593.905 MHz"])
        self.assertEqual(md_row(md_section(out, "Verdict"),
                                "Linux clocksource"),
                         ["tsc", "kvm-clock", "hyperv_clocksource_tsc_page"])

    def test_sources_union_and_absent(self):
        rc, out, _ = run(fx("tcg_q35.json"), fx("hyperv.json"))
        hp = md_section(out, "Source hpet")
        self.assertEqual(md_row(hp, "status"),
                         ["ok", "absent (no HPET table)"])
        self.assertEqual(md_row(hp, "p50 cycles"), ["368", "-"])
        self.assertEqual(md_row(hp, "read path"), ["device_model", "-"])
        tp = md_section(out, "Source hyperv_clocksource_tsc_page")
        self.assertEqual(md_row(tp, "status"),
                         ["absent (no Hyper-V interface in the CPUID hypervisor leaves)", "ok"])
        self.assertEqual(md_row(tp, "p50 cycles"), ["-", "30"])

    def test_null_values_are_dashes(self):
        rc, out, _ = run(fx("tcg_q35.json"), fx("hyperv.json"))
        freq = md_section(out, "TSC frequency")
        # measured_vs_hpet is null on Hyper-V (no HPET).
        self.assertEqual(md_row(freq, "measured_vs_hpet"),
                         ["2445.432 MHz", "-"])
        self.assertNotIn("| pvclock |", freq)  # null everywhere: no row
        self.assertEqual(md_row(md_section(out, "Cross-CPU"),
                                "max skew cycles"), ["0", "-"])

    def test_minimal_report_does_not_break(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        p = os.path.join(tmp, "bare.json")
        with open(p, "w") as f:
            json.dump({"schema": 1, "sources": [{"name": "tsc"}],
                       "drift": [{"a": "tsc", "b": "hpet", "ppm": None}]}, f)
        rc, out, err = run(p, fx("tcg_q35.json"))
        self.assertEqual(rc, 0, err)
        self.assertEqual(md_row(out, "CPU vendor"), ["-", "AuthenticAMD"])
        self.assertEqual(md_row(md_section(out, "Drift"), "tsc/hpet ppm"),
                         ["-", "0.815"])

    def test_logs_are_accepted(self):
        rc, out, err = run(fx("crlf.log"), fx("ansi.log"),
                           fx("kvm_fallback.log"))
        self.assertEqual(rc, 0, err)
        self.assertIn("| | crlf | ansi | kvm_fallback |", out)

    def test_same_basename_gets_unique_labels(self):
        rc, out, _ = run(fx("tcg_q35.json"), fx("tcg_q35.json"))
        self.assertIn("| | tcg_q35 | tcg_q35-2 |", out)


class BrokenInputTest(unittest.TestCase):
    def test_rejected_files_named_rest_compared(self):
        rc, out, err = run(fx("tcg_q35.json"), fx("truncated.log"),
                           fx("bad_crc.log"), fx("bad_length.log"),
                           fx("kvm_good.json"))
        self.assertEqual(rc, 1)
        self.assertIn("%s: rejected: truncated: END marker missing"
                      % fx("truncated.log"), err)
        self.assertIn("%s: rejected: CRC mismatch" % fx("bad_crc.log"), err)
        self.assertIn("%s: rejected: length mismatch" % fx("bad_length.log"),
                      err)
        self.assertIn("| | tcg_q35 | kvm_good |", out)
        rej = md_section(out, "Rejected inputs")
        self.assertIn("`%s`: truncated: END marker missing"
                      % fx("truncated.log"), rej)

    def test_nothing_usable(self):
        rc, out, err = run(fx("truncated.log"), fx("no_report.log"))
        self.assertEqual(rc, 2)
        self.assertIn("no usable report", err)

    def test_broken_json_file(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        p = os.path.join(tmp, "cut.json")
        with open(p, "w") as f:
            f.write('{"schema": 1, "platform": {')
        rc, out, err = run(p, fx("hyperv.json"))
        self.assertEqual(rc, 1)
        self.assertIn("cut.json: rejected: JSON does not parse", err)


class BaselineTest(unittest.TestCase):
    def test_incident_is_flagged(self):
        rc, out, err = run("--baseline", fx("kvm_good.json"),
                           fx("kvm_fallback.log"))
        self.assertEqual(rc, 1)
        verdict = md_section(out, "Verdict")
        self.assertEqual(md_row(verdict, "Linux clocksource"),
                         ["kvm-clock", "acpi_pm **!!**"])
        # Real captures under this nested KVM, where RDTSC traps: a
        # kvm-clock read (page reads around a trapped RDTSC) costs more
        # than the fallback's port read, so no cost regression here.
        self.assertEqual(md_row(verdict, "predicted read ns"),
                         ["150722.3", "54058.9 (x0.359)"])
        regs = md_section(out, "Regressions against kvm_good (baseline)")
        for want in ("Linux clocksource kvm-clock -> acpi_pm",
                     "vDSO lost", "kvm-clock lost",
                     "new warnings: ACPI_PM_FALLBACK, KVMCLOCK_HIDDEN",
                     "status ok -> absent (no HPET table)"):
            self.assertIn(want, regs)
        self.assertIn("regression in kvm_fallback (Verdict): Linux "
                      "clocksource kvm-clock -> acpi_pm", err)

    def test_unchanged_costs_not_flagged(self):
        rc, out, _ = run("--baseline", fx("kvm_good.json"),
                         fx("kvm_fallback.json"))
        pm = md_section(out, "Source acpi_pm")
        # A cheaper PM read in the second capture: a ratio, no flag.
        self.assertEqual(md_row(pm, "p50 cycles"), ["50666", "39739 (x0.784)"])

    def test_identical_reports_pass(self):
        rc, out, err = run("--baseline", fx("kvm_good.json"),
                           fx("kvm_good.json"))
        self.assertEqual(rc, 0, err)
        self.assertIn("None beyond x2.", out)

    def test_threshold(self):
        F = compare.Field("S", "cost", None, "cost")
        self.assertIsNotNone(compare.regression(F, 100, 200, 2.0))
        self.assertIsNone(compare.regression(F, 100, 199, 2.0))
        self.assertIsNone(compare.regression(F, 100, 50, 2.0))
        self.assertIsNone(compare.regression(F, None, 50, 2.0))
        C = compare.Field("S", "warps", None, "count")
        self.assertEqual(compare.regression(C, 0, 3, 2.0), "warps 0 -> 3")
        self.assertIsNone(compare.regression(C, 0, 0, 2.0))
        G = compare.Field("S", "invariant TSC", None, "good")
        self.assertEqual(compare.regression(G, True, False, 2.0),
                         "invariant TSC lost")
        self.assertIsNone(compare.regression(G, False, True, 2.0))
        K = compare.Field("S", "cs", None, "clock")
        self.assertIsNone(compare.regression(K, "acpi_pm", "tsc", 2.0))
        self.assertIsNotNone(compare.regression(K, "kvm-clock", "hpet", 2.0))

    def test_rejected_baseline(self):
        rc, out, err = run("--baseline", fx("bad_crc.log"),
                           fx("kvm_good.json"))
        self.assertEqual(rc, 2)
        self.assertIn("baseline could not be used", err)


class OtherFormatsTest(unittest.TestCase):
    def test_csv(self):
        rc, out, _ = run("--wide-csv", "--baseline", fx("kvm_good.json"),
                         fx("kvm_fallback.json"), fx("truncated.log"))
        self.assertEqual(rc, 1)
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], ["section", "field",
                                   "kvm_good (baseline)", "kvm_fallback",
                                   "kvm_fallback regression"])
        by = {(r[0], r[1]): r[2:] for r in rows[1:]}
        self.assertEqual(by[("Verdict", "Linux clocksource")],
                         ["kvm-clock", "acpi_pm",
                          "Linux clocksource kvm-clock -> acpi_pm"])
        self.assertEqual(by[("rejected", fx("truncated.log"))],
                         ["truncated: END marker missing"])

    def test_html_is_self_contained(self):
        rc, out, _ = run("--html", fx("tcg_q35.json"), fx("kvm_good.json"))
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("<!DOCTYPE html>"))
        self.assertIn("<svg", out)
        # One inline script (sorting), allowed by its hash alone; nothing
        # fetched from anywhere.
        self.assertEqual(out.count("<script"), 1)
        self.assertIn("script-src 'sha256-", out)
        for external in ("<link", "src=", "@import"):
            self.assertNotIn(external, out)
        # url() only for the charts' own clip paths (url(#id))
        self.assertEqual([u for u in re.findall(r"url\(([^)]*)\)", out)
                          if not u.startswith("#")], [])
        # the SVG namespaces, and matplotlib's name in the charts' metadata
        self.assertEqual(set(re.findall(r"https?://[^\"\s<,]+", out)) - {
            "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink",
            "http://purl.org/dc/elements/1.1/", "http://creativecommons.org/ns#",
            "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
            "http://purl.org/dc/dcmitype/StillImage", "https://matplotlib.org/"},
            set())
        # The groups come first, then the runs' verdicts, then the details.
        self.assertLess(out.index('id="groups"'),
                        out.index('class="sortable filterable runs"'))
        self.assertLess(out.index('class="sortable filterable runs"'),
                        out.index("<h2>Details</h2>"))

    def test_svg_charts(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        rc, out, _ = run("--svg", tmp, fx("tcg_q35.json"),
                         fx("kvm_good.json"), fx("hyperv.json"))
        self.assertEqual(rc, 0)
        names = sorted(os.listdir(tmp))
        # every source's histogram, the TSC's too, and the gap timeline
        self.assertEqual(names, sorted([
            "tsc.svg", "rdtscp.svg", "hpet.svg", "acpi_pm.svg",
            "kvm-clock.svg", "pit.svg", "hyperv_clocksource_tsc_page.svg",
            "gaps.svg"]))
        ns = "{http://www.w3.org/2000/svg}"
        root = ET.parse(os.path.join(tmp, "hpet.svg")).getroot()
        labels = ["".join(t.itertext()) for t in root.iter(ns + "text")]
        # Hyper-V has no HPET: only the two machines where it is ok.
        self.assertIn("tcg_q35", labels)
        self.assertIn("kvm_good", labels)
        self.assertNotIn("hyperv", labels)
        # Decades of a log axis in words: 100 ns, 1 us, ...
        self.assertIn("100 ns", labels)
        self.assertIn("1 us", labels)

if __name__ == "__main__":
    unittest.main()
