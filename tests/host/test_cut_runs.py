"""Issue 41: a serial log holding one whole report and part of a report of
a different run (its JSON cut before the END marker).  extract, compare
and verdict name the cut run -- by its run_id when the cut copy still
shows it, else by where it stops -- while a re-sent copy of the same run,
cut or whole, stays counted once and is not named.
Run: PYTHONPATH=tests/host:scripts python3 -m unittest test_cut_runs
"""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, SCRIPTS, load_script  # noqa: E402
from cptools import extract, frame  # noqa: E402

compare = load_script("compare")
VERDICT = os.path.join(SCRIPTS, "verdict")


def whole_report():
    report, err = frame.load_report_file(os.path.join(FIX, "real_make_run.log"))
    assert report is not None, err
    return report


def other_run(report, run_id="0123456789abcdef0123456789abcdef"):
    other = json.loads(json.dumps(report))
    other["probe"]["run_id"] = run_id
    return other


def cut(framed, keep):
    """A framed copy cut `keep` characters into its JSON line (no END)."""
    head, rest = framed.split("\n", 1)
    return head + "\n" + rest[:keep] + "\n"


class Logs:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="cp-cut-")

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def close(self):
        for n in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, n))
        os.rmdir(self.dir)


class CutRuns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = whole_report()
        cls.rid = cls.report["probe"]["run_id"]
        cls.whole = frame.frame_report(cls.report)
        cls.other = frame.frame_report(other_run(cls.report))
        cls.logs = Logs()
        noise = "BdsDxe: loading Boot0001\r\n\x1b[0m"
        # The other run cut 2000 characters into its JSON: past its run_id.
        cls.cut_after = cls.logs.write("cut-after.log", cls.whole + noise + cut(cls.other, 2000))
        cls.cut_before = cls.logs.write("cut-before.log", cut(cls.other, 2000) + noise + cls.whole)
        # Cut before its run_id is written: named by where it stops.
        cls.cut_early = cls.logs.write("cut-early.log", cls.whole + cut(cls.other, 20))
        # The same run re-sent, the second copy cut: no loss, nothing named.
        cls.resent = cls.logs.write("resent.log", cls.whole + cut(cls.whole, 2000))
        cls.twice = cls.logs.write("twice.log", cls.whole + cls.whole)

    @classmethod
    def tearDownClass(cls):
        cls.logs.close()

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def test_cut_runs_names_the_other_run_only(self):
        raw = self.read(self.cut_after)
        found = frame.cut_runs(raw)
        self.assertEqual([rid for rid, _ in found], ["0123456789abcdef0123456789abcdef"])
        # It stops at the end of the log (trailing newline left out).
        self.assertEqual(found[0][1], len(raw.rstrip()))
        found = frame.cut_runs(self.read(self.cut_before))
        self.assertEqual([rid for rid, _ in found], ["0123456789abcdef0123456789abcdef"])
        # Cut before the run id: the byte where its text stops, the next
        # BEGIN marker's offset.
        raw = self.read(self.cut_early)
        self.assertEqual(frame.cut_runs(raw), [(None, len(raw.rstrip()))])
        self.assertIn("a report cut short at byte %d" % len(raw.rstrip()),
                      frame.cut_text(None, len(raw.rstrip())))
        self.assertEqual(frame.cut_runs(self.read(self.resent)), [])
        self.assertEqual(frame.cut_runs(self.read(self.twice)), [])
        # Only a cut copy: the log's own error says "truncated".
        self.assertEqual(frame.cut_runs(cut(self.other, 2000)), [])
        # The whole report is still the one extracted.
        rep, err = frame.load_report_file(self.cut_before)
        self.assertIsNone(err)
        self.assertEqual(rep["probe"]["run_id"], self.rid)

    def test_extract_warns_on_stderr(self):
        out, err = io.StringIO(), io.StringIO()
        rc = extract.main([self.cut_after], stdout=out, stderr=err)
        self.assertEqual(rc, 0, err.getvalue())
        self.assertEqual(json.loads(out.getvalue())["probe"]["run_id"], self.rid)
        self.assertIn("warning: the report of run 0123456789abcdef0123456789abcdef, cut short at byte",
                      err.getvalue())
        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(extract.main([self.resent], stdout=out, stderr=err), 0)
        self.assertEqual(err.getvalue(), "")

    def test_compare_rejects_the_cut_run_by_name_and_keeps_the_whole(self):
        out, err = io.StringIO(), io.StringIO()
        rc = compare.main([self.cut_after], stdout=out, stderr=err)
        self.assertEqual(rc, 1, err.getvalue())
        self.assertIn("compare: %s (run 0123456789abcdef0123456789abcdef): rejected: the report of run "
                      "0123456789abcdef0123456789abcdef, cut short" % self.cut_after, err.getvalue())
        self.assertIn("0123456789abcdef0123456789abcdef", out.getvalue())   # the rejected section
        out, err = io.StringIO(), io.StringIO()
        rc = compare.main([self.cut_early], stdout=out, stderr=err)
        self.assertEqual(rc, 1)
        self.assertIn("(a report at byte", err.getvalue())
        # A re-sent copy of the same run: counted once, nothing named.
        for path in (self.resent, self.twice):
            out, err = io.StringIO(), io.StringIO()
            self.assertEqual(compare.main([path], stdout=out, stderr=err), 0, err.getvalue())
            self.assertNotIn("cut short", err.getvalue())

    def test_verdict_warns_and_judges_the_whole_run(self):
        p = subprocess.run([sys.executable, VERDICT, self.cut_after, "--json"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("verdict: %s: warning: the report of run 0123456789abcdef0123456789abcdef"
                      % self.cut_after, p.stderr)
        self.assertIn("verdict", json.loads(p.stdout))
        p = subprocess.run([sys.executable, VERDICT, self.resent, "--json"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("cut short", p.stderr)


if __name__ == "__main__":
    unittest.main()
