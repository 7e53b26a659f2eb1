"""Host tests for the one command, scripts/clockprobe (cptools/cli.py):
every subcommand answers --help with its options' defaults and its exit
statuses, --version is include/probe.h's PROBE_VERSION, unknown commands
are usage errors, and the user-facing subcommands that are new here --
extract, guest, images -- do what they say on real fixtures.

Nothing here boots QEMU; images builds two small formats (about 2 s).
"""

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS  # noqa: E402

from cptools import cli, extract, frame, guest, images, paths, qemu  # noqa: E402

CLOCKPROBE = os.path.join(SCRIPTS, "clockprobe")
EFI = os.path.join(REPO, "build", "clockprobe.efi")


def probe_version():
    with open(os.path.join(REPO, "include", "probe.h")) as f:
        return re.search(r'#define PROBE_VERSION "([^"]+)"', f.read()).group(1)


def clockprobe(*args, **kw):
    return subprocess.run([sys.executable, CLOCKPROBE] + list(args),
                          capture_output=True, text=True, timeout=60, **kw)


def in_process(*argv):
    """cli.main(argv) here -> (status, stdout, stderr): a tenth of a second
    where a new interpreter costs a second on a busy machine."""
    out, err = io.StringIO(), io.StringIO()
    argv0 = sys.argv[0]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(list(argv))
            except SystemExit as e:
                rc = e.code
    finally:
        sys.argv[0] = argv0
    return rc, out.getvalue(), err.getvalue()


class Dispatch(unittest.TestCase):
    def test_version_is_probe_h(self):
        p = clockprobe("--version")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), "clockprobe " + probe_version())
        self.assertEqual(paths.version(), probe_version())

    def test_help_lists_every_command_and_the_exit_statuses(self):
        p = clockprobe("--help")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Usage: clockprobe", p.stdout)
        for name in ("run", "matrix", "compare", "verdict", "watch",
                     "extract", "images", "guest"):
            self.assertRegex(p.stdout, r"\n  %s +\S" % name)
        self.assertIn("Exit status:", p.stdout)

    def test_each_command_help_names_its_prog_defaults_and_exit_statuses(self):
        for name in cli.COMMANDS:
            with self.subTest(command=name):
                rc, out, err = in_process(name, "--help")
                self.assertEqual(rc, 0, err)
                self.assertIn("Usage: clockprobe %s" % name, out)
                self.assertRegex(out, r"Exit status:\n(  \S+  +\S.*\n)+")
                # `help NAME` is the same text
                self.assertEqual(in_process("help", name)[1], out)

    def test_every_option_has_a_text_and_a_real_default_is_shown(self):
        for name in cli.COMMANDS:
            parser = cli.parser_of(name)
            fmt = parser._get_formatter()
            for a in parser._actions:
                if not a.option_strings or isinstance(a, argparse._HelpAction):
                    continue
                with self.subTest(command=name, option=a.option_strings[0]):
                    self.assertTrue(a.help, "no help text")
                    text = fmt._expand_help(a)
                    if a.default not in (None, False, "", []):
                        self.assertIn("default", text)

    def test_no_command_and_unknown_commands_are_usage_errors(self):
        p = clockprobe()
        self.assertEqual(p.returncode, 2)
        self.assertIn("no command given", p.stderr)
        p = clockprobe("comapre")
        self.assertEqual(p.returncode, 2)
        self.assertIn("did you mean 'compare'", p.stderr)
        p = clockprobe("--frobnicate")
        self.assertEqual(p.returncode, 2)

    def test_a_command_keeps_its_own_exit_status(self):
        # verdict on a report that cannot be read: the tool's own 2;
        # compare with one rejected input among good ones: its own 1.
        p = clockprobe("verdict", os.path.join(FIX, "no_such.json"))
        self.assertEqual(p.returncode, 2)
        p = clockprobe("compare", os.path.join(FIX, "kvm_good.json"),
                       os.path.join(FIX, "bad_crc.log"))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("bad_crc.log", p.stderr)

    def test_in_tree_defaults_stay_under_build(self):
        self.assertTrue(paths.IN_TREE)
        self.assertEqual(qemu.DEFAULT_IMAGES["pvh"],
                         os.path.join(REPO, "build", "clockprobe.elf"))
        self.assertEqual(paths.output_dir("run"),
                         os.path.join(REPO, "build", "run"))


class Extract(unittest.TestCase):
    def run_extract(self, *argv, stdin=None):
        return clockprobe("extract", *argv, input=stdin)

    def test_indented_report_equals_the_frame_reader(self):
        log = os.path.join(FIX, "crlf.log")
        p = self.run_extract(log)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), frame.load_report_file(log)[0])

    def test_raw_is_the_framed_bytes(self):
        log = os.path.join(FIX, "clean.log")
        out = subprocess.run([sys.executable, CLOCKPROBE, "extract", "--raw",
                              log], capture_output=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(log, "rb") as f:
            m = re.search(rb"END crc32=([0-9a-f]{8}) bytes=(\d+)", f.read())
        body = out.stdout.rstrip(b"\n")
        self.assertEqual(len(body), int(m.group(2)))
        self.assertEqual("%08x" % (zlib.crc32(body) & 0xFFFFFFFF),
                         m.group(1).decode())

    def test_stdin_and_output_file(self):
        with open(os.path.join(FIX, "ansi.log")) as f:
            text = f.read()
        tmp = tempfile.mkdtemp(prefix="cp-extract-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        out = os.path.join(tmp, "r.json")
        p = self.run_extract("-", "-o", out, stdin=text)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            self.assertEqual(json.load(f), frame.extract_report(text)[0])

    def test_a_damaged_log_is_refused_with_its_reason(self):
        for name, reason in (("bad_crc.log", "CRC mismatch"),
                             ("truncated.log", "END marker missing"),
                             ("no_report.log", "BEGIN marker not found")):
            with self.subTest(log=name):
                p = self.run_extract(os.path.join(FIX, name))
                self.assertEqual(p.returncode, 1)
                self.assertEqual(p.stdout, "")
                self.assertIn(reason, p.stderr)
                self.assertIn(name, p.stderr)

    def test_a_guest_log_gives_the_guest_report(self):
        log = os.path.join(REPO, "tests", "fixtures", "guest",
                           "guest-q35-qemu64-smp2-6.1.log")
        p = self.run_extract(log)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), frame.load_any_report_file(log)[0])
        self.assertIn("guest", json.loads(p.stdout))
        raw = subprocess.run([sys.executable, CLOCKPROBE, "extract", "--raw", log],
                             capture_output=True, timeout=60).stdout.rstrip(b"\n")
        with open(log, "rb") as f:
            m = re.search(rb"GUEST END crc32=([0-9a-f]{8}) bytes=(\d+)", f.read())
        self.assertEqual((len(raw), "%08x" % (zlib.crc32(raw) & 0xFFFFFFFF)),
                         (int(m.group(2)), m.group(1).decode()))

    def test_unreadable_file_is_a_usage_error(self):
        p = self.run_extract(os.path.join(FIX, "no_such.log"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("cannot read", p.stderr)

    def test_cpqemu_extract_is_the_same_command(self):
        cp = os.path.join(SCRIPTS, "cpqemu.py")
        p = subprocess.run([sys.executable, cp, "extract", "--help"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Exit status:", p.stdout)
        log = os.path.join(FIX, "clean.log")
        a = subprocess.run([sys.executable, cp, "extract", log],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(a.stdout, self.run_extract(log).stdout)


class Guest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cp-guest-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.old = paths.GUEST
        self.addCleanup(setattr, paths, "GUEST", self.old)

    def test_not_built_is_a_clear_error(self):
        paths.GUEST = os.path.join(self.tmp, "clockprobe-guest")
        err = io.StringIO()
        self.assertEqual(guest.main(["--switch"], stderr=err),
                         guest.EXIT_NOT_BUILT)
        self.assertIn("not built", err.getvalue())
        self.assertIn(paths.GUEST, err.getvalue())

    def test_arguments_and_exit_status_pass_through(self):
        # A stand-in program: writes its arguments down, exits 7.
        paths.GUEST = os.path.join(self.tmp, "clockprobe-guest")
        seen = os.path.join(self.tmp, "argv")
        with open(paths.GUEST, "w") as f:
            f.write('#!/bin/sh\nprintf "%%s\\n" "$@" > %s\nexit 7\n' % seen)
        os.chmod(paths.GUEST, 0o755)
        self.assertEqual(guest.main(["--", "--help", "x y"]), 7)
        with open(seen) as f:
            self.assertEqual(f.read().splitlines(), ["--help", "x y"])


@unittest.skipUnless(os.path.exists(EFI) and shutil.which("qemu-img")
                     and shutil.which("mtype")
                     and images._tool("sfdisk"),
                     "needs build/clockprobe.efi (make all), qemu-img, "
                     "mtools and sfdisk")
class Images(unittest.TestCase):
    def test_formats_are_written_listed_and_carry_the_settings(self):
        tmp = tempfile.mkdtemp(prefix="cp-images-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        p = clockprobe("images", "--efi", EFI, "--out", tmp,
                       "--formats", "vmdk,img", "--settings", "wait=7 resend=3")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(os.listdir(tmp)),
                         ["clockprobe.img", "clockprobe.vmdk"])  # no leftovers
        listed = {}
        for line in p.stdout.splitlines():
            m = re.fullmatch(r"\s*(\d+)  ([0-9a-f]{64})  (.+)", line)
            if m:
                listed[m.group(3)] = (int(m.group(1)), m.group(2))
        for name in ("clockprobe.img", "clockprobe.vmdk"):
            path = os.path.join(tmp, name)
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            self.assertEqual(listed[path], (os.path.getsize(path), digest))
        cfg = subprocess.run(["mtype", "-i", os.path.join(tmp, "clockprobe.img")
                              + "@@1M", "::/clockprobe.cfg"],
                             capture_output=True, text=True,
                             env=dict(os.environ, MTOOLS_SKIP_CHECK="1"))
        self.assertEqual(cfg.stdout.strip(), "wait=7 resend=3")
        same = subprocess.run(["qemu-img", "compare", "-f", "raw", "-F", "vmdk",
                               os.path.join(tmp, "clockprobe.img"),
                               os.path.join(tmp, "clockprobe.vmdk")],
                              capture_output=True, text=True)
        self.assertEqual(same.returncode, 0, same.stdout + same.stderr)

    def test_unknown_format_and_missing_efi_are_usage_errors(self):
        p = clockprobe("images", "--formats", "vmdk,floppy")
        self.assertEqual(p.returncode, 2)
        self.assertIn("floppy", p.stderr)
        p = clockprobe("images", "--efi", os.path.join(REPO, "no.efi"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("no.efi", p.stderr)

    def test_a_missing_tool_is_named_with_its_package(self):
        # A PATH without qemu-img and mtools: refused before anything is
        # written, naming the Debian packages.
        tmp = tempfile.mkdtemp(prefix="cp-images-path-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        bare = os.path.join(tmp, "bin")
        os.mkdir(bare)
        out = os.path.join(tmp, "out")
        p = clockprobe("images", "--efi", EFI, "--out", out, "--formats",
                       "qcow2", env=dict(os.environ, PATH=bare))
        self.assertEqual(p.returncode, 2)
        for word in ("qemu-img", "qemu-utils", "mformat", "mtools"):
            self.assertIn(word, p.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
