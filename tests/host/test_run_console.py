"""Host tests for what `make run` shows and saves: the firmware's escape
sequences are dropped from the echo (also when split across reads), the
report is saved byte for byte as framed next to the indented copy, and the
disk is the first boot device.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import load_script  # noqa: E402
from cptools import qemu, screen  # noqa: E402
from cptools.frame import END_RE, frame_report  # noqa: E402

run = load_script("run")

# How OVMF 2022.11 opens a q35 boot on the serial console (from a recorded
# log): three rounds of clear, home, mode switch, then its first line.
OVMF_PRELUDE = (b"\x1b[2J\x1b[01;01H\x1b[=3h\x1b[2J\x1b[01;01H" * 3
                + b"BdsDxe: loading Boot0001 \"UEFI QEMU HARDDISK\"\r\n")
TEXT = "clockprobe: 12.5 \u00b5s gap\r\n\tcol\r\n".encode("utf-8")


class StripScreenControl(unittest.TestCase):
    def test_ovmf_prelude_leaves_only_its_text(self):
        self.assertEqual(screen.strip_screen_control(OVMF_PRELUDE),
                         b"BdsDxe: loading Boot0001 \"UEFI QEMU HARDDISK\"\r\n")

    def test_other_escapes_dropped_text_kept_byte_for_byte(self):
        data = (b"\x1b[0m\x1b[40m\x1b[37m" + TEXT + b"\x1bc\x1b(B\x1b[?25l"
                + b"\x1b[K" + TEXT + b"\x1b7\x1b8")
        self.assertEqual(screen.strip_screen_control(data), TEXT + TEXT)
        self.assertEqual(screen.strip_screen_control(TEXT), TEXT)

    def test_filter_same_result_at_every_split(self):
        data = OVMF_PRELUDE + TEXT + b"\x1b[01;01H" + TEXT
        want = screen.strip_screen_control(data)
        for cut in range(len(data) + 1):
            out = io.BytesIO()
            f = screen.ScreenControlFilter(out)
            f.write(data[:cut])
            f.write(data[cut:])
            f.close()
            self.assertEqual(out.getvalue(), want, "split at %d" % cut)

    def test_unfinished_escape_at_the_end_lets_its_text_through(self):
        out = io.BytesIO()
        f = screen.ScreenControlFilter(out)
        f.write(TEXT + b"\x1b[01;")
        self.assertEqual(out.getvalue(), TEXT)
        f.close()
        self.assertEqual(out.getvalue(), TEXT + b"[01;")

    def test_long_escape_free_run_is_not_held_back(self):
        out = io.BytesIO()
        f = screen.ScreenControlFilter(out)
        f.write(b"\x1b" + b"x" * 40)  # ESC x is a complete two-byte escape
        self.assertEqual(out.getvalue(), b"x" * 39)
        f.write(b"\x1b[" + b"1" * 40)  # never ends: let through, not kept
        self.assertTrue(out.getvalue().endswith(b"1" * 40))


class SaveReports(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cp-run-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)

    def test_raw_copy_is_the_framed_bytes(self):
        # Spelled so that no re-serialisation gives the same bytes: a
        # trailing zero, a non-ASCII character, a key order json would
        # keep but spacing it would not.
        line = '{"schema":1,"z":1.50,"a":"12 \u00b5s", "n":[1,2]}'
        log = ("\x1b[2J\x1b[01;01Hnoise\r\n"
               + frame_report('{"schema":1,"old":true}')
               + "more noise\r\n" + frame_report(line).replace("\n", "\r\n")
               + "BdsDxe: after\r\n")
        raw_path, pretty_path = run.save_reports(log, self.dir)
        self.assertEqual(os.path.basename(raw_path), "report.raw.json")
        with open(raw_path, "rb") as f:
            raw = f.read()
        self.assertEqual(raw, line.encode("utf-8"))
        end = END_RE.search(log.splitlines()[-2])
        self.assertEqual(len(raw), int(end.group(2)))
        self.assertEqual("%08x" % zlib.crc32(raw), end.group(1))
        with open(pretty_path, encoding="utf-8") as f:
            self.assertEqual(json.load(f), json.loads(line))

    def test_no_verified_report_saves_nothing(self):
        bad = frame_report('{"schema":1}').replace('"schema":1', '"schema":2')
        with self.assertRaisesRegex(ValueError, "CRC mismatch"):
            run.save_reports("noise\n" + bad, self.dir)
        self.assertEqual(os.listdir(self.dir), [])


class DiskFirst(unittest.TestCase):
    def test_disk_first_puts_the_disk_at_bootindex_0(self):
        argv = qemu.qemu_command("/x/clockprobe.img", vars_copy="/x/v.fd",
                                 ovmf_code="/x/c.fd", disk_first=True)
        self.assertIn("ide-hd,drive=probedisk,bootindex=0", argv)
        self.assertIn("file=/x/clockprobe.img,format=raw,if=none,"
                      "id=probedisk,snapshot=on", argv)
        self.assertFalse([a for a in argv if "if=ide" in a])

    def test_run_boots_disk_first_with_two_cpus(self):
        args = run.parse_args([])
        self.assertEqual(args.smp, os.environ.get("SMP") or "2")
        tmp = tempfile.mkdtemp(prefix="cp-run-")
        self.addCleanup(shutil.rmtree, tmp, ignore_errors=True)
        img = os.path.join(tmp, "clockprobe.img")
        open(img, "wb").close()
        calls = []

        def fake_boot(image, **kw):
            calls.append(kw)
            raise KeyboardInterrupt  # stop before anything runs

        saved = run.boot_probe
        run.boot_probe = fake_boot
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                rc = run.main(["--accel", "tcg", "--image", img, "--quiet",
                               "--out", os.path.join(tmp, "out")])
        finally:
            run.boot_probe = saved
        self.assertEqual(rc, 130)
        self.assertTrue(calls[0]["disk_first"])

if __name__ == "__main__":
    unittest.main()
