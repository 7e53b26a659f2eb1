"""The arm64 probe's boot under AAVMF (issue 37): build/aarch64/clockprobe.img
on qemu-system-aarch64 -machine virt -cpu max -smp 4, TCG, one boot
(about 10-12 s here).  make test does not build the arm64 probe (the
Makefile's rules are x86's); this test runs `make arm64-probe` first, which
fetches Debian's arm64 gnu-efi once (build/aarch64/gnu-efi).

Skips, naming why, when qemu-system-aarch64, AAVMF or the cross compiler
are not installed (sh scripts/install-deps arm64), or when the arm64
gnu-efi cannot be fetched (no Debian apt source or no network).  Asserts
the report's structure and the figures' consistency: a verified frame,
the cntvct read cost with its SE, CNTFRQ non-zero and the measured rate
within its own stated uncertainty of it, every CPU started and the
cross-CPU check without a backward step, the virtual timer's costs and
firing (structure only) with its registers restored, verdict.arm64, every name
described in docs/report-schema.json.
"""

import os
import shutil
import subprocess
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import arm64efi, frame, schema  # noqa: E402

BOOT_BUDGET_S = 60
# The x86 sections the schema's top-level (and probe/verdict) "required"
# lists name: an arm64 report has none of them (docs/report-schema.json,
# arm64's description).  Any other complaint fails the test.
X86_ONLY = {"platform", "baselines", "sources", "kvmclock", "cross_cpu",
            "drift", "gaps", "run_id", "run_id_source", "label",
            "linux_clocksource", "linux_kernel", "vdso", "predicted_read_ns",
            "reasoning", "by_kernel", "warnings"}

_boot = {}


def boot():
    """One boot for every test of this file: (report, log, rc, seconds)
    or a skip reason."""
    if "r" in _boot:
        return _boot["r"]
    if not shutil.which("aarch64-linux-gnu-gcc"):
        _boot["r"] = "aarch64-linux-gnu-gcc not installed (sh scripts/install-deps arm64)"
        return _boot["r"]
    why = arm64efi.missing()
    if why and "not built" not in why:
        _boot["r"] = why
        return why
    deps = subprocess.run(["make", "-s", "arm64-deps"], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    if deps.returncode != 0:
        _boot["r"] = "arm64 gnu-efi could not be fetched: " + (
            deps.stderr.strip().splitlines() or ["?"])[-1]
        return _boot["r"]
    build = subprocess.run(["make", "-s", "-j2", "arm64-probe"], cwd=REPO, capture_output=True,
                           text=True, timeout=900)
    if build.returncode != 0:
        raise AssertionError("make arm64-probe failed:\n" + build.stdout[-2000:] + build.stderr[-3000:])
    log, rc, secs = arm64efi.boot(smp=4, cpu="max", timeout=BOOT_BUDGET_S * 2)
    report, err = frame.extract_report(log)
    _boot["r"] = (report, err, log, rc, secs)
    return _boot["r"]


class Arm64EfiBoot(unittest.TestCase):
    def setUp(self):
        r = boot()
        if isinstance(r, str):
            self.skipTest(r)
        self.report, self.err, self.log, self.rc, self.secs = r
        if self.report is None and "verified" not in self._testMethodName:
            self.fail("no verified report: %s" % self.err)

    def test_boot_powers_off_with_a_verified_report(self):
        self.assertEqual(self.rc, 0, "QEMU exit %s; log tail:\n%s" % (self.rc, self.log[-2000:]))
        self.assertLess(self.secs, BOOT_BUDGET_S)
        self.assertIsNone(self.err, "%s; log tail:\n%s" % (self.err, self.log[-2000:]))
        self.assertEqual(self.report["schema"], 1)
        self.assertEqual(self.report["probe"]["arch"], "aarch64")
        self.assertEqual(self.report["errors"], [])

    def test_console_is_the_spcr_pl011(self):
        c = self.report["arm64"]["console"]
        self.assertEqual(c["kind"], "pl011", c)
        self.assertTrue(c["walked"])
        self.assertEqual(c["walk_mair_attr"], "0x0")  # Device-nGnRnE

    def test_cntvct_cost_with_its_se(self):
        reads = {r["name"]: r for r in self.report["arm64"]["reads"]}
        step_ns = 1e9 / self.report["arm64"]["cntfrq"]["hz"]
        for name in ("cntvct", "cntpct", "midr"):
            r = reads[name]
            self.assertTrue(r["measured"], r)
            self.assertIsNotNone(r["read_se_ns"], r)
            self.assertGreaterEqual(r["pairs"], 3)
            # The engine's figures (measure_op, as x86's sources[]), and the
            # first names filled from them.
            cost = r["read_cost"]
            self.assertEqual(cost["unit"], "CNTVCT ticks")
            self.assertTrue(cost["method"].startswith("isb;mrs cntvct_el0;isb"), cost["method"])
            self.assertEqual(cost["estimate_method"], "interleaved_turns", cost)
            self.assertEqual(cost["estimate_ns"], r["read_ns"], r)
            self.assertEqual(cost["estimate_se_ns"], r["read_se_ns"], r)
            self.assertIsNotNone(r["throughput_net_ns"], r)
            if cost["below_resolution"]:
                # Under two counter steps (MIDR: about 1.5 ns against TCG's
                # 16 ns tick): the estimate may come out near 0 or clamped
                # to it, but it must resolve far finer than one step.
                self.assertGreaterEqual(r["read_ns"], 0, r)
                self.assertLess(r["read_se_ns"], step_ns / 4, r)
            else:
                self.assertGreater(r["read_ns"], 0, r)
                # A figure must be more precise than itself.
                self.assertLess(r["read_se_ns"], r["read_ns"], r)
        self.assertIsNotNone(self.report["arm64"]["counter_step"]["method"])
        # -cpu max under QEMU 7.2 has no FEAT_ECV: the register is left alone.
        cpu = self.report["arm64"]["cpu"]
        self.assertEqual(reads["cntvctss"]["measured"], cpu["ecv"] >= 1)
        # TCG emulates both counters alike: no trap.
        self.assertEqual(self.report["arm64"]["cntpct_trapped"], "no")

    def test_measured_rate_within_its_precision_of_cntfrq(self):
        a = self.report["arm64"]
        hz = a["cntfrq"]["hz"]
        self.assertGreater(hz, 0)
        rate = a["rate"]
        self.assertTrue(rate["measured"], rate.get("absent"))
        self.assertGreaterEqual(rate["seconds"], 2)
        # The bound is ceil(ppm), the figure rounded to a hertz.
        allowed = hz * rate["uncertainty_ppm"] / 1e6 + 1
        self.assertLessEqual(abs(rate["hz"] - hz), allowed, rate)
        self.assertFalse(a["cntfrq"]["measured_disagrees"])

    def test_every_cpu_started_and_the_counters_agree(self):
        a = self.report["arm64"]
        cpus = a["cpus"]
        self.assertEqual(len(cpus), 4)
        for c in cpus:
            self.assertTrue(c["started"], c)
            self.assertEqual(c["cntfrq"], a["cntfrq"]["hz"])
        x = a["cross_cpu"]
        self.assertTrue(x["measured"], x)
        self.assertEqual(x["cpus"], 3)
        self.assertEqual(x["backwards"], 0, x)
        for c in cpus[1:]:
            if c["xc_rounds"]:
                self.assertLessEqual(c["xc_offset_lo_ticks"], c["xc_offset_hi_ticks"], c)

    def test_verdict_arm64(self):
        v = self.report["verdict"]["arm64"]
        self.assertEqual(v["linux_clocksource"], "arch_sys_counter")
        cost = next(r for r in self.report["arm64"]["reads"] if r["name"] == "cntvct")
        # The measured cost is the one the verdict was given: the read's
        # figure is rounded to its SE's digits (48.65 +- 0.011), the
        # verdict's to the picosecond (48.648), so they agree to that
        # rounding, half a unit of the read's last digit.
        digits = len(str(cost["read_ns"]).partition(".")[2])
        self.assertLessEqual(abs(v["clock_gettime_read_ns"] - cost["read_ns"]),
                             0.5 * 10 ** -digits + 1e-9, (v, cost))
        self.assertTrue(v["by_kernel"])

    def test_virtual_timer_measured_and_restored(self):
        # Structure only: TCG's figures are the emulator's costs.
        v = self.report["arm64"]["vtimer"]
        self.assertTrue(v["measured"], v.get("absent"))
        self.assertIsNone(v["absent"])
        self.assertIn("GIC", v["not_measured"])
        self.assertIs(v["restored"], True, v)
        if v["boot_cpu_firmware"]:
            # AAVMF's tick is the boot CPU's virtual timer: left alone,
            # measured on another CPU.
            self.assertEqual(int(v["boot_cpu_ctl_found"], 16) & 1, 1)
            self.assertNotEqual(v["cpu_mpidr"], self.report["arm64"]["cpu"]["mpidr"])
        self.assertEqual(int(v["ctl_found"], 16) & 1, 0, v)
        costs = {c["name"]: c for c in v["costs"]}
        self.assertEqual(sorted(costs), ["arm", "ctl_read"])
        for c in costs.values():
            self.assertTrue(c["measured"], c)
            self.assertGreater(c["read_ns"], 0, c)
            self.assertIsNotNone(c["read_se_ns"], c)
            self.assertLess(c["read_se_ns"], c["read_ns"], c)
        f = v["firing"]
        self.assertGreater(f["fired"], 0, f)
        self.assertEqual(f["fired"] + f["late_arm"] + f["timeouts"], f["shots"])
        self.assertGreaterEqual(f["latency_ticks_min"], 0)
        self.assertLessEqual(f["latency_ticks_min"], f["latency_ticks_p50"])
        self.assertLessEqual(f["latency_ticks_p50"], f["latency_ticks_p99"])
        self.assertLessEqual(f["latency_ticks_p99"], f["latency_ticks_max"])
        self.assertIsNotNone(f["latency_ticks_se"])
        self.assertGreaterEqual(f["latency_ticks_se"], 0)
        self.assertIn("vtimer   arm ", self.log)

    def test_every_name_is_described(self):
        self.assertEqual(schema.undocumented(self.report), [])
        extra = [p for p in schema.validate(self.report)
                 if not any(p.endswith("'%s' is a required property" % k) for k in X86_ONLY)]
        self.assertEqual(extra, [])


if __name__ == "__main__":
    unittest.main()
