"""Every host tool validates every input type it reads (issue 41): a
clockprobe-guest report that lies, one hostile value anywhere in a probe
report, ab.json and matrix --merge records.  Each case is a named refusal
or a tolerated result, never a traceback, and the good runs are kept."""
import copy
import io
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, load_script  # noqa: E402

compare = load_script("compare")
GUEST_FIX = os.path.join(REPO, "tests", "fixtures", "guest")
GOOD = os.path.join(FIX, "kvm_good.json")


def good_report():
    with open(GOOD) as f:
        return json.load(f)


class TmpDir(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cp-v41-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def write_json(self, name, obj):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            json.dump(obj, f)
        return p

    def run_compare(self, argv):
        out, err = io.StringIO(), io.StringIO()
        rc = compare.main(argv, out, err)
        return rc, out.getvalue(), err.getvalue()


class OneValueInAProbeReport(TmpDir):
    """One value anywhere: an object where a clocksource name belongs, a
    finite double at the edge of the range where a count belongs."""

    def hostile(self, mutate):
        r = good_report()
        r["probe"]["run_id"] = "hostile-one-value"
        mutate(r)
        return self.write_json("hostile.json", r)

    def test_object_as_clocksource_with_baseline_both_ways(self):
        def m(r):
            r["verdict"]["linux_clocksource"] = {"name": "tsc"}
        bad = self.hostile(m)
        for argv in (["--baseline", GOOD, bad], ["--baseline", bad, GOOD],
                     ["--wide-csv", "--baseline", GOOD, bad]):
            rc, out, _ = self.run_compare(argv)
            self.assertIn(rc, (0, 1), argv)
            self.assertIn("tsc", out)

    def test_step_at_the_edge_of_the_double_range(self):
        # 2 * step * 1e9 / hz overflows to inf: shown, not a traceback.
        def m(r):
            for s in r["sources"]:
                if s.get("status") == "ok" and isinstance(
                        s.get("read_cost"), dict):
                    s["read_cost"]["below_resolution"] = True
                    s["read_cost"]["step_ticks"] = 1.7976931348623157e308
        bad = self.hostile(m)
        for argv in ([GOOD, bad], ["--wide-csv", GOOD, bad],
                     ["--baseline", GOOD, bad], ["--baseline", bad, GOOD]):
            rc, out, _ = self.run_compare(argv)
            self.assertIn(rc, (0, 1), argv)
            self.assertIn("inf", out)

    def test_extreme_counts(self):
        for v in (1.7976931348623157e308, -1.7976931348623157e308,
                  2 ** 63 - 1, -2 ** 63, 5e-324):
            def m(r):
                r["gaps"] = dict(r.get("gaps") or {}, count=v)
                r["verdict"]["predicted_read_ns"] = v
            bad = self.hostile(m)
            for argv in ([GOOD, bad], ["--wide-csv", GOOD, bad],
                         ["--baseline", GOOD, bad],
                         ["--baseline", bad, GOOD]):
                rc, _, _ = self.run_compare(argv)
                self.assertIn(rc, (0, 1), argv)

    def test_integer_past_64_bits_is_a_named_rejection(self):
        def m(r):
            r["gaps"] = dict(r.get("gaps") or {}, count=2 ** 200)
        bad = self.hostile(m)
        rc, out, err = self.run_compare([GOOD, bad])
        self.assertEqual(rc, 1)
        self.assertIn("hostile.json: rejected: integer of 201 bits", err)
        self.assertIn("kvm_good", out)      # the good run is kept


if __name__ == "__main__":
    unittest.main()
