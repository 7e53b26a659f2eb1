"""The arm64 probe's boot under AAVMF (issue 37): build/aarch64/clockprobe.img
on qemu-system-aarch64 -machine virt -cpu max -smp 4, TCG, one boot
(about 10-12 s here): tests/matrix.conf's row virt-max-smp4, whose
expectations and agreement with the real Debian kernels recorded on it
(cptools/arm64agree.py) are checked here on this boot, so that make test
does not boot the row again through scripts/matrix.  make test does not build the arm64 probe (the
Makefile's rules are x86's); this test runs `make arm64-probe` first, which
fetches Debian's arm64 gnu-efi once (build/aarch64/gnu-efi).

Skips, naming why, when qemu-system-aarch64, AAVMF or the cross compiler
are not installed (sh scripts/install-deps arm64), or when the arm64
gnu-efi cannot be fetched (no Debian apt source or no network).  Asserts
the report's structure and the figures' consistency: a verified frame,
the cntvct read cost with its SE, CNTFRQ non-zero and the measured rate
within its own stated uncertainty of it, every CPU started and the
cross-CPU check without a backward step, the virtual timer's costs and
firing (structure only) with its registers restored, its interrupt taken
through the GIC (GICv2, QEMU 7.2 virt's default under TCG) on a started CPU
with everything restored (structure only), verdict.arm64, every name
described in docs/report-schema.json.

CLOCKPROBE_ARM64_GICV3=1 adds a second boot (-machine virt,gic-version=3,
about 10 s more; not in make test's budget) that asserts the interrupt
path again through a GICv3's redistributor and system registers.  Under
ACPI the GIC is the MADT's (irq.gic_source acpi_madt), the INTID the
GTDT's.

The ACPI boot has no DTB (AAVMF installs none with ACPI): arm64.dt says so
with its reason, and the console, conduit and CPU list name ACPI as their
source.  CLOCKPROBE_ARM64_DT=1 adds a boot with -machine virt,acpi=off
-smp 2 (about 10 s more; not in make test's budget: src/decode/fdt.c's
unit tests read the same QEMU tree), where the DTB is the only word: it
asserts a verified report, the DT's PL011 as the console, the PSCI
conduit and the CPUs taken from the DT, the cross-CPU check measured,
the timer's interrupt measured through the GIC the DT names (gic_source
dt, INTID 27 from the timer node), and the verdict.  With both variables
a fourth boot, -machine virt,gic-version=3,acpi=off -smp 2, asserts the
same interrupt path through the DT's GICv3 redistributor region.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import arm64agree, arm64efi, frame, matrixconf, paths, schema  # noqa: E402

BOOT_BUDGET_S = 60
GICV3 = os.environ.get("CLOCKPROBE_ARM64_GICV3") == "1"
DT = os.environ.get("CLOCKPROBE_ARM64_DT") == "1"
DT_MACHINE, DT_SMP = "virt,acpi=off", 2
DT_GICV3_MACHINE = "virt,gic-version=3,acpi=off"
ROW = next(r for r in matrixconf.load_config(paths.MATRIX_CONF)
           if r.name == "virt-max-smp4")

_boot = {}


def boot(machine="virt"):
    """One boot per machine for every test of this file: (report, log,
    rc, seconds) or a skip reason."""
    if machine in _boot:
        return _boot[machine]
    _boot[machine] = _build_and_boot(machine)
    return _boot[machine]


def _build_and_boot(machine):
    # The build (or why there is none) is the same for every machine.
    if "build" not in _boot:
        try:
            _boot["build"] = _build()
        except AssertionError as e:     # kept: each test fails on it, none rebuilds
            _boot["build"] = e
    if isinstance(_boot["build"], AssertionError):
        raise _boot["build"]
    if _boot["build"] is not None:
        return _boot["build"]
    smp = DT_SMP if machine in (DT_MACHINE, DT_GICV3_MACHINE) else int(ROW.get("smp"))
    with WallWatch() as watch:
        log, rc, secs = arm64efi.boot(smp=smp, cpu=ROW.get("cpu"),
                                      timeout=BOOT_BUDGET_S * 2, machine=machine)
    HOST_WALL[machine] = watch.moved_s
    report, err = frame.extract_report(log)
    return (report, err, log, rc, secs)


# The rate's reference, UEFI GetTime, is the PL031, which QEMU backs with
# the host's CLOCK_REALTIME; the counter follows QEMU's virtual clock, the
# host's CLOCK_MONOTONIC.  Where the host's wall clock is slewed or stepped
# (these Firecracker machines' is: 5000 ppm was seen), the RTC itself runs
# off, and the probe measures that truly.  How far the host's wall clock
# moved against its monotonic clock during the boot, in either direction
# (a slew one way and back nets out, but the RTC saw both), bounds how far
# the rate may be off beyond its own uncertainty.
HOST_WALL = {}


class WallWatch:
    """Samples (CLOCK_REALTIME - CLOCK_MONOTONIC) every 250 ms while open,
    each sample a monotonic read bracketed by two realtime reads (retried
    when a preemption widened the bracket).  moved_s: the sum of its
    changes' magnitudes (total variation), or 0 when the host was quiet:
    no change over 2 us, which a sample's own noise (well under one) does
    not reach and a slewed clock (5000 ppm: 1.25 ms a sample) passes."""
    QUIET_S = 2e-6

    def __enter__(self):
        self.moved_s, self._stop = 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    @staticmethod
    def _excess():
        for _ in range(5):
            r0 = time.clock_gettime(time.CLOCK_REALTIME)
            m = time.clock_gettime(time.CLOCK_MONOTONIC)
            r1 = time.clock_gettime(time.CLOCK_REALTIME)
            if 0 <= r1 - r0 < 20e-6:
                break
        return (r0 + r1) / 2 - m

    def _run(self):
        last, steps = self._excess(), []
        while True:
            stop = self._stop.wait(0.25)
            now = self._excess()
            steps.append(abs(now - last))
            last = now
            if stop:
                break
        self.moved_s = sum(steps) if max(steps) > self.QUIET_S else 0.0

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _build():
    """None once the probe is built, else why not (a skip reason)."""
    if not shutil.which("aarch64-linux-gnu-gcc"):
        return "aarch64-linux-gnu-gcc not installed (sh scripts/install-deps arm64)"
    why = arm64efi.missing()
    if why and "not built" not in why:
        return why
    deps = subprocess.run(["make", "-s", "arm64-deps"], cwd=REPO, capture_output=True,
                          text=True, timeout=600)
    if deps.returncode != 0:
        return "arm64 gnu-efi could not be fetched: " + (
            deps.stderr.strip().splitlines() or ["?"])[-1]
    build = subprocess.run(["make", "-s", "-j2", "arm64-probe"], cwd=REPO, capture_output=True,
                           text=True, timeout=900)
    if build.returncode != 0:
        raise AssertionError("make arm64-probe failed:\n" + build.stdout[-2000:] + build.stderr[-3000:])
    return None


def check_irq(t, report, version, source="acpi_madt"):
    """The timer's interrupt through the GIC: structure only (TCG's
    figures are the emulator's costs).  source: where the GIC's addresses
    came from, the MADT's or (acpi=off) the devicetree's."""
    v = report["arm64"]["vtimer"]
    q = v["irq"]
    t.assertTrue(q["measured"], q.get("absent"))
    t.assertIsNone(q["absent"])
    t.assertEqual(q["gic_version"], version, q)
    t.assertEqual(q["gic_source"], source, q)
    t.assertEqual(q["gicd_base"], "0x8000000", q)  # hw/arm/virt.c's VIRT_GIC_DIST
    if source == "acpi_madt":
        t.assertEqual(q["intid"], report["arm64"]["acpi"]["virtual_timer_gsiv"])
    else:
        # The timer node's third specifier <1 11 ...>: PPI 11, INTID 27.
        t.assertFalse(report["arm64"]["acpi"]["gtdt"])
        t.assertEqual(q["intid"], 27, q)
    # Taken on a started CPU, never the boot CPU.
    t.assertNotEqual(q["cpu_mpidr"], report["arm64"]["cpu"]["mpidr"])
    t.assertGreater(q["fired"], 0, q)
    t.assertEqual(q["fired"] + q["late_arm"] + q["timeouts"], q["shots"], q)
    t.assertIsNone(q["exception_esr"], q)
    for pre in ("latency", "arm_to_handler"):
        for unit in ("ticks", "ns"):
            f = ["%s_%s_%s" % (pre, unit, k) for k in ("min", "p50", "p99", "max")]
            vals = [q[k] for k in f]
            t.assertGreaterEqual(vals[0], 0, q)
            t.assertEqual(vals, sorted(vals), (pre, unit, vals))
            t.assertIsNotNone(q["%s_%s_se" % (pre, unit)])
            t.assertGreaterEqual(q["%s_%s_se" % (pre, unit)], 0)
    # The handler comes after CVAL, which is delay_ticks past the arm.
    t.assertGreaterEqual(q["arm_to_handler_ticks_min"], q["delay_ticks"], q)
    if version == 2:
        t.assertIsNotNone(q["gicc_base"])
        t.assertNotEqual(int(q["gicc_iidr"], 16), 0)
        t.assertIsNone(q["gicr_base"])
    else:
        t.assertIsNotNone(q["gicr_base"])
        # The redistributor found is the CPU's own: TYPER's affinity.
        t.assertEqual(int(q["gicr_typer"], 16) >> 32, int(q["cpu_mpidr"], 16) & 0xffffff)
        t.assertIsNone(q["gicc_base"])
    t.assertIs(q["restored"], True, q)
    t.assertIsNone(q["not_restored"])
    # Measured: the GIC is no longer what vtimer leaves out.
    t.assertNotIn("GIC", v["not_measured"])


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
            if r["read_se_ns"] is None:
                # Under two windows the engine has no SE (a loaded host's
                # deadline cut them): said, not a 0.
                self.assertTrue(r["deadline_hit"] or cost["deadline_hit"], r)
                self.assertIn("SE unknown", self.log)
            elif cost["below_resolution"]:
                # Under two counter steps (MIDR: about 1.5 ns against TCG's
                # 16 ns tick): the estimate may come out near 0 or clamped
                # to it, but it must resolve far finer than one step.
                self.assertGreaterEqual(r["read_ns"], 0, r)
                self.assertLess(r["read_se_ns"], step_ns / 2, r)
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
        # The bound is ceil(ppm), the figure rounded to a hertz; plus how
        # far the host's wall clock moved against its monotonic clock
        # during the boot, all of it put inside the rate's window (the
        # worst case; WallWatch).
        moved = HOST_WALL["virt"]
        host_ppm = moved / rate["seconds"] * 1e6
        allowed = hz * (rate["uncertainty_ppm"] + host_ppm) / 1e6 + 1
        self.assertLessEqual(abs(rate["hz"] - hz), allowed, (rate, "host wall clock moved %.6f s" % moved))
        if not moved:
            self.assertFalse(a["cntfrq"]["measured_disagrees"])
        elif abs(rate["hz"] - hz) > hz * (rate["uncertainty_ppm"] + 1) / 1e6:
            # The RTC really ran off the counter (by over a ppm more than
            # the figure's uncertainty, clear of measured_ppm's rounding):
            # the probe must say so.
            self.assertTrue(a["cntfrq"]["measured_disagrees"], a["cntfrq"])

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
        # The measured cost is the one the verdict was given, with its SE,
        # both rounded to the digits that SE supports: the same figures.
        self.assertEqual((v["clock_gettime_read_ns"], v["clock_gettime_read_se_ns"]),
                         (cost["read_ns"], cost["read_se_ns"]), (v, cost))
        self.assertTrue(v["by_kernel"])
        for r in v["by_kernel"]:
            if r["clock_gettime"] != "syscall":
                self.assertEqual(r["clock_gettime_read_se_ns"], cost["read_se_ns"], r)

    def test_virtual_timer_measured_and_restored(self):
        # Structure only: TCG's figures are the emulator's costs.
        v = self.report["arm64"]["vtimer"]
        self.assertTrue(v["measured"], v.get("absent"))
        self.assertIsNone(v["absent"])
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

    def test_timer_interrupt_through_gicv2(self):
        check_irq(self, self.report, 2)
        self.assertIn("vt irq   GICv2 (acpi_madt) handler p50 ", self.log)

    def test_kvm_ptp_and_stolen_time_named_not_issued_under_tcg(self):
        # TCG is not KVM: the chain of SMCCC calls proves it before any
        # vendor call (which QEMU's TCG would turn into an undefined
        # instruction), so no PTP call is made and the reason says why.
        a = self.report["arm64"]
        p, st = a["kvm_ptp"], a["stolen_time"]
        self.assertFalse(p["measured"])
        self.assertEqual(p["calls"], 0)
        self.assertIsNone(p["cpu_mpidr"])
        self.assertFalse(p["lost_cpu"])
        self.assertNotEqual(a["smccc"]["vendor_hyp"], "kvm")
        self.assertRegex(p["absent"], "SMCCC chain stopped|not KVM's")
        self.assertFalse(st["measured"])
        self.assertRegex(st["absent"], "PV_TIME_FEATURES")
        self.assertIsNone(st["stolen_ns_before"])
        self.assertIn("kvm ptp  not measured: ", self.log)
        self.assertIn("stolen   not read: ", self.log)

    def test_every_name_is_described(self):
        check_described(self, self.report)

    def test_no_dtb_under_acpi_and_every_source_is_acpi(self):
        a = self.report["arm64"]
        dt = a["dt"]
        self.assertIs(dt["found"], False, dt)
        self.assertEqual(dt["absent"], "no DTB in the UEFI configuration tables", dt)
        self.assertIsNone(dt["address"])
        self.assertEqual(a["console"]["source"], "acpi_spcr", a["console"])
        self.assertEqual(a["smccc"]["conduit"], "hvc")
        self.assertEqual(a["smccc"]["conduit_source"], "acpi_fadt")
        self.assertEqual(a["cross_cpu"]["cpu_list_source"], "acpi_madt")
        self.assertIn("DT       none: no DTB in the UEFI configuration tables", self.log)

    def test_matrix_row_expectations_hold(self):
        failed = [msg for ok, msg in (e.evaluate(self.report) for e in ROW.expects)
                  if not ok]
        self.assertEqual(failed, [])
        self.assertEqual((ROW.get("machine"), ROW.get("smp")), ("virt", "4"))

    def test_verdict_agrees_with_the_recorded_kernels(self):
        n, parted = arm64agree.report_disagreements(self.report, ROW.name)
        self.assertGreaterEqual(n, 2, "6.1 and 6.12 are recorded on " + ROW.name)
        self.assertEqual(parted, [])


def check_described(t, report):
    # check_report forgives an arm64 report the x86 sections alone.
    t.assertEqual(schema.check_report(report), [])


class ExtraBoot(unittest.TestCase):
    """One more boot of the probe on MACHINE (a class attribute), shared by
    the class's tests: the opt-in boots below."""
    MACHINE = None

    def setUp(self):
        r = boot(self.MACHINE)
        if isinstance(r, str):
            self.skipTest(r)
        self.report, self.err, self.log, self.rc, self.secs = r
        if self.report is None:
            self.fail("no verified report: %s" % self.err)


@unittest.skipUnless(GICV3, "a second boot with a GICv3 only with CLOCKPROBE_ARM64_GICV3=1")
class Arm64EfiGicV3Boot(ExtraBoot):
    MACHINE = "virt,gic-version=3"

    def test_powers_off_with_a_verified_report(self):
        self.assertEqual(self.rc, 0, self.log[-2000:])
        self.assertEqual(self.report["errors"], [])

    def test_timer_interrupt_through_gicv3(self):
        check_irq(self, self.report, 3)
        self.assertIn("vt irq   GICv3 (acpi_madt) handler p50 ", self.log)

    def test_every_name_is_described(self):
        check_described(self, self.report)


@unittest.skipUnless(DT, "a boot with -machine virt,acpi=off only with CLOCKPROBE_ARM64_DT=1")
class Arm64EfiDtBoot(ExtraBoot):
    """-machine virt,acpi=off -smp 2: AAVMF hands over a DTB and no ACPI."""

    MACHINE = DT_MACHINE

    def test_powers_off_with_a_verified_report(self):
        self.assertEqual(self.rc, 0, self.log[-2000:])
        self.assertEqual(self.report["probe"]["arch"], "aarch64")
        # The one error: no ACPI at all, as asked.
        self.assertEqual([e["code"] for e in self.report["errors"]], ["ACPI"])

    def test_dtb_read_and_decoded(self):
        dt = self.report["arm64"]["dt"]
        self.assertIs(dt["found"], True, dt)
        self.assertIsNone(dt["absent"])
        self.assertGreater(dt["totalsize_bytes"], 0)
        self.assertLessEqual(dt["totalsize_bytes"], 2 << 20)
        self.assertEqual(dt["stdout_path"], "/pl011@9000000")
        self.assertEqual(dt["console_node"], "/pl011@9000000")
        self.assertEqual(dt["console_base"], "0x9000000")
        self.assertEqual((dt["psci"], dt["psci_method"]), (True, "hvc"))
        self.assertEqual(dt["timer_compatible"], "arm,armv8-timer")
        # QEMU's virt timer node has neither (fdt_add_timer_nodes()).
        self.assertIsNone(dt["timer_clock_frequency_hz"])
        self.assertEqual(dt["timer_errata"], [])
        self.assertEqual((dt["cpu_nodes"], dt["psci_cpus"]), (DT_SMP, DT_SMP))

    def test_console_is_the_dt_pl011(self):
        c = self.report["arm64"]["console"]
        self.assertEqual((c["kind"], c["source"], c["base"]), ("pl011", "dt", "0x9000000"), c)
        self.assertIsNone(c["reason"])
        self.assertTrue(c["walked"])
        self.assertEqual(c["walk_mair_attr"], "0x0")  # Device-nGnRnE
        self.assertIn("console  pl011 at 0x9000000 (DT /pl011@9000000)", self.log)

    def test_conduit_and_cpus_from_the_dt(self):
        a = self.report["arm64"]
        s = a["smccc"]
        self.assertEqual((s["conduit"], s["conduit_source"]), ("hvc", "dt"), s)
        self.assertIsNotNone(s["psci_major"])
        self.assertFalse(a["acpi"]["psci_compliant"])  # no FADT to say so
        x = a["cross_cpu"]
        self.assertTrue(x["measured"], x)
        self.assertEqual((x["cpu_list_source"], x["listed"], x["cpus"]), ("dt", DT_SMP, DT_SMP - 1), x)
        self.assertEqual(x["backwards"], 0, x)
        self.assertTrue(all(c["started"] for c in a["cpus"]), a["cpus"])

    def test_verdict_arm64(self):
        v = self.report["verdict"]["arm64"]
        self.assertEqual(v["linux_clocksource"], "arch_sys_counter")
        self.assertEqual(v["errata_matched"], [])
        self.assertTrue(v["by_kernel"])

    def test_timer_interrupt_through_the_dt_gicv2(self):
        # No MADT: the GIC is the DT's /intc (GICD, GICC), proven as the
        # MADT's would be; the INTID is the timer node's.
        check_irq(self, self.report, 2, source="dt")
        self.assertEqual(self.report["arm64"]["vtimer"]["irq"]["gicc_base"], "0x8010000")
        self.assertIn("vt irq   GICv2 (dt) handler p50 ", self.log)

    def test_every_name_is_described(self):
        check_described(self, self.report)


@unittest.skipUnless(DT and GICV3, "a GICv3 boot with acpi=off only with CLOCKPROBE_ARM64_DT=1 "
                     "and CLOCKPROBE_ARM64_GICV3=1")
class Arm64EfiDtGicV3Boot(ExtraBoot):
    """-machine virt,gic-version=3,acpi=off -smp 2: the DT's arm,gic-v3."""

    MACHINE = DT_GICV3_MACHINE

    def test_powers_off_with_a_verified_report(self):
        self.assertEqual(self.rc, 0, self.log[-2000:])
        self.assertEqual([e["code"] for e in self.report["errors"]], ["ACPI"])

    def test_timer_interrupt_through_the_dt_gicv3(self):
        # The CPU's redistributor found in the DT's one region (from
        # 0x80a0000) by its TYPER affinity.
        check_irq(self, self.report, 3, source="dt")
        rd = int(self.report["arm64"]["vtimer"]["irq"]["gicr_base"], 16)
        self.assertGreaterEqual(rd, 0x080a0000)
        self.assertLess(rd, 0x080a0000 + 0xf60000)
        self.assertIn("vt irq   GICv3 (dt) handler p50 ", self.log)

    def test_every_name_is_described(self):
        check_described(self, self.report)


if __name__ == "__main__":
    unittest.main()
