"""scripts/verdict on a recorded real report (issue #11): it prints the
probe's own verdict, --kernel X prints what by_kernel says for X, and the
issue's scenarios, each an edit of verdict.inputs, give the kernel's
answer per era.

The fixture real_make_run.log is build/run/serial.log of a `make run`
(QEMU q35, qemu64, 2 vCPUs, TCG, OVMF): the raw serial log with the framed
report, which scripts/verdict reads as it reads build/run/latest/report.json.
Recorded again for issue #28 (verdict.windows, the new inputs).  The
issue #28 cases and verdict.windows (on it and on the real Hyper-V CPUID
fixtures, tests/fixtures/cpuid/hyperv-root-*.txt) follow the issue #11
ones.
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
        # the headline over the kernel set, then the main kernel's line
        self.assertTrue(out.splitlines()[0].startswith(v["headline"]))
        self.assertEqual(out.splitlines()[2], "Linux %s: %s (%s), confidence %s"
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
        self.assertEqual(out.splitlines()[2].split(":")[0], "Linux 6.1")
        self.assertIn(" %s (" % entry["linux_clocksource"],
                      out.splitlines()[2])
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
        # the headline over the kernel set first, then the main kernel's
        self.assertTrue("\nLinux 6.1: hyperv_clocksource_msr " in out,
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

    # ---- issue #28: the rules fixed, as edited inputs ------------------------

    def risk_of(self, v):
        return (v.get("risk") or {}).get("reason")

    def test_kvmclock_watchdog_sees_the_pvclock_rate(self):
        # kvm_get_tsc_khz(): the TSC runs at the pvclock rate, so the
        # kvm-clock watchdog sees no drift although both are 2000 ppm off
        # the HPET (was kvm-clock here); 5.0 rates kvm-clock 400.
        e = self.kvm(invariant_tsc=True, tsc_adjust=False, packages=1,
                     hpet=True, drift_ppm={"tsc/hpet": 2000, "kvm-clock/tsc": 2000},
                     drift_uncertainty_ppm={"tsc/hpet": 5, "kvm-clock/tsc": 5},
                     drift_window_ms={"tsc/hpet": 200, "kvm-clock/tsc": 200})
        for k, want in (("6.1", "tsc"), ("6.12", "tsc"), ("7.2", "tsc"),
                        ("5.0", "kvm-clock")):
            self.assertEqual(self.judge(k, **e)["linux_clocksource"], want, k)

    def intel_cpuid15(self, **edits):
        # Intel, CPUID 0x15 with a crystal: native_calibrate_tsc() sets
        # TSC_KNOWN_FREQ, no refinement; one CPU, HPET watching.
        base = dict(cpu_vendor="intel", cpu_family=6, cpu_model=85,
                    hypervisor="tcg", hypervisor_signatures=["tcg"],
                    possible_cpus=1, running_cpus=1, xcpu_tested=1,
                    tsc_freq_by="cpuid_15", tsc_known_freq=True)
        base.update(edits)
        return base

    def test_margins_at_linux_rate_and_516(self):
        # 600 ppm at the CPUID 0x15 rate: 5.14's 400 ppm demotes; 5.16.y
        # carries c86ff8c55b8a (800 ppm) like 5.15.y and 5.17 -> tsc.
        e = self.intel_cpuid15(drift_ppm={"tsc/hpet": 600},
                               drift_uncertainty_ppm={"tsc/hpet": 0},
                               drift_window_ms={"tsc/hpet": 200})
        for k, want in (("5.13", "tsc"), ("5.14", "hpet"), ("5.15", "tsc"),
                        ("5.16", "tsc"), ("5.17", "tsc")):
            self.assertEqual(self.judge(k, **e)["linux_clocksource"], want, k)
        # the same drift on a TSC Linux calibrates and refines against the
        # HPET (AMD, nothing advertised) is invisible to the HPET watchdog
        v = self.judge("5.14", **dict(e, cpu_vendor="amd", cpu_family=15,
                                      cpu_model=107, tsc_freq_by="none",
                                      tsc_known_freq=False))
        self.assertEqual(v["linux_clocksource"], "tsc")

    def test_long_watchdog_round_is_a_risk(self):
        # 300 ppm, one 1 s stall in 10 minutes: a 1.5 s round is 450 us,
        # beyond 5.16.y's 400 us (no > 1 s skip) -> risk; 6.1.78 caps the
        # round at 1 s (300 us) -> none; the prediction stays tsc.
        e = self.intel_cpuid15(drift_ppm={"tsc/hpet": 300},
                               drift_uncertainty_ppm={"tsc/hpet": 0},
                               drift_window_ms={"tsc/hpet": 200},
                               gap_count=1, max_gap_ns=1000000000,
                               gap_total_ns=1000000000)
        v = self.judge("5.16", **e)
        self.assertEqual(v["linux_clocksource"], "tsc")
        self.assertEqual(self.risk_of(v), "long_watchdog_round")
        self.assertEqual(v["risk"]["linux_clocksource"], "hpet")
        v = self.judge("6.1", **e)
        self.assertIsNone(v["risk"])

    def test_secure_tsc(self):
        # sme_early_init(): TSC_RELIABLE with Secure TSC, 6.14+: the sync
        # check is skipped -> tsc although it warps.  6.13 cannot boot it:
        # Secure TSC joined SNP_FEATURES_PRESENT in 6.14 (0563ee35ae2c) and
        # snp_check_features() (8c29f0165405) terminates the guest before.
        e = self.kvm(cpu_vendor="amd", cpu_family=25, cpu_model=17,
                     invariant_tsc=True, tsc_adjust=False, secure_tsc=True,
                     tsc_warps=1, packages=1)
        v = self.judge("6.13", **e)
        self.assertEqual(v["linux_clocksource"], "none")
        self.assertIs(v["boots"], False)
        self.assertEqual(v["boot_failure"]["first_release"], "6.14")
        self.assertIn(("GUEST_CANNOT_BOOT", "critical"),
                      [(w["code"], w["severity"]) for w in v["warnings"]])
        v = self.judge("6.14", **e)
        self.assertEqual(v["linux_clocksource"], "tsc")
        self.assertIs(v["boots"], True)
        self.assertIsNone(v["boot_failure"])

    def test_hyperv_tdx_without_paravisor(self):
        # ms_hyperv_init_platform() clears the TSC page feature (6.6+).
        e = dict(cpu_vendor="intel", cpu_family=6, cpu_model=143,
                 hypervisor="hyperv", hypervisor_signatures=["hyperv"],
                 hyperv_ref_counter=True, hyperv_tsc_page=True,
                 hyperv_freq_msrs=True, hyperv_tsc_invariant=False,
                 hyperv_isolated=True, hyperv_isolation_type=3,
                 hyperv_paravisor=False, hpet=False, pit=False)
        self.assertEqual(self.judge("6.6", **e)["linux_clocksource"],
                         "hyperv_clocksource_msr")
        self.assertEqual(self.judge("6.5", **e)["linux_clocksource"],
                         "hyperv_clocksource_tsc_page")
        self.assertEqual(self.judge("6.12", **dict(e, hyperv_paravisor=True))
                         ["linux_clocksource"], "hyperv_clocksource_tsc_page")

    def test_zhaoxin_constant_tsc(self):
        # early_init_zhaoxin(): family >= 6 -> CONSTANT_TSC (5.3+): the
        # fixture's 2 vCPUs keep the TSC; 5.2 knows no Zhaoxin -> hpet.
        e = dict(cpu_vendor="zhaoxin", cpu_family=7, cpu_model=59)
        self.assertEqual(self.judge("5.2", **e)["linux_clocksource"], "hpet")
        self.assertEqual(self.judge("5.3", **e)["linux_clocksource"], "tsc")
        self.assertEqual(self.judge("6.1", **e)["linux_clocksource"], "tsc")

    def test_calibration_that_cannot_succeed(self):
        # pit_calibrate_tsc(): 30 us per port read < 1000 reads in 10 ms;
        # tsc_read_refs(): a 60 us PM read is 150000 cycles at 2.5 GHz,
        # over 0x20000 -> "could not calculate TSC khz" -> acpi_pm.
        e = dict(possible_cpus=1, running_cpus=1, xcpu_tested=1, hpet=False,
                 hypervisor="none", hypervisor_signatures=[],
                 tsc_freq_measured_hz=2500000000,
                 read_ns={"tsc": 20.0, "acpi_pm": 60000.0, "pit": 90000.0})
        v = self.judge("6.12", **e)
        self.assertEqual(v["linux_clocksource"], "acpi_pm")
        w = [x for x in v["warnings"] if x["code"] == "NO_CALIBRATION_REFERENCE"]
        self.assertTrue(w and "PIT port access costs 30.0 us" in w[0]["evidence"], w)
        e["read_ns"] = {"tsc": 20.0, "acpi_pm": 40000.0, "pit": 90000.0}
        self.assertEqual(self.judge("6.12", **e)["linux_clocksource"], "tsc")

    def test_refined_jiffies_watchdog_race(self):
        # q35 acpi=off hpet=off: refined-jiffies watches the TSC for good
        # before 7.1 -> risk jiffies_watchdog; 7.1 never lets it watch.
        e = dict(possible_cpus=1, running_cpus=1, xcpu_tested=1, hpet=False,
                 acpi=False, acpi_pm=False, gap_count=114,
                 max_gap_ns=64000000, gap_total_ns=200000000,
                 gap_window_ms=250)
        v = self.judge("6.12", **e)
        self.assertEqual(v["linux_clocksource"], "tsc")
        self.assertEqual(self.risk_of(v), "jiffies_watchdog")
        self.assertEqual(v["risk"]["linux_clocksource"], "jiffies")
        self.assertIsNone(self.judge("7.2", **e)["risk"])

    def test_tdx_from_a_recorded_cpuid(self):
        # The host judge decodes leaf 0x21 as the probe does
        # (coco_read_cpuid): kvm-intel-invtsc.txt's KVM guest run as a TD
        # (tdx-kvm-guest.txt, constructed: no TDX hardware to record on)
        # has tdx true, and from 6.7 (9ee4318c157b reached mainline in the
        # x86/tdx pull for 6.7) tdx_early_init()'s TSC_RELIABLE is in
        # the reasoning; the same guest without the leaf (max basic 0xD)
        # is a known no.  A recording has no MSRs: secure_tsc stays null.
        cpuid = os.path.join(REPO, "tests", "fixtures", "cpuid")
        td = os.path.join(cpuid, "tdx-kvm-guest.txt")
        said = "TDX guest: Linux forces TSC_RELIABLE"
        rc, out, err = self.cli(td, "--kernel", "6.7", "--json")
        self.assertEqual(rc, 0, err)
        v = json.loads(out)["verdict"]
        self.assertIs(v["inputs"]["tdx"], True)
        self.assertIsNone(v["inputs"]["secure_tsc"])
        self.assertTrue(any(said in r for r in v["reasoning"]), v["reasoning"])
        rc, out, err = self.cli(td, "--kernel", "6.6", "--json")
        self.assertFalse(any(said in r for r in json.loads(out)["verdict"]["reasoning"]))
        rc, out, err = self.cli(os.path.join(cpuid, "kvm-intel-invtsc.txt"), "--json")
        self.assertEqual(rc, 0, err)
        self.assertIs(json.loads(out)["verdict"]["inputs"]["tdx"], False)
        # Where it decides: those inputs with a warping TSC (cross-CPU test
        # on 4 vCPUs, no TSC_ADJUST): 6.1's sync check turns the TSC off
        # -> kvm-clock; 6.12 skips it for a TD -> tsc, not for a plain guest.
        inputs = dict(v["inputs"], tsc_warps=1, tsc_adjust=False,
                      xcpu_tested=4, running_cpus=4, possible_cpus=4,
                      packages=1)
        report = {"verdict": {"inputs": inputs}}
        self.assertEqual(self.sv.judge(report, "6.1")["linux_clocksource"], "kvm-clock")
        self.assertEqual(self.sv.judge(report, "6.12")["linux_clocksource"], "tsc")
        inputs["tdx"] = False
        self.assertEqual(self.sv.judge(report, "6.12")["linux_clocksource"], "kvm-clock")

    # ---- verdict.windows ----------------------------------------------------

    WINDOWS_KEYS = ("release", "qpc_source", "exits", "read_ns", "confidence",
                    "warnings")

    def test_windows_on_the_tcg_report(self):
        rc, out, err = self.cli(FIXTURE, "--windows", "10", "--json")
        self.assertEqual(rc, 0, err)
        w = json.loads(out)["verdict"]["windows"]
        for key in self.WINDOWS_KEYS:
            self.assertIn(key, w)
        self.assertEqual(w["release"], "10")
        # TCG: no invariant TSC, no Hyper-V at 0x40000000: a platform
        # counter, the PM timer the probe measured
        self.assertEqual(w["qpc_source"], "acpi_pm")
        self.assertTrue(w["exits"])
        self.assertEqual(w["read_ns"],
                         self.report["verdict"]["inputs"]["read_ns"]["acpi_pm"])
        self.assertIn(w["confidence"], ("medium", "low"))
        self.assertEqual([x["code"] for x in w["warnings"]], ["WINDOWS_PLATFORM_TIMER"])
        rc, out, err = self.cli(FIXTURE, "--windows", "10")
        self.assertEqual(rc, 0, err)
        self.assertIn("windows 10 (family 8+, CPUID 0x40000000: tcg): QPC on acpi_pm", out)
        # Vista takes the HPET
        rc, out, err = self.cli(FIXTURE, "--windows", "vista", "--json")
        self.assertEqual(json.loads(out)["verdict"]["windows"]["qpc_source"], "hpet")
        rc, _, err = self.cli(FIXTURE, "--windows", "xp")
        self.assertEqual(rc, 2)
        self.assertIn("not a release", err)

    def test_windows_on_the_hyperv_fixtures(self):
        # InstLatx64's root-partition dumps: the TSC page is offered
        # (0x40000003 EAX[9]) -> 8+ read it, no exit, 10 MHz; not measured
        # (a recording has no reads); a root's view: low confidence.
        cpuid = os.path.join(REPO, "tests", "fixtures", "cpuid")
        for name in ("hyperv-root-zen-2016.txt", "hyperv-root-icx-2022.txt",
                     "hyperv-root-beckton-2012r2.txt"):
            path = os.path.join(cpuid, name)
            rc, out, err = self.cli(path, "--windows", "10", "--json")
            self.assertEqual(rc, 0, err)
            v = json.loads(out)["verdict"]
            w = v["windows"]
            for key in self.WINDOWS_KEYS:
                self.assertIn(key, w, name)
            self.assertEqual(w["interface"], "hyperv", name)
            self.assertEqual(w["qpc_source"], "hyperv_tsc_page", name)
            self.assertIs(w["exits"], False, name)
            self.assertIsNone(w["read_ns"], name)
            self.assertEqual(w["qpc_frequency_hz"], 10000000, name)
            self.assertEqual(w["confidence"], "low", name)
            self.assertTrue(v["inputs"]["hyperv_root"], name)
            # Windows 7/2008 R2 predate the page: the MSR, an exit per call
            rc, out, err = self.cli(path, "--windows", "7", "--json")
            w = json.loads(out)["verdict"]["windows"]
            self.assertEqual(w["qpc_source"], "hyperv_msr", name)
            self.assertEqual([x["code"] for x in w["warnings"]], ["WINDOWS_HYPERV_MSR"])
            rc, out, err = self.cli(path, "--windows", "10")
            self.assertEqual(rc, 0, err)
            self.assertIn("QPC on hyperv_tsc_page", out)
        # Linux on the same views: the Ice Lake host offers TSC invariant
        # control (EAX[15]) -> tsc; the Zen one does not -> the TSC page
        rc, out, err = self.cli(os.path.join(cpuid, "hyperv-root-icx-2022.txt"), "--json")
        self.assertEqual(json.loads(out)["verdict"]["linux_clocksource"], "tsc")
        rc, out, err = self.cli(os.path.join(cpuid, "hyperv-root-zen-2016.txt"), "--json")
        self.assertEqual(json.loads(out)["verdict"]["linux_clocksource"],
                         "hyperv_clocksource_tsc_page")
        rc, _, err = self.cli(os.path.join(cpuid, "hyperv-root-zen-2016.txt"), "--check")
        self.assertEqual(rc, 2)



class ResultLineFollowsGate(unittest.TestCase):
    """Issue 38: the probe's RESULT word (verdict.result, the summary's
    last line) is what clockprobe compare --fail-on decides for the
    report's own kernel set: FAILED where --fail-on critical matches,
    WARNING where only --fail-on warning does, PASSED otherwise -- on the
    recorded report and on every recorded report's inputs judged again
    for several kernel sets (the C rule against cptools' gate)."""

    def gate_word(self, report, kset):
        from cptools import judgment, kernels, policy
        j = judgment.Judgment(report, kset, rules=False)
        self.assertIsNone(j.error)
        if j.hits(policy.FailOn("critical")):
            return "FAILED"
        if j.hits(policy.FailOn("warning")):
            return "WARNING"
        return "PASSED"

    def test_recorded_report(self):
        from cptools import kernels
        r = frame.load_report_file(FIXTURE)[0]
        res = r["verdict"]["result"]
        self.assertTrue(res["line"].startswith("RESULT: %s (" % res["status"]))
        self.assertEqual(res["status"],
                         self.gate_word(r, kernels.KernelSet.of_report(r)))

    def test_every_fixture_and_set(self):
        from cptools import kernels
        verdict = load_script("verdict")
        seen = set()
        for name in ("real_make_run.log", "real_q35_hpet_off_2026.log",
                     "real_q35_max_smp2.log", "real_q35_hpet_off.log"):
            r = frame.load_report_file(os.path.join(FIX, name))[0]
            if not isinstance(r.get("verdict", {}).get("inputs"), dict):
                continue
            for kset in ("lts", "all", "6.1", "6.18", "7.2"):
                got = verdict.judge(r, kernels=kset)
                word = self.gate_word({"verdict": got},
                                      kernels.KernelSet(kset))
                self.assertEqual(got["result"]["status"], word,
                                 (name, kset, got["result"]["line"]))
                seen.add(word)
        # the fixtures reach more than one word, so the check can fail
        self.assertGreater(len(seen), 1, seen)


if __name__ == "__main__":
    unittest.main()
