"""A run or matrix folder loaded as a fleet: verified wins (issue 38,
finding 5).

`clockprobe run` leaves serial.log (the CRC-framed report among the
console's bytes), report.raw.json and report.json (bare copies of the same
JSON) in one folder; a matrix leaves NAME.log beside NAME.json.  Loaded
as a folder, the run must be the framed log's (verified=crc32) and each
bare copy counted once as its duplicate; a bare file of another run is a
run of its own, and stays unverified.  Both loaders are tried: load_runs
(every output) and fleetload.ingest (compare --sqlite on a large fleet).
A second of work: no boot, the folders are made from recorded logs.
"""

import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, load_script  # noqa: E402

from cptools import fleet, frame  # noqa: E402

compare = load_script("compare")


def write_run_folder(folder, log):
    """What `clockprobe run` leaves: the serial log and the report in it,
    as framed (report.raw.json) and indented (report.json)."""
    os.makedirs(folder)
    shutil.copy(log, os.path.join(folder, "serial.log"))
    report, why = frame.load_report_file(log)
    assert report is not None, why
    with open(os.path.join(folder, "report.raw.json"), "w") as f:
        json.dump(report, f, separators=(",", ":"))
    with open(os.path.join(folder, "report.json"), "w") as f:
        json.dump(report, f, indent=2)
    return report


class RunFolder(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cp-runfolder-")
        self.fleet = os.path.join(self.tmp, "fleet")
        self.same = write_run_folder(
            os.path.join(self.fleet, "a"),
            os.path.join(FIX, "real_q35_hpet_off_2026.log"))
        other = write_run_folder(os.path.join(self.fleet, "b"),
                                 os.path.join(FIX, "real_make_run.log"))
        # b's bare report.json is of another run (its own run_id): not a
        # copy of b's log, so it is a run of its own, unverified.
        with open(os.path.join(FIX, "kvm_good.json")) as f:
            self.stranger = json.load(f)
        with open(os.path.join(self.fleet, "b", "report.json"), "w") as f:
            json.dump(self.stranger, f)
        self.ids = {"a": self.same["probe"]["run_id"],
                    "b": other["probe"]["run_id"],
                    "stranger": self.stranger["probe"]["run_id"]}
        self.assertEqual(len(set(self.ids.values())), 3)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_load_runs_keeps_the_framed_log_and_counts_the_copy_once(self):
        warned = []
        runs, rejected, dups = fleet.load_runs([self.fleet],
                                               warn=warned.append)
        self.assertEqual(rejected, [])
        got = {r.run_id: (os.path.relpath(r.path, self.fleet), r.verified)
               for r in runs}
        self.assertEqual(got, {
            self.ids["a"]: ("a/serial.log", "crc32"),
            self.ids["b"]: ("b/serial.log", "crc32"),
            self.ids["stranger"]: ("b/report.json", "unverified")})
        # a's two bare copies and b's report.raw.json: duplicates, named
        self.assertEqual(sorted(os.path.relpath(p, self.fleet)
                                for p, _ in dups),
                         ["a/report.json", "a/report.raw.json",
                          "b/report.raw.json"])
        self.assertTrue(any("a/report.json: same run as" in w and
                            "counted once" in w for w in warned), warned)

    def test_a_damaged_log_leaves_the_bare_copy_standing_unverified(self):
        log = os.path.join(self.fleet, "a", "serial.log")
        with open(log, "rb") as f:
            data = bytearray(f.read())
        at = data.index(b'"probe"')
        data[at + 2] ^= 0x20    # one flipped bit in the JSON: CRC mismatch
        with open(log, "wb") as f:
            f.write(data)
        runs, rejected, _ = fleet.load_runs([self.fleet])
        self.assertEqual([os.path.relpath(p, self.fleet)
                          for p, _ in rejected], ["a/serial.log"])
        a = [r for r in runs if r.run_id == self.ids["a"]]
        self.assertEqual([(os.path.basename(r.path), r.verified) for r in a],
                         [("report.json", "unverified")])

    def test_the_streaming_database_load_agrees(self):
        db = os.path.join(self.tmp, "fleet.db")
        old = compare.STREAM_FROM
        compare.STREAM_FROM = 1     # the path a fleet of 500+ files takes
        err = io.StringIO()
        try:
            rc = compare.main(["--sqlite", db, self.fleet],
                              stdout=io.StringIO(), stderr=err)
        finally:
            compare.STREAM_FROM = old
        self.assertEqual(rc, 0, err.getvalue())
        with sqlite3.connect(db) as c:
            rows = dict((rid, v) for rid, v in c.execute(
                "SELECT run_id, verified FROM runs"))
        self.assertEqual(rows, {self.ids["a"]: "crc32",
                                self.ids["b"]: "crc32",
                                self.ids["stranger"]: "unverified"})


if __name__ == "__main__":
    unittest.main()
