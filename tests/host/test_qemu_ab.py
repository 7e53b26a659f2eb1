"""The A/B of two QEMUs (issue 23): scripts/matrix --qemu-ab PATH runs each
row on both binaries and pairs the runs in ab.json; scripts/compare --ab
DIR shows each row's two reports side by side with B/A per read cost.

Three layers, seconds each:
  * recorded pair: tests/fixtures/reports/qemu-ab/ is a real
    `scripts/matrix --only q35-pvh-tcg,q35-pit-off --qemu-ab qemu2` run
    (QEMU 7.2.22 vs 10.0.2, TCG; B's binary path made relative), judged
    by compare --ab: the table's ratios are the reports' own figures
    divided, nothing else;
  * stand-in boots: the matrix's real QEMU plumbing booting a tiny PVH
    image that prints a fixture report, on the system QEMU as both A and
    B (the same version twice: -a/-b names) and, where `make qemu2` has
    fetched it, on the second QEMU as B (a named skip otherwise);
  * usage: what --qemu-ab and --ab refuse.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import FIX, load_script  # noqa: E402
from cptools import frame, qemu2, qemuab, query, standin  # noqa: E402

matrix = load_script("matrix")
compare = load_script("compare")
AB_FIX = os.path.join(FIX, "qemu-ab")
ROWS = ("q35-pit-off", "q35-pvh-tcg")


def load(path):
    with open(path) as f:
        return json.load(f)


def call(main, *argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(list(argv))
        except SystemExit as e:  # argparse's usage errors
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def cells(text, heading):
    """{first cell: [the other cells]} of the table under '## heading'."""
    lines = text.splitlines()
    i = lines.index("## " + heading)
    out = {}
    for ln in lines[i + 1:]:
        if ln.startswith("## "):
            break
        if ln.startswith("| ") and not ln.startswith("| ---"):
            parts = [c.strip() for c in ln.strip("|").split(" | ")]
            out[parts[0]] = parts[1:]
    return out


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test-qemu-ab-")
        self.addCleanup(shutil.rmtree, self.tmp)


class RecordedPair(Tmp):
    def test_pairs_by_row_with_both_versions(self):
        rc, out, err = call(lambda a: compare.main(a), "--ab", AB_FIX)
        man = load(os.path.join(AB_FIX, qemuab.MANIFEST))
        self.assertEqual([r["row"] for r in man["rows"]], list(ROWS))
        self.assertIn("# clockprobe A/B: QEMU 7.2.22 (A) vs QEMU 10.0.2 (B)",
                      out)
        for r in man["rows"]:
            a = load(os.path.join(AB_FIX, r["a"] + ".json"))
            b = load(os.path.join(AB_FIX, r["b"] + ".json"))
            t = cells(out, r["row"])
            self.assertEqual(t[""], ["A: QEMU 7.2.22", "B: QEMU 10.0.2",
                                     "B/A"])
            # Each report's own SMBIOS names the machine type of the QEMU
            # that ran it.
            self.assertEqual(t["SMBIOS version"][:2],
                             ["pc-q35-7.2", "pc-q35-10.0"])
            self.assertEqual(t["Linux clocksource"][:2], [
                a["verdict"]["linux_clocksource"],
                b["verdict"]["linux_clocksource"]])
            # Every source of the reports, with its estimate on each side
            # and their quotient; a source not ok on one side has none.
            names = [s["name"] for s in a["sources"]]
            self.assertIn("vmclock", names)
            for n in names:
                row = t["sources[%s]" % n]
                sa = query.get_path(a, "sources[%s]" % n)
                sb = query.get_path(b, "sources[%s]" % n)
                if sa["status"] != "ok" or sb["status"] != "ok":
                    self.assertEqual(row[2], "", n)
                    continue
                ea = sa["read_cost"]["estimate_cycles"]
                eb = sb["read_cost"]["estimate_cycles"]
                self.assertEqual(row[:2], ["%.1f" % ea, "%.1f" % eb], n)
                self.assertEqual(row[2].replace(" **!!**", ""),
                                 qemuab.fmt_ratio(eb / ea), n)
                self.assertEqual(row[2].endswith("**!!**"), eb / ea >= 2.0, n)
            ca = a["baselines"]["cpuid_cycles"]["estimate_cycles"]
            cb = b["baselines"]["cpuid_cycles"]["estimate_cycles"]
            self.assertEqual(t["cpuid"][2].replace(" **!!**", ""),
                             qemuab.fmt_ratio(cb / ca))
        # The recorded QEMU 10 HPET costs over twice QEMU 7.2's in both
        # rows: a regression of B, exit 1, each on stderr.
        self.assertEqual(rc, 1, err)
        for row in ROWS:
            self.assertIn("compare: regression in %s (B against A): "
                          "sources[hpet]" % row, err)
        summary = cells(out, "B/A per figure")
        self.assertEqual(summary[""], list(ROWS))
        # A higher threshold: the same table, nothing flagged.
        rc, out, err = call(lambda a: compare.main(a), "--ab", AB_FIX,
                            "--threshold", "100")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("**!!** |", out)
        self.assertIn("None.", out)

    def test_contention_curves_side_by_side(self):
        d = os.path.join(FIX, "qemu-ab-load")
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        man = load(os.path.join(d, qemuab.MANIFEST))
        r = man["rows"][0]
        a = load(os.path.join(d, r["a"] + ".json"))
        b = load(os.path.join(d, r["b"] + ".json"))
        t = cells(out, r["row"])
        seen = 0
        for sa in a["sources"]:
            if sa["status"] != "ok":
                continue
            sb = query.get_path(b, "sources[%s]" % sa["name"])
            for la, lb in zip(sa["contention"], sb["contention"]):
                self.assertEqual(la["cpus"], lb["cpus"])
                lab = "sources[%s] at %d CPUs" % (sa["name"], la["cpus"])
                if la["cpus"] < 2:
                    self.assertNotIn(lab, t)
                    continue
                row = t[lab]
                ea, eb = la["estimate_cycles"], lb["estimate_cycles"]
                self.assertTrue(row[0].startswith("%.1f" % ea), row)
                self.assertTrue(row[1].startswith("%.1f" % eb), row)
                self.assertEqual("(outnumbered)" in row[0], la["outnumbered"])
                self.assertEqual(row[2].replace(" **!!**", ""),
                                 qemuab.fmt_ratio(eb / ea), lab)
                self.assertEqual(row[2].endswith("**!!**"), eb / ea >= 2.0)
                seen += 1
        self.assertGreaterEqual(seen, 6)  # tsc, hpet, acpi_pm at 2 and 4
        # Recorded: QEMU 10.0's HPET slower at every level (10.2, not
        # 10.0, made its reads lock-free): a regression, exit 1.
        self.assertEqual(rc, 1, err)
        self.assertIn("sources[hpet] at 4 CPUs", err)

    def copy_fixture(self):
        d = os.path.join(self.tmp, "ab")
        shutil.copytree(AB_FIX, d)
        return d

    def test_a_report_that_does_not_verify_is_named(self):
        d = self.copy_fixture()
        man = load(os.path.join(d, qemuab.MANIFEST))
        bad = os.path.join(d, man["rows"][0]["b"] + ".json")
        with open(bad, "w") as f:
            f.write('{"schema": 1, "probe": ')  # cut short
        os.unlink(os.path.join(d, man["rows"][1]["a"] + ".json"))
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        self.assertEqual(rc, 1)
        t = cells(out, ROWS[0])
        self.assertEqual(t["sources[hpet]"][1:], ["no report", ""])
        t = cells(out, ROWS[1])
        self.assertEqual(t["sources[hpet]"][0], "no report")
        self.assertIn("## Rejected inputs", out)
        self.assertIn(os.path.basename(bad), out)
        self.assertIn("no report (the row did not produce one)", err)

    def test_untrusted_strings_stay_in_their_cell(self):
        d = self.copy_fixture()
        man = load(os.path.join(d, qemuab.MANIFEST))
        p = os.path.join(d, man["rows"][0]["a"] + ".json")
        r = load(p)
        r["platform"]["smbios"]["version"] = "x | y\n## z\x07"
        with open(p, "w") as f:
            json.dump(r, f)
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        self.assertIn("| SMBIOS version | x \\| y ## z\\x07 | pc-q35-10.0 | |",
                      out)

    def test_manifest_refused(self):
        rc, out, err = call(lambda a: compare.main(a), "--ab", self.tmp)
        self.assertEqual(rc, 2)
        self.assertIn("is %s the output of scripts/matrix --qemu-ab?"
                      % self.tmp, err)
        d = self.copy_fixture()
        man = load(os.path.join(d, qemuab.MANIFEST))
        man["rows"][0]["a"] = "../../etc/passwd"
        with open(os.path.join(d, qemuab.MANIFEST), "w") as f:
            json.dump(man, f)
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        self.assertEqual(rc, 2)
        self.assertIn("names a file outside the folder", err)

    def test_manifest_is_untrusted_input(self):
        # ab.json comes from a matrix folder, maybe a CI artifact: a FIFO
        # is refused by name (never opened to block), a side that is not
        # an object is a named refusal (no traceback), and its strings
        # are text in the Markdown (issue 25).
        d = self.copy_fixture()
        path = os.path.join(d, qemuab.MANIFEST)
        man = load(path)
        os.unlink(path)
        os.mkfifo(path)
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        self.assertEqual(rc, 2, err)
        self.assertIn("not a regular file", err)
        os.unlink(path)
        bad = dict(man, sides=dict(man["sides"], a=["x"]))
        with open(path, "w") as f:
            json.dump(bad, f)
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        self.assertEqual(rc, 2, err)
        self.assertIn("not an A/B manifest", err)
        man["sides"]["b"]["version"] = "10<img src=x onerror=alert(1)>&amp"
        man["sides"]["b"]["qemu"] = "/opt/q`emu"
        with open(path, "w") as f:
            json.dump(man, f)
        rc, out, err = call(lambda a: compare.main(a), "--ab", d)
        self.assertNotIn("<img", out)
        self.assertIn("QEMU 10&lt;img src=x onerror=alert(1)>&amp;amp", out)
        self.assertIn("`/opt/q\\x60emu`", out)

    def test_usage(self):
        rc, _, err = call(lambda a: compare.main(a), "--ab", AB_FIX,
                          os.path.join(FIX, "tcg_q35.json"))
        self.assertEqual(rc, 2)
        self.assertIn("--ab DIR takes its reports from DIR/ab.json", err)
        rc, _, err = call(matrix.main, "--qemu-ab", "/nonexistent/qemu",
                          "--only", "q35-pvh-tcg", "--list")
        self.assertEqual(rc, 2)
        self.assertIn("--qemu-ab: QEMU binary /nonexistent/qemu", err)
        rc, _, err = call(matrix.main, "--merge", self.tmp, "--qemu-ab",
                          "qemu2")
        self.assertEqual(rc, 2)
        self.assertIn("does not go with --merge", err)


@unittest.skipUnless(shutil.which("qemu-system-x86_64") and
                     shutil.which("as") and shutil.which("ld"),
                     "needs qemu-system-x86_64 and binutils")
class StandInAb(Tmp):
    """The matrix's runner on a stand-in that prints a fixture report."""

    def setUp(self):
        super().setUp()
        self.img = standin.build_pvh_check_image(
            os.path.join(self.tmp, "standin.elf"),
            frame.frame_report(load(os.path.join(FIX, "tcg_q35.json"))))
        self.conf = os.path.join(self.tmp, "m.conf")
        with open(self.conf, "w") as f:
            f.write("[defaults]\nboot = pvh\nmachine = pc\ntimeout = 60\n"
                    "image = %s\nexpect schema == 1\n"
                    "[one]\n[two]\nsmp = 2\n[skipped]\nskip = not here\n"
                    % self.img)

    def run_ab(self, b, out):
        return call(matrix.main, "--conf", self.conf, "--qemu-ab", b,
                    "--keep", "--jobs", "2", "OUT=" + out)

    def check(self, out, sides):
        man = load(os.path.join(out, qemuab.MANIFEST))
        self.assertEqual([r["row"] for r in man["rows"]],
                         ["one", "two", "skipped"])
        res = load(os.path.join(out, "results.json"))
        self.assertEqual(res["rows_total"], 6)
        names = [r["name"] for r in res["rows"]]
        want = [row + s for row in ("one", "two", "skipped") for s in sides]
        self.assertEqual(names, want)
        for r in man["rows"]:
            self.assertEqual([r["a"], r["b"]], [r["row"] + s for s in sides])
        status = {r["name"]: r["status"] for r in res["rows"]}
        for n in want:
            self.assertEqual(status[n], "skipped" if n.startswith("skipped")
                             else "passed", n)
        return man

    def cmdline(self, out, name):
        with open(os.path.join(out, "work", name, "cmdline")) as f:
            return f.read().split()

    def test_same_qemu_twice(self):
        out = os.path.join(self.tmp, "same")
        rc, log, err = self.run_ab("qemu-system-x86_64", out)
        self.assertEqual(rc, 0, log + err)
        system = shutil.which("qemu-system-x86_64")
        from cptools import qemu
        ver = qemu.qemu_version(system)
        man = self.check(out, ("@qemu-%s-a" % ver, "@qemu-%s-b" % ver))
        self.assertEqual(man["sides"]["a"]["version"], ver)
        self.assertIn("paired in %s" % os.path.join(out, "ab.json"), log)
        self.assertEqual(self.cmdline(out, "one@qemu-%s-b" % ver)[0],
                         os.path.abspath(system))
        # compare --ab reads it: the stand-in's report twice, B/A x1.
        rc, text, err = call(lambda a: compare.main(a), "--ab", out)
        self.assertEqual(rc, 0, err)
        self.assertEqual(cells(text, "one")["sources[hpet]"][2], "x1")
        # A row skipped on both sides: said so, no table, no fault.
        self.assertIn("## skipped\n\nSkipped on A: QEMU %s and B: QEMU %s"
                      % (ver, ver), text)
        self.assertEqual(man["rows"][2]["status"], {"a": "skipped",
                                                    "b": "skipped"})

    def test_second_qemu_as_b(self):
        binary, why = qemu2.find()
        if not binary:
            self.skipTest(why)
        out = os.path.join(self.tmp, "q2")
        rc, log, err = self.run_ab("qemu2", out)
        self.assertEqual(rc, 0, log + err)
        from cptools import qemu
        got = load(os.path.join(out, qemuab.MANIFEST))["sides"]
        self.assertEqual(got["b"]["version"], qemu.qemu_version(binary))
        self.assertNotEqual(got["a"]["version"], got["b"]["version"])
        man = self.check(out, tuple("@qemu-" + got[k]["version"]
                                    for k in "ab"))
        self.assertEqual(man["sides"]["b"]["qemu"], binary)
        b = self.cmdline(out, man["rows"][0]["b"])
        self.assertEqual(b[0], binary)
        self.assertEqual(b[1:5], qemu2.qemu_args(binary))  # -L its blobs
        a = self.cmdline(out, man["rows"][0]["a"])
        self.assertNotEqual(a[0], binary)
        self.assertNotIn("-L", a)


if __name__ == "__main__":
    unittest.main()
