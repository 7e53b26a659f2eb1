"""Issue 14: watch mode.  A direct-boot run with watch=8 interval=2 is
stopped for 3 s through QMP (stop, then cont): the records must all verify,
run contiguously from seq 1 under one run_id, and report a pause of
3 s +/- 1 s; the final report carries the same events in its watch section.

Its own QEMU (the QMP socket and the timed stop are this test's), started
alongside nothing else; ~12 s under TCG.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import qmp, schema, watchlog  # noqa: E402
from cptools.frame import extract_report  # noqa: E402
from cptools.qemu import DEFAULT_IMAGES, qemu_command  # noqa: E402

STOP_SECONDS = 3.0


def wait_for(path, needle, proc, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        try:
            with open(path, "rb") as f:
                if needle in f.read():
                    return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


class WatchThroughStopCont(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        image = DEFAULT_IMAGES["pvh"]
        if not os.path.exists(image):
            raise unittest.SkipTest("no %s (run make first)" % image)
        cls.tmp = tempfile.mkdtemp(prefix="cp-watch-")
        sock = os.path.join(cls.tmp, "qmp.sock")
        cls.log = os.path.join(cls.tmp, "serial.log")
        argv = qemu_command(image, boot="pvh", serial_path=cls.log,
                            extra=["-append", "watch=8 interval=2"] + qmp.qmp_argv(sock))
        cls.stderr = open(os.path.join(cls.tmp, "qemu.stderr"), "wb")
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=cls.stderr)
        cls.stopped_for = None
        try:
            q = qmp.connect(sock)
            try:
                # Stop inside the watch: after its first record.
                if not wait_for(cls.log, b"CLOCKPROBE WATCH END", proc, 90):
                    raise AssertionError("no first watch record")
                q.command("stop")
                t0 = time.monotonic()
                time.sleep(STOP_SECONDS)
                q.command("cont")
                cls.stopped_for = time.monotonic() - t0
            finally:
                q.close()
            cls.status = proc.wait(timeout=120)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            cls.stderr.close()
        with open(cls.log, "rb") as f:
            cls.text = f.read().decode("utf-8", "replace")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_records_contiguous_and_valid(self):
        self.assertEqual(self.status, 33, self.text[-2000:])
        c = watchlog.check(watchlog.scan(self.text))
        self.assertTrue(c["ok"], c)
        self.assertGreaterEqual(len(c["records"]), 3)
        self.assertEqual(len(c["run_ids"]), 1)
        self.assertEqual([r["seq"] for r in c["records"]], list(range(1, len(c["records"]) + 1)))

    def test_pause_of_three_seconds(self):
        c = watchlog.check(watchlog.scan(self.text))
        last = c["records"][-1]
        pauses = [e for e in last["events"] if e["type"] == "pause"]
        self.assertEqual(len(pauses), 1, last["events"])
        self.assertAlmostEqual(pauses[0]["duration_s"], self.stopped_for, delta=1.0)
        self.assertAlmostEqual(pauses[0]["duration_s"], STOP_SECONDS, delta=1.0)
        # Under TCG the TSC stands still with the other counters: wall time
        # (the CMOS RTC) is what saw the pause.
        self.assertIn("wall time", pauses[0]["evidence"])

    def test_final_report_has_the_watch_section(self):
        report, err = extract_report(self.text)
        self.assertIsNone(err)
        w = report["watch"]
        c = watchlog.check(watchlog.scan(self.text))
        self.assertEqual(w["status"], "ok")
        self.assertEqual(w["run_id"], c["run_ids"][0])
        self.assertEqual(w["records"], len(c["records"]))
        self.assertEqual(w["events"], c["records"][-1]["events"])
        self.assertEqual(w["event_counts"]["pause"], 1)
        wd = w["watchdog_replay"]
        self.assertTrue(wd["summary"].startswith("Linux %s would have " % wd["main_kernel"]), wd)
        # One run per era of the verdict's rules, oldest to newest, each
        # naming the releases it stands for; a TCG pause stops the TSC and
        # the watchdog clock alike, so no era loses the TSC.
        kernels = [r["kernels"] for r in wd["runs"]]
        self.assertEqual(kernels[0].split("-")[0], "4.19", kernels)
        self.assertTrue(kernels[-1].endswith("+"), kernels)
        self.assertEqual({r["state"] for r in wd["runs"]}, {"watching"}, wd["runs"])
        self.assertEqual(wd["runs"][-1]["check"], "freq")

    def test_pause_judged_for_7_2(self):
        # Issue 39: the 7.1+ watchdog compares a round that spans a pause
        # unless it outlasts max_idle_ns.  Under TCG the TSC sits the pause
        # out with every counter (only the RTC saw it), so Linux's watchdog
        # would see no jump: the final report's verdict, judged for 7.2,
        # says why no pause risk follows (or names it, were the TSC to run
        # on, as under KVM).
        report, err = extract_report(self.text)
        self.assertIsNone(err)
        pause = [e for e in report["watch"]["events"] if e["type"] == "pause"][0]
        self.assertFalse(pause["tsc_ran_on"], pause)
        inputs = report["verdict"]["inputs"]
        self.assertEqual((inputs["pauses_tsc_stood"], inputs["pause_count"]), (1, 0), inputs)
        proc = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "verdict"), "--kernel", "7.2",
                               "--json", self.log], capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        v = __import__("json").loads(proc.stdout)["verdict"]
        self.assertEqual(v["linux_kernel"], "7.2")
        said = any("the 7.1+ pause risk does not apply" in x for x in v["reasoning"])
        risk = (v.get("risk") or {}).get("reason") == "watchdog_pause"
        if v["linux_clocksource"] == "tsc":
            self.assertTrue(said or risk, v["reasoning"])
        else:   # no TSC to lose to a pause: neither the risk nor the rule
            self.assertFalse(said or risk, v["reasoning"])

    def test_each_interval_rechecks(self):
        # One vCPU here: the warp re-check has nothing to compare and says
        # so; the gap scan runs every interval.
        c = watchlog.check(watchlog.scan(self.text))
        for rec in c["records"]:
            self.assertEqual(rec["recheck"]["cross_cpu"]["status"], "absent")
            self.assertEqual(rec["recheck"]["cross_cpu"]["reason"], "only one CPU: nothing to compare")
            self.assertTrue(rec["recheck"]["gaps"]["measured"])
            self.assertEqual(rec["recheck"]["gaps"]["scans"], rec["seq"])

    def test_report_and_records_match_the_schema(self):
        report, err = extract_report(self.text)
        self.assertIsNone(err)
        self.assertEqual([p for p in schema.check_report(report) if "watch" in p], [])
        for rec in watchlog.check(watchlog.scan(self.text))["records"]:
            self.assertEqual(schema.check_watch_record(rec), [], rec["seq"])


if __name__ == "__main__":
    unittest.main()
