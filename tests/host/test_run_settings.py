"""Host tests for `run --label/--kernel/--settings` (cptools/settings.py):
the words, and where each boot kind gets them -- -append for direct boot,
\\clockprobe.cfg on the fat: folder or on a copy of the disk (after the
words the image already has; the image itself untouched), refused for the
CD image.  The probe reading them is the integration tests' (settings
file, kernel= on the command line); tests/host/test_package.py boots
`run --boot pvh --label --kernel` once.  About a second.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402

from cptools import settings  # noqa: E402

EFI = os.path.join(REPO, "build", "clockprobe.efi")


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Words(unittest.TestCase):
    def test_label_kernel_and_free_words(self):
        self.assertEqual(settings.words("vm-1", "6.1", "mode=quick  wait=0"),
                         ["mode=quick", "wait=0", "label=vm-1", "kernel=6.1"])
        self.assertEqual(settings.words(), [])

    def test_what_would_not_survive_the_trip_is_refused(self):
        for label, kernel in (("two words", None), ("", None),
                              (None, "6"), (None, "latest"), (None, "6.1.2")):
            with self.subTest(label=label, kernel=kernel):
                with self.assertRaises(settings.SettingsError):
                    settings.words(label, kernel)


class Place(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="cp-settings-")
        self.addCleanup(shutil.rmtree, self.work, ignore_errors=True)

    def test_direct_boot_gets_the_kernel_command_line(self):
        image, args = settings.place("pvh", "x.elf", ["label=a", "kernel=6.1"],
                                     self.work)
        self.assertEqual((image, args), ("x.elf", ["-append", "label=a kernel=6.1"]))
        with self.assertRaises(settings.SettingsError):
            settings.place("pvh", "x.elf", ["label=a"], self.work,
                           extra="-append 'quiet'")
        self.assertEqual(settings.place("pvh", "x.elf", [], self.work),
                         ("x.elf", []))

    def test_fat_folder_gets_the_file_and_loses_it_next_time(self):
        cfg = os.path.join(self.work, "esp", "clockprobe.cfg")
        settings.place("fat", "probe.efi", ["kernel=5.10"], self.work)
        with open(cfg, "rb") as f:
            self.assertEqual(f.read(), b"kernel=5.10\r\n")
        settings.place("fat", "probe.efi", [], self.work)
        self.assertFalse(os.path.exists(cfg))

    def test_cd_image_is_refused(self):
        with self.assertRaises(settings.SettingsError) as c:
            settings.place("iso", "x.iso", ["label=a"], self.work)
        self.assertIn("images --settings", str(c.exception))

    @unittest.skipUnless(os.path.exists(EFI) and shutil.which("mtype")
                         and (shutil.which("sfdisk")
                              or os.access("/usr/sbin/sfdisk", os.X_OK)),
                         "needs build/clockprobe.efi, mtools and sfdisk")
    def test_disk_copy_gets_the_words_after_the_images_own(self):
        disk = os.path.join(self.work, "disk.img")
        subprocess.run([sys.executable, os.path.join(REPO, "boot", "mkmedia.py"),
                        "--efi", EFI, "--img", disk, "--settings", "wait=900"],
                       check=True, capture_output=True)
        before = sha(disk)
        image, args = settings.place("uefi", disk, ["label=b", "kernel=6.12"],
                                     os.path.join(self.work, "run"))
        self.assertEqual(args, [])
        self.assertNotEqual(image, disk)
        self.assertEqual(sha(disk), before)  # the image itself untouched
        out = subprocess.run(["mtype", "-i", "%s@@%d" % (image, settings.esp_offset(image)),
                              "::/clockprobe.cfg"], capture_output=True,
                             env=settings.MTOOLS_ENV)
        self.assertEqual(out.stdout.strip(), b"wait=900 label=b kernel=6.12")


if __name__ == "__main__":
    unittest.main()
