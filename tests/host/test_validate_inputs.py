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
from cptools import frame, shapecheck  # noqa: E402

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


GUEST = os.path.join(GUEST_FIX, "guest-q35-qemu64-smp2-6.12.log")
GUEST_FORCED = os.path.join(GUEST_FIX,
                            "guest-q35-qemu64-smp2-6.12-forced-acpi_pm.log")
PROBE = os.path.join(GUEST_FIX, "probe-q35-qemu64-smp2.log")


def guest_report(path=GUEST):
    with open(path, encoding="utf-8", errors="replace") as f:
        rep, err = frame.extract_guest_report(f.read())
    assert rep is not None, err
    return rep


def set_path(obj, path, value):
    """obj with path ("a.b[2].c", or "-a.b" to delete) set to value."""
    delete = path.startswith("-")
    keys = []
    for part in path.lstrip("-").split("."):
        name, _, rest = part.partition("[")
        keys.append(name)
        if rest:
            keys.append(int(rest[:-1]))
    node = obj
    for k in keys[:-1]:
        node = node[k]
    if delete:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return obj


class GuestReports(TmpDir):
    """A clockprobe-guest report that lies: a named rejection of that
    input (file and field), every other run kept, the database too."""

    def guest_log(self, mutate, name="liar.log", base=GUEST):
        rep = guest_report(base)
        rep["guest"]["run_id"] = "liar"
        mutate(rep)
        p = os.path.join(self.tmp, name)
        with open(p, "w", encoding="utf-8") as f:
            f.write(frame.frame_guest_report(rep))
        return p

    CASES = [
        ("-kernel", None, "kernel: missing"),
        ("-history.events", None, "history.events: missing"),
        ("clocksource.available", "tsc hpet",
         "clocksource.available: string, not array"),
        ("clocksource.available[0]", {"x": 1},
         "clocksource.available[0]: object, not string"),
        ("history.lines", [1, 2], "history.lines[0]: integer, not string"),
        ("history.events[0]", "x", "history.events[0]: string, not object"),
        ("kernel.cmdline", ["a"], "kernel.cmdline: array, not string"),
        ("measurements", {"tsc": 1}, "measurements: object, not array"),
        ("measurements[0].vdso", 1e308,
         "measurements[0].vdso: number, not object"),
        ("clocksource.current", 7, "clocksource.current: integer, not "
         "string or null"),
    ]

    def test_each_lie_is_named_and_the_others_kept(self):
        for path, value, why in self.CASES:
            with self.subTest(path=path):
                bad = self.guest_log(lambda r: set_path(r, path, value))
                for fmt in ([], ["--csv"], ["--wide-csv"], ["--jsonl"]):
                    rc, out, err = self.run_compare(fmt + [PROBE, bad,
                                                           GUEST])
                    self.assertEqual(rc, 1, (fmt, err))
                    self.assertIn("liar.log: rejected: a clockprobe-guest "
                                  "report that does not match", err)
                    self.assertIn(why, err)
                    self.assertIn("probe-q35-qemu64-smp2", out)
                    self.assertNotIn("Traceback", err)

    def test_sqlite_keeps_every_other_run(self):
        bad = self.guest_log(lambda r: set_path(r, "-history.events", None))
        db = os.path.join(self.tmp, "fleet.db")
        rc, _, err = self.run_compare(["--sqlite", db, GOOD, PROBE, bad,
                                       GUEST])
        self.assertEqual(rc, 1, err)
        con = sqlite3.connect(db)
        try:
            runs = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            pairs = con.execute("SELECT count(*) FROM predicted_vs_actual"
                                ).fetchone()[0]
        finally:
            con.close()
        self.assertEqual(runs, 2)       # both probe runs
        self.assertGreater(pairs, 0)    # the good guest, paired

    def test_an_escape_in_a_kernel_log_line_is_shown_not_sent(self):
        def m(r):
            for e in r["history"]["events"]:
                e["line"] = "\x1b[2J\x1b]0;owned\x07" + e["line"]
            r["history"]["lines"] = ["\x1b[2J" + ln
                                     for ln in r["history"]["lines"]]
            r["guest"]["label"] = "lab\x1b[31m"
            r["kernel"]["cmdline"] = "quiet"    # the switch line is quoted
        bad = self.guest_log(m, base=GUEST_FORCED)
        for fmt in ([], ["--wide-csv"]):
            rc, out, err = self.run_compare(fmt + [PROBE, bad])
            self.assertEqual(rc, 0, err)
            self.assertIn("finding:", err)
            self.assertNotIn("\x1b", err)
            self.assertIn("\\x1b[2J", err)
            if not fmt:
                self.assertNotIn("\x1b", out)

    def test_an_event_without_its_line_is_tolerated(self):
        # The schema does not require events[].line: the join reads it
        # with a default instead of a KeyError.
        def m(r):
            for e in r["history"]["events"]:
                e.pop("line", None)
            r["kernel"]["cmdline"] = "quiet"
        bad = self.guest_log(m, base=GUEST_FORCED)
        rc, out, err = self.run_compare([PROBE, bad])
        self.assertEqual(rc, 0, err)
        self.assertIn("(no line)", out)

    def test_a_probe_report_that_lies_to_the_join(self):
        with open(PROBE, encoding="utf-8", errors="replace") as f:
            probe = frame.extract_report(f.read())[0]
        for mutate in (
                lambda v: v.update(by_kernel=5),
                lambda v: v.update(available_clocksource=["tsc"]),
                lambda v: [e.update(risk={"available_clocksource": 3,
                                          "reason": "tsc_calibration",
                                          "linux_clocksource": "tsc"})
                           for e in v["by_kernel"]],
                lambda v: v.update(inputs=[1]),
                lambda v: [e.update(available_clocksource={"a": 1})
                           for e in v["by_kernel"]]):
            r = copy.deepcopy(probe)
            mutate(r["verdict"])
            p = self.write_json("probe.json", r)
            rc, out, err = self.run_compare([p, GUEST, GUEST_FORCED])
            self.assertIn(rc, (0, 1), err)
            self.assertIn("Predicted vs actual", out)

    def test_the_fixtures_pass_the_shape_check(self):
        for name in sorted(os.listdir(GUEST_FIX)):
            if name.startswith("guest-") and name.endswith(".log"):
                self.assertEqual(shapecheck.guest_problems(
                    guest_report(os.path.join(GUEST_FIX, name))), [], name)


matrix = load_script("matrix")


def merge_record(order, name, **over):
    rec = {"order": order, "name": name, "describe": "q35", "classname":
           "matrix.q35", "status": "passed", "details": [], "seconds": 1.5,
           "exit_desc": "ok", "checks": 3, "log": None,
           "verdict": {"linux_clocksource": "tsc", "vdso": True,
                       "predicted_read_ns": 20.5, "confidence": "high",
                       "warnings": [{"code": "LARGE_GAPS",
                                     "severity": "info"}]},
           "costs": {"tsc": 20.5}, "by_kernel": None, "headline": "tsc"}
    rec.update(over)
    return rec


class MatrixMergeRecords(TmpDir):
    """matrix --merge: nested members of a shard's record are checked
    before anything is written; the refusal names the file, the row and
    the member; OUT is never left half-written."""

    def shard(self, name, records, total=2):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)
        with open(os.path.join(d, "results.json"), "w") as f:
            json.dump({"schema": 1, "rows_total": total, "shard": None,
                       "rows": records}, f)
        return d

    def merge(self, *dirs):
        out = os.path.join(self.tmp, "OUT")
        err = io.StringIO()
        old = sys.stderr, sys.stdout
        sys.stderr, sys.stdout = err, io.StringIO()
        try:
            rc = matrix.main(["--merge"] + list(dirs) + ["OUT=" + out])
        finally:
            sys.stderr, sys.stdout = old
        return rc, err.getvalue(), out

    def test_good_shards_merge(self):
        a = self.shard("a", [merge_record(0, "r0")])
        b = self.shard("b", [merge_record(1, "r1")])
        rc, err, out = self.merge(a, b)
        self.assertEqual(rc, 0, err)
        self.assertEqual(sorted(os.listdir(out)),
                         ["junit.xml", "results.json", "summary.md"])

    def test_nested_lies_are_named_and_nothing_written(self):
        cases = [
            ({"verdict": {"vdso": {"x": 1}, "warnings": []}},
             "verdict.vdso: object, not boolean or null"),
            ({"verdict": {"linux_clocksource": "tsc"}},
             "verdict.warnings: missing"),
            ({"verdict": {"warnings": [{"code": "X"}]}},
             "verdict.warnings[0].severity: missing"),
            ({"verdict": {"warnings": ["X"]}},
             "verdict.warnings[0]: string, not object"),
            ({"costs": {"tsc": "fast"}}, "costs.tsc: string, not number"),
            ({"by_kernel": [1]}, "by_kernel[0]: integer, not object"),
        ]
        for over, why in cases:
            with self.subTest(why=why):
                shutil.rmtree(self.tmp)
                os.makedirs(self.tmp)
                a = self.shard("a", [merge_record(0, "r0")])
                b = self.shard("b", [merge_record(1, "r1", **over)])
                rc, err, out = self.merge(a, b)
                self.assertEqual(rc, 2, err)
                self.assertIn(os.path.join(b, "results.json"), err)
                self.assertIn("row r1: " + why, err)
                self.assertFalse(os.path.exists(out))

    def test_atomic_write_leaves_no_temporary(self):
        from cptools import paths
        p = os.path.join(self.tmp, "x.md")
        paths.write_atomic(p, "one")
        paths.write_atomic(p, "two")
        with open(p) as f:
            self.assertEqual(f.read(), "two")
        self.assertEqual(os.listdir(self.tmp), ["x.md"])


if __name__ == "__main__":
    unittest.main()
