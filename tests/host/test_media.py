"""Host tests for boot/mkmedia.py's disk: the GPT sfdisk writes is the
layout OVMF boots (protective MBR, primary and backup GPT, one ESP at 1 MiB
with the fixed disk and partition GUIDs), the ESP holds the probe, and two
builds with the same SOURCE_DATE_EPOCH are the same bytes (disk and CD).

The boot itself is tests/integration's (every OVMF boot uses this disk).
About two seconds.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostlib import REPO  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "boot"))
import mkmedia  # noqa: E402

EFI = os.path.join(REPO, "build", "clockprobe.efi")
IMG = os.path.join(REPO, "build", "clockprobe.img")
MTOOLS_ENV = dict(os.environ, MTOOLS_SKIP_CHECK="1")


def have_sfdisk():
    try:
        mkmedia.find_sfdisk()
        return True
    except SystemExit:
        return False


def gpt_header(data, lba):
    """Fields of the GPT header at lba, its CRC checked here by hand (an
    independent reading of what sfdisk wrote)."""
    raw = data[lba * 512:lba * 512 + 92]
    fields = struct.unpack("<8sIIIIQQQQ16sQIII", raw)
    zeroed = raw[:16] + b"\0\0\0\0" + raw[20:]
    return fields, (zlib.crc32(zeroed) & 0xFFFFFFFF) == fields[3]


@unittest.skipUnless(os.path.exists(EFI) and have_sfdisk()
                     and shutil.which("mformat") and shutil.which("xorriso"),
                     "needs build/clockprobe.efi (make all), sfdisk (fdisk), "
                     "mtools and xorriso")
class Disk(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="cp-media-")
        env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
        for n in ("a", "b"):
            subprocess.run([sys.executable, os.path.join(REPO, "boot", "mkmedia.py"),
                            "--efi", EFI, "--img", os.path.join(cls.dir, n + ".img"),
                            "--iso", os.path.join(cls.dir, n + ".iso")],
                           check=True, env=env, capture_output=True)
        cls.img = os.path.join(cls.dir, "a.img")
        with open(cls.img, "rb") as f:
            cls.data = f.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_sfdisk_reads_back_one_esp_with_the_fixed_guids(self):
        table = json.loads(subprocess.run(
            [mkmedia.find_sfdisk(), "--json", self.img], check=True,
            capture_output=True, text=True).stdout)["partitiontable"]
        self.assertEqual(table["label"], "gpt")
        self.assertEqual(table["id"].lower(), str(mkmedia.DISK_GUID))
        self.assertEqual(table["firstlba"], 34)
        self.assertEqual(table["lastlba"], len(self.data) // 512 - 34)
        (part,) = table["partitions"]
        self.assertEqual((part["start"], part["size"]),
                         (2048, mkmedia.ESP_BYTES // 512))
        self.assertEqual(part["type"].lower(), str(mkmedia.ESP_TYPE).lower())
        self.assertEqual(part["uuid"].lower(), str(mkmedia.PART_GUID))
        self.assertEqual(part["name"], "EFI System")

    def test_protective_mbr_and_both_gpt_headers(self):
        self.assertEqual(self.data[510:512], b"\x55\xaa")
        self.assertEqual(self.data[446 + 4], 0xEE)  # protective partition type
        last = len(self.data) // 512 - 1
        primary, ok = gpt_header(self.data, 1)
        self.assertTrue(ok, "primary header CRC")
        backup, ok = gpt_header(self.data, last)
        self.assertTrue(ok, "backup header CRC")
        self.assertEqual(primary[0], b"EFI PART")
        self.assertEqual((primary[5], primary[6]), (1, last))  # my/alternate LBA
        self.assertEqual((backup[5], backup[6]), (last, 1))
        self.assertEqual(primary[9], mkmedia.DISK_GUID.bytes_le)
        # both copies of the entry array are the same bytes, CRC as stated
        for hdr in (primary, backup):
            entries = self.data[hdr[10] * 512:hdr[10] * 512 + hdr[11] * hdr[12]]
            self.assertEqual(zlib.crc32(entries) & 0xFFFFFFFF, hdr[13])

    def test_the_esp_holds_the_probe(self):
        tmp = os.path.join(self.dir, "BOOTX64.EFI")
        subprocess.run(["mcopy", "-n", "-i", self.img + "@@1M",
                        "::/EFI/BOOT/BOOTX64.EFI", tmp], check=True,
                       env=MTOOLS_ENV, capture_output=True)
        with open(tmp, "rb") as a, open(EFI, "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_same_epoch_same_bytes(self):
        for ext in ("img", "iso"):
            with open(os.path.join(self.dir, "a." + ext), "rb") as a, \
                    open(os.path.join(self.dir, "b." + ext), "rb") as b:
                self.assertTrue(a.read() == b.read(), ext + " differs")

    @unittest.skipUnless(os.path.exists(IMG), "needs build/clockprobe.img")
    def test_the_built_image_has_the_same_table(self):
        with open(IMG, "rb") as f:
            built = f.read(34 * 512)
        self.assertEqual(built[:34 * 512], self.data[:34 * 512])


if __name__ == "__main__":
    unittest.main()


class SettingsNotAscii(unittest.TestCase):
    """Issue 41: `images --settings` (and mkmedia's) with a value the
    probe cannot read -- non-ASCII, a control character -- is a usage
    error naming it (exit 2), not a UnicodeEncodeError traceback, and no
    image is written."""

    def test_images_and_mkmedia_refuse_by_name(self):
        out = tempfile.mkdtemp(prefix="cp-images-")
        self.addCleanup(shutil.rmtree, out, True)
        for words, shown in (("label=caf\u00e9", "'\\xe9' at position 10"),
                             ("label=\u2603", "'\\u2603' at position 7"),
                             ("wait=1\x1b[2J", "'\\x1b' at position 7")):
            p = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "clockprobe"), "images",
                                "--settings", words, "--formats", "img", "--out", out],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            self.assertIn("only printable ASCII goes into \\clockprobe.cfg: " + shown, p.stderr)
            self.assertEqual(os.listdir(out), [])
            p = subprocess.run([sys.executable, os.path.join(REPO, "boot", "mkmedia.py"), "--efi", EFI,
                                "--img", os.path.join(out, "x.img"), "--settings", words],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertNotIn("Traceback", p.stderr)
            self.assertEqual(os.listdir(out), [])
