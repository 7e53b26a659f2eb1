"""The arm64 rows of the one machine table (issue 37), without booting.

ArchConfigTest: tests/matrix.conf's `arch = aarch64` rows take
[defaults aarch64] and nothing of x86's [defaults] (settings or
expectations), and x86 rows nothing of the aarch64 defaults; what an
aarch64 row may not say is refused.  TableTest: the real table's arm64
rows are arm64guest.ROWS (no second table), every one recorded in
tests/linux/expected-arm64.json, and make test's fast share of them.
AgreementTest: cptools/arm64agree.py on the recorded boots and a real
arm64 report (tests/fixtures/arm64/real_virt_a73id_smp1.log, the probe on
virt-a73id-smp1), with disagreements planted.  MatrixRowTest: scripts/
matrix's aarch64 row on that capture (the boot stood in for): passed, then
failed by a planted disagreement, and skipped or failed with the reason
when QEMU, AAVMF, the image, the cross compiler or gnu-efi is missing.
"""

import copy
import os
import shutil
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO, load_script  # noqa: E402
from cptools import (  # noqa: E402
    arm64agree, arm64efi, arm64guest, boot, frame, matrixconf, matrixout,
    paths, process)

matrix = load_script("matrix")
CAPTURE = os.path.join(REPO, "tests", "fixtures", "arm64",
                       "real_virt_a73id_smp1.log")

CONF = """\
[defaults]
machine = q35
mem = 256M
expect platform.hypervisor.signature == TCGTCGTCGTCG
expect sources[tsc].status == ok
expect verdict.linux_clocksource exists

[x1]
cpu = max

[defaults aarch64]
timeout = 90
expect probe.arch == aarch64
expect verdict.arm64.vdso == true

[a1]
arch = aarch64
cpu = cortex-a57
smp = 4

[a2]
arch = aarch64
cpu = cortex-a53,midr=0x410fd090
tags = fast
expect verdict.arm64.vdso == false

[x2]
smp = 2
expect sources[tsc].status == absent
"""


def texts(row):
    return [e.text for e in row.expects]


class ArchConfigTest(unittest.TestCase):
    def setUp(self):
        self.rows = {r.name: r for r in matrixconf.parse_config(CONF)}

    def test_aarch64_rows_take_their_own_defaults_only(self):
        a1, a2 = self.rows["a1"], self.rows["a2"]
        self.assertEqual(a1.arch, "aarch64")
        self.assertEqual((a1.get("machine"), a1.get("mem"), a1.get("smp"),
                          a1.timeout), ("virt", "512M", "4", 90.0))
        self.assertEqual(texts(a1), ["probe.arch == aarch64",
                                     "verdict.arm64.vdso == true"])
        # A row's expectation replaces its arch default on the same path.
        self.assertEqual(texts(a2), ["probe.arch == aarch64",
                                     "verdict.arm64.vdso == false"])
        self.assertEqual(a2.tags, ["fast"])
        self.assertEqual(a1.image(), arm64efi.IMAGE)
        self.assertTrue(a1.describe().startswith("arch=aarch64 machine=virt"))

    def test_x86_rows_take_none_of_the_aarch64_defaults(self):
        x1, x2 = self.rows["x1"], self.rows["x2"]
        for x in (x1, x2):
            self.assertEqual(x.arch, "x86_64")
            self.assertEqual((x.get("machine"), x.get("mem")),
                             ("q35", "256M"))
            self.assertEqual(x.timeout, 120.0)
            self.assertFalse([t for t in texts(x) if "arm64" in t
                              or "probe.arch" in t], texts(x))
        self.assertEqual(len(texts(x1)), 3)
        self.assertIn("sources[tsc].status == absent", texts(x2))
        self.assertNotIn("arch=", x1.describe())

    def test_without_an_aarch64_section_nothing_is_inherited(self):
        rows = matrixconf.parse_config(
            "[defaults]\nexpect sources[tsc].status == ok\n"
            "[a]\narch = aarch64\nexpect probe.arch == aarch64\n")
        self.assertEqual(texts(rows[0]), ["probe.arch == aarch64"])
        self.assertEqual(rows[0].get("machine"), "virt")

    def test_refused(self):
        bad = {
            "arch in defaults": "[defaults]\narch = aarch64\n",
            "arch in aarch64 defaults": "[defaults aarch64]\narch = x\n",
            "unknown arch": "[r]\narch = riscv64\n",
            "unknown defaults": "[defaults riscv64]\n",
            "two sections": "[defaults aarch64]\n[defaults aarch64]\n",
            "defaults after rows": "[a]\narch = aarch64\n"
                                   "[defaults aarch64]\n",
            "qemu": "[a]\narch = aarch64\nqemu = -icount shift=0\n",
            "qemu in defaults": "[defaults aarch64]\nqemu = -s\n"
                                "[a]\narch = aarch64\n",
            "guest": "[a]\narch = aarch64\nguest = full\n",
            "kvm": "[a]\narch = aarch64\naccel = kvm\n",
            "pvh": "[a]\narch = aarch64\nboot = pvh\n",
        }
        for why, text in bad.items():
            with self.assertRaises(matrixconf.ConfigError, msg=why):
                matrixconf.parse_config(text)

    def test_guest_rows_stay_x86(self):
        rows = matrixconf.parse_config(CONF + "[g]\nguest = full\n")
        self.assertEqual(list(matrixconf.guest_rows(rows)), ["g"])
        self.assertEqual([r.name for r in matrixconf.arch_rows(
            rows, "aarch64")], ["a1", "a2"])


class TableTest(unittest.TestCase):
    def setUp(self):
        self.rows = matrixconf.load_config(paths.MATRIX_CONF)
        self.arm = matrixconf.arch_rows(self.rows, "aarch64")

    def test_arm64guest_rows_are_the_tables(self):
        self.assertEqual([r["name"] for r in arm64guest.ROWS],
                         [r.name for r in self.arm])
        for d, r in zip(arm64guest.ROWS, self.arm):
            self.assertEqual((d["machine"], d["cpu"], str(d["smp"])),
                             (r.get("machine"), r.get("cpu"), r.get("smp")))
        self.assertEqual(len(self.arm), 8)

    def test_every_arm64_row_recorded_on_both_kernels(self):
        for r in self.arm:
            self.assertEqual(sorted(b["kernel"] for b in
                                    arm64agree.recorded_for(r.name)),
                             ["6.1", "6.12"], r.name)

    def test_no_x86_default_reaches_an_arm64_row(self):
        x86_paths = {e.path for e in self.rows[0].expects}
        for r in self.arm:
            self.assertFalse({e.path for e in r.expects} & (
                x86_paths - {"schema", "probe.boot"}), r.name)
            self.assertIn("probe.arch == aarch64", texts(r))
        for r in self.rows:
            if r.arch == "x86_64":
                self.assertFalse([t for t in texts(r) if "arm64" in t],
                                 r.name)

    def test_make_test_boots_one_erratum_row_here(self):
        # test_arm64_efi.py boots virt-max-smp4; the fast tag adds one
        # erratum row: two arm64 boots in make test, no more.
        fast = [r.name for r in self.arm if "fast" in r.tags]
        self.assertEqual(fast, ["virt-a73id-smp1"])
        row = next(r for r in self.arm if r.name == "virt-a73id-smp1")
        self.assertIn("verdict.arm64.vdso == false", texts(row))


def capture():
    with open(CAPTURE, encoding="utf-8") as f:
        text = f.read()
    report, err = frame.extract_report(text)
    assert report is not None, err
    return text, report


class AgreementTest(unittest.TestCase):
    def setUp(self):
        self.text, self.report = capture()
        self.v = self.report["verdict"]["arm64"]

    def test_the_capture_agrees_with_its_row(self):
        n, parted = arm64agree.report_disagreements(self.report,
                                                    "virt-a73id-smp1")
        self.assertEqual((n, parted), (2, []))

    def test_the_summary_says_what_each_range_reads(self):
        # An arm64 verdict has no warnings list: the matrix's warnings
        # column says, per range, how clock_gettime() reads and which
        # erratum took the vDSO away, not "none".
        rec = {"verdict": matrixout.verdict_of(self.report)}
        self.assertEqual(matrixout.set_warnings_text(rec),
                         "4.19+: clock_gettime syscall (arm_858921 worked around)")
        r = copy.deepcopy(self.report)
        r["verdict"]["arm64"]["by_kernel"] = []
        self.assertEqual(matrixout.set_warnings_text({"verdict": matrixout.verdict_of(r)}), "-")

    def test_planted_vdso_disagreement_names_each_kernel(self):
        r = copy.deepcopy(self.report)
        for e in r["verdict"]["arm64"]["by_kernel"]:
            e["vdso"] = True
        n, parted = arm64agree.report_disagreements(r, "virt-a73id-smp1")
        self.assertEqual(n, 2)
        self.assertEqual(len(parted), 2, parted)
        self.assertTrue(any("Linux 6.1 on virt-a73id-smp1" in p
                            for p in parted), parted)
        self.assertTrue(any("Linux 6.12 on virt-a73id-smp1" in p
                            for p in parted), parted)
        self.assertTrue(all(".vdso is true" in p for p in parted), parted)

    def test_planted_clocksource_disagreement_on_recorded_boots(self):
        boots = arm64agree.recorded_for("virt-max-smp1")
        v = {"by_kernel": [
            {"from": "4.19", "to": "6.6", "linux_clocksource":
             "arch_sys_counter", "vdso": True},
            {"from": "6.7", "to": None, "linux_clocksource": "jiffies",
             "vdso": True}]}
        parted = arm64agree.disagreements(v, boots)
        self.assertEqual(len(parted), 1, parted)
        self.assertIn("Linux 6.12 on virt-max-smp1", parted[0])
        self.assertIn('"jiffies"', parted[0])
        # Every recorded boot agrees with a verdict that says what it did.
        for b in arm64agree.load_recorded():
            good = {"by_kernel": [{"from": "4.19", "to": None,
                                   "linux_clocksource": b["current"],
                                   "vdso": b["in_vdso"]}]}
            self.assertEqual(arm64agree.disagreements(good, [b]), [])

    def test_a_kernel_no_range_covers(self):
        v = {"by_kernel": [{"from": "6.2", "to": "6.11",
                            "linux_clocksource": "arch_sys_counter",
                            "vdso": True}]}
        self.assertIsNone(arm64agree.entry_for(v, "6.1"))
        self.assertIsNone(arm64agree.entry_for(v, "6.12"))
        self.assertEqual(arm64agree.entry_for(v, "6.11")["from"], "6.2")
        parted = arm64agree.disagreements(
            v, arm64agree.recorded_for("virt-max-smp1"))
        self.assertEqual(len(parted), 2)
        self.assertIn("no entry", parted[0])
        self.assertEqual(arm64agree.version("6.12-deb13"), (6, 12))
        # 6.12 is not 6.1.2: by_kernel's ranges compare numbers.
        self.assertGreater(arm64agree.version("6.12"),
                           arm64agree.version("6.9"))

    def test_report_without_an_arm64_verdict(self):
        n, parted = arm64agree.report_disagreements({"verdict": {}},
                                                    "virt-max-smp4")
        self.assertEqual(n, 2)
        self.assertEqual(parted, ["the report has no verdict.arm64"])
        self.assertEqual(arm64agree.report_disagreements({}, "no-such"),
                         (0, []))


class MatrixRowTest(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="cp-a64rows-")
        self.addCleanup(shutil.rmtree, self.out, ignore_errors=True)
        self.row = next(r for r in matrixconf.load_config(paths.MATRIX_CONF)
                        if r.name == "virt-a73id-smp1")
        self.text, self.report = capture()

    def stand_in(self, text, exit_status=0, report=None):
        def boot_row(row, work, log_path=None, on_argv=None):
            argv = arm64efi.argv(work, smp=row.get("smp"), cpu=row.get("cpu"),
                                 machine=row.get("machine"),
                                 mem=row.get("mem"), serial="stdio")
            on_argv(argv)
            with open(log_path, "w") as f:
                f.write(text)
            rep, err, meta = frame.extract_report_meta(text)
            rep = report or rep
            return boot.ProbeBoot(process.RunResult(
                exit_status, False, text, 9.0, argv, ""), rep, err, meta,
                argv)
        return boot_row

    def run_row(self, text, **kw):
        with mock.patch.object(arm64efi, "host_missing", return_value=None), \
                mock.patch.object(arm64efi, "image_missing",
                                  return_value=None), \
                mock.patch.object(arm64efi, "boot_row",
                                  self.stand_in(text, **kw)), \
                mock.patch.object(arm64efi, "AAVMF_VARS", CAPTURE):
            return matrix.run_row(self.row, self.out, False, None)

    def test_the_capture_passes_with_its_agreement_counted(self):
        o = self.run_row(self.text)
        self.assertEqual(o.status, "passed", o.details)
        self.assertEqual(o.checks, len(self.row.expects) + 1 + 2)
        self.assertEqual(o.exit_desc, "probe complete (powered off)")
        with open(os.path.join(self.out, self.row.name + ".record")) as f:
            self.assertIn("qemu-system-aarch64", f.read())

    def test_a_planted_disagreement_fails_the_row(self):
        # Every range's vdso flipped, the main entry left: the row's own
        # expectations still hold, so only the agreement fails it.
        r = copy.deepcopy(self.report)
        for e in r["verdict"]["arm64"]["by_kernel"]:
            e["vdso"] = True
        o = self.run_row(self.text, report=r)
        self.assertEqual(o.status, "failed", o.details)
        self.assertEqual(len(o.details), 2, o.details)
        for k in ("6.1", "6.12"):
            self.assertTrue(any("Linux %s on virt-a73id-smp1" % k in d
                                for d in o.details), o.details)

    def test_exit_status_other_than_power_off_fails(self):
        o = self.run_row(self.text, exit_status=1)
        self.assertEqual(o.status, "failed")
        self.assertIn("exit: expected status 0", o.details[0])

    def test_missing_pieces_are_named(self):
        with mock.patch.object(arm64efi, "host_missing",
                               return_value="qemu-system-aarch64 not "
                                            "installed"):
            o = matrix.run_row(self.row, self.out, False, None)
        self.assertEqual(o.status, "skipped")
        self.assertIn("qemu-system-aarch64 not installed", o.details[0])
        img = os.path.join(self.out, "none.img")
        row = matrixconf.parse_config(
            "[a]\narch = aarch64\nimage = %s\n" % img)[0]
        with mock.patch.object(arm64efi, "host_missing", return_value=None):
            with mock.patch.object(shutil, "which", return_value=None):
                o = matrix.run_row(row, self.out, False, None)
            self.assertEqual(o.status, "skipped")
            self.assertIn("not built (make arm64-probe)", o.details[0])
            self.assertIn("aarch64-linux-gnu-gcc not installed",
                          o.details[0])
            with mock.patch.object(shutil, "which", return_value="/bin/cc"):
                with mock.patch.object(arm64efi, "GNUEFI_STAMP", img):
                    o = matrix.run_row(row, self.out, False, None)
                self.assertEqual(o.status, "skipped")
                self.assertIn("gnu-efi not fetched (make arm64-deps)",
                              o.details[0])
                with mock.patch.object(arm64efi, "GNUEFI_STAMP", CAPTURE):
                    o = matrix.run_row(row, self.out, False, None)
                self.assertEqual(o.status, "error")
                self.assertEqual(o.details, [
                    "image %s not built (make arm64-probe)"
                    % os.path.relpath(img, REPO)])


if __name__ == "__main__":
    unittest.main()
