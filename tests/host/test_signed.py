"""Host tests for `make signed` (boot/mksigned.py): the signed probe
verifies against the certificate it was signed with and not against
another one, the key made on the first run is kept for the next, a key
given by the user is the one used, the enrolling files (DER, EFI signature
list) hold that certificate, and the signed disk image carries it on its ESP.

Skipped, with the reason, where sbsigntool or openssl is missing
(scripts/install-deps signed installs them).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "boot"))
import mksigned  # noqa: E402

EFI = os.path.join(REPO, "build", "clockprobe.efi")
SCRIPT = os.path.join(REPO, "boot", "mksigned.py")
TOOLS = ("sbsign", "sbverify", "openssl", "mcopy", "xorriso")
MISSING = [t for t in TOOLS if shutil.which(t) is None]


def sbverify(cert, efi):
    return subprocess.run(["sbverify", "--cert", cert, efi],
                          capture_output=True, text=True).returncode


@unittest.skipIf(MISSING, "missing %s (scripts/install-deps signed)"
                 % ", ".join(MISSING))
@unittest.skipUnless(os.path.exists(EFI), "needs build/clockprobe.efi (make)")
class Signed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cp-signed-")
        cls.out = os.path.join(cls.dir, "signed")
        cls.sign(cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    @staticmethod
    def sign(out, *extra):
        subprocess.run([sys.executable, SCRIPT, "--efi", EFI, "--out", out]
                       + list(extra), check=True, capture_output=True)
        return os.path.join(out, "clockprobe.efi")

    def path(self, name):
        return os.path.join(self.out, name)

    def test_signed_probe_verifies_against_its_cert_only(self):
        self.assertEqual(sbverify(self.path("db.crt"),
                                  self.path("clockprobe.efi")), 0)
        self.assertNotEqual(sbverify(self.path("db.crt"), EFI), 0)
        other = os.path.join(self.dir, "other")
        os.makedirs(other)
        _, other_cert = mksigned.make_key(other, "someone else")
        self.assertNotEqual(sbverify(other_cert,
                                     self.path("clockprobe.efi")), 0)

    def test_key_is_made_once_and_reused(self):
        with open(self.path("db.crt"), "rb") as f:
            before = f.read()
        self.sign(self.out, "--no-media")
        with open(self.path("db.crt"), "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(sbverify(self.path("db.crt"),
                                  self.path("clockprobe.efi")), 0)

    def test_given_key_is_used(self):
        mine = os.path.join(self.dir, "mine")
        os.makedirs(mine)
        key, cert = mksigned.make_key(mine, "my own key")
        out = os.path.join(self.dir, "with-mine")
        signed = self.sign(out, "--key", key, "--cert", cert, "--no-media")
        self.assertEqual(sbverify(cert, signed), 0)
        self.assertNotEqual(sbverify(self.path("db.crt"), signed), 0)
        self.assertFalse(os.path.exists(os.path.join(out, "db.key")))

    def test_enrolling_files_hold_the_certificate(self):
        der = subprocess.run(["openssl", "x509", "-in", self.path("db.crt"),
                              "-outform", "DER"], check=True,
                             capture_output=True).stdout
        with open(self.path("db.cer"), "rb") as f:
            self.assertEqual(f.read(), der)
        with open(self.path("db.esl"), "rb") as f:
            esl = f.read()
        self.assertEqual(uuid.UUID(bytes_le=esl[:16]),
                         uuid.UUID("a5c059a1-94e4-4aa7-87b5-ab155c2bf072"))
        list_size = int.from_bytes(esl[16:20], "little")
        header_size = int.from_bytes(esl[20:24], "little")
        sig_size = int.from_bytes(esl[24:28], "little")
        self.assertEqual((list_size, header_size, sig_size),
                         (len(esl), 0, 16 + len(der)))
        self.assertEqual(esl[28 + 16:], der)

    def test_signed_disk_boots_the_signed_probe_and_carries_the_cert(self):
        img = "%s@@%d" % (self.path("clockprobe.img"), mksigned.ESP_OFFSET)
        env = dict(os.environ, MTOOLS_SKIP_CHECK="1")
        boot = os.path.join(self.dir, "BOOTX64.EFI")
        subprocess.run(["mcopy", "-n", "-i", img, "::/EFI/BOOT/BOOTX64.EFI",
                        boot], check=True, env=env)
        self.assertEqual(sbverify(self.path("db.crt"), boot), 0)
        cer = os.path.join(self.dir, "from-esp.cer")
        subprocess.run(["mcopy", "-n", "-i", img,
                        "::/" + mksigned.ESP_CERT_NAME, cer], check=True,
                       env=env)
        with open(cer, "rb") as f, open(self.path("db.cer"), "rb") as g:
            self.assertEqual(f.read(), g.read())


if __name__ == "__main__":
    unittest.main()
