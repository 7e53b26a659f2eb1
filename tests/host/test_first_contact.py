"""Issue 38's first contact with the host tools, re-tried as written:

  3  generic environment names (CPU=, IMAGE=, SMP=, ...) steer nothing,
     CLOCKPROBE_* ones do, and `make run SMP=4` passes --smp; each run in
     a folder of its own with run.record, and a failing run (--machine
     q36) never erases the report an earlier run verified
  4  an unknown --fail-on code or severity, kernel or settings word is
     refused before any boot (exit 2, the word and the nearest valid one)
     by run, matrix, compare, verdict and images
  6  the matrix word (tests/host/test_matrix_merge.py: expected/UNEXPECTED)
  7  progress lines only on a terminal (matrix k/N, watch values)
  8  SIGTERM / SIGHUP end QEMU and exit 143 / 129

The boots are a stand-in PVH ELF printing a fixture report (~0.5 s) and,
for the signals, the probe's own PVH ELF under TCG, killed a few seconds
in.  About 20 s in all.
"""

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS  # noqa: E402

from cptools import frame, progress, runfolder, standin, vocabulary  # noqa: E402

CLOCKPROBE = os.path.join(SCRIPTS, "clockprobe")
JUDGE = os.path.join(REPO, "build", "host", "verdict-judge")
ELF = os.path.join(REPO, "build", "clockprobe.elf")
HAVE_QEMU = bool(shutil.which("qemu-system-x86_64"))
HAVE_BINUTILS = bool(shutil.which("as") and shutil.which("ld"))

# Every generic name the tools used to read, set to something that would
# break a run or change its command line if it were still read.
GENERIC = {
    "ACCEL": "kvm", "BOOT": "uefi", "IMAGE": "ubuntu-22.04", "SMP": "7",
    "MACHINE": "pc", "CPU": "4", "MEM": "1G", "QEMU_EXTRA": "-bogus",
    "TIMEOUT": "1", "RUN_DIR": "/nonexistent/run", "FAIL_ON": "SEVERE",
    "KERNELS": "6.99", "SETTINGS": "wiat=10", "QEMU": "/no/such/qemu",
    "OUT": "/nonexistent/out", "JOBS": "99", "MATRIX_CONF": "/no/such.conf",
    "IMAGE_PVH": "/no/such.elf",
}


def clean_env(**extra):
    """The environment without any CLOCKPROBE_* or generic knob, plus
    `extra`."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("CLOCKPROBE_") and k not in GENERIC}
    env.update(extra)
    return env


def tool(*argv, env=None, timeout=120):
    return subprocess.run([sys.executable, CLOCKPROBE] + list(argv),
                          capture_output=True, text=True, timeout=timeout,
                          env=env or clean_env())


def fixture(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def needs_judge(cls):
    return unittest.skipUnless(os.path.isfile(JUDGE),
                               "needs build/host/verdict-judge (make unit)"
                               )(cls)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cp-first-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)


# ------------------------------------------------------------ finding 3

@needs_judge
@unittest.skipUnless(os.path.isfile(ELF), "needs build/clockprobe.elf")
class EnvironmentNames(Tmp):
    ARGS = ("run", "--dry-run", "--boot", "pvh", "--label", "env-test")

    def dry(self, env):
        p = tool(*self.ARGS, env=env)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        return p.stdout

    def test_generic_names_change_nothing(self):
        base = clean_env(CLOCKPROBE_ACCEL="tcg")
        want = self.dry(base)
        self.assertIn("qemu: ", want)
        self.assertIn("-smp 2 ", want)
        got = self.dry(dict(base, **GENERIC))
        self.assertEqual(got, want)

    def test_prefixed_names_steer(self):
        got = self.dry(clean_env(CLOCKPROBE_ACCEL="tcg", CLOCKPROBE_SMP="3",
                                 CLOCKPROBE_MACHINE="pc",
                                 CLOCKPROBE_SETTINGS="mode=quick"))
        self.assertIn("-machine pc -accel tcg -m 256M -smp 3 ", got)
        self.assertIn("-append 'mode=quick label=env-test'", got)
        # and an option wins over its environment name
        p = tool(*self.ARGS, "--smp", "4",
                 env=clean_env(CLOCKPROBE_ACCEL="tcg", CLOCKPROBE_SMP="3"))
        self.assertIn("-smp 4 ", p.stdout)

    def test_help_names_the_environment(self):
        p = tool("run", "--help", env=clean_env(COLUMNS="200"))
        for name in ("CLOCKPROBE_SMP", "CLOCKPROBE_CPU", "CLOCKPROBE_IMAGE",
                     "CLOCKPROBE_RUN_DIR", "CLOCKPROBE_QEMU"):
            self.assertIn(name, p.stdout)

    def test_matrix_reads_only_prefixed_names(self):
        conf = os.path.join(self.tmp, "one.conf")
        with open(conf, "w") as f:
            f.write("[only-row]\nmachine = pc\nboot = pvh\n")
        p = tool("matrix", "--list", env=clean_env(**GENERIC))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("q35-", p.stdout)          # the default config
        p = tool("matrix", "--list",
                 env=clean_env(CLOCKPROBE_MATRIX_CONF=conf))
        self.assertEqual(p.stdout.split()[0], "only-row")

    def test_makefile_passes_command_line_knobs_only(self):
        def recipe(*argv, env=None):
            p = subprocess.run(["make", "-n", "-s"] + list(argv), cwd=REPO,
                               capture_output=True, text=True,
                               env=env or clean_env(), timeout=120)
            return [ln for ln in p.stdout.splitlines()
                    if "scripts/run" in ln or "scripts/matrix" in ln]
        line = recipe("run", "SMP=4", "CPU=max",
                      "QEMU_EXTRA=-icount shift=0,sleep=off",
                      "SETTINGS=label=it's")[-1]
        self.assertIn("--smp='4'", line)
        self.assertIn("--cpu='max'", line)
        self.assertIn("--extra='-icount shift=0,sleep=off'", line)
        self.assertIn("--settings='label=it'\\''s'", line)
        line = recipe("run", env=clean_env(CPU="4", SMP="7"))[-1]
        self.assertNotIn("--cpu", line)
        self.assertNotIn("--smp", line)
        line = recipe("matrix", "FAIL_ON=critical")[-1]
        self.assertIn("--fail-on='critical'", line)


# ------------------------------------------------------------ finding 3

@needs_judge
@unittest.skipUnless(HAVE_QEMU and HAVE_BINUTILS,
                     "needs qemu-system-x86_64 and binutils")
class RunFolders(Tmp):
    def run_tool(self, *extra):
        return tool("run", "--boot", "pvh", "--image", self.elf, "--accel",
                    "tcg", "--machine", "pc", "--quiet", "--timeout", "60",
                    "--out", self.out, *extra)

    def setUp(self):
        super().setUp()
        self.elf = standin.build_pvh_check_image(
            os.path.join(self.tmp, "standin.elf"),
            frame.frame_report(fixture("tcg_q35.json")))
        self.out = os.path.join(self.tmp, "runs")

    def test_each_run_its_folder_and_a_failed_run_erases_nothing(self):
        p = self.run_tool()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        latest = os.path.join(self.out, "latest")
        self.assertTrue(os.path.islink(latest))
        first = os.path.realpath(latest)
        self.assertRegex(os.path.basename(first), r"^\d{8}-\d{6}Z(-\d+)?$")
        raw = os.path.join(latest, "report.raw.json")
        with open(raw, "rb") as f:
            verified = f.read()
        self.assertGreater(len(verified), 1000)
        rec = read_json((os.path.join(first, runfolder.RECORD)))
        self.assertEqual(rec["exit_status"], 33)
        self.assertTrue(rec["report_verified"])
        self.assertIn("-kernel", rec["qemu"]["argv"])
        self.assertIn(self.elf, rec["qemu"]["command_line"])
        self.assertRegex(rec["qemu"]["version"], r"^\d+\.\d+")
        self.assertTrue(rec["host"]["hostname"])
        self.assertTrue(rec["host"]["kernel"])
        self.assertFalse(os.path.exists(os.path.join(first, "work")))

        # QEMU refuses the machine and exits at once.
        p = self.run_tool("--machine", "q36")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertEqual(os.path.realpath(latest), first)   # not moved
        with open(raw, "rb") as f:
            self.assertEqual(f.read(), verified)            # not touched
        runs = sorted(d for d in os.listdir(self.out) if d != "latest")
        self.assertEqual(len(runs), 2)
        # The other folder, not the later name: the names are UTC seconds,
        # and a host's wall clock may step back between two runs.
        failed = next(os.path.join(self.out, d) for d in runs
                      if os.path.realpath(os.path.join(self.out, d)) != first)
        self.assertFalse(os.path.exists(os.path.join(failed,
                                                     "report.json")))
        rec = read_json((os.path.join(failed, runfolder.RECORD)))
        self.assertFalse(rec["report_verified"])
        self.assertNotIn(rec["exit_status"], (33, None))
        self.assertIn("q36", rec["qemu"]["command_line"])
        self.assertIn("still points at the last verified one", p.stdout)

    def test_matrix_rows_record_what_ran(self):
        conf = os.path.join(self.tmp, "m.conf")
        with open(conf, "w") as f:
            f.write("[good]\nboot = pvh\nmachine = pc\nimage = %s\n"
                    "[bad-machine]\nboot = pvh\nmachine = q36\nimage = %s\n"
                    % (self.elf, self.elf))
        out = os.path.join(self.tmp, "m")
        p = tool("matrix", "--conf", conf, "--jobs", "1", "OUT=" + out)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        good = read_json((os.path.join(out, "good.record")))
        self.assertEqual(good["exit_status"], 33)
        self.assertIn("pc", good["qemu"]["argv"])
        bad = read_json((os.path.join(out, "bad-machine.record")))
        self.assertFalse(bad["report_verified"])
        self.assertIn("q36", bad["qemu"]["argv"])
        # stderr is a pipe here: no progress line
        self.assertNotIn("rows/min", p.stderr)
        self.assertNotIn("1/2 rows", p.stderr + p.stdout)


# ------------------------------------------------------------ finding 4

@needs_judge
class Refusals(Tmp):
    def refused(self, p, *names):
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        for n in names:
            self.assertIn(n, p.stderr)
        self.assertNotIn("Traceback", p.stderr)

    def test_compare_fail_on(self):
        rep = os.path.join(FIX, "kvm_fallback.json")
        p = tool("compare", "--fail-on", "ACPI_PM_FALLBACK", rep)
        self.assertEqual(p.returncode, 3, p.stderr)     # the real code
        self.refused(tool("compare", "--fail-on", "ACPI_PM_FALLBAK", rep),
                     "ACPI_PM_FALLBAK", "did you mean ACPI_PM_FALLBACK?")
        self.refused(tool("compare", "--fail-on", "SEVERE", rep),
                     "SEVERE", "info|warning|critical", "did you mean")
        self.refused(tool("compare", "--fail-on", "severe", rep),
                     "'severe'", "did you mean")
        self.refused(tool("compare", "--kernels", "6.99", rep),
                     "6.99", "did you mean 6.9?")
        self.refused(tool("compare", "--kernels", "6.1,5.99", rep),
                     "5.99")

    @unittest.skipUnless(os.path.isfile(ELF), "needs build/clockprobe.elf")
    def test_run_refuses_before_the_boot(self):
        out = os.path.join(self.tmp, "never")
        base = ("run", "--boot", "pvh", "--accel", "tcg", "--out", out)
        p = tool(*base, "--settings", "wiat=10 mode=fast")
        self.refused(p, "wiat=10", "did you mean wait=10?", "mode=fast",
                     "unknown mode")
        self.assertFalse(os.path.exists(out))            # nothing booted
        self.refused(tool(*base, "--fail-on", "ACPI_PM_FALLBAK"),
                     "ACPI_PM_FALLBACK")
        self.refused(tool(*base, "--kernels", "6.99"), "6.99")
        self.refused(tool(*base, "--kernel", "6.99"), "kernel=6.99",
                     "did you mean kernel=6.9?")
        self.refused(tool(*base, "--settings", "samples=5"),
                     "samples=5", "samples must be 16..1000000")
        self.refused(tool(*base, "--settings", "quik"), "quik",
                     "did you mean quick?")
        self.assertFalse(os.path.exists(out))
        # what the probe takes passes (a dry run: no boot)
        p = tool(*base, "--dry-run", "--settings",
                 "wait=10 mode=quick dump pairing=bsp kernels=6.1,6.12")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_matrix_images_and_verdict(self):
        self.refused(tool("matrix", "--list", "--fail-on", "ACPI_PM_FALLBAK"),
                     "did you mean ACPI_PM_FALLBACK?")
        self.refused(tool("matrix", "--list", "--kernels", "6.99"), "6.99")
        self.refused(tool("images", "--out", self.tmp, "--settings",
                          "wiat=900"), "wiat=900", "did you mean wait=900?")
        self.refused(tool("images", "--out", self.tmp, "--settings",
                          "pairing=bps"), "did you mean pairing=bsp?")
        rep = os.path.join(FIX, "kvm_fallback.json")
        self.refused(tool("verdict", rep, "--kernels", "6.99"), "6.99")
        self.refused(tool("verdict", rep, "--kernel", "6.99"), "6.99")

    def test_the_words_come_from_the_probe(self):
        v = vocabulary.vocabulary()
        self.assertIn("ACPI_PM_FALLBACK", v["warning_codes"])
        from cptools import policy
        # the host's copy of the severities is the probe's list
        self.assertEqual(list(policy.SEVERITIES), v["severities"])
        keys = {k["name"] for k in v["settings"]}
        self.assertTrue({"wait", "mode", "samples", "kernels"} <= keys)


# ------------------------------------------------------------ finding 7

class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


class Progress(unittest.TestCase):
    def test_format(self):
        f = progress.format_progress
        self.assertEqual(f(0, 12, 0.0), "matrix: 0/12 rows")
        self.assertEqual(f(3, 12, 120.0),
                         "matrix: 3/12 rows, 1.5 rows/min, ETA 6m00s")
        self.assertEqual(f(12, 12, 30.0),
                         "matrix: 12/12 rows, 24.0 rows/min, done in 30s")
        self.assertEqual(progress.fmt_duration(3725), "1h02m")

    def test_only_on_a_terminal(self):
        t = [0.0]
        pipe = io.StringIO()
        p = progress.Progress(2, stream=pipe, clock=lambda: t[0])
        t[0] = 10.0
        p.step()
        self.assertEqual(pipe.getvalue(), "")
        tty = FakeTerminal()
        p = progress.Progress(2, stream=tty, clock=lambda: t[0])
        t[0] = 40.0
        p.step()
        self.assertEqual(tty.getvalue(),
                         "matrix: 1/2 rows, 2.0 rows/min, ETA 30s\n")

    def test_watch_values_as_frames_arrive(self):
        with open(os.path.join(REPO, "tests", "fixtures", "watch",
                               "tcg-stop-cont.log"), "rb") as f:
            log = f.read()
        tty = FakeTerminal()
        live = progress.WatchLive(tty)
        # fed in odd-sized pieces, as the serial console arrives
        for i in range(0, len(log), 333):
            live.write(log[i:i + 333])
        lines = tty.getvalue().splitlines()
        n = log.count(b"CLOCKPROBE WATCH END")
        self.assertEqual(len(lines), n)
        self.assertRegex(lines[0], r"^watch seq 1 at [\d.]+ s: tsc vs ")
        self.assertRegex(tty.getvalue(), r"drift [+-]\d+\.\d\d ppm")
        self.assertRegex(tty.getvalue(), r"[+-]\d+\.\d{3} ms")
        # a damaged frame is named, not shown as figures
        tty2 = FakeTerminal()
        live = progress.WatchLive(tty2)
        live.write(log.replace(b'"seq":1,', b'"seq":1 ,', 1))
        self.assertIn("does not verify", tty2.getvalue().splitlines()[0])
        pipe = io.StringIO()
        live = progress.WatchLive(pipe)
        live.write(log)
        self.assertEqual(pipe.getvalue(), "")


# ------------------------------------------------------------ finding 8

def qemu_pids(marker):
    """PIDs whose command line holds `marker` (this test's own path)."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read()
            with open("/proc/%s/stat" % d) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and b"qemu-system" in cmd and state != "Z":
            pids.append(int(d))
    return pids


@needs_judge
@unittest.skipUnless(HAVE_QEMU and os.path.isfile(ELF),
                     "needs qemu-system-x86_64 and build/clockprobe.elf")
class Signals(Tmp):
    def end_with(self, sig, want):
        elf = os.path.join(self.tmp, "probe-%d.elf" % sig)
        shutil.copyfile(ELF, elf)   # a path only this run's QEMU has
        # Should the tool leave its QEMU behind, the test fails, and the
        # QEMU is not left to run out its 600 s wait on a shared host.
        self.addCleanup(lambda: [os.kill(pid, signal.SIGKILL)
                                 for pid in qemu_pids(elf)])
        p = subprocess.Popen(
            [sys.executable, CLOCKPROBE, "run", "--boot", "pvh", "--image",
             elf, "--accel", "tcg", "--quiet", "--timeout", "120", "--out",
             os.path.join(self.tmp, "runs"), "--settings", "wait=600"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=clean_env())
        deadline = time.monotonic() + 60
        while not qemu_pids(elf) and time.monotonic() < deadline \
                and p.poll() is None:
            time.sleep(0.1)
        self.assertTrue(qemu_pids(elf), "QEMU never started")
        time.sleep(0.5)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, want, out + err)
        self.assertEqual(qemu_pids(elf), [], "QEMU left running")
        self.assertIn("ended by " + signal.Signals(sig).name, err)
        runs = [d for d in os.listdir(os.path.join(self.tmp, "runs"))]
        self.assertNotIn("latest", runs)        # nothing verified
        rec = read_json((os.path.join(self.tmp, "runs", runs[0],
                                          runfolder.RECORD)))
        self.assertEqual(rec["status"], "ended by " + signal.Signals(sig).name)

    def test_sigterm(self):
        self.end_with(signal.SIGTERM, 143)

    def test_sighup(self):
        self.end_with(signal.SIGHUP, 129)


if __name__ == "__main__":
    unittest.main()
