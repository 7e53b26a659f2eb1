"""The arm64 verdict against real Debian arm64 kernels (issue 37).

recorded: every boot of tests/linux/expected-arm64.json (each arch =
aarch64 row of tests/matrix.conf on Debian 12's 6.1 and bookworm-backports'
6.12) is judged by build/host/verdict-arm64 from the facts that guest
recorded (every CPU's MIDR, CNTFRQ_EL0, HWCAP2_ECV); the verdict's
by_kernel[] entry for that kernel must name the clocksource the kernel
chose and whether its clock_gettime() stayed in the vDSO (the comparison
of cptools/arm64agree.py, which scripts/matrix makes on the probe's own
verdict on each row).  Runs in make test, offline, in well under a second.

live (LINUX_GUEST_FULL=1, like the x86 guests): boots every row on both
kernels again (about 20 s each here, 16 boots) and checks the verdict
against what the kernels do now.  Skips, with the reason, when the arm64
kernels, busybox, QEMU or build/arm64/clockprobe-guest are missing
(sh scripts/install-deps arm64; make guest-arm64; the fetch runs here).
"""

import json
import os
import subprocess
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import arm64agree, arm64guest  # noqa: E402

EXPECTED = os.path.join(REPO, "tests", "linux", "expected-arm64.json")
JUDGE = os.path.join(REPO, "build", "host", "verdict-arm64")


def facts(boot):
    """verdict-arm64's input lines from one recorded (or live) boot."""
    lines = ["midr %s" % m for m in boot["midr"]]
    lines.append("cntfrq %d" % boot["cntfrq_hz"])
    # HWCAP2_ECV is Linux's own FEAT_ECV finding (system-wide).
    lines.append("ecv %d" % (1 if boot["hwcap2_ecv"] else 0))
    return "\n".join(lines) + "\n"


def judge(boot):
    p = subprocess.run([JUDGE, "--kernel", boot["kernel"]],
                       input=facts(boot), capture_output=True, text=True,
                       timeout=30)
    if p.returncode != 0:
        raise AssertionError("verdict-arm64 failed: %s" % p.stderr)
    return json.loads(p.stdout)["verdict"]["arm64"]


class Agreement:
    def check(self, boot):
        v = judge(boot)
        # Clocksource and vDSO: the comparison scripts/matrix makes too.
        self.assertEqual(arm64agree.disagreements(v, [boot]), [])
        e = arm64agree.entry_for(v, boot["kernel"])
        where = "%s on %s" % (boot["kernel"], boot["row"])
        # The main verdict for the same kernel is the entry itself.
        self.assertEqual(v["vdso"], e["vdso"], where)
        # A vDSO taken away by a workaround means the kernel traps EL0
        # counter reads: the guest's own direct read was slow.  Judged
        # against the same boot's vDSO rows, not a fixed figure.
        if not e["vdso"]:
            self.assertTrue(e["el0_counter_trapped"], where)


@unittest.skipUnless(os.path.isfile(JUDGE), "build/host/verdict-arm64 "
                     "missing (make unit)")
class TestRecorded(unittest.TestCase, Agreement):
    def setUp(self):
        with open(EXPECTED) as f:
            self.doc = json.load(f)

    def test_every_row_and_kernel_recorded(self):
        got = {(b["row"], b["kernel"]) for b in self.doc["boots"]}
        want = {(r["name"], k) for r in arm64guest.ROWS
                for k in arm64guest.KERNELS}
        self.assertEqual(want, got)

    def test_verdict_agrees_with_every_boot(self):
        for boot in self.doc["boots"]:
            with self.subTest(row=boot["row"], kernel=boot["kernel"]):
                self.check(boot)

    def test_trapped_reads_are_slower_than_direct_ones(self):
        # The erratum rows' EL0 counter reads are emulated by the kernel:
        # each costs more than every direct read recorded for that kernel.
        for k in arm64guest.KERNELS:
            boots = [b for b in self.doc["boots"] if b["kernel"] == k]
            direct = [b["counter_read_ns"] for b in boots if b["in_vdso"]]
            trapped = [b["counter_read_ns"] for b in boots
                       if not b["in_vdso"]]
            self.assertTrue(direct and trapped, k)
            self.assertGreater(min(trapped), max(direct), k)


@unittest.skipUnless(os.environ.get("LINUX_GUEST_FULL") == "1",
                     "live arm64 guests only with LINUX_GUEST_FULL=1")
@unittest.skipUnless(os.path.isfile(JUDGE), "build/host/verdict-arm64 "
                     "missing (make unit)")
class TestLive(unittest.TestCase, Agreement):
    @classmethod
    def setUpClass(cls):
        if not arm64guest.load_manifest() and \
                os.environ.get("LINUX_GUEST_NO_FETCH") != "1":
            try:
                arm64guest.fetch(log=lambda *_: None)
            except arm64guest.GuestError as e:
                raise unittest.SkipTest("arm64 kernels: %s" % e)
        if not arm64guest.ready():
            raise unittest.SkipTest(
                "arm64 guests not ready: kernels/busybox (fetch), %s "
                "(make guest-arm64) or %s (sh scripts/install-deps arm64)"
                % (arm64guest.GUEST_BIN, arm64guest.QEMU))

    def test_live_boots_agree(self):
        for row in arm64guest.ROWS:
            for k in arm64guest.KERNELS:
                with self.subTest(row=row["name"], kernel=k):
                    b = arm64guest.boot(row, k)
                    b.update(midr=b["arm64"]["midr"],
                             cntfrq_hz=b["arm64"]["cntfrq_hz"],
                             hwcap2_ecv=b["arm64"]["hwcap2_ecv"])
                    self.check(b)


if __name__ == "__main__":
    unittest.main()
