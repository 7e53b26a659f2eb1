"""Real Linux guests vs the probe's Linux verdict (issue #5, "What it must
show").

The probe predicts which clocksource a Linux guest picks on a VM
(verdict.by_kernel[], verdict.available_clocksource).  Here real Debian
kernels (Debian 12's 6.1 and the 6.12 from bookworm-backports) boot under
the same QEMU configurations (scripts/linux-guest) and the probe's
prediction is checked against what they chose on this very boot.

What is asserted, per configuration and kernel:
* the guest's choice is one that real kernels were seen to make there
  (tests/linux/expected.json, recorded by hand from repeated boots): a QEMU
  or kernel change that moves reality shows up here, not as a silent pass;
* the probe's by_kernel prediction equals the guest's choice of this boot;
  where reality itself varies from boot to boot (expected.json lists more
  than one outcome), the prediction must be one of the observed outcomes;
* for the verdict's main kernel, available_clocksource equals the guest's.

A guest that crashes under TCG before printing its CLOCKSOURCE line (Kernel
panic, Oops, BUG:, general protection fault, Fatal exception; 6.12 once
died with "Fatal exception in interrupt") is no evidence about the verdict.
boot_guest boots it a second time; if that crashes too, the configuration's
case is skipped with the kernel, the configuration and the kernel's last log
lines, never passed and never failed (the other kernel is still checked and
can fail it).  Any other guest error, such as no CLOCKSOURCE line without a
crash, fails as before.

The guest's /init runs clockprobe-guest (issue 27): the facts above come
from its framed GUEST report, and each real boot also checks that report:
every available clocksource measured (--switch) and the original restored,
the same SMBIOS UUID as the probe boot, and cptools.guestjoin (what
scripts/compare shows) finding predicted = actual.  ForcedDisagreement
boots 6.12 with clocksource=acpi_pm: the disagreement is named with its
cause, and a clockprobe-guest killed with SIGTERM in the middle of
--switch gives the clocksource back (checked in the guest's /init).

OfflineParts needs no boot: log parsing and crash recognition on canned
logs (tests/linux/fixtures, tests/fixtures/guest), boot_guest's retry with
QEMU replaced by canned runs, and check_config's skip with the boots
replaced.

Run: python3 -m unittest discover -s tests/integration -p 'test_linux*' -v
Default: the "fast" configurations on the kernels their `guest = fast ...`
row of tests/matrix.conf lists (6.1 and/or 6.12; about 90 s on two
cores).  Every configuration on every fetched kernel (Debian 13's 6.12,
unstable's and experimental's too): LINUX_GUEST_FULL=1.  Kernels are fetched on first use (scripts/linux-guest
fetch, ~180 MB into build/linux); the booting tests are skipped with the
reason when that fails.  LINUX_GUEST_NO_FETCH=1 skips instead of fetching.
"""

import concurrent.futures
import importlib.machinery
import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
EXPECTED = os.path.join(REPO, "tests", "linux", "expected.json")
FIXTURES = os.path.join(REPO, "tests", "linux", "fixtures")
PANIC_LOG = os.path.join(FIXTURES, "panic-in-interrupt-6.12.log")
GUEST_FIXTURES = os.path.join(REPO, "tests", "fixtures", "guest")
sys.path.insert(0, SCRIPTS)
from cptools import debfetch, guestjoin, process, qemu, schema  # noqa: E402


def load_script(name):
    path = os.path.join(SCRIPTS, name)
    loader = importlib.machinery.SourceFileLoader(
        "cp_" + name.replace("-", "_"), path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


lg = load_script("linux-guest")
FULL = os.environ.get("LINUX_GUEST_FULL") == "1"


def load_expected():
    with open(EXPECTED) as f:
        return {k: v for k, v in json.load(f).items()
                if not k.startswith("_")}


def read_newc(blob):
    """Parse a cpio newc archive (spec: the kernel's
    Documentation/driver-api/early-userspace/buffer-format.rst) into
    {name: (mode, data, rdevmajor, rdevminor)}; written here independently
    of the writer under test."""
    out, off = {}, 0
    for _ in range(1000):
        magic = blob[off:off + 6]
        if magic != b"070701":
            raise ValueError("bad magic %r at %d" % (magic, off))
        f = [int(blob[off + 6 + 8 * i:off + 14 + 8 * i], 16)
             for i in range(13)]
        mode, filesize, rmaj, rmin, namesize = f[1], f[6], f[9], f[10], f[11]
        name_at = off + 110
        name = blob[name_at:name_at + namesize - 1].decode()
        if blob[name_at + namesize - 1] != 0:
            raise ValueError("name of %r not NUL-terminated" % name)
        data_at = (name_at + namesize + 3) & ~3
        data = blob[data_at:data_at + filesize]
        off = (data_at + filesize + 3) & ~3
        if name == "TRAILER!!!":
            return out
        out[name] = (mode, data, rmaj, rmin)
    raise ValueError("no trailer")


GOOD_LOG = ("LINUXGUEST uname=6.12-test cpus_online=0-1 cpus_possible=0-1"
            "\r\nCLOCKSOURCE current=tsc available=tsc hpet acpi_pm \r\n"
            "LINUXGUEST DONE\r\n")


_PROBES = {}


def probe_report(config):
    """lg.boot_probe(config), booted once per configuration for the whole
    module (keyed by the function too: the offline tests replace it)."""
    key = (config, lg.boot_probe)
    if key not in _PROBES:
        _PROBES[key] = lg.boot_probe(config)
    return _PROBES[key]


def read_guest_fixture(name):
    with open(os.path.join(GUEST_FIXTURES, name), "rb") as f:
        return f.read().decode("utf-8", "replace")


def read_panic_log():
    with open(PANIC_LOG, "rb") as f:
        return f.read().decode("utf-8", "replace")


class OfflineBootRetry:
    """boot_guest's retry of a crashed boot, with QEMU replaced by canned
    serial logs (process.run_argv is what boot_guest runs per boot).  Mixed
    into OfflineParts."""

    def boot(self, runs, **kw):
        """boot_guest on canned runs [(log_text, exit_status, timed_out)];
        returns (result, number of QEMU runs)."""
        runs, calls = list(runs), []

        def fake_run_argv(argv, timeout, log_path=None, echo=None,
                          watch=None):
            text, status, timed_out = runs[len(calls)]
            calls.append(argv)
            if log_path:
                with open(log_path, "w", newline="") as f:
                    f.write(text)
            return process.RunResult(status, timed_out, text, 12.0, argv, "")
        manifest = {"6.12": {"path": "/nonexistent/vmlinuz-6.12",
                             "release": "6.12.95-test"}}
        with mock.patch.object(lg, "load_manifest", lambda: manifest), \
                mock.patch.object(lg, "_initrd_current", lambda: True), \
                mock.patch.object(lg.qemu, "find_qemu", lambda: None), \
                mock.patch.object(lg.process, "run_argv", fake_run_argv):
            res = lg.boot_guest("q35-qemu64-smp2", "6.12", **kw)
        for argv in calls:
            self.assertIn("/nonexistent/vmlinuz-6.12", argv)
        return res, len(calls)

    def test_boot_crash_then_success(self):
        d = tempfile.mkdtemp(prefix="lg-test-")
        try:
            log = os.path.join(d, "serial.log")
            res, n = self.boot([(read_panic_log(), 0, False),
                                (GOOD_LOG, 0, False)], log_path=log)
            with open(log + ".crash1", newline="") as f:
                kept = f.read()
            with open(log, newline="") as f:
                last = f.read()
        finally:
            shutil.rmtree(d, ignore_errors=True)
        self.assertEqual(n, 2)
        self.assertIsNone(res["error"])
        self.assertFalse(res["crashed"])
        self.assertEqual(res["attempts"], 2)
        self.assertEqual((res["current"], res["available"]),
                         ("tsc", ["tsc", "hpet", "acpi_pm"]))
        self.assertIn("Fatal exception in interrupt",
                      res["earlier_crashes"][0])
        self.assertNotIn("last_lines", res)
        self.assertEqual(kept, read_panic_log())
        self.assertEqual(last, GOOD_LOG)

    def test_boot_crash_twice(self):
        panic = read_panic_log()
        res, n = self.boot([(panic, 0, False), (panic, 0, False)])
        self.assertEqual(n, 2)
        self.assertTrue(res["crashed"])
        self.assertEqual(res["attempts"], 2)
        self.assertIn("crashed in 2 of 2 boots", res["error"])
        self.assertIn("Kernel panic - not syncing: Fatal exception in "
                      "interrupt", res["error"])
        self.assertEqual(len(res["last_lines"]), 10)
        self.assertIn("end Kernel panic", res["last_lines"][-1])
        self.assertNotIn("current", res)

    def test_boot_crash_then_timeout_after_bug(self):
        """A hang after a BUG: report (QEMU killed at the timeout) is a
        crash too; the retry happens and the second crash is reported."""
        hang = "[    1.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s!\n"
        res, n = self.boot([(read_panic_log(), 0, False),
                            (hang, None, True)])
        self.assertEqual(n, 2)
        self.assertTrue(res["crashed"])
        self.assertIn("timed out", res["error"])
        self.assertIn("BUG: soft lockup", res["error"])

    def test_boot_other_failure_not_retried(self):
        res, n = self.boot([("[    0.1] Run /init as init process\r\n",
                             None, True), (GOOD_LOG, 0, False)])
        self.assertEqual(n, 1)
        self.assertFalse(res["crashed"])
        self.assertEqual(res["attempts"], 1)
        self.assertTrue(res["error"].startswith(
            "no CLOCKSOURCE line (timed out)"), res["error"])

    def test_boot_success_not_retried(self):
        res, n = self.boot([(GOOD_LOG, 0, False),
                            (read_panic_log(), 0, False)])
        self.assertEqual(n, 1)
        self.assertIsNone(res["error"])
        self.assertEqual(res["current"], "tsc")
        self.assertNotIn("earlier_crashes", res)


class OfflineCrashSkips:
    """RealGuests.check_config with the boots replaced: a guest that crashed
    twice skips the case (never a pass, never a failure), without hiding a
    real failure of the other kernel; any other guest error fails.  Mixed
    into OfflineParts (RealGuests is defined below)."""

    def run_case(self, guests, predicted):
        case = RealGuests("test_q35_qemu64_smp2")
        case.kernels = {"6.1": {}, "6.12": {}}
        case.expected = load_expected()
        report = {"verdict": {
            "linux_kernel": "6.12",
            "available_clocksource": "tsc hpet acpi_pm",
            "by_kernel": [{"from": "4.19", "to": "6.11",
                           "linux_clocksource": predicted},
                          {"from": "6.12", "to": None,
                           "linux_clocksource": "tsc"}]}}
        result = unittest.TestResult()
        with mock.patch.object(lg, "boot_guest",
                               lambda config, k: dict(guests[k])), \
                mock.patch.object(lg, "boot_probe",
                                  lambda config, **kw: (report, None)), \
                mock.patch.dict(qemu.DEFAULT_IMAGES,
                                {"pvh": os.path.abspath(__file__)}):
            case.run(result)
        return result

    GOOD_GUESTS = {
        "6.1": {"current": "hpet", "available": ["hpet", "acpi_pm"],
                "kernel_release": "6.1.0-test", "dmesg": [],
                "crashed": False, "error": None},
        "6.12": {"current": "tsc", "available": ["tsc", "hpet", "acpi_pm"],
                 "kernel_release": "6.12-test", "dmesg": [],
                 "crashed": False, "error": None}}
    CRASHED = {
        "kernel_release": "6.12-test", "crashed": True,
        "error": "guest crashed in 2 of 2 boots (last: exit 0): "
                 "Kernel panic - not syncing: Fatal exception",
        "last_lines": ["[ 0.917] RIP: 0010:__run_timers+0x1a4",
                       "[ 0.918] ---[ end Kernel panic ]---"]}

    def test_check_config_all_good_passes(self):
        r = self.run_case(self.GOOD_GUESTS, "hpet")
        self.assertEqual((r.testsRun, r.failures, r.errors, r.skipped),
                         (1, [], [], []))

    def test_check_config_crashed_guest_skips(self):
        r = self.run_case(dict(self.GOOD_GUESTS, **{"6.12": self.CRASHED}),
                          "hpet")
        self.assertEqual((r.failures, r.errors), ([], []))
        self.assertEqual(len(r.skipped), 1)
        reason = r.skipped[0][1]
        for part in ("6.12-test", "6.12", "q35-qemu64-smp2",
                     "Fatal exception", "end Kernel panic ]---"):
            self.assertIn(part, reason)

    def test_check_config_crash_does_not_hide_other_kernel_failure(self):
        r = self.run_case(dict(self.GOOD_GUESTS, **{"6.12": self.CRASHED}),
                          "tsc")
        self.assertEqual(len(r.failures), 1, r.failures)
        self.assertIn("probe predicts tsc for 6.1", r.failures[0][1])

    def test_check_config_other_error_fails(self):
        bad = {"kernel_release": "6.12-test", "crashed": False,
               "error": "no CLOCKSOURCE line (timed out); log tail: x"}
        r = self.run_case(dict(self.GOOD_GUESTS, **{"6.12": bad}), "hpet")
        self.assertEqual(r.skipped, [])
        self.assertEqual(len(r.failures), 1, r.failures)
        self.assertIn("no CLOCKSOURCE line", r.failures[0][1])


class OfflineParts(OfflineBootRetry, OfflineCrashSkips,
                   unittest.TestCase):
    """What can be checked without booting anything."""

    def test_guest_log_parse(self):
        with open(os.path.join(FIXTURES, "q35-qemu64-smp2-6.1.log"),
                  "rb") as f:
            text = f.read().decode("utf-8", "replace")
        g = lg.parse_guest_log(text)
        self.assertIsNotNone(g)
        self.assertEqual(g["current"], "hpet")
        self.assertEqual(g["available"], ["hpet", "acpi_pm"])
        self.assertEqual(g["release"], "6.1.0-57-amd64")
        self.assertEqual(g["cpus_possible"], "0-1")
        self.assertIn("tsc: Marking TSC unstable due to TSCs unsynchronized",
                      " ".join(g["dmesg"]))

    def test_guest_report_log_parse(self):
        """The facts of a clockprobe-guest log (recorded with this harness:
        6.1 on q35-qemu64-smp2) are those the old /init printed."""
        text = read_guest_fixture("guest-q35-qemu64-smp2-6.1.log")
        g = lg.parse_guest_log(text)
        self.assertEqual(g["format"], "guest")
        self.assertEqual(g["current"], "hpet")
        self.assertEqual(g["available"], ["hpet", "acpi_pm"])
        self.assertEqual(g["release"], "6.1.0-57-amd64")
        self.assertEqual(g["cpus_possible"], "0-1")
        self.assertIn("tsc: Marking TSC unstable due to TSCs unsynchronized",
                      " ".join(g["dmesg"]))
        self.assertTrue(g["changes"])
        self.assertEqual(g["changes"][-1]["current"], "hpet")
        self.assertIsNone(lg.guest_crash(text))
        self.assertNotIn("killtest", g)
        # A log cut inside the frame is no result.
        self.assertIsNone(lg.parse_guest_log(text[:text.index("GUEST END")]))

    def test_killtest_line(self):
        g = lg.parse_guest_log(read_guest_fixture(
            "guest-q35-qemu64-smp2-6.12-forced-acpi_pm.log"))
        self.assertEqual(g["current"], "acpi_pm")
        k = g["killtest"]
        self.assertEqual((k["original"], k["after"], k["status"]),
                         ("acpi_pm", "acpi_pm", 143))
        self.assertNotEqual(k["during"], k["original"])

    def test_config_uuid(self):
        u = lg.config_uuid("q35-qemu64-smp2")
        self.assertEqual(u, lg.config_uuid("q35-qemu64-smp2"))
        self.assertNotEqual(u, lg.config_uuid("q35-qemu64-smp2-nohpet"))
        self.assertRegex(u, r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
                            r"[0-9a-f]{4}-[0-9a-f]{12}$")

    def test_mirror_comes_from_the_hosts_apt_sources(self):
        """The kernels are fetched through the host's own Debian mirror
        (cptools/debfetch.py): one-line and deb822 sources, security and
        disabled stanzas.  The sources are local file: repositories (no
        host is named in the code); paths are joined at run time."""
        deb, sec = "/debian", "/debian-security"
        mirror, src, off = ("file:/srv/mirror", "file:/srv/src",
                            "file:/srv/off")
        secm = "file:/srv/sec"
        d = tempfile.mkdtemp(prefix="lg-apt-")
        try:
            with open(os.path.join(d, "mirror.list"), "w") as f:
                f.write("# local mirror\n"
                        "deb-src %s%s bookworm main\n"
                        "deb [arch=amd64] %s%s bookworm main contrib\n"
                        % (src, deb, mirror, deb))
            with open(os.path.join(d, "sec.sources"), "w") as f:
                f.write("Types: deb\nURIs: %s%s\nSuites: bookworm\n"
                        "Enabled: no\n\n"
                        "Types: deb\nURIs: %s%s/\n"
                        "Suites: bookworm-security\nComponents: main\n"
                        % (off, deb, secm, sec))
            entries = debfetch.apt_source_entries((d,))
            self.assertEqual(debfetch.debian_mirrors(entries), {
                "debian": mirror + deb, "security": secm + sec})
            # No security entry: the main mirror's debian-security tree.
            m = "file:/srv/m"
            self.assertEqual(debfetch.debian_mirrors(
                [(m + deb + "/", ["bookworm"])])["security"], m + sec)
            with self.assertRaises(debfetch.FetchError):
                debfetch.debian_mirrors([("file:/srv/ppa/other",
                                          ["noble"])])
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_guest_log_without_result(self):
        self.assertIsNone(lg.parse_guest_log(
            "[    0.1] Kernel panic - not syncing: VFS\r\n"
            "CLOCKSOURCE_T not the line\n"))

    def test_guest_log_crlf(self):
        g = lg.parse_guest_log("x\r\nCLOCKSOURCE current=tsc available="
                               "tsc hpet acpi_pm \r\n")
        self.assertEqual((g["current"], g["available"]),
                         ("tsc", ["tsc", "hpet", "acpi_pm"]))

    def test_verdict_for_kernel_ranges(self):
        report = {"verdict": {"linux_kernel": "6.12", "by_kernel": [
            {"from": "4.19", "to": "6.11", "linux_clocksource": "hpet"},
            {"from": "6.12", "to": None, "linux_clocksource": "tsc"}]}}
        self.assertEqual(lg.verdict_for_kernel(report, "6.1")
                         ["linux_clocksource"], "hpet")
        self.assertEqual(lg.verdict_for_kernel(report, "6.11")
                         ["linux_clocksource"], "hpet")
        self.assertEqual(lg.verdict_for_kernel(report, "6.12")
                         ["linux_clocksource"], "tsc")
        # 6.2 sorts after 6.12 as a string but before it as a version.
        self.assertEqual(lg.verdict_for_kernel(report, "6.2")
                         ["linux_clocksource"], "hpet")
        self.assertIsNone(lg.verdict_for_kernel(report, "4.14"))

    def test_compare_reports_disagreement(self):
        """compare_config flags a probe that predicts what Linux did not
        choose; boots are replaced by canned results."""
        def fake_guest(config, kernel, firmware="seabios", settle=None):
            cur = {"6.1": "hpet", "6.12": "tsc"}[kernel]
            return {"current": cur, "available": [cur, "acpi_pm"],
                    "kernel_release": kernel + "-test", "dmesg": [],
                    "error": None}
        report = {"verdict": {
            "linux_kernel": "6.12", "available_clocksource": "tsc acpi_pm",
            "by_kernel": [{"from": "4.19", "to": None,
                           "linux_clocksource": "tsc"}]}}
        saved = lg.boot_guest, lg.boot_probe
        lg.boot_guest = fake_guest
        lg.boot_probe = lambda config, **kw: (report, None)
        try:
            row = lg.compare_config("q35-qemu64-smp2", ["6.1", "6.12"])
        finally:
            lg.boot_guest, lg.boot_probe = saved
        self.assertEqual(row["probe"]["by_kernel"],
                         {"6.1": "tsc", "6.12": "tsc"})
        self.assertEqual(len(row["mismatches"]), 1, row["mismatches"])
        self.assertIn("q35-qemu64-smp2 on 6.1: probe predicts 'tsc', "
                      "Linux 6.1-test chose 'hpet'", row["mismatches"][0])
        table = lg.markdown_table([row], ["6.1", "6.12"])
        self.assertIn("| q35-qemu64-smp2 | `q35` / `qemu64` / `2` | "
                      "hpet [hpet acpi_pm] / predicted tsc [None] MISMATCH "
                      "| tsc [tsc acpi_pm] = predicted |", table)

    def test_compare_checks_available_per_kernel(self):
        """Each by_kernel range predicts the registered list: a different
        list on that kernel is a mismatch even when the choice agrees."""
        def fake_guest(config, kernel, firmware="seabios", settle=None):
            return {"current": "tsc", "available": ["tsc", "hpet", "acpi_pm"],
                    "kernel_release": kernel + "-test", "dmesg": [],
                    "error": None}
        report = {"verdict": {
            "linux_kernel": "6.18", "available_clocksource": "tsc acpi_pm",
            "by_kernel": [{"from": "4.19", "to": "6.11",
                           "linux_clocksource": "tsc",
                           "available_clocksource": "tsc hpet acpi_pm"},
                          {"from": "6.12", "to": None,
                           "linux_clocksource": "tsc",
                           "available_clocksource": "tsc acpi_pm"}]}}
        with mock.patch.object(lg, "boot_guest", fake_guest), \
                mock.patch.object(lg, "boot_probe",
                                  lambda config, **kw: (report, None)):
            row = lg.compare_config("q35-qemu64-smp2", ["6.1", "6.12"])
        self.assertEqual(len(row["mismatches"]), 1, row["mismatches"])
        self.assertIn("on 6.12: probe predicts available='tsc acpi_pm'",
                      row["mismatches"][0])

    # dmesg lines recorded from real guests (agreement run of 2026-12-01).
    JIFFIES_LOST = [
        "[    1.559729] clocksource: timekeeping watchdog on CPU0: Marking "
        "clocksource 'tsc-early' as unstable because the skew is too large:",
        "[    1.559820] clocksource:                       'refined-jiffies' "
        "wd_nsec: 512032000 wd_now: fffedc98 wd_last: fffedc18 mask: "
        "ffffffff",
        "[    1.560014] tsc: Marking TSC unstable due to clocksource "
        "watchdog"]
    CALIBRATION_LOST = [
        "[    0.056000] tsc: PIT calibration deviates from HPET: 838262 "
        "2445306",
        "[    0.056000] tsc: Detected 838.262 MHz processor",
        "[   11.506384] tsc: Marking TSC unstable due to clocksource "
        "watchdog"]

    def test_named_risk_counts_only_with_its_evidence(self):
        """A by_kernel range's risk is the prediction only when the guest
        ended on its outcome and its dmesg shows that race lost."""
        jiffies = {"reason": "jiffies_watchdog",
                   "linux_clocksource": "acpi_pm",
                   "available_clocksource": "acpi_pm"}
        lost = {"current": "acpi_pm", "available": ["acpi_pm"],
                "dmesg": self.JIFFIES_LOST}
        self.assertTrue(lg.risk_explains(jiffies, lost))
        # the same outcome without the race in dmesg: a plain mismatch
        self.assertFalse(lg.risk_explains(
            jiffies, dict(lost, dmesg=self.JIFFIES_LOST[2:])))
        # another race's evidence does not stand in for this one
        self.assertFalse(lg.risk_explains(
            jiffies, dict(lost, dmesg=self.CALIBRATION_LOST)))
        self.assertFalse(lg.risk_explains(
            jiffies, dict(lost, available=["tsc", "acpi_pm"])))
        self.assertFalse(lg.risk_explains(None, lost))
        calib = {"reason": "tsc_calibration", "linux_clocksource": "hpet",
                 "available_clocksource": "hpet acpi_pm"}
        hpet = {"current": "hpet", "available": ["hpet", "acpi_pm"],
                "dmesg": self.CALIBRATION_LOST}
        self.assertTrue(lg.risk_explains(calib, hpet))
        # a rate 3x off the probe's measured one is evidence by itself
        report = {"verdict": {"inputs": {
            "tsc_freq_measured_hz": 2445432070}}}
        self.assertTrue(lg.risk_explains(
            calib, dict(hpet, dmesg=self.CALIBRATION_LOST[1:]), report))
        self.assertFalse(lg.risk_explains(
            calib, dict(hpet, dmesg=[
                "[    0.052000] tsc: Detected 2445.445 MHz processor",
                self.CALIBRATION_LOST[2]]), report))

    def test_short_round_risk_needs_the_frequency_skew_line(self):
        risk = {"reason": "watchdog_short_round",
                "linux_clocksource": "acpi_pm",
                "available_clocksource": "acpi_pm"}
        lost = {"current": "acpi_pm", "available": ["acpi_pm"], "dmesg": [
            "[    6.499133] clocksource: Marking clocksource tsc-early "
            "unstable due to frequency skew",
            "[    6.499499] tsc: Marking TSC unstable due to clocksource "
            "watchdog"]}
        self.assertTrue(lg.risk_explains(risk, lost))
        self.assertFalse(lg.risk_explains(
            risk, dict(lost, dmesg=self.JIFFIES_LOST)))

    def test_compare_takes_a_lost_race_as_agreement(self):
        report = {"verdict": {
            "linux_kernel": "6.18", "available_clocksource": "tsc acpi_pm",
            "by_kernel": [{"from": "4.19", "to": "7.0",
                           "linux_clocksource": "tsc",
                           "available_clocksource": "tsc acpi_pm",
                           "risk": {"reason": "jiffies_watchdog",
                                    "linux_clocksource": "acpi_pm",
                                    "vdso": False,
                                    "available_clocksource": "acpi_pm",
                                    "note": "..."}}]}}
        guests = {
            "6.1": {"current": "acpi_pm", "available": ["acpi_pm"],
                    "kernel_release": "6.1-test", "dmesg": self.JIFFIES_LOST,
                    "error": None},
            "6.12": {"current": "acpi_pm", "available": ["acpi_pm"],
                     "kernel_release": "6.12-test", "dmesg": [],
                     "error": None}}
        row = lg.compare_config("q35-qemu64-smp1-nohpet", ["6.1", "6.12"],
                                guests=guests, report=report)
        self.assertEqual(row["probe"]["risk_taken"],
                         {"6.1": "jiffies_watchdog"})
        self.assertEqual(row["probe"]["by_kernel"],
                         {"6.1": "acpi_pm", "6.12": "tsc"})
        self.assertEqual(len(row["mismatches"]), 2, row["mismatches"])
        self.assertTrue(all(" on 6.12:" in mm for mm in row["mismatches"]))
        table = lg.markdown_table([row], ["6.1", "6.12"])
        self.assertIn("acpi_pm [acpi_pm] = predicted risk "
                      "(jiffies_watchdog)", table)

    def test_kernel_names_and_suites(self):
        """Debian 13's kernel and the newest Debian packages are picked
        from their suites; names carry the version by_kernel is read at."""
        cands = [("7.3~rc7-1~exp1", "1 file:/srv/mirror/pub/debian experimental/main "
                  "amd64 Packages"),
                 ("7.2.13-1", "500 file:/srv/mirror/pub/debian sid/main amd64 Packages"),
                 ("6.12.118-1", "500 file:/srv/mirror/pub/debian-security "
                  "trixie-security/main amd64 Packages"),
                 ("6.12.117-1", "500 file:/srv/mirror/pub/debian trixie/main amd64 "
                  "Packages"),
                 ("6.12.95-1~bpo12+1", "100 file:/srv/mirror/pub/debian "
                  "bookworm-backports/main amd64 Packages"),
                 ("6.1.192-3", "500 file:/srv/mirror/pub/debian bookworm/main amd64 "
                  "Packages")]
        self.assertEqual(lg.pick_meta_versions(cands), {
            "7.3": "7.3~rc7-1~exp1", "7.2": "7.2.13-1",
            "6.12-deb13": "6.12.118-1", "6.12": "6.12.95-1~bpo12+1",
            "6.1": "6.1.192-3"})
        self.assertEqual(lg._version("6.12-deb13"), (6, 12))
        self.assertEqual(lg._version("7.3"), (7, 3))

    def test_compare_reports_crash_not_mismatch(self):
        """A guest that crashed twice is "crashed" in the row and the
        table, and never a mismatch, whatever the probe predicts."""
        def fake_guest(config, kernel, firmware="seabios", settle=None):
            if kernel == "6.12":
                return {"kernel_release": "6.12-test", "crashed": True,
                        "error": "guest crashed in 2 of 2 boots (last: exit "
                                 "0): Kernel panic - not syncing: Fatal "
                                 "exception in interrupt",
                        "last_lines": ["[ 0.9] Kernel panic"]}
            return {"current": "hpet", "available": ["hpet", "acpi_pm"],
                    "kernel_release": "6.1-test", "dmesg": [],
                    "crashed": False, "error": None}
        report = {"verdict": {
            "linux_kernel": "6.12", "available_clocksource": "tsc acpi_pm",
            "by_kernel": [{"from": "4.19", "to": "6.11",
                           "linux_clocksource": "hpet"},
                          {"from": "6.12", "to": None,
                           "linux_clocksource": "tsc"}]}}
        with mock.patch.object(lg, "boot_guest", fake_guest), \
                mock.patch.object(lg, "boot_probe",
                                  lambda config, **kw: (report, None)):
            row = lg.compare_config("q35-qemu64-smp2", ["6.1", "6.12"])
        self.assertEqual(row["mismatches"], [])
        self.assertEqual(len(row["crashed"]), 1, row["crashed"])
        self.assertIn("q35-qemu64-smp2 on 6.12: Linux 6.12-test crashed",
                      row["crashed"][0])
        table = lg.markdown_table([row], ["6.1", "6.12"])
        self.assertIn("| hpet [hpet acpi_pm] = predicted | crashed |",
                      table)

    def test_panic_log_is_a_crash(self):
        """The canned panic (an oops in interrupt context, as 6.12 did once
        under TCG) is a crash, with its cause and the log's last lines."""
        with open(PANIC_LOG, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        self.assertIsNone(lg.parse_guest_log(text))
        crash = lg.guest_crash(text)
        self.assertIsNotNone(crash)
        self.assertIn("BUG: unable to handle page fault", crash["reason"])
        self.assertIn("Kernel panic - not syncing: Fatal exception in "
                      "interrupt", crash["reason"])
        want = [ln for ln in text.replace("\r", "").splitlines()
                if ln.strip()][-10:]
        self.assertEqual(crash["last_lines"], want)
        self.assertTrue(crash["last_lines"][-1].endswith(
            "---[ end Kernel panic - not syncing: Fatal exception in "
            "interrupt ]---"), crash["last_lines"])
        self.assertFalse(any("\r" in ln for ln in crash["last_lines"]))
        # Each message alone is enough.
        for msg in ("Kernel panic - not syncing: VFS: Unable to mount root",
                    "Oops: 0000 [#1] PREEMPT SMP NOPTI",
                    "BUG: kernel NULL pointer dereference, address: 0",
                    "general protection fault, probably for non-canonical",
                    "Fatal exception in interrupt"):
            crash = lg.guest_crash("[    0.5] booting\r\n[    0.9] %s\r\n"
                                   % msg)
            self.assertIsNotNone(crash, msg)
            self.assertIn(msg, crash["reason"])

    def test_not_a_crash(self):
        """No crash message, a result already printed, or crash words in
        /init's own dmesg echo: not a crash."""
        with open(os.path.join(FIXTURES, "q35-qemu64-smp2-6.1.log"),
                  "rb") as f:
            good = f.read().decode("utf-8", "replace")
        self.assertIsNone(lg.guest_crash(good))
        self.assertIsNone(lg.guest_crash(
            good + "[   12.0] Kernel panic - not syncing: Attempted to kill "
                   "init!\r\n"))
        self.assertIsNone(lg.guest_crash(
            "[    0.1] Run /init as init process\r\n"
            "LINUXGUEST dmesg [ 3.0] watchdog: BUG: soft lockup\r\n"))
        self.assertIsNone(lg.guest_crash("[    0.1] Booting\r\n"))
        self.assertIsNone(lg.guest_crash(""))

    def test_initrd_is_valid_newc(self):
        if not os.path.isfile(lg.BUSYBOX):
            self.skipTest("busybox not fetched (scripts/linux-guest fetch)")
        d = tempfile.mkdtemp(prefix="lg-test-")
        try:
            path = lg.build_initrd(os.path.join(d, "initrd.cpio"))
            with open(path, "rb") as f:
                blob = f.read()
        finally:
            shutil.rmtree(d, ignore_errors=True)
        entries = read_newc(blob)
        mode, data, rmaj, rmin = entries["dev/console"]
        self.assertEqual(mode & 0o170000, 0o020000)  # char device
        self.assertEqual((rmaj, rmin), (5, 1))
        mode, data, _, _ = entries["init"]
        self.assertEqual(mode & 0o777, 0o755)
        self.assertTrue(data.startswith(b"#!/bin/busybox sh\n"))
        self.assertEqual(entries["bin/sh"][1], b"busybox")
        self.assertEqual(entries["bin/busybox"][1][:4], b"\x7fELF")
        mode, data, _, _ = entries["bin/clockprobe-guest"]
        self.assertEqual(mode & 0o777, 0o755)
        with open(lg.GUEST_BIN, "rb") as f:
            self.assertEqual(data, f.read())
        self.assertIn(b"/bin/clockprobe-guest --settle", entries["init"][1])
        self.assertEqual(len(blob) % 512, 0)

    def test_initrd_built_by_threads_at_once(self):
        """compare -j N: every thread that finds the initramfs stale
        writes its own temporary file; all finish, one archive stays."""
        if not os.path.isfile(lg.BUSYBOX):
            self.skipTest("busybox not fetched (scripts/linux-guest fetch)")
        d = tempfile.mkdtemp(prefix="lg-test-")
        try:
            dest = os.path.join(d, "initrd.cpio")
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                done = list(pool.map(lambda _: lg.build_initrd(dest),
                                     range(8)))
            self.assertEqual(done, [dest] * 8)
            self.assertEqual(os.listdir(d), ["initrd.cpio"])
            with open(dest, "rb") as f:
                self.assertIn("init", read_newc(f.read()))
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def test_expected_table_covers_configs(self):
        exp = load_expected()
        self.assertEqual(sorted(exp), sorted(lg.CONFIGS))
        for name, per_kernel in exp.items():
            for k, e in per_kernel.items():
                self.assertIn(k, lg.KERNELS, name)
                self.assertTrue(e["outcomes"], name)


class RealGuests(unittest.TestCase):
    """Boot real kernels and the probe; see the module docstring."""

    @classmethod
    def setUpClass(cls):
        try:
            qemu.find_qemu()  # the default one, or QEMU=PATH's
        except qemu.QemuError as e:
            raise unittest.SkipTest(str(e))
        if not lg.ready():
            if os.environ.get("LINUX_GUEST_NO_FETCH") == "1":
                raise unittest.SkipTest("kernels not fetched and "
                                        "LINUX_GUEST_NO_FETCH=1")
            try:
                lg.fetch(log=lambda msg: None)
            except (lg.GuestError, OSError,
                    subprocess.SubprocessError) as e:
                raise unittest.SkipTest(
                    "cannot fetch Debian kernels with apt: %s" % e)
        cls.kernels = lg.load_manifest()
        if not cls.kernels:
            raise unittest.SkipTest("no kernel after fetch")
        cls.expected = load_expected()

    def check_config(self, config):
        row = lg.CONFIGS[config]
        if not (FULL or row.guest == "fast"):
            self.skipTest("not a fast configuration (LINUX_GUEST_FULL=1)")
        kernels = sorted(self.kernels, key=lg._version)
        if not FULL:
            # tests/matrix.conf: guest = fast KERNEL...
            kernels = [k for k in kernels if k in row.guest_fast_kernels]
        expected = self.expected[config]
        guests, crashed = {}, {}
        for k in kernels:
            g = lg.boot_guest(config, k)
            if g.get("crashed"):
                # Crashed on the retry too: no evidence about the verdict
                # either way, so this case cannot pass; the other kernels
                # are still checked and may fail it.
                crashed[k] = g
                continue
            self.assertIsNone(g["error"], g["error"])
            guests[k] = g
            evidence = "\n  ".join(g["dmesg"])
            with self.subTest(kernel=k, check="reality as recorded"):
                self.assertIn(g["current"], expected[k]["outcomes"],
                              "%s on %s chose %s; expected.json says %s\n  %s"
                              % (g["kernel_release"], config, g["current"],
                                 expected[k]["outcomes"], evidence))
                if "available" in expected[k]:
                    self.assertEqual(g["available"],
                                     expected[k]["available"].split(),
                                     "%s on %s lists\n  %s" % (
                                         g["kernel_release"], config,
                                         evidence))
        if not guests:
            self.skip_crashed(config, crashed)
        image = qemu.DEFAULT_IMAGES[lg.probe_boot("seabios")]
        if not os.path.isfile(image):
            self.skipTest("probe image %s missing (make all)" % image)
        report, err = probe_report(config)
        self.assertIsNone(err, err)
        verdict = report.get("verdict")
        self.assertIsNotNone(verdict, "report has no verdict")
        for k, g in guests.items():
            entry = lg.verdict_for_kernel(report, k)
            with self.subTest(kernel=k, check="probe vs guest"):
                self.assertIsNotNone(entry, "no by_kernel range holds " + k)
                # A race the verdict names (by_kernel[].risk) and the
                # guest's dmesg shows lost: its outcome is the prediction.
                if lg.risk_explains(entry.get("risk"), g, report):
                    entry = entry["risk"]
                predicted = entry["linux_clocksource"]
                msg = ("probe predicts %s for %s on %s; Linux %s chose %s "
                       "(available: %s)\n  %s" % (
                           predicted, k, config, g["kernel_release"],
                           g["current"], " ".join(g["available"]),
                           "\n  ".join(g["dmesg"])))
                if len(expected[k]["outcomes"]) == 1:
                    self.assertEqual(predicted, g["current"], msg)
                else:
                    self.assertIn(predicted, expected[k]["outcomes"], msg)
            if len(expected[k]["outcomes"]) == 1 and entry and \
                    "available_clocksource" in entry:
                with self.subTest(kernel=k, check="available"):
                    self.assertEqual(
                        (entry.get("available_clocksource") or "").split(),
                        g["available"],
                        "by_kernel available_clocksource for %s on %s"
                        % (k, config))
        for k, g in guests.items():
            if "format" not in g:   # canned results (OfflineCrashSkips)
                continue
            with self.subTest(kernel=k, check="clockprobe-guest"):
                check_guest_report(self, config, k, g, report,
                                   len(expected[k]["outcomes"]) == 1)
        if crashed:
            self.skip_crashed(config, crashed)

    def skip_crashed(self, config, crashed):
        self.skipTest("; ".join(
            "Linux %s (%s) crashed twice on %s under TCG, no evidence about "
            "the verdict: %s\n  last lines:\n    %s" % (
                g.get("kernel_release"), k, config, g.get("error"),
                "\n    ".join(g.get("last_lines") or []))
            for k, g in sorted(crashed.items())))


def check_guest_report(case, config, kernel, g, report, fixed):
    """The clockprobe-guest report of one real boot: complete, restored,
    paired with the probe's by UUID, and predicted = actual where the
    outcome is fixed (what compare's "Predicted vs actual" shows)."""
    where = "%s on %s" % (kernel, config)
    case.assertEqual(g["format"], "guest",
                     "/init did not print a clockprobe-guest report")
    rep = g["guest_report"]
    case.assertEqual(schema.check_guest_report(rep), [], where)
    meas = rep["measurements"]
    case.assertEqual([m["clocksource"] for m in meas][0], g["current"])
    case.assertEqual(sorted(m["clocksource"] for m in meas),
                     sorted(g["available"]), where)
    for m in meas:
        case.assertEqual(m["status"], "ok", (where, m["clocksource"],
                                             m["reason"]))
        case.assertIsNotNone(m["vdso"]["in_vdso"], (where, m["vdso"]))
        case.assertGreater(m["deltas"]["samples"], 0)
    case.assertEqual([m["switched"] for m in meas],
                     [False] + [True] * (len(meas) - 1))
    restore = rep["clocksource"]["restore"]
    if len(meas) > 1:
        case.assertTrue(restore["restored"], (where, restore))
        case.assertEqual(restore["current_after"], g["current"])
    case.assertEqual(rep["platform"]["smbios"]["uuid"],
                     lg.config_uuid(config))
    case.assertEqual(guestjoin.identity(report, False)[0],
                     lg.config_uuid(config))
    j = guestjoin.join(rep, report)
    items = {it["item"]: it for it in j["items"]}
    case.assertIsInstance(items["read_ns"]["actual"], (int, float))
    if fixed:
        for name in ("clocksource", "available", "vdso"):
            if name in items:
                case.assertTrue(items[name]["agree"],
                                "%s: %s predicted %r, actual %r; findings: "
                                "%s" % (where, name, items[name]["predicted"],
                                        items[name]["actual"],
                                        j["findings"]))


class ForcedDisagreement(unittest.TestCase):
    """6.12 on q35-qemu64-smp2 with clocksource=acpi_pm: the probe predicts
    tsc, the guest runs acpi_pm; compare names it with its cause.  The same
    boot kills a --switch run with SIGTERM (clockprobe.killtest=1)."""

    CONFIG, KERNEL = "q35-qemu64-smp2", "6.12"
    APPEND = "clocksource=acpi_pm clockprobe.killtest=1"

    @classmethod
    def setUpClass(cls):
        RealGuests.setUpClass.__func__(cls)
        if cls.KERNEL not in cls.kernels:
            raise unittest.SkipTest("kernel %s not fetched" % cls.KERNEL)
        if not os.path.isfile(qemu.DEFAULT_IMAGES["uefi"]):
            raise unittest.SkipTest("probe image missing (make all)")

    def boot(self):
        """boot_guest's argv with more kernel arguments; a crashed boot is
        tried once more, as boot_guest does."""
        if not lg._initrd_current():
            lg.build_initrd()
        argv = lg.guest_command(self.kernels[self.KERNEL]["path"],
                                lg.CONFIGS[self.CONFIG])
        argv[argv.index("-append") + 1] += " " + self.APPEND
        argv += ["-uuid", lg.config_uuid(self.CONFIG)]
        for attempt in (1, 2):
            res = process.run_argv(argv, 300)
            crash = lg.guest_crash(res.log_text)
            if crash is None:
                return res.log_text
        self.skipTest("Linux %s crashed twice under TCG: %s\n  %s" % (
            self.KERNEL, crash["reason"], "\n  ".join(crash["last_lines"])))

    def test_forced_acpi_pm_is_named_and_a_kill_restores(self):
        log = self.boot()
        g = lg.parse_guest_log(log)
        self.assertIsNotNone(g, log[-2000:])
        self.assertEqual(g["current"], "acpi_pm")
        k = g.get("killtest")
        self.assertIsNotNone(k, "no killtest line")
        self.assertNotEqual(k["during"], k["original"],
                            "the kill did not come mid-switch: %r" % k)
        self.assertEqual((k["original"], k["after"], k["status"]),
                         ("acpi_pm", "acpi_pm", 128 + 15))
        report, err = probe_report(self.CONFIG)
        self.assertIsNone(err, err)
        predicted = lg.verdict_for_kernel(report, self.KERNEL)[
            "linux_clocksource"]
        self.assertEqual(predicted, "tsc")
        # scripts/compare on the two, as a user runs it.
        compare = load_script("compare")
        d = tempfile.mkdtemp(prefix="lg-forced-")
        try:
            with open(os.path.join(d, "guest.log"), "w") as f:
                f.write(log)
            with open(os.path.join(d, "probe.json"), "w") as f:
                json.dump(report, f)
            out, errs = io.StringIO(), io.StringIO()
            rc = compare.main([os.path.join(d, "probe.json"),
                               os.path.join(d, "guest.log")],
                              stdout=out, stderr=errs)
        finally:
            shutil.rmtree(d, ignore_errors=True)
        self.assertEqual(rc, 0, errs.getvalue())
        text = out.getvalue()
        self.assertIn("| clocksource | tsc | acpi_pm | **NO** |", text)
        self.assertIn("finding: the probe predicted tsc for Linux %s"
                      % g["release"], text)
        self.assertIn("the guest runs acpi_pm since clocksource=acpi_pm on "
                      "the kernel command line", text)


def _add_config_tests():
    for name in lg.CONFIGS:
        def test(self, name=name):
            self.check_config(name)
        test.__doc__ = "real Linux vs probe on " + name
        setattr(RealGuests, "test_" + re.sub(r"\W", "_", name), test)


_add_config_tests()


if __name__ == "__main__":
    unittest.main()
