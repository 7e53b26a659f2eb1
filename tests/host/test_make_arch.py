"""`make run ARCH=aarch64` boots the arm64 probe, `make run` the x86 one
(mk/arch-aarch64.mk, the Makefile's `all` and `run`), read off `make -n`:
nothing is built or booted.  Under ARCH=aarch64 `all` is the arm64 probe
alone (no x86 EFI, PVH or Linux-guest build), and a goal only x86 has
stops with one line naming it.  Well under a second."""

import contextlib
import io
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402


def make_n(*args):
    env = dict(os.environ)
    # A make above this test (make test) must not hand its flags down.
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"):
        env.pop(k, None)
    p = subprocess.run(["make", "-n", *args], cwd=REPO, capture_output=True, text=True,
                       timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


X86_RUN = re.compile(r"^\S*python3? scripts/run(\s|$)", re.M)
A64_RUN = re.compile(r"^\S*python3? scripts/cptools/arm64efi\.py run(\s|$)", re.M)


class MakeRunArch(unittest.TestCase):
    def test_run_aarch64_boots_the_arm64_probe(self):
        rc, out, err = make_n("run", "ARCH=aarch64")
        self.assertEqual(rc, 0, err)
        self.assertIn("install-deps arm64", out)
        self.assertRegex(out, A64_RUN)
        self.assertNotRegex(out, X86_RUN)

    def test_run_default_is_the_x86_boot(self):
        rc, out, err = make_n("run")
        self.assertEqual(rc, 0, err)
        self.assertIn("install-deps run", out)
        self.assertIn("all build/host/verdict-judge", out)
        self.assertRegex(out, X86_RUN)
        self.assertNotRegex(out, A64_RUN)

    def test_aarch64_knobs_reach_the_boot(self):
        rc, out, err = make_n("run", "ARCH=aarch64", "SMP=2", "CPU=cortex-a57")
        self.assertEqual(rc, 0, err)
        self.assertIn("arm64efi.py run --smp='2' --cpu='cortex-a57'", out)
        rc, out, err = make_n("run", "ARCH=aarch64", "MACHINE=virt,gic-version=3")
        self.assertEqual(rc, 0, err)
        self.assertIn("--machine='virt,gic-version=3'", out)

    def test_arm64efi_takes_the_knobs_one_word_form(self):
        # make passes --smp='2' as one word: it must not be dropped.
        sys.path.insert(0, os.path.join(REPO, "scripts"))
        from cptools import arm64efi
        got = {}

        def fake_boot(smp=4, cpu="max", timeout=0, machine="virt"):
            got.update(smp=smp, cpu=cpu, machine=machine)
            return "", 0, 0.0
        saved = arm64efi.boot, arm64efi.missing
        arm64efi.boot, arm64efi.missing = fake_boot, lambda: None
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                rc = arm64efi.main(["arm64efi.py", "run", "--smp=2", "--cpu", "cortex-a57",
                                    "--machine=virt,gic-version=3"])
        finally:
            arm64efi.boot, arm64efi.missing = saved
        self.assertEqual(rc, 0)
        self.assertEqual(got, {"smp": 2, "cpu": "cortex-a57", "machine": "virt,gic-version=3"})

    def test_aarch64_all_is_the_arm64_probe_alone(self):
        # -B: what `all` would build even in a built tree (else "Nothing
        # to be done" passes every absence check below).
        rc, out, err = make_n("-B", "all", "ARCH=aarch64")
        self.assertEqual(rc, 0, err)
        self.assertIn("build/aarch64/clockprobe.efi", out)
        for x86 in ("build/efi/", "build/pvh/", "clockprobe.elf", "clockprobe-guest",
                    "clockprobe.iso"):
            self.assertNotIn(x86, out)

    def test_x86_only_goals_stop_with_one_line(self):
        for goal in ("test", "images", "deb", "signed", "unit"):
            rc, out, err = make_n(goal, "ARCH=aarch64")
            self.assertNotEqual(rc, 0, goal)
            lines = [line for line in err.splitlines() if line.strip()]
            self.assertEqual(len(lines), 1, err)
            self.assertIn("ARCH=aarch64: %s is x86-only" % goal, lines[0])


if __name__ == "__main__":
    unittest.main()
