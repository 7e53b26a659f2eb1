"""scripts/verdict on a recorded real report (issue #11): it prints the
probe's own verdict, --kernel X prints what by_kernel says for X, and the
issue's scenarios, each an edit of verdict.inputs, give the kernel's
answer per era.

The fixture real_make_run.log is build/run/serial.log of a `make run`
(QEMU q35, qemu64, 2 vCPUs, TCG, OVMF): the raw serial log with the framed
report, which scripts/verdict reads as it reads build/run/report.json.
Its verdict is the rules' answer when it was recorded: a change to the
rules that changes it must record it again (make run; cp
build/run/serial.log tests/fixtures/reports/real_make_run.log) and say why
in the commit.  The expected answers of
the scenarios come from the kernel sources named in each comment (the
same cases as tests/unit/test_verdict_eras.c), not from the rules."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

from hostlib import FIX, REPO, load_script
from cptools import frame

VERDICT = os.path.join(REPO, "scripts", "verdict")
FIXTURE = os.path.join(FIX, "real_make_run.log")
RECORD_AGAIN = ("the rules now judge real_make_run.log differently: "
                "record it again (make run) if the change is meant")


def covering(ranges, kernel):
    want = tuple(int(x) for x in kernel.split("."))
    for r in ranges:
        lo = tuple(int(x) for x in r["from"].split("."))
        hi = r["to"] and tuple(int(x) for x in r["to"].split("."))
        if lo <= want and (hi is None or want <= hi):
            return r
    return None


class VerdictCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sv = load_script("verdict")
        if not os.path.isfile(cls.sv.JUDGE):
            raise unittest.SkipTest("build/host/verdict-judge missing "
                                    "(make unit)")
        cls.report, err = frame.load_report_file(FIXTURE)
        if cls.report is None:
            raise AssertionError("%s: %s" % (FIXTURE, err))
        cls.tmp = tempfile.mkdtemp(prefix="cp-verdict-")

    @classmethod
    def tearDownClass(cls):
        for name in os.listdir(cls.tmp):
            os.unlink(os.path.join(cls.tmp, name))
        os.rmdir(cls.tmp)

    def cli(self, path, *args):
        p = subprocess.run([sys.executable, VERDICT, path] + list(args),
                           capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def test_prints_the_probes_verdict(self):
        v = self.report["verdict"]
        rc, out, err = self.cli(FIXTURE, "--json")
        self.assertEqual(rc, 0, err)
        self.assertEqual(json.loads(out)["verdict"], v, RECORD_AGAIN)
        rc, out, err = self.cli(FIXTURE, "--check")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines()[0], "Linux %s: %s (%s), confidence %s"
                         % (v["linux_kernel"], v["linux_clocksource"],
                            "vDSO" if v["vdso"] else "no vDSO, syscall",
                            v["confidence"]))
        self.assertIn("  available_clocksource %s" % v["available_clocksource"],
                      out.splitlines())

    def test_kernel_61_prints_by_kernel_61(self):
        entry = covering(self.report["verdict"]["by_kernel"], "6.1")
        rc, out, err = self.cli(FIXTURE, "--kernel", "6.1", "--json")
        self.assertEqual(rc, 0, err)
        v = json.loads(out)["verdict"]
        self.assertEqual(v["linux_kernel"], "6.1")
        for key in ("linux_clocksource", "vdso", "available_clocksource",
                    "risk"):
            self.assertEqual(v[key], entry[key], key)
        self.assertEqual(v["by_kernel"], self.report["verdict"]["by_kernel"])
        rc, out, err = self.cli(FIXTURE, "--kernel", "6.1")
        self.assertEqual(out.splitlines()[0].split(":")[0], "Linux 6.1")
        self.assertIn(" %s (" % entry["linux_clocksource"],
                      out.splitlines()[0])
        # --check compares with the report's own (6.18) verdict
        rc, _, err = self.cli(FIXTURE, "--kernel", "6.1", "--check")
        self.assertEqual(rc, 1, err)

    def test_report_without_inputs_is_refused(self):
        old = copy.deepcopy(self.report)
        del old["verdict"]["inputs"]
        path = os.path.join(self.tmp, "old.json")
        with open(path, "w") as f:
            json.dump(old, f)
        rc, out, err = self.cli(path)
        self.assertEqual(rc, 2)
        self.assertIn("no verdict.inputs", err)

    # ---- the scenarios as edited inputs ----------------------------

    # A steady vCPU: one 1 ms gap in 10 minutes, no drift measured.
    STEADY = dict(gap_count=1, max_gap_ns=1000000, gap_total_ns=1000000,
                  gap_window_ms=600000, drift_ppm={},
                  drift_uncertainty_ppm={}, drift_window_ms={})

    def judge(self, kernel, **edits):
        """The verdict for `kernel` of the fixture with edited inputs, by
        scripts/verdict's judge() (the CLI's own path, without starting a
        Python per case)."""
        r = copy.deepcopy(self.report)
        inputs = r["verdict"]["inputs"]
        inputs.update(self.STEADY)
        inputs.update(edits)
        return self.sv.judge(r, kernel)

    def test_an_edited_report_file_is_judged_again(self):
        r = copy.deepcopy(self.report)
        r["verdict"]["inputs"].update(hypervisor="hyperv",
                                      hypervisor_signatures=["hyperv"],
                                      hyperv_ref_counter=True)
        path = os.path.join(self.tmp, "edited.json")
        with open(path, "w") as f:
            json.dump(r, f)
        rc, out, err = self.cli(path, "--kernel", "6.1")
        self.assertEqual(rc, 0, err)
        self.assertTrue(out.startswith("Linux 6.1: hyperv_clocksource_msr "),
                        out)

    def kvm(self, **edits):
        base = dict(cpu_vendor="intel", cpu_family=6, cpu_model=85,
                    hypervisor="kvm", hypervisor_signatures=["kvm"],
                    kvm_clocksource=True, kvm_clocksource2=True,
                    kvmclock_stable=True, pvclock_stable=True,
                    kvmclock_present=True, tsc_freq_by="pvclock",
                    tsc_known_freq=True, possible_cpus=4, running_cpus=4,
                    xcpu_tested=4)
        base.update(edits)
        return base

    def test_warps_with_tsc_adjust_on_one_package_keep_tsc(self):
        # check_tsc_sync_target(): tsc_store_and_check_tsc_adjust() finds
        # a sibling in the package and skips the sync test; the TSC is
        # exempt from the watchdog (check_system_tsc_reliable()).
        e = self.kvm(invariant_tsc=True, tsc_adjust=True, packages=1,
                     tsc_warps=3, tsc_max_skew_cycles=900)
        for k in ("6.1", "6.12"):
            v = self.judge(k, **e)
            self.assertEqual(v["linux_clocksource"], "tsc", k)
            self.assertIn("TSC_UNSYNCED", [w["code"] for w in v["warnings"]])
        # without TSC_ADJUST check_tsc_sync_source() turns it off
        v = self.judge("6.1", **dict(e, tsc_adjust=False))
        self.assertEqual(v["linux_clocksource"], "kvm-clock")
        self.assertNotIn("tsc", v["available_clocksource"].split())

    def test_hyperv_without_invariant_control_lists_no_tsc(self):
        # ms_hyperv_init_platform(): mark_tsc_unstable("running on Hyper-V")
        e = dict(cpu_vendor="intel", cpu_family=6, cpu_model=85,
                 hypervisor="hyperv", hypervisor_signatures=["hyperv"],
                 hyperv_ref_counter=True, hyperv_tsc_invariant=False,
                 hpet=False, pit=False)
        for k in ("5.10", "6.1", "6.12", "7.2"):
            v = self.judge(k, **e)
            self.assertEqual(v["linux_clocksource"], "hyperv_clocksource_msr")
            self.assertNotIn("tsc", v["available_clocksource"].split(), k)

    def test_xen_hvm_is_xen_until_xen_299(self):
        # xen_time_init(): 400; xen_tsc_safe_clocksource() (6.3+) 299 with
        # CONSTANT+NONSTOP, a stable TSC and TSC mode 2 (never emulate).
        e = dict(cpu_vendor="intel", cpu_family=6, cpu_model=85,
                 hypervisor="xen", hypervisor_signatures=["xen"],
                 xen_present=True, xen_tsc_mode=0)
        self.assertEqual(self.judge("6.1", **e)["linux_clocksource"], "xen")
        self.assertEqual(self.judge("6.12", **e)["linux_clocksource"], "xen")
        e.update(invariant_tsc=True, xen_tsc_mode=2)
        self.assertEqual(self.judge("6.1", **e)["linux_clocksource"], "xen")
        self.assertEqual(self.judge("6.12", **e)["linux_clocksource"], "tsc")

    def test_long_gap_skipped_from_6_8_and_its_backports(self):
        # clocksource_watchdog(): before 644649553508 a 5 s gap wraps the
        # PM timer (4.687 s) -> TSC unstable -> acpi_pm; with the 1 s
        # interval skip (6.8; 6.1.78, 5.10.y) the round is skipped -> tsc.
        e = dict(cpu_vendor="amd", cpu_family=23, cpu_model=49,
                 hypervisor="none", hypervisor_signatures=[],
                 hypervisor_bit=True, possible_cpus=1, running_cpus=1,
                 xcpu_tested=1, hpet=False, gap_count=1,
                 max_gap_ns=5000000000, gap_total_ns=5000000000)
        self.assertEqual(self.judge("5.15", **e)["linux_clocksource"],
                         "tsc")
        for k, want in (("4.19", "acpi_pm"), ("5.12", "acpi_pm"),
                        ("6.1", "tsc"), ("6.12", "tsc")):
            self.assertEqual(self.judge(k, **e)["linux_clocksource"], want, k)

    def test_tdx_forces_tsc_reliable(self):
        # tdx_early_init(): TSC_RELIABLE (6.6+): no sync check -> tsc on
        # 6.12; 6.1's check_tsc_sync_source() turns a warping TSC off.
        e = dict(cpu_vendor="intel", cpu_family=6, cpu_model=143,
                 hypervisor="none", hypervisor_signatures=[], tdx=True,
                 invariant_tsc=True, possible_cpus=4, running_cpus=4,
                 xcpu_tested=4, tsc_warps=1, hpet=False)
        self.assertEqual(self.judge("6.1", **e)["linux_clocksource"],
                         "acpi_pm")
        v = self.judge("6.12", **e)
        self.assertEqual(v["linux_clocksource"], "tsc")
        self.assertIsNone(v["risk"])


if __name__ == "__main__":
    unittest.main()
