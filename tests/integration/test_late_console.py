"""Issue #12: a console that attaches after the report still gets it.

Booted without the exit device (so no harness is watching and the probe
waits before power-off) and with wait=20, a byte sent on the serial line
after the first report makes the probe send an identical frame (same
bytes, same CRC).  The same boot checks the run's identity: a label from
the command line, and the SMBIOS UUID and serial number QEMU was given.
Direct boot (PVH): the firmware is not what this is about."""
import os
import re
import select
import subprocess
import sys
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools.frame import END_RE, extract_report_meta  # noqa: E402
from cptools.boot import boot_probe  # noqa: E402
from cptools.qemu import DEFAULT_IMAGES, qemu_command  # noqa: E402

UUID = "12345678-9abc-def0-1122-334455667788"
SERIAL = "CP-LATE-0042"
LABEL = 'rack7/"late"\\console'
# Boot under this host's load, then one key and its answer.
DEADLINE_S = 120


def without_exit_device(argv):
    out = []
    skip = False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a == "-device" and i + 1 < len(argv) and argv[i + 1].startswith("isa-debug-exit"):
            skip = True
            continue
        out.append(a)
    return out


class LateConsole(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        image = DEFAULT_IMAGES["pvh"]
        if not os.path.exists(image):
            raise unittest.SkipTest("%s not built" % image)
        argv = qemu_command(image, boot="pvh", serial_path=None, extra=[
            "-append", "wait=20 mode=quick label=%s" % LABEL,
            "-uuid", UUID, "-smbios", "type=1,serial=%s" % SERIAL])
        cls.argv = without_exit_device(argv)
        cls.log, cls.ends, cls.exit = cls._run(cls.argv)

    @staticmethod
    def _run(argv):
        """Reads the serial line until the first END marker, sends a key,
        reads until a second END marker; stops QEMU then."""
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        buf = b""
        key_sent = False
        deadline = time.monotonic() + DEADLINE_S
        try:
            while time.monotonic() < deadline:
                ready, _, _ = select.select([proc.stdout], [], [], 0.5)
                if ready:
                    chunk = os.read(proc.stdout.fileno(), 65536)
                    if not chunk:
                        break
                    buf += chunk
                text = buf.decode("utf-8", "replace")
                ends = END_RE.findall(text)
                if len(ends) >= 1 and not key_sent and "powering off in" in text:
                    proc.stdin.write(b"\r")
                    proc.stdin.flush()
                    key_sent = True
                if len(ends) >= 2 and "copy 2)" in text:
                    break
        finally:
            proc.kill()
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()
        text = buf.decode("utf-8", "replace")
        return text, END_RE.findall(text), proc.returncode

    def test_key_on_the_serial_line_resends_the_identical_frame(self):
        self.assertGreaterEqual(len(self.ends), 2, "one frame only; log tail:\n" + self.log[-3000:])
        self.assertEqual(self.ends[0], self.ends[1])  # same CRC, same length
        frames = re.findall(r"REPORT BEGIN schema=1 ====\r\n(.*?)\r\n==== CLOCKPROBE REPORT END",
                            self.log, re.S)
        self.assertEqual(frames[0], frames[1])
        for said in ("powering off in 20 s; press a key", "report sent again (a key was pressed, copy 2)"):
            self.assertTrue(said in self.log, "%r not said; log tail:\n%s" % (said, self.log[-1500:]))

    def test_identity(self):
        report, error, _ = extract_report_meta(self.log)
        self.assertIsNone(error)
        probe = report["probe"]
        self.assertEqual(probe["label"], LABEL)
        self.assertRegex(probe["run_id"], r"^[0-9a-f]{32}$")
        self.assertIn(probe["run_id_source"], ("rdseed", "rdrand", "tsc+rtc"))
        # The CMOS RTC follows the host's clock: the start time is today.
        self.assertRegex(probe["started_utc"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(probe["started_utc"][:10], time.strftime("%Y-%m-%d", time.gmtime())[:10])
        self.assertIn("CMOS RTC", probe["started_utc_source"])
        smbios = report["platform"]["smbios"]
        self.assertEqual(smbios["uuid"], UUID)
        self.assertEqual(smbios["serial"], SERIAL)


class PeriodicResend(unittest.TestCase):
    """resend=1 within wait=3 under the harness: the frame comes again
    without any key, identical, and the wait still ends by itself (QEMU
    exits through the debug-exit device: status 33)."""

    def test_resend_every_second_until_power_off(self):
        image = DEFAULT_IMAGES["pvh"]
        if not os.path.exists(image):
            self.skipTest("%s not built" % image)
        b = boot_probe(image, boot="pvh", timeout=DEADLINE_S,
                       extra=["-append", "wait=3 resend=1 mode=quick"])
        log = b.result.log_text
        self.assertEqual(b.result.exit_status, 33, log[-2000:])
        ends = END_RE.findall(log)
        # Three seconds of one-second periods after the first copy; a
        # loaded host may fit one fewer.
        self.assertGreaterEqual(len(ends), 3, log[-2000:])
        self.assertEqual(len(set(ends)), 1)
        self.assertIn("re-sent every 1 s", log)
        self.assertIn("report sent again (resend interval, copy 2)", log)
        self.assertIsNone(b.error)


if __name__ == "__main__":
    unittest.main()
