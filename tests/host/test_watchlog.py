"""Host tests for watch records: cptools.watchlog and scripts/watch, on a
log recorded from a real TCG run (watch=8 interval=2, QMP stop for 3 s;
tests/fixtures/watch/tcg-stop-cont.log holds its WATCH frames), damaged
in the ways serial logs get damaged."""
import contextlib
import io
import os
import shutil
import tempfile
import unittest
import xml.dom.minidom

from hostlib import REPO, load_script
from cptools import watchlog

FIXTURE = os.path.join(REPO, "tests", "fixtures", "watch", "tcg-stop-cont.log")


def fixture_text():
    with open(FIXTURE, "rb") as f:
        return f.read().decode("utf-8")


def frames(text):
    """The log split into its frames (3 lines each, CRLF kept)."""
    lines = text.split("\r\n")
    return ["\r\n".join(lines[i:i + 3]) + "\r\n" for i in range(0, len(lines) - 2, 3)]


class WatchLog(unittest.TestCase):
    def test_recorded_run_verifies(self):
        c = watchlog.check(watchlog.scan(fixture_text()))
        self.assertTrue(c["ok"], c)
        self.assertEqual([r["seq"] for r in c["records"]], [1, 2, 3])
        pauses = [e for e in c["records"][-1]["events"] if e["type"] == "pause"]
        self.assertEqual(len(pauses), 1)
        self.assertAlmostEqual(pauses[0]["duration_s"], 3.0, delta=1.0)

    def test_damage_missing_and_truncation_are_named(self):
        f = frames(fixture_text())
        bad = f[1].replace('"seq":2', '"seq":2 ', 1)  # one byte more than END says
        c = watchlog.check(watchlog.scan(f[0] + "noise\r\n" + bad + f[2]))
        self.assertFalse(c["ok"])
        self.assertEqual([e["seq"] for e in c["damaged"]], [2])
        self.assertIn("length mismatch", c["damaged"][0]["error"])
        self.assertEqual(c["missing"], [2])
        flipped = f[1].replace('"run_id"', '"run_iD"', 1)  # same length, CRC differs
        c = watchlog.check(watchlog.scan(f[0] + flipped + f[2]))
        self.assertIn("CRC mismatch", c["damaged"][0]["error"])
        c = watchlog.check(watchlog.scan(f[0] + f[2]))
        self.assertEqual(c["missing"], [2])
        self.assertFalse(c["ok"])
        cut = f[2].split("\r\n")[0] + "\r\n" + f[2].split("\r\n")[1][:50]
        c = watchlog.check(watchlog.scan(f[0] + f[1] + cut))
        self.assertEqual(c["damaged"][0]["error"], "truncated: END marker missing")

    def test_records_spread_over_two_logs_and_run_ids(self):
        # A migrated run: the source's log ends, the destination's goes on;
        # a record in both (written as the migration started) counts once.
        f = frames(fixture_text())
        c = watchlog.check(watchlog.scan(f[0] + f[1], "src") + watchlog.scan(f[1] + f[2], "dst"))
        self.assertTrue(c["ok"], c)
        other = f[2].replace(c["run_ids"][0], "ffffffffffffffff")
        c2 = watchlog.check(watchlog.scan(f[0] + f[1]) + watchlog.scan(other))
        self.assertEqual(len(c2["damaged"]), 1)  # the CRC no longer matches either
        self.assertFalse(c2["ok"])

    def test_script_exit_status_and_svg(self):
        watch = load_script("watch")
        tmp = tempfile.mkdtemp()
        quiet = contextlib.ExitStack()
        quiet.enter_context(contextlib.redirect_stdout(io.StringIO()))
        quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))
        try:
            out = os.path.join(tmp, "w.svg")
            log = os.path.join(tmp, "w.log")
            f = frames(fixture_text())
            # Evidence strings reach the SVG: markup in them must be escaped.
            with open(log, "w", newline="") as fh:
                fh.write("".join(f))
            self.assertEqual(watch.main([log, "--svg", out]), 0)
            xml.dom.minidom.parse(out)
            recs = watchlog.check(watchlog.scan("".join(f)))["records"]
            recs[-1]["events"][0]["evidence"] = "<script>&\"'"
            svg = watch.svg(recs, "t <&>")
            doc = xml.dom.minidom.parseString(svg)
            self.assertEqual(doc.getElementsByTagName("script"), [])
            self.assertIn("&lt;script&gt;", svg)
            with open(log, "w", newline="") as fh:
                fh.write(f[0] + f[2])
            self.assertEqual(watch.main([log]), 1)
            with open(log, "w") as fh:
                fh.write("nothing here\n")
            self.assertEqual(watch.main([log]), 2)
        finally:
            quiet.close()
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
