"""Predicted next to actual (cptools/guestjoin.py, compare), on recorded
reports: the probe and clockprobe-guest booted on the same QEMU
configurations (tests/fixtures/guest/*.log, recorded with
scripts/linux-guest: QEMU 7.2 TCG, Debian 6.1.0-57 and 6.12.95, both boots
of a configuration with the same SMBIOS UUID), one guest forced onto
acpi_pm with clocksource=acpi_pm, and a lost watchdog race built from the
real 6.12 log lines."""
import copy
import io
import json
import os
import sqlite3
import tempfile
import unittest

from hostlib import REPO, load_script
from cptools import fleet, frame, guestjoin, schema

FIX = os.path.join(REPO, "tests", "fixtures", "guest")


def fixture(name):
    return os.path.join(FIX, name)


def load(name):
    with open(fixture(name)) as f:
        text = f.read()
    if name.startswith("guest-"):
        rep, err = frame.extract_guest_report(text)
    else:
        rep, err = frame.extract_report(text)
    assert err is None, (name, err)
    return rep


PROBE = "probe-q35-qemu64-smp2.log"
PROBE_NOHPET = "probe-q35-qemu64-smp2-nohpet.log"


def items(j):
    return {it["item"]: it for it in j["items"]}


class Recorded(unittest.TestCase):
    def test_fixtures_are_real_and_described(self):
        for name in sorted(os.listdir(FIX)):
            if name.startswith("guest-") and name.endswith(".log"):
                with self.subTest(name=name):
                    rep = load(name)
                    self.assertEqual(schema.check_guest_report(rep), [])
                    self.assertEqual(rep["platform"]["hypervisor"]["name"],
                                     "tcg")

    def test_same_vm_same_uuid(self):
        probe = load(PROBE)
        for name in ("guest-q35-qemu64-smp2-6.1.log",
                     "guest-q35-qemu64-smp2-6.12.log",
                     "guest-q35-qemu64-smp2-6.12-forced-acpi_pm.log"):
            self.assertEqual(guestjoin.identity(load(name), True)[0],
                             guestjoin.identity(probe, False)[0])
        self.assertNotEqual(guestjoin.identity(load(PROBE_NOHPET), False)[0],
                            guestjoin.identity(probe, False)[0])

    def check_agrees(self, guest, probe, current):
        j = guestjoin.join(load(guest), load(probe))
        it = items(j)
        for name in ("clocksource", "available", "vdso"):
            self.assertTrue(it[name]["agree"], (name, it[name]))
        self.assertEqual(it["clocksource"]["actual"], current)
        self.assertEqual(j["findings"], [])
        return j

    def test_61_hpet_as_predicted(self):
        j = self.check_agrees("guest-q35-qemu64-smp2-6.1.log", PROBE, "hpet")
        self.assertEqual(j["kernel_range"], "4.19-6.11")
        it = items(j)
        self.assertEqual(it["vdso"]["predicted"], False)
        # The probe: hpet's read (90.3 ns) plus its 150 ns syscall estimate;
        # the guest: the median vDSO call, which falls back to the syscall.
        self.assertAlmostEqual(it["read_ns"]["predicted"], 240.32)
        self.assertEqual(it["read_ns"]["actual"], 741)
        self.assertTrue(it["read_ns"]["agree"])
        # One row per available clocksource, measured with --switch.
        self.assertEqual([(s["clocksource"], s["switched"])
                          for s in j["per_source"]],
                         [("hpet", False), ("acpi_pm", True)])

    def test_612_tsc_as_predicted_and_the_risk_did_not_come_true(self):
        j = self.check_agrees("guest-q35-qemu64-smp2-6.12.log", PROBE, "tsc")
        it = items(j)
        self.assertEqual(j["kernel_range"], "6.12 and later")
        self.assertEqual(it["risk"]["predicted"], "tsc_calibration")
        self.assertEqual(it["risk"]["actual"], "did not come true")
        self.assertEqual([s["clocksource"] for s in j["per_source"]],
                         ["tsc", "hpet", "acpi_pm"])
        self.assertEqual([s["actual_in_vdso"] for s in j["per_source"]],
                         [True, False, False])

    def test_61_no_hpet_acpi_pm_as_predicted(self):
        self.check_agrees("guest-q35-qemu64-smp2-nohpet-6.1.log",
                          PROBE_NOHPET, "acpi_pm")

    def test_forced_acpi_pm_is_named(self):
        j = guestjoin.join(load("guest-q35-qemu64-smp2-6.12-forced-acpi_pm"
                                ".log"), load(PROBE))
        it = items(j)
        self.assertEqual((it["clocksource"]["predicted"],
                          it["clocksource"]["actual"],
                          it["clocksource"]["agree"]),
                         ("tsc", "acpi_pm", False))
        self.assertFalse(it["vdso"]["agree"])
        self.assertFalse(it["read_ns"]["agree"])
        self.assertIn("the probe predicted tsc for Linux 6.12.95+deb12-amd64"
                      " (its prediction for 6.12 and later); the guest runs "
                      "acpi_pm since clocksource=acpi_pm on the kernel "
                      "command line", j["findings"][0])
        self.assertEqual(len(j["findings"]), 3, j["findings"])

    def lost_race(self, with_risk):
        """A 6.12 guest on q35,hpet=off that lost the refined-jiffies race
        (the real log lines), against the recorded probe report."""
        guest = copy.deepcopy(load("guest-q35-qemu64-smp2-nohpet-6.1.log"))
        with open(fixture("dmesg-6.12-nohpet-smp1-jiffies-watchdog.txt")) \
                as f:
            lines = f.read().splitlines()
        guest["kernel"]["release"] = "6.12.95+deb12-amd64"
        guest["history"]["lines"] = lines
        guest["history"]["events"] = [
            {"t_us": 1016869, "kind": "clocksource_unstable",
             "clocksource": "tsc-early", "khz": None,
             "line": lines[0].split("] ", 1)[1]},
            {"t_us": 1188938, "kind": "switched", "clocksource": "acpi_pm",
             "khz": None, "line": lines[4].split("] ", 1)[1]}]
        probe = copy.deepcopy(load(PROBE_NOHPET))
        if not with_risk:
            for e in probe["verdict"]["by_kernel"]:
                e["risk"] = None
        return guestjoin.join(guest, probe)

    def test_a_named_race_that_came_true_agrees(self):
        j = self.lost_race(with_risk=True)
        it = items(j)
        self.assertTrue(it["clocksource"]["agree"])
        self.assertEqual(it["clocksource"]["predicted"], "acpi_pm")
        self.assertIn("jiffies_watchdog", it["clocksource"]["note"])
        self.assertIn("Marking clocksource 'tsc-early' as unstable",
                      it["clocksource"]["note"])
        self.assertEqual(it["risk"]["actual"], "came true")
        self.assertEqual(j["findings"], [])

    def test_an_unnamed_demotion_quotes_the_kernel(self):
        j = self.lost_race(with_risk=False)
        self.assertFalse(items(j)["clocksource"]["agree"])
        self.assertIn("the guest runs acpi_pm since `clocksource: "
                      "timekeeping watchdog on CPU0: Marking clocksource "
                      "'tsc-early' as unstable because the skew is too "
                      "large:`", j["findings"][0])

    def test_no_prediction_for_the_release(self):
        guest = copy.deepcopy(load("guest-q35-qemu64-smp2-6.1.log"))
        guest["kernel"]["release"] = "3.10.0-1160.el7.x86_64"
        j = guestjoin.join(guest, load(PROBE))
        self.assertEqual(j["items"], [])
        self.assertIn("no prediction for Linux 3.10", j["findings"][0])


class Rules(unittest.TestCase):
    def test_verdict_for_a_release(self):
        probe = load(PROBE)
        for release, want in (("6.1.0-57-amd64", "hpet"),
                              ("6.12.95+deb12-amd64", "tsc"),
                              ("6.11.0-rc1", "hpet"), ("7.3~rc7", "tsc"),
                              ("6.12", "tsc")):
            self.assertEqual(guestjoin.verdict_for_kernel(probe, release)
                             ["linux_clocksource"], want, release)
        self.assertIsNone(guestjoin.verdict_for_kernel(probe, "4.14.1"))
        self.assertIsNone(guestjoin.verdict_for_kernel(probe, "nonsense"))

    def test_pairing_uuid_then_label(self):
        class R:
            def __init__(self, report, label):
                self.report, self.label, self.run_id = report, label, label
        g = copy.deepcopy(load("guest-q35-qemu64-smp2-6.1.log"))
        p1, p2 = load(PROBE_NOHPET), load(PROBE)
        pairs = guestjoin.pair([R(g, "g")], [R(p1, "a"), R(p2, "b")])
        self.assertEqual((pairs[0][1].label, pairs[0][2]),
                         ("b", "smbios_uuid"))
        g["platform"]["smbios"]["uuid"] = None
        g["guest"]["label"] = "vm-7"
        p1 = copy.deepcopy(p1)
        p1["probe"]["label"] = "vm-7"
        pairs = guestjoin.pair([R(g, "g")], [R(p2, "b"), R(p1, "a")])
        self.assertEqual((pairs[0][1].label, pairs[0][2]), ("a", "label"))
        g["guest"]["label"] = "vm-8"
        self.assertEqual(guestjoin.pair([R(g, "g")], [R(p1, "a")])[0][1:],
                         (None, None))


class CompareCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.compare = load_script("compare")

    def run_compare(self, *args):
        out, err = io.StringIO(), io.StringIO()
        rc = self.compare.main(list(args), stdout=out, stderr=err)
        return rc, out.getvalue(), err.getvalue()

    def test_markdown_section_and_findings(self):
        rc, out, err = self.run_compare(
            fixture(PROBE), fixture("guest-q35-qemu64-smp2-6.1.log"),
            fixture("guest-q35-qemu64-smp2-6.12-forced-acpi_pm.log"))
        self.assertEqual(rc, 0, err)
        self.assertIn("## Predicted vs actual (clockprobe-guest)", out)
        self.assertIn("| clocksource | hpet | hpet | yes |  |", out)
        self.assertIn("| clocksource | tsc | acpi_pm | **NO** |  |", out)
        self.assertIn("finding: the probe predicted tsc for Linux "
                      "6.12.95+deb12-amd64", out)
        self.assertIn("compare: guest-q35-qemu64-smp2-6.12-forced-acpi_pm: "
                      "finding:", err)
        # The probe report is still the one column of the table.
        self.assertIn("| | probe-q35-qemu64-smp2 |", out)

    def test_a_guest_alone_is_accepted(self):
        rc, out, err = self.run_compare(
            fixture("guest-q35-qemu64-smp2-6.12.log"))
        self.assertEqual(rc, 0, err)
        self.assertIn("no probe report of this VM among the inputs", out)

    def test_long_formats_and_sqlite_carry_the_pairs(self):
        args = [fixture(PROBE), fixture("guest-q35-qemu64-smp2-6.12.log")]
        rc, out, _ = self.run_compare("--jsonl", *args)
        self.assertEqual(rc, 0)
        rows = [json.loads(ln) for ln in out.splitlines()]
        pv = {(r["name"], r["field"]): r["value"] for r in rows
              if r["section"] == "predicted_vs_actual"}
        self.assertEqual(pv[("clocksource", "agree")], True)
        self.assertEqual(pv[("pair", "paired_by")], "smbios_uuid")
        self.assertEqual(pv[("read_ns", "predicted")], 5.888)
        # The guest report's own figures are rows too.
        self.assertTrue(any(r["section"] == "measurements" and
                            r["field"] == "vdso.cost.ns.p50" for r in rows))
        rc, out, _ = self.run_compare("--wide-csv", *args)
        self.assertIn("predicted vs actual,guest-q35-qemu64-smp2-6.12: "
                      "clocksource,tsc,tsc,yes", out)
        d = tempfile.mkdtemp(prefix="cp-guestjoin-")
        db = os.path.join(d, "fleet.db")
        try:
            self.assertEqual(self.run_compare("--sqlite", db, *args)[0], 0)
            con = sqlite3.connect(db)
            got = con.execute("SELECT item, predicted, actual, agree FROM "
                              "predicted_vs_actual ORDER BY rowid").fetchall()
            con.close()
        finally:
            for f in os.listdir(d):
                os.remove(os.path.join(d, f))
            os.rmdir(d)
        self.assertEqual(got[0], ("clocksource", "tsc", "tsc", 1))
        self.assertEqual([g[0] for g in got],
                         ["clocksource", "available", "vdso", "read_ns",
                          "risk"])

    def test_a_damaged_guest_report_is_rejected_by_name(self):
        d = tempfile.mkdtemp(prefix="cp-guestjoin-")
        try:
            bad = os.path.join(d, "bad.log")
            with open(fixture("guest-q35-qemu64-smp2-6.12.log")) as f:
                text = f.read()
            with open(bad, "w") as f:
                f.write(text.replace('"current":"tsc"', '"current":"tsx"'))
            rc, out, err = self.run_compare(fixture(PROBE), bad)
        finally:
            os.remove(bad)
            os.rmdir(d)
        self.assertEqual(rc, 1)
        self.assertIn("bad.log: rejected: CRC mismatch", err)
        self.assertNotIn("Predicted vs actual", out)

    def test_load_runs_without_guests_rejects_them(self):
        runs, rejected, _ = fleet.load_runs(
            [fixture("guest-q35-qemu64-smp2-6.12.log")])
        self.assertEqual(runs, [])
        self.assertIn("clockprobe-guest report", rejected[0][1])


if __name__ == "__main__":
    unittest.main()
