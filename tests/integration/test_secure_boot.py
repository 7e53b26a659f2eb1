"""`make signed` under real Secure Boot: OVMF with Secure Boot enforced and
a known key in db starts the probe signed with that key (report verified)
and refuses the unsigned one ("Access Denied").

Debian's ovmf ships exactly such a firmware for tests: OVMF_CODE_4M.secboot.fd
with OVMF_VARS_4M.snakeoil.fd, whose db holds PkKek-1-snakeoil.pem (its key's
passphrase is "snakeoil", per the package's README.Debian).

Slow (two boots under TCG with SMM, about a minute on 2 busy cores), so it
runs only with CLOCKPROBE_SECUREBOOT=1.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "scripts"))
from cptools import process, qemu  # noqa: E402
from cptools.frame import extract_report  # noqa: E402

OVMF = "/usr/share/OVMF"
CODE = os.path.join(OVMF, "OVMF_CODE_4M.secboot.fd")
VARS = os.path.join(OVMF, "OVMF_VARS_4M.snakeoil.fd")
SNAKEOIL_KEY = "/usr/share/ovmf/PkKek-1-snakeoil.key"
SNAKEOIL_CERT = "/usr/share/ovmf/PkKek-1-snakeoil.pem"
EFI = os.path.join(REPO, "build", "clockprobe.efi")
UNSIGNED_IMG = os.path.join(REPO, "build", "clockprobe.img")
NEEDED = (CODE, VARS, SNAKEOIL_KEY, SNAKEOIL_CERT, EFI, UNSIGNED_IMG)


def secure_boot_argv(image, vars_copy):
    # Secure Boot builds of OVMF keep their variables in SMM, and the vars
    # flash must be the secure one for SMM to own it.
    return qemu.qemu_command(
        image, machine="q35,smm=on", smp="2", vars_copy=vars_copy,
        ovmf_code=CODE, disk_first=True,
        extra=["-global", "driver=cfi.pflash01,property=secure,value=on"])


@unittest.skipUnless(os.environ.get("CLOCKPROBE_SECUREBOOT") == "1",
                     "slow (about a minute): set CLOCKPROBE_SECUREBOOT=1")
@unittest.skipIf([p for p in NEEDED if not os.path.exists(p)]
                 or not shutil.which("sbsign"),
                 "needs Debian's ovmf snakeoil files, sbsigntool and make all")
class SecureBoot(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cp-secboot-")
        key = os.path.join(cls.dir, "snakeoil.key")
        subprocess.run(["openssl", "pkey", "-in", SNAKEOIL_KEY, "-passin",
                        "pass:snakeoil", "-out", key], check=True)
        cls.out = os.path.join(cls.dir, "signed")
        subprocess.run([sys.executable, os.path.join(REPO, "boot",
                                                     "mksigned.py"),
                        "--efi", EFI, "--out", cls.out, "--key", key,
                        "--cert", SNAKEOIL_CERT, "--settings", "mode=quick"],
                       check=True, capture_output=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def boot(self, image, name, watch=None):
        vars_copy = qemu.copy_vars(os.path.join(self.dir, name), VARS)
        return process.run_argv(secure_boot_argv(image, vars_copy), 300,
                                watch=watch)

    def test_signed_probe_runs(self):
        res = self.boot(os.path.join(self.out, "clockprobe.img"), "signed")
        self.assertEqual(res.exit_status, qemu.EXIT_COMPLETE,
                         res.log_text[-2000:] + res.stderr[-500:])
        report, error = extract_report(res.log_text)
        self.assertIsNone(error)
        self.assertEqual(report["probe"]["boot"], "uefi")

    def test_unsigned_probe_is_refused(self):
        def refused(serial, _stderr):
            return "refused" if "Access Denied" in serial else None
        res = self.boot(UNSIGNED_IMG, "unsigned", watch=refused)
        self.assertIn("failed to load Boot0001", res.log_text)
        self.assertIn("Access Denied", res.log_text)
        self.assertNotIn("CLOCKPROBE REPORT", res.log_text)


if __name__ == "__main__":
    unittest.main()
