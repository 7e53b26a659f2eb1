"""Issue 41: one escaping path (cptools/untrusted.py) for every text that
reaches a terminal, a CSV cell or a file-name echo.

Every path is fed report strings and file names holding an erase-screen
escape (ESC [2J), the one-byte CSI (0x9b), a right-to-left override
(U+202E) and a newline; none may reach stdout or stderr raw: each is
shown as \\xNN / \\uNNNN (or, inside JSON, as the \\uNNNN escape that
means the same string)."""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, REPO, SCRIPTS, load_script  # noqa: E402
from cptools import extract, untrusted  # noqa: E402

compare = load_script("compare")

# The hostile text; "K\nL" is how a raw newline in it would show.
EVIL = "H\x1b[2JI\x9bJ\u202eK\nL"
RAW = ("\x1b", "\x9b", "\u202e", "K\nL")


def framed(report):
    data = json.dumps(report).encode("utf-8")
    return ("noise\n==== CLOCKPROBE REPORT BEGIN schema=1 ====\n%s\n"
            "==== CLOCKPROBE REPORT END crc32=%08x bytes=%d ====\n"
            % (data.decode("utf-8"), zlib.crc32(data) & 0xFFFFFFFF,
               len(data)))


def evil_report():
    with open(os.path.join(FIX, "kvm_good.json")) as f:
        r = json.load(f)
    r["probe"]["label"] = "label" + EVIL
    r["platform"]["cpu"]["brand"] = "=brand" + EVIL
    r["sources"][0]["name"] = "src" + EVIL
    r["errors"] = ["err" + EVIL]
    return r


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cp-textout-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return p

    def assertClean(self, text, what):
        for bad in RAW:
            self.assertNotIn(bad, text, "%r raw in %s" % (bad, what))


class HelperTest(unittest.TestCase):
    def test_term_text_shows_every_control_and_override(self):
        t = untrusted.term_text(EVIL + "\r\t\x07\x7f\u2066\u2028")
        for bad in RAW + ("\r", "\t", "\x07", "\x7f", "\u2066", "\u2028"):
            self.assertNotIn(bad, t)
        for shown in ("\\x1b[2J", "\\x9b", "\\u202e", "\\x0a", "\\x0d",
                      "\\u2066"):
            self.assertIn(shown, t)

    def test_term_lines_keeps_only_the_line_breaks(self):
        t = untrusted.term_lines("a\x1b]0;x\x07\nb\r\u202ec")
        self.assertEqual(t.split("\n"), ["a\\x1b]0;x\\x07", "b\\x0d\\u202ec"])

    def test_csv_cell_formula_and_controls(self):
        self.assertEqual(untrusted.csv_cell("=1+1\x1b"), "'=1+1\\x1b")
        self.assertEqual(untrusted.csv_cell("-3"), "-3")
        self.assertEqual(untrusted.csv_cell("@x\u202e"), "'@x\\u202e")
        self.assertEqual(untrusted.csv_cell("\t=x"), "\\x09=x")
        self.assertEqual(untrusted.csv_cell(EVIL),
                         "H\\x1b[2JI\\x9bJ\\u202eK\\x0aL")

    def test_term_json_is_the_same_json(self):
        doc = {"a": EVIL + "\x7f\x85", "b": ["\u2069"]}
        t = untrusted.term_json(json.dumps(doc, ensure_ascii=False))
        self.assertEqual(json.loads(t), doc)
        for bad in RAW + ("\x7f", "\x85", "\u2069"):
            self.assertNotIn(bad, t)

    def test_html_and_markdown_show_overrides_too(self):
        self.assertNotIn("\u202e", untrusted.html_text("a\u202eb"))
        self.assertNotIn("\u202e", untrusted.md_text("a\u202eb"))


class CompareTest(Tmp):
    def run_compare(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        rc = compare.main(list(argv), stdout=out, stderr=err)
        return rc, out.getvalue(), err.getvalue()

    def inputs(self):
        good = self.write("good" + EVIL + ".log", framed(evil_report()))
        bad = self.write("bad" + EVIL + ".json", "{not json")
        return good, bad

    def test_every_output_format_and_the_name_echo(self):
        good, bad = self.inputs()
        for fmt in ("--csv", "--wide-csv", "--jsonl", None):
            argv = ([fmt] if fmt else []) + [good, bad]
            rc, out, err = self.run_compare(*argv)
            self.assertEqual(rc, 1, err)    # the bad input is rejected
            self.assertClean(out, "stdout of %s" % fmt)
            self.assertClean(err, "stderr of %s" % fmt)
            self.assertIn("bad", err)       # ... and named, shown
            self.assertIn("\\x1b[2J", err)

    def test_csv_cells_stay_data(self):
        good, _ = self.inputs()
        rc, out, err = self.run_compare("--csv", good)
        self.assertEqual(rc, 0, err)
        cells = [c for row in csv.reader(io.StringIO(out)) for c in row]
        self.assertTrue(any("\\u202e" in c for c in cells))
        self.assertFalse(any(c[:1] in "=+@" and c[:1] for c in cells))

    def test_html_on_stdout(self):
        good, bad = self.inputs()
        rc, out, err = self.run_compare("--html", good, bad)
        self.assertEqual(rc, 1, err)
        # A LF in HTML text is white space (html_text keeps it); in a
        # chart's label, which is one line, it is shown.
        for bad in RAW[:3]:
            self.assertNotIn(bad, out, "%r raw in the page" % bad)
        self.assertNotIn(">labelH\\x1b[2JI\\x9bJ\\u202eK</text>", out)
        self.assertClean(err, "stderr")

    def test_ab_row_names_from_ab_json(self):
        folder = os.path.join(self.tmp, "ab")
        shutil.copytree(os.path.join(FIX, "qemu-ab"), folder)
        with open(os.path.join(folder, "ab.json")) as f:
            man = json.load(f)
        row = man["rows"][0]
        row["a"] = row["a"] + EVIL      # a report that is not there
        with open(os.path.join(folder, "ab.json"), "w") as f:
            json.dump(man, f)
        rc, out, err = self.run_compare("--ab", folder)
        self.assertEqual(rc, 1, err)
        self.assertIn("no report", err)
        self.assertClean(out, "the A/B table")
        self.assertClean(err, "stderr")


class VerdictTest(Tmp):
    def verdict(self, *argv):
        p = subprocess.run([sys.executable, os.path.join(SCRIPTS, "verdict")]
                           + list(argv), capture_output=True, timeout=120)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_a_bad_file_name_is_shown(self):
        bad = self.write("bad" + EVIL + ".json", "{not json")
        rc, out, err = self.verdict(bad)
        self.assertEqual(rc, 2, err)
        self.assertIn("\\x1b[2J", err)
        self.assertClean(out + err, "verdict's output")

    def test_a_report_with_escapes(self):
        if not os.path.exists(os.path.join(REPO, "build", "host",
                                           "verdict-judge")):
            self.skipTest("build/host/verdict-judge is not built (make unit)")
        r = evil_report()
        r["verdict"]["current_clocksource"] = "tsc" + EVIL
        good = self.write("good" + EVIL + ".log", framed(r))
        rc, out, err = self.verdict(good)
        self.assertIn(rc, (0, 1, 2), err)
        self.assertNotIn("Traceback", err)
        self.assertClean(out + err, "verdict's output")


class ExtractTest(Tmp):
    def extract(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        rc = extract.main(list(argv), stdout=out, stderr=err)
        return rc, out.getvalue(), err.getvalue()

    def test_no_report_name_shown(self):
        p = self.write("none" + EVIL + ".log", "nothing here\n")
        rc, out, err = self.extract(p)
        self.assertEqual(rc, extract.EXIT_NO_REPORT)
        self.assertIn("\\x1b[2J", err)
        self.assertClean(out + err, "extract's output")

    def test_report_strings_are_json_escapes(self):
        r = evil_report()
        p = self.write("r.log", framed(r))
        rc, out, err = self.extract(p)
        self.assertEqual(rc, 0, err)
        self.assertClean(out, "the extracted report")
        self.assertEqual(json.loads(out), r)    # the same report

    def test_cannot_write_name_shown(self):
        p = self.write("r.log", framed(evil_report()))
        target = os.path.join(self.tmp, "no" + EVIL, "out.json")
        rc, out, err = self.extract(p, "-o", target)
        self.assertEqual(rc, extract.EXIT_USAGE)
        self.assertIn("cannot write", err)
        self.assertClean(err, "stderr")


if __name__ == "__main__":
    unittest.main()
