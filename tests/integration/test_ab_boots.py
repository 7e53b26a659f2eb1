"""Issue 23's A/B of two QEMUs on the real probe: one matrix row (q35,
1 vCPU, direct boot, TCG) on the system QEMU and on the second QEMU
(`scripts/matrix --qemu-ab qemu2`), then `scripts/compare --ab` on the
folder.  Skipped, with the reason, where `make qemu2` has not fetched the
second QEMU.  TCG figures are emulation costs that move with host load:
asserted are the pairing, each report's own word on which QEMU ran it
(its SMBIOS machine type) and that every ratio is the reports' figures
divided, never a figure itself."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import qemu, qemu2, qemuab, query  # noqa: E402

ROW = "q35-pvh-tcg"


class MatrixAbOnTwoQemus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        binary, why = qemu2.find()
        if not binary:
            raise unittest.SkipTest(why)
        if not os.path.exists(qemu.DEFAULT_IMAGES["pvh"]):
            raise unittest.SkipTest("build/clockprobe.elf not built (make)")
        cls.tmp = tempfile.mkdtemp(prefix="cp-qemu-ab-")
        cls.out = os.path.join(cls.tmp, "ab")
        env = dict(os.environ)
        env.pop("CLOCKPROBE_QEMU", None)  # A: the system's QEMU
        cls.matrix = subprocess.run(
            [sys.executable, os.path.join(REPO, "scripts", "matrix"),
             "--only", ROW, "--qemu-ab", "qemu2", "OUT=" + cls.out],
            capture_output=True, text=True, timeout=600, env=env)
        cls.compare = subprocess.run(
            [sys.executable, os.path.join(REPO, "scripts", "compare"),
             "--ab", cls.out], capture_output=True, text=True, timeout=120)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def load(self, name):
        with open(os.path.join(self.out, name)) as f:
            return json.load(f)

    def test_both_runs_pass_and_pair(self):
        self.assertEqual(self.matrix.returncode, 0,
                         self.matrix.stdout + self.matrix.stderr)
        man = self.load(qemuab.MANIFEST)
        self.assertEqual(man["sides"]["a"]["version"], qemu.qemu_version("qemu-system-x86_64"))
        self.assertEqual(man["sides"]["b"]["version"], qemu.qemu_version(qemu2.BINARY))
        (row,) = man["rows"]
        self.assertEqual(row["row"], ROW)
        self.assertEqual(row["status"], {"a": "passed", "b": "passed"})
        a, b = self.load(row["a"] + ".json"), self.load(row["b"] + ".json")
        # The machine type each report's SMBIOS names: pc-q35-<QEMU's
        # major.minor>, so each ran where the manifest says.
        for rep, side in ((a, "a"), (b, "b")):
            ver = ".".join(man["sides"][side]["version"].split(".")[:2])
            self.assertEqual(rep["platform"]["smbios"]["version"], "pc-q35-" + ver)
        # The newer device model has the VMClock device only when asked:
        # absent on both, with its reason.
        for rep in (a, b):
            self.assertEqual(query.get_path(rep, "sources[vmclock].status"), "absent")

    def test_compare_shows_them_side_by_side(self):
        self.assertIn(self.compare.returncode, (0, 1), self.compare.stderr)
        text = self.compare.stdout
        man = self.load(qemuab.MANIFEST)
        (row,) = man["rows"]
        a, b = self.load(row["a"] + ".json"), self.load(row["b"] + ".json")
        va, vb = man["sides"]["a"]["version"], man["sides"]["b"]["version"]
        self.assertIn("# clockprobe A/B: QEMU %s (A) vs QEMU %s (B)" % (va, vb), text)
        self.assertIn("## %s\n\n| | A: QEMU %s | B: QEMU %s | B/A |" % (ROW, va, vb), text)
        lines = {ln.split(" | ")[0].lstrip("| "): ln for ln in text.splitlines() if ln.startswith("| ")}
        flagged = []
        for s in a["sources"]:
            n = s["name"]
            sb = query.get_path(b, "sources[%s]" % n)
            if s["status"] != "ok" or sb["status"] != "ok":
                continue
            r = sb["read_cost"]["estimate_cycles"] / s["read_cost"]["estimate_cycles"]
            flag = r >= qemuab.DEFAULT_THRESHOLD
            self.assertTrue(lines["sources[%s]" % n].endswith(
                " | %s%s |" % (qemuab.fmt_ratio(r), " **!!**" if flag else "")), lines["sources[%s]" % n])
            if flag:
                flagged.append(n)
        # A regression is B/A at x2 or more, and then the exit status is 1.
        self.assertEqual(self.compare.returncode, 1 if flagged else 0, text)


if __name__ == "__main__":
    unittest.main()
