"""clockprobe-guest run on this very machine (itself a Linux VM), issue 27:
its framed report verifies and is fully described by
docs/guest-report-schema.json, current_clocksource is the kernel's own,
it runs without root and names what it skipped, and --switch gives the
original clocksource back at the end, on SIGTERM/SIGINT/SIGHUP and on
--timeout.

--switch is never run against this machine's real sysfs: those tests point
--sysfs-dir at a stand-in directory of plain files (the program writes and
reads back current_clocksource there exactly as it would in sysfs), so
what they prove is the restoring, not a measurement.  The real switch,
and a kill in the middle of it, run inside Debian guests
(tests/integration/test_linux_guest.py)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from hostlib import REPO
from cptools import frame, schema

BINARY = os.path.join(REPO, "build", "clockprobe-guest")
SYSFS = "/sys/devices/system/clocksource/clocksource0"
NOBODY = 65534
# Short runs: the figures are this machine's and are not asserted on.
QUICK = ["--budget-ms", "20", "--samples", "4096"]
# Each measurement takes its whole budget: long enough to be caught in it.
SLOW = ["--budget-ms", "500", "--samples", "10000000"]


def need_binary(case):
    if not os.path.isfile(BINARY):
        case.skipTest("%s missing (make all)" % BINARY)


def private_lock(args):
    """A --switch run on a stand-in directory takes its lock there, not in
    /run: test runs of other checkouts on this machine must not refuse
    each other (SwitchLock tests the lock itself)."""
    if "--switch" in args and "--sysfs-dir" in args and "--lock-file" not in args:
        return list(args) + ["--lock-file", os.path.join(args[args.index("--sysfs-dir") + 1], "guest.lock")]
    return list(args)


def run_guest(args, as_nobody=False, timeout=60):
    args = private_lock(args)

    def drop():
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        if os.geteuid() == 0:  # never run as root by mistake
            os._exit(99)
    return subprocess.run([BINARY] + args, capture_output=True, text=True,
                          timeout=timeout,
                          preexec_fn=drop if as_nobody else None)


def read(path):
    with open(path) as f:
        return f.read()


class StandIn:
    """A clocksource directory of plain files."""

    def __init__(self, current="kvm-clock",
                 available="kvm-clock hpet acpi_pm "):
        self.dir = tempfile.mkdtemp(prefix="cp-guest-sysfs-")
        with open(os.path.join(self.dir, "current_clocksource"), "w") as f:
            f.write(current + "\n")
        with open(os.path.join(self.dir, "available_clocksource"), "w") as f:
            f.write(available + "\n")

    def current(self):
        return read(os.path.join(self.dir, "current_clocksource")).strip()

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class OnThisMachine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(BINARY):
            raise unittest.SkipTest("%s missing (make all)" % BINARY)
        cls.proc = run_guest(QUICK)
        cls.report, cls.error = frame.extract_guest_report(cls.proc.stdout)

    def test_frame_verifies_and_exit_status(self):
        self.assertIsNone(self.error, self.proc.stdout[-2000:])
        self.assertIn(self.proc.returncode, (0, 1), self.proc.stderr)
        self.assertEqual(self.proc.returncode == 1,
                         bool(self.report["errors"]), self.report["errors"])
        # The probe's frame reader does not take it for a probe report.
        self.assertIsNone(frame.extract_report(self.proc.stdout)[0])

    def test_schema_describes_every_name(self):
        self.assertEqual(schema.check_guest_report(self.report), [])

    def test_current_clocksource_is_the_kernels(self):
        want = read(os.path.join(SYSFS, "current_clocksource")).strip()
        cs = self.report["clocksource"]
        self.assertEqual(cs["current"], want)
        self.assertEqual(cs["available"],
                         read(os.path.join(SYSFS,
                                           "available_clocksource")).split())
        m = self.report["measurements"][0]
        self.assertEqual((m["clocksource"], m["status"], m["switched"]),
                         (want, "ok", False))
        self.assertEqual(self.report["kernel"]["release"], os.uname().release)

    def test_measured_not_invented(self):
        m = self.report["measurements"][0]
        vd, sc = m["vdso"], m["syscall"]["cost"]
        # A read always costs something, and the syscall more than the
        # vDSO's fast path when the vDSO answered in user space.
        self.assertGreater(sc["batch_ns"], 0)
        self.assertGreater(m["deltas"]["samples"], 1000)
        if vd["in_vdso"] is not None:
            self.assertEqual(vd["kernel_entries"] == 0, vd["in_vdso"])
        if vd["in_vdso"]:
            self.assertLess(vd["cost"]["batch_ns"], sc["batch_ns"])
        if self.report["tsc"]["rdtsc"]:
            self.assertTrue(sc["measured"])
            self.assertGreater(sc["cycles"]["p50"], 0)
        self.assertEqual(self.report["guest"]["options"]["switch"], False)
        self.assertIsNone(self.report["clocksource"]["restore"])

    def test_history_when_the_log_is_readable(self):
        h = self.report["history"]
        if h["status"] != "ok":
            self.assertIn("kernel_log", [s["what"] for s in
                                         self.report["skipped"]])
            return
        switched = [e["clocksource"] for e in h["events"]
                    if e["kind"] == "switched"]
        # The log's last switch is the clocksource in use, unless the log
        # wrapped before it (first_seq > 0) or someone switched by hand.
        if switched and not h["first_seq"]:
            self.assertEqual(switched[-1], self.report["clocksource"]["current"])
        for ln in h["lines"]:
            self.assertRegex(ln, r"^(\[ *\d+\.\d{6}\] )?")


class WithoutRoot(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(BINARY):
            raise unittest.SkipTest("%s missing (make all)" % BINARY)
        if os.geteuid() != 0:
            cls.proc = run_guest(QUICK)
        else:
            cls.proc = run_guest(QUICK, as_nobody=True)
        cls.report, cls.error = frame.extract_guest_report(cls.proc.stdout)

    def test_runs_and_says_what_it_skipped(self):
        self.assertIsNone(self.error, self.proc.stderr)
        self.assertEqual(schema.check_guest_report(self.report), [])
        g = self.report["guest"]
        self.assertNotEqual(g["euid"], 0)
        self.assertFalse(g["root"])
        skipped = {s["what"]: s["reason"] for s in self.report["skipped"]}
        self.assertIn("switch", skipped)
        restricted = read("/proc/sys/kernel/dmesg_restrict").strip() == "1"
        if restricted:
            self.assertIn("kernel_log", skipped)
            self.assertIn("dmesg_restrict", skipped["kernel_log"])
            self.assertEqual(self.report["history"]["status"], "skipped")
        if os.path.exists("/sys/class/dmi/id/product_uuid"):
            self.assertIn("smbios_uuid", skipped)
            self.assertIn("root only", skipped["smbios_uuid"])
        self.assertEqual(self.report["clocksource"]["current"],
                         read(os.path.join(SYSFS,
                                           "current_clocksource")).strip())
        self.assertEqual(self.report["measurements"][0]["status"], "ok")

    def test_switch_needs_root(self):
        if os.geteuid() != 0:
            self.skipTest("needs root to make a directory nobody cannot "
                          "write")
        fake = StandIn()
        try:
            os.chmod(fake.dir, 0o755)
            p = run_guest(QUICK + ["--switch", "--sysfs-dir", fake.dir],
                          as_nobody=True)
            rep, err = frame.extract_guest_report(p.stdout)
            self.assertIsNone(err, p.stderr)
            skipped = {s["what"]: s["reason"] for s in rep["skipped"]}
            self.assertIn("needs root", skipped["switch"])
            self.assertEqual(len(rep["measurements"]), 1)
            self.assertEqual(fake.current(), "kvm-clock")
        finally:
            fake.close()


class SwitchRestores(unittest.TestCase):
    """--switch on a stand-in directory: every write is undone."""

    def setUp(self):
        need_binary(self)
        if os.geteuid() != 0:
            self.skipTest("the stand-in directory test runs as root")
        self.fake = StandIn()
        self.addCleanup(self.fake.close)

    def test_switches_each_and_restores_at_the_end(self):
        p = run_guest(QUICK + ["--switch", "--sysfs-dir", self.fake.dir])
        rep, err = frame.extract_guest_report(p.stdout)
        self.assertIsNone(err, p.stderr)
        self.assertEqual([m["clocksource"] for m in rep["measurements"]],
                         ["kvm-clock", "hpet", "acpi_pm"])
        self.assertEqual([m["switched"] for m in rep["measurements"]],
                         [False, True, True])
        r = rep["clocksource"]["restore"]
        self.assertTrue(r["restored"], r)
        self.assertEqual(r["current_after"], "kvm-clock")
        self.assertEqual(self.fake.current(), "kvm-clock")
        self.assertEqual(rep["guest"]["options"]["sysfs_dir"], self.fake.dir)

    def kill_mid_switch(self, sig):
        p = subprocess.Popen([BINARY] + private_lock(SLOW + ["--switch", "--sysfs-dir",
                                                             self.fake.dir]),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        try:
            deadline = time.time() + 30
            while self.fake.current() in ("kvm-clock", "") and \
                    time.time() < deadline and p.poll() is None:
                time.sleep(0.02)
            during = self.fake.current()
            p.send_signal(sig)
            out, err = p.communicate(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.assertEqual(during, "hpet")
        self.assertEqual(p.returncode, -sig, err)
        self.assertEqual(self.fake.current(), "kvm-clock")
        self.assertIn("clocksource restored to kvm-clock", err)
        self.assertNotIn("GUEST BEGIN", out)

    def test_sigterm_mid_switch_restores(self):
        self.kill_mid_switch(signal.SIGTERM)

    def test_sigint_mid_switch_restores(self):
        self.kill_mid_switch(signal.SIGINT)

    def test_sighup_mid_switch_restores(self):
        self.kill_mid_switch(signal.SIGHUP)

    def test_timeout_restores(self):
        # The alarm comes during the second clocksource (each takes
        # about 3 x 500 ms here).
        p = run_guest(SLOW + ["--switch", "--timeout", "3", "--sysfs-dir",
                              self.fake.dir])
        self.assertEqual(p.returncode, 4, p.stderr)
        self.assertIn("--timeout expired", p.stderr)
        self.assertIn("clocksource restored to kvm-clock", p.stderr)
        self.assertEqual(self.fake.current(), "kvm-clock")

    def test_an_unreadable_current_clocksource_is_an_error_entry(self):
        """current_clocksource that holds no clocksource name: an error
        entry naming it, no switch tried, the rest of the report complete."""
        path = os.path.join(self.fake.dir, "current_clocksource")
        os.remove(path)
        os.symlink("/proc/version", path)
        p = run_guest(QUICK + ["--switch", "--sysfs-dir", self.fake.dir])
        rep, err = frame.extract_guest_report(p.stdout)
        self.assertIsNone(err, p.stderr)
        self.assertEqual(rep["clocksource"]["current"], None)
        self.assertIn("CLOCKSOURCE", [e["code"] for e in rep["errors"]])
        self.assertEqual(p.returncode, 1)
        self.assertIn("the current clocksource is unknown",
                      [s["reason"] for s in rep["skipped"]])
        self.assertEqual(len(rep["measurements"]), 1)
        self.assertEqual(schema.check_guest_report(rep), [])


class SwitchLock(unittest.TestCase):
    """--switch takes an exclusive lock before it reads current_clocksource
    (issue 41): a second run while one is switching would record the
    first's temporary clocksource as "original" and restore that."""

    def setUp(self):
        need_binary(self)
        self.fake = StandIn()
        self.addCleanup(self.fake.close)
        self.lock = os.path.join(self.fake.dir, "guest.lock")

    def test_held_lock_refuses_naming_the_holder_and_touches_nothing(self):
        """A lock another process holds (with its PID in the file): exit 5,
        the PID and the path named, no report, the stand-in unchanged.
        Needs no root: the refusal comes before the permission check."""
        import fcntl
        with open(self.lock, "w") as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            f.write("4242\n")
            f.flush()
            p = run_guest(QUICK + ["--switch", "--sysfs-dir", self.fake.dir, "--lock-file", self.lock])
        self.assertEqual(p.returncode, 5, p.stderr)
        self.assertIn("--switch refused: PID 4242 holds %s" % self.lock, p.stderr)
        self.assertIn("Nothing measured", p.stderr)
        self.assertNotIn("GUEST BEGIN", p.stdout)
        self.assertEqual(self.fake.current(), "kvm-clock")

    def test_a_stale_lock_file_does_not_block(self):
        """The file left by a run that ended (SIGKILL included) holds no
        lock: the next run takes it and writes its own PID."""
        with open(self.lock, "w") as f:
            f.write("999999\n")
        p = run_guest(QUICK + ["--switch", "--sysfs-dir", self.fake.dir, "--lock-file", self.lock])
        self.assertNotEqual(p.returncode, 5, p.stderr)
        self.assertIn("GUEST BEGIN", p.stdout)
        self.assertRegex(read(self.lock), r"^[0-9]+\n$")
        self.assertNotEqual(read(self.lock), "999999\n")

    def test_two_concurrent_switch_runs(self):
        """The real race: the second run starts while the first has the
        stand-in on hpet.  It is refused naming the first's PID; the first
        finishes and restores kvm-clock, its report's original kvm-clock."""
        if os.geteuid() != 0:
            self.skipTest("the switching run needs root")
        first = subprocess.Popen([BINARY] + SLOW + ["--switch", "--sysfs-dir", self.fake.dir,
                                                    "--lock-file", self.lock],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 30
            while self.fake.current() in ("kvm-clock", "") and time.time() < deadline and first.poll() is None:
                time.sleep(0.02)
            self.assertEqual(self.fake.current(), "hpet")
            second = run_guest(QUICK + ["--switch", "--sysfs-dir", self.fake.dir, "--lock-file", self.lock])
            out, err = first.communicate(timeout=60)
        finally:
            if first.poll() is None:
                first.kill()
                first.wait()
        self.assertEqual(second.returncode, 5, second.stderr)
        self.assertIn("PID %d holds" % first.pid, second.stderr)
        self.assertNotIn("GUEST BEGIN", second.stdout)
        rep, e = frame.extract_guest_report(out)
        self.assertIsNone(e, err)
        self.assertEqual(rep["clocksource"]["current"], "kvm-clock")
        self.assertEqual(rep["clocksource"]["restore"]["current_after"], "kvm-clock")
        self.assertEqual(self.fake.current(), "kvm-clock")

    def test_an_unwritable_lock_skips_the_switch(self):
        """Root, but the lock cannot be taken (its directory is gone): the
        switch is skipped with the reason, nothing written."""
        if os.geteuid() != 0:
            self.skipTest("the permission check comes first without root")
        p = run_guest(QUICK + ["--switch", "--sysfs-dir", self.fake.dir,
                               "--lock-file", os.path.join(self.fake.dir, "no-such-dir", "x.lock")])
        rep, e = frame.extract_guest_report(p.stdout)
        self.assertIsNone(e, p.stderr)
        skipped = {s["what"]: s["reason"] for s in rep["skipped"]}
        self.assertIn("cannot take the lock", skipped["switch"])
        self.assertEqual(len(rep["measurements"]), 1)
        self.assertEqual(self.fake.current(), "kvm-clock")


class CommandLine(unittest.TestCase):
    def setUp(self):
        need_binary(self)

    def test_help_lists_defaults_and_exit_codes(self):
        p = run_guest(["--help"])
        self.assertEqual(p.returncode, 0)
        for part in ("--switch", "--samples N", "default 100000",
                     "--budget-ms", "default 250", "--settle", "--timeout",
                     "Exit status: 0", "2 usage error", "4 --timeout"):
            self.assertIn(part, p.stdout)
        p = run_guest(["--version"])
        self.assertEqual((p.returncode, p.stdout.split()[0]),
                         (0, "clockprobe-guest"))

    def test_usage_errors(self):
        for args in (["--samples", "5"], ["--budget-ms", "x"], ["--bogus"],
                     ["extra"], ["--timeout"], ["--settle", "-1"]):
            with self.subTest(args=args):
                p = run_guest(args)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn("clockprobe-guest:", p.stderr)
                self.assertEqual(p.stdout, "")

    def test_label_from_the_option(self):
        p = run_guest(QUICK + ["--quiet", "--label", "vm-42"])
        rep, err = frame.extract_guest_report(p.stdout)
        self.assertIsNone(err)
        self.assertTrue(p.stdout.startswith("==== CLOCKPROBE GUEST BEGIN"))
        self.assertEqual((rep["guest"]["label"],
                          rep["guest"]["label_source"]), ("vm-42", "--label"))


class GuestSchema(unittest.TestCase):
    def test_valid_and_every_name_described_with_its_unit(self):
        gs = schema.load_guest_schema()
        schema.check_schema(gs)
        missing, no_unit = [], []
        for path, node in schema.described_paths(gs):
            if "description" not in node:
                missing.append(path)
            types = node.get("type", [])
            types = types if isinstance(types, list) else [types]
            leaf = path.rsplit(".", 1)[-1]
            if any(t in ("integer", "number") for t in types) and \
                    leaf.endswith(("_ns", "_ms", "_us", "_s", "_khz", "_ppm",
                                   "_cycles")) and "x-unit" not in node:
                no_unit.append(path)
        self.assertEqual((missing, no_unit), ([], []))
        # The probe's schema names it.
        ref = schema.load_schema()["$defs"]["guest_report"]["$ref"]
        self.assertEqual(ref, os.path.basename(schema.GUEST_SCHEMA_PATH))

    def test_coverage_names_an_undescribed_name(self):
        rep = {"schema": 1, "guest": {"version": "0.1.0", "made_up": 1},
               "measurements": [{"clocksource": "tsc", "p42": 0}]}
        self.assertEqual(schema.undocumented(rep, schema.load_guest_schema()),
                         ["guest.made_up", "measurements[].p42"])


class GuestFrame(unittest.TestCase):
    """cptools.frame on guest frames: the probe's rules, its own marker."""

    def test_round_trip_and_damage(self):
        rep = {"schema": 1, "guest": {"version": "0.1.0"},
               "measurements": []}
        text = "noise\r\n" + frame.frame_guest_report(rep) + "more\r\n"
        self.assertEqual(frame.extract_guest_report(text), (rep, None))
        self.assertIsNone(frame.extract_report(text)[0])
        bad = text.replace('"0.1.0"', '"0.1.1"')
        self.assertIn("CRC mismatch", frame.extract_guest_report(bad)[1])
        cut = text.split("==== CLOCKPROBE GUEST END")[0]
        self.assertIn("END marker missing", frame.extract_guest_report(cut)[1])
        self.assertIn("no guest report",
                      frame.extract_guest_report("nothing")[1])
        self.assertTrue(frame.is_guest_report(rep))
        self.assertFalse(frame.is_guest_report({"probe": {}, "guest": {},
                                                "measurements": []}))

    def test_load_any_report_file(self):
        d = tempfile.mkdtemp(prefix="cp-guest-frame-")
        try:
            rep = {"schema": 1, "guest": {"version": "0.1.0"},
                   "measurements": []}
            log = os.path.join(d, "g.log")
            with open(log, "w") as f:
                f.write(frame.frame_guest_report(rep))
            js = os.path.join(d, "g.json")
            with open(js, "w") as f:
                json.dump(rep, f)
            self.assertEqual(frame.load_any_report_file(log),
                             (rep, "guest", None))
            self.assertEqual(frame.load_any_report_file(js),
                             (rep, "guest", None))
            probe = os.path.join(REPO, "tests", "fixtures", "reports",
                                 "clean.log")
            r, kind, err = frame.load_any_report_file(probe)
            self.assertEqual((kind, err), ("probe", None))
            self.assertIn("verdict", r)
        finally:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
