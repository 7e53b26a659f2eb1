"""Host tests for scripts/install-deps: --help and --check install nothing,
a missing package is installed through apt-get with its target's list, and
a host without apt-get is told what is missing.

apt-get, dpkg-query and id are stand-ins on PATH that record their calls,
so nothing is installed on the test host.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import SCRIPTS  # noqa: E402

SCRIPT = os.path.join(SCRIPTS, "install-deps")
SH = shutil.which("sh") or "/bin/sh"


class InstallDeps(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="cp-deps-")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        self.bin = os.path.join(self.dir, "bin")
        os.mkdir(self.bin)
        # Every host has coreutils; the PATH holds nothing else unless a
        # test puts it there.
        os.symlink(shutil.which("cat"), os.path.join(self.bin, "cat"))
        self.calls = os.path.join(self.dir, "apt-calls")

    def stand_in(self, name, body):
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write("#!%s\n%s\n" % (SH, body))
        os.chmod(path, 0o755)

    def debian_with_nothing_installed(self):
        # dpkg-query answers "not installed" for every package; apt-get
        # only writes down what it was asked to do.
        self.stand_in("dpkg-query", 'echo "unknown ok not-installed"')
        self.stand_in("apt-get", 'echo "$*" >> "%s"' % self.calls)
        self.stand_in("id", "echo 0")

    def run_deps(self, *args):
        env = {"PATH": self.bin, "HOME": self.dir}
        return subprocess.run([SH, SCRIPT] + list(args), env=env,
                              capture_output=True, text=True, timeout=60)

    def apt_calls(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return f.read().splitlines()

    def test_help_prints_usage_and_installs_nothing(self):
        self.debian_with_nothing_installed()
        for flag in ("--help", "-h"):
            p = self.run_deps(flag)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("usage: scripts/install-deps", p.stdout)
            self.assertIn("fuzz", p.stdout)
        self.assertEqual(self.apt_calls(), [])

    def test_check_lists_missing_and_installs_nothing(self):
        self.debian_with_nothing_installed()
        p = self.run_deps("--check", "run")
        self.assertEqual(p.returncode, 1)
        self.assertIn("qemu-system-x86", p.stdout)
        self.assertEqual(self.apt_calls(), [])

    def test_each_target_installs_its_own_list(self):
        # The control for the two tests above: the same stand-ins do see
        # an install when one is asked for.
        self.debian_with_nothing_installed()
        wanted = {
            "run": ({"gcc", "gnu-efi", "ovmf", "qemu-system-x86"},
                    {"clang", "sbsigntool", "python3-jsonschema"}),
            "test": ({"gcc", "python3-jsonschema", "python3-hypothesis",
                      "chromium", "sbsigntool", "python3-debian"},
                     {"clang"}),
            "fuzz": ({"gcc", "clang", "libclang-rt-14-dev"},
                     {"chromium", "sbsigntool"}),
            "signed": ({"sbsigntool", "openssl"}, {"clang", "chromium"}),
            "install": ({"gcc", "fdisk", "help2man"},
                        {"lintian", "chromium", "clang"}),
            "deb": ({"gcc", "fdisk", "help2man", "dpkg-dev", "lintian"},
                    {"chromium", "clang", "sbsigntool"}),
        }
        for target, (must, must_not) in wanted.items():
            os.path.exists(self.calls) and os.unlink(self.calls)
            p = self.run_deps(target)
            self.assertEqual(p.returncode, 0, p.stderr)
            installs = [c.split() for c in self.apt_calls()
                        if c.startswith("install")]
            self.assertEqual(len(installs), 1, self.apt_calls())
            self.assertLessEqual(must, set(installs[0]), target)
            self.assertFalse(must_not & set(installs[0]), target)

    def test_nothing_missing_does_nothing(self):
        self.stand_in("dpkg-query", 'echo "install ok installed"')
        self.stand_in("apt-get", 'echo "$*" >> "%s"' % self.calls)
        p = self.run_deps("test")
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))
        self.assertEqual(self.apt_calls(), [])

    def test_no_apt_get_prints_what_is_missing_and_stops(self):
        # A bare PATH: no apt-get, no dpkg-query, no qemu -- as on a
        # host of another distribution without those installed.
        p = self.run_deps("run")
        self.assertEqual(p.returncode, 1)
        self.assertIn("no apt-get", p.stderr)
        self.assertIn("nothing was installed", p.stderr)
        missing = p.stderr.split("(Debian package names):")[1].split("\n")[0]
        self.assertIn("qemu-system-x86", missing.split())
        self.assertIn("qemu-utils", missing.split())

    def test_unknown_target_is_refused(self):
        self.debian_with_nothing_installed()
        p = self.run_deps("everything")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown target", p.stderr)
        self.assertEqual(self.apt_calls(), [])


if __name__ == "__main__":
    unittest.main()
