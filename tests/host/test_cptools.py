"""Host tests for scripts/cptools: boot_probe with a faked process runner,
describe_status, the KVM watch, the cpqemu compatibility re-exports and the
package's layout rules (a docstring per module, no module over 400 lines).

Nothing here starts QEMU; test_cpqemu.py boots the real thing with tiny
stand-in images.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import SCRIPTS  # noqa: E402
import cpqemu  # noqa: E402
import cptools  # noqa: E402
from cptools import (boot, frame, kvm, matrixconf, process, qemu,  # noqa: E402
                     query, standin)
from cptools import (fleet, fleetdb, fleetpage, matrixout,  # noqa: E402
                     policy, untrusted, watchlog)
from cptools import debfetch, fields, guestjoin, guestout  # noqa: E402
from cptools import (charts, fleetload, fleetpg, fleetrows,  # noqa: E402
                     headline, judgment, kernels, longformat, chartpick)
from cptools import fleetgroups, fleetscript, progress  # noqa: E402
from cptools import fleetinput, fleetlabels, fleetschema  # noqa: E402
from cptools import icountdiff, watchchart  # noqa: E402
from cptools import arm64agree, arm64efi, arm64guest  # noqa: E402

MODULES = (cptools, boot, frame, kvm, matrixconf, process, qemu, query,
           standin, fleet, fleetdb, fleetpage, matrixout, policy, untrusted,
           watchlog, debfetch, fields, guestjoin, guestout, charts, fleetload,
           fleetpg, fleetrows, headline, judgment, kernels, longformat,
           chartpick, fleetgroups, fleetscript, progress, fleetschema,
           watchchart, fleetinput, fleetlabels, icountdiff, arm64agree,
           arm64efi, arm64guest)
REPORT = {"schema": 1, "sources": [{"name": "tsc", "status": "ok"}]}


def have_ovmf():
    try:
        qemu.find_ovmf()
        return True
    except qemu.QemuError:
        return False


class FakeRunner:
    """Stands in for process.run_argv: records the call, returns a result."""

    def __init__(self, log_text="", exit_status=qemu.EXIT_COMPLETE,
                 timed_out=False, stderr=""):
        self.calls = []
        self.log_text, self.exit_status = log_text, exit_status
        self.timed_out, self.stderr = timed_out, stderr

    def __call__(self, argv, timeout, log_path=None, echo=None, watch=None):
        self.calls.append(dict(argv=argv, timeout=timeout, log_path=log_path,
                               echo=echo, watch=watch))
        return process.RunResult(self.exit_status, self.timed_out,
                                 self.log_text, 1.5, argv, self.stderr)


class BootProbeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-cptools-")
        self.elf = os.path.join(self.tmp, "probe.elf")
        open(self.elf, "wb").close()

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_collects_verified_report(self):
        run = FakeRunner("noise\r\n" + frame.frame_report(REPORT) + "bye\n")
        seen = []
        b = boot.boot_probe(self.elf, boot="pvh", timeout=42, machine="pc",
                            smp="2", log_path="/x/serial.log",
                            on_argv=seen.append, runner=run)
        self.assertEqual(b.report, REPORT)
        self.assertIsNone(b.error)
        self.assertEqual(b.meta["schema"], 1)
        self.assertEqual(b.result.exit_status, 33)
        self.assertEqual(len(run.calls), 1)
        call = run.calls[0]
        self.assertEqual(call["timeout"], 42)
        self.assertEqual(call["log_path"], "/x/serial.log")
        self.assertIsNone(call["watch"])  # TCG: nothing to watch for
        self.assertEqual(seen, [call["argv"]])
        self.assertEqual(b.argv, call["argv"])
        self.assertEqual(b.argv, qemu.qemu_command(
            self.elf, boot="pvh", machine="pc", smp="2"))

    def test_no_report_gives_the_reason(self):
        run = FakeRunner("firmware noise only\n", exit_status=None,
                         timed_out=True)
        b = boot.boot_probe(self.elf, boot="pvh", runner=run)
        self.assertIsNone(b.report)
        self.assertIsNone(b.meta)
        self.assertIn("BEGIN marker not found", b.error)
        self.assertTrue(b.result.timed_out)

    def test_corrupt_report_is_an_error(self):
        text = frame.frame_report(REPORT).replace('"ok"', '"no"')
        b = boot.boot_probe(self.elf, boot="pvh", runner=FakeRunner(text))
        self.assertIsNone(b.report)
        self.assertIn("CRC mismatch", b.error)

    def test_kvm_runs_get_the_hang_watch(self):
        run = FakeRunner(frame.frame_report(REPORT))
        boot.boot_probe(self.elf, boot="pvh", accel="kvm", cpu="host",
                        runner=run)
        self.assertIs(run.calls[0]["watch"], kvm.kvm_watch)
        self.assertIn("host,-arch-capabilities", run.calls[0]["argv"])
        boot.boot_probe(self.elf, boot="pvh", accel="kvm", watch=None,
                        runner=run)
        self.assertIsNone(run.calls[1]["watch"])

    def test_missing_image_raises_before_running(self):
        run = FakeRunner()
        with self.assertRaises(qemu.QemuError) as cm:
            boot.boot_probe(os.path.join(self.tmp, "none.elf"), boot="pvh",
                            runner=run)
        self.assertIn("image not found", str(cm.exception))
        self.assertEqual(run.calls, [])

    def test_default_image_per_boot(self):
        run = FakeRunner()
        if not os.path.exists(qemu.DEFAULT_IMAGES["pvh"]):
            self.skipTest("build/clockprobe.elf not built")
        b = boot.boot_probe(boot="pvh", runner=run)
        self.assertIn(qemu.DEFAULT_IMAGES["pvh"], b.argv)

    @unittest.skipUnless(have_ovmf(), "OVMF not installed")
    def test_vars_copy_in_callers_work_dir_is_kept(self):
        img = os.path.join(self.tmp, "probe.img")
        open(img, "wb").close()
        work = os.path.join(self.tmp, "work")
        run = FakeRunner(frame.frame_report(REPORT))
        b = boot.boot_probe(img, work_dir=work, runner=run)
        vars_copy = os.path.join(work, "OVMF_VARS.fd")
        self.assertTrue(os.path.isfile(vars_copy))
        self.assertIn("if=pflash,format=raw,unit=1,file=" + vars_copy,
                      b.argv)

    @unittest.skipUnless(have_ovmf(), "OVMF not installed")
    def test_temporary_work_dir_is_removed(self):
        img = os.path.join(self.tmp, "probe.img")
        open(img, "wb").close()
        b = boot.boot_probe(img, runner=FakeRunner())
        vars_arg = [a for a in b.argv if "unit=1,file=" in a][0]
        work = os.path.dirname(vars_arg.split("file=", 1)[1])
        self.assertFalse(os.path.exists(work))

    def test_run_probe_returns_the_run_result_without_watch(self):
        run = FakeRunner(frame.frame_report(REPORT))
        orig = process.run_argv
        process.run_argv = run
        try:
            res = boot.run_probe(self.elf, boot="pvh", accel="kvm")
        finally:
            process.run_argv = orig
        self.assertIsInstance(res, process.RunResult)
        self.assertIsNone(run.calls[0]["watch"])


class DescribeStatusTest(unittest.TestCase):
    def res(self, status, timed_out=False, stderr=""):
        return process.RunResult(status, timed_out, "", 12.4, [], stderr)

    def test_lines(self):
        d = process.describe_status
        self.assertEqual(d(self.res(None, True)), "timed out after 12 s")
        self.assertEqual(d(self.res(33)), "probe complete (status 33)")
        self.assertEqual(d(self.res(35)), "probe failed (status 35)")
        self.assertEqual(d(self.res(-9)), "QEMU killed by signal 9")
        self.assertEqual(d(self.res(1, stderr="a\nqemu: bad -cpu\n")),
                         "QEMU exit status 1: qemu: bad -cpu")
        self.assertEqual(d(self.res(
            None, stderr="x\n[cpqemu] stopped: QEMU reported 'y'\n")),
            "stopped: QEMU reported 'y'")


class KvmWatchTest(unittest.TestCase):
    def test_patterns(self):
        self.assertIsNone(kvm.kvm_watch("serial", "qemu: warning: x"))
        self.assertIn("KVM internal error", kvm.kvm_watch(
            "", "error: KVM internal error. Suberror: 1"))


class CompatibilityTest(unittest.TestCase):
    def test_cpqemu_reexports_the_package_objects(self):
        pairs = {
            qemu: ("qemu_command", "find_ovmf", "find_qemu", "copy_vars",
                   "needs_firmware", "host_cpu_fixup", "qemu_version",
                   "QemuError", "QEMU", "DEFAULT_IMAGES", "BOOT_KINDS",
                   "EXIT_COMPLETE", "EXIT_FAILED", "REPO", "BUILD"),
            process: ("run_argv", "describe_status", "RunResult"),
            kvm: ("kvm_usable", "kvm_watch", "KVM_FAILURE_PATTERNS"),
            standin: ("tiny_efi_app", "build_pvh_check_image"),
            frame: ("extract_report", "extract_report_meta", "frame_report",
                    "load_report_file"),
            query: ("get_path", "has_path", "split_path", "MISSING",
                    "get_path_or_missing"),
            boot: ("run_probe", "boot_probe"),
        }
        for mod, names in pairs.items():
            for n in names:
                self.assertIs(getattr(cpqemu, n), getattr(mod, n), n)

    def test_cpqemu_cli_still_works(self):
        """`cpqemu.py extract LOG` prints the verified report; a log
        without one exits 1 naming why; no arguments is a usage error."""
        fix = os.path.join(os.path.dirname(SCRIPTS), "tests", "fixtures",
                           "reports")
        cli = [sys.executable, os.path.join(SCRIPTS, "cpqemu.py")]
        p = subprocess.run(cli + ["extract", os.path.join(fix, "crlf.log")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        want, _ = frame.load_report_file(os.path.join(fix, "crlf.log"))
        self.assertEqual(json.loads(p.stdout), want)
        p = subprocess.run(cli + ["extract", os.path.join(fix,
                                                          "bad_crc.log")],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertIn("bad_crc.log", p.stderr)
        p = subprocess.run(cli, capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage", p.stderr)

    def test_package_scripts_do_not_import_the_shim(self):
        """cpqemu.py is for older callers: the package's own scripts and
        modules import cptools."""
        for name in ("run", "matrix", "compare", "linux-guest", "watch",
                     "verdict"):
            with open(os.path.join(SCRIPTS, name)) as f:
                text = f.read()
            self.assertNotRegex(text, r"(?m)^\s*(import|from) cpqemu\b",
                                name)
        for mod in MODULES:
            with open(mod.__file__) as f:
                self.assertNotRegex(f.read(),
                                    r"(?m)^\s*(import|from) cpqemu\b",
                                    mod.__name__)

    def test_repo_paths(self):
        self.assertEqual(qemu.REPO, os.path.dirname(SCRIPTS))
        self.assertEqual(qemu.DEFAULT_IMAGES["uefi"], os.path.join(
            os.path.dirname(SCRIPTS), "build", "clockprobe.img"))


class LayoutTest(unittest.TestCase):
    def test_each_module_says_why_and_stays_small(self):
        for mod in MODULES + (cpqemu,):
            self.assertTrue(mod.__doc__ and len(mod.__doc__.strip()) > 80,
                            mod.__name__)
            with open(mod.__file__) as f:
                n = len(f.read().splitlines())
            self.assertLessEqual(n, 400, "%s has %d lines" % (
                mod.__file__, n))


if __name__ == "__main__":
    unittest.main()
